"""The summary tree (TinyCortex's bucket-seal tree) and its deterministic summariser."""
