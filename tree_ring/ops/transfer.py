"""Export to JSONL and import from it, including the original Tree Ring's rows.

Every imported row and tombstone is placed in the importing project. Import
is all or nothing: every line is parsed, validated and guarded first,
and the first bad line is reported by number with nothing written. Content
tombstones travel with an export (as `{"record": "content_tombstone"}` lines),
so what was forgotten on one machine stays forgotten on the next.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import groupby
from typing import Any

from tree_ring.govern import coordinator
from tree_ring.model.errors import TreeRingError, UsageError
from tree_ring.model.identity import Identity
from tree_ring.model.record import Memory, canonical_json, from_mapping, parse_time
from tree_ring.ops import original, replace
from tree_ring.store import audit, live, rows
from tree_ring.store.audit import Actor
from tree_ring.store.db import Store
from tree_ring.store.live import View
from tree_ring.store.sql import Db
from tree_ring.write import bulk, pipeline
from tree_ring.write.correct import check_reason
from tree_ring.write.pipeline import BatchError

MAX_LINE_BYTES = 1_000_000
TOMBSTONE = "content_tombstone"


def export_rows(
    store: Store, project: str, view: View, *, agent: Identity | None = None
) -> Iterator[dict[str, Any]]:
    """The project's rows, then its tombstones; for an `agent`, only the rows
    its recall sees, and no tombstones: a tombstone names a forgotten memory
    and why, and may come from any partition."""
    reader = agent or Identity(project)
    clause = live.where(reader, view, whole_project=agent is None)
    sql = f"SELECT m.* FROM memories m WHERE {clause.sql} ORDER BY m.created_at"
    for row in store.query(sql, clause.params):
        yield rows.from_row(row).to_dict()
    if agent is not None:
        return
    for stone in store.query(
        "SELECT * FROM content_tombstones WHERE project = ? ORDER BY created_at", (project,)
    ):
        yield {"record": TOMBSTONE, **dict(stone)}


@dataclass
class ImportReport:
    lines: int = 0
    created: list[str] = field(default_factory=lambda: [])
    unchanged: list[str] = field(default_factory=lambda: [])
    tombstones: int = 0
    pending: int = 0
    dry_run: bool = False
    replaced: list[str] = field(default_factory=lambda: [])


@dataclass(frozen=True)
class _Parsed:
    number: int
    memory: Memory | None
    tombstone: dict[str, Any] | None
    keep_trust: bool = False


def _parse(lines: Iterable[str], project: str, trusted: bool) -> list[_Parsed]:
    parsed: list[_Parsed] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            if len(raw.encode("utf-8", "surrogatepass")) > MAX_LINE_BYTES:
                raise UsageError(f"longer than {MAX_LINE_BYTES:,} bytes")
            data = json.loads(raw)
            if not isinstance(data, dict):
                raise UsageError("not a JSON object")
            # The original's export: a header (with our tombstones), then envelopes.
            row, stones = original.unwrap(data)  # pyright: ignore[reportUnknownArgumentType]
            parsed += [_Parsed(number, None, _tombstone(stone, project)) for stone in stones]
            if row is None:
                continue
            if row.get("record") == TOMBSTONE:
                parsed.append(_Parsed(number, None, _tombstone(row, project)))
                continue
            memory = from_mapping(row)
            # The store is the project's: every row lands in it. A row kept under
            # another project id (or none) would be invisible to every brief.
            memory = memory.replace(project=project)
            # A person restoring Tree Ring's own export keeps its trust states;
            # anything else is an import, and governance decides what waits.
            keep_trust = trusted and "trust" in row
            if not keep_trust:
                memory = memory.replace(origin="import")
                if memory.reviewed_by is not None or memory.reviewed_at is not None:
                    # A review the file claims is not a person's decision here.
                    claimed = " ".join(
                        part
                        for part in (
                            f"by {memory.reviewed_by}" if memory.reviewed_by else "",
                            f"on {memory.reviewed_at[:10]}" if memory.reviewed_at else "",
                        )
                        if part
                    )
                    memory = memory.replace(
                        reviewed_by=None,
                        reviewed_at=None,
                        review_reason=f"the import claims a review {claimed}; not believed",
                    )
            if memory.superseded_by and memory.retired_at is None:
                memory = memory.replace(retired_at=memory.updated_at)
            parsed.append(_Parsed(number, pipeline.prepare(memory), None, keep_trust))
        except (ValueError, RecursionError) as exc:  # RecursionError: nesting too deep
            raise UsageError(
                f"line {number}: not valid JSON ({str(exc)[:80]}); nothing imported"
            ) from None
        except TreeRingError as exc:
            raise _at_line(exc, number) from None
    return parsed


def _at_line(exc: TreeRingError, number: int) -> TreeRingError:
    """The same error, kept for its exit code, with the line that caused it."""
    exc.args = (f"line {number}: {exc}; nothing imported",)
    return exc


_HASH = re.compile(r"sha256:[0-9a-f]{64}\Z")
_ID = re.compile(r"mem_[A-Za-z0-9_.-]{1,120}\Z")


def _tombstone(row: dict[str, Any], project: str) -> dict[str, Any]:
    """A tombstone line, checked as strictly as a memory: its hash and id by
    shape, its reason and actor (free text someone else wrote) by the guard."""
    needed = ("content_hash", "kind", "reason", "memory_id", "created_at")
    missing = [key for key in needed if not (isinstance(row.get(key), str) and row.get(key))]
    if missing:
        raise UsageError(f"a content tombstone needs {', '.join(needed)}; {missing[0]} is missing")
    if not _HASH.match(row["content_hash"]) or not _ID.match(row["memory_id"]):
        raise UsageError("a content tombstone's content_hash and memory_id are malformed")
    if row["kind"] not in ("forgotten", "rejected"):
        raise UsageError("a content tombstone's kind is forgotten or rejected")
    actor = str(row.get("actor") or "import")
    reason = check_reason(row["reason"])
    check_reason(actor)
    return {key: row[key] for key in needed} | {
        "project": project,
        "reason": reason,
        "actor": actor,
        "created_at": parse_time(row["created_at"], "created_at"),
    }


def import_lines(
    store: Store,
    lines: Iterable[str],
    *,
    project: str,
    actor: Actor,
    dry_run: bool = False,
    replace_existing: bool = False,
) -> ImportReport:
    trusted = not actor.origin.is_agent
    parsed = _parse(lines, project, trusted)
    report = ImportReport(lines=len(parsed), dry_run=dry_run)
    # The same caller (and capability), writing rows whose origin is the import.
    import_actor = actor.replace(origin=actor.origin.replace(kind="import"))
    with bulk.page_cache(store.db, bulk.CACHE_KIB), store.write() as db:
        if not dry_run:
            ids = [item.memory.id for item in parsed if item.memory is not None]
            coordinator.authorize(db, "import", actor, canonical_json(ids))
        imported: list[str] = []
        for item in parsed:
            if item.tombstone is not None:
                imported.append(item.tombstone["content_hash"])
                db.execute(
                    "INSERT OR IGNORE INTO content_tombstones"
                    "(project, content_hash, kind, reason, memory_id, actor, created_at)"
                    " VALUES (:project, :content_hash, :kind, :reason, :memory_id, :actor,"
                    " :created_at)",
                    item.tombstone,
                )
                report.tombstones += 1
        if imported:
            # Named in the log like every tombstone (see audit.verify).
            audit.append(db, import_actor, "tombstone", "import", {"tombstones": imported})
        # Rows that keep their trust skip governance, and so go in as a bulk
        # write does; each run of them, and of the rest, is one batch, in order.
        changed = _changed(db, parsed, report)
        if replace_existing:  # a person's decision: the file's rows take the stored ones' place
            memories = [item.memory for item in changed if item.memory is not None]
            report.replaced = replace.vacate(db, memories, actor, authorize=not dry_run)
        for keep_trust, run in groupby(changed, _keeps_trust):
            items = list(run)
            memories = [item.memory for item in items if item.memory is not None]
            try:
                results = bulk.insert_prepared_many(
                    db, memories, import_actor, action="import", admit=not keep_trust
                )
            except BatchError as refused:
                raise _at_line(refused.error, items[refused.index].number) from None
            for result in results:
                (report.created if result.created else report.unchanged).append(result.id)
                report.pending += result.trust in ("pending", "disputed")
        if dry_run:
            raise _DryRun(report)
    return report


def _keeps_trust(item: _Parsed) -> bool:
    return item.keep_trust


def _changed(db: Db, parsed: list[_Parsed], report: ImportReport) -> list[_Parsed]:
    """The memory lines to write, in order. A row stored with the same id and
    content, or repeated earlier in the file, is counted unchanged instead; a
    different row under a stored id is left for the write to refuse."""
    items = [item for item in parsed if item.memory is not None]
    ids = [item.memory.id for item in items if item.memory is not None]
    held: dict[str, str] = dict(
        db.execute(
            "SELECT id, content_hash FROM memories WHERE id IN (SELECT value FROM json_each(?))",
            (json.dumps(ids),),
        ).fetchall()
    )
    changed: list[_Parsed] = []
    for item in items:
        memory = item.memory
        if memory is None:
            continue
        if held.get(memory.id) == memory.content_hash:
            report.unchanged.append(memory.id)
            continue
        held.setdefault(memory.id, memory.content_hash)
        changed.append(item)
    return changed


class _DryRun(Exception):
    """Unwinds the transaction after a dry run has checked every line."""

    def __init__(self, report: ImportReport) -> None:
        super().__init__("dry run")
        self.report = report


def import_or_plan(
    store: Store,
    lines: Iterable[str],
    *,
    project: str,
    actor: Actor,
    dry_run: bool,
    replace_existing: bool = False,
) -> ImportReport:
    try:
        return import_lines(
            store,
            lines,
            project=project,
            actor=actor,
            dry_run=dry_run,
            replace_existing=replace_existing,
        )
    except _DryRun as done:
        return done.report
