"""A memory's anchors as a line of JSON carries them: under `files` in its
team ledger line and in its export row.

Each file is its path relative to the project root, its content's blob id,
the commit checked out and the time it was anchored (`model/anchor.py`), in
path order; never its size or modification time, which are one clone's
alone: whoever reads the line judges the file against its own checkout, by
hash.

`parse_files` is the one reading of such a list, for both channels. They
differ only in what a bad entry costs: a ledger line's is dropped and the
rest of the line is taken (a sync reads a file anyone may have edited, and
takes what it can), while an import's refuses its line (`strict`), as a bad
value of any other field of an import row does. Nothing here opens a file.

The SessionStart hook's pass over the ledger reads memory lines through
this module, so it stays as light as `model/anchor.py`: `parse_time` (and
the record module) is loaded only when a list is read.
"""

from __future__ import annotations

from tree_ring.model.anchor import MAX_FILES, MAX_PATH, Anchor, valid_blob, valid_path
from tree_ring.model.errors import TreeRingError, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

# The key a memory's line (ledger or export) carries its files under.
FILES = "files"


def files_of(found: Iterable[Anchor]) -> list[dict[str, Any]]:
    """A memory's anchors as its line carries them, in path order."""
    return [
        {"path": a.path, "blob": a.blob, "commit": a.commit, "at": a.at}
        for a in sorted(found, key=lambda a: a.path)
    ]


def parse_files(value: object, *, strict: bool = False) -> list[Anchor]:
    """The files a memory's line says it is about, as anchors this clone
    judges by hash (size and time unknown: -1), in path order.

    Each entry is an object with a plain relative path inside the project
    (`anchor.valid_path`: no `..`, no leading `/`, not in `.git` or
    `.tree-ring`, no control characters), a 40-hex blob id, a 40-hex commit
    or null, and a time; at most `MAX_FILES` entries, each path once. A path
    is never opened from a line.

    Without `strict` (the team ledger), what breaks that is dropped: a value
    that is not a list reads as no files, a bad entry or a repeated path is
    left out, and so is every entry past the 64th. With it (an import), the
    first such thing raises a one-line UsageError naming the entry by its
    place, never by its value (a path the guard has not read yet may be a
    secret)."""
    if not isinstance(value, list):
        if strict:
            raise UsageError(
                f"{FILES} must be a list of the files the memory is about, each an object "
                "with path, blob, commit and at"
            )
        return []
    entries: list[Any] = value  # pyright: ignore[reportUnknownVariableType]
    if strict and len(entries) > MAX_FILES:
        raise UsageError(
            f"{FILES} names {len(entries):,} files; a memory names at most {MAX_FILES}"
        )
    found: dict[str, Anchor] = {}
    for index, entry in enumerate(entries[:MAX_FILES]):
        anchor, why = _entry(entry)
        if anchor is not None and anchor.path in found:
            anchor, why = None, ".path names a file an earlier entry names; name each file once"
        if anchor is None:
            if strict:
                raise UsageError(f"{FILES}[{index}]{why}")
            continue
        found[anchor.path] = anchor
    return [found[path] for path in sorted(found)]


def _entry(entry: object) -> tuple[Anchor | None, str]:
    """One entry as an anchor; or None and what is wrong with it, said after
    the entry's name (`files[2]`)."""
    if not isinstance(entry, dict):
        return None, " must be an object with path, blob, commit and at"
    got: dict[str, Any] = entry  # pyright: ignore[reportUnknownVariableType]
    path, blob, commit, at = (got.get(k) for k in ("path", "blob", "commit", "at"))
    if not valid_path(path) or not isinstance(path, str):
        return None, (
            ".path must be a plain path relative to the project root, '/'-separated, of at "
            f"most {MAX_PATH} characters: not absolute, no empty, '.' or '..' part, nothing "
            "inside .git or .tree-ring, no control characters"
        )
    if not valid_blob(blob) or not isinstance(blob, str):
        return None, ".blob must be git's blob id of the file: 40 lowercase hex digits"
    if commit is not None and not (valid_blob(commit) and isinstance(commit, str)):
        return None, ".commit must be 40 lowercase hex digits, or null"
    if not isinstance(at, str):
        return None, ".at must be the time it was anchored, an ISO-8601 time"
    from tree_ring.model.record import parse_time

    try:
        when = parse_time(at, "at")
    except TreeRingError:
        return None, ".at must be the time it was anchored, an ISO-8601 time"
    return Anchor(path, blob, -1, -1, commit, when), ""
