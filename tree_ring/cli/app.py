"""The `tree-ring` command: argparse in, library calls, one place for errors.

Every verb takes `--json` (one JSON document on stdout) and `--root DIR`.
The verbs live in `tree_ring.commands`, one module per group; library errors
become `error: ...` on stderr with the error's exit code here and nowhere else.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence

from tree_ring import __version__, guard
from tree_ring.cli import admin, compress, govern, quality, read, upkeep, write
from tree_ring.cli.context import Context, Handler
from tree_ring.model.errors import TreeRingError

# Adapters and integrations: dox, revolve, integrations, recall-quality, welcome.
from tree_ring.cli import adapters, integrations  # isort: skip

GROUPS = (admin, write, read, upkeep, quality, govern, compress, adapters, integrations)


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--root", default=argparse.SUPPRESS, help="project directory (TREE_RING_ROOT)"
    )
    common.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="print one JSON document"
    )
    parser = argparse.ArgumentParser(
        prog="tree-ring",
        description="Tree Ring: local, governed memory for coding agents.",
        # Served by tree_ring.mcp, which this package may not import (see __main__).
        epilog="tree-ring mcp: serve this project's memory to an MCP client on stdin/stdout "
        "(tree-ring mcp --help)",
    )
    parser.add_argument("--version", action="version", version=f"tree-ring {__version__}")
    parser.add_argument("--root", help="project directory (default: walk up to .tree-ring/)")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def verb(name: str, handler: Handler, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, parents=[common], help=help_text, description=help_text)
        p.set_defaults(handler=handler)
        return p

    for group in GROUPS:
        group.register(verb)
    return parser


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    # Python hands bytes that are not UTF-8 over as lone surrogates, which no
    # SQLite call, hash or JSON document can take; refuse them here, once.
    for position, word in enumerate(words, start=1):
        if any("\ud800" <= char <= "\udfff" for char in word):
            print(
                f"error: argument {position} is not valid UTF-8 text; re-encode it and retry",
                file=sys.stderr,
            )
            return 2
    args = build_parser().parse_args(words)
    ctx = Context(args, os.environ if environ is None else environ, sys.stdout)
    handler: Handler = args.handler
    try:
        return handler(ctx)
    except TreeRingError as exc:
        print(f"error: {guard.withhold(str(exc))}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
