"""The team ledger read and checked: each line as strictly as an import.

Each line is checked for its shape, by validation and the guard, and for
its project; a bad line is skipped, named by its number and the reason, while
a ledger of a newer schema, of another project or holding a text merge's
conflict markers is refused whole. Read against the upstream's ledger
(`upstream.py`), a line it holds or the store itself wrote is trusted and any
other is a claim. A sync (`sync.py`) applies what is read (`ledger_apply.py`);
`doctor` names what this check skips, a part of the file at a time
(`skipped_lines`), so the two cannot disagree about a line.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from tree_ring.model import jsontext, line_bound, project, validation
from tree_ring.model.anchor import Anchor
from tree_ring.model.anchor_lines import files_of, parse_files
from tree_ring.model.errors import (
    Conflict,
    SchemaTooNew,
    TreeRingError,
    UnsafePath,
    UsageError,
)
from tree_ring.model.imported import from_mapping
from tree_ring.model.record import PRIVATE_SCOPES, Memory, compiled_patterns, parse_time
from tree_ring.team import ledger, ledger_state, ledger_stones
from tree_ring.team.ledger import Line
from tree_ring.team.ledger_report import Skipped
from tree_ring.team.ledger_state import memory_line
from tree_ring.team.upstream import Upstream
from tree_ring.write import pipeline, readmit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.store.sql import Db
    from tree_ring.team.ledger_verdicts import Verdicts
    from tree_ring.write.carried import Withheld

MAX_LINE_BYTES = ledger.MAX_LINE_BYTES


def read_bytes(path: Path) -> bytes:
    """The ledger's bytes (none when there is no ledger), each line longer
    than MAX_LINE_BYTES cut short (`line_bound.lines`): such a line is
    skipped as too long, and never held whole."""
    handle = open_ledger(path)
    if handle is None:
        return b""
    with handle:
        return line_bound.bounded(handle)


def open_ledger(path: Path) -> BinaryIO | None:
    """The ledger, open to read, or None when there is none. Its kind is
    checked with lstat before it is opened, as every other entry of
    `.tree-ring/` is (`project.expect`): a link is refused, not followed (a
    committed symbolic link must not make a clone import whatever file it
    names), and a FIFO is refused, not opened (an open for reading waits for
    a writer, forever). The open itself does not block either, so a FIFO put
    there after the check is refused by `fstat` too."""
    try:
        if not project.expect(path, "file", project.LEDGER_FIX):
            return None
    except UnsafePath as exc:
        raise UsageError(str(exc)) from None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):
            raise UsageError(f"{path} is a symbolic link; {project.LEDGER_FIX}") from None
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise UsageError(f"{path} is not a regular file; {project.LEDGER_FIX}")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


@dataclass
class Read:
    """A ledger read and checked: the winning line of each key among the
    trusted lines (duplicates resolved by the merge rule) and among the
    claims, the line number each came from (0: the upstream's, not in the
    file), the lines skipped and why, the memory, the carried
    re-admission and the anchored files each checked memory line holds, the
    raw bytes each checked line was read as (what the upstream is compared
    by), and the file's lines of a record this version does not know that a
    rewrite of the ledger carries through (`ledger.carries`)."""

    won: dict[str, Line]
    numbers: dict[str, int]
    skipped: list[Skipped]
    memories: dict[str, Memory]
    claims: dict[str, Line] = field(default_factory=lambda: {})
    readmitted: dict[str, dict[str, Any]] = field(default_factory=lambda: {})
    raws: dict[str, bytes] = field(default_factory=lambda: {})
    files: dict[str, list[Anchor]] = field(default_factory=lambda: {})
    foreign: list[bytes] = field(default_factory=lambda: [])
    # The file's lines of unknown records: those carried (`foreign`, by
    # number), and those left out as claims (`vouch` said no), each named
    # once in a note, not a line each (`ledger_carried.notes`).
    kept: list[Skipped] = field(default_factory=lambda: [])
    claimed: list[Skipped] = field(default_factory=lambda: [])
    # Other clones' anchor lines of the file that the upstream's ledger does
    # not hold, left out (`check_numbered`'s `own`): how many.
    anchors_claimed: int = 0
    # Whether a line of an unknown record is read by the guard now: only a
    # read that rewrites the ledger needs to know (`ledger.carry` reads each
    # again before carrying it); an import takes nothing from such a line.
    judge_unknown: bool = True
    # The guard's verdicts kept between runs (`ledger_verdicts.py`): a line it
    # read whole before is not read again. None: each is read now.
    verdicts: Verdicts | None = None
    # Whether a line of an unknown record is one to carry: the upstream's, or
    # one the store carried before (`ledger_carried.py`); None: every one.
    vouch: Callable[[bytes], bool] | None = None
    # The trusted lines left out of the store because the store read beside
    # it holds their ids (`ledger_apply.BESIDE_KEPT`), by key: the ledger a
    # sync writes keeps them as they stand (`ledger_beside.py`).
    beside: dict[str, Line] = field(default_factory=lambda: {})


def checked(
    data: bytes,
    project_id: str,
    name: str,
    known: Mapping[str, Line] | None = None,
    *,
    trusted: Upstream | None = None,
    judge_unknown: bool = True,
    verdicts: Verdicts | None = None,
    vouch: Callable[[bytes], bool] | None = None,
    own: str | None = None,
) -> Read:
    """Read the ledger's lines and check each one. A line that is byte for byte
    what the store itself would write (`known`, by text) came from the store,
    which checked it on the way in: it is not checked again.

    With `trusted`, a memory, tombstone or redaction line is trusted only when
    the upstream's ledger holds it (or the store wrote it); the rest are
    claims. The upstream's lines the file lacks are read too, as trusted.
    Without it every line is taken as it stands (a person's write merging
    the store into the file, which imports nothing).

    A ledger of a newer schema or of another project is refused whole; a
    text merge's conflict markers too (`doctor --repair` resolves them)."""
    text_lines = data.split(b"\n")
    if ledger.has_markers(data.decode("utf-8", "replace")):
        _, _, conflicts = ledger.sides(data.decode("utf-8", "replace"))
        raise Conflict(
            f"{name} holds {conflicts} conflict(s) from a text merge (the merge driver was not "
            "configured); run `tree-ring doctor --repair` to resolve them by the ledger's rule"
        )
    numbered: list[tuple[int, bytes]] = list(enumerate(text_lines, start=1))
    if trusted is not None:
        present = set(text_lines)
        numbered = [(n, piece) for n, piece in numbered if piece not in trusted.as_written]
        numbered += [(0, piece) for piece in sorted(trusted.lines - present)]
    return check_numbered(
        numbered,
        project_id,
        known,
        trusted=trusted,
        judge_unknown=judge_unknown,
        verdicts=verdicts,
        vouch=vouch,
        own=own,
    )


def check_numbered(
    numbered: list[tuple[int, bytes]],
    project_id: str,
    known: Mapping[str, Line] | None = None,
    *,
    trusted: Upstream | None = None,
    judge_unknown: bool = True,
    verdicts: Verdicts | None = None,
    vouch: Callable[[bytes], bool] | None = None,
    own: str | None = None,
) -> Read:
    """`checked` over these lines only, each with its line number in the file
    (0: the upstream's): the SessionStart hook's part of a large ledger
    (`ledger_catchup.py`). Conflict markers are the caller's to refuse.
    Without `judge_unknown` (an import that writes no ledger), a line of an
    unknown record is not read by the guard: a hostile one costs a hook
    nothing, and a rewrite reads it before carrying it. With `vouch`, a
    file's line of an unknown record it does not vouch for is a claim
    (`Read.claimed`), never read by the guard. With `own` (this clone's
    anchor key) and an upstream, another clone's anchor line the upstream's
    ledger does not hold is left out (`Read.anchors_claimed`): an edit of it
    would tell that clone, once committed, that its audit log was cut."""
    good: list[tuple[int, Line, bool]] = []
    skipped: list[Skipped] = []
    read = Read({}, {}, skipped, {}, judge_unknown=judge_unknown, verdicts=verdicts, vouch=vouch)
    known = known or {}
    for number, piece in numbered:
        if not piece.strip():
            continue
        held = known.get(piece.decode("utf-8", "replace")) if known else None
        if held is not None:
            good.append((number, held, True))
            continue
        try:
            line = check_line(piece, project_id, read)
        except (ValueError, RecursionError) as exc:
            skipped.append(Skipped(number, _where(number, f"not valid JSON ({_cut(str(exc))})")))
            continue
        except (SchemaTooNew, OtherLedger):
            raise
        except Claimed as exc:
            read.claimed.append(Skipped(number, str(exc)))
            continue
        except Unreadable as exc:
            _carried(read, number, piece, str(exc))
            continue
        except TreeRingError as exc:
            skipped.append(Skipped(number, _where(number, str(exc))))
            continue
        read.raws.setdefault(line.text, piece)
        if (
            own is not None
            and trusted is not None
            and trusted.ref is not None
            and line.key.startswith("1")
            and line.key != own
            and piece not in trusted.lines
        ):
            read.anchors_claimed += 1
            continue
        believed = trusted is None or not line.key.startswith("2") or piece in trusted.lines
        good.append((number, line, believed))
    read.won = ledger.merge(line for _, line, believed in good if believed)
    read.claims = ledger.merge(line for _, line, believed in good if not believed)
    # The line that won its key is the one named if the store refuses it.
    for number, line, _ in good:
        read.numbers.setdefault(line.text, number)
    return read


# What `skipped_lines` checks at a time: a part's lines, and (past one line) its bytes.
PART_LINES = 1_000
PART_BYTES = 1_000_000


def skipped_lines(
    db: Db,
    numbered: Iterable[tuple[int, bytes]],
    project_id: str,
    verdicts: Verdicts | None = None,
    vouch: Callable[[bytes], bool] | None = None,
) -> Iterator[tuple[Skipped, bool]]:
    """Each of the `numbered` lines (0: one only the upstream's ledger
    holds) that a sync skips as it reads them (`check_numbered`, a line of a
    record this version does not know read by the guard, as a sync that
    writes the ledger reads it), with whether a rewrite of the ledger keeps
    it as it stands (`Read.foreign`). The same check as a sync's, a part at
    a time (PART_LINES lines, PART_BYTES bytes past the first line), each
    against the store's own lines for the ids it names (not checked again,
    as a sync does not): only a part is held, whatever the ledger's size.
    Reads the store and writes nothing; `verdicts` are not saved. With
    `vouch` (a sync's: `ledger_carried.py`), a line of an unknown record it
    does not vouch for is one a sync leaves out, a claim. A header
    of another project or a newer schema raises, as a sync refuses that
    ledger whole."""
    part: list[tuple[int, bytes]] = []
    size = 0
    for number, piece in numbered:
        part.append((number, piece))
        size += len(piece)
        if len(part) >= PART_LINES or size >= PART_BYTES:
            yield from _skipped_in(db, part, project_id, verdicts, vouch)
            part, size = [], 0
    if part:
        yield from _skipped_in(db, part, project_id, verdicts, vouch)


def _skipped_in(
    db: Db,
    part: list[tuple[int, bytes]],
    project_id: str,
    verdicts: Verdicts | None,
    vouch: Callable[[bytes], bool] | None,
) -> Iterator[tuple[Skipped, bool]]:
    ids = [key[1:] for _, piece in part if (key := _entry_key(piece)) is not None]
    known = {line.text: line for line in ledger_state.store_lines(db, project_id, ids).values()}
    read = check_numbered(part, project_id, known, verdicts=verdicts, vouch=vouch)
    found = [(s, False) for s in read.skipped] + [(s, True) for s in read.kept]
    found += [(Skipped(s.line, f"{s.reason}{CLAIMED}"), False) for s in read.claimed]
    yield from sorted(found, key=lambda pair: pair[0].line)


def _cut(said: str, most: int = 80) -> str:
    """`said` on one line, cut at a word's end to at most `most` characters."""
    said = " ".join(said.split())
    if len(said) <= most:
        return said
    return said[: most - 3].rsplit(" ", 1)[0] + "..."


def written_forms(data: bytes, up: Upstream, forgotten: Callable[[], Withheld | None]) -> None:
    """Note in `up.as_written` each line of the file (`data`) that is a line
    of the upstream's the file lacks, with what this clone forgot withheld
    from its carried strings (`ledger.withhold_line`): the line as the merge
    driver writes it into this clone's file. Such a line is no claim of a
    local commit: the upstream's own line is read in its place, and taken or
    skipped as it stands (a sync takes no line whose carried strings quote
    what this clone forgot), named once. `forgotten` is asked only when the
    file holds such a candidate."""
    pieces = data.split(b"\n")
    missing = up.lines - set(pieces)
    if not missing:
        return
    others = {
        key: piece
        for piece in pieces
        if piece and piece not in up.lines and (key := _entry_key(piece)) is not None
    }
    if not others:
        return
    values = None
    for raw in sorted(missing):
        piece = others.get(_entry_key(raw) or "")
        if piece is None:
            continue
        values = values or forgotten()
        if values is None:
            return
        line = Line(jsontext.loads_utf8(raw.decode("utf-8")))
        if ledger.withhold_line(line, values).text.encode("utf-8") == piece:
            up.as_written[piece] = raw


def _entry_key(piece: bytes) -> str | None:
    """A memory, tombstone or redaction line's key, for the store's own line of it."""
    if len(piece) > MAX_LINE_BYTES:
        return None
    found = ledger.record_of(piece, ledger.ENTRY_RANK)
    return found[0] if found is not None else None


def _carried(read: Read, number: int, piece: bytes, reason: str) -> None:
    """A line of a record this version does not know, which the guard passed:
    kept for a rewrite to carry through (named in a note), the file's, and
    one only the upstream's ledger holds too (a working-tree edit that
    deleted it would delete a newer Tree Ring's data from every clone once
    committed; a memory line deleted so is written back by the same rule)."""
    read.foreign.append(piece)
    said = "kept in the ledger as it stands" if number else "written back to the ledger"
    read.kept.append(Skipped(number, f"{_where(number, reason)}; {said}"))


# What `doctor` adds to a claimed line's reason (`skipped_lines`).
CLAIMED = "; not the upstream's nor carried before (a claim): a sync leaves it out of the ledger"


def _where(number: int, reason: str) -> str:
    """Line 0 is one the upstream's ledger holds and the file does not."""
    return reason if number else f"(a line of the upstream's ledger) {reason}"


class OtherLedger(UsageError):
    pass


class Claimed(UsageError):
    """A file's line of a record this version does not know that neither the
    upstream's ledger holds nor the store carried before: a claim, which a
    rewrite leaves out (`ledger_carried.py`); the guard does not read it."""


class Unreadable(UsageError):
    """A line of a record this version does not know (a newer Tree Ring's),
    in which the guard found nothing: a rewrite carries it as it stands
    (`ledger.carries`)."""


def check_line(piece: bytes, project_id: str, read: Read) -> Line:
    """The line checked, in the form the store writes it. Raises Unreadable
    for a line a rewrite carries, and another UsageError (or a ValueError
    for one that is not JSON) for a line it drops: oversized, not UTF-8, not
    a JSON object, refused by validation or the guard."""
    if len(piece) > MAX_LINE_BYTES:
        raise UsageError(f"longer than {MAX_LINE_BYTES:,} bytes")
    try:
        raw = piece.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError("not UTF-8 text") from None
    try:
        data: Any = jsontext.loads_utf8(raw)
    except jsontext.LoneSurrogate as exc:
        raise UsageError(f"not valid UTF-8 text (it holds {exc})") from None
    if not isinstance(data, dict):
        raise UsageError("not a JSON object")
    line: dict[str, Any] = data  # pyright: ignore[reportUnknownVariableType]
    # A key given twice reads as its last value, while a diff of the line
    # shows the first in its place: a line Tree Ring writes gives each once.
    if ledger.canonical(line) != raw and jsontext.gives_a_key_twice(raw):
        raise UsageError("it gives a key twice; a line Tree Ring writes gives each key once")
    record = line.get("record")
    if record == ledger.HEADER:
        schema = line.get("schema")
        if not isinstance(schema, int) or isinstance(schema, bool):
            raise SchemaTooNew(project.schema_not_a_number(schema))
        if schema > ledger.SCHEMA:
            raise SchemaTooNew(project.schema_too_new(schema, ", then sync"))
        if line.get("project") != project_id:
            raise OtherLedger(
                f"the ledger belongs to project {str(line.get('project'))[:64]!r}, not "
                f"{project_id}; check .tree-ring/project.json"
            )
        return Line({"record": ledger.HEADER, "schema": schema, "project": project_id})
    if record == ledger.ANCHOR:
        return _keeping(raw, line, _anchor(line), read.verdicts)
    if record == ledger.MEMORY:
        # A bad entry is dropped, the rest of the line taken (`anchor_lines.py`).
        files = parse_files(line.get(ledger_state.FILES))
        memory = _memory(line, project_id, files)
        carried = readmit.parse_carried(line.get(readmit.CARRIED))
        checked = memory_line(memory, carried, files_of(files))
        checked_line = _keeping(raw, line, checked, read.verdicts)
        read.memories[checked_line.text] = memory
        if carried is not None:
            read.readmitted[checked_line.text] = carried
        if files:
            read.files[checked_line.text] = files
        return checked_line
    if record in (ledger.TOMBSTONE, ledger.REDACTION):
        return _keeping(raw, line, ledger_stones.check(line), read.verdicts)
    vouched = read.vouch is None or read.vouch(piece)
    return _unknown(raw, line, judge=read.judge_unknown, verdicts=read.verdicts, vouched=vouched)


# Fields of a record's line this version reads though it may not write them
# back (an empty list of files, no re-admission): never a newer Tree Ring's.
_READ_TOO = {
    ledger.MEMORY: frozenset((readmit.CARRIED, ledger_state.FILES)),
    ledger.TOMBSTONE: frozenset(("kind",)),
}


def _keeping(
    raw: str, line: dict[str, Any], checked: dict[str, Any], verdicts: Verdicts | None = None
) -> Line:
    """The checked line (`checked`, as this version writes it); kept as it
    came (`Line.keeping`) when it holds fields a newer Tree Ring added, in
    which the guard finds nothing. Kept only when the line is in canonical
    form and, those fields aside, exactly what this version writes: a field
    whose value this version reads otherwise (a file it drops, a field
    nested in a known one) is not kept, and the line is written as checked.
    The guard reads those fields as it reads a line of an unknown record
    (`ledger.withheld`, within its bounds): a secret in them skips the line,
    as it would skip that record; fields past the bounds are not kept."""
    plain = Line(checked)
    known = checked.keys() | _READ_TOO.get(str(checked["record"]), frozenset())
    extra = {k: v for k, v in line.items() if k not in known}
    if not extra or ledger.canonical(line) != raw:
        return plain
    rest = {k: v for k, v in line.items() if k in known}
    if ledger.canonical(rest) != plain.text or ledger.past_bounds(extra) is not None:
        return plain
    text = ledger.canonical(extra)
    why = _verdict(verdicts, text, extra)
    if why is not None:
        raise UsageError(f"a field this version does not know {why}; left out of the ledger")
    return plain.keeping(raw)


def _verdict(verdicts: Verdicts | None, text: str, data: Any) -> str | None:
    """`ledger.withheld`, or the verdict it gave this text before."""
    if verdicts is None:
        return ledger.withheld(text, data)
    return verdicts.of(text, lambda: ledger.withheld(text, data), data)


def _unknown(
    raw: str,
    line: dict[str, Any],
    *,
    judge: bool = True,
    verdicts: Verdicts | None = None,
    vouched: bool = True,
) -> Line:
    """A line of no record this version reads: never taken for one, and
    carried (Unreadable) only when it names a record as a string and the
    guard finds nothing in it (`judge`; without it, the guard reads it when a
    rewrite would carry it). The reason names a secret by rule, and the
    record only once the guard has read it."""
    record = ledger.unknown_record(line)
    if record is None:
        raise UsageError("its record is not a string")
    if not vouched:
        raise Claimed("a record this version does not know")
    if not judge:
        raise Unreadable("a record this version does not know")
    why = _verdict(verdicts, raw, line)
    if why is not None:
        raise UsageError(f"a record this version does not know {why}; left out of the ledger")
    raise Unreadable(f"unknown record {record[:40]!r}")


def _anchor(line: dict[str, Any]) -> dict[str, Any]:
    clone, seq, head, at = (line.get(k) for k in ("clone", "seq", "head", "at"))
    if not (isinstance(clone, str) and re.fullmatch(r"[0-9a-f]{16}", clone)):
        raise UsageError("an anchor's clone is 16 hex digits")
    if not (isinstance(seq, int) and seq >= 0 and isinstance(head, str)):
        raise UsageError("an anchor needs seq and head")
    if head and not compiled_patterns().content_hash.match(head):
        raise UsageError("an anchor's head is a sha256 hash")
    return {
        "record": ledger.ANCHOR,
        "clone": clone,
        "seq": seq,
        "head": head,
        "at": parse_time(str(at), "at"),
    }


def _memory(line: dict[str, Any], project_id: str, files: list[Anchor]) -> Memory:
    owner = line.get("project")
    if not isinstance(owner, str) or not owner:
        raise UsageError("names no project (a memory line's `project` is its project's id)")
    if owner != project_id:
        raise UsageError(f"from another project ({owner[:64]!r})")
    body = {
        k: v for k, v in line.items() if k not in ("record", readmit.CARRIED, ledger_state.FILES)
    }
    memory = from_mapping(body)
    # Dated ahead of now, as an import refuses: a line written or changed
    # "later" would win every merge of its id for years (`ledger.Line.rank`)
    # and hide from every read until then, and one retired later would read
    # as current to a look at now.
    ahead = validation.dated_ahead(memory)
    if ahead is not None:
        raise UsageError(f"{ahead[0]} {ahead[1]} is later than now: a line is not dated ahead")
    if memory.scope in PRIVATE_SCOPES:
        raise UsageError(f"scope {memory.scope} is private; the ledger holds shared memory only")
    if memory.trust != "accepted" or memory.redacted_at is not None:
        raise UsageError(f"trust {memory.trust}; the ledger holds accepted memory only")
    # Validation and the guard, over the row and its files' paths: a secret raises here.
    prepared = pipeline.prepare(memory, files)
    if prepared.sensitivity != "normal":
        raise UsageError(
            f"holds {prepared.sensitivity} content; the ledger carries normal memory only"
        )
    return prepared
