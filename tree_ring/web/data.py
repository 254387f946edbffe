"""What the memories page narrows to, and which rows' text a page must not show.

The reads themselves are the library's: a page of memories is
`Project.list` (`read/listing.py`), a search is `Project.recall`, the rings
are `store/rings.py`; each builds its WHERE from the one liveness predicate
and adds its filters in the same SQL, before any LIMIT.

Nothing here returns forgotten text: a redacted row's text is gone from the
row itself, and a rejected row (its content tombstoned) is never among the
live rows; `withheld` says which rows a page must not show the text of.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_ring.store.live import View
from tree_ring.store.rings import UNREVIEWED

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tree_ring.model.record import Memory

# A page counts its rows up to one past this: "more than 1,000" pages as well.
COUNT_CAP = 1000


@dataclass(frozen=True)
class Filters:
    """What the memories page narrows to; every one is applied in SQL."""

    ring: str | None = None
    trust: str | None = None  # None: accepted; "any": accepted, pending and disputed
    origin: str | None = None
    scope: str | None = None
    agent_profile: str | None = None
    created_from: str | None = None  # record time, inclusive
    created_to: str | None = None  # record time, exclusive

    def listing(self) -> dict[str, Any]:
        """The filters as `Project.list` takes them (scope goes to the view's clause)."""
        return {
            "ring": self.ring,
            "trust": self.trust if self.trust not in (None, "any") else None,
            "origin": self.origin,
            "scope": self.scope,
            "agent_profile": self.agent_profile,
            "since": self.created_from,
            "before": self.created_to,
        }


def memories_view(view: View, filters: Filters) -> View:
    unreviewed = filters.trust in ("any", *UNREVIEWED)
    return View(view.as_of, view.valid_at, view.include_sensitive, unreviewed, False)


def withheld(memory: Memory) -> str | None:
    """Why a page shows none of this row's text, or None when it may."""
    if memory.redacted_at is not None:
        return "redacted: its text is forgotten"
    if memory.trust == "rejected":
        return "rejected in review: its content is tombstoned"
    return None
