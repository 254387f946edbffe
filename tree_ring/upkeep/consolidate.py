"""Deterministic consolidation, as in the original Tree Ring.

Live memories of one project, from one period (daily 2026-11-29, weekly
2026-W48, monthly 2026-11, yearly 2026, or manual: all of them), are grouped
by scope, private partition (agent profile, workflow, session: never merged
across identities), ring, event type and a sensitivity bucket (normal or
sensitive). Each group of two or more becomes one summary memory (event type
`summary`, source type `consolidation`) whose text is built by
`summarise.consolidation_text` and which links to each source with a
`consolidates` link. Sources stay as they are, unless `retire_sources`
asks to retire them: then each source of an accepted summary written here is
retired through the write path (`correct.retire_in`: its text kept on record,
its validity closed, the audit log naming the summary), so brief and recall
show the summary in their place; the summaries citing it stay, since it was
retired into one, not found wrong. Any other retirement of a source retires
the live summaries citing it (`propagate.retired`), and a later run
summarises what is live. A summary that waits for review keeps its
sources live until someone accepts it.

As in the original, candidates are the memories worth keeping (salience at
least 0.45, or a scar / heartwood / seed, or durable / pinned retention),
never a secret and never an earlier consolidation; the output ring follows
the period (outer for daily and manual, inner for longer ones) except that
scars stay scars, seeds seeds, and confident heartwood heartwood.

A summary over sensitive sources keeps the strongest sensitivity among them
and waits for review (`pending`). Without `force`, a group that already has a
live summary for the period is left alone and reported; with it, the new
summary supersedes the earlier ones (`correct.supersede_in`). The summaries
are written through the normal write path, by Tree Ring itself (origin
`tree-ring`), all in one transaction: the plan is read inside it, so what was
planned is what is written.

A person's consolidation covers every partition. An agent's (`reader`, its
identity) covers the rows its recall reads (`live.visible`): the shared scopes
and its own partitions, so its plan shows no other partition's text and its
summaries land in no other partition. A summary is the caller's write as much
as Tree Ring's: it waits for a person whenever the caller's own write of it
would (`admission.waiting_reason`), so an agent's summary of shared rows lands
`pending`, as the agent's own write to a shared scope does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from tree_ring.govern import admission, coordinator
from tree_ring.model.actor import Actor
from tree_ring.model.claims import claim_text
from tree_ring.model.errors import SecretRefused, UsageError
from tree_ring.model.identifiers import spaced
from tree_ring.model.identity import Identity, Origin
from tree_ring.model.record import (
    PRIVATE_SCOPES,
    SENSITIVITIES,
    Link,
    Memory,
    canonical_json,
    format_time,
    new_memory_id,
    now_iso,
    sha256,
)
from tree_ring.model.text import one_line
from tree_ring.store import consolidation, live, rows, tombstones
from tree_ring.store.db import Store
from tree_ring.store.live import View
from tree_ring.store.sql import Db
from tree_ring.tree.summarise import consolidation_order, consolidation_tags, consolidation_text
from tree_ring.write import correct, pipeline
from tree_ring.write.propagate import CONSOLIDATES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.model.progress import Progress
    from tree_ring.read.forgotten_here import ForgottenHere

PERIOD_TYPES = ("daily", "weekly", "monthly", "yearly", "manual")
MANUAL_KEY = "all"
MIN_SALIENCE = 0.45
KEPT_RINGS = ("heartwood", "scar", "seed")
KEPT_RETENTIONS = ("durable", "user_pinned")


@dataclass(frozen=True)
class Period:
    type: str
    key: str
    start: str | None  # inclusive, stored-time form; None for manual
    end: str | None  # exclusive

    @property
    def label(self) -> str:
        return "all time" if self.type == "manual" else f"{self.type} {self.key}"


def current_key(period_type: str, moment: datetime) -> str:
    if period_type == "daily":
        return moment.strftime("%Y-%m-%d")
    if period_type == "weekly":
        year, week, _ = moment.isocalendar()
        return f"{year}-W{week:02d}"
    if period_type == "monthly":
        return moment.strftime("%Y-%m")
    if period_type == "yearly":
        return moment.strftime("%Y")
    return MANUAL_KEY


# Each dated period type's key: its shape (Y, M, D and w each stand for one
# ASCII digit, any other character for itself) and an example. The key as
# given is the period's identity, so a second spelling of one period would be
# a second period, summarising the same memories again; `int()` and `date`
# read other scripts' digits and underscores, so the shape is checked before
# either reads the key.
SHAPES = {
    "daily": ("YYYY-MM-DD", "2026-11-29"),
    "weekly": ("YYYY-Www", "2026-W48"),
    "monthly": ("YYYY-MM", "2026-11"),
    "yearly": ("YYYY", "2026"),
}


def _shaped(key: str, shape: str) -> bool:
    return len(key) == len(shape) and all(
        k in "0123456789" if s in "YMDw" else k == s for k, s in zip(key, shape, strict=True)
    )


def period(period_type: str, key: str | None = None, now: datetime | None = None) -> Period:
    """Parse a period; the key defaults to the current one (manual: all, and takes none)."""
    if period_type not in PERIOD_TYPES:
        raise UsageError(
            f"unknown period type {period_type!r}; use one of: {', '.join(PERIOD_TYPES)}"
        )
    if period_type == "manual":
        if key is not None:
            raise UsageError(
                "a manual period covers all time and takes no key; drop --period-key, "
                "or name a daily, weekly, monthly or yearly period"
            )
        return Period("manual", MANUAL_KEY, None, None)
    key = (current_key(period_type, now or datetime.now(UTC)) if key is None else key).strip()
    shape, example = SHAPES[period_type]
    first = None
    if _shaped(key, shape):
        try:
            if period_type == "daily":
                first = date.fromisoformat(key)
            elif period_type == "weekly":
                first = date.fromisocalendar(int(key[:4]), int(key[6:]), 1)
            elif period_type == "monthly":
                first = date(int(key[:4]), int(key[5:]), 1)
            else:
                first = date(int(key), 1, 1)
        except ValueError:
            first = None
    if first is None:
        raise UsageError(
            f"period key {key[:40]!r} is not a {period_type} key; write it as {shape} "
            f"in ASCII digits, e.g. {example}"
        )
    try:
        last = _end(period_type, first)
    except (ValueError, OverflowError):
        # A period stored by its end, the day after it: the last ones of year
        # 9999 end past the last day a date can hold.
        raise UsageError(
            f"period key {key!r} is out of range: the day after the period is past "
            f"{date.max}, the last date Tree Ring can store; name an earlier {period_type} "
            f"period, e.g. {example}"
        ) from None

    def stamp(day: date) -> str:
        return format_time(datetime(day.year, day.month, day.day, tzinfo=UTC))

    return Period(period_type, key, stamp(first), stamp(last))


def _end(period_type: str, first: date) -> date:
    """The first day after the period of `period_type` that starts on `first`."""
    if period_type == "daily":
        return first + timedelta(days=1)
    if period_type == "weekly":
        return first + timedelta(days=7)
    if period_type == "monthly":
        return date(first.year + first.month // 12, first.month % 12 + 1, 1)
    return date(first.year + 1, 1, 1)


@dataclass(frozen=True)
class GroupKey:
    project: str
    scope: str
    agent_profile: str | None  # set only for private scopes: their owner
    workflow_id: str | None
    session_id: str | None
    ring: str
    event_type: str
    bucket: str  # normal | sensitive

    def digest(self) -> str:
        return sha256(canonical_json(list(self.__dict__.values())))[7:23]

    def ref(self, p: Period) -> str:
        return f"consolidation:{p.type}:{p.key}:{self.digest()}"


def group_key(memory: Memory, project: str) -> GroupKey:
    private = memory.scope in PRIVATE_SCOPES
    return GroupKey(
        project=project,
        scope=memory.scope,
        agent_profile=memory.agent_profile if private else None,
        workflow_id=memory.workflow_id if private else None,
        session_id=memory.session_id if private else None,
        ring=memory.ring,
        event_type=memory.event_type,
        bucket="normal" if memory.sensitivity == "normal" else "sensitive",
    )


@dataclass
class Group:
    key: GroupKey
    sources: list[Memory]
    status: str = "create"  # create | supersede | exists | skipped
    reason: str = ""
    summary: Memory | None = None
    existing: list[str] = field(default_factory=lambda: [])
    written: str | None = None
    trust: str = "accepted"
    retired: list[str] = field(default_factory=lambda: [])

    def to_dict(self) -> dict[str, Any]:
        return {
            "group": dict(self.key.__dict__),
            "status": self.status,
            "reason": self.reason,
            "count": len(self.sources),
            "source_ids": [m.id for m in self.sources],
            "summary": self.summary.summary if self.summary else None,
            "ring": self.summary.ring if self.summary else None,
            "sensitivity": self.summary.sensitivity if self.summary else None,
            "trust": self.trust if self.summary else None,
            "existing": self.existing,
            "written": self.written,
            "retired": self.retired,
        }


@dataclass
class Report:
    project: str
    period: Period
    dry_run: bool
    force: bool
    candidates: int
    groups: list[Group]
    retire_sources: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "period_type": self.period.type,
            "period_key": self.period.key,
            "dry_run": self.dry_run,
            "force": self.force,
            "candidates": self.candidates,
            "groups": [g.to_dict() for g in self.groups],
            "written": [g.written for g in self.groups if g.written],
            "retire_sources": self.retire_sources,
            "retired": [memory_id for g in self.groups for memory_id in g.retired],
        }


def output_ring(p: Period, ring: str, sources: Sequence[Memory]) -> str:
    if ring in ("scar", "seed"):
        return ring
    if ring == "heartwood" and sum(m.confidence for m in sources) / len(sources) >= 0.75:
        return "heartwood"
    return "outer" if p.type in ("daily", "manual") else "inner"


def _strongest(values: Sequence[str]) -> str:
    sensitive = [v for v in values if v != "normal"]
    return max(sensitive, key=SENSITIVITIES.index) if sensitive else "normal"


def build_summary(key: GroupKey, sources: Sequence[Memory], p: Period, now: str) -> Memory:
    """The summary memory for one group, deterministic but for its id and times."""
    ordered = consolidation_order(sources)
    sensitive = key.bucket == "sensitive"
    count = len(ordered)
    sensitivity = _strongest([m.sensitivity for m in ordered]) if sensitive else "normal"
    return Memory(
        id=new_memory_id(),
        created_at=now,
        updated_at=now,
        summary=consolidation_text(ordered, p.type, p.key),
        event_type="summary",
        project=key.project,
        agent_profile=key.agent_profile,
        workflow_id=key.workflow_id,
        session_id=key.session_id,
        scope=key.scope,
        ring=output_ring(p, key.ring, ordered),
        details=(
            f"Consolidation over {p.label}: {key.scope} scope, {key.ring} ring, "
            f"{key.event_type} memories, {key.bucket} sensitivity. "
            "Its sources are its consolidates links."
        ),
        source_type="consolidation",
        source_ref=key.ref(p),
        tags=consolidation_tags(ordered, sensitive),
        salience=round(sum(m.salience for m in ordered) / count, 4),
        confidence=round(sum(m.confidence for m in ordered) / count, 4),
        sensitivity=sensitivity,
        links=tuple(Link(CONSOLIDATES, m.id) for m in ordered),
        trust="pending" if sensitive else "accepted",
        review_reason=(
            f"consolidation over sensitive memories ({sensitivity}): check it before it is shown"
            if sensitive
            else None
        ),
        valid_from=now,
        origin="tree-ring",
    )


def _readable(view: View, project: str, reader: Identity | None) -> live.Clause:
    """The live rows of `view`; of them, with `reader`, those it may read in `project`."""
    if reader is None:
        return live.live(view)
    return live.where(reader.replace(project=project), view)


def _existing(db: Db, project: str, ref: str, reader: Identity | None) -> list[str]:
    view = View(include_sensitive=True, include_unreviewed=True)
    return consolidation.existing(db, _readable(view, project, reader), project, ref)


def plan(
    db: Db,
    project: str,
    p: Period,
    *,
    force: bool,
    now: str,
    actor: Actor,
    reader: Identity | None = None,
    forgotten: ForgottenHere | None = None,
) -> tuple[int, list[Group]]:
    """The period's groups: of every partition, or of the rows `reader` may read,
    less those holding what `forgotten` says the other store forgot; each
    summary in the trust state `actor`'s own write of it would have."""
    clause = _readable(View(include_sensitive=True), project, reader)
    found = consolidation.candidates(
        db,
        clause,
        project,
        p.start,
        p.end,
        min_salience=MIN_SALIENCE,
        kept_rings=KEPT_RINGS,
        kept_retentions=KEPT_RETENTIONS,
    )
    memories = [rows.from_row(row) for row in found]
    if forgotten is not None:
        gone = forgotten.hidden(memories)
        memories = [m for m in memories if m.id not in gone]
    grouped: dict[GroupKey, list[Memory]] = {}
    for memory in memories:
        grouped.setdefault(group_key(memory, project), []).append(memory)
    groups: list[Group] = []
    for key in sorted(grouped, key=lambda k: canonical_json(list(k.__dict__.values()))):
        group = Group(key, grouped[key])
        groups.append(group)
        if len(group.sources) < 2:
            group.status, group.reason = "skipped", "a group of one memory"
            continue
        try:
            summary = pipeline.prepare(build_summary(key, group.sources, p, now))
        except SecretRefused:
            group.status, group.reason = "skipped", "a source reads as a secret under today's guard"
            continue
        if summary.sensitivity != "normal" and summary.trust == "accepted":
            summary = summary.replace(
                trust="pending",
                review_reason=f"consolidation reads as {summary.sensitivity}: check it first",
            )
        # Tree Ring writes it, for the caller: what would make the caller's own
        # write wait (an agent's into a shared scope) makes the summary wait.
        waits = (
            admission.waiting_reason(db, summary, actor) if summary.trust == "accepted" else None
        )
        if waits is not None:
            summary = summary.replace(trust="pending", review_reason=f"consolidation {waits}")
        group.summary, group.trust = summary, summary.trust
        group.existing = _existing(db, project, key.ref(p), reader)
        if tombstones.find(db, project, tombstones.check_keys(summary)) is not None:
            group.status, group.reason = "skipped", "this exact summary was forgotten before"
        elif joined_forgotten(db, project, group.sources):
            group.status, group.reason = (
                "skipped",
                "its memories read in a row say what was forgotten",
            )
        elif group.existing and not force:
            group.status = "exists"
            group.reason = "a summary for this group and period exists; --force replaces it"
        elif summary.content_hash in rows.content_hashes(db, group.existing).values():
            # Forced again over the same sources: nothing new to replace it with.
            group.status, group.reason = "exists", "this same summary exists already"
        elif group.existing:
            group.status, group.reason = "supersede", "replaces the earlier summary (--force)"
    return len(found), groups


# The longest run of words `joined_forgotten` reads as one claim, and the most
# words of a group it reads (a summary shows no more within MAX_SUMMARY).
LONGEST = 64
MOST_WORDS = 1_600


def joined_forgotten(db: Db, project: str, sources: Sequence[Memory]) -> bool:
    """Whether the summary would put a forgotten claim back together: pieces
    of it may each outlive its forget ("Deploys freeze on Fridays", "after
    the release branch is cut"), and the summary lists them one after
    another. So the entries' words, folded as a claim is (camelCase read as
    words), are read as one run, and every stretch of three to `LONGEST` of
    them is checked against the tombstones, however many entries it spans."""
    words: list[str] = []
    for memory in consolidation_order(sources):
        words += claim_text(spaced(one_line(memory.summary))).split()
        if len(words) >= MOST_WORDS:
            break
    wanted = list(
        dict.fromkeys(
            tombstones.claim_key(" ".join(words[start:end]))
            for start in range(len(words))
            for end in range(start + tombstones.MIN_WORDS, min(len(words), start + LONGEST) + 1)
        )
    )
    return bool(wanted) and tombstones.find(db, project, wanted) is not None


def tree_ring_actor(caller: Actor) -> Actor:
    """Tree Ring writes the summaries; the audit keeps who asked."""
    return Actor(caller.name, Origin("tree-ring", caller.origin.session), caller.capability)


def consolidate(
    store: Store,
    project: str,
    period_type: str,
    period_key: str | None = None,
    *,
    actor: Actor,
    dry_run: bool = False,
    force: bool = False,
    retire_sources: bool = False,
    progress: Progress | None = None,
    reader: Identity | None = None,
    forgotten: ForgottenHere | None = None,
) -> Report:
    """Summarise the period's groups; `progress` is told the groups done of all.
    `reader`: an agent's identity, whose consolidation covers the rows it may
    read; None (a person's) covers every partition. `forgotten`: what the
    other store a project reads forgot (`Project.forgotten_elsewhere`): rows
    holding it are no source, as every read leaves them out, so no summary
    quotes them."""
    p = period(period_type, period_key)
    now = now_iso()
    if dry_run:
        count, groups = plan(
            store.db, project, p, force=force, now=now, actor=actor, reader=reader,
            forgotten=forgotten,
        )  # fmt: skip
        if retire_sources:
            for group in groups:
                if _retires(group, group.trust):
                    group.retired = [m.id for m in group.sources]  # what a run would retire
        return Report(project, p, True, force, count, groups, retire_sources)
    writer = tree_ring_actor(actor)
    with store.write() as db:
        count, groups = plan(
            db, project, p, force=force, now=now, actor=actor, reader=reader, forgotten=forgotten
        )
        if any(g.status in ("create", "supersede") for g in groups):
            coordinator.authorize(db, "consolidate", writer, f"{project}:{p.type}:{p.key}")
        for done, group in enumerate(groups, start=1):
            if progress is not None:
                progress("consolidate", done, len(groups))
            if group.summary is None or group.status not in ("create", "supersede"):
                continue
            result = pipeline.insert_prepared(db, group.summary, writer, action="consolidate")
            group.written, group.trust = result.id, result.trust
            for old_id in group.existing:
                correct.supersede_in(
                    db,
                    rows.get(db, old_id),
                    result.id,
                    "replaced by a forced consolidation",
                    writer,
                    now,
                )
            if retire_sources and _retires(group, result.trust):
                # The caller retires them, under the caller's own authority:
                # an agent may retire only what it wrote.
                reason = f"consolidated into {result.id}"
                for source in group.sources:
                    correct.retire_in(db, source, reason, actor, now, summaries=False)
                    group.retired.append(source.id)
    return Report(project, p, False, force, count, groups, retire_sources)


def _retires(group: Group, trust: str) -> bool:
    """Whether a group's sources give way to its summary: only to one that is
    written and believed (a pending summary is not shown yet)."""
    return (
        group.status in ("create", "supersede")
        and group.summary is not None
        and trust == "accepted"
    )
