"""Hook receipts: that a brief was shown or a stop was seen, per harness.

A receipt records when, how many memories a brief showed and a digest of their
ids (never their text), so `status` can tell hooks that never fired from a
brief that found nothing. One small JSON file per harness under
`.tree-ring/receipts/`, replaced atomically.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, cast

from tree_ring.model import project
from tree_ring.model.record import canonical_json, now_iso, sha256
from tree_ring.read.brief import Brief


def ids_digest(ids: tuple[str, ...]) -> str:
    return sha256(canonical_json(list(ids)))


def write_receipt(root: Path, *, harness: str, event: str, brief: Brief | None) -> Path:
    """Record, per harness, the last brief and the last stop; never memory text."""
    folder = project.receipts_dir(root)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{re.sub(r'[^a-z0-9-]+', '-', harness.lower())}.json"
    record = read_receipt(path)
    entry: dict[str, Any] = {"at": now_iso(), "event": event}
    if brief is not None:
        entry |= {"count": len(brief.ids), "ids_digest": ids_digest(brief.ids)}
        record["last_brief"] = entry
    else:
        record["last_stop"] = entry
    record["harness"] = harness
    # A name of our own rather than tempfile.mkstemp: the hook runs this on
    # every session start, and importing tempfile costs more than the write.
    tmp = folder / f".receipt-{os.getpid()}-{os.urandom(6).hex()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(record, handle, sort_keys=True, indent=1)
    os.replace(tmp, path)
    return path


def read_receipt(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return cast(dict[str, Any], data) if isinstance(data, dict) else {}


def receipts(root: Path) -> dict[str, dict[str, Any]]:
    folder = project.receipts_dir(root)
    if not folder.is_dir():
        return {}
    return {path.stem: read_receipt(path) for path in sorted(folder.glob("*.json"))}
