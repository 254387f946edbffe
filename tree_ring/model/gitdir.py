"""What a checkout's `.git` says, read without running git.

Starting git costs a hook more than its whole pass, and an anchor (a memory's
note of a file, `model/anchor.py`) only wants the commit checked out. So this
reads what `git rev-parse HEAD` reads, for the ordinary layout only: `.git` a
folder or a `gitdir:` file (a worktree, with its `commondir`), `HEAD` naming a
branch or a commit, the branch read from its loose file or `packed-refs`.
Anything out of the ordinary gives None. Files are opened without following
a link and read up to a bound. `team/git_refs.py` builds the upstream's
answer on the same readers.
"""

from __future__ import annotations

import os

from tree_ring.model import project

TYPE_CHECKING = False
if TYPE_CHECKING:
    from mmap import mmap

    Buffer = bytes | mmap

_HEX = frozenset("0123456789abcdef")
MAX_FILE = 1 << 20  # a config or HEAD larger than this is out of the ordinary
# How far up from a project's root a repository's `.git` is looked for: a
# project may sit in a folder of a larger repository.
MAX_LEVELS = 32


def read_bytes(path: str, limit: int = MAX_FILE) -> bytes | None:
    """A file's bytes, without following a link; None for any failure or past `limit`."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        data = project.read_upto(fd, limit)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data if len(data) <= limit else None


def read(path: str, limit: int = MAX_FILE) -> str | None:
    """A small text file's content, without following a link; None for any failure."""
    data = read_bytes(path, limit)
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def is_oid(text: str) -> bool:
    return len(text) in (40, 64) and _HEX.issuperset(text)


def dirs(root: str) -> tuple[str, str] | None:
    """(the worktree's git dir, the common dir) of `root/.git`."""
    dot_git = os.path.join(root, ".git")
    if os.path.isdir(dot_git) and not os.path.islink(dot_git):
        gitdir = dot_git
    else:
        text = read(dot_git, 4096)
        if text is None or not text.startswith("gitdir: ") or text.count("\n") > 1:
            return None
        gitdir = os.path.join(root, text[8:].strip())
    common = gitdir
    if os.path.lexists(os.path.join(gitdir, "commondir")):
        text = read(os.path.join(gitdir, "commondir"), 4096)
        if text is None or text.count("\n") > 1 or not text.strip():
            return None
        common = os.path.join(gitdir, text.strip())
    return gitdir, common


def resolve(common: str, ref: str) -> str | None:
    """The commit id `ref` names: its loose file, else `packed-refs`."""
    loose = os.path.join(common, *ref.split("/"))
    if os.path.lexists(loose):
        text = read(loose, 4096)
        oid = (text or "").strip()
        return oid if text is not None and is_oid(oid) else None
    packed = read(os.path.join(common, "packed-refs"), 1 << 26)
    if packed is None:
        return None
    for line in packed.split("\n"):
        oid, _, name = line.partition(" ")
        if name == ref:
            return oid if is_oid(oid) else None
    return None


def repository_root(start: str) -> str | None:
    """The nearest folder at or above `start` holding a `.git`."""
    here = os.path.abspath(start)
    for _ in range(MAX_LEVELS):
        if os.path.lexists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent
    return None


def head_commit(start: str) -> str | None:
    """The commit checked out in the repository holding `start`, as
    `git rev-parse HEAD` says it; None outside a repository, on an unborn
    branch, or for anything this reader does not follow."""
    top = repository_root(start)
    found = dirs(top) if top is not None else None
    if found is None:
        return None
    gitdir, common = found
    if os.path.lexists(os.path.join(common, "reftable")):
        return None
    head = read(os.path.join(gitdir, "HEAD"), 4096)
    if head is None or head.count("\n") > 1:
        return None
    head = head.strip()
    if is_oid(head):
        return head  # a detached HEAD names its commit
    if not head.startswith("ref: refs/") or ".." in head:
        return None
    ref = head[len("ref: ") :]
    # A branch's own ref is in the worktree's git dir only for per-worktree refs.
    return resolve(common, ref)


# An index larger than this is not searched (a repository of millions of files).
MAX_INDEX = 1 << 26
# An index at least this large is mapped rather than copied (`_index_bytes`).
MAP_ABOVE = 1 << 20


def tracked(paths: list[str]) -> str | None:
    """The first of `paths` (files of one folder) that the repository holding
    them tracks, as `git ls-files` would list it; None for none.

    Read from the index's own bytes when it is of version 2 or 3 and not
    split, which store each path whole after its entry's flags. An index of
    version 4 (paths prefix-compressed, `feature.manyFiles`), a split one
    (`core.splitIndex`), one of another version or too large to read is
    asked of git itself (`git ls-files`); where git cannot answer, Unanswered
    is raised."""
    top = repository_root(os.path.dirname(paths[0]))
    found = dirs(top) if top is not None else None
    if top is None or found is None:
        return None
    relative = {os.path.relpath(path, top).replace(os.sep, "/"): path for path in paths}
    relative = {rel: path for rel, path in relative.items() if not rel.startswith("../")}
    index = os.path.join(found[0], "index")
    if not relative or not os.path.lexists(index):
        return None
    data = _index_bytes(index)
    try:
        if (
            data is None
            or data[:4] != b"DIRC"
            or data[4:8] not in (b"\0\0\0\2", b"\0\0\0\3")
            or _cut_short(data)
            or _split(found[0])
        ):
            return _ask_git(top, relative)
        return _find(data, relative)
    finally:
        if data is not None and not isinstance(data, bytes):
            data.close()


# An entry is at least this long: 62 bytes before its path, a path of one
# byte or more, and NULs to a multiple of 8; the index ends with a hash of
# 20 bytes (SHA-1) at least.
_LEAST_ENTRY = 64
_LEAST_HASH = 20


def _cut_short(data: Buffer) -> bool:
    """Whether the index is too short for the entries its header counts (cut
    by a crash or a full disk): git refuses to read one, and so does this
    reader, rather than take the entries cut off for none."""
    count = int.from_bytes(data[8:12], "big")
    return len(data) < 12 + count * _LEAST_ENTRY + _LEAST_HASH


def _find(data: Buffer, relative: dict[str, str]) -> str | None:
    """The path (a value of `relative`) of the first index entry whose path
    is a key of `relative`; None for none."""
    wanted = {rel.encode("utf-8", "surrogateescape"): path for rel, path in relative.items()}
    # The paths are of one folder, so one pass finds every entry that could
    # be one of them: each occurrence of the start they share, read to its NUL.
    first, last = min(wanted), max(wanted)
    shared = next(
        (first[:at] for at, (a, b) in enumerate(zip(first, last, strict=False)) if a != b),
        first[: min(len(first), len(last))],
    )
    for needle in [shared] if shared else list(wanted):
        start = data.find(needle, 12)
        while start >= 0:
            end = data.find(b"\0", start)
            name = data[start:end] if end >= 0 else b""
            if name in wanted and _entry_path_at(data, start, len(name)):
                return wanted[name]
            start = data.find(needle, start + 1)
    return None


def _index_bytes(path: str) -> Buffer | None:
    """The index's bytes, without following a link: read when small, mapped
    when large (copying the 9 MB index of a repository of 100,000 files cost
    a hook 4 ms); None for any failure or past MAX_INDEX."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        if size > MAX_INDEX:
            return None
        if size < MAP_ABOVE:
            data = project.read_upto(fd, MAX_INDEX, size)
            return data if len(data) <= MAX_INDEX else None
        import mmap  # only for a large index: a hook's start-up skips the import

        return mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)


# An entry's flags (16 bits, big-endian) hold its path's length in their low
# 12 bits (0xFFF for a longer path), and a bit saying version 3's two bytes
# of extended flags follow them, before the path.
_NAME_LENGTH = 0xFFF
_EXTENDED = 0x4000


def _entry_path_at(data: Buffer, start: int, length: int) -> bool:
    """Whether an index entry's path of `length` bytes starts at `start`, not
    a longer path that ends the same way: the flags before it say so."""
    length = min(length, _NAME_LENGTH)
    if start >= 14:
        flags = int.from_bytes(data[start - 2 : start], "big")
        if flags & _NAME_LENGTH == length and not flags & _EXTENDED:
            return True
    if start >= 16:
        flags = int.from_bytes(data[start - 4 : start - 2], "big")
        return flags & _NAME_LENGTH == length and bool(flags & _EXTENDED)
    return False


def _split(gitdir: str) -> bool:
    """Whether the index is split: part of its entries are in a shared index."""
    try:
        return any(name.startswith("sharedindex.") for name in os.listdir(gitdir))
    except OSError:
        return False


class Unanswered(Exception):
    """Git could not say whether it tracks a path (`tracked`)."""


def _ask_git(top: str, relative: dict[str, str]) -> str | None:
    """Which of `relative`'s paths `git ls-files` lists. Asked as its owner
    would be (`safe.directory`: a checkout another user owns is read, not
    refused); raises Unanswered when git cannot say, so that a caller
    deciding whether to trust what a checkout holds does not take "cannot
    tell" for "not tracked"."""
    import subprocess  # only for an index this reader does not read

    try:
        done = subprocess.run(
            ["git", "-c", "safe.directory=*", "-C", top, "ls-files", "-z", "--", *relative],
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise Unanswered(f"git could not be run: {exc}") from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise Unanswered(f"git ls-files failed: {said[0] if said else done.returncode}")
    listed = done.stdout.decode("utf-8", "surrogateescape").split("\0")
    return next((relative[rel] for rel in relative if rel in listed), None)
