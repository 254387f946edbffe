"""`python3 -m tree_ring` runs the CLI; `python3 -m tree_ring mcp` the MCP server.

The CLI and the MCP server are two clients of the library on the same floor,
so neither imports the other: the choice is made here, above both, before
either loads. The server then starts without the CLI's parser and verbs.
"""

import gc
import sys


def main(argv: list[str] | None = None) -> int:
    """Run the command `argv` names (default: this process's) and return its exit code."""
    words = sys.argv[1:] if argv is None else argv
    if words[:1] == ["mcp"]:
        from tree_ring.mcp.server import main as serve

        return serve(words[1:])
    if words[:1] in (["view"], ["report"]):  # the web view, also a client on that floor
        from tree_ring.web.app import main as web

        return web(words)
    from tree_ring.cli.app import main as cli

    return cli(words)


def run() -> None:
    """`main` as a program; the CLI exits at once once its output is out."""
    if sys.argv[1:2] in (["mcp"], ["view"], ["report"]):
        sys.exit(main())
    from tree_ring.cli.app import run as cli

    cli()


if __name__ == "__main__":
    gc.disable()  # as bin/tree-ring does; the CLI turns it back on before the command runs
    run()
