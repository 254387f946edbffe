"""What forgetting a memory does to everything built over it.

`correct.forget_in` (the transactional half every removal path uses: forget,
maintain, review) calls `forgotten` once, after the row is deleted or
redacted, inside the same transaction. Two things are built over memories:

- summary-tree nodes: the leaf leaves its tree, every node above it is marked
  stale up to the root and rebuilt from its remaining children;
- consolidation summaries (memories with `consolidates` links to their
  sources): each one citing the memory is rewritten from its remaining
  sources, or deleted when none is left. Superseded summaries are rewritten
  too: "on record but not current" must not mean "still holding the text".

Either the forget and all of this commit together, or none of it does.

Retiring a memory (superseded, refuted or retired by a person, rejected or
disputed in review) leaves its text on record, so nothing is rewritten; but a
consolidation citing it would go on stating the retired fact as a live,
believed memory in every brief. `retired` retires each live one with it, in
the caller's transaction, naming the source in its audit entry; a later
`consolidate` summarises what is live. Summary-tree nodes are history and
keep what was true when they were sealed (docs/SUMMARY-TREE.md), but for
what a write would refuse: a rejection that tombstones a memory's content
takes it out of the nodes as forgetting does (`out_of_tree`).
"""

from __future__ import annotations

import json
from collections.abc import Collection

from tree_ring.model.actor import Actor
from tree_ring.model.record import Memory, content_hash
from tree_ring.store import audit, operation_claims, rows, tombstones
from tree_ring.store.sql import Db
from tree_ring.tree import repair
from tree_ring.tree.summarise import consolidation_tags, consolidation_text

CONSOLIDATES = "consolidates"


def forgotten(
    db: Db, memory: Memory, actor: Actor, now: str, *, leave: Collection[str] = ()
) -> list[str]:
    """Take `memory` out of every tree node and consolidation built over it.

    What those held before is tombstoned too (their whole text, as claims), so
    an old export of a consolidation, or a node's text copied into a memory,
    cannot bring the forgotten memory back. Returns the node tombstones, for
    the forget's own audit entry (each consolidation's entry names its own).
    A consolidation in `leave` is left as it is: one its own replacement in
    the same batch decides (`replace.vacate`), such as a summary a teammate
    retired with the source it cites, whose text must not be kept out then.
    """
    keys = out_of_tree(db, memory, actor, now)
    for summary in citing_summaries(db, memory):
        if summary.id not in leave:
            rewrite_without(db, summary, memory.id, actor, now)
    return keys


def out_of_tree(
    db: Db, memory: Memory, actor: Actor, now: str, *, kind: str = tombstones.FORGOTTEN
) -> list[str]:
    """Take `memory`'s leaf out of its summary tree and rebuild every node
    above it, so no `[history]` line or `recall --tree` quotes it: for a
    forgotten memory, and for one whose content a rejection tombstoned
    (`kind` "rejected"), which a write would refuse. What the nodes held
    before is tombstoned as a whole; the keys.

    Those keys are this clone's own: its tree is no one else's, and each
    clone that applies the forget rebuilds its own nodes. So they name no
    memory (`tombstone_ids`), and the team ledger's line for `memory` says
    the memory's keys alone: a clone taking a teammate's forget writes that
    line back as it came, whatever its own tree had sealed."""
    old_nodes = repair.forget_memory(db, memory.id, now)
    if not old_nodes:
        return []
    how = "rejected in review" if kind == tombstones.REJECTED else "forgotten"
    whole = list(dict.fromkeys(k for k in map(tombstones.whole_key, old_nodes.values()) if k))
    why = f"a summary node held {memory.id}, which was {how}"
    stones = [(memory.project or "", k, kind, why, memory.id, actor.name, now) for k in whole]
    tombstones.record_absent(db, stones, named=False)
    return whole


def retired(db: Db, memory: Memory, actor: Actor, now: str, how: str = "retired") -> list[str]:
    """Retire the live consolidations citing `memory`, which was just `how`
    (retired, superseded by ..., rejected or disputed in review); their ids. A pending or
    disputed one goes too: approved later, it would state the retired fact."""
    done: list[str] = []
    for summary in citing_summaries(db, memory):
        if summary.retired_at is not None or summary.superseded_by is not None:
            continue
        if summary.redacted_at is not None or summary.trust == "rejected":
            continue
        # As `correct.retire_in` closes a row's validity, with the state it leaves.
        end = now if now > summary.valid_from else summary.valid_from
        if summary.valid_to is not None and summary.valid_to < end:
            end = summary.valid_to
        rows.update(db, summary.id, valid_to=end, retired_at=now, updated_at=now)
        detail = {
            "reason": f"its source {memory.id} was {how}",
            "source": memory.id,
            "valid_to": end,
        }
        audit.record(db, actor, "retire", summary.id, detail, changed=[summary.id], at=now)
        done.append(summary.id)
    return done


def citing_summaries(db: Db, memory: Memory) -> list[Memory]:
    """Consolidation summaries (live or not) that link to `memory` as a source."""
    # The partial index on consolidation rows keeps this off the full table;
    # instr() is a plain substring test, and the links are checked again below.
    found = rows.consolidations_naming(db, memory.project, json.dumps(memory.id))
    return [
        m
        for m in found
        if m.id != memory.id
        and any(link.type == CONSOLIDATES and link.target == memory.id for link in m.links)
    ]


def period_of(summary: Memory) -> tuple[str, str]:
    """(period type, period key) from a consolidation's source ref."""
    parts = summary.source_ref.split(":")
    if len(parts) >= 4 and parts[0] == "consolidation":
        return parts[1], ":".join(parts[2:-1])
    return "manual", "all"


def rewrite_without(db: Db, summary: Memory, source_id: str, actor: Actor, now: str) -> None:
    """Rewrite a consolidation from its remaining sources, or delete it if none is left."""
    if summary.redacted_at is not None:
        return
    # The summary's old text lists the forgotten source: it never returns.
    stones = tombstones.record(
        db,
        summary.project,
        tombstones.forget_keys(summary),
        kind="forgotten",
        reason=f"it consolidated {source_id}, which was forgotten",
        memory_id=summary.id,
        actor=actor.name,
        at=now,
    )
    remaining = [
        link.target
        for link in summary.links
        if link.type == CONSOLIDATES and link.target != source_id
    ]
    sources = rows.unredacted(db, remaining)
    if not sources:
        rows.delete(db, summary.id)
        operation_claims.release(db, summary.id)
        audit.record(
            db,
            actor,
            "forget",
            summary.id,
            {
                "mode": "delete",
                "reason": "consolidation lost its last source",
                "source": source_id,
                "tombstones": stones,
            },
            changed=[summary.id],
            at=now,
        )
        return
    period_type, period_key = period_of(summary)
    text = consolidation_text(sources, period_type, period_key)
    kept = {m.id for m in sources}
    links = tuple(
        link
        for link in summary.links
        if link.type != CONSOLIDATES or (link.target in kept and link.target != source_id)
    )
    count = len(sources)
    rows.update(
        db,
        summary.id,
        summary=text,
        links=links,
        tags=consolidation_tags(sources, summary.sensitivity != "normal"),
        salience=round(sum(m.salience for m in sources) / count, 4),
        confidence=round(sum(m.confidence for m in sources) / count, 4),
        content_hash=content_hash(text, summary.details),
        updated_at=now,
    )
    audit.record(
        db,
        actor,
        "update",
        summary.id,
        {
            "reason": "a consolidated source was forgotten",
            "source": source_id,
            "sources_left": count,
            "content_hash": content_hash(text, summary.details),
            "tombstones": stones,
        },
        changed=[summary.id],
        at=now,
    )
