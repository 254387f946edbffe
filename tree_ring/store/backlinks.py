"""What links to a memory: the other rows of its project whose links name it.

Links are kept as JSON on each row, so this reads every row of the project
whose links text holds the id (a LIKE, then each candidate's links parsed):
for a page that asks, never on the way to one.
"""

from __future__ import annotations

import json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.store.sql import Db

CANDIDATES_SQL = (
    "SELECT id, trust, links FROM memories WHERE project IS :project"
    " AND links LIKE :pattern ESCAPE '\\' AND id != :id ORDER BY created_at, id"
)


class Backlink:
    """A link to the memory from another row: its type, the row's id and trust."""

    __slots__ = ("id", "trust", "type")

    def __init__(self, type: str, id: str, trust: str) -> None:
        self.type = type
        self.id = id
        self.trust = trust


def linking_to(db: Db, project: str | None, memory_id: str) -> list[Backlink]:
    """Every link to `memory_id` from another row of `project`, oldest row first."""
    pattern = '%"' + memory_id.replace("%", "").replace("_", "\\_") + '"%'
    found: list[Backlink] = []
    for row in db.query(CANDIDATES_SQL, {"project": project, "pattern": pattern, "id": memory_id}):
        try:
            links = json.loads(row["links"])
        except ValueError:
            continue
        if not isinstance(links, list):
            continue
        for link in links:  # pyright: ignore[reportUnknownVariableType] - JSON
            if isinstance(link, dict) and link.get("target") == memory_id:  # pyright: ignore[reportUnknownMemberType]
                kind = str(link.get("type", ""))  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
                found.append(Backlink(kind, str(row["id"]), str(row["trust"])))
    return found
