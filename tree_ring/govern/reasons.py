"""Reasons an agent gives that later reads show: a refutation's, in every
brief until a person decides, and a request to forget, in the review queue.

A reason is free text, so it is held to what a memory's text is held to: it
must not read as sensitive (health, financial, legal, private, a personal
identifier) when the row it is about is shown by default, and it must not
hold content the project forgot. An agent's
reason that does is refused when given; one that came to do so later (the
content it quotes was forgotten after) is withheld where it would be shown.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.store.sql import Db


def problem(db: Db, project: str, reason: str, about: str = "normal") -> str | None:
    """Why `reason`, about a row of sensitivity `about`, may not be shown in
    `project`'s reads, or None. A reason about a sensitive row is withheld
    with the row's text wherever that is (`read/withheld.py`), so only a
    reason about a row shown by default must not read as sensitive."""
    from tree_ring import guard
    from tree_ring.store import tombstones

    kind = guard.classify(reason) if about == "normal" else "normal"
    if kind != "normal":
        return f"it reads as {kind.replace('_', ' ')} information"
    if tombstones.held(db, project, tombstones.keys(reason, "")):
        return "it holds content this project forgot"
    return None
