"""The memories whose stored values were edited outside Tree Ring (the
sqlite3 shell) so that an import of them would refuse them: Tree Ring writes
none, and `doctor` names each with its columns (check `fields`).

A time is judged as an import reads it (`parse_time`). Every read compares
the times that decide whether a row is live as text, so a row whose time is
a word is hidden from every read ('yesterday' sorts after every time), or
outlives its end ('never').
"""

from __future__ import annotations

import re

from tree_ring.model.errors import UsageError
from tree_ring.model.frozen import fields
from tree_ring.model.record import Memory, epoch_seconds, parse_time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

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


def bad_times(row: Any) -> list[str]:
    """The columns of `TIMES` whose value in `row` is no time an import takes."""
    return [name for name in TIMES if not is_time(row[name])]
