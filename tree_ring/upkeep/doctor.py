"""`tree-ring doctor`: check a store, and rebuild what can be rebuilt from its rows.

The rows of `memories` are the truth; everything else a doctor may touch is
derived from them or bookkeeping about them: the FTS indexes and their triggers,
SQLite's own indexes, the summary tree, and operation claims and redaction
tombstones whose memory is gone. Those are repaired on `--repair`. Nothing
that is evidence is repaired: a damaged page, a store from a newer Tree Ring
or a broken audit chain is reported, and the store is left alone for a
person to restore.

The doctor opens the file without migrating it and runs each check on its
own, so a store too damaged for any other verb still gets a full report.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tree_ring.govern import coordinator
from tree_ring.model import project
from tree_ring.model.errors import NoStore, StoreFault, TreeRingError
from tree_ring.model.progress import Progress
from tree_ring.model.record import now_iso
from tree_ring.store import audit, fts, schema
from tree_ring.store.audit import Actor
from tree_ring.store.db import access, file_damage
from tree_ring.store.sql import Db, open_db
from tree_ring.team import ledger
from tree_ring.tree import repair


@dataclass(frozen=True)
class Check:
    """One finding: `ok`, or what is wrong and (after `--repair`) what was done."""

    name: str
    ok: bool
    detail: str
    repairable: bool = False
    repaired: str = ""  # what `--repair` did; `ok` is the state afterwards


@dataclass
class Report:
    path: Path
    checks: list[Check] = field(default_factory=lambda: [])
    repair: bool = False
    remedy: str = ""  # what rebuilds a store `--repair` cannot: its damaged pages are lost data

    @property
    def ok(self) -> bool:
        return all(check.ok for check in self.checks)

    def to_dict(self) -> dict[str, object]:
        return {
            "path": str(self.path),
            "ok": self.ok,
            "repair": self.repair,
            "remedy": self.remedy,
            "checks": [
                {
                    "name": c.name,
                    "ok": c.ok,
                    "detail": c.detail,
                    "repairable": c.repairable,
                    "repaired": c.repaired,
                }
                for c in self.checks
            ],
        }


def _exists(db: Db, kind: str, name: str) -> bool:
    """Whether the schema holds a `kind` (table, trigger) called `name`."""
    found = db.execute("SELECT 1 FROM sqlite_master WHERE type = ? AND name = ?", (kind, name))
    return found.fetchone() is not None


def _scalar(db: Db, sql: str) -> int:
    return int(db.execute(sql).fetchone()[0])


def check_integrity(db: Db) -> Check:
    problems = [str(row[0]) for row in db.execute("PRAGMA integrity_check(20)")]
    if problems == ["ok"]:
        return Check("integrity", True, "PRAGMA integrity_check: ok")
    # Index entries are derived from the rows; anything else is lost data.
    index_only = all("index" in problem for problem in problems)
    return Check(
        "integrity",
        False,
        f"{len(problems)} problem(s), first: {problems[0][:160]}",
        repairable=index_only,
    )


def check_schema(db: Db) -> Check:
    pending = schema.check_version(db)  # raises SchemaTooNew for a newer store
    if pending:
        return Check(
            "schema", False, f"{len(pending)} migration(s) not applied: {', '.join(pending)}", True
        )
    return Check("schema", True, f"{len(schema.applied(db))} migration(s) applied, none pending")


def fts_parity(db: Db) -> tuple[int, int, int, int]:
    """(rows, index entries, rows missing from the index, index entries without a row)."""
    rows = _scalar(db, "SELECT count(*) FROM memories")
    indexed = _scalar(db, "SELECT count(*) FROM memory_fts_docsize")
    missing = _scalar(
        db,
        "SELECT count(*) FROM memories m WHERE NOT EXISTS "
        "(SELECT 1 FROM memory_fts_docsize d WHERE d.id = m.rowid)",
    )
    stray = _scalar(
        db,
        "SELECT count(*) FROM memory_fts_docsize d WHERE NOT EXISTS "
        "(SELECT 1 FROM memories m WHERE m.rowid = d.id)",
    )
    return rows, indexed, missing, stray


def fts_integrity(db: Db) -> str | None:
    """'' when both FTS indexes match the rows' text; else SQLite's complaint,
    naming the index; None when a read-only store cannot run the check.

    `rank = 1` makes FTS5 compare an index with the external content table,
    which catches a row whose text changed without its index entry. FTS5 runs
    it as a write, which a store opened read-only refuses.
    """
    for index in fts.INDEXES:
        db.execute("SAVEPOINT doctor_fts")
        try:
            db.execute(f"INSERT INTO {index}({index}, rank) VALUES ('integrity-check', 1)")
        except StoreFault as exc:
            if "readonly" in exc.detail.lower():
                return None
            return f"{index}: {exc.detail}"
        finally:
            db.execute("ROLLBACK TO doctor_fts")
            db.execute("RELEASE doctor_fts")
    return ""


def check_fts(db: Db) -> Check:
    have = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    lost = [name for name in schema.INDEX_TRIGGERS if name not in have]
    rows, indexed, missing, stray = fts_parity(db)
    problem = fts_integrity(db)
    if not lost and not missing and not stray and rows == indexed and not problem:
        compared = (
            "index matches the rows"
            if problem is not None
            else "index text not compared (the store is read-only)"
        )
        return Check("fts", True, f"{rows} rows, {indexed} indexed, {compared}")
    parts = [f"{rows} rows, {indexed} indexed"]
    if missing or stray:
        parts.append(f"{missing} row(s) not indexed, {stray} index entry(ies) without a row")
    if problem:
        parts.append(f"integrity-check: {problem}")
    if lost:
        parts.append(f"missing trigger(s): {', '.join(lost)}")
    return Check("fts", False, "; ".join(parts), repairable=True)


# No table aliases: these also follow DELETE, which takes none before SQLite 3.44.
ORPHAN_CLAIMS = (
    "FROM operation_claims WHERE NOT EXISTS "
    "(SELECT 1 FROM memories m WHERE m.id = operation_claims.memory_id)"
)
ORPHAN_TOMBSTONES = (
    "FROM redaction_tombstones WHERE NOT EXISTS "
    "(SELECT 1 FROM memories m WHERE m.id = redaction_tombstones.memory_id)"
)


def check_claims(db: Db) -> Check:
    # A claim whose memory is gone blocks its operation id forever: only a
    # hard delete should release a claim, and it removes both together.
    orphans = _scalar(db, f"SELECT count(*) {ORPHAN_CLAIMS}")
    total = _scalar(db, "SELECT count(*) FROM operation_claims")
    if orphans:
        return Check("claims", False, f"{orphans} of {total} claim(s) name a missing memory", True)
    return Check("claims", True, f"{total} operation claim(s), none orphaned")


def check_tombstones(db: Db) -> Check:
    # A redaction tombstone outlives its row only if a hard delete was cut
    # short; content tombstones are meant to outlive rows and are not checked.
    orphans = _scalar(db, f"SELECT count(*) {ORPHAN_TOMBSTONES}")
    unmarked = _scalar(
        db,
        "SELECT count(*) FROM memories m WHERE m.redacted_at IS NOT NULL AND NOT EXISTS "
        "(SELECT 1 FROM redaction_tombstones t WHERE t.memory_id = m.id)",
    )
    if orphans or unmarked:
        return Check(
            "tombstones",
            False,
            f"{orphans} redaction tombstone(s) name a missing memory, "
            f"{unmarked} redacted row(s) lack one",
            True,
        )
    total = _scalar(db, "SELECT count(*) FROM redaction_tombstones")
    return Check("tombstones", True, f"{total} redaction tombstone(s), none orphaned")


def check_audit(db: Db) -> Check:
    result = audit.verify(db)
    if result.ok:
        return Check(
            "audit",
            True,
            f"hash chain intact over {result.checked} entries; rows and tombstones match it",
        )
    return Check(
        "audit",
        False,
        "; ".join(result.problems)
        + "; the log is evidence and is not repaired: restore a backup or keep it as found",
    )


ORPHAN_LEAVES = (
    "FROM tree_leaves l JOIN tree_trees t ON t.id = l.tree_id "
    "WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = l.memory_id)"
)


def check_summary_tree(db: Db) -> Check:
    # A leaf whose memory is gone means a summary may still hold forgotten
    # text; the tree is derived from the rows, so it is rebuilt from them.
    if not db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'tree_leaves'"
    ).fetchone():
        return Check("summary_tree", True, "no summary tree in this store")
    orphans = _scalar(db, f"SELECT count(*) {ORPHAN_LEAVES}")
    leaves = _scalar(db, "SELECT count(*) FROM tree_leaves")
    if orphans:
        return Check(
            "summary_tree", False, f"{orphans} of {leaves} leaf(s) name a missing memory", True
        )
    return Check("summary_tree", True, f"{leaves} leaf(s), none orphaned")


def check_text(db: Db) -> Check:
    """Rows whose text is not UTF-8: every read skips them, so they are named here.

    Tree Ring writes only UTF-8, so such a row was edited outside it; the row
    is the truth (or evidence) and is not repaired.
    """
    tables = [
        str(row[0])
        for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' "
            "AND name NOT LIKE 'sqlite%' AND name NOT LIKE 'memory_fts%' "
            "AND name NOT LIKE 'claim_fts%' ORDER BY name"
        )
    ]
    found: list[str] = []
    for table in tables:
        for row in db.undecodable(f'SELECT rowid AS "rowid", * FROM "{table}"'):
            key = row["id"] if "id" in row.keys() else None  # noqa: SIM118 - `in` on a Row tests values
            # An id that is itself undecodable is named by its rowid instead.
            named = type(key) is str
            found.append(f"{table} {key}" if named else f"{table} rowid {row['rowid']}")
    if not found:
        return Check("text", True, f"every text value of {len(tables)} table(s) is UTF-8")
    shown = ", ".join(found[:10]) + (f" and {len(found) - 10} more" if len(found) > 10 else "")
    return Check(
        "text",
        False,
        f"{len(found)} row(s) hold text that is not UTF-8 and every read skips them: {shown}; "
        "the file was edited outside Tree Ring: restore a backup",
    )


def check_review_queue(db: Db) -> Check:
    waiting = _scalar(db, "SELECT count(*) FROM memories WHERE trust IN ('pending', 'disputed')")
    return Check("review_queue", True, f"{waiting} memory(ies) waiting: `tree-ring review list`")


CHECKS: tuple[Callable[[Db], Check], ...] = (
    check_integrity,
    check_schema,
    check_fts,
    check_claims,
    check_tombstones,
    check_summary_tree,
    check_audit,
    check_text,
    check_review_queue,
)


def _run(db: Db, step: Callable[[Db], Check]) -> Check:
    name = step.__name__.removeprefix("check_")
    try:
        return step(db)
    except StoreFault as exc:
        # Its message sends the reader to the doctor, who is the one reading it.
        return Check(name, False, f"SQLite cannot read it: {exc.detail or exc}")
    except TreeRingError as exc:
        return Check(name, False, str(exc))


def _repair(db: Db, found: list[Check], actor: Actor) -> dict[str, str]:
    """Rebuild what the failing checks allow, in one transaction; what was done, by check."""
    failing = {c.name for c in found if not c.ok and c.repairable}
    done: dict[str, str] = {}
    if "schema" in failing:
        try:
            ran = schema.migrate(db, now_iso())  # its own transactions, one per migration
        except StoreFault as exc:
            done["schema"] = f"migration failed ({exc.detail}); restore a backup"
        else:
            done["schema"] = f"applied {len(ran)} migration(s)"
    db.execute("BEGIN IMMEDIATE")
    try:
        if failing - {"schema"}:
            coordinator.authorize(db, "fts.repair", actor, "store")
        if "integrity" in failing:
            db.execute("REINDEX")
            done["integrity"] = "rebuilt every index from the rows (REINDEX)"
        if "fts" in failing:
            if not _exists(db, "table", "claim_fts"):
                db.execute(schema.CLAIM_FTS)
            for name, statement in schema.INDEX_TRIGGERS.items():
                if not _exists(db, "trigger", name):
                    db.execute(statement)
            for index in fts.INDEXES:
                db.execute(f"INSERT INTO {index}({index}) VALUES ('rebuild')")
            done["fts"] = "rebuilt the FTS indexes from the rows"
        if "claims" in failing:
            removed = db.execute(f"DELETE {ORPHAN_CLAIMS}").rowcount
            done["claims"] = f"removed {removed} orphaned claim(s)"
        if "tombstones" in failing:
            removed = db.execute(f"DELETE {ORPHAN_TOMBSTONES}").rowcount
            added = db.execute(
                "INSERT INTO redaction_tombstones(memory_id, created_at) "
                "SELECT id, redacted_at FROM memories m WHERE redacted_at IS NOT NULL "
                "AND NOT EXISTS (SELECT 1 FROM redaction_tombstones t WHERE t.memory_id = m.id)"
            ).rowcount
            done["tombstones"] = (
                f"removed {removed} orphaned, restored {added} missing tombstone(s)"
            )
        if "summary_tree" in failing:
            projects = [
                str(row[0])
                for row in db.execute(
                    f"SELECT DISTINCT t.scope {ORPHAN_LEAVES} AND t.kind = 'source'"
                )
            ]
            for project_id in projects:
                repair.rebuild(db, project_id)
            done["summary_tree"] = f"rebuilt the summary tree of {len(projects)} project(s)"
        if done:
            audit.append(db, actor, "repair", "store", done)
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:  # a denial has already ended it
            db.execute("ROLLBACK")
        raise
    return done


def check_ledger(root: Path, db: Db, *, repair: bool) -> Check | None:
    """The team ledger, when the project has one: conflicts a text merge left
    (repaired by the ledger's rule), and this clone's audit anchor in it."""
    from tree_ring.team import ledger_check

    found = ledger_check.check(root, db, repair=repair)
    if found is None:
        return None
    ok, detail, repairable, repaired = found
    return Check("ledger", ok, detail, repairable, repaired)


def remedy(root: Path) -> str:
    """What rebuilds a store whose pages are damaged: no row-derived repair can,
    so the file goes aside and the rows come back from the team ledger (the
    shared memories; a partition's rows only a backup holds), an export, or a backup."""
    store = project.store_path(root)
    aside = f"move {store.parent.name}/{store.name} aside"
    lost = "`doctor --repair` cannot rebuild damaged pages: "
    if (store.parent / ledger.PATH).is_file():
        return (
            f"{lost}{aside}, then `tree-ring sync` rebuilds the store from "
            f"{store.parent.name}/{ledger.PATH} (the shared memories; lines the upstream "
            "does not hold come back for review: `tree-ring review list`), or restore a backup"
        )
    return (
        f"{lost}{aside}, then `tree-ring init` and `tree-ring import FILE` from an export "
        "(`tree-ring export`), or restore a backup"
    )


def diagnose(
    root: Path,
    *,
    repair: bool = False,
    actor: Actor | None = None,
    progress: Progress | None = None,
) -> Report:
    """Run every check; with `repair`, fix the repairable failures and check
    again. `progress` is told each check as it starts, of all of them."""

    def run(step: Callable[[Db], Check], done: int) -> Check:
        if progress is not None:
            progress(f"doctor: {step.__name__.removeprefix('check_')}", done, len(CHECKS))
        return _run(db, step)

    root = project.normalise_root(root)
    path = project.store_path(root)
    if not path.exists():
        raise NoStore(f"no store at {path}; run `tree-ring --root {root} init`")
    report = Report(path, repair=repair)
    damage = file_damage(path) or ("empty file" if path.stat().st_size == 0 else None)
    if damage:
        # Nothing below can be trusted on such a file, and nothing can rebuild it.
        report.checks.append(
            Check("integrity", False, f"the file is damaged ({damage}); restore a backup")
        )
        report.remedy = remedy(root)
        return report
    read_only, immutable = access(path)
    try:
        db = open_db(path, read_only=read_only, immutable=immutable)
    except TreeRingError as exc:
        report.checks.append(Check("open", False, str(exc)))
        return report
    try:
        found = [run(step, n) for n, step in enumerate(CHECKS)]
        integrity_ok = found[0].ok or found[0].repairable
        if repair and integrity_ok and any(not c.ok and c.repairable for c in found):
            done = _repair(db, found, actor or Actor.person())
            # Check everything again: a repair that did not take stays a failure.
            found = [
                Check(c.name, c.ok, c.detail, c.repairable, done.get(c.name, ""))
                for c in (run(step, n) for n, step in enumerate(CHECKS))
            ]
        report.checks = found
        if not (found[0].ok or found[0].repairable):
            report.remedy = remedy(root)
        ledger_check = check_ledger(root, db, repair=repair)
        if ledger_check is not None:
            report.checks.append(ledger_check)
    finally:
        db.conn.close()
    return report
