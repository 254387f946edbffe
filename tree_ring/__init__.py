"""Tree Ring: a local, governed memory layer for coding agents."""

__version__ = "0.1.0"
