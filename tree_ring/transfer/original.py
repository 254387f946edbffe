"""The original Tree Ring's export format, read and written.

The original exports a header line,
`{"type": "tree_ring_memory_export", "schema_version": 1, "plugin_version",
"created_at", "memory_count", "sensitive_included"}`, then one
`{"type": "memory_event", "memory": {...}}` line per memory, and reads those
lines or bare memory rows. `unwrap` turns either into the rows `transfer`
imports; `export_text` writes our memories that way (`export --format
original`).

What the original's format has no place for travels where its reader ignores
it: each memory object carries Tree Ring's own fields beside the original's
(trust, validity, origin, ...), and the header carries the project's content
tombstones, so our own export in this format imports back unchanged and
forgotten content stays forgotten. The original reads unknown fields as
nothing, so it imports the same file. The files a memory is about are the
exception: they travel in Tree Ring's own format only (`files`), and this
one is written, and read, as it was before there were any.

The original let a summary, a source ref, a tag or a review reason hold a
newline or a run of spaces; Tree Ring keeps those fields on one line, and
refuses a row that breaks one. A migration should not lose a row to that, so
the original's rows (in its envelope, or bare rows without Tree Ring's own
fields) have each run of whitespace in those fields folded to one space
(`fold`), and the import says how many rows it folded.

Before its version 0.12 the original wrote agent, workflow and session rows
without the identity those scopes need. Like the original, such a row gets a
stable made-up identity (`legacy-<scope>-<hash>`) and waits for review, rather
than being widened to a shared scope.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any, cast

from tree_ring import __version__
from tree_ring.model import imported
from tree_ring.model.anchor_lines import FILES
from tree_ring.model.errors import UsageError
from tree_ring.model.record import now_iso, sha256

HEADER = "tree_ring_memory_export"
EVENT = "memory_event"
SCHEMA_VERSION = 1
TOMBSTONES = "content_tombstones"  # our addition to the header
TOMBSTONE_RECORD = "content_tombstone"  # how transfer writes one as a line of its own
LEGACY_REASON = "legacy private-scope identity made up on import; check whose memory this is"
_IDENTITY_FOR = {"agent": "agent_profile", "workflow": "workflow_id", "session": "session_id"}
# Fields only Tree Ring's own rows carry: a bare row with one of them is ours.
_OURS = ("trust", "origin")
_SPACE = re.compile(r"\s+")


def unwrap(row: dict[str, Any]) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """(the memory row a line holds, or None for a header; tombstone records it carries)."""
    kind = row.get("type")
    if kind == HEADER:
        version = row.get("schema_version")
        if version != SCHEMA_VERSION:
            raise UsageError(
                f"export schema version {version!r} is not supported; "
                f"this Tree Ring reads version {SCHEMA_VERSION}"
            )
        stones: Any = row.get(TOMBSTONES)
        if stones is None:
            stones = []
        if not isinstance(stones, list):
            raise UsageError(f"the header's {TOMBSTONES} must be a list")
        return None, [_tombstone_record(stone) for stone in cast(list[Any], stones)]
    if kind == EVENT:
        memory = row.get("memory")
        if not isinstance(memory, dict):
            raise UsageError("a memory_event line needs a memory object")
        return _legacy_identity(cast(dict[str, Any], memory)), []
    return _legacy_identity(row), []


def is_theirs(line: dict[str, Any]) -> bool:
    """Whether a line holds the original's row: its envelope, or a bare row
    without Tree Ring's own fields (a tombstone record is ours)."""
    if line.get("type") == EVENT:
        return True
    return line.get("type") != HEADER and "record" not in line and not any(k in line for k in _OURS)


def _folded(value: Any) -> Any:
    return _SPACE.sub(" ", value).strip() if isinstance(value, str) else value


def fold(row: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The row with each run of whitespace in its one-line text fields (the
    summary, source ref, tags, review reason) folded to one space; and whether
    anything changed. Multi-line fields (details, the source quote) are kept."""
    out = dict(row)
    out["summary"] = _folded(row.get("summary"))
    tags: Any = row.get("tags")
    if isinstance(tags, list):
        out["tags"] = [_folded(tag) for tag in cast(list[Any], tags)]
    for group, key in (("source", "ref"), ("review", "review_reason")):
        nested: Any = row.get(group)
        if isinstance(nested, dict) and key in nested:
            inner = dict(cast(dict[str, Any], nested))
            inner[key] = _folded(inner[key])
            out[group] = inner
    if "summary" not in row:
        del out["summary"]
    changed = out != row
    return (out if changed else row), changed


def _tombstone_record(stone: Any) -> dict[str, Any]:
    if not isinstance(stone, dict):
        raise UsageError(f"each of the header's {TOMBSTONES} must be an object")
    return {**cast(dict[str, Any], stone), "record": TOMBSTONE_RECORD}


def _legacy_identity(row: dict[str, Any]) -> dict[str, Any]:
    """A private-scope row without its identity gets a stable one and waits for review."""
    scope = row.get("scope")
    column = _IDENTITY_FOR.get(scope) if isinstance(scope, str) else None
    if column is None:
        return row
    if imported.text(row.get(column), column).strip():
        return row
    memory_id = row.get("id")
    if not isinstance(memory_id, str) or not memory_id.strip():
        raise UsageError(
            f"a memory of scope {row.get('scope')} without {column} needs an id; "
            f"add an id to the row, or its {column}"
        )
    digest = sha256(f"{row['scope']}\n{memory_id}").removeprefix("sha256:")[:32]
    review = imported.group(row, "review")
    reason = imported.text(review.get("review_reason"), "review.review_reason")
    review.update(
        needs_review=True,
        reviewed_at=None,
        reviewed_by=None,
        review_reason=f"{reason}; {LEGACY_REASON}" if reason else LEGACY_REASON,
    )
    # A trust state the row states itself would override the review flag.
    fixed = {key: value for key, value in row.items() if key != "trust"}
    return fixed | {column: f"legacy-{row['scope']}-{digest}", "review": review}


def export_text(rows: Iterable[dict[str, Any]], *, sensitive_included: bool) -> str:
    """`transfer/export.export_rows` output as the original writes an export."""
    memories: list[dict[str, Any]] = []
    stones: list[dict[str, Any]] = []
    for row in rows:
        if row.get("record") == TOMBSTONE_RECORD:
            stones.append({key: value for key, value in row.items() if key != "record"})
            continue
        review = dict(row["review"])
        # Disputed rows are not believed either: the original has one flag for both.
        review["needs_review"] = row.get("trust", "accepted") != "accepted"
        own = {key: value for key, value in row.items() if key != FILES}
        memories.append({"type": EVENT, "memory": {**own, "review": review}})
    # In the original's order: the record type first, then the fields.
    header: dict[str, Any] = {
        "type": HEADER,
        "schema_version": SCHEMA_VERSION,
        "plugin_version": __version__,
        "created_at": now_iso(),
        "memory_count": len(memories),
        "sensitive_included": sensitive_included,
    }
    if stones:
        header[TOMBSTONES] = stones
    lines = [header, *memories]
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
