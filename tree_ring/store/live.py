"""The one definition of a live memory, and who may see it.

Every read path (recall, the brief, list, export, the tree) builds its WHERE
clause here, so "live" cannot mean two things. A row is live at record time T
and validity time V when it was recorded by T and not retired by T (not
superseded, rejected or redacted), its validity interval covers V, it has not
expired by T, it is accepted (pending and disputed only when asked), and its
sensitivity is normal (others only when asked). A superseded row is still
believed, at any T after its supersession, for the validity interval that
supersession closed: `--valid-at` in the past finds what held then.

Visibility is the project plus its shared scopes plus the caller's own
agent / workflow / session partitions. Both clauses run in SQL before any
candidate cap, so no number of invisible rows can starve a visible one.

The write path also asks whether a memory it has decided but not yet written
is live (a batch's earlier rows, see `write/pipeline.py`). So a view of now is
declared once, as a list of `Test`s, and rendered twice: as the SQL clause
(`live`) and as a Python test of a `Memory` (`check`), with SQL's NULL
semantics; a property test holds the two to the same answer.

`whole_project` is for a person at the terminal: `recall`, `list`, `show`
and `export` then see every partition, each row labelled by the caller.
An agent's see exactly what its recall sees, through this same clause,
whatever the verb.
"""

from __future__ import annotations

import functools
from operator import attrgetter

from tree_ring.model.frozen import Frozen
from tree_ring.model.identity import Identity
from tree_ring.model.record import PRIVATE_SCOPES, SHARED_SCOPES, Memory, now_iso

# Not imported at run time: the SessionStart hook imports this module.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any

    from tree_ring.store.sql import Db

    Check = Callable[[Memory], bool]


class View(Frozen):
    """What a read asks for. `as_of` is record time; `valid_at` is validity time."""

    as_of: str | None = None
    valid_at: str | None = None
    include_sensitive: bool = False
    include_unreviewed: bool = False  # pending and disputed rows, labelled by callers
    include_superseded: bool = False  # export only, on request
    # Also disputed rows an agent refuted while they were accepted, until a
    # person decides (review/refute.py): the brief keeps them, marked. Now only.
    include_refuted: bool = False
    # Every row the store keeps that the flags above admit, whatever its
    # times: a fact that holds only later, and (with `include_superseded`) a
    # row whose expiry passed that `maintain` has not removed yet. An
    # export's (`transfer/export.py`): a file kept to restore from.
    all_times: bool = False

    def is_now(self) -> bool:
        """Current belief about the present: the form partial indexes serve."""
        return not self.include_superseded and self.as_of is None and self.valid_at is None

    def record_time(self) -> str:
        return self.as_of or now_iso()

    def validity_time(self) -> str:
        return self.valid_at or self.record_time()


class Clause(Frozen):
    sql: str
    params: dict[str, Any]


# What a `Test` does with its column: the SQL it renders, and the Python.
IS_NULL = "IS NULL"  # the column is NULL
AT_MOST = "<="  # column <= :param
NULL_OR_AFTER = "NULL OR >"  # column IS NULL OR column > :param
ONE_OF = "IN"  # column IN ('a', 'b'), literals
EQUALS = "="  # column = 'literal', or column = :param
IS = "IS"  # column IS :param (NULL equals NULL)
DIFFERS = "!="  # column != :param


class Test(Frozen):
    """One condition on a memory column, declared once for SQL and Python."""

    column: str
    op: str
    param: str = ""  # the bound parameter it compares with, if any
    literals: tuple[str, ...] = ()  # literals (ONE_OF; EQUALS without a param)


def sql(tests: Sequence[Test], alias: str = "m") -> str:
    """The tests as one SQL conjunction over `alias`, parameters bound by name."""
    return _rendered(tuple(tests), alias)


# A write asks for the same few clauses for every memory it decides.
@functools.lru_cache(maxsize=256)
def _rendered(tests: tuple[Test, ...], alias: str) -> str:
    return " AND ".join(_sql(test, f"{alias}.{test.column}") for test in tests)


def _sql(test: Test, c: str) -> str:
    op, p = test.op, f":{test.param}"
    if op == IS_NULL:
        return f"{c} IS NULL"
    if op == AT_MOST:
        return f"{c} <= {p}"
    if op == NULL_OR_AFTER:
        return f"({c} IS NULL OR {c} > {p})"
    if op == ONE_OF:
        return f"{c} IN ({', '.join(_literal(v) for v in test.literals)})"
    if op == EQUALS:
        return f"{c} = {p if test.param else _literal(test.literals[0])}"
    if op == IS:
        return f"{c} IS {p}"
    if op == DIFFERS:
        return f"{c} != {p}"
    raise ValueError(f"unknown test {op!r}")


def _literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def python(tests: Sequence[Test], params: Mapping[str, Any]) -> Check:
    """The same tests as a Python check of a `Memory`, with the parameters bound.

    SQL's NULL rules are kept: a comparison with NULL is not true (so a NULL
    `valid_to` is never `<=` anything), `IS` holds between two NULLs, and
    `!=` with a NULL on either side is not true either.
    """
    checks = [_python(test, params) for test in tests]
    return lambda memory: all(check(memory) for check in checks)


def _python(test: Test, params: Mapping[str, Any]) -> Check:
    get = attrgetter(test.column)
    op, p = test.op, params.get(test.param)
    if op == IS_NULL:
        return lambda m: get(m) is None
    if op == AT_MOST:
        return lambda m: (v := get(m)) is not None and p is not None and v <= p
    if op == NULL_OR_AFTER:
        return lambda m: (v := get(m)) is None or (p is not None and v > p)
    if op == ONE_OF:
        allowed = frozenset(test.literals)
        return lambda m: get(m) in allowed
    if op == EQUALS:
        want = p if test.param else test.literals[0]
        return lambda m: (v := get(m)) is not None and want is not None and v == want
    if op == IS:
        return lambda m: get(m) == p
    if op == DIFFERS:
        return lambda m: (v := get(m)) is not None and p is not None and v != p
    raise ValueError(f"unknown test {op!r}")


def _trusted(view: View) -> Test:
    trusted = ["accepted"]
    if view.include_unreviewed:
        trusted += ["pending", "disputed"]
    if view.include_superseded:
        trusted += ["rejected"]
    return Test("trust", ONE_OF, literals=tuple(trusted))


# Recorded by T, not redacted, not expired by T: live at any record time.
RECORDED = (
    Test("created_at", AT_MOST, "live_t"),
    Test("redacted_at", IS_NULL),
    Test("expires_at", NULL_OR_AFTER, "live_t"),
)
# Now, a retired or superseded row is simply gone (the index on retired_at IS
# NULL serves this form), and the fact must hold at V. The partial indexes the
# viewer counts with (schema.COUNT_INDEXES) are used only while these IS NULL
# terms appear as they are written here.
CURRENT = (
    Test("retired_at", IS_NULL),
    Test("superseded_by", IS_NULL),
    Test("valid_from", AT_MOST, "live_v"),
    Test("valid_to", NULL_OR_AFTER, "live_v"),
)
NORMAL = Test("sensitivity", EQUALS, literals=("normal",))
# A row that still stands, whoever reads it and whenever its fact holds:
# recorded, not redacted, expired, retired or superseded, and not rejected
# (waiting for review counts). What an import's line without an id is
# compared with, so the same file imported twice is not stored twice.
STANDING = (
    *RECORDED,
    *CURRENT[:2],  # not retired, not superseded (not its validity)
    Test("trust", ONE_OF, literals=("accepted", "pending", "disputed")),
)


def shows_text(view: View, memory: Memory) -> bool:
    """Whether a read under `view` may print this row's text: the NORMAL test
    its clause applies in SQL, on a row the read holds already (`show ID`, the
    review queue; see `read/withheld.py`)."""
    return view.include_sensitive or python([NORMAL], {})(memory)


def summary_sql(alias: str = "m") -> str:
    """A row's summary as a read that has not asked for sensitive rows may print
    it: itself under the NORMAL test (or once redacted, when no text is left),
    else its sensitivity, `[health]` (`read/withheld.marker`)."""
    a = alias
    return (
        f"CASE WHEN {sql([NORMAL], a)} OR {a}.redacted_at IS NOT NULL"
        f" THEN {a}.summary ELSE '[' || {a}.sensitivity || ']' END"
    )


def now_tests(view: View) -> list[Test]:
    """A view of now, as tests: its whole clause."""
    if not view.is_now():
        raise ValueError("only a view of now is declared as tests; use `live` for others")
    current = [t for t in CURRENT if t.column != "valid_from"] if view.all_times else CURRENT
    tests = [*RECORDED, *current, _trusted(view)]
    if not view.include_sensitive:
        tests.append(NORMAL)
    return tests


def _recorded(view: View) -> tuple[Test, ...]:
    """RECORDED, but for an export of superseded rows too (`all_times`),
    which keeps a row whose expiry passed."""
    if view.all_times and view.include_superseded:
        return tuple(t for t in RECORDED if t.column != "expires_at")
    return RECORDED


def by_time(view: View) -> tuple[list[Test], Clause, list[Test] | None]:
    """`live(view)` in two parts: the tests of no time, what a row must be
    whatever its times hold (accepted, not superseded ...); and the clause
    of its times, its `created_at`, `valid_from`, `valid_to` and
    `expires_at` compared, as text, with the view's times, its `retired_at`
    and `redacted_at` unset, with that clause's tests where the view is
    declared as tests (a view of now, or of superseded rows), else None (a
    view of the past: `live(view)` whole, which tests trust and sensitivity
    again). A row whose time is no time (a hand edit) passes a test of it or
    fails it by chance; an export judges such a row without it
    (`store/damage.py`)."""
    from tree_ring.model.frozen import fields

    if view.include_refuted:
        raise ValueError("a view with refuted rows is not split by time")
    t = view.record_time()
    params: dict[str, Any] = {"live_t": t, "live_v": view.valid_at or t}
    if view.is_now():
        tests = now_tests(view)
    elif view.include_superseded:  # what `live` asks then: recorded, by trust
        tests = [*_recorded(view), _trusted(view), *(() if view.include_sensitive else (NORMAL,))]
    else:
        rest = [_trusted(view), *(() if view.include_sensitive else (NORMAL,))]
        return rest, live(view), None
    times = {spec.name for spec in fields(Memory) if spec.get("time")}
    timed = [test for test in tests if test.column in times]
    untimed = [test for test in tests if test.column not in times]
    return untimed, Clause(sql(timed), params), timed


def live(view: View, alias: str = "m") -> Clause:
    t = view.record_time()
    params: dict[str, Any] = {"live_t": t, "live_v": view.valid_at or t}
    if view.is_now():
        text = sql(now_tests(view), alias)
        if view.include_refuted:
            trusted = sql([_trusted(view)], alias)
            text = text.replace(trusted, f"({trusted} OR {refuted(alias)})", 1)
        return Clause(text, params)
    m = alias
    parts = [sql(_recorded(view), alias)]
    if not view.include_superseded:
        # At another time: a row counts if it was current belief at T. A
        # superseded row stays believed for the interval supersession closed
        # its validity to (A held from t0 until B took over at t1; a correction
        # closes it to nothing), and before it was superseded that interval
        # was still open. A superseded row with no closed interval (an old
        # import) and rejected or redacted rows never count after retirement.
        parts += [
            f"({m}.retired_at IS NULL OR {m}.retired_at > :live_t"
            f" OR ({m}.superseded_by IS NOT NULL AND {m}.valid_to IS NOT NULL))",
            f"{m}.valid_from <= :live_v",
            f"({m}.valid_to IS NULL OR {m}.valid_to > :live_v"
            f" OR ({m}.superseded_by IS NOT NULL AND {m}.retired_at > :live_t))",
        ]
    trusted = sql([_trusted(view)], alias)
    if not view.include_unreviewed:
        # A row an agent refuted after T was believed at T: its refutation,
        # waiting for a person, says when its trust changed.
        later = f"{REFUTED_SQL} AND created_at > :live_t"
        trusted = f"({trusted} OR ({m}.trust = 'disputed' AND {m}.id IN ({later})))"
    parts.append(trusted)
    if not view.include_sensitive:
        parts.append(sql([NORMAL], alias))
    return Clause(" AND ".join(parts), params)


# The rows an agent refuted while they were believed (`store/refutations.py`),
# written here so the SessionStart hook's brief loads no other module for them.
REFUTED_SQL = "SELECT memory_id FROM refutations WHERE was_trust = 'accepted'"


def refuted(alias: str = "m") -> str:
    """A disputed row an agent refuted while it was believed, a person not yet decided."""
    return f"({alias}.trust = 'disputed' AND {alias}.id IN ({REFUTED_SQL}))"


def check(view: View, params: Mapping[str, Any]) -> Check:
    """`live(view)` as a Python check of a memory, for a view of now; `params`
    are the clause's, so both read the same clock. Refuted rows need the
    store: a view that asks for them has no Python check."""
    if view.include_refuted:
        raise ValueError("a view with refuted rows is checked in SQL only")
    return python(now_tests(view), params)


def visible(
    identity: Identity, alias: str = "m", scope: str | None = None, *, whole_project: bool = False
) -> Clause:
    """The project's shared scopes plus the caller's own partitions; with
    `whole_project` (a person's recall, list, show and export), every partition."""
    m = alias
    params: dict[str, Any] = {"vis_project": identity.project}
    if whole_project:
        sql = f"{m}.project = :vis_project"
        if scope is not None:
            params["vis_scope"] = scope
            sql += f" AND {m}.scope = :vis_scope"
        return Clause(sql, params)
    shared = ", ".join(f"'{s}'" for s in SHARED_SCOPES)
    options = [f"{m}.scope IN ({shared})"]
    partitions = {
        "agent": ("agent_profile", identity.agent_profile),
        "workflow": ("workflow_id", identity.workflow_id),
        "session": ("session_id", identity.session_id),
    }
    for private_scope in PRIVATE_SCOPES:
        column, value = partitions[private_scope]
        if value:
            params[f"vis_{column}"] = value
            options.append(f"({m}.scope = '{private_scope}' AND {m}.{column} = :vis_{column})")
    sql = f"{m}.project = :vis_project AND ({' OR '.join(options)})"
    if scope is not None:
        params["vis_scope"] = scope
        sql += f" AND {m}.scope = :vis_scope"
    return Clause(sql, params)


def sees(db: Db, reader: Identity, memory_id: str) -> bool:
    """Whether `reader` may see the row `memory_id` (live or not), as an agent's
    `show` would: a row it may not see is "no memory"."""
    clause = visible(reader)
    sql = f"SELECT 1 FROM memories m WHERE m.id = :id AND {clause.sql}"
    return db.execute(sql, {**clause.params, "id": memory_id}).fetchone() is not None


def elsewhere(db: Db, identity: Identity, view: View) -> Any:
    """The rows of `identity`'s project live and shown by default in `view`
    in partitions `identity` does not read, as a cursor: a brief that shows
    a reader none says whether the others' partitions hold some (the caller
    reads until one the other store did not forget)."""
    seen, clause = visible(identity), live(view)
    sql = (
        f"SELECT * FROM memories m WHERE m.project = :vis_project AND NOT ({seen.sql})"
        f" AND {clause.sql}"
    )
    return db.execute(sql, {**seen.params, **clause.params})


def where(
    identity: Identity,
    view: View,
    alias: str = "m",
    scope: str | None = None,
    *,
    whole_project: bool = False,
) -> Clause:
    a = visible(identity, alias, scope, whole_project=whole_project)
    b = live(view, alias)
    return Clause(f"{a.sql} AND {b.sql}", {**a.params, **b.params})
