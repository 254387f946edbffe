"""Correcting memory: forget (delete or redact) and supersede.

Forgetting keeps the reason, and records content tombstones (hashes of the
memory's claims, per project; see `store/tombstones.py`) so the same claims
cannot return under a new id or through an import; what another accepted,
live memory also holds stays writable, as for a rejection. A direct forget
takes with it the other live memories of the same claim that the caller may
forget (`_twins`: what its tombstone would refuse as a write), so the claim
does not stay in recall here while its tombstone refuses it and keeps it out
of every clone built from the team ledger. Afterwards
the FTS index is merged and the WAL checkpointed, so the forgotten words are
gone from the index and, with `secure_delete`, from the file's free pages too;
what a page laid out again kept of them is found and the file rebuilt (`scrub`).

Who may forget: a person, or the coordinator, anything; an agent, what it
wrote into its own partition (`own_partition`). An agent's forget of anything
else it can see (shared scopes, `live.visible`) is recorded as a request that
a person approves or rejects (`write/requests.py`); nothing is forgotten until
then. A row in a partition the agent cannot see is "no memory ID", as from
`show`, so asking to forget it cannot tell the agent it is there.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from tree_ring.govern import admission, coordinator, reasons
from tree_ring.govern.reasons import check_reason
from tree_ring.model.actor import Actor
from tree_ring.model.anchor import Anchor
from tree_ring.model.errors import Conflict, UsageError
from tree_ring.model.identity import Identity
from tree_ring.model.record import (
    PRIVATE_SCOPES,
    REDACTED,
    Memory,
    content_hash,
    now_iso,
)
from tree_ring.model.text import error_safe
from tree_ring.store import anchors as stored
from tree_ring.store import (
    audit,
    fts,
    holders,
    layout,
    ledger_rows,
    listing,
    operation_claims,
    pages,
    redactions,
    refutations,
    rows,
    tombstones,
)
from tree_ring.store.db import Store
from tree_ring.store.sql import Db
from tree_ring.write import carried, pipeline, propagate, requests
from tree_ring.write.claimed import claim_made, named_as
from tree_ring.write.pipeline import WriteResult


@dataclass(frozen=True)
class Forgotten:
    id: str
    mode: str
    reason: str
    # Set when the caller may not forget this memory itself: the request a
    # person decides on (`review approve|reject REQUEST`), nothing forgotten yet.
    request: str | None = None
    # Set when a reader held an old snapshot open and the forgotten text is
    # still in the write-ahead log file: what the caller should do about it.
    lingering: str | None = None
    # The other live memories of the same claim forgotten with this one
    # (`_twins`): those the caller may forget directly.
    twins: tuple[str, ...] = ()
    # Whether the content is tombstoned: not while another accepted memory
    # the store keeps holds it (`admission.keeps_words`), which stays writable.
    tombstoned: bool = True
    # Whether its tombstones bind agents only: an agent forgot its own words
    # without a person (`tombstones.WITHDRAWN`).
    withdrawn: bool = False
    # A note of the person's user store forgotten in a project: that project,
    # and the copies agents wrote of the note there, forgotten with it
    # (`forget_copies`).
    copies_in: str | None = None
    copies: tuple[str, ...] = ()

    def outcome(self) -> str:
        """What became of the content, as every forget says it (a person's
        approval of an agent's request among them)."""
        if not self.tombstoned:
            return "an accepted memory holds the same text, so it stays writable"
        if self.withdrawn:
            return "its content is withdrawn: no agent will store it again"
        return "its content is tombstoned and will not be stored again"

    def said(self) -> list[str]:
        """What a direct forget did, as every client says it: the outcome,
        then the copies that went with it, if any."""
        done = f"{'deleted' if self.mode == 'delete' else 'redacted'} {self.id}"
        lines = [f"{done}; {self.outcome()}"]
        if self.twins:
            # A copy, or a longer memory holding the claim among other words.
            held = "memory" if len(self.twins) == 1 else "memories"
            lines.append(
                f"also forgot {len(self.twins)} {held} holding the same claim: "
                + ", ".join(self.twins)
            )
        if self.copies_in is not None:
            n = len(self.copies)
            ids = f": {', '.join(self.copies)}" if n else ""
            noun = "copy an agent" if n == 1 else "copies agents"
            lines.append(f"in project {self.copies_in}: forgot {n} {noun} wrote{ids}")
        return lines


def tombstone(
    db: Db,
    memory: Memory,
    kind: str,
    reason: str,
    actor: Actor,
    at: str,
    keys: Sequence[str] | None = None,
    named: str | None = None,
) -> list[str]:
    """Tombstone what forgetting or rejecting `memory` makes unwritable (or
    `keys` of it); the keys. `named`: the id the tombstones name, when not
    `named_as`'s (a teammate's forget names its own)."""
    return tombstones.record(
        db,
        memory.project,
        tombstones.forget_keys(memory) if keys is None else keys,
        kind=kind,
        reason=reason,
        memory_id=named_as(db, memory) if named is None else named,
        actor=actor.name,
        at=at,
    )


def own_partition(memory: Memory, actor: Actor) -> bool:
    """Whether an agent wrote `memory` into its own partition, and nobody has
    vouched for it since: what an agent may forget without asking.

    The partition is read from the row and from the harness's environment
    (the actor's origin), never from identity flags the agent could set.
    """
    origin = actor.origin
    if memory.origin != origin.kind or memory.reviewed_by is not None:
        return False
    if memory.redacted_at is not None:
        # Redaction emptied the partition columns; the session that wrote it remains.
        return origin.session is not None and memory.origin_session == origin.session
    if memory.scope == "agent":
        return memory.agent_profile == actor.name
    if memory.scope == "session":
        return origin.session is not None and memory.session_id == origin.session
    if memory.scope == "workflow":
        return origin.session is not None and memory.workflow_id == origin.session
    return False


def forget(
    store: Store,
    memory_id: str,
    *,
    mode: str,
    reason: str,
    actor: Actor,
    reader: Identity | None = None,
) -> Forgotten:
    """Forget a memory; for an agent, anything outside its own partition
    becomes a request that waits for a person (see `requests`), and anything
    outside what `reader` sees is not found. `reader` is the caller's
    identity; by default, the harness's partitions as the actor names them."""
    if mode not in ("delete", "redact"):
        raise UsageError("--mode must be delete or redact")
    reason = check_reason(reason)
    now = now_iso()
    with store.write() as db:
        memory = rows.get(db, memory_id)
        if memory.redacted_at is not None and mode == "redact":
            raise Conflict(f"{memory_id} is already redacted; use --mode delete to remove it")
        asking = asks(db, actor)
        if asking and not own_partition(memory, actor):
            if reader is None:
                session = actor.origin.session
                reader = Identity(memory.project or "", actor.name, session, session)
            if not _sees(db, reader, memory_id):
                raise rows.not_found(memory_id)
            problem = reasons.problem(db, memory.project or "", reason, memory.sensitivity)
            if problem is not None:
                raise UsageError(
                    f"the reason is shown to whoever reviews the request, and {problem}; "
                    "give the reason without it"
                )
            request = requests.ask(db, memory, mode, reason, actor, now)
            return Forgotten(memory_id, mode, reason, request=request, tombstoned=False)
        # Checked before this forget's own tombstones: its reason may quote
        # what it forgets, not what was forgotten before it.
        reasons.kept(db, memory.project or "", reason, reasons.IN_AUDIT_LOG)
        kind = _kind(db, actor)
        twins = _twins(db, memory, actor, asking)
        # The twins go first, so that when none the caller may not forget is
        # left, the content's keys are unheld and tombstoned with `memory`.
        for twin in twins:
            forget_in(db, twin, mode, reason, actor, now)
        keys = forget_in(db, memory, mode, reason, actor, now)
    return Forgotten(
        memory_id,
        mode,
        reason,
        lingering=scrub(store, [memory, *twins]),
        twins=tuple(twin.id for twin in twins),
        tombstoned=kept_out(memory, keys),
        withdrawn=kind == tombstones.WITHDRAWN,
    )


def kept_out(memory: Memory, keys: Sequence[str]) -> bool:
    """Whether forgetting `memory`, which tombstoned `keys` (`forget_in`),
    keeps its content from being stored again: not while another accepted
    memory the store keeps holds it (`holders.unheld`). A redacted memory's
    content is gone already."""
    return memory.redacted_at is not None or memory.content_hash in keys


def _twins(db: Db, memory: Memory, actor: Actor, asks: bool) -> list[Memory]:
    """The other memories the caller may forget directly with `memory`:
    the copies agents wrote of its claim in any spelling its tombstone folds
    (`agent_copies`), and of a shared memory every exact copy, a person's
    too; of these, all for a person (or the coordinator), those in its own
    partition for an agent. Forgetting one copy and leaving another would
    keep the claim in recall and briefs here while its tombstone refuses it
    as a write, and keeps it out of every fresh clone. Retired copies go
    too (superseded, refuted, rejected): one stays on record, in `show` and
    `--as-of`, and its tombstoned words would refuse it from the store's own
    export; a person's retired note that holds the claim otherwise keeps it
    writable instead (`admission.keeps_words`). A redacted memory's hash is
    its placeholder's, so it has none.

    A person's accepted memory is taken only as an exact copy of a shared
    one a person stands behind (`admission.vouched`): a person clearing an
    agent's notes (`inbox --all --forget`) must not lose their own memory of
    the same words, which then holds them writable (`holders.unheld`),
    nor does a person's differently spelt note go with another's. A
    person's copy that is not accepted (an import waiting for review, a
    disputed note) holds nothing: were it left, the claim would stay
    readable in the queue while the tombstone refuses it, so a copy of the
    whole in any spelling the fold makes one goes too (one holding the claim
    beside others stays, and cannot be approved)."""
    if memory.redacted_at is not None:
        return []
    # A person's exact copies go with a memory a person stands behind, never
    # with an agent's proposal of it: forgetting the proposal must not take
    # the person's own memory, which then holds the claim writable.
    exact = memory.scope not in PRIVATE_SCOPES and admission.vouched(memory)
    whole = tombstones.whole_keys(memory)

    def copy(twin: Memory) -> bool:
        if exact and twin.content_hash == memory.content_hash:
            return True
        return twin.trust != "accepted" and not whole.isdisjoint(tombstones.whole_keys(twin))

    found = [
        twin
        for twin in same_claim(db, memory, retired=True)
        if admission.agent_row(twin) or copy(twin)
    ]
    return [twin for twin in found if not asks or own_partition(twin, actor)]


def same_claim(db: Db, memory: Memory, *, retired: bool = False) -> list[Memory]:
    """The other live memories of `memory`'s project (not retired, but with
    `retired`; not redacted; any trust state) that its tombstones would
    refuse as a write (`holders.refused_rows`), oldest first: the copies a
    forget or a rejection may take with it, in any spelling the tombstone
    folds."""
    return holders.refused_rows(db, memory, retired=retired)


def agent_copies(db: Db, memory: Memory) -> list[Memory]:
    """The other live memories of `memory`'s project with its claim
    (`same_claim`) that agents wrote (in their partitions, or asked to share,
    waiting or not) or imported into their partitions (`admission.agent_row`),
    oldest first: what a forget of an agent's copy, of a user-store note
    (`forget_copies`), or a rejection (`review/queue.py`) takes with it. A
    person's memory of the same claim is never among them."""
    return [twin for twin in same_claim(db, memory) if admission.agent_row(twin)]


def forget_copies(
    store: Store, memory: Memory, project: str, *, mode: str, reason: str, actor: Actor
) -> tuple[list[str], str | None]:
    """The copies agents wrote in `project` (its `store`) of `memory`, a note
    of the person's user store a person has just forgotten, forgotten with it
    as a person's forget of a project row takes them (`_twins`): every live
    row of the same claim that an agent wrote (`agent_copies`), in its
    partition or shared, waiting or not, that no person stands behind. A
    person's own rows stay, and so does an agent's note a reviewer approved
    or promoted (`admission.vouched`): it is the team's as much as the
    person's, and a forget of one person's note must not forget it on every
    clone. The user store's tombstones hide them from this person's reads of
    the project (`read/forgotten_here.py`). The ids, and what `scrub` says
    of the store."""
    if memory.redacted_at is not None:
        return [], None
    now = now_iso()
    with store.write() as db:
        found = agent_copies(db, memory.replace(project=project))
        copies = [copy for copy in found if not admission.vouched(copy)]
        for copy in copies:
            forget_in(db, copy, mode, reason, actor, now)
    if not copies:
        return [], None
    return [copy.id for copy in copies], scrub(store, copies)


def asks(db: Db, actor: Actor) -> bool:
    """Whether `actor` forgets only what it wrote into its own partition, and
    asks a person for anything else: an agent without the coordinator
    capability. A person, or the coordinator, forgets anything."""
    return admission.is_agent(actor) and not coordinator.holds(db, actor)


def _kind(db: Db, actor: Actor) -> str:
    """What a forget's tombstones are: an agent that forgets without a person
    (what it may: its own partition) withdraws its own words, which binds
    agents only (`tombstones.WITHDRAWN`); anyone else's forget binds all."""
    return tombstones.WITHDRAWN if asks(db, actor) else tombstones.FORGOTTEN


def _sees(db: Db, reader: Identity, memory_id: str) -> bool:
    return listing.sees(db, reader, memory_id)


def forget_in(
    db: Db,
    memory: Memory,
    mode: str,
    reason: str,
    actor: Actor,
    now: str,
    *,
    decided: Sequence[str] | None = None,
    decided_as: str | None = None,
    withdraw: bool = False,
    keep_out: bool = True,
) -> list[str]:
    """The transactional half of forgetting, for every path that removes a
    memory; the content keys it tombstoned for `memory` itself. Without
    `keep_out` (an agent's note that expired, `upkeep/maintain.py`) nothing
    is tombstoned: its writer chose when it ends, which says nothing against
    its words, and a new write of them is a new note (a recurring one: "the
    deploy freeze holds").

    `withdraw`: the forget carries the authority of an agent that wrote
    `memory`, whoever `actor` is (an expiry the agent set, `upkeep/maintain.py`):
    its tombstones are a withdrawal (`tombstones.WITHDRAWN`), as the agent's
    own forget of its note makes them, and nothing another row carries is
    withheld. Otherwise they are what `actor`'s own forget makes (`_kind`).

    What another accepted memory the project keeps also holds stays
    writable (`holders.unheld`, `admission.keeps_words`: a live one, or a
    retired one a person stands behind), as for a rejection: a tombstone
    bearing a kept memory's claim would keep that memory out of every clone
    built from the team ledger and out of an import of the store's own
    export, while this store keeps showing it. `decided`: the keys
    another store's forget already chose (a teammate's tombstone line, an
    export's tombstones), tombstoned as they are, neither widened from this
    store's copy of the memory nor narrowed by what this store holds: every
    clone then refuses the same words. `decided_as`: the kind that forget
    tombstoned them as (a teammate's rejection stays a rejection here, and
    in the line this clone writes back)."""
    memory_id = memory.id
    if memory.redacted_at is not None and mode == "redact":
        raise Conflict(f"{memory_id} is already redacted; use --mode delete to remove it")
    if mode == "redact" and decided is None and claim_made(db, memory):
        # A redaction keeps the id, and the ledger carries it: the claim's id is not ours.
        raise Conflict(
            f"{memory_id} is a team ledger claim no person accepted, under an id the claim "
            "chose; use --mode delete to remove it"
        )
    coordinator.authorize(db, f"forget.{mode}", actor, memory_id)
    keys: list[str] = []
    kind = tombstones.WITHDRAWN if withdraw else tombstones.FORGOTTEN
    if memory.redacted_at is None and keep_out:
        if decided is None:
            wanted = holders.unheld(
                db,
                memory,
                tombstones.forget_keys(memory),
                admission.keeps_words,
                proposal=not admission.vouched(memory),
            )
        else:
            wanted = list(decided)
        kind = tombstones.WITHDRAWN if withdraw else decided_as or _kind(db, actor)
        named = None if decided is None else memory.id
        keys = tombstone(db, memory, kind, reason, actor, now, wanted, named)
    own = list(keys)
    # A refutation's reason is an agent's words about the memory: it goes with it.
    refuted = refutations.clear(db, memory_id)
    if mode == "delete":
        rows.delete(db, memory_id)
        # Only a hard delete releases the operation claim and the id.
        operation_claims.release(db, memory_id)
        redactions.unmark(db, memory_id)
    else:
        rows.update(
            db,
            memory_id,
            summary=REDACTED,
            details="",
            tags=(),
            source_ref="",
            source_quote="",
            event_type="redacted",
            sensitivity="private",
            operation_id=None,
            agent_profile=None,
            workflow_id=None,
            session_id=None,
            links=(),
            content_hash=content_hash(REDACTED, ""),
            redacted_at=now,
            retired_at=memory.retired_at or now,
            updated_at=now,
            **({"review_reason": None} if refuted else {}),
        )
        redactions.mark(db, memory_id, now)
    keys += propagate.forgotten(db, memory, actor, now)  # tree nodes and consolidations over it
    # What other rows carry beside their claims quoting the words (a review
    # reason, an origin session, a link target) is withheld; an agent's
    # withdrawal binds agents only, and leaves what a person reads.
    carrying: list[str] = []
    if kind == tombstones.FORGOTTEN:
        # The words of this copy are those of the keys it chose; a teammate's
        # forget (`decided`) chose them from theirs, and every run is looked up.
        texts = None if decided is not None else _texts(memory)
        carrying = carried.withhold(db, memory.project or "", keys, texts)
    detail: dict[str, object] = {"mode": mode, "reason": reason, "tombstones": keys}
    if withdraw:
        detail["withdrawn"] = True  # for its writer, an agent: `actor` did not decide it
    if carrying:
        detail["withheld"] = carrying
    audit.record(db, actor, "forget", memory_id, detail, changed=[memory_id, *carrying], at=now)
    return own


def _texts(memory: Memory) -> list[str]:
    """What `memory`'s own tombstones are made of (`tombstones.forget_keys`)."""
    return [memory.summary, memory.details, *tombstones.claim_texts(memory)]


# How long `scrub` waits for readers holding an old snapshot to let go.
CHECKPOINT_WAIT_S = 5.0


# A forgotten text shorter than this is not looked for in the file: so short
# a run of bytes is as likely some other row's.
RESIDUE_BYTES = 12


def scrub(store: Store, gone: Sequence[Memory] = ()) -> str | None:
    """Merge the FTS indexes so deleted terms leave them, then checkpoint the WAL
    so the forgotten text leaves the write-ahead log file as well.

    `secure_delete` zeroes what a delete frees, but a page SQLite lays out
    again (a summary node rebuilt above a forgotten memory) can keep a row's
    old bytes in its unused space. When the file still holds a text of one
    of the `gone` memories as it was stored, the file is rebuilt without
    them (VACUUM), then checkpointed again.

    A reader holding an old snapshot keeps its frames in the log; the
    checkpoint then stops short (SQLite reports it as busy). It is retried
    for up to `CHECKPOINT_WAIT_S`; if a reader still holds on, the result
    says so, so the caller can tell the person rather than claim the text
    is gone. None when the file holds no trace.
    """
    with store.write() as db:
        fts.optimize(db)
        unkeep_forgotten(db)
    lingering = _checkpoint(store)
    texts = [
        text.encode("utf-8")
        for memory in gone
        for text in (memory.summary, memory.details, memory.source_quote)
        if text and len(text.encode("utf-8")) >= RESIDUE_BYTES
    ]
    if lingering is None and texts and pages.holds(store.path, texts):
        pages.vacuum(store.db)
        lingering = _checkpoint(store)
        # A table no migration makes (a trigger added to the store copied the
        # row there) keeps it however the file is rebuilt: say where.
        holders = layout.foreign_holding(store.db, [t.decode() for t in texts])
        if lingering is None and holders:
            lingering = (
                f"the forgotten text is still in {store.path.name}, in table(s) Tree Ring's "
                f"schema does not make ({', '.join(map(error_safe, holders))}); "
                "`tree-ring doctor` names them"
            )
    return lingering


def _checkpoint(store: Store) -> str | None:
    deadline = time.monotonic() + CHECKPOINT_WAIT_S
    delay = 0.05
    while True:
        busy, log, done = pages.checkpoint(store.db)
        if not busy and done == log:
            return None
        if time.monotonic() >= deadline:
            return (
                "another process is reading the store, so the forgotten text is still in "
                f"{store.path.name}-wal; it leaves when that process ends: run "
                "`tree-ring maintain --vacuum` then"
            )
        time.sleep(delay)
        delay = min(delay * 2, 0.5)


def unkeep_forgotten(db: Db) -> None:
    """Let go of each ledger line kept with a newer Tree Ring's fields
    (`team/ledger_apply.keep`) that quotes what a store's project has
    forgotten: the line is written as this version writes it from then on,
    without those fields, so a forget takes its words out of the ledger too."""
    stale = [
        memory_id
        for memory_id, project, line, plain in ledger_rows.every_kept(db)
        if tombstones.quoted(db, project, ledger_rows.added_strings(line, plain))
    ]
    if stale:
        ledger_rows.drop_kept(db, stale)


def not_live(memory: Memory) -> str | None:
    if memory.redacted_at is not None:
        return "it was redacted"
    if memory.trust == "rejected":
        return "it was rejected in review"
    if memory.superseded_by is not None:
        return f"it was already superseded by {memory.superseded_by}"
    if memory.retired_at is not None:
        return "it was retired"
    return None


def closed_validity(old: Memory, new: Memory) -> str:
    """Where the old fact's validity ends once `new` replaces it.

    A replacement that starts to hold after the old fact did is a change in the
    world: the old fact held until then. One that held from the old fact's
    start (or before) is a correction: the old fact never held, an empty
    interval. An end the old row already had is kept if it is earlier.
    """
    end = new.valid_from if new.valid_from > old.valid_from else old.valid_from
    if old.valid_to is not None and old.valid_to < end:
        end = old.valid_to
    return end


def supersede_in(db: Db, old: Memory, new_id: str, reason: str, actor: Actor, at: str) -> bool:
    """Replace `old` by `new_id`; True if it took effect, False if it waits.

    Both rows must be live and in one project. While the new row is pending or
    disputed the replacement is recorded on it (`supersedes`) and takes effect
    when a reviewer approves it, so the store never believes neither. An agent
    may retire only what it wrote itself (governance.owns); anything else is a
    person's decision, or the coordinator's.
    """
    if old.id == new_id:
        raise UsageError("a memory cannot supersede itself")
    problem = not_live(old)
    if problem is not None:
        raise Conflict(f"{old.id} cannot be superseded: {problem}")
    new = rows.get(db, new_id)
    if new.project != old.project:
        raise UsageError(f"{new_id} belongs to another project; it cannot supersede {old.id}")
    problem = not_live(new)
    if problem is not None:
        raise Conflict(f"{new_id} cannot supersede anything: {problem}")
    detail: dict[str, str] = {"superseded_by": new_id, "reason": reason}
    takes_effect = new.trust == "accepted"
    shared = admission.is_agent(actor) and not admission.owns(old, actor)
    if takes_effect:
        coordinator.authorize(db, "supersede.shared" if shared else "supersede", actor, old.id)
        detail["valid_to"] = closed_validity(old, new)
        rows.update(
            db,
            old.id,
            superseded_by=new_id,
            valid_to=detail["valid_to"],
            retired_at=at,
            updated_at=at,
        )
    else:
        detail["waits_for"] = f"review of {new_id}"
    if old.id not in new.supersedes:
        changed: dict[str, object] = {"supersedes": (*new.supersedes, old.id)}
        if shared and not takes_effect:
            # The person approving NEW decides this too: its review says so.
            said = admission.replacing(old, actor)
            changed["review_reason"] = "; ".join(filter(None, (said, new.review_reason)))
        rows.update(db, new_id, updated_at=at, **changed)
    audit.record(db, actor, "supersede", old.id, detail, changed=[old.id, new_id], at=at)
    if takes_effect:
        propagate.retired(db, old, actor, at, f"superseded by {new_id}")
    return takes_effect


def may_retire(db: Db, memory: Memory, actor: Actor) -> bool:
    """Whether `actor` may retire `memory` now: a person, the coordinator, or
    an agent retiring what it wrote itself (`supersede_in` applies the same rule)."""
    return (
        not admission.is_agent(actor)
        or admission.owns(memory, actor)
        or coordinator.holds(db, actor)
    )


def retire_in(
    db: Db, memory: Memory, reason: str, actor: Actor, at: str, *, summaries: bool = True
) -> str:
    """Retire a live row that nothing replaces: its source no longer says it.

    The row stays on record (`--as-of` still finds it) with its validity
    closed at `at`, and the audit log keeps the reason; the consolidations
    citing it retire with it (`propagate.retired`), unless `summaries` is
    False: a row retired into a summary, which states it. Returns where
    validity ended. An agent may retire only what it wrote itself, as with
    supersession.
    """
    problem = not_live(memory)
    if problem is not None:
        raise Conflict(f"{memory.id} cannot be retired: {problem}")
    shared = admission.is_agent(actor) and not admission.owns(memory, actor)
    coordinator.authorize(db, "supersede.shared" if shared else "supersede", actor, memory.id)
    end = at if at > memory.valid_from else memory.valid_from
    if memory.valid_to is not None and memory.valid_to < end:
        end = memory.valid_to
    rows.update(db, memory.id, valid_to=end, retired_at=at, updated_at=at)
    # With the state it leaves the row in, so `audit verify` holds the row to it.
    detail = {"reason": reason, "valid_to": end}
    audit.record(db, actor, "retire", memory.id, detail, changed=[memory.id], at=at)
    if summaries:
        propagate.retired(db, memory, actor, at)
    return end


def supersede(store: Store, old_id: str, new_id: str, *, reason: str, actor: Actor) -> bool:
    reason = check_reason(reason)
    now = now_iso()
    with store.write() as db:
        old = rows.get(db, old_id)
        reasons.kept(db, old.project or "", reason, reasons.IN_AUDIT_LOG)
        return supersede_in(db, old, new_id, reason, actor, now)


def remember_superseding(
    store: Store, memory: Memory, old_id: str, actor: Actor, anchors: Sequence[Anchor] = ()
) -> WriteResult:
    """`remember --supersedes ID`: the new row and the link commit together.

    The new row names the old one in `supersedes` before it is admitted, so
    governance sees what it replaces, contradiction checks skip it, and an
    exact retry (same operation id) repeats the same payload.
    """
    if old_id not in memory.supersedes:
        memory = memory.replace(supersedes=(*memory.supersedes, old_id))
    memory = pipeline.prepare(memory, anchors)
    with store.write() as db:
        pipeline.refuse_files(db, memory, anchors, actor)
        old = rows.get(db, old_id)
        if old.project != memory.project:
            raise UsageError(f"{old_id} belongs to another project; it cannot be superseded here")
        result = pipeline.insert_prepared(db, memory, actor)
        if not result.created:
            return result  # an exact retry: the first call made the link
        if anchors:
            stored.insert(db, result.id, anchors)
        supersede_in(db, old, result.id, "replaced by a newer memory", actor, memory.created_at)
    return pipeline.with_anchors(result, anchors)
