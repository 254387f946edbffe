"""What the store says as team ledger lines: one line per id it shares.

`sync.py` writes the ledger from these lines and reads a ledger line the store
itself would write as the store's own. The SessionStart hook's pass over a
changed ledger (`ledger_delta.py`) asks for the lines of a few ids only, so
this module stays light: no `re`, `json`, `typing` or `dataclasses`.
"""

from __future__ import annotations

from tree_ring.model import jsontext
from tree_ring.model.anchor_lines import files_of
from tree_ring.model.record import PRIVATE_SCOPES, Memory
from tree_ring.store import anchors, audit, ledger_rows, rows
from tree_ring.team import ledger
from tree_ring.team.ledger import Line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any

    from tree_ring.model.anchor import Anchor
    from tree_ring.store.sql import Db
    from tree_ring.write.carried import Withheld

    # What the store holds of a forgotten id: its content tombstones' hashes,
    # the latest of their times, their kind, when the id was marked redacted
    # (None: it was not, so the memory was deleted or rejected), and the
    # earliest of their times.
    Stones = tuple[list[str], str, str, str | None, str]

CARRIED = "readmitted"  # readmit.CARRIED: the key a ledger line carries a re-admission under
# The key a memory's line carries the files it is about under: each file's
# path relative to the project root and its content's blob id (with the
# commit checked out and the time it was anchored), never its size or time,
# which are this clone's alone. A teammate's clone judges them against its
# own checkout, by hash (`model/anchor_lines.py`, which an export row's
# files share).
FILES = ledger.FILES
_ID_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")


def is_memory_id(text: str) -> bool:
    """`mem_` and 1 to 120 of [A-Za-z0-9_.-] (sync's `_ID`), without `re`."""
    rest = text[4:]
    return text.startswith("mem_") and 1 <= len(rest) <= 120 and _ID_CHARS.issuperset(rest)


def memory_line(
    memory: Memory,
    readmitted: dict[str, Any] | None = None,
    files: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A memory's ledger line; with the person's re-admission it was written
    over tombstones by, which travels with it (`readmit.py`), and the files
    it is about (`anchor_lines.files_of`), when it names any."""
    line = {"record": ledger.MEMORY, **memory.to_dict()}
    if readmitted is not None:
        line[CARRIED] = readmitted
    if files:
        line[FILES] = files
    return line


def _stones_by_id(db: Db, project_id: str, ids: list[str] | None = None) -> dict[str, Stones]:
    """Memory id -> what the store holds of it as forgotten (`Stones`)."""
    found: dict[str, Stones] = {}
    for memory_id, content_hash, at, kind, redacted in ledger_rows.tombstones(db, project_id, ids):
        hashes, latest, held, _, first = found.get(memory_id, ([], "", "forgotten", None, at))
        hashes.append(content_hash)
        kind = "rejected" if kind == "rejected" else held
        found[memory_id] = (hashes, max(latest, at), kind, redacted, min(first, at))
    return found


def _claimed(db: Db, project_id: str, ids: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """Memory id -> what each refuted row said before an agent's refutation,
    for the rows it left exactly as it made them: the row's own fields, with
    the trust, review reason and time the refutation replaced."""
    found: dict[str, dict[str, Any]] = {}
    for memory_id, was_trust, at, detail in ledger_rows.refuted(db, project_id, ids):
        said: Any = jsontext.loads(detail) if detail else None
        was: Any = said.get("was") if isinstance(said, dict) else None  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        found[memory_id] = {"trust": was_trust, "at": at, "was": was}
    return found


def shared_row(memory: Memory, claimed: dict[str, Any] | None) -> Memory:
    """The row as the team ledger says it: an agent's refutation is a claim
    that waits for a person, so until they decide, a row it left as it made it
    is said as it was before (the refutation changed only its trust, review
    reason and time). A refutation from before its entry kept those says the
    trust alone. A row changed since (a person's act) is said as it is, but
    a retirement (a person's supersede or retire of the disputed row): it
    is said retired, as it would be had no agent refuted it, so every clone
    retires it too (said as it is, disputed, it would be no line at all)."""
    if claimed is None or memory.trust != "disputed":
        return memory
    retired = memory.retired_at is not None or memory.superseded_by is not None
    if memory.updated_at != claimed["at"] and not retired:
        return memory
    was: Any = claimed["was"]
    if not isinstance(was, dict):
        return memory.replace(trust=claimed["trust"], review_reason=None)
    said: dict[str, Any] = was  # pyright: ignore[reportUnknownVariableType]
    if memory.updated_at != claimed["at"]:
        return memory.replace(trust=claimed["trust"], review_reason=said.get("review_reason"))
    return memory.replace(
        trust=claimed["trust"],
        review_reason=said.get("review_reason"),
        updated_at=said.get("updated_at") or memory.updated_at,
    )


def state_line(
    memory_id: str,
    memory: Memory | None,
    stones: Stones | None,
    readmitted: dict[str, Any] | None = None,
    files: list[Anchor] | None = None,
    kept: tuple[str, str] | None = None,
    forgotten: Callable[[], Withheld | None] | None = None,
) -> Line | None:
    """What the store says of one id, as a ledger line, or None for nothing shared.

    `forgotten` gives what the store forgot (`_Held.forgotten`), withheld
    from a memory line's carried strings (`ledger.withhold_line`) before
    the line is compared with the one kept for its id.

    `kept` is the line the store took for the id with fields a newer Tree
    Ring added, and the line it wrote without them (`ledger_rows.kept_lines`):
    while the store still says that second line, it says the first, fields
    and all. A change this clone made says another line, without them.

    A redaction is the id marked redacted beside its content tombstones,
    whether or not the store holds the placeholder row: a clone that took the
    redaction from the ledger without ever holding the memory says it back as
    a redaction (`ledger_stones.py`), never as a tombstone, which would delete
    the placeholder on every clone that keeps one.

    A row under an id that also has tombstones says the tombstone, but for
    the one row that stands where its own id's tombstones were recorded: a
    consolidation rewritten when one of its sources was forgotten, whose old
    text is tombstoned under its id (`_rewritten`). Any other row holding a
    forgotten id took it after the forget, and the forget must still reach
    every clone."""
    if stones is not None and memory is not None and memory.redacted_at is None:
        if not _rewritten(memory, stones):
            memory = None
    if memory is None or memory.trust == "rejected":
        if stones is None:
            return None
        hashes, at, kind, redacted, _ = stones
        if memory is None and redacted is not None:
            return _as_kept(_redaction(memory_id, at, hashes), kept)
        return _as_kept(
            Line(
                {
                    "record": ledger.TOMBSTONE,
                    "id": memory_id,
                    "at": at,
                    "hashes": hashes,
                    "kind": kind,
                }
            ),
            kept,
        )
    if memory.scope in PRIVATE_SCOPES:
        return None
    if memory.redacted_at is not None:
        # Dated as its tombstones are: the later of two clones' redactions of
        # one memory, once each took the other's line (`tombstones.record_absent`).
        at = stones[1] if stones else memory.redacted_at
        return _as_kept(_redaction(memory.id, at, stones[0] if stones else []), kept)
    if memory.trust != "accepted" or memory.sensitivity != "normal":
        return None
    line = Line(memory_line(memory, readmitted, files_of(files or ())))
    withheld = forgotten() if forgotten is not None else None
    if withheld is not None:
        line = ledger.withhold_line(line, withheld)
    return _as_kept(line, kept)


def _as_kept(line: Line, kept: tuple[str, str] | None) -> Line:
    """`line`, or the line kept for its id when `line` is what that was kept beside."""
    return line.keeping(kept[0]) if kept is not None and kept[1] == line.text else line


def _rewritten(memory: Memory, stones: Stones) -> bool:
    """Whether `memory` is a consolidation that stood before every tombstone
    of its id: its text was rewritten in place when a source was forgotten."""
    return memory.source_type == "consolidation" and memory.created_at < stones[4]


def _redaction(memory_id: str, at: str, hashes: list[str]) -> Line:
    return Line({"record": ledger.REDACTION, "id": memory_id, "at": at, "hashes": hashes})


def forgotten(db: Db, project_id: str) -> Withheld | None:
    """What the store forgot, as a line's carried strings are withheld by,
    read at once for the whole ledger; None when it forgot nothing."""
    keys = ledger_rows.forgotten_keys(db, project_id)
    if not keys:
        return None
    from tree_ring.write.carried import Withheld

    return Withheld(keys)


class _Held:
    """What the store holds beside its rows that a line says, read once for
    the lines of `wanted` ids (None: of every id the project shares)."""

    def __init__(self, db: Db, project_id: str, wanted: list[str] | None = None) -> None:
        self.stones = _stones_by_id(db, project_id, wanted)
        self.claimed = _claimed(db, project_id, wanted)
        self.readmitted = audit.readmissions(db, wanted)
        self.files = (
            anchors.of_project(db, project_id) if wanted is None else anchors.of(db, wanted)
        )
        self.kept = ledger_rows.kept_lines(db, project_id, wanted)
        self._db, self._project, self._wanted = db, project_id, wanted
        self._asked = False
        self._forgotten: Withheld | None = None

    def forgotten(self) -> Withheld | None:
        """What the store forgot, as a line's carried strings are withheld by
        (`write/carried.Withheld`: each distinct string keyed once, against
        every key the store's own tombstones hold, read at once for the
        whole ledger, or asked of the store string by string for the lines
        of a few ids), or None when it forgot nothing. Asked at the first
        line that needs it: only then the write modules (and `re`) load.

        A forget withholds its words from what the rows carry
        (`write/carried.withhold`), and a reason quoting words forgotten
        before it is refused (`reasons.kept`); this is the last hold, so no
        line the store writes carries words it forgot, however its row came
        to hold them (a row stored by an older Tree Ring)."""
        if self._asked:
            return self._forgotten
        self._asked = True
        db, project = self._db, self._project
        if self._wanted is None:
            self._forgotten = forgotten(db, project)
        elif ledger_rows.forgets(db, project):
            from tree_ring.store import tombstones
            from tree_ring.write.carried import Withheld

            self._forgotten = Withheld(held=lambda keys: tombstones.held(db, project, keys))
        return self._forgotten

    def row_line(self, memory: Memory) -> Line | None:
        """The line of a stored row, as the team ledger says it."""
        memory = shared_row(memory, self.claimed.get(memory.id))
        return state_line(
            memory.id,
            memory,
            self.stones.get(memory.id),
            self.readmitted.get(memory.id),
            self.files.get(memory.id),
            self.kept.get(memory.id),
            self.forgotten,
        )

    def gone_line(self, memory_id: str) -> Line | None:
        """The line of an id with no row, from its tombstones; none for a
        tombstone's id that is no memory's."""
        if not is_memory_id(memory_id):
            return None
        return state_line(
            memory_id, None, self.stones.get(memory_id), kept=self.kept.get(memory_id)
        )


def store_lines(db: Db, project_id: str, ids: Iterable[str] | None = None) -> dict[str, Line]:
    """Every id the store shares, as ledger lines by key; with `ids`, those ids only."""
    wanted = None if ids is None else sorted(set(ids))
    held = _Held(db, project_id, wanted)
    out: dict[str, Line] = {}
    seen: set[str] = set()
    for row in ledger_rows.memories(db, project_id, wanted):
        memory = rows.from_row(row)
        seen.add(memory.id)
        line = held.row_line(memory)
        if line is not None:
            out[line.key] = line
    for memory_id in held.stones:
        if memory_id in seen:
            continue
        line = held.gone_line(memory_id)
        if line is not None:
            out[line.key] = line
    return out


def stream_lines(db: Db, project_id: str) -> Iterator[Line]:
    """`store_lines`, one at a time in the ledger's key order: what a merge
    a line at a time (`ledger_stream.py`) reads, without holding the store."""
    held = _Held(db, project_id)
    for row in ledger_rows.shared(db, project_id):
        hit = row["hit"]
        line = held.gone_line(hit) if row["id"] is None else held.row_line(rows.from_row(row))
        if line is not None:
            yield line
