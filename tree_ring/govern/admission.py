"""What a new memory's trust state is, and what waits for a person.

Agents cannot mint authority. What waits is decided by what a row claims,
not by the words it uses: an agent's write lands `pending` when it goes into a
scope the whole project shares (any event type: every session's brief would
show it), when it is heartwood, when it claims more weight than an agent may
give itself (retention `user_pinned`, salience or confidence above
`MAX_AGENT_WEIGHT`), or when it replaces memory the agent did not write.
Imported rows that claim authority (heartwood, scar, pinned, or a rule for the
shared project) wait too, whoever imports them; an agent's import also waits
for everything its own write would (a file is no way round this), and for a
row in another's partition. A person's restore of their own export
(`import --restore`) keeps its trust states and is not governed here. A
person's own `remember` is accepted, and the coordinator capability
(coordinator.py) counts as a person's word. The policy is a setting
(`review_policy`, shown and changed by `tree-ring review policy`) so a team
can widen or narrow it.

A write that contradicts a live memory (contradictions.py) is linked to it
both ways; an agent's write is compared with the project's shared memory
too (every scope each session reads), and linked one way (the shared row is
left as it is); a value that becomes the project's by a person (a write, an
import, a promotion or an approval) puts an agent's earlier note it
contradicts in dispute the same way (`disputes`, `dispute_in`). A person's own write
is accepted, and the person is told which rows it contradicts so they can
supersede them; anyone else's lands `disputed`: the store then holds both
claims, believes the older one, and the review queue shows the pair until a
person approves one (optionally superseding the other), rejects one, or
decides they do not conflict. `disputed` rather than `pending` because that is
what it is: on record, contradicted, not believed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from tree_ring.govern import contradictions
from tree_ring.govern import coordinator as write_policy
from tree_ring.model.actor import Actor
from tree_ring.model.errors import UsageError
from tree_ring.model.record import (
    PRIVATE_SCOPES,
    SHARED_SCOPES,
    Link,
    Memory,
    canonical_json,
    now_iso,
)
from tree_ring.store import audit, inbox, live, rows, settings
from tree_ring.store.sql import Db

# Event types that state a rule for everyone who works in the project.
RULE_TYPES = frozenset({"decision", "preference", "rule", "constraint", "convention", "policy"})
# Origins of a harness's tool call: the writer is a model, not a person.
AGENT_ORIGINS = frozenset({"claude-code", "codex", "agent"})
CONTRADICTS = "contradicts"
SETTING = "review_policy"

# Keys earlier versions stored, and what they are called now.
RENAMED = {"agent_project_rules": "agent_shared", "imported_rules": "imported_authority"}
# The most salience or confidence an agent may give its own memory unreviewed.
MAX_AGENT_WEIGHT = 0.8


def policy_settings(db: Db) -> dict[str, bool]:
    """The review policy: stored keys (by their current names) over the declared defaults."""
    stored: dict[str, Any] = settings.read(db, SETTING)
    merged = settings.default(SETTING)
    for key, value in stored.items():
        key = RENAMED.get(key, key)
        if key in settings.REVIEW_POLICY:
            merged[key] = value
    return {key: bool(value) for key, value in merged.items()}


def set_policy(db: Db, changes: dict[str, bool], actor: Actor) -> dict[str, bool]:
    """Change review policy keys; a person's (or the coordinator's) decision."""
    changes = {RENAMED.get(key, key): value for key, value in changes.items()}
    unknown = sorted(set(changes) - set(settings.REVIEW_POLICY))
    if unknown:
        raise UsageError(
            f"unknown review policy key {unknown[0]!r}; "
            f"use one of: {', '.join(settings.REVIEW_POLICY)}"
        )
    write_policy.check_actor(actor)
    write_policy.authorize(db, "review.policy", actor, SETTING)
    merged = {**policy_settings(db), **changes}
    settings.write(db, SETTING, merged)
    audit.append(db, actor, "review-policy", SETTING, {"set": changes})
    return merged


def is_agent(actor: Actor) -> bool:
    return actor.origin.kind in AGENT_ORIGINS


def agent_row(memory: Memory) -> bool:
    """Whether an agent wrote `memory`, or imported it into its own partition
    (an import's origin is "import"; in a private scope it is an agent's, as
    `store/inbox.AGENT_ROWS` counts it)."""
    if memory.origin in AGENT_ORIGINS:
        return True
    return memory.origin == "import" and memory.scope in PRIVATE_SCOPES


def vouched(memory: Memory) -> bool:
    """Whether a person stands behind `memory`: they wrote it (it is no
    agent's row), or a reviewer approved it. Only such a memory, while it
    holds (`shields`), keeps a claim writable when a person rejects the same
    words: an agent's own copy cannot shield its claim from the rejection."""
    if not agent_row(memory):
        return True
    return memory.reviewed_by is not None and memory.trust == "accepted"


def keeps_words(memory: Memory) -> bool:
    """Whether `memory`, an accepted row a forget leaves in the store, keeps
    the claims it holds writable (`holders.unheld`): a live one, whoever
    wrote it, and a retired one (superseded, refuted, retired) a person
    stands behind (`vouched`), which stays on record: tombstoning its words
    would refuse it from an import of the store's own export and from every
    clone built from the team ledger, while this store keeps it. An agent's
    retired row keeps nothing: an agent cannot shield words from a person's
    forget by writing them and retiring the note."""
    return memory.retired_at is None or vouched(memory)


# A memory that holds now: recorded, neither redacted nor expired, neither
# retired nor superseded, its validity covering now, and accepted.
_HOLDS_NOW = (
    *live.RECORDED,
    *live.CURRENT,
    live.Test("trust", live.ONE_OF, literals=("accepted",)),
)


def shields(now: str) -> Callable[[Memory], bool]:
    """Whether a memory keeps a claim writable when a person rejects the same
    words at `now`: a person stands behind it (`vouched`) and it holds now
    (`live`'s tests of now). A person's memory that ended (`--valid-to` past)
    or expired says the claim held then, not that it holds: it keeps no
    agent's copy of the claim in the briefs."""
    holds_now = live.python(_HOLDS_NOW, {"live_t": now, "live_v": now})
    return lambda memory: vouched(memory) and holds_now(memory)


def owns(memory: Memory, actor: Actor) -> bool:
    """An agent may retire what it wrote itself, until a person vouches for it."""
    return (
        memory.origin == actor.origin.kind
        and memory.agent_profile == actor.name
        and memory.ring != "heartwood"
        and memory.reviewed_by is None
    )


def imported_authority(memory: Memory) -> str | None:
    """What an imported row claims that a person should check, or None."""
    if memory.ring in ("heartwood", "scar"):
        return f"imported {memory.ring}"
    if memory.retention == "user_pinned":
        return "imported pinned memory"
    if memory.scope not in PRIVATE_SCOPES and memory.event_type in RULE_TYPES:
        return f"imported {memory.event_type} for the shared {memory.scope} scope"
    return None


def agent_weight(memory: Memory) -> str | None:
    """The weight an agent's row claims beyond what it may give itself, or None."""
    if memory.retention == "user_pinned":
        return "retention user_pinned (only a person pins)"
    for name, value in (("salience", memory.salience), ("confidence", memory.confidence)):
        if value > MAX_AGENT_WEIGHT:
            return f"{name} {value:g} (an agent may give at most {MAX_AGENT_WEIGHT:g})"
    return None


class Rows(Protocol):
    """Where a decision reads a stored memory: the table (`store.rows`), or a
    batch that has decided memories it has not written yet (`contradictions.Batch`)."""

    def find(self, db: Db, memory_id: str) -> Memory | None: ...


def waiting_reason(db: Db, memory: Memory, actor: Actor, rows: Rows = rows) -> str | None:
    """Why this write should wait for review, or None to accept it. An
    import's rows wait for what they claim; an agent's import also for all
    that waits when the agent writes the rows itself (`importer`)."""
    rules = policy_settings(db)
    # Every reason that applies, so the reviewer sees all of what the row claims.
    reasons: list[str] = []
    writer: Actor | None = actor
    verb = "written"
    if actor.origin.kind == "import":
        claim = imported_authority(memory)
        if rules["imported_authority"] and claim is not None:
            reasons.append(f"{claim}: check its source before it becomes project memory")
        writer, verb = importer(actor), "imported"
    if writer is not None and is_agent(writer) and not write_policy.holds(db, actor):
        reasons += _agent_reasons(db, memory, writer, rules, rows, verb)
        if verb == "imported":
            # An agent's own writes land in its partition (`identity.pinned`);
            # a file names any, and only a person files memory in another's.
            other = _other_partition(memory, writer)
            if other is not None:
                reasons.append(
                    f"imported by {writer.origin.kind} into a partition not its own "
                    f"({other} scope): only a person files memory in another's partition"
                )
    return "; ".join(reasons) or None


def importer(actor: Actor) -> Actor | None:
    """The caller an import ran for (`Origin.via`), as the writer of its rows:
    None for an import that names no caller (the team ledger's own)."""
    via = actor.origin.via
    return None if via is None else actor.replace(origin=via)


def _agent_reasons(
    db: Db, memory: Memory, writer: Actor, rules: dict[str, bool], rows: Rows, verb: str
) -> list[str]:
    """What an agent's row claims beyond its own notes, one reason each."""
    kind = writer.origin.kind
    reasons: list[str] = []
    if rules["agent_heartwood"] and memory.ring == "heartwood":
        reasons.append(f"heartwood {verb} by {kind}: durable truth needs a person's approval")
    if rules["agent_shared"] and memory.scope not in PRIVATE_SCOPES:
        reasons.append(
            f"{verb} by {kind} into the shared {memory.scope} scope: what every session "
            "sees needs a person's approval"
        )
    weight = agent_weight(memory)
    if rules["agent_weight"] and weight is not None:
        reasons.append(f"{kind} gave it {weight}")
    if rules["agent_replacements"]:
        for old_id in memory.supersedes:
            old = rows.find(db, old_id)
            if old is not None and not owns(old, writer):
                reasons.append(replacing(old, writer))
    return reasons


def replacing(old: Memory, writer: Actor) -> str:
    """Why a replacement of `old` an agent wrote waits: the review says what
    approving it retires."""
    return (
        f"replaces {old.id}, {_not_its_own(old, writer)}: "
        "the replacement takes effect when a person approves it"
    )


def _not_its_own(memory: Memory, actor: Actor) -> str:
    """Why `memory` is not the agent's to retire (`owns`), as a clause."""
    if memory.origin != actor.origin.kind or memory.agent_profile != actor.name:
        return f"which {actor.origin.kind} did not write"
    if memory.reviewed_by is not None:
        return "which a person has reviewed since"
    return "which is heartwood"


def _other_partition(memory: Memory, writer: Actor) -> str | None:
    """The private scope of a row outside the writer's own partition, or None:
    its profile is the writer's, and its workflow or session the harness's
    session where the harness names one (as `identity.pinned` holds an
    agent's own writes to)."""
    session = writer.origin.session
    own = {
        "agent": memory.agent_profile == writer.name,
        "workflow": session is None or memory.workflow_id == session,
        "session": session is None or memory.session_id == session,
    }
    return None if own.get(memory.scope, True) else memory.scope


def admit(
    db: Db,
    memory: Memory,
    actor: Actor,
    batch: contradictions.Batch | None = None,
) -> Memory:
    """The trust state and contradiction links a new row is stored with. Reads
    only: `batch` holds the memories decided before it and not written yet."""
    if memory.trust == "rejected":
        return memory
    reasons: list[str] = []
    trust = memory.trust
    if trust == "accepted":
        reason = waiting_reason(db, memory, actor, batch or rows)
        if reason is not None:
            trust = "pending"
            reasons.append(reason)
    found = contradictions.find(db, memory, batch)
    if actor.origin.kind != "person":
        # What the project holds, in any scope every session reads, is true
        # in every partition and every other such scope too: an agent's note
        # that contradicts it is disputed, not a second value beside it in a
        # brief. An agent's refutation of such a row is a claim: it still holds.
        mine = {item.memory.id for item in found}
        others = [scope for scope in SHARED_SCOPES if scope != memory.scope]
        shared = contradictions.find(db, memory, batch, others)
        shared += contradictions.refuted(db, memory, SHARED_SCOPES)
        found += [item for item in shared if item.memory.id not in mine]
    links = list(memory.links)
    for item in found:
        link = Link(CONTRADICTS, item.memory.id)
        if link not in links:
            links.append(link)
    # A person's own new fact is their decision: it is accepted, linked to
    # what it contradicts, and the old row is left for them to supersede
    # (the write's output says how). Anyone else's waits, disputed.
    if found and actor.origin.kind != "person" and policy_settings(db)["contradictions"]:
        trust = "disputed"
        named = ", ".join(
            f"{item.memory.id} ({'a changed value' if item.kind == 'value' else 'the opposite'})"
            for item in found
        )
        reasons.insert(0, f"contradicts live memory {named}")
    if trust == memory.trust and not found:
        return memory
    # What the row already said (an import's claims) stays beside why it waits.
    reason = (
        "; ".join([*reasons, *([memory.review_reason] if memory.review_reason else [])]) or None
    )
    return memory.replace(trust=trust, review_reason=reason, links=tuple(links))


def disputes(db: Db, memory: Memory, actor: Actor, batch: contradictions.Batch) -> list[Memory]:
    """Plan the dispute of agents' accepted notes, each in its own partition,
    that a person's new memory for the whole project (any scope every
    session reads; a person's import's too) contradicts: what the project
    holds is true in every partition, so such a note waits for the person,
    disputed and linked to the new memory, as a note written after it would
    (`admit`); the new memory is left as it is. The notes, as planned (in
    `batch`)."""
    writer = importer(actor) if actor.origin.kind == "import" else actor
    if (
        writer is None
        or writer.origin.kind != "person"
        or memory.scope not in SHARED_SCOPES
        or memory.trust != "accepted"
        or not policy_settings(db)["contradictions"]
    ):
        return []
    if batch.notes is None:  # once a batch: most stores hold no agent's note
        batch.notes = inbox.holds_notes(db, memory.project)
    if not (batch.notes or batch.private):
        return []
    # A note still waiting (its weight asked a person) waits disputed now,
    # so the review entry that decides it names the conflict.
    found = contradictions.find(db, memory, batch, PRIVATE_SCOPES, waiting=True)
    planned: list[Memory] = []
    for item in found:
        if not agent_row(item.memory) or item.memory.trust == "disputed":
            continue  # a person's own note is their word; a disputed one waits already
        note = batch.find(db, item.memory.id) or item.memory
        kind = "a changed value" if item.kind == "value" else "the opposite"
        why = f"contradicts {memory.id} ({kind}), a person's memory for the whole project"
        note = note.replace(
            trust="disputed",
            review_reason="; ".join([why, *([note.review_reason] if note.review_reason else [])]),
            links=(*note.links, Link(CONTRADICTS, memory.id)),
            updated_at=now_iso(),
        )
        batch.update(note)
        planned.append(note)
    return planned


def disputes_said(ids: Sequence[str]) -> list[str]:
    """What a person's write, import, promotion or approval says of each
    agent's note it put in dispute (`disputes`), as every client says it."""
    return [
        f"disputes {note}, an agent's note in its own partition: it waits for review "
        "(reject it, or approve it to keep both)"
        for note in ids
    ]


def dispute_in(db: Db, memory: Memory, actor: Actor, at: str) -> list[str]:
    """`disputes` for a memory a person's decision just made the project's
    (a promotion, an approval), in the caller's transaction: the notes are
    written disputed at once, with one audit entry. Their ids."""
    notes = disputes(db, memory, actor, contradictions.Batch())
    for note in notes:
        rows.update_judged(db, note.replace(updated_at=at))
    ids = [note.id for note in notes]
    if ids:
        detail = {"contradicts": [], "disputes": ids, "trust": memory.trust}
        audit.record(db, actor, "contradiction", memory.id, detail, changed=ids, at=at)
    return ids


def link_back(
    db: Db, memory: Memory, batch: contradictions.Batch, disputed: Sequence[Memory] = ()
) -> str | None:
    """Plan the links back from the rows a new memory contradicts (in `batch`,
    or stored) to it; the detail of the audit entry that records the finding
    and the notes it put in dispute (`disputes`, planned already), or None
    when there is neither."""
    linked: list[str] = []
    states: dict[str, str] = {note.id: audit.state_hash(note) for note in disputed}
    back = Link(CONTRADICTS, memory.id)
    for link in memory.links:
        if link.type != CONTRADICTS:
            continue
        other = batch.find(db, link.target)
        if other is None:
            continue  # not stored, nor decided earlier in the batch
        if other.scope != memory.scope:
            # A shared row keeps no link to a private note (`admit`): the
            # note names it, and what the project shares does not change.
            continue
        if back not in other.links:
            other = other.replace(links=(*other.links, back), updated_at=now_iso())
            batch.update(other)
        linked.append(other.id)
        # The state the row is left in, so `audit verify` can tell this change
        # from one made without an entry.
        states[other.id] = audit.state_hash(other)
    if not linked and not disputed:
        return None
    detail: dict[str, Any] = {"contradicts": linked, "states": states, "trust": memory.trust}
    if disputed:
        detail["disputes"] = [note.id for note in disputed]
    return canonical_json(detail)
