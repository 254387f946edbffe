"""`tree-ring tui`: the arguments, the terminal check, and the one place errors end.

curses.wrapper restores the terminal (its modes and the alternate screen) on
the way out, whether the loop ends by `q`, by an exception or by Ctrl-C; the
error then becomes one line on stderr, as the CLI's do. Without a terminal
on both ends there is nothing to draw on, so the command refuses at once.
"""

from __future__ import annotations

import argparse
import os
import sys

from tree_ring.model import project
from tree_ring.model.errors import TreeRingError
from tree_ring.model.parsers import UsageParser
from tree_ring.model.record import option_time
from tree_ring.model.text import error_safe

TYPE_CHECKING = False
if TYPE_CHECKING:
    import curses
    from collections.abc import Callable, Mapping, Sequence

USAGE_EXIT = 2
INTERRUPTED = 130
INTERNAL_ERROR = 70


def parser() -> argparse.ArgumentParser:
    p = UsageParser(
        prog="tree-ring tui",
        description="A full-screen view of the project's memory: the rings, search, "
        "review and curation, live as other processes write. Press ? inside for the keys.",
    )
    p.add_argument("--root", help="project directory (default: walk up to .tree-ring/)")
    p.add_argument("--as-of", metavar="TIME", help="open on what was believed at TIME")
    p.add_argument("--valid-at", metavar="TIME", help="open on what held at TIME")
    p.add_argument(
        "--include-sensitive", action="store_true", help="open with sensitive memories shown"
    )
    p.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    return p


def _fail(message: str, code: int, as_json: bool, kind: str = "usage") -> int:
    message = error_safe(message)  # one line, whatever a value it quotes holds
    if as_json:
        import json

        error = {"error": {"code": kind, "message": message, "exit": code}}
        print(json.dumps(error, sort_keys=True), file=sys.stderr)
    else:
        print(f"error: {message}", file=sys.stderr)
    return code


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    words = list(sys.argv[2:] if argv is None else argv)
    env = os.environ if environ is None else environ
    try:
        args = parser().parse_args(words)
    except TreeRingError as exc:
        from tree_ring.guard import withhold

        return _fail(withhold(str(exc)), exc.exit_code, "--json" in words)
    if args.json:
        return _fail(
            "tree-ring tui is interactive and prints no JSON; use `tree-ring list --json`",
            USAGE_EXIT,
            True,
        )
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return _fail(
            "tree-ring tui needs a terminal on stdin and stdout; in a script use "
            "`tree-ring list`, `recall` or `review list`",
            USAGE_EXIT,
            False,
        )
    try:
        for value, flag in ((args.as_of, "--as-of"), (args.valid_at, "--valid-at")):
            option_time(value, flag)
        root = project.locate_str(args.root, env)
        return _run(root, env, args)
    except TreeRingError as exc:
        from tree_ring.guard import withhold

        return _fail(withhold(str(exc)), exc.exit_code, False)
    except KeyboardInterrupt:
        return INTERRUPTED
    except Exception as exc:
        if env.get("TREE_RING_DEBUG", "").strip().lower() in ("1", "true", "yes", "on"):
            raise
        first = str(exc).splitlines()[0][:160] if str(exc).strip() else ""
        return _fail(
            f"unexpected {type(exc).__name__}: {first}; run `tree-ring doctor` to check the store "
            "(TREE_RING_DEBUG=1 shows where it happened)",
            INTERNAL_ERROR,
            False,
        )


def _run(root: str, env: Mapping[str, str], args: argparse.Namespace) -> int:
    import curses
    import locale

    from tree_ring.tui import screen
    from tree_ring.tui.actions import Session
    from tree_ring.tui.state import State

    session = Session(root, env)
    try:
        state = State(
            project=session.project,
            as_of=args.as_of,
            valid_at=args.valid_at,
            include_sensitive=args.include_sensitive,
        )
        locale.setlocale(locale.LC_ALL, "")
        unicode = locale.getpreferredencoding(False).replace("-", "").lower() == "utf8"
        color = not env.get("NO_COLOR")  # https://no-color.org: any non-empty value
        try:
            _wrapped(lambda window: screen.run(window, session, state, color, unicode))
        except curses.error as exc:
            term = env.get("TERM", "")
            return _fail(
                f"this terminal (TERM={term or 'unset'}) cannot draw the TUI: {exc}",
                USAGE_EXIT,
                False,
            )
    finally:
        session.close()
    return 0


def _wrapped(run: Callable[[curses.window], None]) -> None:
    """curses.wrapper, but colour only when the screen asks for it.

    The standard wrapper starts colour on any terminal that has it, and
    ncurses then paints every cell white on black: under NO_COLOR nothing
    but the terminal's own colours may show. The way out is the wrapper's:
    whatever ends the loop (q, an exception, Ctrl-C), the modes and the
    alternate screen are restored before it goes on up.
    """
    import curses

    window = curses.initscr()
    try:
        curses.noecho()
        curses.cbreak()
        window.keypad(True)
        run(window)
    finally:
        window.keypad(False)
        curses.echo()
        curses.nocbreak()
        curses.endwin()
