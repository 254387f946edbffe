"""`python3 -m tree_ring` runs the CLI; a few words run another client instead.

The CLI, the MCP server, the terminal UI and the web view are clients of the
library on the same floor, so none imports another: the choice is made here,
above them, before any loads. Each then starts without the CLI's parser and
verbs. `merge-driver` is git's merge driver for the team ledger: the merge
rule and nothing else.
"""

import gc
import sys

MERGE_DRIVER = "merge-driver"

# word -> (module, its entry point, whether it takes the word itself too)
CLIENTS: dict[str, tuple[str, str, bool]] = {
    "mcp": ("tree_ring.mcp.server", "main", False),
    "tui": ("tree_ring.tui.main", "main", False),
    "view": ("tree_ring.web.app", "main", True),
    "report": ("tree_ring.web.app", "main", True),
    MERGE_DRIVER: ("tree_ring.team.ledger", "merge_driver", False),
}


def client_words(words: list[str]) -> list[str]:
    """`words` with the global options before a client's word moved after it.

    The top-level usage reads `tree-ring [--root ROOT] [--json] COMMAND`, and
    so it is for the clients too: each takes --root and --json of its own
    (or refuses the one that cannot apply to it, in one line).
    """
    position = 0
    while position < len(words):
        word = words[position]
        if word == "--root" and position + 1 < len(words):
            position += 2
        elif word == "--json" or word.startswith("--root="):
            position += 1
        else:
            break
    if 0 < position < len(words) and words[position] in CLIENTS:
        if words[position] != MERGE_DRIVER:
            return [words[position], *words[:position], *words[position + 1 :]]
    return words


def main(argv: list[str] | None = None) -> int:
    """Run the command `argv` names (default: this process's) and return its exit code."""
    words = client_words(sys.argv[1:] if argv is None else argv)
    if words and words[0] in CLIENTS:
        module_name, entry, whole = CLIENTS[words[0]]
        module = __import__(module_name, fromlist=[entry])
        code: int = getattr(module, entry)(words if whole else words[1:])
        return code
    from tree_ring.cli.app import main as cli

    return cli(words)


def run() -> None:
    """`main` as a program; the CLI exits at once once its output is out."""
    words = client_words(sys.argv[1:])
    if words[:1] and words[0] in CLIENTS:
        sys.exit(main(words))
    from tree_ring.cli.app import run as cli

    cli()


if __name__ == "__main__":
    gc.disable()  # as bin/tree-ring does; the CLI turns it back on before the command runs
    run()
