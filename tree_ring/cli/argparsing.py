"""argparse, for what the CLI's own reader leaves to it: help, and the
command lines it does not read (`tree_ring/cli/reader.py`), whose mistakes
argparse names in its own words, held to what `model.arguments` lets an
error say. Imported only then: most commands never load argparse.

argparse imports gettext for two functions which, with no catalog installed
for its messages (Python ships none), return their text as it is; gettext
costs a command about 2 ms. argparse binds the two when it is imported, so
it is given plain ones, and gettext itself stays importable as ever. Its
other lookups (`argparse._`, `argparse.ngettext`) are given the same: each
gettext call reads the environment and stats the disk.
"""

from __future__ import annotations

import os
import sys


def english(message: str) -> str:
    """gettext as argparse gets it: the message as written."""
    return message


def english_plural(singular: str, plural: str, n: int) -> str:
    """ngettext as argparse gets it: English's two forms."""
    return singular if n == 1 else plural


def _import_argparse() -> None:
    if "argparse" in sys.modules or "gettext" in sys.modules:
        return
    import types

    plain = types.ModuleType("gettext")
    plain.__dict__.update(gettext=english, ngettext=english_plural)
    sys.modules["gettext"] = plain
    try:
        __import__("argparse")
    except ImportError:
        pass  # an argparse that asks gettext for more: imported as ever, below
    finally:
        del sys.modules["gettext"]


_import_argparse()

import argparse  # noqa: E402 - after the plain gettext above, on purpose

from tree_ring import __version__  # noqa: E402
from tree_ring.cli.context import examples  # noqa: E402
from tree_ring.cli.verbs import VERBS, named_verb, verb_entry, verb_examples  # noqa: E402
from tree_ring.model import errors  # noqa: E402
from tree_ring.model.arguments import unrecognized  # noqa: E402
from tree_ring.model.parsers import UsageParser  # noqa: E402

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Sequence
    from typing import Any

setattr(argparse, "_", english)  # noqa: B010 - argparse's own name for gettext
setattr(argparse, "ngettext", english_plural)  # noqa: B010


_width: list[int] = []


def _columns() -> int:
    """The terminal's width, as `shutil.get_terminal_size` finds it (once)."""
    if _width:
        return _width[0]
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    stream = sys.__stdout__
    if columns <= 0 and stream is not None:
        try:
            columns = os.get_terminal_size(stream.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    _width.append(columns if columns > 0 else 80)
    return _width[0]


class Parser(UsageParser):
    """The CLI's parser: argparse's, with no value echoed in an error (see
    model/parsers.py), the closest choice suggested for a mistyped verb or
    action, and its errors raised as `UsageError`, so they reach the CLI's one
    error place (and come out as JSON under `--json`).

    The verbs declare "no default" as `context.SUPPRESS`, argparse's text
    without argparse; argparse knows its own by identity, so each such
    default is made argparse's object before a line is read."""

    def parse_known_args(  # pyright: ignore[reportIncompatibleMethodOverride]
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> tuple[Any, list[str]]:
        for action in self._actions:
            if isinstance(action.default, str) and action.default == argparse.SUPPRESS:
                action.default = argparse.SUPPRESS
        return super().parse_known_args(args, namespace)


class Formatter(argparse.HelpFormatter):
    """argparse's help formatter, without its `import shutil` (which imports
    the compression modules): argparse makes one for every argument it adds,
    so every call of the CLI would pay for it."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        super().__init__(
            prog, indent_increment, max_help_position, _columns() - 2 if width is None else width
        )

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        # An epilog's example lines (indented) are kept as written; prose is filled.
        return "\n".join(
            indent + line
            if line.startswith("  ")
            else super(Formatter, self)._fill_text(line, width, indent)
            for line in text.splitlines()
        )


def build_parser(
    full: Collection[str] | None = None, *, listed: bool = True
) -> argparse.ArgumentParser:
    """The parser with every verb in full, or only the verbs in `full`.

    The others are listed (name and help, for `--help` and argparse's
    "invalid choice") unless `listed` is False, when they are left out: a
    call that names a known verb never builds another verb's parser.
    """
    parser = Parser(
        prog="tree-ring",
        description="Tree Ring: local, governed memory for coding agents.",
        # Served by other clients on this floor, which this package may not
        # import (see tree_ring/__main__.py).
        epilog="tree-ring mcp: serve this project's memory to an MCP client on stdin/stdout "
        "(tree-ring mcp --help); tree-ring tui: the full-screen terminal UI; "
        "tree-ring view: browse it on 127.0.0.1; tree-ring report --html FILE: one HTML file",
        formatter_class=Formatter,
    )
    parser.add_argument("--version", action="version", version=f"tree-ring {__version__}")
    parser.add_argument("--root", help="project directory (default: walk up to .tree-ring/)")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (_, help_text) in VERBS.items():
        in_full = full is None or name in full
        if not (in_full or listed):
            continue
        p = sub.add_parser(name, help=help_text, description=help_text, formatter_class=Formatter)
        # Every verb's own --root and --json, so they work after the verb too.
        # Added here rather than from a parent parser: one parser fewer to build.
        p.add_argument(
            "--root", default=argparse.SUPPRESS, help="project directory (TREE_RING_ROOT)"
        )
        p.add_argument(
            "--json", action="store_true", default=argparse.SUPPRESS, help="print one JSON document"
        )
        if in_full:
            handler, arguments = verb_entry(name)
            arguments(p)
            p.set_defaults(handler=handler, command_name=name)
            lines = verb_examples(name)
            if lines:
                p.epilog = examples(lines)
        else:
            # Listed only: whatever follows is parsed again with this verb in full.
            p.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
            p.set_defaults(handler=None)
    return parser


def parse(words: Sequence[str]) -> argparse.Namespace:
    """argparse's reading of a command line, building only the verb it names."""
    verb = named_verb(words)
    if verb in VERBS:
        args = _parsed(build_parser({verb}, listed=False), words)
    else:  # no verb, or an unknown one: argparse says so, suggesting the closest
        args = _parsed(build_parser(()), words)
    if args.handler is None:  # a verb named where the scan did not look
        args = _parsed(build_parser({args.command}, listed=False), words)
    return args


def _parsed(parser: argparse.ArgumentParser, words: Sequence[str]) -> argparse.Namespace:
    """argparse's reading of `words`; a word or flag left over is refused in
    the name of the command that was given it (`tree-ring review list`), not
    of `tree-ring` as argparse would."""
    args, extra = parser.parse_known_args(words)
    if extra:
        command = f"tree-ring {getattr(args, 'command_name', None) or args.command}"
        # Options named, other words counted: a word left over can be a token.
        raise errors.UsageError(f"{command}: {unrecognized(extra)} (`{command} --help` shows how)")
    return args
