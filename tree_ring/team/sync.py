"""`tree-ring sync`: the store's shared state into the ledger, the ledger's into the store.

The ledger (`ledger.py`) is what the team commits; the store is this clone's.
A sync reads the ledger, checks every line as strictly as an import (shape,
validation, the guard, the project: `ledger_read.py`), reports a bad line by
file and line and skips it, and applies the rest through the write path in
one transaction (`ledger_apply.py`):

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
  a claimed one as a withdrawal dated when it arrived (it binds agents'
  writes only and never reaches the ledger: `ledger_stones.unheld`). Each
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
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tree_ring.model import jsontext, line_bound, project
from tree_ring.model.actor import Actor
from tree_ring.model.errors import Conflict, SchemaTooNew, TreeRingError
from tree_ring.model.identity import Origin
from tree_ring.model.record import now_iso
from tree_ring.store import audit, ledger_rows, settings
from tree_ring.store.db import Store
from tree_ring.store.sql import Db
from tree_ring.team import (
    ledger,
    ledger_anchor,
    ledger_beside,
    ledger_carried,
    ledger_delta,
    ledger_history,
    ledger_state,
    ledger_stream,
    ledger_verdicts,
    upstream,
)
from tree_ring.team.ledger import Line
from tree_ring.team.ledger_anchor import (
    CLAIMED_ANCHOR,
    OTHERS_ANCHORS,
    SETTING,
    anchor_fields,
    anchors_problem,
    clone_id,
    own_anchors,
    state_of,
)
from tree_ring.team.ledger_apply import apply
from tree_ring.team.ledger_read import (
    OtherLedger,
    Read,
    check_line,
    checked,
    open_ledger,
    read_bytes,
    written_forms,
)
from tree_ring.team.ledger_report import Skipped, SyncReport, line_number
from tree_ring.team.ledger_state import store_lines
from tree_ring.team.upstream import Upstream
from tree_ring.write import bulk, correct

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.model.progress import Progress


def path_of(root: Path) -> Path:
    return root / project.DIR / ledger.PATH


# -- one sync --------------------------------------------------------------------------


def fingerprint(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_size, info.st_mtime_ns)


def remember_file(db: Db, path: Path, data: bytes, up: Upstream | None = None) -> None:
    """The ledger as this sync saw it: its size, time and hash in the store,
    its bytes beside the store (`ledger_delta.py`); with `up`, what the
    upstream's ledger held, every line of which this sync applied."""
    _remember_digest(db, path, "sha256:" + hashlib.sha256(data).hexdigest(), data, up)


def _remember_digest(
    db: Db, path: Path, digest: str, data: bytes | None = None, up: Upstream | None = None
) -> None:
    """`remember_file` for a ledger written a line at a time: its bytes are
    copied beside the store from the file, never held whole."""
    seen = fingerprint(path)
    state = state_of(db)
    state.update(
        size=seen[0] if seen else None,
        mtime_ns=seen[1] if seen else None,
        sha256=digest if seen else None,
    )
    state.pop("catchup", None)  # the hook's parts (`ledger_catchup.py`): all taken now
    if data is not None:
        ledger_delta.keep_seen(db, state, data)
    else:
        ledger_delta.keep_seen_file(db, state, path)
    settings.write(db, SETTING, state)
    if up is not None:
        ledger_delta.record_upstream(db, up.ref, up.oid, up.lines, up.commit)


def render(
    mine: dict[str, Line],
    project_id: str,
    won: dict[str, Line],
    db: Db,
    held: Line | None = None,
    *,
    hold: bool = False,
    same: Callable[[str], bool] | None = None,
) -> str:
    """The ledger the store now says: its shared state, the header, the other
    clones' anchors as read, and this clone's anchor: `held`, the one vouched
    for (`own_anchors`), moved only when its audit head did, so a sync that
    changed nothing writes the same bytes; with `hold` (the audit log no
    longer holds what `held` anchored), not at all: the committed anchor
    keeps the evidence. With `same` (whether a text is the file as it
    stands), a sync whose store says nothing the file does not (it took in
    a pull's lines, or what it wrote since stays in this clone: an agent's
    own notes, a row waiting for review) leaves the file as it is, anchor
    and all, so the next pull finds no change of this clone's to refuse
    over; the anchor moves with the next change the ledger carries.
    The anchor written is recorded."""
    lines = dict(mine)
    lines["0"] = Line({"record": ledger.HEADER, "schema": ledger.SCHEMA, "project": project_id})
    for key, line in won.items():
        if key.startswith("1"):
            lines[key] = line
    clone = clone_id(db)
    if same is not None and not hold:
        kept = dict(lines)
        if held is None:
            kept.pop("1" + clone, None)  # a line nobody vouches for is no anchor to keep
        else:
            kept["1" + clone] = held
        text = ledger.render(kept.values())
        if same(text):
            if held is not None:
                settings.write(db, SETTING, {**state_of(db), "anchor": anchor_fields(held.data)})
            return text
    seq, head = audit.head(db)
    if held is None or (not hold and (held.data["seq"], held.data["head"]) != (seq, head)):
        at = now_iso()
        held = Line({"record": ledger.ANCHOR, "clone": clone, "seq": seq, "head": head, "at": at})
    lines["1" + clone] = held
    settings.write(db, SETTING, {**state_of(db), "anchor": anchor_fields(held.data)})
    return ledger.render(lines.values())


def _write(path: Path, text: str, carried: list[bytes] | None = None) -> bool:
    """Write the ledger atomically, the lines this version cannot read
    (`carried`) after the rest; False when it already held these bytes."""
    data = text.encode("utf-8") + ledger.carry(carried or [])
    if read_bytes(path) == data and path.exists():
        return False
    project.write_replacing(path, data)
    return True


# What a sync tells its progress: the ledger read, merged, written.
SYNC_STEPS = 3
DRIVER_NOTE = "configured git's merge driver for the ledger in this clone, as `init` does"
# A store built from a ledger no upstream vouches for (a project with no team
# remote whose store was lost): every memory waits, and the file the store
# writes leaves them out, so a commit of it would take them out of git too.
BUILT_FROM_CLAIMS = (
    "{n} of lines not the upstream's taken as claims, waiting for a person "
    "(`tree-ring review list`): the ledger this clone writes leaves their lines out until a "
    "person approves them, so read `git diff .tree-ring/ledger.jsonl` before committing it; "
    "your own export puts them back as it says with `tree-ring import FILE --restore`"
)


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
    data = read_bytes(path)
    name = f"{project.DIR}/{ledger.PATH}"
    report = SyncReport(str(path))
    import_actor = actor.replace(origin=actor.origin.replace(kind="import"))
    # Git is asked before the store is locked: what the upstream's ledger holds.
    up = upstream.read(root)
    report.upstream = up.ref
    if up.passed_over is not None:
        report.notes.append(up.passed_over)
    with bulk.page_cache(store.db, bulk.CACHE_KIB // 2), store.write() as db:
        state = state_of(db)
        first = state.get("sha256") is None and state.get("seen") is None
        mine = store_lines(db, project_id)
        known = {line.text: line for line in mine.values()}
        verdicts = ledger_verdicts.load(db, project_id) if write else None
        forgets = ledger_carried.forgets_print(db, project_id) if write else None
        written_forms(data, up, lambda: ledger_state.forgotten(db, project_id))
        carried = ledger_carried.load(db)

        def vouch(piece: bytes) -> bool:
            return piece in up.lines or carried.vouched(piece)

        read = checked(
            data,
            project_id,
            name,
            known,
            trusted=up,
            judge_unknown=write,
            verdicts=verdicts,
            vouch=vouch,
            own="1" + clone_id(db),
        )
        if verdicts is not None:
            verdicts.save(db)
        report.skipped = read.skipped
        report.notes += ledger_carried.notes(read.kept, read.claimed)
        if read.anchors_claimed:
            report.notes.append(OTHERS_ANCHORS.format(n=read.anchors_claimed))
        seen = state.get("sha256") == "sha256:" + hashlib.sha256(data).hexdigest()
        anchors, claimed = own_anchors(db, read.won.get("1" + clone_id(db)), up.lines, seen)
        report.audit = anchors_problem(db, anchors)
        if claimed is not None:
            then = "rewritten" if write else "the next sync rewrites it"
            report.notes.append(CLAIMED_ANCHOR.format(seq=claimed.data["seq"], then=then))
        if progress is not None:
            progress("sync: ledger read", 1, SYNC_STEPS)
        if ledger_history.due(state, first):
            report.history = ledger_history.take_checked(
                db, up, project_id, import_actor, report.notes
            )
        if apply(db, read, mine, project_id, import_actor, report, up) or report.history:
            mine = store_lines(db, project_id)
        if first and report.claimed:
            n = len(report.claimed)
            said = f"{n:,} memor{'y' if n == 1 else 'ies'}"
            report.notes.append(BUILT_FROM_CLAIMS.format(n=said))
        ledger_beside.record(db, read.beside.values(), anew=True)
        report.notes += _unkept(db, project_id, mine)
        if progress is not None:
            progress("sync: merged into the store", 2, SYNC_STEPS)
        if write:
            tail = ledger.carry(read.foreign)
            text = render(
                ledger.merge(mine.values(), read.beside.values()),
                project_id,
                read.won,
                db,
                anchors[0] if anchors else None,
                hold=report.audit is not None,
                same=lambda text: text.encode("utf-8") + tail == data,
            )
            report.lines = text.count("\n") + len(set(read.foreign))
            report.written = _write(path, text, read.foreign)
            data = text.encode("utf-8") + ledger.carry(read.foreign)
            at = len(data) - len(ledger.carry(read.foreign))
            ledger_carried.record(db, read.foreign, at, ledger_verdicts.guard_print(), forgets)
        remember_file(db, path, data, up)
        ledger_delta.record_claims(db, report.claim_lines)
    settle(store, report)
    if write:
        # A store built from a fresh clone's ledger where no one ran `init`,
        # or a plugin moved since: without a driver git can run, the
        # ledger's next merge would be a text merge.
        from tree_ring.team import repository

        if repository.ensure_driver(root, unset=first):
            report.notes.append(DRIVER_NOTE)
    if progress is not None:
        progress("sync: ledger written" if write else "sync: done", SYNC_STEPS, SYNC_STEPS)
    return report


def _unkept(db: Db, project_id: str, mine: dict[str, Line]) -> list[str]:
    """Let go of the lines kept with a newer Tree Ring's fields
    (`ledger_apply.keep`) that the store no longer writes: what they say
    changed since (this clone's change, or a line without those fields that
    won), and the change is written without them. One note for a person
    when there were any."""
    written = {str(line.data["id"]) for line in mine.values() if line.text != line.plain}
    stale = ledger_rows.kept_ids(db, project_id) - written
    if not stale:
        return []
    ledger_rows.drop_kept(db, stale)
    return [
        f"{len(stale):,} ledger line(s) changed since a newer Tree Ring added fields to them, "
        "and no longer carry those fields"
    ]


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
    whole: bytes | None = None,
) -> SyncReport:
    """The SessionStart hook's pass over a changed ledger (`ledger_delta.py`):
    `data`, every line of the file for the ids `ids`, and `theirs`, the
    upstream's lines for them and its lines the store has not recorded, read
    and applied as a full sync reads and applies them, against the store's
    own lines for those ids, in the caller's transaction. With `whole`, the
    file's bytes (as the pass read them), each line skipped is numbered by
    its line there, as a full sync numbers it, not by its place in `data`."""
    path = path_of(Path(root))
    report = SyncReport(str(path))
    up = Upstream(Path(root), ref, oid=oid, lines=set(theirs))
    written_forms(data, up, lambda: ledger_state.forgotten(db, project_id))
    report.upstream = ref
    actor = Actor("ledger", Origin("import"))
    mine = store_lines(db, project_id, ids)
    known = {line.text: line for line in mine.values()}
    name = f"{project.DIR}/{ledger.PATH}"
    read = checked(data, project_id, name, known, trusted=up, judge_unknown=False)
    report.skipped = read.skipped
    apply(db, read, mine, project_id, actor, report, up)
    # A line of the file skipped as it stands (malformed, secret-bearing) is skipped again.
    pieces = data.split(b"\n")
    report.claim_lines += [
        pieces[s.line - 1]
        for s in read.skipped
        if 0 < s.line <= len(pieces) and pieces[s.line - 1] not in theirs
    ]
    if whole is not None and report.skipped:
        report.skipped = [
            Skipped(line_number(whole, pieces[s.line - 1]), s.reason)
            if 0 < s.line <= len(pieces)
            else s  # a line only the upstream's ledger holds: named as its own
            for s in report.skipped
        ]
    return report


def refresh(store: Store, root: str | Path, project_id: str) -> SyncReport | None:
    """The SessionStart hook's import: the ledger's changes into the store,
    the working tree untouched; None when only the file's time had moved."""
    path = path_of(Path(root))
    if not changed(store.db, path):
        with store.write() as db:
            remember_file(db, path, read_bytes(path))
        return None
    actor = Actor("ledger", Origin("import"))
    return sync(store, Path(root), project_id, actor, write=False)


def after_write(store: Store, root: Path, project_id: str) -> bool:
    """After a person's write: the store's shared state into an existing
    ledger, so `git status` shows the change. False when there is no ledger,
    or it holds conflicts for `doctor` to resolve.

    Only what a sync would write is written: the store's own lines and the
    other clones' anchors. A ledger changed since the store last read it (a
    pull, an edit) is read first by a sync, so the upstream's lines are the
    team's and an edit is a claim for a person that stays out of the ledger;
    carried through as it stood, a committed edit would come back to every
    clone as the team's."""
    path = path_of(root)
    if not path.exists():
        return False
    if not changed(store.db, path):
        try:
            with store.write() as db:
                merge = _merge_streaming
                try:
                    written, digest = merge(db, path, project_id)
                except ledger_stream.Unsorted:
                    merge = _merge_whole
                    written, digest = merge(db, path, project_id)
                except Conflict:
                    return False
                # A write the ledger shares moves this clone's anchor with it, so
                # what is committed anchors the entries that made it.
                moved = ledger_anchor.moved(db) if written else None
                if moved is not None:
                    _, digest = merge(db, path, project_id, moved)
                if written:
                    # What was added came from the store: still in sync.
                    _remember_digest(db, path, digest)
            return written
        except ledger_carried.Unvouched:
            pass  # nothing written: the sync below asks the upstream, then writes
    return sync(store, root, project_id, Actor("ledger", Origin("import"))).written


def _merge_streaming(
    db: Db, path: Path, project_id: str, anchor: Line | None = None
) -> tuple[bool, str]:
    """`after_write`'s merge, a line at a time (ledger_stream.py): its memory
    does not grow with the ledger or the store; `anchor`: this clone's, moved,
    in place of the file's. The lines of unknown records
    the store's last write carried, still as it wrote them after the rest
    (`ledger_carried.py`), are copied through unread; another such line the
    store carried is read again, and one it did not carry raises Unvouched
    (a sync decides it)."""
    verdicts = ledger_verdicts.Lazy(db, project_id)
    read = Read({}, {}, [], {}, verdicts=verdicts)
    before = ledger_carried.load(db)
    judged = _judged(db, project_id, before)

    beside = ledger_beside.load(db)

    def check(piece: bytes) -> Line | None:
        # `check_line` notes each memory and re-admission it reads; nothing here needs them.
        read.memories.clear()
        read.readmitted.clear()
        read.files.clear()
        try:
            line = check_line(piece, project_id, read)
            return line if piece in beside else _anchor(line)
        except (ValueError, RecursionError):
            return None
        except (SchemaTooNew, OtherLedger):
            raise
        except TreeRingError:
            return None

    handle = open_ledger(path)
    if handle is None:
        return False, ""
    old = hashlib.sha256()
    carried: list[bytes] = []

    def pieces() -> Iterator[bytes]:
        # The ledger's lines as every reader reads them (`line_bound.lines`: one
        # longer than MAX_LINE_BYTES cut short), hashed as read, newlines between.
        # From the byte the store's carried lines start at, the rest is read as
        # bytes and, when it is those lines as judged, carried as it stands.
        offset = 0
        lines = line_bound.lines(handle)
        for number, raw in enumerate(lines):
            if number and offset == before.at and judged is not None:
                rest = [raw, *lines]
                old.update(b"\n" + b"\n".join(rest))
                if before.tail_holds(rest, *judged):
                    carried.extend(piece for piece in rest if piece)
                    verdicts.partial = True
                    return
                yield from rest
                return
            old.update(b"\n" + raw if number else raw)
            offset += len(raw) + 1
            yield raw

    def carries(piece: bytes) -> bool:
        if not before.vouched(piece):
            if ledger.unknown_record(_loads(piece)) is not None:
                raise ledger_carried.Unvouched
            return False
        return ledger.carries(piece, verdicts)

    header = Line({"record": ledger.HEADER, "schema": ledger.SCHEMA, "project": project_id})
    with handle:
        # The anchor's key ("1" and the clone) sorts before every store line's ("2", an id).
        own = [anchor] if anchor else []
        mine = itertools.chain(own, ledger_state.stream_lines(db, project_id))
        lines = ledger_stream.merged(pieces(), mine, check, carried, carries)
        body = (line for line in lines if line.key != "0")
        done, digest, at = ledger_stream.write_if_changed(
            path, itertools.chain([header], body), old, carried
        )
    verdicts.save(db)
    if verdicts.partial:  # the same lines, copied through: only their place may move
        ledger_carried.moved(db, before, at)
    else:
        guard = ledger_verdicts.guard_print()
        now = judged or (guard, ledger_carried.forgets_print(db, project_id))
        ledger_carried.record(db, carried, at, *now)
    return done, digest


def _judged(db: Db, project_id: str, before: ledger_carried.Carried) -> tuple[str, str] | None:
    """(the guard, the forgets) now, when the store's last write kept where
    its carried lines stand; None when it kept no such place."""
    if before.at is None:
        return None
    return ledger_verdicts.guard_print(), ledger_carried.forgets_print(db, project_id)


def _loads(piece: bytes) -> Any:
    """A line's JSON value, or None when it is no JSON in UTF-8."""
    if len(piece) > ledger.MAX_LINE_BYTES:
        return None
    try:
        return jsontext.loads_utf8(piece.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None


def _merge_whole(
    db: Db, path: Path, project_id: str, anchor: Line | None = None
) -> tuple[bool, str]:
    """`after_write`'s merge of a ledger whose lines are out of order, in memory."""
    data = read_bytes(path)
    mine = store_lines(db, project_id)
    verdicts = ledger_verdicts.load(db, project_id)
    known = {x.text: x for x in mine.values()}
    carried = ledger_carried.load(db)
    read = checked(data, project_id, path.name, known, verdicts=verdicts, vouch=carried.vouched)
    if read.claimed:
        raise ledger_carried.Unvouched
    verdicts.save(db)
    beside = ledger_beside.load(db)
    kept = [
        line
        for line in read.won.values()
        if _anchor(line) is not None or line.text.encode("utf-8") in beside
    ]
    kept += [anchor] if anchor else []
    text = render_merged(ledger.merge(kept, mine.values()), project_id)
    encoded = text.encode("utf-8") + ledger.carry(read.foreign)
    forgets = ledger_carried.forgets_print(db, project_id)
    at = len(text.encode("utf-8"))
    ledger_carried.record(db, read.foreign, at, ledger_verdicts.guard_print(), forgets)
    return _write(path, text, read.foreign), "sha256:" + hashlib.sha256(encoded).hexdigest()


def _anchor(line: Line | None) -> Line | None:
    """`line` when it is another clone's anchor. Of a ledger the store has read
    whole, the anchors are all `after_write` keeps besides the store's own
    lines: any other line the store lacks is a claim its sync queued for a
    person, or one it skipped."""
    return line if line is not None and line.key.startswith("1") else None


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
    state = state_of(db)
    if seen is None:
        return False
    if (state.get("size"), state.get("mtime_ns")) == seen:
        return False
    data = read_bytes(path)
    kept = ledger_delta.seen_bytes(db, state)
    if kept is not None:
        return data != kept
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    return digest != state.get("sha256")
