"""The lines of an import file, read into what they stand for: each line
parsed, validated and guarded into a memory (`Memory`, prepared as a write
prepares it) or a content tombstone line (`stone_lines.check`), in order.

What a file says of a row's trust, origin and review is kept only as a claim
(the row's origin is the import, `_claims_only`), unless a person restores
their own export (`Reading.restore`). The files a row is about (`files`, as
the team ledger's line carries them) are read as that line's are, but
strictly: a bad entry refuses the row (`_files`). A row of another project
is taken only as the caller says (`Projects`); the first pass (`first_pass`)
learns which projects the rows name, and the file's tombstones, before any
row is read.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from tree_ring import guard
from tree_ring.model import validation
from tree_ring.model.anchor import Anchor
from tree_ring.model.anchor_lines import FILES, parse_files
from tree_ring.model.errors import TreeRingError, UsageError
from tree_ring.model.imported import from_mapping
from tree_ring.model.record import MAX_REF, ORIGINS, Memory, format_time
from tree_ring.model.text import preview
from tree_ring.store import user
from tree_ring.transfer import original, stone_lines
from tree_ring.transfer.lines import MAX_LINE_BYTES
from tree_ring.write import pipeline, readmit


@dataclass(frozen=True)
class Projects:
    """How rows that name another project are taken: by default they are
    refused (a file of several projects' rows is not merged without a word);
    `mapping` takes the named ones, `take_all` every one, into this project."""

    mapping: dict[str, str] = field(default_factory=lambda: {})
    take_all: bool = False

    @classmethod
    def parse(cls, specs: Iterable[str], project: str, *, take_all: bool = False) -> Projects:
        """`OLD=NEW` pairs as given on the command line; NEW is this project."""
        mapping: dict[str, str] = {}
        for spec in specs:
            old, sep, new = spec.partition("=")
            if not sep or not old.strip() or not new.strip():
                raise UsageError(
                    f"--project-map takes OLD=NEW, e.g. --project-map {spec or 'old'}={project}"
                )
            if new.strip() != project:
                raise UsageError(
                    f"--project-map {spec}: rows are imported into this project only; "
                    f"use --project-map {old.strip()}={project}"
                )
            mapping[old.strip()] = project
        return cls(mapping, take_all)

    def takes(self, claimed: str) -> bool:
        return self.take_all or claimed in self.mapping


class Foreign(UsageError):
    """A row of a project the caller did not map."""


# Which rows an import takes by their scope: every row (the default); only
# the `global` ones (into a person's user store); or all but those (the
# project's part of the same file). The original's `global` meant the person,
# yet its rows stay in the project unless the person says otherwise.
GlobalRows = Literal["all", "only", "none", "user"]


@dataclass(frozen=True)
class Parsed:
    number: int
    memory: Memory | None
    tombstone: dict[str, Any] | None
    keep_trust: bool = False
    # A person's re-admission the row carries, taken only on a person's import.
    readmitted: dict[str, Any] | None = None
    merged_from: str | None = None  # the other project id the row named
    folded: bool = False
    # The line named no id (its memory's is new): it is known by its content.
    idless: bool = False
    # The files the row is about, as its line names them (`_files`); None when
    # the line says nothing of files, so a row it replaces keeps its own.
    files: tuple[Anchor, ...] | None = None


@dataclass
class Reading:
    """What `parse` is told, and what it notes as it reads."""

    project: str
    batch: str
    # A person's restore of their own export: its trust, origin, review and
    # re-admissions are taken as written.
    restore: bool = False
    projects: Projects = field(default_factory=Projects)
    skip: bool = False
    # (line number, reason) of each line left out under `skip`: the report's.
    skipped: list[tuple[int, str]] = field(default_factory=lambda: [])
    # The project id rows and tombstones are stored under: the project's, or
    # the user store's when its global rows go there (`GlobalRows`).
    into: str = ""
    global_rows: GlobalRows = "all"
    # Rows of projects not taken, by project id: left out (`skip`), or the
    # import is refused before it starts.
    foreign: dict[str, int] = field(default_factory=lambda: {})
    # The caller is an agent: its rows are dated by the import (`_dated`).
    agent: bool = False
    # The other project ids rows named that the guard has read (`_guarded`).
    guarded: set[str] = field(default_factory=lambda: set[str]())
    # The import's own time, and the latest time a row may name (`AHEAD` on).
    now: str = ""
    latest: str = ""

    def __post_init__(self) -> None:
        moment = datetime.now(UTC)
        self.now = self.now or format_time(moment)
        self.latest = self.latest or format_time(moment + AHEAD)


# How far past the import a row's own times may run: two machines' clocks
# differ by a little, never by this much.
AHEAD = timedelta(seconds=validation.AHEAD_SECONDS)


def parse(lines: Iterable[str], reading: Reading) -> Iterator[Parsed]:
    """Each non-blank line, parsed, validated and guarded, in order; the first
    bad one raises, naming its line, or under `skip` is noted and left out.
    A row of a project not taken (`reading.foreign`) is skipped."""
    for number, raw in enumerate(lines, start=1):
        # A blank line is passed over; one too long to read whole is not
        # (it stands for the line cut short, and is refused as too long).
        if not raw.strip() and len(raw.encode("utf-8", "surrogatepass")) <= MAX_LINE_BYTES:
            continue
        try:
            parsed = list(_parse_line(raw, number, reading))
        except Foreign as exc:
            if reading.skip:
                reading.skipped.append((number, str(exc)))
            continue
        except (ValueError, RecursionError) as exc:
            deep = isinstance(exc, RecursionError)
            said = "nested too deeply to read" if deep else preview(str(exc), 80)
            if reading.skip:
                reading.skipped.append((number, f"not valid JSON ({said})"))
                continue
            raise UsageError(f"line {number}: not valid JSON ({said}); nothing imported") from None
        except TreeRingError as exc:
            if reading.skip:
                reading.skipped.append((number, str(exc)))
                continue
            raise at_line(exc, number) from None
        yield from parsed


def _parse_line(raw: str, number: int, reading: Reading) -> Iterator[Parsed]:
    project = reading.project
    into = reading.into or project
    if len(raw.encode("utf-8", "surrogatepass")) > MAX_LINE_BYTES:
        raise UsageError(f"longer than {MAX_LINE_BYTES:,} bytes")
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise UsageError("not a JSON object")
    # The original's export: a header (with our tombstones), then envelopes.
    row, stones = original.unwrap(data)  # pyright: ignore[reportUnknownArgumentType]
    for stone in stones:
        yield Parsed(number, None, stone_lines.check(stone, into))
    if row is None:
        return
    folded = False
    if original.is_theirs(data):  # pyright: ignore[reportUnknownArgumentType]
        row, folded = original.fold(row)
    if row.get("scope") in (None, "") and data.get("type") != original.EVENT:  # pyright: ignore[reportUnknownMemberType]
        # A bare line that names no scope (written by hand, most often) is the
        # project's, as a `remember` without --scope is, or in the user store
        # the person's own (`global`, its only scope); the original's global
        # default (its project-wide scope) is read only from its envelope.
        row = {**row, "scope": "global" if reading.global_rows == "user" else "project"}
    if row.get("record") == stone_lines.TOMBSTONE:
        if not personal(row, into):
            yield Parsed(number, None, stone_lines.check(row, into))
        return
    if "record" in row:  # an export's rows name none; a team ledger's lines all do
        raise UsageError(
            f"a team ledger's line (record {str(row['record'])[:40]!r}), not an export's row; "
            "`tree-ring sync` reads the team ledger, `import` reads what `export` wrote"
        )
    if reading.global_rows == "user" and row.get("scope") != "global":
        scope = str(row.get("scope"))[:40]
        raise UsageError(
            f"a row of scope {scope!r}: your user store holds global notes only; import "
            "the file in a project (`--global-to user` sends its global rows here)"
        )
    if reading.global_rows in ("only", "none") and (row.get("scope") == "global") != (
        reading.global_rows == "only"
    ):
        return
    claimed = row.get("project")
    merged_from = None
    if isinstance(claimed, str) and claimed and claimed != project:
        _guarded(claimed, reading.guarded)
        if claimed in reading.foreign:
            raise Foreign(
                f"a row of project {claimed[:60]}; take it with --project-map "
                f"{claimed[:60]}={project} or --all-projects"
            )
        merged_from = claimed
    memory = from_mapping(row)
    files = _files(data, row, into)  # pyright: ignore[reportUnknownArgumentType]
    idless = memory.id != row.get("id")
    # The store is the project's: every row lands in it. A row kept under
    # another project id (or none) would be invisible to every brief.
    memory = _dated(memory.replace(project=into), reading)
    # A person restoring their own export keeps its trust states; anything
    # else is an import, and governance decides what waits.
    keep_trust = reading.restore and "trust" in row
    if not keep_trust:
        memory = _claims_only(memory)
        if memory.origin_session is None:
            memory = memory.replace(origin_session=reading.batch)
    if memory.superseded_by and memory.retired_at is None:
        memory = memory.replace(retired_at=memory.updated_at)
    # Checked whoever imports (its text is guarded like any field), believed
    # only in a person's restore: a file cannot bring content back on its word.
    carried = readmit.parse_carried(row.get(readmit.CARRIED))
    taken = carried if reading.restore else None
    yield Parsed(
        number,
        # The guard reads the files' paths as it reads the row's text.
        pipeline.prepare(memory, files or ()),
        None,
        keep_trust,
        readmitted=taken,
        merged_from=merged_from,
        folded=folded,
        idless=idless,
        files=files,
    )


def _files(line: dict[str, Any], row: dict[str, Any], into: str) -> tuple[Anchor, ...] | None:
    """The files `row` says it is about, read as a team ledger line's are
    (`anchor_lines.parse_files`) but strictly: a bad entry, a path that is
    not a plain one inside the project, or more than 64 refuse the row. None
    when it says nothing of them (no `files`, or null, as any field left
    out): then a row it replaces keeps its own. The original's envelope has
    no place for them and is read as it always was. A note of the person's
    user store names no files of a project, as `remember --scope global
    --file` is refused."""
    value = row.get(FILES)
    if value is None or line.get("type") == original.EVENT:
        return None
    found = tuple(parse_files(value, strict=True))
    if found and into == user.USER_PROJECT:
        raise UsageError(
            f"{FILES}: a global memory in your user store names no files of a project; "
            f"drop its {FILES}, or import it into the project"
        )
    return found


def _guarded(claimed: str, read: set[str]) -> None:
    """The guard reads the project id a row names as it reads the row's other
    fields. The row takes this project's id, so the name is not stored; but
    the import names it back (the projects a file holds, merged or left
    out), so one that looks like a secret refuses the row, never echoed.
    `read` holds the names read already: a file names few, on many rows."""
    if claimed not in read:
        guard.check_fields({"project": claimed})
        read.add(claimed)


def _dated(memory: Memory, reading: Reading) -> Memory:
    """A row's own times, as the import keeps them.

    The inbox lists what agents wrote since the person last looked by a
    row's `created_at`: a row dated after its import would stand past every
    later write for good, so no importer's row may name a time past `AHEAD`;
    and a back-dated one would never be listed, so an agent's rows are dated
    by the import itself. Their `valid_from` (the file's, or its created_at's)
    says when the fact holds, and stays, as `remember --valid-from` may set
    it. A person's rows, a restore's above all, keep the times they name.
    Nor may a row be retired after its import: until a `retired_at` to come,
    a read of now (`--as-of`) would take it as current, whatever a review
    refused it as (`tombstones.binds`)."""
    # Past the bound read when the import began, the clock is read again: a
    # row that names no time is dated as it is parsed, and a long import
    # parses its last rows minutes after its first.
    ahead = validation.dated_ahead(memory, reading.latest) and validation.dated_ahead(memory)
    if ahead:
        name, when = ahead
        raise UsageError(
            f"{name} {when} is later than now: a row cannot be dated after its import; "
            f"give the time it was written, or leave {name} out"
        )
    if not reading.agent:
        return memory
    return memory.replace(created_at=reading.now, updated_at=reading.now)


def _claims_only(memory: Memory) -> Memory:
    """An imported row, its origin the import. Who the file says wrote the row
    and who reviewed it are not facts here (a review is a decision made in
    this store), so they are kept only as words in the review reason; a
    claimed review's reason, the reviewer's words, goes with the review."""
    said = memory.origin if memory.origin in ORIGINS and memory.origin != "import" else None
    reviewed = memory.reviewed_by is not None or memory.reviewed_at is not None
    memory = memory.replace(origin="import")
    if said is None and not reviewed:
        return memory
    review = " ".join(
        part
        for part in (
            "a review",
            f"by {memory.reviewed_by}" if memory.reviewed_by else "",
            f"on {memory.reviewed_at[:10]}" if memory.reviewed_at else "",
        )
        if part
    )
    claims = " and ".join(
        part for part in (f"origin {said}" if said else "", review if reviewed else "") if part
    )
    reason = f"the import claims {claims}; not believed"
    if not reviewed and memory.review_reason:
        reason = f"{reason}; {memory.review_reason}"[:MAX_REF]
    return memory.replace(reviewed_by=None, reviewed_at=None, review_reason=reason)


@dataclass
class FirstPass:
    """What the first reading of the file finds: its lines, its valid content
    tombstones in order, and the project ids its memory rows name."""

    lines: int = 0
    stones: list[dict[str, Any]] = field(default_factory=lambda: [])
    projects: dict[str, int] = field(default_factory=lambda: {})
    # Tombstone lines of the person's user store left out of a project (`personal`).
    personal: int = 0
    # Memory id -> the tombstone keys the file's row of it is re-admitted over.
    readmitted: dict[str, frozenset[str]] = field(default_factory=lambda: {})


def personal(row: dict[str, Any], into: str) -> bool:
    """Whether a tombstone line is the person's user store's (its export's
    forgets) and the import writes a project: a private forget, which the
    project's team ledger would share with everyone, is never taken there."""
    return row.get("project") == user.USER_PROJECT and into != user.USER_PROJECT


def first_pass(lines: Iterable[str], project: str) -> FirstPass:
    """Read every line once. Only lines that name a tombstone or a project
    are parsed; a bad one is left for `parse` to report in its turn, so the
    first bad line of the file is still the one named. A project name the
    guard refuses (`_guarded`) is such a one: never counted, never named."""
    found = FirstPass()
    read: set[str] = set()
    for raw in lines:
        found.lines += 1
        named = '"project"' in raw or stone_lines.TOMBSTONE in raw
        if len(raw) > MAX_LINE_BYTES or not named:
            continue
        try:
            data = json.loads(raw)
            if not isinstance(data, dict):
                continue
            row, stones = original.unwrap(data)  # pyright: ignore[reportUnknownArgumentType]
            found.stones += [stone_lines.check(stone, project) for stone in stones]
            if row is not None and row.get("record") == stone_lines.TOMBSTONE:
                if personal(row, project):
                    found.personal += 1
                    continue
                found.stones.append(stone_lines.check(row, project))
            elif row is not None and isinstance(claimed := row.get("project"), str) and claimed:
                _guarded(claimed, read)
                found.projects[claimed] = found.projects.get(claimed, 0) + 1
                carried = readmit.parse_carried(row.get(readmit.CARRIED))
                if carried is not None and isinstance(row.get("id"), str):
                    found.readmitted[row["id"]] = frozenset(carried["overrides"])
        except (ValueError, RecursionError, TreeRingError):
            continue
    return found


def at_line(exc: TreeRingError, number: int) -> TreeRingError:
    """The same error, kept for its exit code, with the line that caused it."""
    exc.args = (f"line {number}: {exc}; nothing imported",)
    return exc
