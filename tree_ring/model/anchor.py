"""A memory's anchor: what it recorded of a file it is about, and whether
the file has changed since.

An anchor holds the file's path relative to the project root, its content
hash as git hashes a blob (sha1 of ``blob <size>\\0`` and the bytes, so it can
be compared with a commit's tree without running git), its size and
modification time, and the commit checked out when it was written.

A file is judged by size and time first: both equal, it is fresh, unread; a
different size, it changed, unread. Only an equal size with another time is
read and hashed, and an equal hash is fresh (a checkout that rewrote the same
bytes); its new size and time are then worth keeping (`Check.seen`), so the
next check is a `stat` again. One pass of checks (`Checker`) hashes a file at
most once, however many memories anchor it, and a pass given a budget (the
brief's) hashes no more bytes than that: a file past it is unchecked, neither
stale nor fresh. A file that is gone is deleted; one that cannot be opened as a
regular file under the root without following a link (a link put in its
place, a folder, no permission) is unreadable. Nothing outside the project is
ever opened: every folder on the way is opened from the root with
``O_NOFOLLOW``, so a link anywhere on the path stops the walk.

This module is on the SessionStart hook's path (the brief marks stale lines),
so it imports nothing beyond `os` and `stat`: no hashlib (`_sha1` is the
interpreter's own), no pathlib.
"""

from __future__ import annotations

import errno
import os
import stat

from tree_ring.model.errors import UsageError
from tree_ring.model.frozen import Frozen

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

# A memory names at most this many files; more is refused before any is read.
MAX_FILES = 64
MAX_PATH = 1024  # characters of one path, as given
# Files larger than this are not hashed: an anchor is for source, not data.
MAX_HASHED = 64 << 20
# Folders an anchor may not name or pass through: git's and Tree Ring's own.
REFUSED_PARTS = (".git", ".tree-ring")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CHUNK = 1 << 20

# What one brief hashes at most, over all its files. A checkout or a formatter
# moves the time of files it leaves as they were, and each one that kept its
# size is then read whole: 64 files of up to `MAX_HASHED` a memory, eight
# memories a brief, would take the SessionStart hook past its harness's
# timeout. A file past the budget is `UNCHECKED` this time.
HASH_BUDGET = 64 << 20

FRESH = "fresh"
CHANGED = "changed"
DELETED = "deleted"
UNREADABLE = "unreadable"
UNCHECKED = "unchecked"  # not judged this time: past the pass's hash budget
STALE_STATES = (CHANGED, DELETED, UNREADABLE)


class Anchor(Frozen):
    path: str  # relative to the project root, '/'-separated
    blob: str  # git's blob id of the content (40 hex)
    size: int  # bytes; -1 when not known (an anchor from a teammate's ledger)
    mtime_ns: int  # modification time; -1 when not known
    commit: str | None  # the commit checked out when anchored, if any
    at: str  # when it was anchored (UTC, ISO)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "blob": self.blob,
            "size": self.size,
            "mtime_ns": self.mtime_ns,
            "commit": self.commit,
            "at": self.at,
        }


class Check(Frozen):
    """What one anchored file is now."""

    anchor: Anchor
    state: str  # fresh | changed | deleted | unreadable | unchecked
    # The file's size and time when a hash found it as anchored though its
    # time had moved: what the anchor may record instead, so the next check
    # needs no hash (`read/staleness.keep_seen`). None otherwise.
    seen: tuple[int, int] | None = None

    @property
    def stale(self) -> bool:
        return self.state in STALE_STATES

    @property
    def unchecked(self) -> bool:
        return self.state == UNCHECKED

    def words(self) -> str:
        """`"src/x.py" changed since 2026-11-30`; `"src/x.py" not checked this
        time` for a file past the hash budget. The path is a file's name, data:
        between double quotes (`text.in_quotes`), so a name cannot pass for a
        label Tree Ring writes beside it, in a brief, a listing or a mark."""
        from tree_ring.model.text import in_quotes

        path = in_quotes(self.anchor.path)
        if self.state == UNCHECKED:
            return f"{path} not checked this time"
        return f"{path} {self.state} since {self.anchor.at[:10]}"


def _sha1_constructor() -> Callable[..., Any]:
    """The interpreter's built-in sha1, without hashlib (which loads OpenSSL)."""
    if _sha1:
        return _sha1[0]
    try:
        _sha1.append(__import__("_sha1").sha1)
    except (ImportError, AttributeError):  # pragma: no cover - a build without it
        from hashlib import sha1

        _sha1.append(sha1)
    return _sha1[0]


_sha1: list[Callable[..., Any]] = []


def blob_id(data: bytes) -> str:
    """git's blob id of `data`: what `git hash-object` prints."""
    hasher = _sha1_constructor()(b"blob %d\0" % len(data))
    hasher.update(data)
    return hasher.hexdigest()


def normalise(root: str, raw: str, base: str | None = None) -> str:
    """`raw` (relative to `base`, the caller's folder, or the root) as a path
    relative to the project root, '/'-separated; refused with a one-line
    error when it is not a plain path to a place inside the project. The file
    itself is judged by `measure`."""
    if not isinstance(raw, str) or not raw:  # pyright: ignore[reportUnnecessaryIsInstance]
        raise UsageError("an anchored file needs a path; give one with --file PATH")
    shown = raw[:80].encode("unicode_escape").decode("ascii")
    if len(raw) > MAX_PATH:
        raise UsageError(f"the path {shown}... is over {MAX_PATH} characters; name a shorter one")
    if not plain(raw):
        raise UsageError(
            f"the path {shown} holds control characters or invisible ones; name the file plainly"
        )
    full = os.path.normpath(os.path.join(base or root, raw))
    # A trailing slash names a folder, though `normpath` drops it: refused
    # before it does, so `a.py/` is not taken for the file `a.py`.
    if raw.endswith(("/", os.sep)):
        raise UsageError(f"{shown} ends in a slash, which names a folder; --file takes a file")
    rel: str | None = None
    for top in dict.fromkeys((os.path.abspath(root), os.path.realpath(root))):
        candidate = os.path.relpath(full, top)
        if candidate == os.curdir:
            raise UsageError(f"{shown} is the project folder; --file takes a file")
        if candidate not in (os.curdir, os.pardir) and not candidate.startswith(os.pardir + os.sep):
            rel = candidate
            break
    if rel is None or os.path.isabs(rel):
        raise UsageError(f"{shown} is outside the project; anchor files inside {root} only")
    parts = rel.split(os.sep)
    for part in parts:
        if part.lower() in REFUSED_PARTS:
            raise UsageError(f"{shown} is inside {part}; anchor the project's own files")
    return "/".join(parts)


def _open(root: str, rel: str) -> int:
    """A read-only descriptor of the regular file `rel` under `root`, every
    part opened without following a link. Raises OSError (ENOENT for a file
    that is gone; ELOOP or ENOTDIR for a link on the way)."""
    parts = rel.split("/")
    fd = os.open(root, os.O_RDONLY | _DIRECTORY)
    try:
        for part in parts[:-1]:
            inner = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = inner
        found = os.open(parts[-1], os.O_RDONLY | _NOFOLLOW | _NONBLOCK, dir_fd=fd)
    finally:
        os.close(fd)
    if not stat.S_ISREG(os.fstat(found).st_mode):
        os.close(found)
        raise IsADirectoryError(f"{rel} is not a regular file")
    return found


def _read_all(fd: int, size: int) -> bytes:
    chunks: list[bytes] = []
    left = size + 1  # one byte more shows a file that grew while read
    while left > 0:
        chunk = os.read(fd, min(left, _CHUNK))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def measure(root: str, rel: str, commit: str | None, at: str) -> Anchor:
    """The anchor of `rel` as it is now; a one-line error for a file that
    cannot be anchored."""
    try:
        fd = _open(root, rel)
    except FileNotFoundError:
        raise UsageError(f"no file at {rel}; anchor a file that exists") from None
    except IsADirectoryError:
        raise UsageError(f"{rel} is not a regular file; anchor a file, not a folder") from None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):  # a link on the way
            raise UsageError(f"{rel} goes through a link; anchor the file itself") from None
        raise UsageError(f"{rel} cannot be read ({exc.strerror}); anchor a readable file") from None
    return _measured(fd, rel, commit, at)


def measure_file(root: str, rel: str, commit: str | None, at: str) -> Anchor | None:
    """The anchor of `rel` as it is now, or None when no regular file is
    there to anchor: what a check calls deleted or unreadable (gone, a folder,
    a FIFO, a link in its place or on the way, no permission, a stored path no
    anchor may hold). Opened as a check opens it, so nothing is read through a
    link. What a confirm re-anchors to, where such a path drops out as a file
    that is gone does: `measure`'s errors tell how to name a file, and a
    confirm names none."""
    if not valid_path(rel):
        return None
    try:
        return _measured(_open(root, rel), rel, commit, at)
    except OSError:
        return None


def _measured(fd: int, rel: str, commit: str | None, at: str) -> Anchor:
    """The anchor of the file open at `fd` (closed here)."""
    try:
        info = os.fstat(fd)
        if info.st_size > MAX_HASHED:
            raise UsageError(f"{rel} is over {MAX_HASHED >> 20} MiB; anchor source files")
        data = _read_all(fd, info.st_size)
    finally:
        os.close(fd)
    return Anchor(rel, blob_id(data), len(data), info.st_mtime_ns, commit, at)


def check(root: str, anchor: Anchor) -> Check:
    """Whether `anchor`'s file is as it was (`Checker.check`), on its own."""
    return Checker(root).check(anchor)


class Checker:
    """One pass of checks under `root` (a brief, recall's results, `stale`):
    each file is read and hashed at most once, whichever memories anchor it,
    and with a `budget`, no more than that many bytes are hashed in all."""

    __slots__ = ("_hashed", "left", "root")

    def __init__(self, root: str, budget: int | None = None) -> None:
        self.root = root
        self.left = budget  # bytes it may still hash; None: no bound
        self._hashed: dict[str, tuple[int, int, str]] = {}  # path: size, time, blob

    def check(self, anchor: Anchor) -> Check:
        """Whether `anchor`'s file is as it was: size and time first, the hash
        only when the size is equal and the time is not (or either is
        unknown). A stored path that is not a plain relative path is never
        opened; a file the budget has no room for is unchecked."""
        if not valid_path(anchor.path):
            return Check(anchor, UNREADABLE)
        try:
            fd = _open(self.root, anchor.path)
        except FileNotFoundError:
            return Check(anchor, DELETED)
        except OSError:
            return Check(anchor, UNREADABLE)
        try:
            info = os.fstat(fd)
            if anchor.size >= 0 and info.st_size != anchor.size:
                return Check(anchor, CHANGED)
            if info.st_size == anchor.size and info.st_mtime_ns == anchor.mtime_ns:
                return Check(anchor, FRESH)
            if info.st_size > MAX_HASHED:
                return Check(anchor, CHANGED)
            now = (info.st_size, info.st_mtime_ns)
            known = self._hashed.get(anchor.path)
            if known is not None and known[:2] == now:
                blob = known[2]  # hashed already in this pass, unchanged since
            elif self.left is not None and info.st_size > self.left:
                return Check(anchor, UNCHECKED)
            else:
                data = _read_all(fd, info.st_size)
                if self.left is not None:
                    self.left -= len(data)
                blob = blob_id(data)
                self._hashed[anchor.path] = (*now, blob)
        except OSError:
            return Check(anchor, UNREADABLE)
        finally:
            os.close(fd)
        return Check(anchor, FRESH, now) if blob == anchor.blob else Check(anchor, CHANGED)


def plain(text: str) -> bool:
    """No control, format (bidirectional overrides, zero-width) or unassigned
    characters: a path shown in a brief or an error reads as it is named.
    Plain ASCII is judged without loading `unicodedata`."""
    if text.isascii():
        return all(31 < ord(c) < 127 for c in text)
    import unicodedata

    return not any(unicodedata.category(c).startswith("C") for c in text)


def valid_path(text: object) -> bool:
    """Whether `text` is a path an anchor may hold as stored: relative,
    '/'-separated, no empty, `.` or `..` part, none of git's or Tree Ring's
    folders, no control characters. What a teammate's ledger line or an old
    row says is held to it before any file is opened."""
    if not isinstance(text, str) or not text or len(text) > MAX_PATH:
        return False
    if text.startswith("/") or "\\" in text or not plain(text):
        return False
    return all(
        part not in ("", ".", "..") and part.lower() not in REFUSED_PARTS
        for part in text.split("/")
    )


def valid_blob(text: object) -> bool:
    return isinstance(text, str) and len(text) == 40 and all(c in "0123456789abcdef" for c in text)
