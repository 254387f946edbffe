"""The `tree-ring` command: argparse in, library calls, one place for errors.

Every verb takes `--json` (one JSON document on stdout) and `--root DIR`.
The verbs live in this package, one module per group, each with a `VERBS`
table of handlers and arguments; library errors become `error: ...` on
stderr with the error's exit code here and nowhere else.

A call imports and builds only the verb it names: `VERBS` below says which
module holds each verb and what `tree-ring --help` says of it, so the help
lists every verb without importing any group, and `recall` never loads the
write path, the summary tree or the review queue.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys

from tree_ring import __version__
from tree_ring.cli import english, english_plural
from tree_ring.cli.context import Context, Formatter, Parser, error_line, examples
from tree_ring.model import errors
from tree_ring.model.arguments import unrecognized
from tree_ring.model.errors import TreeRingError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Mapping, Sequence
    from typing import Any, NoReturn

    from tree_ring.cli.context import Arguments, Handler

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


# verb -> (module in tree_ring.cli, help), in the order `--help` lists them.
VERBS: dict[str, tuple[str, str]] = {
    "init": ("admin", "create .tree-ring/ with the store, project.json and guidance"),
    "status": (
        "admin",
        "what the store holds (live, waiting, retired by reason) and which hooks fired",
    ),
    "export": ("admin", "write the project's memories as JSONL"),
    "import": ("admin", "import JSONL (Tree Ring's or the original's); all or nothing"),
    "audit": (
        "admin",
        "the audit log: `audit log`, `audit verify`, `audit findings` (what needs a person)",
    ),
    "remember": ("write", "store a memory"),
    "evidence": ("write", "store the outcome of an evaluation, run or incident"),
    "capture": (
        "write",
        "the stop hook's narrow write: the agent's own partition, fixed type/ring pairs",
    ),
    "forget": ("write", "delete or redact a memory; its content never comes back"),
    "supersede": ("write", "mark OLD_ID as replaced by NEW_ID"),
    "refute": (
        "write",
        "say a memory proved wrong: an agent's refutation waits, disputed, for a person; "
        "a person's retires it",
    ),
    "recall": ("read", "search memories, best first"),
    "brief": ("read", "the startup brief the SessionStart hook injects"),
    "list": ("read", "list live memories of the project, newest first, a page at a time"),
    "show": ("read", "show one memory, every field"),
    "stale": ("anchors", "memories whose anchored files changed or were deleted since"),
    "confirm": ("anchors", "a memory still holds: re-anchor it to its files as they are now"),
    "sync": ("team", "the team ledger .tree-ring/ledger.jsonl and the store, both ways"),
    "inbox": ("flows", "what agents saved since you last looked; promote, keep or forget it"),
    "promote": ("flows", "share a partition memory with the project (or --scope global: you)"),
    "doctor": ("upkeep", "check the store; --repair rebuilds what the rows allow"),
    "maintain": ("upkeep", "expiry, secret sweep and compaction; reports by default"),
    "usage": (
        "usage",
        "what Tree Ring put into agents' context: briefs, checkpoints, recalls, tokens",
    ),
    "quality": (
        "quality",
        "run recall quality scenarios (expected and forbidden recall); exit 1 on any failure",
    ),
    "review": (
        "govern",
        "the review queue: `review list`, `review approve ID|--all`, `review reject|dispute ID`, "
        "`review readmit ID`, `review policy`",
    ),
    "policy": ("govern", "coordinated write policy: `policy enable|status|rotate|disable|audit`"),
    "consolidate": ("compress", "write one summary memory per group of live memories in a period"),
    "tree": ("compress", "the summary tree: status, show, flush, rebuild, config"),
    "dox": (
        "adapters",
        "`dox sync`: the sections of the project's AGENTS.md files as memory "
        "(rules as heartwood, the rest as guidance); the files stay authoritative",
    ),
    "revolve": (
        "adapters",
        "`revolve sync`: evaluation outcomes in a Revolve folder as memory "
        "(rejected as scars, promoted as heartwood, deferred as seeds, results as outer)",
    ),
    "integrations": (
        "integrations",
        "`integrations scan|status|certify`: agent harnesses here and in the home folder, "
        "and whether Tree Ring's plugin and hooks work in Claude Code and Codex",
    ),
    "recall-quality": (
        "integrations",
        "run the recall quality scenarios and write their certification report "
        "(JSON and Markdown); exit 1 on any failure",
    ),
    "welcome": ("integrations", "a short first-run tour: the store, the hooks, what to try"),
    "config": (
        "config",
        "settings: `config list|get KEY|set KEY=VALUE`, e.g. checkpoint=after-work",
    ),
    "completion": ("completion", "print a bash, zsh or fish completion script for tree-ring"),
}


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
        "consolidate",
        "maintain",
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
    return getattr(args, "review_action", None) != "list"


def verb_entry(name: str) -> tuple[Handler, Arguments]:
    """The handler and arguments of one verb, from its group's module."""
    entry: tuple[Handler, Arguments] = _module(name).VERBS[name]
    return entry


def verb_examples(name: str) -> tuple[str, ...]:
    """A verb's examples for its help, from its group's `EXAMPLES` table."""
    table: dict[str, tuple[str, ...]] = getattr(_module(name), "EXAMPLES", {})
    return table.get(name, ())


def _module(name: str) -> Any:
    module_name, _ = VERBS[name]
    return __import__(f"tree_ring.cli.{module_name}", fromlist=["VERBS"])


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


def named_verb(words: Sequence[str]) -> str | None:
    """The verb a command line names: its first word that is not a global option."""
    skip = False
    for position, word in enumerate(words):
        if skip:
            skip = False
        elif word == "--":
            return words[position + 1] if position + 1 < len(words) else None
        elif word.startswith("-"):
            # --root takes a value (argparse also accepts --ro, --roo ...).
            skip = "=" not in word and len(word) >= 3 and "--root".startswith(word)
        else:
            return word
    return None


def parse(words: Sequence[str]) -> argparse.Namespace:
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
        if code == 0 and writes_ledger(args):
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

    Before that, argparse takes its messages as written. It asks gettext for
    each one in the user's language, from the catalog Python ships empty;
    every lookup reads the environment and stats the disk, and the first
    imports locale: together a tenth of a recall. Tree Ring speaks English,
    and so does argparse when the catalog is empty, so the output is the same.
    """
    setattr(argparse, "_", english)  # noqa: B010 - argparse's own name for gettext
    setattr(argparse, "ngettext", english_plural)  # noqa: B010
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader went away: what it missed, it did not want
        pass
    os._exit(code)
