"""The memories an export cannot write as they are stored: a value edited
outside Tree Ring (the sqlite3 shell) that an import of the file would refuse,
or that every read skips. Tree Ring writes none of them; `doctor` names each
with its columns (checks `text` and `fields`), and an export names the ones it
leaves out rather than leave them out in silence (`transfer/export.py`).

A time is judged as an import reads it (`parse_time`). Every read compares
the times that decide whether a row is live as text, so a row whose time is
a word is hidden from an export's query ('yesterday' sorts after every
time), or passes it and would be written as it stands ('never'):
`bad_time_rows` finds the first kind, and `sound` judges the second as the
export reads it. A row holding text that is not UTF-8, or a list or number
no reader can use, is skipped by every read (`sql.READABLE`), an export's
too: `unreadable` finds those. Each scan finds the rows the export's view
would admit were their damaged values sound, a batch at a time, holding
only the keys of the damaged ones.
"""

from __future__ import annotations

import re
from operator import attrgetter
from types import SimpleNamespace
from typing import cast

from tree_ring.model.errors import UsageError
from tree_ring.model.frozen import fields
from tree_ring.model.record import Memory, epoch_seconds, parse_time
from tree_ring.model.validation import validate
from tree_ring.store import live
from tree_ring.store.sql import Undecodable, unreadable_fields

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tree_ring.store.live import Clause, View
    from tree_ring.store.sql import Db

# Every time a memory holds: an import reads each with `parse_time`.
TIMES = tuple(spec.name for spec in fields(Memory) if spec.get("time"))


def is_time(value: object) -> bool:
    """Whether a stored time is one an import of it takes: none, the stored
    form (judged without datetime), or another form `parse_time` reads."""
    if value is None:
        return True
    if type(value) is not str:  # a number, a blob, text that is not UTF-8
        return False
    # Nearly every time: the stored form, a day every month has.
    if _STORED.match(value) and (value[8:10] < "29" or epoch_seconds(value) is not None):
        return True
    try:
        parse_time(value)
    except UsageError:
        return False
    return True


_STORED = re.compile(
    r"(?!0000)\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])"
    r"T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{6}Z\Z",
    re.ASCII,
)
_TIMES_OF = attrgetter(*TIMES)


def sound(memory: Memory) -> bool:
    """Whether an import takes a memory read from its row: every time it
    holds is a time, and every other field passes the checks every write
    makes (`validation.validate`: a ring of no name, a confidence of 5, a
    blank summary are hand edits)."""
    if not all(map(is_time, _TIMES_OF(memory))):
        return False
    try:
        validate(memory)
    except UsageError:
        return False
    return True


def bad_times(row: Any) -> list[str]:
    """The columns of `TIMES` whose value in `row` is no time an import takes."""
    return [name for name in TIMES if not is_time(row[name])]


def key(row: Any) -> str:
    """A row's id, or `rowid N` when its id is not text (not UTF-8)."""
    found = row["id"]
    return found if type(found) is str else f"rowid {row['rowid']}"


class _Scan:
    """A scan of `scope` (`live.visible`) for the damaged rows `view` admits,
    or would were their damaged times times: the view's tests of no time
    hold, and so does each of its tests of a time (`live.by_time`) whose
    column holds one."""

    def __init__(self, scope: Clause, view: View) -> None:
        untimed, timed, self.tests = live.by_time(view)
        self.where = f"{scope.sql} AND {live.sql(untimed)}"
        self.timed_sql = f"coalesce({timed.sql}, 0)"
        self.params = timed.params
        self.scope_params = scope.params

    def bound(self) -> dict[str, Any]:
        return {**self.scope_params, **self.params}

    def admitted(self, row: Any, bad: list[str]) -> bool:
        """Whether the view would take `row` (which fails a test of a time
        or holds a bad one) were the times `bad` names times; for a view of
        the past, whose tests of time are not declared, whenever one is bad."""
        if not bad or self.tests is None:
            return bool(bad)
        kept = [test for test in self.tests if test.column not in bad]
        times = SimpleNamespace(**{name: row[name] for name in TIMES})
        return live.python(kept, self.params)(cast("Memory", times))


def bad_time_rows(db: Db, scope: Clause, view: View) -> list[str]:
    """The rows `view` leaves out only by a test of a time that is no time:
    a test of their times fails, and would not were those times times. (A
    row its tests let through is judged as the export reads it: `sound`.)"""
    scan = _Scan(scope, view)
    sql = (
        f'SELECT m.rowid AS "rowid", m.id, {", ".join(f"m.{name}" for name in TIMES)} '
        f"FROM memories m WHERE {scan.where} AND NOT {scan.timed_sql}"
    )

    def pick(description: Any, row: Any) -> str | None:
        if all(map(is_time, row[2:])):  # nearly every row: legitimately left out
            return None
        return key(row) if scan.admitted(row, bad_times(row)) else None

    return db.sift(sql, scan.bound(), pick)


def unreadable(db: Db, scope: Clause, view: View) -> list[str]:
    """The rows holding text that is not UTF-8, or a list or number no
    reader can use, that `view` admits (or would, were their times times)."""
    scan = _Scan(scope, view)
    sql = (
        f'SELECT m.rowid AS "rowid", m.*, {scan.timed_sql} AS "in_time" '
        f"FROM memories m WHERE {scan.where}"
    )

    def pick(description: Any, row: Any) -> str | None:
        damaged = any(type(value) is Undecodable for value in row) or unreadable_fields(
            description, row
        )
        if not damaged:
            return None
        return key(row) if row["in_time"] or scan.admitted(row, bad_times(row)) else None

    return db.sift(sql, scan.bound(), pick)
