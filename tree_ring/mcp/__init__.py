"""Tree Ring over MCP: a stdio server that is a client of the library, like the CLI."""
