"""Which project a harness session works in, as its SessionStart hook saw it.

Codex tells its MCP server a session's project only for a git repository
(`x-codex-turn-metadata.workspaces`); elsewhere a tool call carries the
session's id and nothing more, and the `PWD` it forwards is where Codex was
started, not the project (`codex exec -C A`, started in B, would read and
write B). The SessionStart hook knows both the session's id and the project
it found from the session's cwd, so it records the pair here, in the user's
Tree Ring folder, and the MCP server reads it back by the id in the call's
`_meta`. A session no hook recorded has no entry, and the server refuses
rather than guess.

One small file, `sessions.json` beside the user store:
`{"sessions": {"<id>": ["<project root>", <unix seconds>]}}`, the newest
`MAX_SESSIONS` kept. It is written whole to a new file and renamed over the
old, under an exclusive lock on `sessions.json.lock` (where the platform has
`fcntl`), so sessions starting together each keep their entry; like the user
store, neither it nor its folder may be a link.
"""

from __future__ import annotations

import os

from tree_ring.model import jsontext, project, user_home

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

FILE = "sessions.json"
# A person runs a few sessions a day; this many covers weeks of them and keeps
# the file a few hundred kilobytes at most.
MAX_SESSIONS = 256
MAX_ROOT = 4096
MAX_FILE = MAX_SESSIONS * (MAX_ROOT + 256)
_FIX = (
    "Tree Ring keeps its session map through no link: put the real folder or file in "
    f"its place, or point {user_home.USER_HOME_VARIABLE} at the real folder"
)


def path_str(environ: Mapping[str, str]) -> str | None:
    folder = user_home.user_dir_str(environ)
    return None if folder is None else os.path.join(folder, FILE)


def _checked(path: str) -> bool:
    """Whether the map exists; UnsafePath when it or its folder is a link."""
    return project.expect(os.path.dirname(path), "directory", _FIX) and project.expect(
        path, "file", _FIX
    )


def _load(path: str) -> dict[str, Any]:
    try:
        raw = project.read_bytes(path, MAX_FILE)
        document = jsontext.as_object(jsontext.loads(raw.decode("utf-8")))
    except (OSError, ValueError):
        return {}  # unreadable or damaged: as if no session were recorded
    sessions = document.get("sessions") if document is not None else None
    return jsontext.as_object(sessions) or {}


def root_of(environ: Mapping[str, str], session: str) -> str | None:
    """The project root the session's start hook recorded, if any."""
    path = path_str(environ)
    if path is None or not _checked(path):
        return None
    entry: Any = _load(path).get(session)
    if not _is_pair(entry):
        return None
    root: Any = entry[0]
    return root if isinstance(root, str) and os.path.isabs(root) else None


# How long a start waits for another to finish writing the map.
LOCK_WAIT_SECONDS = 2.0


def record(environ: Mapping[str, str], session: str, root: str, now: int) -> None:
    """Note that `session` works in `root`, keeping the newest MAX_SESSIONS.

    Read, changed and renamed over under the map's lock, so no start's entry
    is lost to another's; a lock held past LOCK_WAIT_SECONDS raises OSError
    (the hook says so in a line), and that session's MCP calls are refused,
    never sent elsewhere, until its next start records it."""
    path = path_str(environ)
    if path is None or len(root) > MAX_ROOT:
        return
    if not _checked(path):
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    lock = _lock(path)
    try:
        _write(path, session, root, now)
    finally:
        if lock is not None:
            os.close(lock)  # closing the descriptor releases the lock


def _lock(path: str) -> int | None:
    """An exclusive lock on the map's lock file, or None where there is no `fcntl`."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - no POSIX locks on this platform
        return None
    import time

    flags = os.O_RDWR | os.O_CREAT | project.NOFOLLOW
    fd = os.open(path + ".lock", flags, 0o600)
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(fd)
                raise OSError(f"{path} is being written by another start") from None
            time.sleep(0.005)


def _write(path: str, session: str, root: str, now: int) -> None:
    sessions = _load(path)
    sessions[session] = [root, now]
    kept = sorted(sessions.items(), key=_when, reverse=True)[:MAX_SESSIONS]
    text = jsontext.dumps({"sessions": dict(kept)}, sort_keys=True, compact=True)
    project.write_replacing(path, text.encode("utf-8"), 0o600)


def _when(item: tuple[str, Any]) -> float:
    entry: Any = item[1]
    value: Any = entry[1] if _is_pair(entry) else 0
    return float(value) if _is_number(value) else 0.0


# Tests apart, so the checker keeps a decoded value as the Any it was decoded as.


def _is_pair(value: object) -> bool:
    return isinstance(value, list) and len(value) == 2  # pyright: ignore[reportUnknownArgumentType]


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
