"""What memory cost an agent's context: the usage log, added up.

`report` reads the usage log (`store/usage_log.py`) over a period and the
store beside it: sessions, briefs, checkpoints and recalls, the bytes and
estimated tokens each put into the agent's context, the model turns the
checkpoint added (one per checkpoint that blocked a stop: the agent answers
it), the captures the checkpoints stored, and the memories injected most.
`memory_usage` is one memory's share: how often it was injected and
recalled, and when last.

Tree Ring itself spends no model tokens: it runs no model and calls no
network. What it spends is the agent's context, and this is its account.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from tree_ring.model import project
from tree_ring.model.errors import TimeOutOfRange, UsageError
from tree_ring.model.text import whole_number
from tree_ring.store import usage_log, usage_rows
from tree_ring.store.db import Store
from tree_ring.store.usage_log import PERSON, estimate_tokens

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection

    from tree_ring.model.identity import Identity
    from tree_ring.read.forgotten_here import ForgottenHere

TOP = 10
UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
# The most units `--since` counts back: 100,000 weeks is some 1,900 years.
MAX_COUNT = 100_000
GUARANTEE = "Tree Ring itself spends no model tokens: no model, no network; this is context only."


def parse_since(text: str, now_ns: int | None = None) -> str:
    """`7d`, `24h`, `30m`, `2w` (or an ISO time) as the stored time it starts at."""
    raw = text.strip().lower()
    number, unit = raw[:-1], raw[-1:]
    if unit in UNITS and whole_number(number):
        # A count is measured by its digits first: one of thousands of them
        # is past the bound, and int() refuses to read it.
        digits = number.lstrip("0")
        count = int(digits or "0") if len(digits) <= 20 else MAX_COUNT + 1
        if count == 0:
            raise UsageError(
                "--since counts back from now, and a count of 0 covers no time; "
                "give at least 1, e.g. 7d, or leave --since out for all the log holds"
            )
        if count > MAX_COUNT:
            raise UsageError(
                f"--since counts too far back: at most {MAX_COUNT:,} of a unit (m, h, d or w); "
                "give a smaller count or a larger unit, e.g. 7d, or leave --since out "
                "for all the log holds"
            )
        now = time.time_ns() if now_ns is None else now_ns
        return usage_log.iso(now - count * UNITS[unit] * 1_000_000_000)
    from tree_ring.model.record import parse_time

    try:
        return parse_time(text, "--since")
    except TimeOutOfRange:
        raise  # an ISO time, past the years a time can name: its own message says so
    except UsageError:
        # The value is not echoed, as no other option's mistake echoes it.
        raise UsageError(
            "--since takes a count and a unit (m, h, d, w), e.g. 7d, "
            "or an ISO time such as 2026-11-29T13:00:00Z (the value is not shown)"
        ) from None


@dataclass
class Tally:
    count: int = 0
    bytes: int = 0

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.bytes)

    def add(self, size: int) -> None:
        self.count += 1
        self.bytes += size

    def to_dict(self) -> dict[str, int]:
        return {"count": self.count, "bytes": self.bytes, "tokens": self.tokens}


@dataclass
class Report:
    since: str | None
    sessions: int = 0
    briefs: Tally = field(default_factory=Tally)
    checkpoints: Tally = field(default_factory=Tally)
    recalls: Tally = field(default_factory=Tally)
    # A person's own recalls (the terminal, the terminal UI, the web view):
    # logged, but no agent's context, so not injected.
    own_recalls: Tally = field(default_factory=Tally)
    captures: int = 0
    by_harness: dict[str, dict[str, int]] = field(default_factory=lambda: {})
    top: list[tuple[str, int, str | None]] = field(default_factory=lambda: [])  # id, n, summary
    skipped: int = 0
    notes: list[str] = field(default_factory=lambda: [])

    @property
    def injected(self) -> Tally:
        """What the hooks and tools put into the agent's context, all told."""
        total = Tally()
        for tally in (self.briefs, self.checkpoints, self.recalls):
            total.count += tally.count
            total.bytes += tally.bytes
        return total

    @property
    def model_turns(self) -> int:
        """Each checkpoint that blocked a stop cost the agent one more turn."""
        return self.checkpoints.count

    def to_dict(self) -> dict[str, Any]:
        return {
            "since": self.since,
            "sessions": self.sessions,
            "briefs": self.briefs.to_dict(),
            "checkpoints": self.checkpoints.to_dict(),
            "recalls": self.recalls.to_dict(),
            "own_recalls": self.own_recalls.to_dict(),
            "injected": self.injected.to_dict(),
            "model_turns_added": self.model_turns,
            "captures_stored": self.captures,
            "by_harness": self.by_harness,
            "top_injected": [
                {"id": memory_id, "injected": n, "summary": summary}
                for memory_id, n, summary in self.top
            ],
            "skipped_lines": self.skipped,
            "notes": self.notes,
            "model_tokens_spent_by_tree_ring": 0,
        }


@dataclass(frozen=True)
class Mine:
    """The person's user store, read beside the project: the brief injects
    its notes with their ids, so `report` names them from it."""

    store: Store
    # The caller's identity there, for an agent (`store/user.user_identity`);
    # None for a person, who reads every partition.
    reader: Identity | None
    # What the project forgot, which hides a note there from its reads.
    forgotten: ForgottenHere | None


def report(
    store: Store,
    project_id: str,
    since: str | None = None,
    reader: Identity | None = None,
    forgotten: ForgottenHere | None = None,
    beside: Mine | None = None,
) -> Report:
    """The account of the log under the store's project root, from `since` on.

    The log's tallies are counts, every session's; the memories injected most
    are named with their summaries, so for `reader` (an agent's identity) they
    are only the rows it may read (`live.visible`), chosen before the top is cut.
    A row whose content the other store a project reads forgot (`forgotten`,
    `read/forgotten_here.py`) is gone from every read of the project, as a
    deleted one is, and is named here as a deleted one is: by its id alone
    (a person's), or not at all (an agent's). A note of the person's user
    store (`beside`) that a brief injected is named by its summary, as that
    reader's recall reads it: an agent's, only one of the shared scopes or
    its own partitions; one the project forgot as a deleted one is."""
    read = usage_log.read(store.root)
    found = Report(since, skipped=read.skipped, notes=list(read.notes))
    sessions: set[tuple[str, str]] = set()
    injected: dict[str, int] = {}
    for entry in read.entries:
        if since is not None and str(entry["at"]) < since:
            continue
        event, harness, size = str(entry["event"]), str(entry["harness"]), int(entry["bytes"])
        recalls = found.own_recalls if harness == PERSON else found.recalls
        tally = {"brief": found.briefs, "checkpoint": found.checkpoints}.get(event, recalls)
        tally.add(size)
        mine = found.by_harness.setdefault(harness, {"brief": 0, "checkpoint": 0, "recall": 0})
        mine[event] = mine.get(event, 0) + 1
        session = entry.get("session")
        if isinstance(session, str) and event != "recall":
            sessions.add((harness, session))
        if event == "brief":
            for memory_id in entry["ids"]:
                injected[memory_id] = injected.get(memory_id, 0) + 1
    found.sessions = len(sessions)
    found.captures = usage_rows.captures_since(store.db, project_id, since or "")
    if reader is not None:
        kept = usage_rows.readable(store.db, list(injected), reader)
        # One the other store forgot is left out as a deleted one is, before the cut.
        kept -= _hidden(store, kept, forgotten)
        if beside is not None and beside.reader is not None:
            rest = [memory_id for memory_id in injected if memory_id not in kept]
            notes = usage_rows.readable(beside.store.db, rest, beside.reader)
            kept |= notes - _hidden(beside.store, notes, beside.forgotten)
        injected = {memory_id: n for memory_id, n in injected.items() if memory_id in kept}
    ranked = sorted(injected.items(), key=lambda item: (-item[1], item[0]))[:TOP]
    # A forgotten memory's id stays in the log; its summary is gone with it,
    # and so is the summary of one the other store forgot.
    gone = _hidden(store, [memory_id for memory_id, _ in ranked], forgotten)
    summaries = usage_rows.summaries(store.db, [memory_id for memory_id, _ in ranked])
    if beside is not None:
        # The person's notes the brief gave, named from the store that holds them.
        rest = [memory_id for memory_id, _ in ranked if memory_id not in summaries]
        notes = usage_rows.summaries(beside.store.db, rest)
        gone |= _hidden(beside.store, notes, beside.forgotten)
        summaries |= notes
    found.top = [
        (memory_id, n, None if memory_id in gone else summaries.get(memory_id))
        for memory_id, n in ranked
    ]
    return found


def _hidden(store: Store, ids: Collection[str], forgotten: ForgottenHere | None) -> set[str]:
    """Of `ids`, those of rows whose content the other store forgot."""
    return set() if forgotten is None else forgotten.hidden_ids(store.db, ids)


@dataclass(frozen=True)
class MemoryUsage:
    injected: int
    last_injected: str | None
    recalled: int
    last_recalled: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "injected": self.injected,
            "last_injected": self.last_injected,
            "recalled": self.recalled,
            "last_recalled": self.last_recalled,
        }

    def line(self) -> str:
        def part(verb: str, n: int, last: str | None) -> str:
            times = "time" if n == 1 else "times"
            return f"{verb} {n} {times}" + (f" (last {last[:19]}Z)" if last else "")

        return (
            f"{part('injected', self.injected, self.last_injected)}, "
            f"{part('recalled', self.recalled, self.last_recalled)}"
        )


def usage_of(root: project.StrPath, memory_ids: set[str]) -> dict[str, MemoryUsage]:
    """Each id's injections (briefs) and recalls in the log, and when last."""
    counts: dict[str, list[Any]] = {memory_id: [0, None, 0, None] for memory_id in memory_ids}
    for entry in usage_log.read(root).entries:
        event = entry["event"]
        if event == "checkpoint":
            continue
        at = 0 if event == "brief" else 2
        for memory_id in set(entry["ids"]) & memory_ids:
            held = counts[memory_id]
            held[at] += 1
            held[at + 1] = entry["at"]  # entries come oldest first
    return {key: MemoryUsage(*value) for key, value in counts.items()}


def memory_usage(root: project.StrPath, memory_id: str) -> MemoryUsage:
    return usage_of(root, {memory_id})[memory_id]


def notes_of(
    store: Store, project_id: str, memory_ids: list[str], log: project.StrPath | None = None
) -> dict[str, tuple[str, ...]]:
    """For a memory's detail page (TUI, web): who refuted it and why, if an
    agent did and no person has decided, and how often it was used (in the
    usage log under `log`, by default the store's root: a note of the user
    store shown in a project was used in that project). The reason as a
    read may show it: a quote of content `project_id` forgot since is
    withheld (`govern/reasons.shown`)."""
    from tree_ring.govern import reasons
    from tree_ring.store import refutations

    if not memory_ids:
        return {}
    refuted = refutations.find(store.db, memory_ids)
    withholding = reasons.Withholding(store.db)
    used = usage_of(store.root if log is None else log, set(memory_ids))
    notes: dict[str, tuple[str, ...]] = {}
    for memory_id in memory_ids:
        found: list[str] = []
        waiting = refuted.get(memory_id)
        if waiting is not None:
            reason = withholding.reason(project_id, waiting.reason)
            found.append(f"disputed by {waiting.origin}: {reason}")
        found.append(f"usage: {used[memory_id].line()}")
        notes[memory_id] = tuple(found)
    return notes
