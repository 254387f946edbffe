"""Whether this stop gets the checkpoint: the cadence, the turn, and what the
session did since its last checkpoint.

The cadence is the project's setting (`harness/checkpoint`). What a session
remembers between stops is kept in a small file per session beside the
receipts (`.tree-ring/receipts/<harness>.<session>.checkpoint`, local and
out of git like them): the turn that last got a checkpoint, when, and whether
work has been seen since (a turn whose work fell inside the interval, or a
subagent's). Files older than `KEEP_SECONDS` are removed when a session makes
its first one.

`decide` is pure: the adapter reads the state and the transcript, asks it,
and writes back what it returns.
"""

from __future__ import annotations

import os

from tree_ring.model import jsontext, project

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tree_ring.harness.checkpoint import Cadence

SUFFIX = ".checkpoint"
MAX_STATE = 4096
UNREAD = "unread"
MAX_UNREAD = 4  # subagents' transcripts kept to read again, newest last
MAX_UNREAD_PATH = 512  # bytes: the state stays far below MAX_STATE
RECENT_TURNS = 8  # turns asked lately, kept so none is asked twice
KEEP_SECONDS = 2 * 24 * 3600


def state_path(root: str, harness: str, session_id: str) -> str:
    # Both parts are checked where they come from: a harness name from the
    # launcher's own list and a session id of [A-Za-z0-9._:-].
    return os.path.join(project.receipts_dir_str(root), f"{harness}.{session_id}{SUFFIX}")


def load(path: str) -> dict[str, Any]:
    """A session's state, or {} for none (or one that is not ours)."""
    try:
        raw = project.read_bytes(path, MAX_STATE)
        if len(raw) > MAX_STATE:
            return {}
        return jsontext.as_object(jsontext.loads(raw.decode("utf-8"))) or {}
    except (OSError, ValueError, RecursionError):
        return {}


def save(path: str, state: dict[str, Any]) -> None:
    folder = os.path.dirname(path)
    project.private_folder(folder)
    fresh = not os.path.lexists(path)
    tmp = os.path.join(folder, f".checkpoint-{os.getpid()}-{os.urandom(6).hex()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | project.NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(jsontext.dumps(state, sort_keys=True))
    os.replace(tmp, path)
    if fresh:
        prune(folder)


def prune(folder: str) -> None:
    """Remove the state of sessions quiet for `KEEP_SECONDS` (by the files' own
    times: a session's scripted clock says nothing of other sessions)."""
    import time

    now = time.time()
    with os.scandir(folder) as entries:
        for entry in entries:
            if not entry.name.endswith(SUFFIX) or not entry.is_file(follow_symlinks=False):
                continue
            try:
                if now - entry.stat(follow_symlinks=False).st_mtime > KEEP_SECONDS:
                    os.unlink(entry.path)
            except OSError:
                pass  # another session's hook got there first


def decide(
    cadence: Cadence,
    state: dict[str, Any],
    turn: str | None,
    work: bool,
    now: float,
) -> tuple[bool, dict[str, Any] | None]:
    """(block?, the state to save or None to leave it) for a main session's stop."""
    mode = cadence.mode
    if mode == "off":
        return False, None
    earlier = _turns(state)
    if turn is not None and turn in earlier:
        # This turn had its checkpoint: a later stop of it passes, one that
        # arrives after a newer turn's (a background subagent's) too.
        return False, None
    asked: dict[str, Any] = {"at": now, "pending": False}
    if turn is not None:
        asked["turns"] = [*earlier, turn][-RECENT_TURNS:]
    if mode == "every-stop":
        return True, asked
    if not (work or state.get("pending") is True):
        return False, None
    last = state.get("at")
    if mode == "session-end":
        return (False, None) if isinstance(last, int | float) else (True, asked)
    interval = cadence.interval_minutes * 60
    if isinstance(last, int | float) and interval and now - last < interval:
        return False, {**state, "pending": True}  # remembered for the next stop after it
    return True, asked


def _turns(state: dict[str, Any]) -> list[str]:
    """The turns asked lately, oldest first: `turns`, or the one `turn` a
    state saved before them names."""
    turns = state.get("turns")
    if isinstance(turns, list):
        return jsontext.strings(turns)[-RECENT_TURNS:]
    last = state.get("turn")
    return [last] if isinstance(last, str) else []


def note_work(state: dict[str, Any]) -> dict[str, Any] | None:
    """A subagent's work, counted towards the session's next stop."""
    if state.get("pending") is True:
        return None
    return {**state, "pending": True}


def note_unread(state: dict[str, Any], path: str) -> dict[str, Any] | None:
    """A subagent's transcript that showed no work when its stop read it, kept
    for the session's next stop to read again: Claude Code can fire
    SubagentStop before the subagent's last lines reach the file, or name a
    file it has not written yet."""
    if state.get("pending") is True:
        return None  # work is already counted: nothing more to learn
    kept = unread(state)
    if path in kept or len(path.encode("utf-8", "surrogatepass")) > MAX_UNREAD_PATH:
        return None
    return {**state, UNREAD: [*kept, path][-MAX_UNREAD:]}


def unread(state: dict[str, Any]) -> list[str]:
    """The subagents' transcripts the session's next stop reads again."""
    return [p for p in jsontext.strings(state.get(UNREAD))[-MAX_UNREAD:] if p]
