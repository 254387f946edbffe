"""The one exception family Tree Ring raises.

Every failure a user can act on has its own subclass, and every message says
what to do next. The CLI turns these into `error: ...` and an exit code in one
place; the hook adapter turns them into a diagnostic on stderr and exit 0.
"""

from __future__ import annotations


class TreeRingError(Exception):
    """Base class: a failure with a message a person can act on."""

    exit_code = 1


class UsageError(TreeRingError):
    """Bad input: an unknown value, a blank field, a malformed line."""

    exit_code = 2


class SecretRefused(UsageError):
    """The guard found secret-like content; the value is never echoed."""

    def __init__(self, rule: str, field: str) -> None:
        super().__init__(
            f"refused: {field} looks like a secret (rule {rule}); "
            "remove the secret and store a description of it instead"
        )
        self.rule = rule
        self.field = field


class TimeOutOfRange(UsageError):
    """A time, or a time counted from now, outside the years 0001-9999 (UTC):
    no stored time, and no datetime, can hold it."""


class NoStore(TreeRingError):
    """No `.tree-ring/` store where one was expected."""


class UnsafePath(TreeRingError):
    """Something in `.tree-ring/` is a link, or not the kind of file it should be."""


class ProjectMismatch(UnsafePath):
    """`.tree-ring/project.json` names another project than the one the store belongs to."""


class SchemaTooNew(TreeRingError):
    """The store was written by a newer Tree Ring."""


class StoreBusy(TreeRingError):
    """The store stayed locked past the retry budget."""


class StoreFault(TreeRingError):
    """The database file is unreadable, read-only, full or corrupt."""

    # SQLite's own words, for `doctor` to report; never the message shown.
    detail: str = ""


class Conflict(TreeRingError):
    """A write that collides with what is stored (operation id, tombstone)."""


class NotFound(TreeRingError):
    """No memory with that id."""


class Denied(TreeRingError):
    """The write policy refuses this action for this caller."""
