"""The team ledger's lines applied to the store, in the caller's transaction.

What a ledger line wins over the store's own line for its key (`ledger.merge`)
is written. A trusted line stands: a memory is imported keeping the ledger's
trust state, or replaces the version held; a tombstone or redaction forgets
or redacts the row and records its hashes (`ledger_stones.py`). A claim
becomes what a person decides on (`provenance.py`): a pending row, or a
request to forget. A sync (`sync.py`) reads the lines (`ledger_read.py`), then
applies them here.
"""

from __future__ import annotations

from tree_ring.govern import coordinator, reasons
from tree_ring.model.actor import Actor
from tree_ring.model.errors import Conflict, TreeRingError
from tree_ring.model.identity import Origin
from tree_ring.model.record import Memory, canonical_json, new_memory_id, now_iso
from tree_ring.store import (
    anchors,
    audit,
    beside,
    census,
    inbox,
    ledger_rows,
    redactions,
    rows,
    tombstones,
)
from tree_ring.store.sql import Db
from tree_ring.team import ledger, ledger_beside, ledger_stones, provenance, upstream
from tree_ring.team.ledger import Line
from tree_ring.team.ledger_read import Read
from tree_ring.team.ledger_report import Skipped, SyncReport
from tree_ring.team.ledger_state import memory_line, store_lines
from tree_ring.team.upstream import Upstream
from tree_ring.write import bulk, correct, pipeline, readmit, replace, requests
from tree_ring.write.pipeline import BatchError, WriteResult

REASON = ledger_stones.REASON
BESIDE = (
    "the ledger's line of {id} left out of this store, and of the ledger it writes "
    "(`git diff` shows it gone): its id names {what}"
)
# An upstream's line stays in the ledger: the id is taken only in this clone.
BESIDE_KEPT = (
    "the ledger's line of {id} left out of this store, and kept in the ledger as it "
    "stands (it is the team's): its id names {what}"
)


def apply(
    db: Db,
    read: Read,
    mine: dict[str, Line],
    project_id: str,
    actor: Actor,
    report: SyncReport,
    up: Upstream | None = None,
) -> bool:
    """Write what the ledger's lines win over the store (`mine`, its lines by
    key), in the caller's transaction: the trusted lines as they stand, the
    claims as what a person decides on. Whether anything was written."""
    entries = {
        key: line
        for key, line in read.won.items()
        if key.startswith("2") and _over(line, mine.get(key))
    }
    claims = {
        key: line
        for key, line in read.claims.items()
        if key.startswith("2") and _over(line, mine.get(key)) and _over(line, read.won.get(key))
    }
    if claims:
        done = provenance.taken(db, [line.text for line in claims.values()])
        report.claim_lines += [
            read.raws[v.text]
            for v in claims.values()
            if provenance.line_hash(v.text) in done and v.text in read.raws
        ]
        claims = {k: v for k, v in claims.items() if provenance.line_hash(v.text) not in done}
    if not entries and not claims:
        return keep(db, read, project_id)
    ids = [line.data["id"] for line in (*entries.values(), *claims.values())]
    elsewhere = beside.taken(beside.of(db), ids)
    if elsewhere:
        # One id would name two memories in this clone's brief and reads: the
        # line is left as it stands, and this clone's store takes nothing of it.
        # The upstream's line is the team's, so the ledger this clone writes
        # keeps it (a routine commit must not delete it for everyone); a
        # claim is left out of it, as any claim not taken is.
        kept = {k: v for k, v in entries.items() if v.data["id"] in elsewhere}
        read.beside.update(kept)
        ledger_beside.record(db, kept.values())
        held = {str(v.data["id"]) for v in kept.values()}
        report.notes += [
            (BESIDE_KEPT if i in held else BESIDE).format(id=i, what=what)
            for i, what in elsewhere.items()
        ]
        entries = {k: v for k, v in entries.items() if v.data["id"] not in elsewhere}
        claims = {k: v for k, v in claims.items() if v.data["id"] not in elsewhere}
        ids = [memory_id for memory_id in ids if memory_id not in elsewhere]
        if not entries and not claims:
            return keep(db, read, project_id)
    # As any import: under the coordinated write policy only the capability imports.
    coordinator.authorize(db, "import", actor, canonical_json(sorted(ids)))
    if entries:
        _apply_trusted(db, read, entries, mine, project_id, actor, report, up)
    if claims:
        _apply_claims(db, read, claims, project_id, actor, report, up)
    keep(db, read, project_id)
    return True


def _over(line: Line, held: Line | None) -> bool:
    """Whether `line` wins its key over `held` (the merge rule) and says
    something this version reads differently: a line that differs from
    `held` only in the fields a newer Tree Ring added changes nothing in
    the store (`keep` decides which of the two is written)."""
    return held is None or (held.plain != line.plain and held.rank < line.rank)


def keep(db: Db, read: Read, project_id: str) -> bool:
    """Keep each trusted line that holds fields a newer Tree Ring added
    (`ledger_read._keeping`) whose id the store, now that the lines are
    applied, writes as that line without them: the store writes it as it
    came from then on (`ledger_rows.kept_lines`). A line kept before with
    other such fields stays when it wins by the merge rule. Whether any
    line was kept."""
    fresh = {
        str(line.data["id"]): line
        for key, line in read.won.items()
        if key.startswith("2") and line.text != line.plain
    }
    if not fresh:
        return False
    now = store_lines(db, project_id, list(fresh))
    kept: list[tuple[str, str, str]] = []
    for memory_id, line in fresh.items():
        held = now.get(line.key)
        if held is None or held.plain != line.plain or held.text == line.text:
            continue
        if tombstones.quoted(db, project_id, ledger_rows.added_strings(line.text, line.plain)):
            continue  # its fields hold what this clone forgot: written without them
        if held.text != held.plain and held.rank > line.rank:
            continue
        kept.append((memory_id, line.text, line.plain))
    ledger_rows.keep_lines(db, project_id, kept)
    return bool(kept)


def _stored(db: Db, ids: list[str]) -> dict[str, Memory]:
    return rows.by_ids(db, ids)


def _apply_trusted(
    db: Db,
    read: Read,
    entries: dict[str, Line],
    mine: dict[str, Line],
    project_id: str,
    actor: Actor,
    report: SyncReport,
    up: Upstream | None,
) -> None:
    ids = [line.data["id"] for line in entries.values()]
    stored = _stored(db, ids)
    # Rows a claim made: the team's own line for the id takes their place.
    claimed = provenance.claimed(db, stored)
    inserts: list[tuple[int, Memory]] = []
    replacing: list[Memory] = []
    forgets: list[Line] = []  # the tombstone and redaction lines taken
    # id -> the keys tombstoned under it that its team line is written over
    successors: dict[str, frozenset[str]] = {}
    for key, line in sorted(entries.items()):
        memory_id = line.data["id"]
        held = stored.get(memory_id)
        number = read.numbers[line.text]
        if held is not None and held.project != project_id:
            report.skipped.append(Skipped(number, f"{memory_id} belongs to another project"))
            continue
        if (
            key not in mine
            and held is not None
            and memory_id not in claimed
            and Line(memory_line(held)).rank >= line.rank
        ):
            continue  # held but not shared (pending, private): the rule still decides
        record = line.data["record"]
        if record == ledger.MEMORY:
            memory = read.memories[line.text]
            refused = _files_quoting(db, read, line, project_id)
            if refused is not None:
                report.skipped.append(Skipped(number, f"{memory_id}: {refused}"))
                continue
            if held is not None:
                replacing.append(memory)
            inserts.append((number, memory))
            continue
        ledger_stones.record(db, project_id, line, actor)
        forgets.append(line)
        if held is None:
            continue
        mode = "delete" if record == ledger.TOMBSTONE else "redact"
        if mode == "redact" and held.redacted_at is not None:
            continue
        # The teammate's forget decided what is tombstoned: the line's
        # hashes (recorded above), no more (a key this clone's copy of the
        # row adds would refuse, in every clone built from the ledger this
        # one writes, a memory the team keeps), no fewer (a copy this clone
        # keeps must not make them writable here while every clone built
        # from the ledger refuses them).
        at = str(line.data["at"])
        hashes = [str(h) for h in line.data["hashes"]]
        # As the teammate decided it: a rejection written back as a forget
        # would delete the rejected row, on record, in the clone that rejected it.
        kind = str(line.data.get("kind", tombstones.FORGOTTEN))
        correct.forget_in(db, held, mode, REASON, actor, at, decided=hashes, decided_as=kind)
        (report.forgotten if mode == "delete" else report.redacted).append(memory_id)
    for copy, line in _agent_copies(db, project_id, forgets):
        # The copies agents wrote of a forgotten claim go with it, as a
        # forget here takes them (`correct.forget`): a note in an agent's
        # partition never travels, so only this clone can take it.
        mode = "delete" if line.data["record"] == ledger.TOMBSTONE else "redact"
        hashes = [str(h) for h in line.data["hashes"]]
        correct.forget_in(db, copy, mode, REASON, actor, str(line.data["at"]), decided=hashes)
        (report.forgotten if mode == "delete" else report.redacted).append(copy.id)
    # A consolidation rewritten in place here (when a forget above, or an
    # earlier one, took one of its sources) keeps its old text tombstoned
    # under its own id: the team's line for that id is its successor, not
    # the old text again, and is written over those keys.
    rewritten = _stored(db, [m.id for m in replacing if m.source_type == CONSOLIDATION])
    for memory in replacing:
        held = rewritten.get(memory.id)
        if held is None or held.source_type != CONSOLIDATION or held.trust != "accepted":
            continue  # only a live consolidation is rewritten in place
        stones = tombstones.find_all(db, project_id, tombstones.check_keys(memory))
        own = frozenset(stone[0] for stone in stones if stone["memory_id"] == memory.id)
        if own:
            successors[memory.id] = own
    _insert(db, inserts, actor, report, read, successors, {m.id for m in replacing})
    if up is not None and up.ref is not None:
        now = now_iso()
        texts = {str(line.data["id"]): line.text for line in entries.values()}
        for memory_id in (*report.imported, *report.replaced):
            text = texts.get(memory_id)
            if text is not None:
                source = up.provenance(read.raws.get(text, b""))
                provenance.note(db, memory_id, project_id, text, source, now)


def _files_quoting(db: Db, read: Read, line: Line, project_id: str) -> Conflict | None:
    """Why `line` is not taken when a file it names has a path that quotes
    content forgotten here (the path is stored and written to the ledger
    this clone writes, as the row's carried fields are); or None."""
    named = read.files.get(line.text, ())
    return reasons.files_quoting(db, project_id, [a.path for a in named]) if named else None


def _agent_copies(db: Db, project_id: str, lines: list[Line]) -> list[tuple[Memory, Line]]:
    """Each row an agent wrote (live, retired or rejected) that one of the
    tombstone or redaction `lines` refuses as a write
    (`tombstones.check_keys`), with the first such line; not the rows those
    lines name, which their own forget took."""
    if not lines:
        return []
    named = {str(line.data["id"]) for line in lines}
    found: list[tuple[Memory, Line]] = []
    for row in inbox.ever_written(db, project_id):
        memory = rows.from_row(row)
        if memory.id in named:
            continue
        keys = set(tombstones.check_keys(memory))
        line = next((line for line in lines if not keys.isdisjoint(line.data["hashes"])), None)
        if line is not None:
            found.append((memory, line))
    return found


CONSOLIDATION = "consolidation"
# Who raises what a claim asks for: the ledger itself, never the caller.
CLAIMANT = Actor("team-ledger", Origin("import"))


def _apply_claims(
    db: Db,
    read: Read,
    claims: dict[str, Line],
    project_id: str,
    actor: Actor,
    report: SyncReport,
    up: Upstream | None,
) -> None:
    """What each claim asks for, as something a person decides on."""
    ids = [line.data["id"] for line in claims.values()]
    stored = _stored(db, ids)
    redacted = redactions.among(db, ids)
    now = now_iso()
    withdrawn = 0
    for _, line in sorted(claims.items()):
        memory_id = str(line.data["id"])
        number = read.numbers[line.text]
        raw = read.raws.get(line.text, b"")
        source = up.provenance(raw) if up else upstream.Provenance(upstream.WORKING_TREE)
        held = stored.get(memory_id)
        if held is not None and held.project != project_id:
            report.skipped.append(Skipped(number, f"{memory_id} belongs to another project"))
            continue
        record = line.data["record"]
        if record != ledger.MEMORY:
            if memory_id in redacted or (held is not None and held.redacted_at is not None):
                continue  # redacted here, with or without its placeholder: left as it is
            # An id never held: kept, unless its hashes are content held here.
            asked = [held] if held else ledger_stones.unheld(db, project_id, line, actor, now)
            mode = "delete" if record == ledger.TOMBSTONE else "redact"
            why = f"a team ledger {record} line from the {source.label()}, not the upstream's"
            for target in asked:
                request = requests.ask(db, target, mode, why, CLAIMANT, now)
                provenance.note(db, request, project_id, line.text, source, now)
                report.requested.append(request)
            if held is None and not asked:
                # Kept as a withdrawal, which the ledger this clone writes
                # never carries: noted, so the line is taken once.
                provenance.note(db, memory_id, project_id, line.text, source, now)
                withdrawn += 1
            report.claim_lines.append(raw)
            continue
        wanted = read.memories[line.text]
        if held is not None:
            wanted = provenance.rewrite(wanted, held, new_memory_id())
        memory = pipeline.prepare(provenance.as_claim(wanted, source, held))
        try:
            refusal = _files_quoting(db, read, line, project_id)
            if refusal is not None:
                raise refusal
            pipeline.insert_prepared(db, memory, actor, action="import", admit=False)
        except TreeRingError as refused:
            report.skipped.append(Skipped(number, f"{memory_id}: {refused}"))
            report.claim_lines.append(raw)  # refused as it stands: refused again
            continue
        anchors.insert(db, memory.id, read.files.get(line.text, ()))
        provenance.note(db, memory.id, project_id, line.text, source, now)
        report.claimed.append(memory.id)
        report.claim_lines.append(raw)
    if withdrawn:
        report.notes.append(
            f"{withdrawn} forget{'s' if withdrawn > 1 else ''} of memories this store never "
            "held came from lines not the upstream's: kept as withdrawals, which bind "
            "agents' writes only and which the ledger this clone writes leaves out "
            '(docs/TEAM.md, "What the ledger is trusted for")'
        )


def _insert(
    db: Db,
    inserts: list[tuple[int, Memory]],
    actor: Actor,
    report: SyncReport,
    read: Read,
    successors: dict[str, frozenset[str]],
    replacing: set[str],
) -> None:
    """Write the new rows through the write path; a row it refuses (forgotten
    content under another id, a claim another row holds) is skipped, named.
    A row carrying a person's re-admission is written over the tombstones it
    names, one at a time, and the re-admission recorded as this store's; a
    row in `successors` over the keys named there. A row whose id the store
    holds (`replacing`) takes the stored row's place, one at a time, the
    removal and the write together or neither (`replace.replacing`): a line
    the write path refuses leaves the stored row as it was."""
    carried = {read.memories[t].id: r for t, r in read.readmitted.items() if t in read.memories}
    files = {read.memories[t].id: f for t, f in read.files.items() if t in read.memories}
    alone = carried.keys() | successors.keys() | replacing
    pending = [(n, m) for n, m in inserts if m.id not in alone]
    for number, memory in inserts:
        readmission = carried.get(memory.id)
        if memory.id not in alone:
            continue
        keys = successors.get(memory.id, frozenset())
        if readmission is not None:
            keys |= frozenset(readmission["overrides"])

        def write(memory: Memory = memory, keys: frozenset[str] = keys) -> WriteResult:
            return pipeline.insert_prepared(
                db, memory, actor, action="import", admit=False, overriding=keys
            )

        try:
            if memory.id in replacing:
                result, replaced = replace.replacing(db, memory, actor, write, leave=replacing)
                if replaced:
                    report.replaced.append(memory.id)
            else:
                result = write()
        except TreeRingError as refused:
            report.skipped.append(Skipped(number, f"{memory.id}: {_why(db, memory, refused)}"))
            continue
        if readmission is not None:
            readmit.take_carried(db, actor, memory.id, readmission)
        if result.created:
            anchors.insert(db, memory.id, files.get(memory.id, ()))
        if result.created and memory.id not in report.replaced:
            report.imported.append(memory.id)
    while pending:
        try:
            results = pipeline.insert_prepared_many(
                db,
                [memory for _, memory in pending],
                actor,
                action="import",
                admit=False,
                bulk=True,
            )
        except BatchError as refused:
            number, memory = pending.pop(refused.index)
            why = _why(db, memory, refused.error)
            report.skipped.append(Skipped(number, f"{memory.id}: {why}"))
            continue
        for result in results:
            # A row it replaced took its anchors with it: these are the line's.
            if result.created:
                anchors.insert(db, result.id, files.get(result.id, ()))
        report.imported += [r.id for r in results if r.created and r.id not in report.replaced]
        if len(results) > 1_000:
            bulk.merge_fts(db)
        return


def _why(db: Db, memory: Memory, refused: TreeRingError) -> str:
    """Why a line was skipped, as a person can act on it. A row this clone
    forgot itself, which the upstream's ledger still holds until the forget
    is pushed, is no content to write again: the push is what is missing."""
    if not isinstance(refused, tombstones.Refused) or refused.kind != tombstones.FORGOTTEN:
        return str(refused)
    # The forget is this store's (not the user store's), and this store held the row.
    here = census.forgot_as(db, memory.project or "", refused.memory_id)
    if not here or audit.count(db, target=memory.id) == 0:
        return str(refused)
    return (
        f"forgotten in this clone (with {refused.memory_id}), and the upstream's ledger "
        "still holds it: commit and push the ledger to share the forget"
    )
