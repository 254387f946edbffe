"""The files a session's turn changed, as the Stop hook found them in the
transcript, kept for the `capture` its checkpoint names.

The checkpoint's text names no files (it stays short); the hook writes the
turn's changed paths here, relative to the project root and already held to
`anchor.normalise`, and `capture --session-id S` anchors its memory to those
that are still plain files inside the project. One small file per harness
and session beside the receipts (`.tree-ring/receipts/<harness>.<session>.files`,
local and out of git, named as the checkpoint's state is), replaced at each
checkpoint; at most `anchor.MAX_FILES` paths. The harness is in the name
because a session id is only the harness's own: a Claude Code and a Codex
session may share one, and neither capture may anchor to the other's turn.
"""

from __future__ import annotations

import os

from tree_ring.model import jsontext, project
from tree_ring.model.anchor import MAX_FILES, valid_path

SUFFIX = ".files"
MAX_BYTES = 128 * 1024
_SESSION = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:-")
# A harness name (`claude-code`, `codex`) holds no dot, so `<harness>.` cannot
# be read as the start of another harness's name.
_HARNESS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")


def path(root: str, harness: str, session_id: str) -> str | None:
    """Where a harness session's list is kept; None for a harness or session
    id that is not a plain name (it would name another place)."""
    if not harness or len(harness) > 64 or not _HARNESS.issuperset(harness):
        return None
    if not session_id or len(session_id) > 200 or not _SESSION.issuperset(session_id):
        return None
    if session_id.startswith("."):
        return None
    return os.path.join(project.receipts_dir_str(root), f"{harness}.{session_id}{SUFFIX}")


def save(root: str, harness: str, session_id: str, paths: list[str]) -> None:
    """Keep `paths` (already normalised) for the session; raises OSError."""
    target = path(root, harness, session_id)
    if target is None:
        return
    folder = os.path.dirname(target)
    project.private_folder(folder)
    tmp = os.path.join(folder, f".files-{os.getpid()}-{os.urandom(6).hex()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | project.NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(jsontext.dumps([p for p in paths if valid_path(p)][:MAX_FILES]))
    os.replace(tmp, target)


def load(root: str, harness: str, session_id: str) -> list[str]:
    """The session's changed paths that are plain relative paths; [] for none."""
    target = path(root, harness, session_id)
    if target is None or project.receipts_problem(root) is not None:
        return []  # a linked receipts folder is not read through
    try:
        raw = project.read_bytes(target, MAX_BYTES)
        if len(raw) > MAX_BYTES:
            return []
        found = jsontext.loads(raw.decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return []
    if not isinstance(found, list):
        return []
    items: list[object] = found  # pyright: ignore[reportUnknownVariableType] - decoded JSON
    return [p for p in items if isinstance(p, str) and valid_path(p)][:MAX_FILES]
