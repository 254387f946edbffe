"""A row a read names, as that read may print it: sensitive text withheld unless asked.

A read that lists rows (recall, list, export, the brief) leaves a sensitive row
out in SQL: `store/live.py`'s NORMAL test, dropped when the view includes
sensitive rows. A read that already holds a row it must answer about (`show
ID`, the review queue, a consolidation's preview, audit findings) cannot leave
it out, so it prints the row with its text withheld: the same test, run on the
row in hand (`live.shows_text`). Its id, ring, scope, trust, sensitivity and
times stay, so a person can act on it; the text comes with `--include-sensitive`
(or the viewer's "show sensitive" toggle).
"""

from __future__ import annotations

from tree_ring.store import live

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.model.record import Memory
    from tree_ring.store.live import View

HINT = "--include-sensitive shows it"


def hidden(memory: Memory, view: View) -> bool:
    """Whether a read under `view` withholds this row's text. A redacted row
    has none left to withhold."""
    return memory.redacted_at is None and not live.shows_text(view, memory)


def marker(memory: Memory) -> str:
    """What stands for a withheld row's summary: its sensitivity, `[health]`."""
    return f"[{memory.sensitivity}]"


def summary(memory: Memory, view: View) -> str:
    """The row's summary, or its marker when the read withholds its text."""
    return marker(memory) if hidden(memory, view) else memory.summary


def shown(memory: Memory, view: View) -> Memory:
    """The row as a read under `view` may print it: itself, or with every field
    that holds its words emptied, the review reason too (a refutation's or a
    reviewer's words about it). Its content hash stays, as the audit log shows it."""
    if not hidden(memory, view):
        return memory
    return memory.replace(
        summary=marker(memory),
        details="",
        source_ref="",
        source_quote="",
        tags=(),
        review_reason=None if memory.review_reason is None else marker(memory),
    )


def forgotten(memory: Memory) -> Memory:
    """A row a read must still name (a waiting row a person decides on)
    whose content the other store a project reads forgot: every field that
    holds its words stands for `[withheld: forgotten content]`, as a reason
    quoting forgotten words does (`govern/reasons.FORGOTTEN`). Its id, ring,
    trust and times stay, so a person can still reject it."""
    from tree_ring.govern.reasons import FORGOTTEN

    return memory.replace(
        summary=FORGOTTEN,
        details="",
        source_ref="",
        source_quote="",
        tags=(),
        review_reason=None if memory.review_reason is None else FORGOTTEN,
    )


def left_out(count: int) -> str:
    """The line under a list's count that says how many of its rows it left out
    as sensitive, and how to list them."""
    return f"{count} of them sensitive, withheld: --include-sensitive lists them"


def note(memory: Memory) -> str:
    """The line that says a row's text was withheld, and how to see it."""
    return f"text withheld (sensitivity {memory.sensitivity}): {HINT}"
