"""How an import writes its rows, a batch at a time (`transfer/jsonl.py`
reads the file and calls it): what is new, what the store holds already
(unchanged, or in another state), what takes a stored row's place, and the
report of it all."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import groupby
from typing import Any

from tree_ring.govern import contradictions
from tree_ring.model.actor import Actor
from tree_ring.model.anchor import Anchor
from tree_ring.model.errors import Conflict, Denied, TreeRingError, UsageError
from tree_ring.model.record import Memory
from tree_ring.store import anchors, audit, beside, redactions, rows, tombstones
from tree_ring.store.sql import Db
from tree_ring.transfer.reach import Reach
from tree_ring.transfer.row_lines import Parsed, at_line
from tree_ring.write import pipeline, readmit, replace
from tree_ring.write.pipeline import BatchError


def _waits(result: pipeline.WriteResult, memory: Memory) -> bool:
    """Whether a row written waits for a person in the review queue: pending
    or disputed, and live (a retired row, written superseded, waits for no one)."""
    return result.trust in ("pending", "disputed") and memory.retired_at is None


@dataclass
class ImportReport:
    lines: int = 0
    created: list[str] = field(default_factory=lambda: [])
    unchanged: list[str] = field(default_factory=lambda: [])
    tombstones: int = 0
    # Of the file's tombstones, those this store held already (recorded, and
    # logged, nothing).
    tombstones_held: int = 0
    pending: int = 0
    # Requests to forget (`req_...`) raised by an agent's tombstone lines that
    # name a memory this store holds (`stone_lines.as_claims`).
    requested: list[str] = field(default_factory=lambda: [])
    # Memories this store held that a person's tombstone lines name as
    # forgotten: forgotten here too (`stone_lines.forget_named`).
    forgotten_here: list[str] = field(default_factory=lambda: [])
    # The person's global notes whose words a tombstone line held: the line
    # is not recorded (`stone_lines.held_content`).
    spared: list[str] = field(default_factory=lambda: [])
    # The file's tombstone lines of the person's user store, left out of a
    # project (`row_lines.personal`).
    personal: int = 0
    dry_run: bool = False
    replaced: list[str] = field(default_factory=lambda: [])
    # Of the rows a restore found stored with their words, those stored in
    # another state (trust, origin, ring, review ...): left as they are
    # unless `--replace-existing` (then they are replaced, as the file says).
    differing: list[str] = field(default_factory=lambda: [])
    # Agents' notes in their own partitions the file's rows contradict, now disputed.
    disputes: list[str] = field(default_factory=lambda: [])
    # (line number, reason) of each line left out under `skip_invalid`.
    skipped: list[tuple[int, str]] = field(default_factory=lambda: [])
    # Rows taken from another project id (a map or `all_projects`), by that
    # id: those written, not those read (a skipped line was not merged).
    merged: dict[str, int] = field(default_factory=lambda: {})
    # The original's rows written with whitespace folded (`original.fold`).
    folded: int = 0
    # Recorded on every governed row that names no session of its own
    # (`origin_session`) and on the import's audit entries (`session`), so the
    # rows of one import can be found, and reviewed, together.
    batch: str = ""


class Writer:
    """Writes an import's batches in order, one search across all of them."""

    def __init__(self, db: Db, actor: Actor, report: ImportReport, *, skip: bool = False) -> None:
        self.db = db
        self.actor = actor
        self.report = report
        self.skip = skip
        # (who replaces, whether to authorize) for `import --replace-existing`,
        # and for a restore (`restoring`): its rows replace the ledger's claims
        # of them, waiting here (`claims`), as its file says they stood.
        self.replacing: tuple[Actor, bool] | None = None
        self.restoring: tuple[Actor, bool] | None = None
        self.claims: set[str] = set()
        self.search = contradictions.Search()
        # Ids of lines an earlier batch answered as exact retries of another
        # row: not in the table, yet a repeat of them is unchanged.
        self.retried: dict[str, str] = {}
        # The line each memory id of this file was first written from: a later
        # line with the same id and other content is the file's own mistake.
        self.lines: dict[str, int] = {}
        # The tombstone keys this import recorded that the store did not hold.
        self.brought: frozenset[str] = frozenset()
        # The ids this store forgot before the import (`_free`), case folded:
        # an id that differs from one only in case reads as that id.
        self.forgotten: frozenset[str] = frozenset()
        # An agent's import: what it may name (`reach.py`); None for a person's.
        self.reach: Reach | None = None

    def write(self, chunk: list[Parsed]) -> None:
        # Rows that keep their trust skip governance, and so go in as a bulk
        # write does; each run of them, and of the rest, is one batch, in order.
        if self.reach is not None:
            chunk = self.reach.rename(chunk, self._untakable)
        changed = self._paths(self._free(self._changed(chunk)))
        held: set[str] = set()
        replacer = self.replacing or self.restoring
        if replacer is not None:
            person, authorize = replacer
            ids = [item.memory.id for item in changed if item.memory is not None]
            held = set(rows.content_hashes(self.db, ids))
            if self.replacing is None:
                held &= self.claims  # a restore replaces the claims only
            if held and authorize:
                replace.authorize(self.db, held, person)
        # A re-admitted row, and one taking a stored row's place, one at a time.
        for item in changed:
            if item.memory is not None and (item.readmitted is not None or item.memory.id in held):
                self._alone(item, item.memory, held)
        changed = [
            item
            for item in changed
            if item.readmitted is None and (item.memory is None or item.memory.id not in held)
        ]
        for keep_trust, run in groupby(changed, _keeps_trust):
            items = [item for item in run if item.memory is not None]
            while True:
                memories = [item.memory for item in items if item.memory is not None]
                try:
                    results = pipeline.insert_prepared_many(
                        self.db,
                        memories,
                        self.actor,
                        action="import",
                        admit=not keep_trust,
                        search=self.search,
                        bulk=True,
                        claiming=self.reach is None,
                    )
                    break
                except BatchError as refused:
                    if not self.skip or isinstance(refused.error, Denied):
                        raise at_line(refused.error, items[refused.index].number) from None
                    # Nothing of the batch was written: leave the line out and
                    # decide the rest again (at most once per refused line).
                    self.report.skipped.append((items[refused.index].number, str(refused.error)))
                    del items[refused.index]
                    self.search.discard()
            for item, memory, result in zip(items, memories, results, strict=True):
                self._written(item, memory, result, item.files or ())
            if self.reach is not None:
                self.reach.wrote([result.id for result in results if result.created])

    def _alone(self, item: Parsed, memory: Memory, held: set[str]) -> None:
        """A row written on its own. One a person re-admitted is written over
        the tombstones its re-admission names, which is recorded here as it
        was there; content forgotten here waits for a person's review
        (`waiting_here`). One whose id the store holds (`held`, under
        `--replace-existing`) takes the stored row's place, the removal and
        the write together or neither (`replace.replacing`): a line the write
        path refuses leaves the stored row as it was. The row's files are the
        line's; a line that says nothing of files leaves a replaced row the
        stored row's, which its removal took with it."""
        readmission = item.readmitted
        kept: list[Anchor] = []
        replacer = self.replacing or self.restoring
        if item.files is None and memory.id in held and replacer is not None:
            kept = anchors.of(self.db, [memory.id]).get(memory.id, [])
        keys: frozenset[str] = frozenset(
            readmission["overrides"] if readmission is not None else ()
        )
        waiting = (
            readmit.waiting_here(self.db, memory, readmission, self.brought)
            if readmission is not None
            else None
        )

        def write() -> pipeline.WriteResult:
            [result] = pipeline.insert_prepared_many(
                self.db,
                [waiting or memory],
                self.actor,
                action="import",
                admit=not item.keep_trust and waiting is None,
                search=self.search,
                overriding=keys,
            )
            return result

        try:
            if memory.id in held and replacer is not None:
                result, replaced = replace.replacing(
                    self.db, memory, replacer[0], write, leave=held
                )
                if replaced:
                    self.report.replaced.append(memory.id)
            else:
                result = write()
        except BatchError as refused:
            if not self.skip or isinstance(refused.error, Denied):
                raise at_line(refused.error, item.number) from None
            self.report.skipped.append((item.number, str(refused.error)))
            self.search.discard()
            return
        files = kept if item.files is None else item.files
        self._written(item, memory, result, files, readmission)

    def _written(
        self,
        item: Parsed,
        memory: Memory,
        result: pipeline.WriteResult,
        files: Sequence[Anchor],
        readmission: dict[str, Any] | None = None,
    ) -> None:
        """What the report says of a row written: created, with its files
        anchored and the re-admission it carries taken, or unchanged (an
        exact retry); waiting or not."""
        if result.created:
            anchors.insert(self.db, result.id, files)
            if readmission is not None:
                readmit.take_carried(self.db, self.actor, result.id, readmission)
            self.report.created.append(result.id)
            self._count(item)
        else:
            self.report.unchanged.append(result.id)
            self.retried.setdefault(memory.id, memory.content_hash)
        self.report.pending += _waits(result, memory)
        self.report.disputes += result.disputes

    def _free(self, items: list[Parsed]) -> list[Parsed]:
        """The items whose ids are free to take; each other one is refused
        (under `skip`, left out).

        An id this store forgot stays forgotten, whoever imports: a row under
        it would stand in the team ledger where its tombstone line was, and
        the forget would never reach the upstream. An id a row still holds is
        that row's matter (it is unchanged, replaced or refused as taken); a
        rejected row a person restores as rejected is its own rejection coming
        back, and the ledger says it as the tombstone it is. An id that differs
        from a forgotten or a stored one only in case is refused too: it reads
        as that id.
        Nor may a row take an id of the store read beside this one (the
        person's user store for a project, the project for the user store):
        one id would name two memories."""
        ids = [item.memory.id for item in items if item.memory is not None]
        taken = [memory_id for memory_id in ids if memory_id.casefold() in self.forgotten]
        forgotten: set[str] = set(taken) - self._held(taken).keys()
        elsewhere = self._beside(ids)
        # An agent's: a row it may not read that holds a redacted id is no row
        # to it; the id is refused as the write refuses one no row holds.
        redacted = (
            redactions.among(self.db, [i for i in ids if not self.reach.reads(i)])
            if self.reach is not None and ids
            else set[str]()
        )
        # An id that differs from a stored row's only in case reads as that
        # row's: a second row under it would be two memories of one name.
        cased = rows.held_in_other_case(self.db, ids) if ids else set[str]()
        if not forgotten and not elsewhere and not redacted and not cased:
            return items
        free: list[Parsed] = []
        for item in items:
            memory = item.memory
            if memory is None:
                continue
            error = None
            if memory.id in forgotten and not (item.keep_trust and memory.trust == "rejected"):
                # Content forgotten as well is refused as the write would refuse
                # it: a new id would not let it in.
                keys = [] if item.readmitted else tombstones.check_keys(memory)
                stone = tombstones.find(self.db, memory.project, keys) if keys else None
                error = (
                    tombstones.refused(stone)
                    if stone is not None
                    else Conflict(
                        f"memory id {memory.id} was forgotten here and cannot be reused; "
                        "omit the id or give a new one"
                    )
                )
            elif memory.id in elsewhere:
                error = Conflict(
                    f"memory id {memory.id} names {elsewhere[memory.id]}; "
                    "omit the id or give a new one"
                )
            elif memory.id in redacted:
                error = Conflict(f"memory id {memory.id} was redacted and cannot be reused")
            elif memory.id in cased:
                error = Conflict(
                    f"memory id {memory.id} differs from a memory's id here only in letter "
                    "case; give the row a new id, or omit it"
                )
            if error is None:
                free.append(item)
            else:
                self._refuse(item, error)
        return free

    def _refuse(self, item: Parsed, error: TreeRingError) -> None:
        """A line refused: left out and reported under `skip`, else the import's end."""
        if not self.skip:
            raise at_line(error, item.number) from None
        self.report.skipped.append((item.number, str(error)))

    def _paths(self, items: list[Parsed]) -> list[Parsed]:
        """The items whose files' paths quote nothing a write here answers to
        as forgotten (`pipeline.files_refused`, the check `remember --file`
        and the team ledger's lines answer to): a path is stored, shown and
        written to the ledger as it stands. Each other one is refused (under
        `skip`, left out)."""
        free: list[Parsed] = []
        for item in items:
            memory = item.memory
            error = (
                pipeline.files_refused(self.db, memory, item.files, self.actor)
                if memory is not None and item.files
                else None
            )
            if error is None:
                free.append(item)
            else:
                self._refuse(item, error)
        return free

    def _beside(self, ids: list[str]) -> dict[str, str]:
        """The ids among `ids` the store read beside this one holds or forgot
        (`_free`), each with how a message names the memory: one id would
        name two memories, or a forgotten one's id a live row the brief
        shows beside what that store forgot."""
        return beside.taken(beside.of(self.db), ids)

    def _untakable(self, ids: list[str]) -> set[str]:
        """The ids among `ids` no row may take here, whoever holds them: one
        this store forgot or redacted, one of the store read beside it. An
        agent's import does not rename them (`reach.py`): `_free` refuses
        their lines."""
        return (
            {memory_id for memory_id in ids if memory_id.casefold() in self.forgotten}
            | redactions.among(self.db, ids)
            | self._beside(ids).keys()
            | rows.held_in_other_case(self.db, ids)
        )

    def _held(self, ids: list[str]) -> dict[str, str]:
        """Id -> content hash of the stored rows among `ids`; in an agent's
        import, only those it may read or this import wrote (`Reach.reads`):
        any other is no row to it."""
        held = rows.content_hashes(self.db, ids)
        if self.reach is None:
            return held
        return {
            memory_id: hashed for memory_id, hashed in held.items() if self.reach.reads(memory_id)
        }

    def _standing(self, idless: list[Memory]) -> dict[rows.Key, str]:
        """`rows.standing_with_content` of the lines without an id; in an
        agent's import, among the rows it may read and those it wrote."""
        if self.reach is None:
            return rows.standing_with_content(self.db, idless)
        reach = self.reach
        return rows.standing_with_content(
            self.db, idless, reader=reach.reader, also=reach.elsewhere
        )

    def _count(self, item: Parsed) -> None:
        """What the report says of a row written: merged from another project, folded."""
        if item.merged_from is not None:
            merged = self.report.merged
            merged[item.merged_from] = merged.get(item.merged_from, 0) + 1
        self.report.folded += item.folded

    def _changed(self, chunk: list[Parsed]) -> list[Parsed]:
        """The memory lines to write, in order. A row stored with the same id
        and content (by this import too), or repeated earlier in the file, is
        counted unchanged instead; a different row under an id an earlier line
        of the file holds is refused here (under `skip`, left out: the earlier
        line stays), and one under a stored id is left for the write to
        refuse. A line without an id is known by its content
        (`rows.content_key`): the same as a row that still stands in the same
        project, scope and partition, or as a line before it in the batch, it
        is counted unchanged as that row, so a file imported twice is stored
        once (earlier batches are stored rows by then)."""
        items = [item for item in chunk if item.memory is not None]
        ids = [item.memory.id for item in items if item.memory is not None]
        held = self._held(ids)
        # A restore's row stored with its words but in another state (a
        # store rebuilt from the ledger holds its lines as claims).
        restored = [i.memory.id for i in items if i.keep_trust and i.memory and i.memory.id in held]
        stored_rows = rows.by_ids(self.db, restored) if restored else {}
        states = {key: audit.state_hash(m) for key, m in stored_rows.items()}
        # A claim: a row an import (the ledger's own, an agent's) put here, waiting.
        claims = {
            k
            for k, m in stored_rows.items()
            if m.origin == "import" and m.trust in ("pending", "disputed")
        }
        idless = [item.memory for item in items if item.idless and item.memory is not None]
        standing = self._standing(idless) if idless else {}
        changed: list[Parsed] = []
        for item in items:
            memory = item.memory
            if memory is None:
                continue
            if item.idless:
                present = standing.get(rows.content_key(memory))
                if present is not None:
                    self.report.unchanged.append(present)
                    continue
            first = held.get(memory.id) or self.retried.get(memory.id)
            stored = states.get(memory.id)
            # A restore's row stored with its words, in another state: the
            # file's takes its place under --replace-existing, else it is named.
            differs = (
                stored is not None
                and memory.id not in self.retried
                and stored != audit.state_hash(memory)
            )
            other = differs and first == memory.content_hash
            # A claim under the row's id (a ledger line, edited or not) gives
            # way to the person's own file, whatever words it holds.
            replacing = (other and self.replacing is not None) or (differs and memory.id in claims)
            if replacing:
                self.claims.add(memory.id)  # the file's row takes its place
            elif other:
                self.report.differing.append(memory.id)
            if first == memory.content_hash and not replacing:
                self.report.unchanged.append(memory.id)
                continue
            earlier = self.lines.setdefault(memory.id, item.number)
            if earlier != item.number:
                named = memory.id if self.reach is None else self.reach.said(memory.id)
                said = (
                    f"memory {named} is on line {earlier} too, with other content; "
                    "give one of them a new id or omit it"
                )
                if self.skip:  # the first line stays; this one is left out
                    self.report.skipped.append((item.number, said))
                    continue
                raise UsageError(f"line {item.number}: {said}; nothing imported")
            held.setdefault(memory.id, memory.content_hash)
            if idless:  # a later line of the batch without an id is this one
                standing.setdefault(rows.content_key(memory), memory.id)
            changed.append(item)
        return changed


def _keeps_trust(item: Parsed) -> bool:
    return item.keep_trust
