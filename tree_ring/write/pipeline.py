"""The write path: every verb that adds a memory goes through `store_memory`.

A memory is retrievable the moment the call returns. One memory and a bulk
import take the same path, `insert_prepared_many`, in four stages, each a
function with one job:

- `prepare`, before any transaction: validate the record and run the guard
  over every text field (a secret refuses the write before anything is
  opened), and hash its content.
- `decide`, for the whole batch, reading only: forgotten content, operation-id
  claims and ids taken (`Facts`, read once for the batch and kept current as
  its memories are decided, so memory i is checked against the store plus
  memories 0..i-1, as it would be written alone after them), the write
  policy's decision, the trust state and review reason (admission.py), and
  contradictions. Whatever a decision reads of an earlier memory of the batch
  (what it replaces, what it contradicts, where a link back goes) it reads
  from the batch itself (`contradictions.Batch`), then from the table; links
  back onto stored rows become planned updates.
- `persist`, in the caller's one transaction, a statement per table: the rows
  (carrying their final links; their FTS entries follow by trigger, or all at
  once at the end of a bulk batch), the planned updates, the claims and the
  policy decisions.
- `after`: the audit entries, each memory's creation followed by its
  contradiction finding, and the summary tree's leaves, one append per tree.

So no table is written before every decision of the batch is made, and a
refusal anywhere in the batch leaves nothing of it to roll back but what the
caller wrote before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from itertools import groupby
from operator import itemgetter
from typing import Any, NamedTuple

from tree_ring import guard
from tree_ring.govern import admission, contradictions, coordinator
from tree_ring.model.actor import Actor
from tree_ring.model.anchor import Anchor
from tree_ring.model.errors import Conflict, TreeRingError
from tree_ring.model.record import (
    Memory,
    content_hash,
    intent_json,
    json_string,
    json_text,
    sha256,
)
from tree_ring.model.user_home import USER_PROJECT
from tree_ring.model.validation import validate
from tree_ring.store import anchors as stored
from tree_ring.store import (
    audit,
    fts,
    guard_answers,
    operation_claims,
    redactions,
    rows,
    tombstones,
)
from tree_ring.store.db import Store
from tree_ring.store.guard_answers import brief_text
from tree_ring.store.sql import Db
from tree_ring.tree import seal


@dataclass(frozen=True)
class WriteResult:
    id: str
    created: bool  # False when an exact retry returned the existing row
    trust: str
    sensitivity: str
    review_reason: str | None = None
    # Live memories it contradicts: waiting beside it, or (a person's write)
    # left for the person to supersede.
    contradicts: tuple[str, ...] = ()
    # The files it was anchored to (`write/anchors.py`); none for a retry.
    anchors: tuple[Anchor, ...] = ()
    # A re-admission that found its content standing here re-admitted that
    # row, as it stands (`write/readmit.py`); created is False.
    readmitted: bool = False
    # Whether its row travels in the team ledger (a user store's does not).
    shared: bool = True
    # The same memory already stood here, accepted (`same_memory`); created is False.
    same: bool = False
    # Agents' notes in their own partitions that a person's write for the
    # whole project contradicts, now disputed (`admission.disputes`).
    disputes: tuple[str, ...] = ()

    def said(self, hidden: str) -> str:
        """What the write did, as every client says it: stored or an exact
        retry, and how it waits or is hidden; `hidden` says how a client
        shows a sensitive row (an option for the CLI, none for MCP)."""
        if self.readmitted:
            carried = (
                "its ledger line and export row carry the re-admission, so a clone or an "
                "import takes it"
                if self.shared
                else "its export row carries the re-admission, so an import takes it"
            )
            text = f"re-admitted {self.id} as it stands: {carried} over the tombstones"
            if self.trust != "accepted":
                text += f"; it is {self.trust}: {self.review_reason or 'waiting for review'}"
            return text
        if self.same:
            return f"already stored as {self.id} (the same words, ring and type); nothing written"
        if not self.created:
            return f"unchanged {self.id} (exact retry of the same operation)"
        text = f"stored {self.id}"
        if self.trust != "accepted":
            text += f" as {self.trust}: {self.review_reason or 'waiting for review'}"
        if self.sensitivity != "normal":
            text += f" (sensitivity {self.sensitivity}: {hidden})"
        return "\n".join([text, *admission.disputes_said(self.disputes)])


def with_anchors(result: WriteResult, anchors: Sequence[Anchor]) -> WriteResult:
    """`result`, naming the anchors stored with it: those given, if it was created."""
    if not result.created or not anchors:
        return result
    return replace(result, anchors=tuple(anchors))


# What is hashed here is canonical_json of a fixed set of fields, written out
# field by field (see record.json_text). Keys in sorted order.
def _texts(values: tuple[str, ...]) -> str:
    return "[" + ",".join(map(json_string, values)) + "]" if values else "[]"


def claim_key(memory: Memory) -> str | None:
    """The idempotency namespace is (project, workflow, agent), as in the original."""
    if not memory.operation_id:
        return None
    parts = (memory.project or "", memory.workflow_id or "", memory.agent_profile or "")
    return sha256(_texts((*parts, memory.operation_id)))


def payload_hash(memory: Memory) -> str:
    """sha256 of what a retry must repeat, as canonical JSON: the fields
    `Memory` declares as its intent (the session among them, seed 002)."""
    return sha256(intent_json(memory))


def _stronger(a: str, b: str) -> str:
    """The more restrictive of two sensitivities; anything beats normal."""
    if a == "normal":
        return b
    if b == "normal":
        return a
    # The guard's order decides, so a field it reads as health is never
    # downgraded by a caller who said "private".
    order = ("secret", *guard.SEVERITY_ORDER)
    rank = {name: i for i, name in enumerate(order)}
    return a if rank.get(a, len(order)) <= rank.get(b, len(order)) else b


def anchor_fields(paths: Sequence[str]) -> dict[str, str]:
    """The paths of the files a memory is about, as fields the guard reads:
    a path is stored, synced to the team ledger and shown as its text is.
    Named by place, never by value (a refusal names the field)."""
    return {f"files[{i}]": path for i, path in enumerate(paths)}


def prepare(memory: Memory, anchors: Sequence[Anchor] = ()) -> Memory:
    """Validate and guard the row and the paths of its `anchors`; raises
    before any transaction is opened."""
    validate(memory)
    paths = [anchor.path for anchor in anchors]
    found = guard.check_fields({**memory.text_fields(), **anchor_fields(paths)})
    return memory.replace(
        sensitivity=_stronger(memory.sensitivity, found),
        content_hash=content_hash(memory.summary, memory.details),
    )


def store_memory(
    store: Store, memory: Memory, actor: Actor, anchors: Sequence[Anchor] = ()
) -> WriteResult:
    """Write one memory; `anchors` (the files it is about) commit with it."""
    memory = prepare(memory, anchors)
    line = clean_line(memory)
    with store.write() as db:
        refuse_files(db, memory, anchors, actor)
        result = insert_prepared(db, memory, actor, dedupe=True)
        if result.created and anchors:
            stored.insert(db, result.id, anchors)
        keep_clean(db, line, result)
        return with_anchors(result, anchors)


def same_memory(db: Db, memory: Memory) -> WriteResult | None:
    """The accepted memory that already stands in `memory`'s place (project,
    scope and partition), by the same kind of writer (a person, or the same
    harness), with its words, ring, type, tags and sensitivity, holding when
    `memory` starts to and until it ends, as a write's answer; or None. The
    same note written twice (a `remember` run again, a capture of a lesson
    an earlier stop saved) is one memory: a second row would take a second
    line of the brief, and a forget of either would take both. Asked once
    the write's checks have passed (`decide`): what it may not write, and an
    exact retry, answer as they always do."""
    standing = rows.standing_with_content(db, [memory]).get(rows.content_key(memory))
    if standing is None:
        return None
    held = rows.get(db, standing)
    said = (held.origin, held.ring, held.event_type, held.tags, held.sensitivity, held.valid_to)
    wanted = (
        memory.origin,
        memory.ring,
        memory.event_type,
        memory.tags,
        memory.sensitivity,
        memory.valid_to,
    )
    # A fact that held once, or holds only later, is not the one said now.
    holds = held.valid_from <= memory.valid_from and (
        held.valid_to is None or held.valid_to > memory.valid_from
    )
    if held.trust != "accepted" or said != wanted or not holds:
        return None
    return WriteResult(held.id, False, held.trust, held.sensitivity, same=True)


def clean_line(memory: Memory) -> str | None:
    """The text a brief checks `memory`'s line by, when today's guard finds
    no secret in it (asked while the write has the guard loaded), or None.
    A user store's row is checked by the project briefing it, which keeps
    its own answers."""
    if memory.project == USER_PROJECT:
        return None
    line = brief_text(memory.summary, memory.source_ref)
    return line if guard.find_secret(line) is None else None


def keep_clean(db: Db, line: str | None, result: WriteResult) -> None:
    """Keep the guard's answer for a row just written, whose brief line a
    brief may show: the next brief need not load the guard for it
    (`store/guard_answers.py`)."""
    if line is not None and result.created and result.sensitivity == "normal":
        guard_answers.add_clean(db, [line])


def refuse_files(db: Db, memory: Memory, anchors: Sequence[Anchor], actor: Actor) -> None:
    """Refuse a memory about a file whose path quotes content a write into
    its project answers to (`reasons.files_quoting`): the path is shown, and
    written to the team ledger, as it stands."""
    refused = files_refused(db, memory, anchors, actor)
    if refused is not None:
        raise refused


def files_refused(
    db: Db, memory: Memory, anchors: Sequence[Anchor], actor: Actor
) -> Conflict | None:
    """Why `refuse_files` would refuse `anchors`, or None. An import's rows
    answer to what agents withdrew when an agent ran it, as `decide` reads
    their content."""
    if not anchors:
        return None
    from tree_ring.govern import reasons

    writer = admission.importer(actor) if actor.origin.kind == "import" else actor
    agent = writer is not None and admission.is_agent(writer)
    paths = [anchor.path for anchor in anchors]
    return reasons.files_quoting(db, memory.project or "", paths, agent=agent)


def insert_prepared(
    db: Db,
    memory: Memory,
    actor: Actor,
    *,
    action: str = "create",
    admit: bool = True,
    overriding: frozenset[str] = frozenset(),
    dedupe: bool = False,
) -> WriteResult:
    """The transactional half of a write; the caller holds the transaction.
    `overriding` holds tombstone keys a person chose to write over (`readmit`).
    `dedupe`: the same memory standing here already answers (`same_memory`)."""
    try:
        [result] = insert_prepared_many(
            db, [memory], actor, action=action, admit=admit, overriding=overriding, dedupe=dedupe
        )
    except BatchError as refused:
        raise refused.error from None
    return result


class BatchError(TreeRingError):
    """Memory number `index` (from 0, over the whole call) was refused."""

    def __init__(self, index: int, error: TreeRingError) -> None:
        super().__init__(f"memory {index}: {error}")
        self.index = index
        self.error = error
        self.exit_code = error.exit_code


def insert_prepared_many(
    db: Db,
    memories: Sequence[Memory],
    actor: Actor,
    *,
    action: str = "create",
    admit: bool = True,
    offset: int = 0,
    search: contradictions.Search | None = None,
    overriding: frozenset[str] = frozenset(),
    bulk: bool = False,
    claiming: bool = True,
    dedupe: bool = False,
) -> list[WriteResult]:
    """Write prepared memories in order; the caller holds the transaction
    (and, for a bulk action, has authorized it).

    The first memory refused raises BatchError naming `offset` plus its
    position, before anything of the batch is written. `search` carries what
    a bulk write's earlier batches decided (a single write makes its own).
    `overriding` holds tombstone keys a person chose to write over (`readmit`).
    `bulk` is a batch of a bulk write (`write/bulk.py`): its rows are
    indexed for search at the end, one statement per FTS index, and filed in
    `search` so the batches after it find them there.
    `claiming`: whether a memory's operation id is claimed (`claim_key`), so
    that a retry answers with the first write (see `decide`). `dedupe`: a
    memory already standing here answers for its write (`same_memory`).
    """
    if bulk and search is not None and admit:
        search.start(db)
        search.prefetch(db, memories)
    plan = decide(
        db,
        memories,
        actor,
        action=action,
        admit=admit,
        offset=offset,
        search=search,
        overriding=overriding,
        claiming=claiming,
        dedupe=dedupe,
    )
    if bulk:
        # A failure leaves the triggers dropped; the caller's rollback restores them.
        before = fts.defer(db)
        persist(db, plan)
        fts.index_since(db, before)
    else:
        persist(db, plan)
    after(db, plan)
    if bulk and search is not None:
        search.written(db, [memory.id for memory in plan.batch.memories])
    return plan.results


@dataclass
class Plan:
    """A batch decided: what `persist` and `after` write, and what the caller gets back."""

    actor: Actor
    action: str
    batch: contradictions.Batch  # the rows to insert, with their final links; planned updates
    results: list[WriteResult] = field(default_factory=lambda: [])
    claims: list[tuple[str, str, str, str]] = field(default_factory=lambda: [])
    decisions: list[coordinator.Decision] = field(default_factory=lambda: [])
    # Memory id -> detail of its creation entry: the state it was decided in,
    # as one write at a time records it, before later rows of the batch link
    # back to it (their findings record the state those links leave).
    created: dict[str, str] = field(default_factory=lambda: {})
    # Memory id -> detail of its contradiction entry, for those that linked back.
    findings: dict[str, str] = field(default_factory=lambda: {})


def decide(
    db: Db,
    memories: Sequence[Memory],
    actor: Actor,
    *,
    action: str = "create",
    admit: bool = True,
    offset: int = 0,
    search: contradictions.Search | None = None,
    overriding: frozenset[str] = frozenset(),
    claiming: bool = True,
    dedupe: bool = False,
) -> Plan:
    """Decide every memory of the batch, in order, reading the store and never
    writing it, except that a denied write policy ends the caller's
    transaction to record the denial (`coordinator.refuse`). `overriding`
    holds tombstone keys a person chose to write over (`readmit`). Without
    `claiming` (an agent's import, `transfer/reach.py`), no operation id is
    claimed nor answered as a retry: the ids stay on the rows as written."""
    claims = [claim_key(memory) if claiming else None for memory in memories]
    # An agent's write, or its import, answers to what agents withdrew too.
    writer = admission.importer(actor) if actor.origin.kind == "import" else actor
    facts = Facts(db, memories, claims, agent=writer is not None and admission.is_agent(writer))
    if search is None and admit:
        search = contradictions.Search()
    if search is not None:
        search.start(db)
    plan = Plan(actor, action, contradictions.Batch(search))
    # Bulk actions (import, consolidate, ...) are authorized once by their
    # caller; a create, memory by memory, in a mode no decision of the batch changes.
    gate = coordinator.state(db) if action == "create" else None
    for index, (memory, claim) in enumerate(zip(memories, claims, strict=True)):
        disputed: list[Memory] = []
        try:
            intent = payload_hash(memory) if claim is not None else None
            retry = facts.check(memory, claim, intent, overriding)
            if retry is not None:
                plan.results.append(retry)
                continue
            if gate is not None:
                kind = coordinator.create_action(memory, actor)
                decision = coordinator.decide(db, kind, actor, memory.id, current=gate)
                if not decision.allowed:
                    coordinator.refuse(db, decision)
                plan.decisions.append(decision)
            same = same_memory(db, memory) if dedupe else None
            if same is not None:
                plan.results.append(same)
                continue
            if admit:
                memory = admission.admit(db, memory, actor, plan.batch)
            facts.add(memory, claim, intent)
            plan.batch.add(memory)
            plan.created[memory.id] = audit_detail(memory)
            if claim is not None and intent is not None:
                plan.claims.append((claim, memory.id, intent, memory.created_at))
            if admit:
                disputed = admission.disputes(db, memory, actor, plan.batch)
            if disputed or any(link.type == admission.CONTRADICTS for link in memory.links):
                detail = admission.link_back(db, memory, plan.batch, disputed)
                if detail is not None:
                    plan.findings[memory.id] = detail
        except TreeRingError as exc:
            raise BatchError(offset + index, exc) from None
        contradicted = tuple(
            link.target for link in memory.links if link.type == admission.CONTRADICTS
        )
        plan.results.append(
            WriteResult(
                memory.id,
                True,
                memory.trust,
                memory.sensitivity,
                memory.review_reason,
                contradicted,
                disputes=tuple(note.id for note in disputed),
            )
        )
    return plan


def persist(db: Db, plan: Plan) -> None:
    """The batch's rows, the updates it planned, its claims and its policy decisions."""
    rows.insert_many(db, plan.batch.memories)
    for memory in plan.batch.changed.values():
        rows.update_judged(db, memory)
    operation_claims.insert_many(db, plan.claims)
    coordinator.record(db, plan.decisions)


def after(db: Db, plan: Plan) -> None:
    """The audit entries, in the order of the memories (each creation, then its
    contradiction finding), and the summary tree's leaves."""
    entries: list[tuple[str, str, str, str]] = []
    for memory in plan.batch.memories:
        entries.append((plan.action, memory.id, plan.created[memory.id], memory.created_at))
        finding = plan.findings.get(memory.id)
        if finding is not None:
            entries.append(("contradiction", memory.id, finding, memory.created_at))
    for action, run in groupby(entries, key=itemgetter(0)):
        audit.append_many(db, plan.actor, action, [entry[1:] for entry in run])
    # Shared, accepted memories join their project's tree, as one append per tree.
    seal.on_insert_many(db, plan.batch.memories)


class Known(NamedTuple):
    """What a check needs of a stored memory: that it exists, and the answer to a retry."""

    id: str
    trust: str
    sensitivity: str
    redacted: bool


class Facts:
    """What the checks know of the store for one batch.

    Read with one query per kind for all its memories, then kept current with
    each memory the batch writes (`add`), so the batch's own duplicates and
    retries are decided as if the earlier ones were already stored.
    """

    def __init__(
        self,
        db: Db,
        memories: Sequence[Memory],
        claims: Sequence[str | None],
        *,
        agent: bool = False,
    ) -> None:
        self.db = db
        self.agent = agent
        # Whether a write into each project answers to any tombstone (`quoting`).
        self.forgets: dict[str, bool] = {}
        by_project: dict[str, list[str]] = {}
        self.keys: dict[str, list[str]] = {}
        for memory in memories:
            keys = self.keys[memory.id] = tombstones.check_keys(memory)
            by_project.setdefault(memory.project or "", []).extend(keys)
        self.stones: dict[tuple[str, str], Any] = {}
        for project, hashes in by_project.items():
            for stone in tombstones.matching(db, project, hashes, agent=agent):
                self.stones[(project, stone["content_hash"])] = stone
        wanted = [claim for claim in claims if claim is not None]
        self.claims: dict[str, tuple[str, str]] = (
            operation_claims.held(db, wanted) if wanted else {}
        )
        ids = [memory.id for memory in memories]
        held = [memory_id for memory_id, _ in self.claims.values()]
        self.known: dict[str, Known] = {
            row[0]: Known(row[0], row[1], row[2], row[3] is not None)
            for row in rows.states(db, ids + held)
        }
        self.redacted = redactions.among(db, ids)

    def check(
        self,
        memory: Memory,
        claim: str | None,
        intent: str | None,
        overriding: frozenset[str] = frozenset(),
    ) -> WriteResult | None:
        """Refuse forgotten content and taken ids; an exact retry answers with the first write."""
        project = memory.project or ""
        for key in self.keys.get(memory.id) or tombstones.check_keys(memory):
            stone = None if key in overriding else self.stones.get((project, key))
            if stone is not None and tombstones.binds(stone, memory):
                raise tombstones.refused(stone)
        self.quoting(memory)
        if claim is not None:
            held = self.claims.get(claim)
            if held is not None:
                existing = self.known.get(held[0])
                if existing is None or existing.redacted:
                    raise Conflict(
                        f"operation id {memory.operation_id!r} belonged to a memory that was "
                        "redacted; use a new operation id"
                    )
                if held[1] != intent:
                    raise Conflict(
                        f"operation id {memory.operation_id!r} was already used for a different "
                        f"memory ({existing.id}); an exact retry must repeat it, or use a new id"
                    )
                return WriteResult(existing.id, False, existing.trust, existing.sensitivity)
        if memory.id in self.known:
            raise Conflict(f"memory {memory.id} already exists; give a new id or omit it")
        if memory.id in self.redacted:
            raise Conflict(f"memory id {memory.id} was redacted and cannot be reused")
        return None

    def quoting(self, memory: Memory) -> None:
        """Refuse a row whose review reason, reviewer, origin session, source
        type, supersession ids or link targets (what a file or a ledger line
        fills beside the claim) hold forgotten content (`reasons.carried_quoting`):
        they are stored and travel in the ledger as they stand."""
        project = memory.project or ""
        if project not in self.forgets:
            self.forgets[project] = tombstones.any_answered(self.db, project)
        if not self.forgets[project]:
            return
        from tree_ring.govern import reasons

        field = reasons.carried_quoting(self.db, memory, agent=self.agent)
        if field is not None:
            raise reasons.refusal(field)

    def add(self, memory: Memory, claim: str | None, intent: str | None) -> None:
        self.known[memory.id] = Known(
            memory.id, memory.trust, memory.sensitivity, memory.redacted_at is not None
        )
        if claim is not None and intent is not None:
            self.claims[claim] = (memory.id, intent)


# What the audit entry of a new row records: its place and state, never its text.
# The state the row is written in goes with it (audit.state_hash), so `audit
# verify` finds a row changed without an entry.
_DETAIL = (
    '{"content_hash":%s,"operation_id":%s,"ring":%s,"scope":%s,"sensitivity":%s,'
    '"states":{%s:%s},"trust":%s}'
)


def audit_detail(memory: Memory) -> str:
    """The entry's detail, as canonical_json writes it."""
    return _DETAIL % (
        json_string(memory.content_hash),
        json_text(memory.operation_id),
        json_string(memory.ring),
        json_string(memory.scope),
        json_string(memory.sensitivity),
        json_string(memory.id),
        json_string(audit.state_hash(memory)),
        json_string(memory.trust),
    )
