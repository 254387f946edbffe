"""The CLI's verbs: which module holds each, and what `tree-ring --help`
says of it, so the help lists every verb without importing any group, and a
call imports only the group of the verb it names. Each group's module holds
a `VERBS` table of each verb's handler and arguments, and an `EXAMPLES`
table for its help.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from tree_ring.cli.context import Arguments, Handler

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


def verb_at(words: Sequence[str]) -> int | None:
    """Where the verb of a command line is: its first word that is not a
    global option (or the word after `--`); None when it names none."""
    skip = False
    for position, word in enumerate(words):
        if skip:
            skip = False
        elif word == "--":
            return position + 1 if position + 1 < len(words) else None
        elif word.startswith("-"):
            # --root takes a value (argparse also accepts --ro, --roo ...).
            skip = "=" not in word and len(word) >= 3 and "--root".startswith(word)
        else:
            return position
    return None


def named_verb(words: Sequence[str]) -> str | None:
    """The verb a command line names (`verb_at`)."""
    at = verb_at(words)
    return None if at is None else words[at]
