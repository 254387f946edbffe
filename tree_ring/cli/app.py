"""The `tree-ring` command: a command line in, library calls, one place for errors.

Every verb takes `--json` (one JSON document on stdout) and `--root DIR`.
The verbs live in this package, one module per group, each with a `VERBS`
table of handlers and arguments; library errors become `error: ...` on
stderr with the error's exit code here and nowhere else.

A call imports and reads only the verb it names (`cli/verbs.py` says which
module holds each), so `recall` never loads the write path, the summary
tree or the review queue, and reads its line by the verb's own declaration
(`cli/reader.py`); argparse is loaded only for what the reader leaves.
"""

from __future__ import annotations

import gc
import os
import sys

from tree_ring.cli import reader
from tree_ring.cli.context import Context, error_line
from tree_ring.cli.verbs import VERBS, named_verb, verb_entry
from tree_ring.model import errors
from tree_ring.model.errors import TreeRingError

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping, Sequence
    from typing import Any, NoReturn

    from tree_ring.cli.context import Handler

# The exit code of a failure no check foresaw (sysexits' EX_SOFTWARE).
INTERNAL_ERROR = 70

# The stable `code` of an error under --json, by its class (the first that
# matches, so a subclass comes before its base); anything else is "internal".
ERROR_CODES: tuple[tuple[type[TreeRingError], str], ...] = (
    (errors.SecretRefused, "secret_refused"),
    (errors.UsageError, "usage"),
    (errors.NoStore, "no_store"),
    (errors.UnsafePath, "unsafe_path"),
    (errors.SchemaTooNew, "schema_too_new"),
    (errors.StoreBusy, "store_busy"),
    (errors.StoreFault, "store_fault"),
    (errors.Conflict, "conflict"),
    (errors.NotFound, "not_found"),
    (errors.Denied, "denied"),
)


def error_code(exc: BaseException) -> str:
    for kind, code in ERROR_CODES:
        if isinstance(exc, kind):
            return code
    return "internal"


# Verbs whose writes a person makes reach the team ledger at once (`cli/team.py`).
LEDGER_WRITES = frozenset(
    {
        "remember",
        "evidence",
        "forget",
        "supersede",
        "refute",
        "confirm",
        "review",
        "promote",
        "import",
        "inbox",
        "consolidate",
        "maintain",
        "dox",
        "revolve",
    }
)


def writes_ledger(args: argparse.Namespace) -> bool:
    """Whether this run is a write that reaches the ledger: one of those verbs,
    not a listing, a report or a dry run of it (none writes, so none rewrites
    a ledger a teammate's pull or an edit changed)."""
    if args.command not in LEDGER_WRITES or getattr(args, "dry_run", False):
        return False
    if args.command == "maintain":  # a report unless it deletes or redacts
        return bool(args.apply_expired or args.apply_secret_sweep)
    if args.command == "inbox":  # a listing unless it promotes or forgets what it lists
        return bool(getattr(args, "promote", False) or getattr(args, "forget", False))
    return getattr(args, "review_action", None) != "list"


def parse(words: Sequence[str]) -> Any:
    """The command line read: by the CLI's reader from the verb's own
    declaration, or, for a line it leaves (help, a mistake, a form it does
    not read), by argparse."""
    verb = named_verb(words)
    if verb in VERBS:
        read = reader.read(words, verb, *verb_entry(verb))
        if read is not None:
            return read
    from tree_ring.cli import argparsing

    return argparsing.parse(words)


# A repeatable flag's bound, checked before argparse reads the line: its
# reading of a repeated option costs time in the square of the count (ten
# thousand `--file` flags take it seconds).
REPEAT_BOUNDS = {"--file": 64}


def _bounded(words: Sequence[str]) -> None:
    flags = words[: words.index("--")] if "--" in words else words
    for flag, bound in REPEAT_BOUNDS.items():
        count = sum(1 for w in flags if w == flag or w.startswith(flag + "="))
        if count > bound:
            raise errors.UsageError(
                f"{count:,} {flag} flags given; a memory names at most {bound} files "
                "(the files it is about)"
            )


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    # Errors come out as JSON when the command line asks for it, wherever
    # they happen (the parser's too), so the flag is looked for by hand.
    as_json = "--json" in (words[: words.index("--")] if "--" in words else words)
    env = os.environ if environ is None else environ
    try:
        # Python hands bytes that are not UTF-8 over as lone surrogates, which no
        # SQLite call, hash or JSON document can take; refuse them here, once.
        for position, word in enumerate(words, start=1):
            if any("\ud800" <= char <= "\udfff" for char in word):
                raise errors.UsageError(
                    f"argument {position} is not valid UTF-8 text; re-encode it and retry"
                )
        _bounded(words)
        args = parse(words)
        if not gc.isenabled():
            # The launcher held off collection while the modules loaded; they stay
            # to the end, so they are frozen out of every later collection.
            gc.freeze()
            gc.enable()
        ctx = Context(args, env, sys.stdout)
        handler: Handler = args.handler
        code = handler(ctx)
        if (code == 0 or ctx.done) and writes_ledger(args):
            from tree_ring.cli.team import after_write

            after_write(ctx)
        return code
    except TreeRingError as exc:
        return _fail(str(exc), error_code(exc), exc.exit_code, as_json, words)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:
        # The last line of defence: a store edited by hand can hold what no
        # check foresaw (a NULL where Tree Ring always writes a value, a mangled
        # schema entry). One line, never a traceback, unless asked for one.
        if env.get("TREE_RING_DEBUG", "").strip().lower() in ("1", "true", "yes", "on"):
            raise
        from tree_ring.guard import withhold

        # Withheld before it is cut short: a secret cut short no longer looks like one.
        first = withhold(str(exc).splitlines()[0], words)[:160] if str(exc).strip() else ""
        message = (
            f"unexpected {type(exc).__name__}: {first}; run `tree-ring doctor` to check "
            "the store (TREE_RING_DEBUG=1 shows where it happened)"
        )
        return _fail(message, "internal", INTERNAL_ERROR, as_json, words)


def _fail(message: str, code: str, exit_code: int, as_json: bool, words: Sequence[str]) -> int:
    line = error_line(message, code=code, exit_code=exit_code, as_json=as_json, supplied=words)
    sys.stderr.write(line)
    return exit_code


def run() -> NoReturn:
    """`main` as a program: flush the output, then exit at once.

    What the command wrote is committed and closed by the time `main`
    returns, so the interpreter's teardown (freeing every object of every
    module it loaded, which costs a short command a sixth of its run) does
    nothing the operating system will not do at exit.

    """
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader went away: what it missed, it did not want
        pass
    os._exit(code)
