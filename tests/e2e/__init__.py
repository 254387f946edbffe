"""End-to-end tests: the real Claude Code and Codex CLIs against mock model servers.

A package, so its conftest and helpers never shadow the top-level tests'
`conftest` module.
"""
