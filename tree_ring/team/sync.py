"""`tree-ring sync`: the store's shared state into the ledger, the ledger's into the store.

The ledger (`ledger.py`) is what the team commits; the store is this clone's.
A sync reads the ledger, checks every line as strictly as an import (shape,
validation, the guard, the project), reports a bad line by file and line and
skips it, and applies the rest through the write path in one transaction:

- a line is trusted as far as it came from the upstream branch's ledger
  (`upstream.py`): the lines the upstream holds (and the upstream's lines the
  working tree lacks) are the team's, and the lines the store itself writes
  are its own. Every other line (a working-tree edit, a local commit, a
  local branch the driver merged) is a claim;
- a trusted memory the store lacks is written as an import that keeps the
  ledger's trust state, so the tombstones and the guard still refuse what
  was forgotten or is secret; one the store holds in another version is
  replaced when the ledger's version wins under the merge rule;
- a trusted tombstone forgets the row (`correct.forget_in`: the row, its FTS
  text, its summary-tree text and the consolidations citing it) and records
  the content hashes, so the content cannot return under any id; a
  redaction redacts it, and marks its id redacted even where the store never
  held it, so the store writes it back as a redaction (`ledger_stones.py`);
- a claim becomes what a person decides on (`provenance.py`): a new memory
  lands pending (never heartwood, never a person's); a rewrite or retirement
  of a stored memory becomes a pending row that replaces it on approval; a
  tombstone or redaction of a stored memory becomes a request to forget it,
  as does one naming another id with the content of a memory held here. A
  trusted tombstone for an id the store never held is recorded as it stands,
  a claimed one dated when it arrived (it can only keep content out). Each
  claim is taken once (by its line's hash);
- a store built from the ledger for the first time also records every
  tombstone and redaction the upstream's history of the ledger ever held
  (`ledger_history.py`), so deleting such a line in a later commit does not
  bring its content back; only a person's re-admission, carried in the row
  (`readmit.py`), does.

Then the ledger is written from the store: the same store state always
writes the same bytes, and a claim stays out of it until a person approves
it. The store remembers the ledger's size, modification
time and hash at each sync (the `ledger` setting), which is what lets the
SessionStart hook skip an unchanged ledger with one `stat`; the ledger's bytes
kept beside the store and the upstream's lines as recorded (`ledger_delta.py`)
let it read a changed one by its change alone (`apply_lines`).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from tree_ring.govern import coordinator
from tree_ring.model import project
from tree_ring.model.actor import Actor
from tree_ring.model.anchor import MAX_FILES, Anchor, valid_blob, valid_path
from tree_ring.model.errors import Conflict, SchemaTooNew, TreeRingError, UsageError
from tree_ring.model.identity import Origin
from tree_ring.model.imported import from_mapping
from tree_ring.model.record import (
    PRIVATE_SCOPES,
    Memory,
    canonical_json,
    compiled_patterns,
    new_memory_id,
    now_iso,
    parse_time,
)
from tree_ring.store import anchors, audit, redactions, rows, settings
from tree_ring.store.db import Store
from tree_ring.store.sql import Db
from tree_ring.team import (
    ledger,
    ledger_delta,
    ledger_history,
    ledger_state,
    ledger_stones,
    ledger_stream,
    provenance,
    upstream,
)
from tree_ring.team.ledger import Line
from tree_ring.team.ledger_state import memory_line, store_lines
from tree_ring.team.upstream import Upstream
from tree_ring.write import bulk, correct, pipeline, readmit, replace, requests
from tree_ring.write.pipeline import BatchError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.model.progress import Progress

SETTING = "ledger"
MAX_LINE_BYTES = 1_000_000
REASON = ledger_stones.REASON


def path_of(root: Path) -> Path:
    return root / project.DIR / ledger.PATH


@dataclass(frozen=True)
class Skipped:
    line: int
    reason: str


@dataclass
class SyncReport:
    path: str
    imported: list[str] = field(default_factory=lambda: [])
    replaced: list[str] = field(default_factory=lambda: [])
    forgotten: list[str] = field(default_factory=lambda: [])
    redacted: list[str] = field(default_factory=lambda: [])
    skipped: list[Skipped] = field(default_factory=lambda: [])
    # Claims: pending rows made from lines not from upstream, and requests to forget.
    claimed: list[str] = field(default_factory=lambda: [])
    requested: list[str] = field(default_factory=lambda: [])
    # Tombstones taken from the upstream's history of the ledger (a first build).
    history: int = 0
    notes: list[str] = field(default_factory=lambda: [])  # one line each, for a person
    upstream: str | None = None  # the remote-tracking ref trusted, or None
    # The raw lines read as claims, now or before: taken, or refused as they stand
    # (what `ledger_delta` passes over until a full sync reads them again).
    claim_lines: list[bytes] = field(default_factory=lambda: [])
    lines: int = 0
    written: bool = False
    audit: str | None = None  # what the anchor says about this clone's audit log


# -- reading and checking the ledger ----------------------------------------------------


def _read_bytes(path: Path) -> bytes:
    """The ledger's bytes (none when there is no ledger)."""
    handle = _open(path)
    if handle is None:
        return b""
    with handle:
        return handle.read()


def _open(path: Path) -> BinaryIO | None:
    """The ledger, open to read, or None when there is none. A link is
    refused, not followed: a committed symbolic link must not make a clone
    import whatever file it names."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if path.is_symlink():
            raise UsageError(
                f"{path} is a symbolic link; the ledger must be a regular file: "
                "remove the link and run `tree-ring sync` to write it again"
            ) from None
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise UsageError(
            f"{path} is not a regular file; the ledger must be a regular file: "
            "remove it and run `tree-ring sync` to write it again"
        )
    return os.fdopen(fd, "rb")


@dataclass
class Read:
    """A ledger read and checked: the winning line of each key among the
    trusted lines (duplicates resolved by the merge rule) and among the
    claims, the line number each came from (0: the upstream's, not in the
    file), the lines skipped and why, the memory, the carried
    re-admission and the anchored files each checked memory line holds, and
    the raw bytes each checked line was read as (what the upstream is
    compared by)."""

    won: dict[str, Line]
    numbers: dict[str, int]
    skipped: list[Skipped]
    memories: dict[str, Memory]
    claims: dict[str, Line] = field(default_factory=lambda: {})
    readmitted: dict[str, dict[str, Any]] = field(default_factory=lambda: {})
    raws: dict[str, bytes] = field(default_factory=lambda: {})
    files: dict[str, list[Anchor]] = field(default_factory=lambda: {})


def checked(
    data: bytes,
    project_id: str,
    name: str,
    known: Mapping[str, Line] | None = None,
    *,
    trusted: Upstream | None = None,
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
        numbered += [(0, piece) for piece in sorted(trusted.lines - present)]
    good: list[tuple[int, Line, bool]] = []
    skipped: list[Skipped] = []
    read = Read({}, {}, skipped, {})
    known = known or {}
    for number, piece in numbered:
        if not piece.strip():
            continue
        held = known.get(piece.decode("utf-8", "replace")) if known else None
        if held is not None:
            good.append((number, held, True))
            continue
        try:
            line = _check(piece, project_id, read)
        except (ValueError, RecursionError) as exc:
            skipped.append(Skipped(number, _where(number, f"not valid JSON ({str(exc)[:60]})")))
            continue
        except (SchemaTooNew, _OtherLedger):
            raise
        except TreeRingError as exc:
            skipped.append(Skipped(number, _where(number, str(exc))))
            continue
        read.raws.setdefault(line.text, piece)
        believed = trusted is None or not line.key.startswith("2") or piece in trusted.lines
        good.append((number, line, believed))
    read.won = ledger.merge(line for _, line, believed in good if believed)
    read.claims = ledger.merge(line for _, line, believed in good if not believed)
    # The line that won its key is the one named if the store refuses it.
    for number, line, _ in good:
        read.numbers.setdefault(line.text, number)
    return read


def _where(number: int, reason: str) -> str:
    """Line 0 is one the upstream's ledger holds and the file does not."""
    return reason if number else f"(a line of the upstream's ledger) {reason}"


class _OtherLedger(UsageError):
    pass


def _check(piece: bytes, project_id: str, read: Read) -> Line:
    if len(piece) > MAX_LINE_BYTES:
        raise UsageError(f"longer than {MAX_LINE_BYTES:,} bytes")
    try:
        raw = piece.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError("not UTF-8 text") from None
    data: Any = json.loads(raw)
    if not isinstance(data, dict):
        raise UsageError("not a JSON object")
    line: dict[str, Any] = data  # pyright: ignore[reportUnknownVariableType]
    record = line.get("record")
    if record == ledger.HEADER:
        schema = line.get("schema")
        if not isinstance(schema, int) or schema > ledger.SCHEMA:
            raise SchemaTooNew(
                f"the ledger was written by a newer Tree Ring (ledger schema {schema}, this "
                f"version reads {ledger.SCHEMA}); upgrade the plugin, then sync"
            )
        if line.get("project") != project_id:
            raise _OtherLedger(
                f"the ledger belongs to project {str(line.get('project'))[:64]!r}, not "
                f"{project_id}; check .tree-ring/project.json"
            )
        return Line({"record": ledger.HEADER, "schema": schema, "project": project_id})
    if record == ledger.ANCHOR:
        return Line(_anchor(line))
    if record == ledger.MEMORY:
        files = parse_files(line.get(ledger_state.FILES))
        memory = _memory(line, project_id, files)
        carried = readmit.parse_carried(line.get(readmit.CARRIED))
        checked_line = Line(memory_line(memory, carried, ledger_state.ledger_files(files)))
        read.memories[checked_line.text] = memory
        if carried is not None:
            read.readmitted[checked_line.text] = carried
        if files:
            read.files[checked_line.text] = files
        return checked_line
    if record in (ledger.TOMBSTONE, ledger.REDACTION):
        return Line(ledger_stones.check(line))
    raise UsageError(f"unknown record {str(record)[:40]!r}")


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
    if owner != project_id:
        raise UsageError(f"from another project ({str(owner)[:64]!r})")
    body = {
        k: v for k, v in line.items() if k not in ("record", readmit.CARRIED, ledger_state.FILES)
    }
    memory = from_mapping(body)
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


def parse_files(value: object) -> list[Anchor]:
    """The files a memory's ledger line says it is about, as anchors this
    clone judges by hash (size and time unknown: -1). An entry that is not a
    plain relative path inside the project (no `..`, no `.git`, no control
    characters), a 40-hex blob id, an optional 40-hex commit and a time is
    dropped, as is any past the 64th: a path is never opened from a line."""
    if not isinstance(value, list):
        return []
    found: dict[str, Anchor] = {}
    for entry in value[:MAX_FILES]:  # pyright: ignore[reportUnknownVariableType]
        if not isinstance(entry, dict):
            continue
        got: dict[str, Any] = entry  # pyright: ignore[reportUnknownVariableType]
        path, blob, commit, at = (got.get(k) for k in ("path", "blob", "commit", "at"))
        if not (valid_path(path) and valid_blob(blob)):
            continue
        if commit is not None and not valid_blob(commit):
            continue
        try:
            when = parse_time(str(at), "at")
        except TreeRingError:
            continue
        if isinstance(path, str) and isinstance(blob, str) and path not in found:
            found[path] = Anchor(path, blob, -1, -1, commit, when)
    return [found[path] for path in sorted(found)]


# -- the store's side ------------------------------------------------------------------


def _state(db: Db) -> dict[str, Any]:
    value: Any = settings.read(db, SETTING)
    return dict(value) if isinstance(value, dict) else {}  # pyright: ignore[reportUnknownArgumentType]


def clone_id(db: Db) -> str:
    """This store's id among the clones that anchor in the ledger (made on first use)."""
    state = _state(db)
    clone = state.get("clone")
    if not isinstance(clone, str) or not clone:
        clone = os.urandom(8).hex()
        settings.write(db, SETTING, {**state, "clone": clone})
    return clone


def _head(db: Db) -> tuple[int, str]:
    return audit.head(db)


def anchor_problem(db: Db, anchor: Line | None) -> str | None:
    """What this clone's audit log says against its anchor in the ledger."""
    if anchor is None:
        return None
    seq, head = int(anchor.data["seq"]), str(anchor.data["head"])
    if seq == 0:
        return None
    held = audit.hash_at(db, seq)
    if held is None:
        return (
            f"the audit log no longer holds entry {seq}, which the ledger anchored at "
            f"{anchor.data['at'][:19]}Z: it was truncated; restore it from a backup"
        )
    if held != head:
        return (
            f"audit entry {seq} differs from the one the ledger anchored at "
            f"{anchor.data['at'][:19]}Z: the log was rewritten; restore it from a backup"
        )
    return None


# -- applying the ledger ---------------------------------------------------------------


def apply(
    db: Db,
    read: Read,
    mine: dict[str, Line],
    project_id: str,
    actor: Actor,
    report: SyncReport,
    up: Upstream | None = None,
) -> bool:
    """Write what the ledger's lines win over the store (`mine`, its lines by
    key), in the caller's transaction: the trusted lines as they stand, the
    claims as what a person decides on. Whether anything was written."""
    entries = {
        key: line
        for key, line in read.won.items()
        if key.startswith("2") and (key not in mine or mine[key].rank < line.rank)
    }
    claims = {
        key: line
        for key, line in read.claims.items()
        if key.startswith("2")
        and (key not in mine or mine[key].rank < line.rank)
        and (key not in read.won or read.won[key].rank < line.rank)
    }
    if claims:
        done = provenance.taken(db, [line.text for line in claims.values()])
        report.claim_lines += [
            read.raws[v.text]
            for v in claims.values()
            if provenance.line_hash(v.text) in done and v.text in read.raws
        ]
        claims = {k: v for k, v in claims.items() if provenance.line_hash(v.text) not in done}
    if not entries and not claims:
        return False
    ids = [line.data["id"] for line in (*entries.values(), *claims.values())]
    # As any import: under the coordinated write policy only the capability imports.
    coordinator.authorize(db, "import", actor, canonical_json(sorted(ids)))
    if entries:
        _apply_trusted(db, read, entries, mine, project_id, actor, report, up)
    if claims:
        _apply_claims(db, read, claims, project_id, actor, report, up)
    return True


def _stored(db: Db, ids: list[str]) -> dict[str, Memory]:
    return rows.by_ids(db, ids)


def _apply_trusted(
    db: Db,
    read: Read,
    entries: dict[str, Line],
    mine: dict[str, Line],
    project_id: str,
    actor: Actor,
    report: SyncReport,
    up: Upstream | None,
) -> None:
    ids = [line.data["id"] for line in entries.values()]
    stored = _stored(db, ids)
    # Rows a claim made: the team's own line for the id takes their place.
    claimed = provenance.claimed(db, stored)
    inserts: list[tuple[int, Memory]] = []
    replacing: list[Memory] = []
    for key, line in sorted(entries.items()):
        memory_id = line.data["id"]
        held = stored.get(memory_id)
        number = read.numbers[line.text]
        if held is not None and held.project != project_id:
            report.skipped.append(Skipped(number, f"{memory_id} belongs to another project"))
            continue
        if (
            key not in mine
            and held is not None
            and memory_id not in claimed
            and Line(memory_line(held)).rank >= line.rank
        ):
            continue  # held but not shared (pending, private): the rule still decides
        record = line.data["record"]
        if record == ledger.MEMORY:
            memory = read.memories[line.text]
            if held is not None:
                replacing.append(memory)
            inserts.append((number, memory))
            continue
        ledger_stones.record(db, project_id, line, actor)
        if held is None:
            continue
        mode = "delete" if record == ledger.TOMBSTONE else "redact"
        if mode == "redact" and held.redacted_at is not None:
            continue
        correct.forget_in(db, held, mode, REASON, actor, str(line.data["at"]))
        (report.forgotten if mode == "delete" else report.redacted).append(memory_id)
    if replacing:
        report.replaced += replace.vacate(db, replacing, actor, authorize=False)
    _insert(db, inserts, actor, report, read)
    if up is not None and up.ref is not None:
        now = now_iso()
        texts = {str(line.data["id"]): line.text for line in entries.values()}
        for memory_id in (*report.imported, *report.replaced):
            text = texts.get(memory_id)
            if text is not None:
                source = up.provenance(read.raws.get(text, b""))
                provenance.note(db, memory_id, project_id, text, source, now)


# Who raises what a claim asks for: the ledger itself, never the caller.
CLAIMANT = Actor("team-ledger", Origin("import"))


def _apply_claims(
    db: Db,
    read: Read,
    claims: dict[str, Line],
    project_id: str,
    actor: Actor,
    report: SyncReport,
    up: Upstream | None,
) -> None:
    """What each claim asks for, as something a person decides on."""
    ids = [line.data["id"] for line in claims.values()]
    stored = _stored(db, ids)
    redacted = redactions.among(db, ids)
    now = now_iso()
    for _, line in sorted(claims.items()):
        memory_id = str(line.data["id"])
        number = read.numbers[line.text]
        raw = read.raws.get(line.text, b"")
        source = up.provenance(raw) if up else upstream.Provenance(upstream.WORKING_TREE)
        held = stored.get(memory_id)
        if held is not None and held.project != project_id:
            report.skipped.append(Skipped(number, f"{memory_id} belongs to another project"))
            continue
        record = line.data["record"]
        if record != ledger.MEMORY:
            if memory_id in redacted or (held is not None and held.redacted_at is not None):
                continue  # redacted here, with or without its placeholder: left as it is
            # An id never held: kept, unless its hashes are content held here.
            asked = [held] if held else ledger_stones.unheld(db, project_id, line, actor, now)
            mode = "delete" if record == ledger.TOMBSTONE else "redact"
            why = f"a team ledger {record} line from the {source.label()}, not the upstream's"
            for target in asked:
                request = requests.ask(db, target, mode, why, CLAIMANT, now)
                provenance.note(db, request, project_id, line.text, source, now)
                report.requested.append(request)
            report.claim_lines += [raw] if asked else []
            continue
        wanted = read.memories[line.text]
        if held is not None:
            wanted = provenance.rewrite(wanted, held, new_memory_id())
        memory = pipeline.prepare(provenance.as_claim(wanted, source, held))
        try:
            pipeline.insert_prepared(db, memory, actor, action="import", admit=False)
        except TreeRingError as refused:
            report.skipped.append(Skipped(number, f"{memory_id}: {refused}"))
            report.claim_lines.append(raw)  # refused as it stands: refused again
            continue
        anchors.insert(db, memory.id, read.files.get(line.text, ()))
        provenance.note(db, memory.id, project_id, line.text, source, now)
        report.claimed.append(memory.id)
        report.claim_lines.append(raw)


def _insert(
    db: Db, inserts: list[tuple[int, Memory]], actor: Actor, report: SyncReport, read: Read
) -> None:
    """Write the new rows through the write path; a row it refuses (forgotten
    content under another id, a claim another row holds) is skipped, named.
    A row carrying a person's re-admission is written over the tombstones it
    names, one at a time, and the re-admission recorded as this store's."""
    carried = {read.memories[t].id: r for t, r in read.readmitted.items() if t in read.memories}
    files = {read.memories[t].id: f for t, f in read.files.items() if t in read.memories}
    pending = [(n, m) for n, m in inserts if m.id not in carried]
    for number, memory in inserts:
        readmission = carried.get(memory.id)
        if readmission is None:
            continue
        try:
            keys = frozenset(readmission["overrides"])
            result = pipeline.insert_prepared(
                db, memory, actor, action="import", admit=False, overriding=keys
            )
        except TreeRingError as refused:
            report.skipped.append(Skipped(number, f"{memory.id}: {refused}"))
            continue
        readmit.take_carried(db, actor, memory.id, readmission)
        if result.created:
            anchors.insert(db, memory.id, files.get(memory.id, ()))
        if result.created and memory.id not in report.replaced:
            report.imported.append(memory.id)
    while pending:
        try:
            results = pipeline.insert_prepared_many(
                db,
                [memory for _, memory in pending],
                actor,
                action="import",
                admit=False,
                bulk=True,
            )
        except BatchError as refused:
            number, memory = pending.pop(refused.index)
            report.skipped.append(Skipped(number, f"{memory.id}: {refused.error}"))
            continue
        for result in results:
            # A row it replaced took its anchors with it: these are the line's.
            if result.created:
                anchors.insert(db, result.id, files.get(result.id, ()))
        report.imported += [r.id for r in results if r.created and r.id not in report.replaced]
        if len(results) > 1_000:
            bulk.merge_fts(db)
        return


# -- one sync --------------------------------------------------------------------------


def fingerprint(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_size, info.st_mtime_ns)


def _remember_file(db: Db, path: Path, data: bytes, up: Upstream | None = None) -> None:
    """The ledger as this sync saw it: its size, time and hash in the store,
    its bytes beside the store (`ledger_delta.py`); with `up`, what the
    upstream's ledger held, every line of which this sync applied."""
    _remember_digest(db, path, "sha256:" + hashlib.sha256(data).hexdigest(), data, up)


def _remember_digest(
    db: Db, path: Path, digest: str, data: bytes | None = None, up: Upstream | None = None
) -> None:
    """`_remember_file` for a ledger written a line at a time: its bytes are
    copied beside the store from the file, never held whole."""
    seen = fingerprint(path)
    state = _state(db)
    state.update(
        size=seen[0] if seen else None,
        mtime_ns=seen[1] if seen else None,
        sha256=digest if seen else None,
    )
    if data is not None:
        ledger_delta.keep_seen(db, state, data)
    else:
        ledger_delta.keep_seen_file(db, state, path)
    settings.write(db, SETTING, state)
    if up is not None:
        ledger_delta.record_upstream(db, up.ref, up.oid, up.lines, up.commit)


def render(mine: dict[str, Line], project_id: str, won: dict[str, Line], db: Db) -> str:
    """The ledger the store now says: its shared state, the header, the other
    clones' anchors as read, and this clone's anchor (moved only when its
    audit head did, so a sync that changed nothing writes the same bytes)."""
    lines = dict(mine)
    lines["0"] = Line({"record": ledger.HEADER, "schema": ledger.SCHEMA, "project": project_id})
    for key, line in won.items():
        if key.startswith("1"):
            lines[key] = line
    clone = clone_id(db)
    seq, head = _head(db)
    held = won.get("1" + clone)
    if held is None or (held.data["seq"], held.data["head"]) != (seq, head):
        at = now_iso()
        lines["1" + clone] = Line(
            {"record": ledger.ANCHOR, "clone": clone, "seq": seq, "head": head, "at": at}
        )
    return ledger.render(lines.values())


def _write(path: Path, text: str) -> bool:
    """Write the ledger atomically; False when it already held these bytes."""
    data = text.encode("utf-8")
    if _read_bytes(path) == data and path.exists():
        return False
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)
    return True


# What a sync tells its progress: the ledger read, merged, written.
SYNC_STEPS = 3


def sync(
    store: Store,
    root: Path,
    project_id: str,
    actor: Actor,
    *,
    write: bool = True,
    progress: Progress | None = None,
) -> SyncReport:
    """Import the ledger's changes, then (with `write`) write the ledger from the
    store. Without `write` (the SessionStart hook) the working tree is untouched.
    `progress` is told each of its steps: read, merged, written."""
    path = path_of(root)
    data = _read_bytes(path)
    name = f"{project.DIR}/{ledger.PATH}"
    report = SyncReport(str(path))
    import_actor = actor.replace(origin=actor.origin.replace(kind="import"))
    # Git is asked before the store is locked: what the upstream's ledger holds.
    up = upstream.read(root)
    report.upstream = up.ref
    with bulk.page_cache(store.db, bulk.CACHE_KIB // 2), store.write() as db:
        state = _state(db)
        first = state.get("sha256") is None and state.get("seen") is None
        mine = store_lines(db, project_id)
        known = {line.text: line for line in mine.values()}
        read = checked(data, project_id, name, known, trusted=up)
        report.skipped = read.skipped
        report.audit = anchor_problem(db, read.won.get("1" + clone_id(db)))
        if progress is not None:
            progress("sync: ledger read", 1, SYNC_STEPS)
        if ledger_history.due(state, first):
            scratch = Read({}, {}, [], {})
            report.history = ledger_history.take(
                db,
                up,
                project_id,
                import_actor,
                lambda p: _check(p, project_id, scratch),
                report.notes,
            )
        if apply(db, read, mine, project_id, import_actor, report, up) or report.history:
            mine = store_lines(db, project_id)
        if progress is not None:
            progress("sync: merged into the store", 2, SYNC_STEPS)
        if write:
            text = render(mine, project_id, read.won, db)
            report.lines = text.count("\n")
            report.written = _write(path, text)
            data = text.encode("utf-8")
        _remember_file(db, path, data, up)
        ledger_delta.record_claims(db, report.claim_lines)
    settle(store, report)
    if progress is not None:
        progress("sync: ledger written" if write else "sync: done", SYNC_STEPS, SYNC_STEPS)
    return report


def settle(store: Store, report: SyncReport) -> None:
    """After the transaction: scrub what a forget, redaction or replacement left."""
    if report.forgotten or report.redacted or report.replaced:
        correct.scrub(store)


def apply_lines(
    db: Db,
    root: str | Path,
    project_id: str,
    data: bytes,
    ref: str | None,
    oid: str | None,
    theirs: set[bytes],
    ids: set[str],
) -> SyncReport:
    """The SessionStart hook's pass over a changed ledger (`ledger_delta.py`):
    `data`, every line of the file for the ids `ids`, and `theirs`, the
    upstream's lines for them and its lines the store has not recorded, read
    and applied as a full sync reads and applies them, against the store's
    own lines for those ids, in the caller's transaction."""
    path = path_of(Path(root))
    report = SyncReport(str(path))
    up = Upstream(Path(root), ref, oid=oid, lines=set(theirs))
    report.upstream = ref
    actor = Actor("ledger", Origin("import"))
    mine = store_lines(db, project_id, ids)
    known = {line.text: line for line in mine.values()}
    name = f"{project.DIR}/{ledger.PATH}"
    read = checked(data, project_id, name, known, trusted=up)
    report.skipped = read.skipped
    apply(db, read, mine, project_id, actor, report, up)
    # A line of the file skipped as it stands (malformed, secret-bearing) is skipped again.
    pieces = data.split(b"\n")
    report.claim_lines += [
        pieces[s.line - 1]
        for s in read.skipped
        if 0 < s.line <= len(pieces) and pieces[s.line - 1] not in theirs
    ]
    return report


def refresh(store: Store, root: str | Path, project_id: str) -> SyncReport | None:
    """The SessionStart hook's import: the ledger's changes into the store,
    the working tree untouched; None when only the file's time had moved."""
    path = path_of(Path(root))
    if not changed(store.db, path):
        with store.write() as db:
            _remember_file(db, path, _read_bytes(path))
        return None
    actor = Actor("ledger", Origin("import"))
    return sync(store, Path(root), project_id, actor, write=False)


def after_write(store: Store, root: Path, project_id: str) -> bool:
    """After a person's write: merge the store's shared state into an existing
    ledger (nothing imported), so `git status` shows the change. False when
    there is no ledger, or it holds conflicts for `doctor` to resolve."""
    path = path_of(root)
    if not path.exists():
        return False
    with store.write() as db:
        synced = not changed(db, path)
        try:
            written, digest = _merge_streaming(db, path, project_id)
        except ledger_stream.Unsorted:
            written, digest = _merge_whole(db, path, project_id)
        except Conflict:
            return False
        if written and synced:
            # The ledger held nothing the store lacked, and what was added came
            # from the store: still in sync. Otherwise the next sync imports.
            _remember_digest(db, path, digest)
    return written


def _merge_streaming(db: Db, path: Path, project_id: str) -> tuple[bool, str]:
    """`after_write`'s merge, a line at a time (ledger_stream.py): its memory
    does not grow with the ledger or the store."""
    read = Read({}, {}, [], {})

    def check(piece: bytes) -> Line | None:
        # `_check` notes each memory and re-admission it reads; nothing here needs them.
        read.memories.clear()
        read.readmitted.clear()
        read.files.clear()
        try:
            return _check(piece, project_id, read)
        except (ValueError, RecursionError):
            return None
        except (SchemaTooNew, _OtherLedger):
            raise
        except TreeRingError:
            return None

    handle = _open(path)
    if handle is None:
        return False, ""
    old = hashlib.sha256()

    def pieces() -> Iterator[bytes]:
        for raw in handle:
            old.update(raw)
            yield raw[:-1] if raw.endswith(b"\n") else raw

    header = Line({"record": ledger.HEADER, "schema": ledger.SCHEMA, "project": project_id})
    with handle:
        lines = ledger_stream.merged(pieces(), ledger_state.stream_lines(db, project_id), check)
        body = (line for line in lines if line.key != "0")
        return ledger_stream.write_if_changed(path, itertools.chain([header], body), old)


def _merge_whole(db: Db, path: Path, project_id: str) -> tuple[bool, str]:
    """`after_write`'s merge of a ledger whose lines are out of order, in memory."""
    data = _read_bytes(path)
    mine = store_lines(db, project_id)
    won = checked(data, project_id, path.name, {x.text: x for x in mine.values()}).won
    text = render_merged(ledger.merge(won.values(), mine.values()), project_id)
    encoded = text.encode("utf-8")
    return _write(path, text), "sha256:" + hashlib.sha256(encoded).hexdigest()


# The project's ids, of rows and of content tombstones, in the ledger's order,
# with the row where there is one (NULL columns where only tombstones are).
def render_merged(merged: dict[str, Line], project_id: str) -> str:
    merged["0"] = Line({"record": ledger.HEADER, "schema": ledger.SCHEMA, "project": project_id})
    return ledger.render(merged.values())


def changed(db: Db, path: Path) -> bool:
    """Whether the ledger differs from the one the last sync saw: size and
    modification time first; when they moved, the bytes kept beside the
    store, or the hash when those are not there."""
    seen = fingerprint(path)
    state = _state(db)
    if seen is None:
        return False
    if (state.get("size"), state.get("mtime_ns")) == seen:
        return False
    data = _read_bytes(path)
    kept = ledger_delta.seen_bytes(db, state)
    if kept is not None:
        return data != kept
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    return digest != state.get("sha256")
