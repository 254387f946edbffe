"""Print docs/CLI.md, generated from the CLI's parser.

python3 scripts/cli_docs.py > docs/CLI.md
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tree_ring.cli import argparsing, reference


def main() -> int:
    sys.stdout.write(reference.markdown(reference.walk(argparsing.build_parser(), "", "")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
