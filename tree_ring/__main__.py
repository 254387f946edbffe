"""`python3 -m tree_ring` runs the CLI; `python3 -m tree_ring mcp` the MCP server.

The CLI and the MCP server are two clients of the library on the same floor,
so neither imports the other: the choice is made here, above both, before
either loads. The server then starts without the CLI's parser and verbs.
"""

import sys


def main() -> int:
    words = sys.argv[1:]
    if words[:1] == ["mcp"]:
        from tree_ring.mcp.server import main as serve

        return serve(words[1:])
    from tree_ring.cli.app import main as cli

    return cli(words)


if __name__ == "__main__":
    sys.exit(main())
