"""Hook receipts: that a brief was shown or a stop was seen, per harness.

A receipt records when, how many memories a brief showed, its size in bytes
and a digest of their ids (never their text), so `status` can tell hooks that
never fired from a brief that found nothing. One small JSON file per harness
under `.tree-ring/receipts/`, replaced atomically.

Per event: the session's brief (`last_brief`) is kept apart from a subagent's
(`last_subagent_brief`), and a stop from a subagent's stop, so a subagent that
starts after the session does not pass its brief off as the session's; and
`events` counts each hook event with the time it last fired. Only hooks write
receipts: a brief a person asks for by hand is not a hook firing.
"""

from __future__ import annotations

import os

from tree_ring.model import jsontext, project
from tree_ring.model.record import canonical_json, now_iso, sha256

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from tree_ring.model.project import StrPath
    from tree_ring.read.brief import Brief

# Harness names become file names: anything but these is replaced.
_NAME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")


def ids_digest(ids: tuple[str, ...]) -> str:
    return sha256(canonical_json(list(ids)))


def receipt_name(harness: str) -> str:
    """The harness's file name: runs of other characters become one hyphen."""
    out: list[str] = []
    for char in harness.lower():
        if char in _NAME_CHARACTERS:
            out.append(char)
        elif not out or out[-1] != "\x00":
            out.append("\x00")
    return "".join(out).replace("\x00", "-") + ".json"


def write_receipt(root: StrPath, *, harness: str, event: str, brief: Brief | None) -> str:
    """Record, per harness, the last brief and the last stop; never memory text."""
    # What is there must be a directory, not a link to one (UnsafePath): the
    # receipt would be written where it leads.
    folder = project.receipts_folder(root)
    path = os.path.join(folder, receipt_name(harness))
    record = read_receipt(path)
    at = now_iso()
    entry: dict[str, Any] = {"at": at, "event": event}
    subagent = event.startswith("Subagent")
    if brief is not None:
        entry |= {
            "count": len(brief.ids),
            "ids_digest": ids_digest(brief.ids),
            "bytes": len(brief.text.encode("utf-8")),
        }
        record["last_subagent_brief" if subagent else "last_brief"] = entry
    else:
        record["last_subagent_stop" if subagent else "last_stop"] = entry
    events = jsontext.as_object(record.get("events")) or {}
    fired = (jsontext.as_object(events.get(event)) or {}).get("fired")
    events[event] = {"at": at, "fired": (fired if isinstance(fired, int) else 0) + 1}
    record["events"] = events
    record["harness"] = harness
    # A name of our own rather than tempfile.mkstemp: the hook runs this on
    # every session start, and importing tempfile costs more than the write.
    tmp = os.path.join(folder, f".receipt-{os.getpid()}-{os.urandom(6).hex()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | project.NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(jsontext.dumps(record, sort_keys=True, indent=1, ensure_ascii=True))
    # A rename replaces a link at `path` itself; it never writes through one.
    os.replace(tmp, path)
    return path


# A receipt is a few hundred bytes; a larger file is not one of ours.
MAX_RECEIPT = 64 * 1024


def read_receipt(path: StrPath) -> dict[str, Any]:
    """The receipt at `path`, or {} for a missing, linked, oversized or broken one."""
    try:
        raw = project.read_bytes(path, MAX_RECEIPT)
        if len(raw) > MAX_RECEIPT:
            return {}
        data = jsontext.loads(raw.decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return jsontext.as_object(data) or {}


def receipts(root: Path) -> dict[str, dict[str, Any]]:
    """Every harness's receipt; none where the folder is absent or is not one
    (a link to a folder elsewhere is not read: `project.receipts_problem`)."""
    folder = project.receipts_dir(root)
    if project.receipts_problem(root) is not None or not folder.is_dir():
        return {}
    return {path.stem: read_receipt(path) for path in sorted(folder.glob("*.json"))}
