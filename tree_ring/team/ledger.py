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
later record time, then the later re-admission, then the line whose
carried strings (a review or re-admission reason, an origin session, a link
target: `carried`) withhold more forgotten words (a clone that forgot them
since withholds them in its line: a merge with a teammate's older line keeps
them withheld), then the longer canonical text, then the greater bytes
(so a line with fields a newer Tree Ring added beats the same line without
them: `ledger_read.py` keeps such a line as it came). The merge is therefore
commutative, associative and idempotent, and the merge driver, the importer
(when a text merge left both sides' lines) and `doctor` all use this one
rule. A merge of files (the driver, `doctor --repair`) then withholds from
each kept memory line's carried strings what the kept tombstones forgot
(`withhold_carried`), as a clone that took them writes the line; between
versions of rows as clones write them, that keeps the laws.

A line of a record this version does not know (a newer Tree Ring's) is no
key's: it is carried through every rewrite and merge as it stands, once,
after the lines written (`carries`), when the guard finds nothing in it. A
field a newer Tree Ring added to a line of a record this version knows stays
in the line here (the merge reads whole lines); a sync keeps it too
(`ledger_read.py`).

This module is the merge driver's whole dependency: the standard library
and `model.jsontext`; the guard only for a line of a record it does not know,
and the claim keys of `govern/reasons.py` only for a re-admission reason
where the files hold a tombstone (each imported then).
"""

from __future__ import annotations

from tree_ring.model import jsontext, line_bound, project
from tree_ring.model.text import WITHHELD_FORGOTTEN, WITHHELD_ID

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any

    from tree_ring.team.ledger_verdicts import Verdicts
    from tree_ring.write.carried import Withheld

PATH = "ledger.jsonl"  # inside .tree-ring/
SCHEMA = project.LEDGER_SCHEMA
HEADER = "ledger"
ANCHOR = "anchor"
MEMORY = "memory"
REDACTION = "redaction"
TOMBSTONE = "tombstone"
ENTRY_RANK = {MEMORY: 1, REDACTION: 2, TOMBSTONE: 3}
RECORDS = frozenset((HEADER, ANCHOR, *ENTRY_RANK))
MAX_LINE_BYTES = line_bound.MAX_LINE_BYTES  # a longer line is skipped, never checked nor carried
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
    is one of `records`; None for any other line (one that holds a lone
    surrogate too: `jsontext.loads_utf8`)."""
    try:
        data: Any = jsontext.loads_utf8(piece.decode("utf-8"))
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
    """The line's place in the total order among lines of its key. A tie
    goes to the longer text, then the greater: a line a newer Tree Ring
    wrote with fields added (longer by them) beats the same line without
    them, whichever version merges the two (`Line.keeping`)."""
    record = line.get("record")
    if record == HEADER:
        schema = line.get("schema")
        return (schema if isinstance(schema, int) else 0, "", "", len(text), text)
    if record == ANCHOR:
        seq = line.get("seq")
        return (0, _text(line.get("at")), seq if isinstance(seq, int) else 0, len(text), text)
    kind = ENTRY_RANK.get(str(record), 0)
    if record == MEMORY:
        valid, updated = _text(line.get("valid_from")), _text(line.get("updated_at"))
        readmitted = line.get("readmitted")
        again = ""
        if isinstance(readmitted, dict):
            again = _text(readmitted.get("at"))  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
        withheld = 0
        if WITHHELD_FORGOTTEN in text or WITHHELD_ID in text:  # most lines: neither
            withheld = sum(
                said.count(WITHHELD_FORGOTTEN) + (said == WITHHELD_ID) for _, said in carried(line)
            )
        return (kind, valid, updated, again, withheld, len(text), text)
    at = _text(line.get("at"))
    return (kind, at, at, len(text), text)


class Line:
    """One parsed line: its object, its canonical text, its key and rank.
    `plain` is the text this version renders from the object; `text` is the
    same but for a line kept with fields only a newer Tree Ring reads
    (`keeping`), which the object leaves out."""

    __slots__ = ("data", "key", "plain", "rank", "text")

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.text = self.plain = canonical(data)
        self.key = key_of(data)
        self.rank = rank(data, self.text)

    def keeping(self, text: str) -> Line:
        """This line as `text`: the same line with a newer Tree Ring's fields
        added, in canonical form. Its rank is that text's, as the merge
        driver, reading the whole line, ranks it."""
        kept = Line.__new__(Line)
        kept.data, kept.key, kept.plain, kept.text = self.data, self.key, self.plain, text
        kept.rank = rank(self.data, text)
        return kept


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


def unknown_record(data: Any) -> str | None:
    """The record `data` names when it is a JSON object whose record is a
    string this version does not know (a newer Tree Ring's); else None."""
    if not isinstance(data, dict):
        return None
    record = data.get("record")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    return record if isinstance(record, str) and record not in RECORDS else None


# How much of an unknown record the guard reads whole (every string joined,
# and glued from each string's start): a record past either bound is not read
# whole, so it is not carried. A newer Tree Ring's record is a memory's size
# (a summary and details of 40,000 characters at most, a few dozen fields);
# the bounds keep what a hostile line costs every reader of the ledger, a
# SessionStart hook's import included, to about a quarter of a second of the
# guard (200 strings of 240 characters: 0.25 s of CPU).
MOST_STRINGS = 200
MOST_STRING_CHARS = 48_000
# Characters glued on from a string's start: a token's length and more.
_GLUE = 512


def withheld(text: str, data: Any) -> str | None:
    """Why a line of an unknown record (`text`, parsed as `data`) is not
    carried, or None when it is. The guard reads it as it reads a memory's
    line: the line's text, each string in it (keys and values, decoded, so
    an escape hides nothing), each value read with the next, spaced and
    glued, and the whole record: all its keys and values in the order the
    line writes them, spaced (a key name and its value, a sentence over
    several strings) and glued (a token split over two strings or more, or
    around another), read glued from each string's start as well, so a
    token that starts a string is read at a word's start. Each reading is a
    field named by place, never by value. A record past `MOST_STRINGS`
    strings or `MOST_STRING_CHARS` characters of them is not read whole and
    not carried.
    A secret is named by its rule; other sensitive content by its category,
    as a memory line holding it is refused."""
    from itertools import pairwise

    from tree_ring import guard
    from tree_ring.model.errors import SecretRefused

    strings = list(jsontext.every_string(data))
    past = _past_bounds(strings)
    if past is not None:
        return past
    fields = {"line": text}
    for number, value in enumerate(strings, start=1):
        fields[f"string {number}"] = value
    # A secret split between strings reads whole across them, as across a
    # memory's fields: a key name in one and its value in the next, or two
    # halves of a token; values apart from keys too, as the keys between
    # them would lengthen a token of a fixed length.
    values = list(jsontext.every_string(data, keys=False))
    for number, (first, second) in enumerate(pairwise(values), start=1):
        fields[f"values {number} and {number + 1}"] = f"{first} {second}"
    fields.update(_whole(strings, "strings"))
    fields.update(_whole(values, "values"))
    try:
        found = guard.check_fields(fields)
    except SecretRefused as exc:
        return f"holds what looks like a secret (rule {exc.rule}, in its {exc.field})"
    return None if found == "normal" else f"holds {found} content"


def past_bounds(data: Any) -> str | None:
    """Why the guard does not read `data` whole (`withheld`): more strings,
    or characters of them, than it reads; None when it does."""
    return _past_bounds(list(jsontext.every_string(data)))


def _past_bounds(strings: list[str]) -> str | None:
    size = sum(map(len, strings))
    if len(strings) > MOST_STRINGS or size > MOST_STRING_CHARS:
        return (
            f"holds {len(strings):,} strings of {size:,} characters, more than the guard "
            f"reads whole ({MOST_STRINGS:,} strings, {MOST_STRING_CHARS:,} characters)"
        )
    return None


def _whole(strings: list[str], name: str) -> dict[str, str]:
    """The record's strings read whole, as fields named by place: all of
    them spaced and glued, and glued from each string's start up to `_GLUE`
    characters. In the whole glue a string's start follows the previous
    string's end, so a token there is at no word's start; the glue from that
    string reads it at one. Bounded by `_GLUE` characters a string."""
    count = len(strings)
    fields = {f"all its {name}": " ".join(strings), f"all its {name} glued": "".join(strings)}
    for start in range(count - 1):
        glued = strings[start]
        stop = start
        while len(glued) < _GLUE and stop + 1 < count:
            stop += 1
            glued += strings[stop]
        if stop > start:
            fields[f"{name} {start + 1} to {stop + 1} glued"] = glued[:_GLUE]
    return fields


def carries(raw: bytes, verdicts: Verdicts | None = None) -> bool:
    """Whether a rewrite or merge of the ledger carries `raw` through as it
    stands: a UTF-8 JSON object of at most MAX_LINE_BYTES whose record is a
    string this version does not know, in which the guard finds nothing
    (`withheld`). Such a line is never read as any record this version
    knows. Any other line this version cannot read (not UTF-8, not JSON, not
    an object, holding a lone surrogate, giving a key twice, oversized,
    secret-bearing) is
    dropped by the rewrite, as a sync skips it. `verdicts`: the guard's
    verdicts kept from earlier reads (`ledger_verdicts.py`), so a line it
    read before is not read again."""
    if len(raw) > MAX_LINE_BYTES:
        return False
    try:
        text = raw.decode("utf-8")
        data = jsontext.loads_utf8(text)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return False
    if unknown_record(data) is None or jsontext.gives_a_key_twice(text):
        # A key given twice: only its last value is read, and the first would be carried.
        return False
    if verdicts is None:
        return withheld(text, data) is None
    return verdicts.of(text, lambda: withheld(text, data), data) is None


def carry(lines: Iterable[bytes]) -> bytes:
    """The lines a rewrite carries through (each one `carries`), as they
    stood: after the lines it writes (a place that stays put when the file
    is written again), in the order they were read, each once."""
    kept: dict[bytes, None] = dict.fromkeys(lines)
    return b"".join(raw + b"\n" for raw in kept)


def has_markers(text: str) -> bool:
    """Whether `text` holds a conflict a text merge left: a line that opens
    one. A marker of another kind on its own (a stray `=======`) opens none,
    and is read as any line that is no ledger line is."""
    return any(_marker(raw) == OURS for raw in text.splitlines())


def _marker(raw: str) -> str | None:
    for mark in MARKERS:
        if raw.startswith(mark) and (len(raw) == len(mark) or raw[len(mark)] == " "):
            return mark
    return None


def sides(text: str | list[str]) -> tuple[list[tuple[int, str]], list[tuple[int, str]], int]:
    """The two sides a text merge left in `text` (or in its lines): (ours,
    theirs, conflicts), each side a list of (line number, line); lines
    outside the conflicts belong to both, a diff3 base section to neither."""
    ours: list[tuple[int, str]] = []
    theirs: list[tuple[int, str]] = []
    state = None  # None: outside; OURS, BASE or THEIRS: inside that section
    conflicts = 0
    lines = text.splitlines() if isinstance(text, str) else text
    for number, raw in enumerate(lines, start=1):
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
    """The lines that parse as JSON objects of a record this version knows,
    the rest left out: what the merge driver can order. The importer checks
    every line properly; a line of another record is never taken for one
    of these (`carried_lines` keeps it as it stands)."""
    for _, raw in numbered:
        if not raw.strip():
            continue
        try:
            data = jsontext.loads_utf8(raw)
        except (ValueError, RecursionError):
            continue
        if not isinstance(data, dict):
            continue
        record = data.get("record")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        if isinstance(record, str) and record in RECORDS:
            yield Line(data)  # pyright: ignore[reportUnknownArgumentType]


def carried_lines(numbered: Iterable[tuple[int, str]]) -> Iterator[str]:
    """The lines a merge keeps as they stand (`carries`)."""
    for _, raw in numbered:
        if raw.strip() and carries(raw.encode("utf-8")):
            yield raw


def numbered(text: str) -> list[tuple[int, str]]:
    return list(enumerate(text.splitlines(), start=1))


def file_lines(data: str | bytes) -> list[str]:
    """A ledger file's lines, split at newlines only, as its writers and git
    split them; a line that is not UTF-8 is left out (no record this version
    reads or carries: dropped, as a sync skips it)."""
    if isinstance(data, str):
        return data.split("\n")
    lines: list[str] = []
    for piece in data.split(b"\n"):
        try:
            lines.append(piece.decode("utf-8"))
        except UnicodeDecodeError:
            continue
    return lines


def merge_texts(*texts: str | bytes, base: str | bytes = "") -> str:
    """Merge whole ledger files (each may hold a text merge's conflicts): the
    winning line of each key over every side, then each line of a record
    this version does not know that `carries`, as a three-way merge keeps a
    line: one a side added since `base` (the merge's common ancestor), or one
    every side still holds; a side that removed a line of the base removes
    it. Once each and in byte order, so the result is the same whichever side
    is "ours"."""
    parts: list[Iterable[Line]] = []
    held: list[set[str]] = []
    for text in texts:
        ours, theirs, _ = sides(file_lines(text))
        parts += [loose(ours), loose(theirs)]
        held += [set(carried_lines(ours)), set(carried_lines(theirs))]
    before = set(carried_lines(enumerate(file_lines(base), start=1)))
    every: set[str] = set[str]().union(*held)
    kept = {line for line in every if line not in before or all(line in side for side in held)}
    tail = "".join(raw + "\n" for raw in sorted(kept))
    return render(withhold_carried(merge(*parts)).values()) + tail


def withhold_carried(won: dict[str, Line]) -> dict[str, Line]:
    """`won` with what the tombstones among `won` forgot withheld from each
    memory line's carried strings (`carried`), as a clone that holds those
    tombstones writes the line (`write/carried.py`: any run of a string's
    words, keyed as a write's claims are), and each file it names by a path
    that quotes them left out. A teammate who had not taken a forget when
    they last wrote their line, newer than the one that withholds, then
    wins a merge without bringing the words back. A string longer than any
    reason a clone writes is left as it stands (`withhold_line`)."""
    forgotten: set[str] = set()
    quoting: list[Line] = []
    for line in won.values():
        record = line.data.get("record")
        hashes = line.data.get("hashes")
        if record in (TOMBSTONE, REDACTION) and isinstance(hashes, list):
            forgotten.update(h for h in hashes if isinstance(h, str))  # pyright: ignore[reportUnknownVariableType]
        elif record == MEMORY and carried(line.data):
            quoting.append(line)
    if not forgotten or not quoting:
        return won
    from tree_ring.write.carried import Withheld

    values = Withheld(sorted(forgotten))
    out = dict(won)
    for line in quoting:
        out[line.key] = withhold_line(line, values)
    return out


def withhold_line(line: Line, values: Withheld) -> Line:
    """A memory `line` with what `values` withholds (`write/carried.Withheld`)
    withheld from its carried strings (`carried`), and each file it names by
    a path that quotes it left out; `line` itself when it holds none. What
    a merge of files does to a kept line (`withhold_carried`), and what a
    clone does to each line it writes from its store (`ledger_state.py`):
    no line it writes carries words it forgot, whenever its store came to
    hold them. A string longer than any reason a clone writes
    (`reasons.MAX_REASON`) is left as it stands: a sync skips the line."""
    from tree_ring.govern.reasons import MAX_REASON

    data = line.data
    for path, said in carried(data):
        if len(said) > MAX_REASON:
            continue
        if path[0] in ("supersedes", "superseded_by"):
            new = values.memory_id(said)
        elif path[0] == "links":
            new = values.target(said)
        elif path[0] == FILES:
            new = "" if values.path(said) else said
        else:
            new = values.withheld(said) or said
        if new != said:
            data = _put(data, path, new)
    if data is line.data:
        return line
    files = data.get(FILES)
    if isinstance(files, list):
        kept: list[Any] = [f for f in files if f.get("path") != ""]  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        data = {k: v for k, v in data.items() if k != FILES or kept}
        if kept:
            data[FILES] = kept
    return Line(data)


# A memory line's strings that carry words beside its claim, by their place:
# what a clone withholds forgotten words from (`withhold_carried`), and what
# the line's rank counts withheld.
_CARRIED = (
    ("readmitted", "reason"),
    ("review", "review_reason"),
    ("review", "reviewed_by"),
    ("origin_session",),
    ("source", "type"),
    ("superseded_by",),
)
# The files a memory line names (`team/ledger_state.py`).
FILES = "files"
# The lists of a memory line whose items carry such a string, and its key.
_LISTED = (("links", "target"), (FILES, "path"))


def carried(data: dict[str, Any]) -> list[tuple[tuple[str | int, ...], str]]:
    """(place, text) of each carried string of a memory line `data`."""
    found: list[tuple[tuple[str | int, ...], str]] = []
    for path in _CARRIED:
        value: object = data
        for step in path:
            value = value.get(step) if isinstance(value, dict) else None  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        if isinstance(value, str):
            found.append((path, value))
    for name, key in _LISTED:
        items = data.get(name)
        if isinstance(items, list):
            for i, item in enumerate(items):  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
                said = item.get(key) if isinstance(item, dict) else None  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
                if isinstance(said, str):
                    found.append(((name, i, key), said))
    supersedes = data.get("supersedes")
    if isinstance(supersedes, list):
        for i, other in enumerate(supersedes):  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
            if isinstance(other, str):
                found.append((("supersedes", i), other))
    return found


def _put(value: Any, path: tuple[str | int, ...], new: str) -> Any:
    """A copy of `value` with `new` at `path`, sharing what it does not change."""
    if not path:
        return new
    step, rest = path[0], path[1:]
    if isinstance(value, list):
        copied: list[Any] = list(value)  # pyright: ignore[reportUnknownArgumentType]
        copied[int(step)] = _put(copied[int(step)], rest, new)
        return copied
    return {**value, str(step): _put(value[step], rest, new)}


def merge_driver(argv: list[str]) -> int:
    """`merge-driver BASE OURS THEIRS [PATH]`, as git's `merge.tree-ring.driver`
    calls it: the merge of OURS and THEIRS (`merge_texts`, with BASE's
    carried lines), written over OURS. Git keeps the result only on exit 0.
    A line it cannot read (not UTF-8, not a JSON object, one holding a lone
    surrogate, secret-bearing or oversized of a record it does not know) is
    dropped, as the importer would skip it: the merge still succeeds. The
    merged file is made whole, as bytes, before OURS is touched, then
    written beside it and renamed over it (`replace`): an error at any
    point leaves OURS as it was, with exit 1 and one line on stderr. Each
    side is read as every reader of the ledger reads it
    (`line_bound.bounded`): a line longer than MAX_LINE_BYTES is never held
    whole.

    Only a ledger is merged so. Any committed `.gitattributes` can name
    this driver for any path, and every line of a source file is one it
    drops: a PATH that is not a `.tree-ring/ledger.jsonl`, or a side that
    holds text but no ledger line, is refused (exit 1, OURS untouched), and
    git reports the file as a conflict to merge by hand."""
    import sys

    if len(argv) < 3:
        print("usage: merge-driver BASE OURS THEIRS [PATH]", file=sys.stderr)
        return 2
    base, ours, theirs = argv[:3]
    named = argv[3] if len(argv) > 3 else None
    try:
        if named is not None and not is_ledger_path(named):
            raise NotALedger(
                f"{_shown(named)} is not a Tree Ring ledger ({project.DIR}/{PATH}); merge it "
                "by hand, and take `merge=tree-ring` off the .gitattributes line that names it"
            )
        texts: list[bytes] = []
        for name in (base, ours, theirs):
            with open(name, "rb") as handle:
                texts.append(line_bound.bounded(handle))
        for side, text in (("ours", texts[1]), ("theirs", texts[2])):
            if not holds_ledger(text):
                raise NotALedger(
                    f"the {side} side of {_shown(named or ours)} holds text but no ledger line; "
                    "merge it by hand (`tree-ring doctor --repair` resolves a ledger's conflicts)"
                )
        merged = merge_texts(texts[1], texts[2], base=texts[0]).encode("utf-8")
        replace(ours, merged)
    except NotALedger as exc:
        print(f"tree-ring merge driver: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"tree-ring merge driver: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # OURS is as it was: git reports a conflict
        said = " ".join(str(exc).split())[:200]
        print(f"tree-ring merge driver: not merged ({type(exc).__name__}: {said})", file=sys.stderr)
        return 1
    return 0


def _shown(path: str) -> str:
    """A path as a one-line message names it: escaped, cut to 200 characters."""
    return repr(path[:200])[1:-1]


def replace(path: str, data: bytes) -> None:
    """`path` (the file, a link followed) holding `data`, or, on any error,
    as it was: written beside it under a temporary name, then renamed over
    it, its mode kept."""
    import os
    import tempfile

    target = os.path.realpath(path)
    mode = os.stat(target).st_mode & 0o7777
    fd, temporary = tempfile.mkstemp(prefix=".tree-ring-merge-", dir=os.path.dirname(target))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise


class NotALedger(Exception):
    """The merge driver was handed a file that is no team ledger."""


def is_ledger_path(path: str) -> bool:
    """Whether `path`, as git names a file (from the repository's top, with
    slashes), is a project's team ledger, `[FOLDER/].tree-ring/ledger.jsonl`:
    relative, each part a plain name (no empty part, `.`, `..` or backslash)."""
    parts = path.split("/")
    plain = all(part not in ("", ".", "..") and "\\" not in part for part in parts)
    return plain and parts[-2:] == [project.DIR, PATH]


def holds_ledger(data: bytes) -> bool:
    """Whether a side of a merge is empty or holds at least one ledger line
    (a record this version knows, or one it carries): never a source file,
    whose every line the merge would drop."""
    lines = file_lines(data)
    if not any(line.strip() for line in lines):
        return True
    ours, theirs, _ = sides(lines)
    for side in (ours, theirs):
        if next(loose(side), None) is not None or next(carried_lines(side), None) is not None:
            return True
    return False
