"""The SessionStart hook's pass over a changed team ledger: only what changed.

A full sync (`sync.py`) checks every line of the ledger, asks git what the
upstream holds and compares the whole with the store: over a second at
10,000 memories, most of it for lines the last sync already saw. So each sync
keeps, beside the store (`memory.sqlite-ledger`: local like the store, under
`.tree-ring/.gitignore`'s `memory.sqlite-*`, never committed), the ledger's
bytes as it saw them, and the store keeps what it knew of the upstream (the
remote-tracking ref, the blob id of its ledger and a fingerprint of each of
its lines, `ledger_prints.py`: the `ledger_upstream` setting). When the ledger's size or time moved:

- the file is compared with the bytes the last sync saw, a block at a time
  by offset (neither is read whole): the lines between the first and last
  difference that are new, and the ids of the lines removed, are the change;
  a removed line may have hidden another of its id, sought in the file only
  when the kept bytes held another line of that id or a new line names it
  (each keeping records the ids more than one kept line may name);
- a new line byte for byte what the store itself writes for its id is the
  store's own; a claim already taken (by its line's hash) was taken once;
- whether the upstream moved is asked only when some new line is neither, or
  a removed line was not the store's own: of `.git` first (`git_refs.py`),
  which can only say "where the store recorded it"; otherwise of git (one
  `rev-parse`: the upstream's commit, its ledger's blob id and its name);
  the upstream's ledger is read (one `cat-file`) only when the upstream moved
  since the store recorded it, or a line must be applied;
- a line the store's record says the upstream held was applied when it was
  recorded; any other line not from the upstream is a claim;
- what remains goes through `sync.apply_lines`, as a full sync applies it:
  every line of the file naming one of those ids, the store's own lines for
  them, the upstream's lines for them and the upstream's new lines.

The side file can make work skippable, never grant trust: whether a line is
the upstream's comes from git or from the store's own record, never from the
side file. A line it wrongly lists as seen is one the hook does not look at
(a claim waits for the next `tree-ring sync`), just as a ledger whose size and
time were put back is. A missing, resized, retouched, linked or unreadable
side file, a new header, conflict markers, or more than MAX_IDS ids changed:
the full pass. `tree-ring sync` always makes the full pass.

Light on purpose (the hook imports it): no `re`, `json`, `typing`,
`dataclasses`, `hashlib` or `subprocess`; `sync.py` is imported only when a
line must be applied.
"""

from __future__ import annotations

import os

from tree_ring.model import jsontext, line_bound, project
from tree_ring.model.record import sha256
from tree_ring.store import ledger_rows, settings
from tree_ring.team import ledger, ledger_file, team_remote
from tree_ring.team.ledger_file import FullPass, Opened, changed_lines
from tree_ring.team.ledger_prints import Prints, fingerprint, fingerprints, pack
from tree_ring.team.ledger_state import store_lines

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from pathlib import Path
    from typing import Any

    from tree_ring.store.db import Store
    from tree_ring.store.sql import Db

LEDGER = "./.tree-ring/ledger.jsonl"  # relative to the project root (git's `./` form)
SIDE = "-ledger"  # the store's path + this: the ledger's bytes as the last sync saw them
SETTING = "ledger"
UPSTREAM = "ledger_upstream"
CLAIMS = "ledger_claims"
# One `rev-parse`: the upstream's commit, its ledger's blob id, then its full name.
PROBE = (
    "rev-parse",
    "@{upstream}",
    f"@{{upstream}}:{LEDGER}",
    "--symbolic-full-name",
    "@{upstream}",
)
MAX_IDS = 256  # more ids changed than this: the full pass, which reads each line once
KEEP_AFTER = 64  # lines changed since the kept bytes: beyond, the file's bytes are kept anew
MAX_LINE_BYTES = line_bound.MAX_LINE_BYTES  # sync's: a longer line is skipped there
_UPSTREAM_SOURCE = "upstream"  # upstream.UPSTREAM: a line the upstream held is no claim


# -- files -------------------------------------------------------------------------------


def side_path(db: Db) -> str:
    return str(db.path) + SIDE


def open_seen(db: Db, state: dict[str, Any]) -> Opened | None:
    """The side file when it is the one the last sync wrote (its size and time
    as recorded); None otherwise."""
    mark = state.get("seen")
    if not isinstance(mark, list) or len(mark) != 2:  # pyright: ignore[reportUnknownArgumentType]
        return None
    found = Opened.open(side_path(db))
    if found is not None and [found.size, found.info.st_mtime_ns] != mark:
        found.close()
        return None
    return found


def seen_bytes(db: Db, state: dict[str, Any]) -> bytes | None:
    """The ledger's bytes as the last sync saw them, when the side file is the
    one that sync wrote (its size and time as recorded); None otherwise."""
    found = open_seen(db, state)
    if found is None:
        return None
    try:
        return found.data
    except FullPass:
        return None
    finally:
        found.close()


def keep_seen(db: Db, state: dict[str, Any], data: bytes, named: set[str] | None = None) -> None:
    """Write `data` as the bytes this sync saw, and mark them in `state` (the
    caller's `ledger` setting, written in its transaction), with the ids more
    than one of its lines may name (`shared_ids`): searched for, or (`named`:
    the ids of the lines new since the bytes kept before) those of the bytes
    kept before and these. A folder it cannot write leaves no mark: the next
    change takes the full pass."""
    before = state.get("shared")
    state["seen"] = state["shared"] = None
    state["seen"] = _write_side(db, (data,))
    if state["seen"] is None:
        return
    if named is None:
        state["shared"] = pack(shared_ids(data))
    elif (known := Prints(before)).known:  # a line of an id not new hid no other when kept before
        state["shared"] = pack(_grown(known, data, named))


_FEW = 8  # new ids counted in the bytes kept; more, and all of them are searched


def _grown(before: Prints, data: bytes, named: set[str]) -> set[bytes]:
    """`shared_ids(data)` from the bytes kept before's (`before`) and the ids
    `named` by the lines new since: each such id not already among them counted
    in `data`."""
    fresh = [n for n in named if fingerprint(n.encode()) not in before]
    if len(fresh) > _FEW:
        return shared_ids(data)
    return before.all() | fingerprints(n.encode() for n in fresh if _naming(data, n) > 1)


def _naming(data: bytes, memory_id: str) -> int:
    """How many lines of `data` are of `memory_id` (as `_group` finds them)."""
    needle = b'"' + memory_id.encode("utf-8") + b'"'
    found = 0
    at = data.find(needle)
    while at >= 0:
        start = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at)
        end = len(data) if end < 0 else end
        try:
            found += (e := entry(data[start:end], added=False)) is not None and e.id == memory_id
        except FullPass:  # conflict markers: counted, so that the id is sought
            found += 1
        at = data.find(needle, end)
    return found


def shared_ids(data: bytes) -> set[bytes]:
    """The fingerprint of each id more than one line of `data` may name: a line
    removed whose id is not among them hid no other line (its id need not be
    sought again). A line without a backslash names an id only as `"id":"..."`
    when every `"id"` in it is so followed; any other line is read. Searched
    through the whole (a pass over each line costs several times more)."""
    named: dict[int, set[bytes]] = {}  # a line's start: the ids it names
    read: set[int] = set()  # the starts of the lines read whole
    at = data.find(b"\\")
    while at >= 0:
        read.add(data.rfind(b"\n", 0, at) + 1)
        end = data.find(b"\n", at)
        at = data.find(b"\\", end) if end >= 0 else -1
    at = data.find(b'"id"')
    while at >= 0:
        start = data.rfind(b"\n", 0, at) + 1
        if start not in read:
            close = data.find(b'"', at + 6)
            if data.startswith(b':"', at + 4) and close >= 0 and b"\n" not in data[at:close]:
                named.setdefault(start, set()).add(data[at + 6 : close])
            else:
                read.add(start)
        at = data.find(b'"id"', at + 4)
    for start in read:
        end = data.find(b"\n", start)
        try:
            found = entry(data[start : len(data) if end < 0 else end], added=False)
        except FullPass:
            found = None
        named[start] = {found.id.encode()} if found is not None else set()
    once: set[bytes] = set()
    shared: set[bytes] = set()
    for names in named.values():
        shared |= names & once
        once |= names
    return fingerprints(shared)


def keep_seen_file(db: Db, state: dict[str, Any], source: Path) -> None:
    """`keep_seen` for a ledger that is not held in memory: copied from
    `source` a block at a time. Anything it cannot read or write leaves no
    mark, as there."""
    state["seen"] = None
    try:
        src = os.open(source, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return
    try:
        state["seen"] = _write_side(db, iter(lambda: os.read(src, 1 << 20), b""))
    finally:
        os.close(src)


def _write_side(db: Db, blocks: Iterable[bytes]) -> list[int] | None:
    """Write `blocks` as the side file (`side_path`): beside it, then renamed
    over it. Its size and time as `state["seen"]` marks them, or None when
    anything could not be read or written (nothing is left behind)."""
    path = side_path(db)
    temporary = ""
    try:
        fd, temporary = project.temporary_beside(path, 0o600)
        try:
            size = 0
            for block in blocks:
                view = memoryview(block)
                while view:
                    view = view[os.write(fd, view) :]
                size += len(block)
            info = os.fstat(fd)
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except OSError:
        _discard(temporary)
        return None
    return [size, info.st_mtime_ns]


def _discard(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        return


def ledger_state(db: Db) -> dict[str, Any]:
    value = jsontext.as_object(settings.read(db, SETTING))
    return dict(value) if value else {}


# -- the upstream as the store recorded it -----------------------------------------------


def record_upstream(
    db: Db, ref: str | None, oid: str | None, lines: set[bytes], commit: str | None = None
) -> None:
    """What the store now knows the upstream's ledger held (at the upstream's
    commit `commit`): every one of these lines was applied (or refused) by the
    sync that records it."""
    settings.write(
        db,
        UPSTREAM,
        {"ref": ref, "oid": oid, "commit": commit, "lines": pack(fingerprints(lines))},
    )


def recorded_upstream(db: Db) -> tuple[str | None, str | None, str | None, Prints]:
    """(ref, ledger blob id, commit, the fingerprints of its lines) as recorded.
    Lines recorded in another format (an older version's): nothing recorded,
    so the upstream is asked and read again rather than trusted by them."""
    value = jsontext.as_object(settings.read(db, UPSTREAM)) or {}
    ref, oid, commit = value.get("ref"), value.get("oid"), value.get("commit")
    lines = Prints(value.get("lines"))
    if not lines.known:
        return None, None, None, lines
    return (
        ref if isinstance(ref, str) else None,
        oid if isinstance(oid, str) else None,
        commit if isinstance(commit, str) else None,
        lines,
    )


def recorded_claims(db: Db) -> Prints:
    """The fingerprint of each raw line a sync read as a claim: taken (now or
    before), or refused or skipped as it stands. Another format's: none (each
    is read again; `provenance.taken` still takes a claim once)."""
    value = jsontext.as_object(settings.read(db, CLAIMS)) or {}
    return Prints(value.get("lines"))


def record_claims(db: Db, raws: Iterable[bytes]) -> None:
    """Add these raw claim lines: a claim is taken once (`provenance.taken`),
    and one refused as it stands is refused again."""
    fresh = fingerprints(set(raws))
    recorded = recorded_claims(db)
    held = recorded.all()
    if not fresh <= held or not recorded.known:
        settings.write(db, CLAIMS, {"lines": pack(held | fresh)})


def parse_probe(out: bytes | None) -> tuple[str | None, str | None, str | None]:
    """(remote-tracking ref, ledger blob id, commit) from PROBE's output."""
    found = (out or b"").decode("utf-8", "replace").split()
    if len(found) != 3 or not found[2].startswith("refs/remotes/"):
        return None, None, None
    return found[2], found[1], found[0]


# Where a branch without an upstream reads the team's memory (`probe`): the
# remote's default branch as a clone records it, else git's usual names for it.
DEFAULT_BRANCHES = ("HEAD", "main", "master")


def probe(
    root: str, run: Callable[..., bytes | None]
) -> tuple[str | None, str | None, str | None, str | None]:
    """(remote-tracking ref, ledger blob id, commit) of the branch's upstream
    when it is a branch of the team's remote (`team_remote.py`), and None;
    three Nones and one line saying why when the upstream is another
    remote's; four when there is none or git could not say. `run` runs git.

    A branch with no upstream (made with `git checkout -b` or `git worktree
    add -b`, not pushed yet) is read against the team's remote's default
    branch (`DEFAULT_BRANCHES`: `refs/remotes/TEAM/HEAD`, which a clone
    sets, else TEAM's `main` or `master`): the branch came
    from the team's memory, and without it every team line would be a claim,
    the brief empty, and the ledger its next write rewrote would drop them."""
    ref, oid, commit = parse_probe(run(root, *PROBE))
    remotes = None
    if ref is None:
        remotes = run(root, *team_remote.QUERY)
        team = team_remote.Remotes(remotes).team()
        if team is None:
            return None, None, None, None
        for name in DEFAULT_BRANCHES:
            default = f"refs/remotes/{team}/{name}"
            ask = (default, f"{default}:{LEDGER}", "--symbolic-full-name", default)
            ref, oid, commit = parse_probe(run(root, "rev-parse", *ask))
            if ref is not None:
                break
        else:
            return None, None, None, None
    why = team_remote.passed_over(ref, remotes or run(root, *team_remote.QUERY))
    if why is not None:
        return None, None, None, why
    return ref, oid, commit, None


def git(root: str, *args: str) -> bytes | None:
    """A read-only git command's output, or None when it failed or git is missing."""
    spawn = getattr(os, "posix_spawnp", None)
    if spawn is None:  # pragma: no cover - not on POSIX
        import subprocess

        done = subprocess.run(["git", "-C", root, *args], capture_output=True, check=False)
        return done.stdout if done.returncode == 0 else None
    reader, writer = os.pipe()
    null = os.open(os.devnull, os.O_RDWR)
    try:
        actions = [
            (os.POSIX_SPAWN_DUP2, null, 0),
            (os.POSIX_SPAWN_DUP2, writer, 1),
            (os.POSIX_SPAWN_DUP2, null, 2),
        ]
        try:
            pid = spawn("git", ["git", "-C", root, *args], os.environ, file_actions=actions)
        except OSError:
            os.close(reader)
            return None
    finally:
        os.close(writer)
        os.close(null)
    # Read as the ledger's file is: a line longer than MAX_LINE_BYTES cut short.
    with os.fdopen(reader, "rb") as pipe:
        out = line_bound.bounded(pipe)
    _, status = os.waitpid(pid, 0)
    return out if os.waitstatus_to_exitcode(status) == 0 else None


class Upstream:
    """The upstream as this pass learns it: asked once, read at most once.

    Asked of `.git` first (`git_refs.py`): when the branch's upstream is the
    ref the store recorded, at the commit it recorded, it has not moved, and
    git is not started. Any other answer, or none, and git is asked."""

    def __init__(self, db: Db, root: str) -> None:
        self.root = root
        self.old_ref, self.old_oid, self.old_commit, self.old = recorded_upstream(db)
        self.asked = False
        self.ref: str | None = None
        self.oid: str | None = None
        self.commit: str | None = None
        self.lines: set[bytes] | None = None  # the upstream's ledger lines, once read

    def ask(self) -> None:
        if self.asked:
            return
        self.asked = True
        if self.old_ref is not None and self.old_commit is not None:
            from tree_ring.team import git_refs

            if git_refs.upstream(self.root) == (self.old_ref, self.old_commit):
                self.ref, self.oid, self.commit = self.old_ref, self.old_oid, self.old_commit
                return
        self.ref, self.oid, self.commit, _ = probe(self.root, git)

    @property
    def moved(self) -> bool:
        self.ask()
        return (self.ref, self.oid, self.commit) != (self.old_ref, self.old_oid, self.old_commit)

    def read(self) -> set[bytes]:
        self.ask()
        if self.lines is None:
            data = git(self.root, "cat-file", "blob", self.oid) if self.oid else b""
            self.lines = {piece for piece in (data or b"").split(b"\n") if piece.strip()}
        return self.lines

    def held(self, raw: bytes) -> bool:
        """Whether the upstream holds `raw`; by the store's record when the
        upstream has not moved, since every line it recorded was applied."""
        if self.moved:
            return raw in self.read()
        return fingerprint(raw) in self.old

    def new_lines(self) -> set[bytes]:
        """The upstream's lines the store has not recorded (none when it has not moved)."""
        if not self.moved:
            return set()
        return {raw for raw in self.read() if fingerprint(raw) not in self.old}


# -- the change --------------------------------------------------------------------------


class Entry:
    """A memory, tombstone or redaction line of the change, read loosely (the
    full check is `sync`'s): its raw bytes, its id and its canonical text."""

    __slots__ = ("id", "raw", "text")

    def __init__(self, raw: bytes, memory_id: str, text: str) -> None:
        self.raw, self.id, self.text = raw, memory_id, text


def _fits(header: dict[str, Any], project_id: str | None) -> bool:
    """A header this version reads, of this project (what `sync` refuses otherwise)."""
    schema = header.get("schema")
    return (
        isinstance(schema, int)
        and schema <= ledger.SCHEMA
        and project_id is not None
        and header.get("project") == project_id
    )


def entry(raw: bytes, *, added: bool = True, project_id: str | None = None) -> Entry | None:
    """The line as an entry; None for one sync skips or needs nothing from
    (unreadable, an anchor, a header removed). A header, conflict marker or
    line holding a lone surrogate (`jsontext.loads_utf8`) added: the full
    pass, which refuses what it must and names what it skips."""
    if len(raw) > MAX_LINE_BYTES:
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if ledger.has_markers(text):
        raise FullPass("conflict markers")
    try:
        data = jsontext.as_object(jsontext.loads_utf8(text))
    except jsontext.LoneSurrogate:
        if added:
            raise FullPass("a line holding a lone surrogate") from None
        return None
    except (ValueError, RecursionError):
        return None
    if data is None:
        return None
    record, memory_id = data.get("record"), data.get("id")
    if record == ledger.HEADER and added and not _fits(data, project_id):
        raise FullPass("a header from another project or a newer schema")
    if record not in ledger.ENTRY_RANK or not isinstance(memory_id, str):
        return None
    return Entry(raw, memory_id, ledger.canonical(data))


def taken(db: Db, texts: Iterable[str]) -> set[str]:
    """Which of `texts` a sync already took as claims (`provenance.taken`)."""
    wanted = {sha256(text): text for text in texts}
    if not wanted:
        return set()
    return {wanted[found] for found in ledger_rows.taken_hashes(db, _UPSTREAM_SOURCE, wanted)}


def _group(data: bytes, memory_id: str) -> set[bytes]:
    """Every line of `data` for `memory_id` (a line naming it as a JSON
    string, found by a byte search, whose id it is)."""
    needle = b'"' + memory_id.encode("utf-8") + b'"'
    found: set[bytes] = set()
    at = data.find(needle)
    while at >= 0:
        start = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at)
        end = len(data) if end < 0 else end
        found.add(data[start:end])
        at = data.find(needle, end)
    return {raw for raw in found if (e := entry(raw)) is not None and e.id == memory_id}


def _group_in(found: Opened, memory_id: str) -> set[bytes]:
    """`_group` over a file read a block at a time (the whole never held)."""
    needle = b'"' + memory_id.encode("utf-8") + b'"'
    overlap = len(needle) - 1
    if found.size <= ledger_file.BLOCK or overlap >= ledger_file.BLOCK // 2:
        return _group(found.data, memory_id)
    hits: set[int] = set()
    start = 0
    while start < found.size:
        length = min(ledger_file.BLOCK, found.size - start)
        data = found.block(start, length)
        at = data.find(needle)
        while at >= 0:
            hits.add(start + at)
            at = data.find(needle, at + 1)
        if start + length >= found.size:
            break
        start += length - overlap
    lines: set[bytes] = set()
    past = 0  # the end of the line the last hit was in: a line is sought once
    for at in sorted(hits):
        if at < past:
            continue
        end = ledger_file.next_line(found, at)
        start, past = ledger_file.line_start(found, at), end - 1 if end else found.size
        if past - start <= MAX_LINE_BYTES:  # a longer line is no entry: never read whole
            lines.add(found.read(start, past))
    return {raw for raw in lines if (e := entry(raw)) is not None and e.id == memory_id}


# -- one pass ----------------------------------------------------------------------------


class Work:
    """What a change leaves to apply (`ledger_refresh.py` hands it to `sync.apply_lines`):
    the file's lines and the upstream's lines for the ids `ids`."""

    def __init__(
        self,
        state: dict[str, Any],
        now: bytes,
        info: os.stat_result,
        up: Upstream,
        lines: set[bytes],
        theirs: set[bytes],
        ids: set[str],
        named: set[str],
    ) -> None:
        self.state, self.now, self.info, self.up = state, now, info, up
        self.lines, self.theirs, self.ids = lines, theirs, ids
        self.named = named  # the ids the file's new lines name

    def remember(self, db: Db, claims: Iterable[bytes]) -> None:
        """In the transaction that applied the work: the file and upstream as
        seen, and the raw lines taken as claims."""
        if ledger_state(db) != self.state:
            raise FullPass("another sync ran meanwhile")
        _remember(db, self.state, self.now, self.info, self.up, self.named)
        record_claims(db, claims)


def delta(store: Store, root: str, project_id: str) -> str | Work:
    """The change since the last sync: "unchanged" (only the file's time
    moved) or "seen" (nothing in it to apply), recorded; or the Work left.
    FullPass when the change cannot be read apart from the rest."""
    db = store.db
    state = ledger_state(db)
    seen = open_seen(db, state)
    found = Opened.open(os.path.join(root, ".tree-ring", "ledger.jsonl"))
    try:
        if seen is None or found is None:
            raise FullPass("nothing seen to compare with")
        return _delta(store, project_id, state, found, seen, root)
    finally:
        for opened in (seen, found):
            if opened is not None:
                opened.close()


def _delta(
    store: Store, project_id: str, state: dict[str, Any], now: Opened, seen: Opened, root: str
) -> str | Work:
    db, info = store.db, now.info
    same = ledger_file.common_head(now, seen, min(now.size, seen.size))
    if same == now.size == seen.size:
        return _record(store, state, None, info, None, "unchanged")
    added, removed = changed_lines(now, seen, same)
    new = [e for e in (entry(raw, project_id=project_id) for raw in added) if e is not None]
    gone = [e for e in (entry(raw, added=False) for raw in removed) if e is not None]
    named = {e.id for e in new}  # every id a new line names
    ids = named | {e.id for e in gone}
    if len(ids) > MAX_IDS:
        raise FullPass("a large change")
    mine = {line.data["id"]: line.text for line in store_lines(db, project_id, ids).values()}
    new = [e for e in new if mine.get(e.id) != e.raw.decode()]  # the store's own: nothing to do
    gone = [e for e in gone if mine.get(e.id) != e.raw.decode()]
    up = Upstream(db, root)
    work: list[Entry] = []
    if new:  # a line not the store's own: what does the upstream hold?
        known = recorded_claims(db)
        claims = [e for e in new if not up.held(e.raw) and fingerprint(e.raw) not in known]
        taken_texts = taken(db, [e.text for e in claims])
        work += [e for e in claims if e.text not in taken_texts]
        if up.moved:
            work += [e for e in new if up.held(e.raw) and fingerprint(e.raw) not in up.old]
    # A removed line may have hidden another line of its id: read that id again.
    work_ids = {e.id for e in work} | {e.id for e in gone if _hid(state, now, e.id, named)}
    if work_ids:
        up.ask()
    if up.asked and up.moved:  # the upstream's lines the store has not recorded
        theirs = [e for e in (entry(r, project_id=project_id) for r in up.new_lines()) if e]
        held = {e.id for e in theirs if e.id not in mine}
        mine.update(
            (line.data["id"], line.text) for line in store_lines(db, project_id, held).values()
        )
        work_ids |= {e.id for e in theirs if mine.get(e.id) != e.raw.decode()}
    if not work_ids:
        # Nothing to apply: the kept bytes stay (a line of the change is looked
        # at again next time, cheaply) unless the change has grown large.
        keep = now.data if len(added) + len(removed) > KEEP_AFTER else None
        return _record(store, state, keep, info, up, "seen", named)
    if len(work_ids) > MAX_IDS:
        raise FullPass("a large change")
    lines = {e.raw for e in work}
    for memory_id in work_ids:
        lines |= _group(now.data, memory_id)
    upstream_lines: set[bytes] = set()
    # The upstream's lines for those ids, when it moved or one of them may be its
    # own; otherwise the store's record says none of them is.
    if up.oid is not None and (up.moved or any(fingerprint(raw) in up.old for raw in lines)):
        upstream_data = b"\n".join(sorted(up.read()))
        for memory_id in work_ids:
            upstream_lines |= _group(upstream_data, memory_id)
    return Work(state, now.data, info, up, lines, upstream_lines, work_ids, named)


def _hid(state: dict[str, Any], now: Opened, memory_id: str, named: set[str]) -> bool:
    """Whether the file holds a line of `memory_id`, one of whose lines was
    removed. When the kept bytes held no other line of it (`shared_ids`), the
    unchanged lines hold none: only a new line can; otherwise the file is sought."""
    shared = Prints(state.get("shared"))
    if shared.known and fingerprint(memory_id.encode()) not in shared:
        return memory_id in named
    return bool(_group_in(now, memory_id))


def _record(
    store: Store,
    state: dict[str, Any],
    now: bytes | None,
    info: os.stat_result,
    up: Upstream | None,
    said: str,
    named: set[str] | None = None,
) -> str:
    with store.write() as db:
        if ledger_state(db) != state:
            raise FullPass("another sync ran meanwhile")
        _remember(db, state, now, info, up, named)
    return said


def _remember(
    db: Db,
    state: dict[str, Any],
    now: bytes | None,
    info: os.stat_result,
    up: Upstream | None,
    named: set[str] | None = None,
) -> None:
    """The file as this pass saw it (None: the bytes already kept; `named`: the
    ids its new lines name); the upstream as it read it, when it moved."""
    fresh = dict(state)
    fresh.update(size=info.st_size, mtime_ns=info.st_mtime_ns)
    fresh.pop("catchup", None)  # a full pass's parts (`ledger_catchup.py`) held for older bytes
    if now is not None:
        fresh["sha256"] = None  # the kept bytes say what was seen; the hash is the full pass's
        keep_seen(db, fresh, now, named)
    settings.write(db, SETTING, fresh)
    if up is not None and up.asked and up.moved:
        record_upstream(db, up.ref, up.oid, up.read(), up.commit)
