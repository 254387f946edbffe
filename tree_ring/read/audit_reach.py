"""What an agent's read of the audit log names: only rows its recall reads.

An agent reads the entries about one memory it may see (`api/project.py`,
`audit_log`), but an entry's detail may name other rows: the agents' notes a
person's write disputed (`disputes`), the rows a forget withheld words from
(`withheld`), the state each row changed was left in (`states`). A row of
another partition is "no memory" to the agent everywhere else, so it is no
id in these entries either: each list of memory ids keeps the ones the agent
may see, and `states` those keys. The log itself keeps its bytes (`audit
verify` reads them); only what an agent is shown changes.
"""

from __future__ import annotations

from typing import Any, cast

from tree_ring.model.identity import Identity
from tree_ring.store import live
from tree_ring.store.sql import Db


def entries(db: Db, reader: Identity, found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`found` (audit log entries) as `reader` may read them."""
    seen: dict[str, bool] = {}

    def sees(memory_id: str) -> bool:
        if memory_id not in seen:
            seen[memory_id] = live.sees(db, reader, memory_id)
        return seen[memory_id]

    return [_entry(e, sees) for e in found]


def _entry(entry: dict[str, Any], sees: Any) -> dict[str, Any]:
    raw = entry.get("detail")
    if not isinstance(raw, str) or "mem_" not in raw:
        return entry
    from tree_ring.model import jsontext
    from tree_ring.model.record import canonical_json

    try:
        detail = jsontext.as_object(jsontext.loads(raw))
    except ValueError:
        return entry
    if detail is None:
        return entry
    kept: dict[str, Any] = {}
    for key, value in detail.items():
        if isinstance(value, list):
            items = cast(list[object], value)
            if items and all(_an_id(v) for v in items):
                value = [v for v in items if sees(v)]
        elif key == "states" and isinstance(value, dict):
            states = cast(dict[str, object], value)
            value = {k: v for k, v in states.items() if not _an_id(k) or sees(k)}
        kept[key] = value
    return {**entry, "detail": canonical_json(kept)} if kept != detail else entry


def _an_id(value: object) -> bool:
    return isinstance(value, str) and value.startswith("mem_")
