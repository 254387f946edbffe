"""Export to JSONL: the rows a caller may read, then the project's tombstones.

The rows are written as `Memory.to_dict` writes them, each with the person's
re-admission it travels with and the files it is anchored to; the
tombstones' reasons with what they quote of content forgotten since
withheld. `transfer/jsonl.py` imports what this writes; `transfer/original.py`
writes the same rows in the original Tree Ring's format.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from tree_ring.govern import reasons
from tree_ring.model.anchor import Anchor
from tree_ring.model.anchor_lines import FILES, files_of
from tree_ring.model.identity import Identity
from tree_ring.store import anchors, census, damage, listing, live, rows, tombstones
from tree_ring.store.db import Store
from tree_ring.store.live import View
from tree_ring.transfer import stone_lines
from tree_ring.write import readmit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.read.forgotten_here import ForgottenHere

# Rows read a batch at a time: their anchors, and the other store's forgets.
BATCH = 1_000


def export_rows(
    store: Store,
    project: str,
    view: View,
    *,
    agent: Identity | None = None,
    forgotten: ForgottenHere | None = None,
    left_out: list[str] | None = None,
    hidden: list[str] | None = None,
) -> Iterator[dict[str, Any]]:
    """The project's rows, then its tombstones; for an `agent`, only the rows
    its recall sees, and no tombstones: a tombstone names a forgotten memory
    and why, and may come from any partition. `forgotten`: what the other
    store a project reads forgot (`read/forgotten_here.py`); the rows that
    hold it are left out, as every read leaves them out. A row anchored to
    files names them as its team ledger line does (`files`: path, blob id,
    commit and time, in path order; only when it names any), so an import
    of the file anchors it again.

    A row the view admits (or would, were its times times) that holds a value
    edited outside Tree Ring an import would refuse, or no read can use, is
    not written: its key goes to `left_out`, sorted, once the rows are done
    (`store/damage.py`), so that a caller can say what the file lacks; the
    ids of the rows `forgotten` hides go to `hidden`."""
    # A file kept to restore from: a fact that holds only later is in it,
    # and, with the retired rows, one whose expiry passed (`View.all_times`).
    view = view.replace(all_times=True)
    reader = agent or Identity(project)
    scope = live.visible(reader, whole_project=agent is None)
    clause = live.where(reader, view, whole_project=agent is None)
    # A person's re-admission travels with its row (it names tombstone keys:
    # a person's export only, as the tombstones themselves).
    carried = readmit.carried(store.db, project) if agent is None else {}
    damaged = set(damage.bad_time_rows(store.db, scope, view))
    skipped = store.db.skipped
    found = listing.in_order(store.db, clause)
    if store.db.skipped > skipped:  # rows no read can use: named by a scan of their own
        damaged.update(damage.unreadable(store.db, scope, view))
    if forgotten is not None:
        kept = _kept(found, forgotten)
        if hidden is not None:
            shown = {row["id"] for row in kept}
            hidden += [row["id"] for row in found if row["id"] not in shown]
        found = kept
    files: dict[str, list[Anchor]] = {}
    for index, memory in enumerate(reasons.rows_shown(store.db, found)):
        if index % BATCH == 0:  # the anchors of the rows to come, a batch at a time
            files = anchors.of(store.db, [row["id"] for row in found[index : index + BATCH]])
        if not damage.sound(memory):  # compared as text, 'never' is after every time
            damaged.add(memory.id)
            continue
        data = memory.to_dict()
        if data["id"] in carried:
            data[readmit.CARRIED] = carried[data["id"]]
        if memory.id in files:
            # As its team ledger line carries them, and only when it has any.
            data[FILES] = files_of(files[memory.id])
        yield data
    if left_out is not None:
        left_out += sorted(damaged)
    if agent is not None:
        return
    withholding = reasons.Withholding(store.db)
    for stone in tombstones.of_project(store.db, project):
        # The person's reason for forgetting may quote what was forgotten.
        yield {"record": stone_lines.TOMBSTONE, **dict(stone)} | {
            "reason": withholding.reason(project, stone["reason"])
        }


def left_out_message(left_out: list[str]) -> str:
    """What an export says of the rows `export_rows` left out, in one line."""
    named = ", ".join(left_out[:10]) + (
        f" and {len(left_out) - 10} more" if len(left_out) > 10 else ""
    )
    return (
        f"export left out {len(left_out)} memory(ies) holding a value edited outside "
        f"Tree Ring that cannot be written as it is: {named}; "
        "`tree-ring doctor` names each value and what mends it (put a value of its kind "
        "back, or forget the row), then export again"
    )


def _kept(found: list[Any], forgotten: ForgottenHere) -> list[Any]:
    """The rows of `found` whose content `forgotten` does not hide, one
    lookup of their keys a batch at a time."""
    kept: list[Any] = []
    for start in range(0, len(found), BATCH):
        batch = found[start : start + BATCH]
        gone = forgotten.hidden([rows.from_row(row) for row in batch])
        kept += (row for row in batch if row["id"] not in gone)
    return kept


# What an export leaves out unless asked, each with the flag that adds it.
NARROWED = (
    ("sensitive", "--include-sensitive"),
    ("unreviewed", "--include-unreviewed"),
    ("retired", "--include-superseded"),
)
WHOLE = View(include_sensitive=True, include_unreviewed=True, include_superseded=True)


def narrowed(written: Iterable[dict[str, Any]], whole: Iterable[dict[str, Any]]) -> dict[str, int]:
    """How many memories of `whole` (an export under `WHOLE`) `written` (the
    same export under a narrower view) lacks, by why (each counted once, under
    the first of NARROWED that holds): what the file will not restore."""
    kept = {row.get("id") for row in written}
    counts: dict[str, int] = {}
    for row in whole:
        if "record" in row or row.get("id") in kept:
            continue
        if row.get("sensitivity", "normal") != "normal":
            why = "sensitive"
        elif row.get("trust") in ("pending", "disputed"):
            why = "unreviewed"
        else:
            why = "retired"
        counts[why] = counts.get(why, 0) + 1
    return counts


# What no export writes, each with why: a redacted row's placeholder (its
# words are gone; the file's tombstones keep them out), and a row the other
# store's forgets hide from every read here.
UNWRITTEN = (
    ("redacted", "their words are gone; the file's tombstones keep them out"),
    ("hidden", "your user store forgot their words, and every read here hides them"),
)


def redacted(store: Store, project: str, agent: Identity | None = None) -> int:
    """How many redacted rows of `project` the export's reader could read."""
    return census.redacted(
        store.db, live.visible(agent or Identity(project), whole_project=agent is None)
    )


def narrowed_message(counts: dict[str, int]) -> str:
    """One line naming what `narrowed` counted and the flags that add it,
    then what no export writes (`UNWRITTEN`)."""
    parts: list[str] = []
    said = [f"{counts[why]} {why}" for why, _ in NARROWED if counts.get(why)]
    if said:
        flags = " ".join(flag for why, flag in NARROWED if counts.get(why))
        parts.append(f"{', '.join(said)} (add {flags} to keep them in the file)")
    parts += [f"{counts[why]} {why} ({note})" for why, note in UNWRITTEN if counts.get(why)]
    return f"note: left out {'; '.join(parts)}"


def wrote(lines: int, path: object) -> str:
    """What writing an export's `lines` to `path` says."""
    return f"wrote {lines} line{'' if lines == 1 else 's'} to {path}"


# An export file holds what the store does (sensitive rows, when asked): its
# user's only, as the store is.
FILE_MODE = 0o600
