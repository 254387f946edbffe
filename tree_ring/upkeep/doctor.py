"""`tree-ring doctor`: check a store, and rebuild what can be rebuilt from its rows.

The rows of `memories` are the truth; everything else a doctor may touch is
derived from them or bookkeeping about them: the FTS indexes and their triggers,
SQLite's own indexes, the summary tree, and operation claims and redaction
tombstones whose memory is gone. Those are repaired on `--repair`; so is a
table, index or trigger the migrations made that is gone, made again empty
from the schema (upkeep/doctor_tables.py), its lost rows named, and an
index, trigger or view defined otherwise than the schema defines it, made
again from the schema with what it kept rebuilt from the rows. Nothing
that is evidence is repaired: a damaged page, a store from a newer Tree Ring
or a broken audit chain is reported, and the store is left alone for a
person to restore.

The doctor opens the file without migrating it and runs each check on its
own, so a store too damaged for any other verb still gets a full report.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tree_ring.govern import coordinator
from tree_ring.model import project, user_home, vectors
from tree_ring.model.actor import Actor
from tree_ring.model.errors import NoStore, StoreBusy, StoreFault, TreeRingError
from tree_ring.model.progress import Progress
from tree_ring.model.record import now_iso
from tree_ring.read import relations
from tree_ring.store import (
    audit,
    damage,
    fts,
    fts_shadow,
    health,
    layout,
    meaning,
    schema,
    settings,
)
from tree_ring.store.builds import remove_stale_builds, stale_builds
from tree_ring.store.db import access, file_damage
from tree_ring.store.sql import BUSY_TIMEOUT_MS, USER_STORE_DAMAGED, Db, open_db
from tree_ring.team import ledger
from tree_ring.tree import repair
from tree_ring.upkeep import doctor_tables


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


def check_integrity(db: Db) -> Check:
    problems = health.integrity_problems(db)
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
    if layout.ledger_lost(db):
        lost = "empty" if health.exists(db, "table", "schema_migrations") else "missing"
        return Check(
            "schema",
            False,
            f"schema_migrations is {lost} (the record of the migrations applied); "
            "`doctor --repair` records those whose tables are there and applies the rest",
            True,
        )
    gaps = layout.unrecorded(db)
    if gaps:
        return Check(
            "schema",
            False,
            f"schema_migrations lacks {len(gaps)} migration(s) whose tables are there "
            f"({', '.join(gaps)}); `doctor --repair` records them and applies the rest",
            True,
        )
    pending = schema.check_version(db)  # raises SchemaTooNew for a newer store
    if pending:
        return Check(
            "schema", False, f"{len(pending)} migration(s) not applied: {', '.join(pending)}", True
        )
    return Check("schema", True, f"{len(schema.applied(db))} migration(s) applied, none pending")


def check_tables(db: Db) -> Check:
    """Every table, index and trigger the applied migrations made (upkeep/doctor_tables.py)."""
    return Check("tables", *doctor_tables.check(db))


def check_foreign(db: Db) -> Check:
    """No index, trigger, view or table the schema does not make (upkeep/doctor_tables.py)."""
    return Check("foreign", *doctor_tables.check_foreign(db))


def check_definitions(db: Db) -> Check:
    """Every index, trigger and view the applied migrations made, as the
    schema defines it (upkeep/doctor_tables.py)."""
    return Check("definitions", *doctor_tables.check_definitions(db))


def check_fts(db: Db) -> Check:
    have = health.triggers(db)
    lost = [name for name in schema.INDEX_TRIGGERS if name not in have]
    damaged = [problem for index in fts.INDEXES for problem in fts_shadow.damage(db, index)]
    if damaged:
        # SQLite cannot open such an index, so its entries cannot be counted.
        if lost:
            damaged.append(f"missing trigger(s): {', '.join(lost)}")
        return Check(
            "fts",
            False,
            "; ".join(damaged) + "; recall cannot read its index until "
            "`doctor --repair` makes the index again from the rows",
            repairable=True,
        )
    rows, indexed, missing, stray = health.fts_parity(db)
    unread = "the store is read-only"
    try:
        problem = health.fts_integrity(db)
    except StoreBusy:
        # Held by another writer past the busy timeout: nothing is known to be
        # wrong with the index, so it is not called damaged; the next run compares.
        problem, unread = None, "another process held the store; run `tree-ring doctor` again"
    if not lost and not missing and not stray and rows == indexed and not problem:
        compared = (
            "index matches the rows"
            if problem is not None
            else f"index text not compared ({unread})"
        )
        return Check("fts", True, f"{rows} rows, {indexed} indexed, {compared}")
    parts = [f"{rows} rows, {indexed} indexed"]
    if missing or stray:
        parts.append(f"{missing} row(s) not indexed, {stray} index entry(ies) without a row")
    if problem:
        parts.append(problem)
    if lost:
        parts.append(f"missing trigger(s): {', '.join(lost)}")
    parts.append("`doctor --repair` rebuilds the FTS indexes from the rows")
    return Check("fts", False, "; ".join(parts), repairable=True)


def check_meaning(db: Db) -> Check:
    """Recall's meaning codes (docs/RELATIONS.md): their table, none edited
    outside Tree Ring, and every memory that can be coded coded; then the
    related words' file, whose checksum only this check verifies (a
    recall's lookups do not)."""
    if not health.exists(db, "table", "memory_meaning"):
        return Check("meaning", False, "the meaning codes' table is missing", repairable=True)
    problem = vectors.problem()
    if problem is not None:
        # Recall works on by words, but this Tree Ring is not whole: it fails,
        # as a damaged related words' file does.
        return Check("meaning", False, f"no vector table, so recall reads words alone: {problem}")
    if meaning.stale(db):
        detail = (
            "the meaning codes were made by another vector table; "
            "the next recall or `doctor --repair` codes them again"
        )
        return Check("meaning", False, detail, True)
    malformed, stray = meaning.unsound(db)
    if malformed or stray:
        found = [
            f"{malformed} not a code's type or size" if malformed else "",
            f"{stray} of a memory gone or redacted" if stray else "",
        ]
        detail = (
            f"{malformed + stray} meaning code(s) edited outside Tree Ring "
            f"({', '.join(part for part in found if part)}); "
            "`doctor --repair` codes those memories again"
        )
        return Check("meaning", False, detail, True)
    missing = meaning.uncoded(db)
    if missing:
        return Check("meaning", False, f"{missing} memory(ies) without a meaning code", True)
    damaged = relations.problem()
    if damaged is not None:
        return Check("meaning", False, f"every memory is coded, but the related words: {damaged}")
    return Check("meaning", True, "every memory that holds a known word is coded")


def check_claims(db: Db) -> Check:
    # A claim whose memory is gone blocks its operation id forever: only a
    # hard delete should release a claim, and it removes both together.
    orphans, total = health.claims(db)
    if orphans:
        return Check("claims", False, f"{orphans} of {total} claim(s) name a missing memory", True)
    return Check("claims", True, f"{total} operation claim(s), none orphaned")


def check_tombstones(db: Db) -> Check:
    # A redaction tombstone outlives its row only if a hard delete was cut
    # short, or stands for a redaction the team ledger brought without the row
    # (kept beside its content tombstones, which are meant to outlive rows and
    # are not checked).
    orphans, unmarked = health.redaction_orphans(db)
    if orphans or unmarked:
        return Check(
            "tombstones",
            False,
            f"{orphans} redaction tombstone(s) name a missing memory, "
            f"{unmarked} redacted row(s) lack one",
            True,
        )
    total = health.redactions(db)
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


def check_summary_tree(db: Db) -> Check:
    # A leaf whose memory is gone means a summary may still hold forgotten
    # text; the tree is derived from the rows, so it is rebuilt from them.
    if not health.exists(db, "table", "tree_leaves"):
        return Check("summary_tree", True, "no summary tree in this store")
    orphans, leaves = health.leaves(db)
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
    tables = health.text_tables(db)
    found: list[str] = []
    for table in tables:
        for row in health.undecodable(db, table):
            key = row["id"] if "id" in row.keys() else None  # noqa: SIM118 - `in` on a Row tests values
            # An id that is itself undecodable is named by its rowid instead.
            named = type(key) is str
            found.append(f"{table} {key}" if named else f"{table} rowid {row['rowid']}")
    if not found:
        return Check("text", True, f"every text value of {len(tables)} table(s) is UTF-8")
    shown = _named(found)
    return Check(
        "text",
        False,
        f"{len(found)} row(s) hold text that is not UTF-8 and every read skips them: {shown}; "
        "the file was edited outside Tree Ring: restore a backup",
    )


def _named(found: list[str]) -> str:
    return ", ".join(found[:10]) + (f" and {len(found) - 10} more" if len(found) > 10 else "")


# A time as Tree Ring stores it, for advice that asks for one.
EXAMPLE_TIME = "2026-11-29T13:00:00.000000Z"


def check_fields(db: Db) -> Check:
    """Memories holding a list that is not JSON, or a number that is not one:
    every read skips them, as it skips text that is not UTF-8; or a time that
    is not one an import takes (`damage.TIMES`), which every read compares as
    text, so that it skips the row or keeps it past its end; or a value every
    write's checks refuse (`validation.problems`). An export leaves each out.
    The row is the truth (or evidence) and is not repaired.

    What mends one: its value set back the way it was edited, or a backup.
    `forget` reaches a row whose damage is only in its times, and no other:
    every read skips the rest, the forget's too."""
    bad: dict[int, tuple[object, list[str]]] = {}
    skipped = health.unreadable_rows(db)  # every read skips these, a forget's too
    for row, columns in [*skipped, *health.refused_rows(db)]:
        bad.setdefault(row["rowid"], (row["id"], []))[1].extend(columns)
    found = [
        f"{key if type(key) is str else 'rowid ' + str(rowid)} "
        f"({', '.join(dict.fromkeys(columns))})"
        for rowid, (key, columns) in sorted(bad.items())
    ]
    if not found:
        return Check("fields", True, "every memory's lists, numbers and times can be read")
    unreached = {row["rowid"] for row, _ in skipped}
    timed = [rowid not in unreached for rowid in bad]
    forget = "`tree-ring forget ID --mode delete --reason WHY`"
    times = set(damage.TIMES)
    kind = (
        f"a time in each named column (as {EXAMPLE_TIME})"
        if all(set(columns) <= times for _, columns in bad.values())
        else f"a value of its kind in each named column (a time as {EXAMPLE_TIME})"
    )
    if all(timed):
        remedy = f"put {kind} the way it was edited, forget the row ({forget}) or restore a backup"
    else:
        remedy = f"put {kind} the way it was edited, or restore a backup"
        if any(timed):
            remedy += f"; {forget} also removes a row named for its times, words or scores alone"
    return Check(
        "fields",
        False,
        f"{len(found)} memory(ies) hold a value no reader can use and every read skips or "
        f"misreads them: {_named(found)}; the file was edited outside Tree Ring and "
        f"`doctor --repair` cannot mend a row: {remedy}",
    )


def check_settings(db: Db) -> Check:
    """Settings whose stored value is not JSON of its kind: every read takes
    the default instead; `--repair` removes the value, so the default is stored."""
    bad = settings.unreadable(db)
    if not bad:
        return Check("settings", True, "every stored setting can be read")
    return Check(
        "settings",
        False,
        f"{len(bad)} setting(s) cannot be read and read as their default: {_named(bad)}; "
        "`doctor --repair` resets them to the default",
        repairable=True,
    )


def check_leftovers(db: Db) -> Check:
    """The files of a store build a killed `init` or first hook left beside
    the store (`store/builds.py`, `stale_builds`): never a store, only disk. And
    the copy of the team ledger kept beside the store (`team/ledger_delta.py`)
    when it is no regular file: no copy can be written there, so every
    SessionStart reads the whole ledger."""
    found = stale_builds(db.path)
    odd = _odd_ledger_copy(db)
    if not found and odd is None:
        return Check("leftovers", True, "no store build cut short left beside the store")
    said: list[str] = []
    if found:
        names = ", ".join(os.path.basename(name) for name in found)
        said.append(f"{len(found)} file(s) of a store build cut short: {names}")
    if odd is not None:
        said.append(
            f"{os.path.basename(odd)} (where Tree Ring keeps a copy of the team ledger) is "
            "not a regular file, so every SessionStart reads the whole ledger"
        )
    if odd is not None and os.path.isdir(odd) and not os.path.islink(odd) and os.listdir(odd):
        return Check("leftovers", False, "; ".join(said) + "; move that folder aside")
    return Check("leftovers", False, "; ".join(said) + "; `doctor --repair` removes them", True)


def _odd_ledger_copy(db: Db) -> str | None:
    """The path of the ledger's copy beside the store when something other
    than a regular file stands there (a folder, a FIFO, a link)."""
    from tree_ring.team.ledger_delta import side_path

    path = side_path(db)
    try:
        return None if stat.S_ISREG(os.lstat(path).st_mode) else path
    except OSError:
        return None


def check_project(db: Db) -> Check:
    """project.json against the project the store records (`settings.PROJECT`):
    every read and write takes its id from the file, so one naming another
    project is refused by every verb and hook (store/db.py)."""
    root = Path(db.path).parent.parent  # the store is <root>/.tree-ring/memory.sqlite
    where = f"{project.DIR}/{project.PROJECT_FILE}"
    recorded = settings.recorded_project(db)
    try:
        named = project.load_project_id(root)
    except NoStore:
        if recorded is None:
            return Check("project", True, f"no project recorded and no {where}")
        return Check(
            "project",
            False,
            f"{where} is missing; `tree-ring init` writes it again with this store's "
            f"project id, {recorded}",
        )
    except TreeRingError as exc:
        return Check("project", False, str(exc))
    if recorded is None:
        return Check("project", True, f"no project recorded yet; the next open records {named}")
    if named != recorded:
        return Check("project", False, project.mismatch(named, recorded))
    return Check("project", True, f"the store belongs to project {recorded}, as {where} says")


def check_review_queue(db: Db) -> Check:
    waiting = health.waiting(db)
    return Check("review_queue", True, f"{waiting} memory(ies) waiting: `tree-ring review list`")


CHECKS: tuple[Callable[[Db], Check], ...] = (
    check_integrity,
    check_schema,
    check_tables,
    check_definitions,
    check_foreign,
    check_fts,
    check_meaning,
    check_claims,
    check_tombstones,
    check_summary_tree,
    check_audit,
    check_text,
    check_fields,
    check_settings,
    check_leftovers,
    check_project,
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
        found_ran: list[str] = []
        try:
            found_ran = layout.ran(db) if layout.ledger_lost(db) else layout.unrecorded(db)
            if found_ran:
                layout.record_ledger(db, found_ran, now_iso())
            ran = schema.migrate(db, now_iso())  # its own transactions, one per migration
        except StoreFault as exc:
            done["schema"] = f"migration failed ({exc.detail}); restore a backup"
        else:
            recorded = f"recorded {len(found_ran)} migration(s) as applied; " if found_ran else ""
            done["schema"] = f"{recorded}applied {len(ran)} migration(s)"
        if layout.missing(db, schema.applied(db)):
            # Parts of the migrations the rebuilt ledger names that are gone.
            failing.add("tables")
        if layout.redefined(db, schema.applied(db))[1] or layout.misplaced(db, schema.applied(db)):
            failing.add("definitions")
    health.begin(db)
    try:
        if "tables" in failing:
            # Before the policy is asked: it reads the settings and records
            # its decision in `policy_audit`, either of which may be the one
            # missing. A denial rolls this back with the rest.
            done["tables"] = doctor_tables.mend(db)
        if "definitions" in failing:
            # Before the policy is asked too: a trigger on `policy_audit`
            # defined otherwise may refuse the record of its decision.
            done["definitions"] = doctor_tables.remake(db, rebuild_fts="fts" not in failing)
        if "foreign" in failing:
            # Before the policy too: a trigger added to `policy_audit` may refuse it.
            done["foreign"] = doctor_tables.drop_foreign(db)
        if failing - {"schema"}:
            coordinator.authorize(db, "fts.repair", actor, "store")
        if "integrity" in failing:
            health.reindex(db)
            done["integrity"] = "rebuilt every index from the rows (REINDEX)"
        if "fts" in failing:
            mended = health.rebuild_fts(db)
            made = f"made {' and '.join(mended)} whole again and " if mended else ""
            done["fts"] = f"{made}rebuilt the FTS indexes from the rows"
        if "meaning" in failing:
            removed, coded = health.rebuild_meaning(db)
            dropped = f", deleted {removed} code(s) edited outside Tree Ring" if removed else ""
            done["meaning"] = (
                f"made the meaning codes' table whole{dropped} and coded {coded} memory(ies)"
            )
        if "claims" in failing:
            removed = health.remove_orphan_claims(db)
            done["claims"] = f"removed {removed} orphaned claim(s)"
        if "tombstones" in failing:
            removed, added = health.mend_redactions(db)
            done["tombstones"] = (
                f"removed {removed} orphaned, restored {added} missing tombstone(s)"
            )
        if "summary_tree" in failing:
            projects = health.orphaned_trees(db)
            for project_id in projects:
                repair.rebuild(db, project_id)
            done["summary_tree"] = f"rebuilt the summary tree of {len(projects)} project(s)"
        if "settings" in failing:
            bad = settings.unreadable(db)
            settings.reset(db, bad)
            done["settings"] = f"reset {', '.join(bad)} to the default"
        if "leftovers" in failing:
            # Files, not rows: removed whether or not the rest commits.
            removed = [f"{len(remove_stale_builds(db.path))} file(s) of a store build cut short"]
            odd = _odd_ledger_copy(db)
            if odd is not None:
                (os.rmdir if os.path.isdir(odd) and not os.path.islink(odd) else os.unlink)(odd)
                removed.append(f"{os.path.basename(odd)}, which was no regular file")
            done["leftovers"] = "removed " + " and ".join(removed)
        if done:
            audit.append(db, actor, "repair", "store", done)
        health.commit(db)
    except BaseException:
        if db.in_transaction:  # a denial has already ended it
            health.roll_back(db)
        raise
    return done


def check_ledger(root: Path, db: Db, *, repair: bool, actor: Actor | None = None) -> Check | None:
    """The team ledger, when the project has one: conflicts a text merge left
    (repaired by the ledger's rule), and this clone's audit anchor in it (a
    log cut short anchored again as it stands by a person's repair)."""
    from tree_ring.team import ledger_check

    found = ledger_check.check(root, db, repair=repair, actor=actor or Actor.person())
    if found is None:
        return None
    ok, detail, repairable, repaired = found
    return Check("ledger", ok, detail, repairable, repaired)


def remedy(root: Path) -> str:
    """What rebuilds a store whose pages are damaged: no row-derived repair can,
    and no verb reads such a file (`export` neither), so it goes aside and the
    rows come back from a backup, the team ledger (the shared memories; a
    partition's rows only a backup holds), or an export made before."""
    store = project.store_path(root)
    aside = (
        f"move {store.parent.name}/{store.name} and any {store.name}-* file beside it "
        "aside (keep them), then "
    )
    lost = (
        "`doctor --repair` cannot rebuild damaged pages and `tree-ring export` cannot read them: "
    )
    if (store.parent / ledger.PATH).is_file():
        return (
            f"{lost}{aside}restore a backup in its place, or run `tree-ring sync`, which "
            f"rebuilds the store from {store.parent.name}/{ledger.PATH} (the shared memories; "
            "lines the upstream does not hold come back for review: `tree-ring review list`, "
            "and their forgets of memories it does not hold bind agents only; the ledger it "
            "writes leaves out what waits, so approve it before you commit the ledger)"
        )
    return (
        f"{lost}{aside}restore a backup in its place, or run `tree-ring init` for an empty "
        "store and `tree-ring import FILE --restore` from an export made before the damage"
    )


def check_user_store(environ: Mapping[str, str]) -> Check | None:
    """The person's user store, opened as every command opens it (the
    project's reads and writes read its forgets): None when there is none. A
    store that cannot be opened fails every command in the project, so the
    check names it and what to do, which is the user store's own remedy."""
    from tree_ring.store import user

    try:
        opened = user.open_user(environ, read_only=True)
    except TreeRingError as exc:
        return Check("user_store", False, str(exc))
    if opened is None:
        return None
    path = user_home.user_store_path_str(environ)
    with opened:
        try:
            found = health.quick_problems(opened.db)
        except TreeRingError as exc:
            found = [str(exc)]
    if found != ["ok"]:
        return Check(
            "user_store",
            False,
            f"the user store at {path} is damaged ({found[0][:120]}); {USER_STORE_DAMAGED}",
        )
    return Check("user_store", True, f"{path} opens and passes its quick check")


def diagnose(
    root: Path,
    *,
    repair: bool = False,
    actor: Actor | None = None,
    progress: Progress | None = None,
    busy_timeout_ms: int = BUSY_TIMEOUT_MS,
) -> Report:
    """Run every check; with `repair`, fix the repairable failures and check
    again. `progress` is told each check as it starts, of all of them.
    `busy_timeout_ms`: how long a check or repair that writes waits for
    another writer (the caller's `Options`), as every write does."""

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
        db = open_db(path, read_only=read_only, immutable=immutable, timeout_ms=busy_timeout_ms)
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
        ledger_check = check_ledger(root, db, repair=repair, actor=actor)
        if ledger_check is not None:
            report.checks.append(ledger_check)
    finally:
        db.conn.close()
    return report
