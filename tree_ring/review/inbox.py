"""The inbox: what agents captured or remembered since the person last looked.

An agent's capture lands in its own partition, where no other harness and no
plain `recall` of the person's used to find it. The inbox lists every row an
agent wrote in the project that the person has not seen yet, newest first,
with its origin, partition, ring, trust and one line of why, and offers the
three decisions: promote it to the project (`review/promote.py`), keep it where
it is (seen, nothing else changes), or forget it.

What the person has seen is one setting (`inbox_seen`): a time before which
every agent row counts as seen, and the ids seen from it on. Listing the inbox
marks what it showed as seen; once nothing unseen is left the time moves up
to the newest agent row and the ids are dropped, so the setting stays small.
The inbox is the person's: the SessionStart brief never mentions it, and an
agent cannot list or mark it.

A row whose content the other store a project reads forgot (`read/
forgotten_here.py`) is left out of the inbox, and of its counts, as `list`
leaves it out, not listed with its words withheld as the review queue lists
it: the inbox is where a person reads what agents saved and decides whether
to share it, and there is nothing left to read of such a row nor anything to
share (the person forgot that content). A waiting one still waits in the
review queue, where the person can reject it.
"""

from __future__ import annotations

from tree_ring.govern import reasons
from tree_ring.model import jsontext
from tree_ring.model.errors import UsageError
from tree_ring.model.frozen import Frozen
from tree_ring.model.record import PRIVATE_SCOPES, Memory
from tree_ring.model.text import one_line
from tree_ring.read.brief import origin_label
from tree_ring.read.labels import partition
from tree_ring.store import inbox as store_inbox
from tree_ring.store import rows, settings

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from tree_ring.model.actor import Actor
    from tree_ring.read.forgotten_here import ForgottenHere
    from tree_ring.store.db import Store
    from tree_ring.store.sql import Db

SETTING = "inbox_seen"
WHY_CHARS = 160


class Item(Frozen):
    memory: Memory
    partition: str  # "agent claude-code", "session 1a2b3c4d", "project", ...
    origin: str  # who wrote it, as the brief labels it: "codex session 1a2b3c4d"
    why: str  # one line: the review reason, the details' first line, or the event type
    why_label: str  # what `why` is: "reviewed", "waits" or "why"
    actions: tuple[str, ...]  # the decisions that apply: promote or review, keep, forget


class Inbox(Frozen):
    items: tuple[Item, ...]  # newest first
    total: int  # unseen rows matching the filter, before the limit, sensitive ones too
    withheld: int  # of them sensitive, left out of `items` unless asked
    seen_at: str | None  # the watermark before this call
    # Unseen rows left out as the other store forgot their content: listing
    # marks them seen with what it showed, so they do not hold the watermark back.
    forgotten: tuple[str, ...] = ()


def refuse_agent(actor: Actor) -> None:
    if actor.origin.is_agent:
        raise UsageError(
            "the inbox is a person's view of what agents saved; run `tree-ring inbox` "
            "yourself, outside the agent's session"
        )


def _seen(db: Db) -> tuple[str | None, list[str]]:
    value: dict[str, Any] = settings.read(db, SETTING)
    at = value.get("at")
    ids: list[Any] = list(value.get("ids") or [])
    return (at if isinstance(at, str) else None), [i for i in ids if isinstance(i, str)]


def why_label(memory: Memory) -> str:
    """What `why` shows: a reviewer's reason ("reviewed"), the reason a row
    waits ("waits"), or why it was saved ("why")."""
    if not memory.review_reason:
        return "why"
    if memory.reviewed_at is not None:
        return "reviewed"
    return "waits" if memory.trust in ("pending", "disputed") else "why"


def actions(memory: Memory) -> tuple[str, ...]:
    """The decisions that apply to a row. A promote needs an accepted row in
    a partition (`review/promote.py` refuses the rest): a waiting row is decided
    in review first, and a row already shared has nowhere to go."""
    if memory.trust in ("pending", "disputed"):
        return ("review", "keep", "forget")
    if memory.scope in PRIVATE_SCOPES and memory.trust == "accepted":
        return ("promote", "keep", "forget")
    return ("keep", "forget")


def source(memory: Memory, origin: str) -> str:
    """Where a row came from and where it lives, as the inbox says it:
    "claude-code session 1a2b3c4d, in its own partition". An MCP client that
    names no harness writes as `agent`, and reads as what it is."""
    if memory.origin == "agent":
        origin = "an agent over MCP (no harness named)" + origin.removeprefix("agent")
    profile = memory.agent_profile or ""
    if memory.scope == "agent" and (
        profile == memory.origin or profile.startswith(memory.origin + ":")
    ):
        where = "its own partition"
    elif memory.scope in PRIVATE_SCOPES:
        where = f"the {partition(memory)} partition"
    else:
        where = f"the shared {memory.scope} scope"
    return f"{origin}, in {where}"


def why(memory: Memory) -> str:
    """One line on why it was saved or why it waits."""
    if memory.review_reason:
        text = memory.review_reason
    elif memory.details.strip():
        text = memory.details.strip().splitlines()[0]
    else:
        text = memory.event_type
    text = one_line(text)
    return text if len(text) <= WHY_CHARS else text[: WHY_CHARS - 3] + "..."


def item(memory: Memory) -> Item:
    return Item(
        memory,
        partition(memory),
        origin_label(memory),
        why(memory),
        why_label(memory),
        actions(memory),
    )


def unseen(
    store: Store,
    project_id: str,
    *,
    origin: str | None = None,
    session_id: str | None = None,
    since: str | None = None,
    agent_profile: str | None = None,
    limit: int = 50,
    include_sensitive: bool = False,
    forgotten: ForgottenHere | None = None,
) -> Inbox:
    """What agents saved that the person has not seen, newest first. Reads only.
    A sensitive row is counted in `total` and, unless `include_sensitive`, left
    out of `items` and counted in `withheld`, as every list withholds it. A
    row whose content the other store forgot (`forgotten`) is in neither."""
    seen_at, seen_ids = _seen(store.db)
    narrow, params = store_inbox.filters(origin, session_id, since, agent_profile)
    params.update(project=project_id, seen_at=seen_at, seen_ids=jsontext.dumps(seen_ids))
    left_out: list[str] = []
    if forgotten is None:
        total, withheld, found = store_inbox.unseen(
            store.db, narrow, params, limit, include_sensitive
        )
    else:
        total, withheld, found, left_out = _unforgotten(
            store, forgotten, narrow, params, limit, include_sensitive
        )
    # Each review reason as a read may show it (`govern/reasons.shown`).
    memories = reasons.rows_shown(store.db, found)
    return Inbox(tuple(item(m) for m in memories), total, withheld, seen_at, tuple(left_out))


def _unforgotten(
    store: Store,
    forgotten: ForgottenHere,
    narrow: str,
    params: dict[str, Any],
    limit: int,
    include_sensitive: bool,
) -> tuple[int, int, list[Any], list[str]]:
    """`store_inbox.unseen`'s answer with the rows `forgotten` hides left out
    before the counts and the limit: every unseen row is read, a batch at a
    time, for the counts are of what the inbox may show (and `inbox --all`
    acts on that many). Unseen rows are what the person has not looked at
    yet, and the other store forgot something: both are rare at once."""
    total = withheld = 0
    kept: list[Any] = []
    left_out: list[str] = []
    offset = 0
    while True:
        batch = store_inbox.unseen_rows(store.db, narrow, params, BATCH, offset)
        offset += len(batch)
        memories = [rows.from_row(row) for row in batch]
        gone = forgotten.hidden(memories)
        for row, memory in zip(batch, memories, strict=True):
            if memory.id in gone:
                left_out.append(memory.id)
                continue
            total += 1
            if not include_sensitive and memory.sensitivity != "normal":
                withheld += 1  # the NORMAL test every list applies (`store/live.py`)
            elif len(kept) < limit:
                kept.append(row)
        if len(batch) < BATCH:
            return total, withheld, kept, left_out


# Unseen rows read at a time when the other store's forgets are counted out.
BATCH = 500


def count(store: Store, project_id: str, forgotten: ForgottenHere | None = None) -> int:
    """How many agent rows the person has not seen: `status` shows it."""
    return unseen(store, project_id, limit=0, forgotten=forgotten).total


def mark_seen(store: Store, project_id: str, ids: Iterable[str]) -> None:
    """Record that the person saw these rows; the setting stays small."""
    with store.write() as db:
        seen_at, seen_ids = _seen(db)
        merged = list(dict.fromkeys([*seen_ids, *ids]))
        left = store_inbox.unseen_count(db, project_id, seen_at, jsontext.dumps(merged))
        if not left:
            newest = store_inbox.newest(db, project_id)
            # Rows of that very instant stay named: `>=` keeps a row written
            # in the same microsecond, after this call, unseen.
            same = store_inbox.ids_at(db, project_id, newest)
            value: dict[str, Any] = {"at": newest or seen_at, "ids": same}
        else:
            value = {"at": seen_at, "ids": merged}
        settings.write(db, SETTING, value)


def keep(store: Store, project_id: str, ids: Iterable[str], actor: Actor) -> int:
    """Keep rows in their partitions: seen, and nothing else changes."""
    refuse_agent(actor)
    wanted = list(dict.fromkeys(ids))
    for memory_id in wanted:
        rows.get(store.db, memory_id)  # an unknown id is one line, before anything is marked
    mark_seen(store, project_id, wanted)
    return len(wanted)


def expiry_note(expires_at: str) -> str:
    """What the inbox and the review queue say of a row's expiry, its writer's
    choice: promoted or approved, the row is a person's, and its expiry a
    person's forget when `maintain --apply-expired` runs (`upkeep/maintain.py`)."""
    return (
        f"expires {expires_at[:19]}Z: promoted or approved, it is then deleted as a "
        "person's forget (`maintain --apply-expired`); `remember` it again without one to keep it"
    )
