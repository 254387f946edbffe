"""Print docs/CLI.md, generated from the CLI's parser and the clients' own.

python3 scripts/cli_docs.py > docs/CLI.md

`view`, `report`, `tui` and `mcp` are clients beside the CLI that parse
their own arguments (`tree_ring/__main__.py`), so their help is read from
them and follows the CLI's.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tree_ring.cli import argparsing, reference


def clients() -> str:
    """A section for each client, its `--help` as a terminal WIDTH wide shows it."""
    from tree_ring.mcp.server import USAGE
    from tree_ring.tui.main import parser as tui
    from tree_ring.web.app import parser as web

    os.environ["COLUMNS"] = str(reference.WIDTH)  # argparse's width for the clients
    helps = [
        ("view", web("view").format_help()),
        ("report", web("report").format_help()),
        ("tui", tui().format_help()),
        ("mcp", USAGE),
    ]
    lines: list[str] = []
    for name, shown in helps:
        lines.extend(["", f"## tree-ring {name}", "", "```text", shown.rstrip(), "```"])
    return "\n".join(lines) + "\n"


def text() -> str:
    """docs/CLI.md whole."""
    return reference.markdown(reference.walk(argparsing.build_parser(), "", "")) + clients()


def main() -> int:
    sys.stdout.write(text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
