"""Stores being built: where a new store is built beside its place, and what
a build cut short leaves there (`db.Store._create` builds; `doctor` finds and
removes what a killed build left)."""

from __future__ import annotations

import os
import stat
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.model.project import StrPath

# A new store is built beside its place, as `memory.sqlite.new-<16 hex>`.
NEW_SUFFIX = ".new-"
NEW_RANDOM_BYTES = 8
# A build takes well under a second; one untouched this long is no live
# build's, but what a killed `init` or first hook left behind.
STALE_BUILD_S = 60.0


def stale_builds(path: StrPath, now: float | None = None) -> list[str]:
    """The files a store build beside `path` left when it was cut short
    (`memory.sqlite.new-<hex>` and its side files), untouched for
    STALE_BUILD_S: a build's own `finally` removes them unless it was killed."""
    name = os.fspath(path)
    folder = os.path.dirname(name) or "."
    prefix = os.path.basename(name) + NEW_SUFFIX
    try:
        names = sorted(n for n in os.listdir(folder) if n.startswith(prefix))
    except OSError:
        return []
    now = time.time() if now is None else now
    found: list[str] = []
    for entry in names:
        full = os.path.join(folder, entry)
        try:
            info = os.lstat(full)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and now - info.st_mtime > STALE_BUILD_S:
            found.append(full)
    return found


def remove_stale_builds(path: StrPath) -> list[str]:
    """Remove what `stale_builds` finds; the files removed."""
    removed: list[str] = []
    for name in stale_builds(path):
        try:
            os.unlink(name)
        except FileNotFoundError:
            continue
        removed.append(name)
    return removed
