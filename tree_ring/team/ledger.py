"""The team ledger's text: its lines, their canonical form, and the merge rule.

`.tree-ring/ledger.jsonl` is committed with the code. Each line is one JSON
object in canonical form (sorted keys, compact, UTF-8), and the file is
sorted, so the same set of lines is always the same bytes:

- the header, first: ``{"record": "ledger", "schema": 1, "project": ...}``;
- one anchor per clone that synced: the audit chain head (``seq``, ``head``)
  that clone's log had at its last sync, so a truncated or rewritten log
  shows against the committed history;
- one line per memory id, by id: a shared memory (``"record": "memory"``,
  the export row), a redaction, or a tombstone (content hashes and a time,
  never text).

Two ledgers merge line by line: for each key the greater line under one
total order wins, whichever side it came from. A tombstone beats a
redaction beats a live row; between live rows the later validity, then the
later record time, then the greater canonical bytes. The merge is therefore
commutative, associative and idempotent, and the merge driver, the importer
(when a text merge left both sides' lines) and `doctor` all use this one
rule.

This module is the merge driver's whole dependency: the standard library
and `model.jsontext` only.
"""

from __future__ import annotations

from tree_ring.model import jsontext

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any

PATH = "ledger.jsonl"  # inside .tree-ring/
SCHEMA = 1
HEADER = "ledger"
ANCHOR = "anchor"
MEMORY = "memory"
REDACTION = "redaction"
TOMBSTONE = "tombstone"
ENTRY_RANK = {MEMORY: 1, REDACTION: 2, TOMBSTONE: 3}
RECORDS = frozenset((HEADER, ANCHOR, *ENTRY_RANK))
# Conflict markers a text merge leaves (with diff3's base section).
OURS, BASE, SPLIT, THEIRS = "<<<<<<<", "|||||||", "=======", ">>>>>>>"
MARKERS = (OURS, BASE, SPLIT, THEIRS)


def canonical(line: dict[str, Any]) -> str:
    return jsontext.canonical(line)


def key_of(line: dict[str, Any]) -> str:
    """Where a line sorts, and what it competes with in a merge."""
    record = line.get("record")
    if record == HEADER:
        return "0"
    if record == ANCHOR:
        return "1" + str(line.get("clone", ""))
    return "2" + str(line.get("id", ""))


def record_of(piece: bytes, records: frozenset[str] | dict[str, int]) -> tuple[str, str] | None:
    """A ledger line's key and record, when it is a JSON object whose record
    is one of `records`; None for any other line."""
    import json

    try:
        data: Any = json.loads(piece)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    line: dict[str, Any] = data  # pyright: ignore[reportUnknownVariableType]
    record = line.get("record")
    if not isinstance(record, str) or record not in records:
        return None
    return key_of(line), record


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def rank(line: dict[str, Any], text: str) -> tuple[Any, ...]:
    """The line's place in the total order among lines of its key."""
    record = line.get("record")
    if record == HEADER:
        schema = line.get("schema")
        return (schema if isinstance(schema, int) else 0, "", "", text)
    if record == ANCHOR:
        seq = line.get("seq")
        return (0, _text(line.get("at")), seq if isinstance(seq, int) else 0, text)
    kind = ENTRY_RANK.get(str(record), 0)
    if record == MEMORY:
        return (kind, _text(line.get("valid_from")), _text(line.get("updated_at")), text)
    at = _text(line.get("at"))
    return (kind, at, at, text)


class Line:
    """One parsed line: its object, its canonical text, its key and rank."""

    __slots__ = ("data", "key", "rank", "text")

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.text = canonical(data)
        self.key = key_of(data)
        self.rank = rank(data, self.text)


def merge(*sides: Iterable[Line]) -> dict[str, Line]:
    """The winning line of every key over all `sides`."""
    won: dict[str, Line] = {}
    for side in sides:
        for line in side:
            held = won.get(line.key)
            if held is None or line.rank > held.rank:
                won[line.key] = line
    return won


def render(lines: Iterable[Line]) -> str:
    """The file's bytes (as text) for a set of winning lines."""
    ordered = sorted(lines, key=_order)
    return "".join(line.text + "\n" for line in ordered)


def _order(line: Line) -> tuple[str, str]:
    return (line.key, line.text)


def foreign(raw: bytes) -> bool:
    """Whether a line that is not blank is one this version cannot read: not
    UTF-8, not a JSON object, or a record of a kind it does not know (a newer
    Tree Ring's). A sync reports it as skipped, and every rewrite of the
    ledger carries it through as it stands (`carry`): committed data is
    never deleted by a version that cannot read it."""
    try:
        data = jsontext.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return True
    if not isinstance(data, dict):
        return True
    record = data.get("record")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    return not isinstance(record, str) or record not in RECORDS


def carry(lines: Iterable[bytes]) -> bytes:
    """The lines a rewrite carries through, as they stood: after the lines it
    writes (a place that stays put when the file is written again), in the
    order they were read, each once."""
    kept: dict[bytes, None] = dict.fromkeys(lines)
    return b"".join(raw + b"\n" for raw in kept)


def has_markers(text: str) -> bool:
    return any(_marker(raw) for raw in text.splitlines())


def _marker(raw: str) -> str | None:
    for mark in MARKERS:
        if raw.startswith(mark) and (len(raw) == len(mark) or raw[len(mark)] == " "):
            return mark
    return None


def sides(text: str) -> tuple[list[tuple[int, str]], list[tuple[int, str]], int]:
    """The two sides a text merge left in `text`: (ours, theirs, conflicts),
    each side a list of (line number, line); lines outside the conflicts
    belong to both, a diff3 base section to neither."""
    ours: list[tuple[int, str]] = []
    theirs: list[tuple[int, str]] = []
    state = None  # None: outside; OURS, BASE or THEIRS: inside that section
    conflicts = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        mark = _marker(raw)
        if mark == OURS:
            state, conflicts = OURS, conflicts + 1
        elif mark == BASE and state == OURS:
            state = BASE
        elif mark == SPLIT and state in (OURS, BASE):
            state = THEIRS
        elif mark == THEIRS and state == THEIRS:
            state = None
        elif state is None:
            ours.append((number, raw))
            theirs.append((number, raw))
        elif state == OURS:
            ours.append((number, raw))
        elif state == THEIRS:
            theirs.append((number, raw))
    return ours, theirs, conflicts


def loose(numbered: Iterable[tuple[int, str]]) -> Iterator[Line]:
    """The lines that parse as JSON objects, the rest left out: what the
    merge driver can order. The importer checks every line properly."""
    for _, raw in numbered:
        if not raw.strip():
            continue
        try:
            data = jsontext.loads(raw)
        except (ValueError, RecursionError):
            continue
        if isinstance(data, dict):
            yield Line(data)  # pyright: ignore[reportUnknownArgumentType]


def numbered(text: str) -> list[tuple[int, str]]:
    return list(enumerate(text.splitlines(), start=1))


def merge_texts(*texts: str) -> str:
    """Merge whole ledger files (each may hold a text merge's conflicts)."""
    parts: list[Iterable[Line]] = []
    for text in texts:
        ours, theirs, _ = sides(text)
        parts += [loose(ours), loose(theirs)]
    return render(merge(*parts).values())


def merge_driver(argv: list[str]) -> int:
    """`merge-driver BASE OURS THEIRS [PATH]`, as git's `merge.tree-ring.driver`
    calls it: the merge of OURS and THEIRS, written over OURS. Git keeps the
    result only on exit 0; a line neither side can parse is dropped, as the
    importer would skip it."""
    if len(argv) < 3:
        print("usage: merge-driver BASE OURS THEIRS [PATH]", file=__import__("sys").stderr)
        return 2
    _, ours, theirs = argv[:3]
    try:
        with open(ours, encoding="utf-8") as handle:
            ours_text = handle.read()
        with open(theirs, encoding="utf-8") as handle:
            theirs_text = handle.read()
        merged = merge_texts(ours_text, theirs_text)
        with open(ours, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(merged)
    except (OSError, UnicodeDecodeError) as exc:
        print(f"tree-ring merge driver: {exc}", file=__import__("sys").stderr)
        return 1
    return 0
