"""Reading the files a sync turns into memory: discovery, limits, stable ids.

Files under a root, at most `max_files`, the project's own first
(`discovery`: dependency and build folders, and for DOX what git ignores,
are skipped), never through a symlink: the walk does not follow one, and
each file is opened with O_NOFOLLOW, checked to be a regular file that
resolves inside the root, and read only up to its size cap. Refs are
relative to the project root when the source lies inside it, so a sync finds
its rows whichever directory it runs from. Ids are
`mem_<adapter>_<FNV-1a 64 of the key>`, as the original's.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tree_ring.model.errors import SecretRefused, TreeRingError, UsageError
from tree_ring.model.record import Memory
from tree_ring.model.text import file_text
from tree_ring.sources import discovery
from tree_ring.write import pipeline

_MASK = (1 << 64) - 1


def fnv1a64(text: str) -> int:
    """FNV-1a, 64 bits, over UTF-8: the hash the original Tree Ring's ids use."""
    value = 0xCBF29CE484222325
    for byte in text.encode("utf-8"):
        value = ((value ^ byte) * 0x100000001B3) & _MASK
    return value


def stable_id(adapter: str, key: str) -> str:
    return f"mem_{adapter}_{fnv1a64(key):016x}"


class Skip(Exception):
    """A file or section left out, with the reason the report gives."""


@dataclass(frozen=True)
class Adapter:
    """What differs between adapters; everything else is shared."""

    name: str  # dox | revolve: the id prefix, the scope and the source type
    max_files: int
    max_bytes: int
    accepts: Callable[[str], bool]  # a file name this adapter reads
    key_of: Callable[[Memory], str]
    group_of: Callable[[Memory], str]  # a key that changed is matched within its group
    file_of: Callable[[Memory], str]
    # What git is asked for (`git ls-files` pathspecs), so that the files git
    # ignores are skipped; empty: the folder is walked, ignored files too.
    pathspecs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Skipped:
    where: str  # a file, or a file's key
    reason: str


@dataclass
class Scan:
    """What one run read: memories (without ids yet) and what it left out."""

    root: Path  # the source root as given, resolved
    base: Path  # refs are relative to this: the project root
    prefix: str  # the source root relative to base ("" for all of it)
    read: set[str] = field(default_factory=lambda: set())  # files read in full
    memories: list[Memory] = field(default_factory=lambda: [])
    skipped: list[Skipped] = field(default_factory=lambda: [])
    capped: bool = False
    unlisted: str | None = None  # discovery.Found.unlisted: why git listed nothing
    gone: set[str] = field(default_factory=lambda: set())  # keys seen but not storable
    # The source lines a memory's text joins, by its source ref: each is
    # checked against the tombstones on its own, since a joined line no longer
    # ends a sentence where the source did.
    lines: dict[str, tuple[str, ...]] = field(default_factory=lambda: {})


def relative(path: Path, base: Path) -> str:
    """`path` as a ref relative to `base`; `../` leads for a path outside it."""
    return Path(os.path.relpath(path, base)).as_posix()


def read_text(path: Path, root: Path, max_bytes: int) -> str:
    """The file's text (`file_text`), or Skip: never through a symlink, never past the cap."""
    real_root = os.path.realpath(root)
    if os.path.commonpath([os.path.realpath(path), real_root]) != real_root:
        raise Skip("outside the source root (a symlinked folder?)")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        why = "a symlink" if os.path.islink(path) else f"unreadable ({exc.strerror})"
        raise Skip(why) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Skip("not a regular file")
        if info.st_size > max_bytes:
            raise Skip(f"larger than {max_bytes:,} bytes")
        data = b""
        while len(data) <= max_bytes:
            chunk = os.read(fd, max_bytes + 1 - len(data))
            if not chunk:
                break
            data += chunk
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise Skip(f"larger than {max_bytes:,} bytes")
    try:
        # A byte-order mark dropped and CRLF read as LF, as an import reads its file.
        return file_text(data)
    except UnicodeDecodeError:
        raise Skip("not UTF-8 text") from None


def scan(
    adapter: Adapter,
    source_root: Path,
    project_root: Path,
    build: Callable[[str, str, Scan], None],
) -> Scan:
    """Find and read the adapter's files; `build(ref, text, scan)` adds their memories."""
    root = Path(os.path.abspath(source_root))
    try:
        info = os.lstat(root)
    except OSError:
        raise UsageError(f"{adapter.name} source root {source_root} does not exist") from None
    if stat.S_ISLNK(info.st_mode):
        raise UsageError(
            f"{adapter.name} source root {source_root} is a symlink; give the real path"
        )
    is_file = stat.S_ISREG(info.st_mode)
    if not (is_file or stat.S_ISDIR(info.st_mode)):
        # A FIFO or a device: nothing to read, and a read could wait forever.
        raise UsageError(
            f"{adapter.name} source root {source_root} is neither a folder nor a file; "
            "give a folder or a file"
        )
    folder = root.parent if is_file else root
    # Refs are relative to the project root, a source outside it too
    # (`../evals/revolve/...`): its entries never share an id with the
    # project's own, and its sync retires only what lies under it (`prefix`).
    base = Path(os.path.abspath(project_root))
    result = Scan(root=root, base=base, prefix="" if root == base else relative(root, base))
    if is_file:
        files = [root] if adapter.accepts(root.name) else []
    else:
        found = discovery.find(root, adapter.accepts, adapter.max_files, adapter.pathspecs)
        files, result.capped, result.unlisted = found.files, found.capped, found.unlisted
        for link in found.links:
            result.skipped.append(Skipped(relative(link, base), "a symlink; not followed"))
    for path in files:
        ref = relative(path, base)
        try:
            text = read_text(path, folder, adapter.max_bytes)
        except Skip as skip:
            result.skipped.append(Skipped(ref, str(skip)))
            continue
        result.read.add(ref)
        build(ref, text, result)
    return result


def prepared(scan: Scan, memory: Memory, key: str) -> Memory | None:
    """The memory validated and guarded, or None (recorded as skipped)."""
    try:
        return pipeline.prepare(memory)
    except SecretRefused as exc:
        scan.skipped.append(Skipped(key, f"secret-like text (rule {exc.rule}); not stored"))
    except TreeRingError as exc:
        scan.skipped.append(Skipped(key, str(exc)))
    scan.gone.add(key)
    return None
