"""`python3 -m tree_ring` runs the CLI; `... mcp` the MCP server; `... tui` the terminal UI.

The CLI, the MCP server and the terminal UI are clients of the library on the
same floor, so none imports another: the choice is made here, above them,
before any loads. The server and the UI then start without the CLI's parser
and verbs.
"""

import gc
import sys


def main(argv: list[str] | None = None) -> int:
    """Run the command `argv` names (default: this process's) and return its exit code."""
    words = sys.argv[1:] if argv is None else argv
    if words[:1] == ["mcp"]:
        from tree_ring.mcp.server import main as serve

        return serve(words[1:])
    if words[:1] == ["tui"]:
        from tree_ring.tui.main import main as tui

        return tui(words[1:])
    from tree_ring.cli.app import main as cli

    return cli(words)


def run() -> None:
    """`main` as a program; the CLI exits at once once its output is out."""
    if sys.argv[1:2] in (["mcp"], ["tui"]):
        sys.exit(main())
    from tree_ring.cli.app import run as cli

    cli()


if __name__ == "__main__":
    gc.disable()  # as bin/tree-ring does; the CLI turns it back on before the command runs
    run()
