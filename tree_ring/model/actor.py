"""Who performs a change: a name and the origin the harness shows, for the
audit log and the row itself."""

from __future__ import annotations

from tree_ring.model.frozen import Frozen, field
from tree_ring.model.identity import Origin

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tree_ring.model.identity import Identity


class Actor(Frozen):
    """Who performed a mutation, for the audit log and the row itself."""

    name: str
    origin: Origin
    # The coordinator capability as TREE_RING_COORDINATOR_TOKEN gave it, held in
    # memory so `coordinator.authorize` can check it deep in a write; never stored,
    # logged or printed (repr=False keeps it out of tracebacks too).
    capability: str | None = field(default=None, repr=False, compare=False)

    @classmethod
    def person(cls) -> Actor:
        return cls("person", Origin("person"))

    def stamp(self, identity: Identity, now: str) -> dict[str, Any]:
        """The fields a new row takes from who writes it, under which identity,
        and when: what every write of a new memory records alike."""
        return {
            "created_at": now,
            "updated_at": now,
            "project": identity.project,
            "agent_profile": identity.agent_profile,
            "workflow_id": identity.workflow_id,
            "session_id": identity.session_id,
            "origin": self.origin.kind,
            "origin_session": self.origin.session,
        }
