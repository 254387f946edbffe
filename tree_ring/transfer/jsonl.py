"""Import from JSONL (what `transfer/export.py` writes, and the original Tree Ring's rows).

Every imported row and tombstone is placed in the importing project. A file
whose rows name several projects is refused, before anything is written,
unless the caller takes those projects (`Projects`: a map, or all of them).
Import is all or nothing, in one transaction: the first bad line is reported
by number and nothing is written; or, when the caller asks (`skip_invalid`),
each bad line is left out and reported by number with its reason. Every
line is checked as strictly as a write: a memory by validation and the
guard, a tombstone by shape and the guard. What a file says of a row's
trust, origin and review is kept only as a claim (the row's origin is the
import), unless a person restores their own export (`restore`): their word
for the file, as `--replace-existing` is for the rows it replaces; but not
for content forgotten here (or in the store writes here answer to), which a
re-admission brings back only pending, for a person's review (`_readmitted`).
An agent's tombstone lines are claims as well (`stone_lines.as_claims`): one
naming a stored memory becomes a request to forget it. And an agent's import
names only the memories it may read (`reach.py`): a file's id naming none is
renamed, whether another partition's memory holds it or nothing does.

A row's files (`files`) are stored with the row an import writes, checked
as the team ledger's are (`anchor_lines.parse_files`, strictly, and no path
quoting what was forgotten here: `import_rows.Writer._paths`). A row taking a stored
row's place (`--replace-existing`) keeps the stored row's files when its
line says nothing of files, and takes the line's (none, for `[]`) when it
does. A row the store already holds as it stands is not written, nor are
its files: an import re-anchors no stored memory it does not replace (a
person's confirm does that), and an agent's import replaces none.

An import streams: it holds one batch of lines (`BATCH`) at a time, not the
file, so its memory does not grow with the file. It reads the lines twice.
The first pass counts the lines and parses only those that name a project or
a content tombstone (`{"record": "content_tombstone"}`, which an export
writes after its memories, or the original's header that lists them): it
learns which projects the rows name, and the tombstones
are written before any memory, so what was forgotten on one machine stays
forgotten on the next wherever its tombstone sits in the file. The second
pass parses, validates and guards each line and writes the memories a batch
at a time through the bulk path, each batch seeing the ones before it as one
write would (`bulk.py`, `contradictions.Search`).
The write policy decides the import before anything is written, and its
decision is recorded at the end, about every memory id the file holds.

A file can also be split by scope (`global_rows`): its `global` rows into
the person's user store (`into`), the rest into the project, each part a
governed import of its own store. Both parts take the file's tombstones, so
a content forgotten where the file came from stays out of either store.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from datetime import UTC, datetime
from itertools import islice

from tree_ring.govern import coordinator
from tree_ring.guard.messages import withhold
from tree_ring.model import imported
from tree_ring.model.actor import Actor
from tree_ring.model.errors import Denied, UsageError
from tree_ring.model.identity import Identity, Origin
from tree_ring.model.progress import Progress
from tree_ring.model.record import json_string
from tree_ring.store import (
    audit,
    tombstones,
    user,
)
from tree_ring.store.db import Store
from tree_ring.transfer import stone_lines
from tree_ring.transfer.import_rows import ImportReport, Writer
from tree_ring.transfer.reach import Reach
from tree_ring.transfer.row_lines import (
    GlobalRows,
    Projects,
    Reading,
    first_pass,
    parse,
)
from tree_ring.write import bulk

# Lines parsed and written at a time: enough that a statement per table per
# batch costs little, few enough that a batch of long lines stays small.
BATCH = 1_000
# Page cache for an import: half a bulk write's, as an import also holds its
# batch, its search's signatures and its report; the whole stays near 100 MB
# whatever the file's size (`benchmarks/write_path.py` measures it).
CACHE_KIB = bulk.CACHE_KIB // 2


class _Ids:
    """sha256 of canonical_json of the file's memory ids, a list too long to
    hold: the target the write policy's decision is recorded about."""

    def __init__(self) -> None:
        self._hash = hashlib.sha256(b"[")
        self._first = True

    def add(self, memory_id: str) -> None:
        text = json_string(memory_id) if self._first else "," + json_string(memory_id)
        self._hash.update(text.encode("utf-8"))
        self._first = False

    def digest(self) -> str:
        done = self._hash.copy()
        done.update(b"]")
        return "sha256:" + done.hexdigest()


def new_batch_id() -> str:
    """An import's batch id: when it ran, and enough randomness to be its own."""
    return f"{imported.BATCH_PREFIX}{datetime.now(UTC):%Y%m%dT%H%M%SZ}-{secrets.token_hex(4)}"


def import_lines(
    store: Store,
    lines: Iterable[str],
    *,
    project: str,
    actor: Actor,
    dry_run: bool = False,
    replace_existing: bool = False,
    batch: int = BATCH,
    skip_invalid: bool = False,
    projects: Projects | None = None,
    progress: Progress | None = None,
    into: str | None = None,
    global_rows: GlobalRows = "all",
    restore: bool = False,
    reader: Identity | None = None,
) -> ImportReport:
    """Import JSONL lines; `lines` is read twice (see the module's text), so a
    one-shot iterator is first taken into a list.

    `skip_invalid` leaves out each line that would refuse the import (bad
    JSON, a field validation or the guard refuses, a forgotten content, a row
    of a project not taken) and notes it in the report, where by default the
    first one refuses the whole file. A denial of the import itself is never
    skipped. `progress` is told the lines read of the total, once a batch.
    A `dry_run` checks every line as the import would, writes nothing, and
    returns the report of what it would have done.

    `into` is the project id the rows and tombstones are stored under when it
    is not `project` (the user store's); `project` is still the one the
    file's rows are compared with. `global_rows` picks rows by scope.

    `restore` is a person's word that the file is their own export: its rows
    keep the trust, origin and review they name, and their re-admissions
    (those of content forgotten here wait for review). An agent's is
    refused, whatever it holds.

    `reader`: for an agent's import, whose partitions its recall reads (the
    identity it runs as; by default the actor's own harness partitions). An
    agent's import names only what it may read (`reach.py`): an id that names
    no memory it may read, a hidden one's or none, is renamed."""
    if restore and actor.origin.is_agent:
        raise Denied(
            f"--restore is a person's decision: {actor.origin.kind} may not vouch for a "
            "file's trust states and reviews; import without it, and they wait as claims"
        )
    if iter(lines) is lines:
        lines = list(lines)
    report = ImportReport(dry_run=dry_run, batch=new_batch_id())
    reading = Reading(
        project,
        batch=report.batch,
        restore=restore,
        projects=projects or Projects(),
        skip=skip_invalid,
        skipped=report.skipped,
        into=into or project,
        global_rows=global_rows,
        agent=actor.origin.is_agent,
    )
    # The same caller (and capability), writing rows whose origin is the
    # import, under the batch's id as its session, so its audit entries name it;
    # `via` keeps who ran it, so an agent's rows wait as its own writes would.
    import_actor = actor.replace(origin=Origin("import", report.batch, via=actor.origin))
    first = first_pass(lines, into or project)
    stones, total = first.stones, first.lines
    report.personal = first.personal
    # A file of one project's rows is a migration into this project, as it
    # always was; rows of several projects are taken only as the caller says.
    if len(first.projects) > 1:
        reading.foreign = {
            p: n
            for p, n in first.projects.items()
            if p != project and not reading.projects.takes(p)
        }
        if reading.foreign and not skip_invalid:
            raise UsageError(_foreign_message(reading.foreign, project))
    # A dry run checks every line in the transaction, then unwinds it (`_DryRun`).
    try:
        with bulk.page_cache(store.db, CACHE_KIB), store.write() as db:
            decision = None if dry_run else coordinator.decide(db, "import", actor, "")
            writing = decision is None or decision.allowed
            brought: frozenset[str] = frozenset()
            forgotten: frozenset[str] = frozenset()
            reach = None
            if actor.origin.is_agent:
                session = actor.origin.session
                reach = Reach(db, reader or Identity(into or project, actor.name, session, session))
            if writing:
                if reach is not None:
                    stones = stone_lines.as_claims(db, stones, actor, report.requested, reach)
                else:
                    stones = stone_lines.held_content(
                        db,
                        stones,
                        import_actor,
                        report.requested,
                        report.spared,
                        beside=(into or project) != user.USER_PROJECT,
                        readmitted=first.readmitted,
                    )
                # The file's own tombstones are not what was forgotten here: a restore
                # re-admits what they hold as the file says (`_readmitted`).
                hashes = [stone["content_hash"] for stone in stones]
                # Taken before the file's own tombstones are recorded: the ids this
                # store forgot, not those the file says were forgotten where it was
                # written (its rows may stand under them there, as a consolidation
                # rewritten when a source was forgotten does).
                forgotten = frozenset(map(str.casefold, tombstones.memory_ids(db, into or project)))
                brought = frozenset(hashes) - tombstones.answered(db, into or project, hashes)
                values = [stone_lines.VALUES(stone) for stone in stones]
                fresh = tombstones.changing(db, values)
                report.tombstones_held = len(values) - len(fresh)
                tombstones.record_absent(db, values)
                if not actor.origin.is_agent:
                    report.forgotten_here = stone_lines.forget_named(db, stones, import_actor)
                if fresh:
                    # Named in the log like every tombstone (see audit.verify):
                    # those it recorded, not those already held.
                    detail = {"tombstones": [value[1] for value in fresh]}
                    audit.append(db, import_actor, "tombstone", "import", detail)
            ids = _Ids()
            writer = Writer(db, import_actor, report, skip=skip_invalid)
            writer.reach = reach
            writer.brought = brought
            writer.forgotten = forgotten
            if replace_existing:
                # A person's decision: the file's rows take the place of the
                # stored rows with their ids, authorized as the import is.
                writer.replacing = (actor, not dry_run)
            if restore:
                writer.restoring = (actor, not dry_run)
            parsed = parse(lines, reading)
            while chunk := list(islice(parsed, max(1, batch))):
                report.lines += len(chunk)
                report.tombstones += sum(item.tombstone is not None for item in chunk)
                for item in chunk:
                    if item.memory is not None:
                        ids.add(item.memory.id)
                if writing:
                    writer.write(chunk)
                if progress is not None:
                    progress("import", chunk[-1].number, total)
            if decision is not None:
                # Denied: every line was still read, so a bad one is named first,
                # as it would be with nothing to decide.
                decision = decision.about(ids.digest())
                if not decision.allowed:
                    coordinator.refuse(db, decision)
                coordinator.record(db, [decision])
            if dry_run:
                raise _DryRun(report)
            writer.search.close(db)
            if len(report.created) > (writer.search.boundary or 0):
                bulk.merge_fts(db)
    except _DryRun as done:
        report = done.report
    # A skipped line's reason may quote the line (a field's value): whatever
    # in it looks like a secret is withheld, as an error's is.
    report.skipped[:] = [(number, withhold(reason)) for number, reason in report.skipped]
    return report


def _foreign_message(foreign: dict[str, int], project: str) -> str:
    named = sorted(foreign, key=lambda p: (-foreign[p], p))
    listed = ", ".join(f"{p[:60]} ({foreign[p]} rows)" for p in named[:5])
    if len(named) > 5:
        listed += f" and {len(named) - 5} more"
    return (
        f"the file holds rows of other projects: {listed}; take them into this project "
        f"with --project-map {named[0][:60]}={project} (repeatable) or --all-projects, "
        "or leave them out with --skip-invalid; nothing imported"
    )


class _DryRun(Exception):
    """Unwinds the transaction after a dry run has checked every line."""

    def __init__(self, report: ImportReport) -> None:
        super().__init__("dry run")
        self.report = report
