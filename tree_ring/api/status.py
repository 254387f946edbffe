"""What `status` reports: one count, one definition of live, for every client.

The project's rows by state (`upkeep/census.py`, whose `live` is the store's
one definition), the review queue, the inbox, the write policy and the stop
checkpoint's cadence, the store's size on disk, the hooks' receipts, and the
person's user store counted by the same census.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from tree_ring.read.forgotten_here import ForgottenHere
    from tree_ring.store.db import Store


def status(
    store: Store,
    root: str,
    project_id: str,
    environ: Mapping[str, str],
    user_store: Callable[[], Store | None],
    forgotten: ForgottenHere | None = None,
) -> dict[str, Any]:
    """`user_store` opens the person's user store (None when there is none);
    `forgotten`: what it forgot, whose rows here the inbox leaves out."""
    from pathlib import Path

    from tree_ring.govern import coordinator
    from tree_ring.harness import checkpoint, receipts
    from tree_ring.model import project as projects
    from tree_ring.review import inbox
    from tree_ring.review import queue as review
    from tree_ring.upkeep import census

    db = store.db
    cadence = checkpoint.cadence(db)
    return {
        "project": project_id,
        "root": str(root),
        "memories": census.census(db, project_id),
        # The queue as `review list` shows it: still on record and waiting.
        "review_queue": review.queue_size(db, project_id),
        # Requests to forget or confirm, which `review list` shows after the rows.
        "review_requests": review.requests_waiting(db, project_id),
        "inbox": inbox.count(store, project_id, forgotten),
        "write_policy": coordinator.state(db).mode,
        "checkpoint": cadence.mode,
        "checkpoint_interval_minutes": cadence.interval_minutes,
        "store_bytes": projects.store_bytes(projects.store_path_str(root)),
        "hooks": {
            name: hook_view(receipt) for name, receipt in receipts.receipts(Path(root)).items()
        },
        "user_store": user_counts(environ, user_store),
    }


def tombstones_said(counts: dict[str, Any]) -> str:
    """A census's tombstones as every client says them: their keys and the
    memories they were recorded for (one forget keys several claims), and
    those an agent withdrew, which bind agents' writes only."""
    keys, memories = counts["tombstones"], counts["tombstoned_memories"]
    said = f"{keys} keys of {memories} {'memory' if memories == 1 else 'memories'}" if keys else "0"
    held = int(counts.get("tombstones_withdrawn") or 0)
    return said + (f" ({held} withdrawn by agents: they bind agents' writes only)" if held else "")


def user_counts(
    environ: Mapping[str, str], user_store: Callable[[], Store | None]
) -> dict[str, Any]:
    """The person's user store counted as the project is: its path, whether it
    exists, its rows, the live ones and those waiting; a damaged one is reported,
    not raised, so status still speaks of the project."""
    from tree_ring.model.user_home import user_store_path_str
    from tree_ring.review import queue as review
    from tree_ring.store.user import USER_PROJECT
    from tree_ring.upkeep import census

    path = user_store_path_str(environ)
    try:
        opened = user_store()
    except Exception as exc:  # status reports a damaged user store, it does not stop
        return {"path": path, "error": str(exc)}
    if opened is None:
        return {"path": path, "exists": False}
    counts = census.census(opened.db, USER_PROJECT)
    return {
        "path": path,
        "exists": True,
        "memories": counts["total"],
        "live": counts["live"],
        "upcoming": counts["upcoming"],
        "review_queue": review.queue_size(opened.db, USER_PROJECT),
        # An agent's requests to forget a note, which `review list --user` shows.
        "review_requests": review.requests_waiting(opened.db, USER_PROJECT),
    }


def hook_view(receipt: dict[str, Any]) -> dict[str, Any]:
    """A harness's receipt as `status` reports it: each brief with its size and
    an approximate token count (bytes / 4), and each event's last firing."""
    view: dict[str, Any] = {}
    for key in ("last_brief", "last_subagent_brief", "last_stop", "last_subagent_stop"):
        entry = receipt.get(key)
        if not isinstance(entry, dict):
            view[key] = None
            continue
        shown: dict[str, Any] = dict(entry)  # pyright: ignore[reportUnknownArgumentType]
        if isinstance(shown.get("bytes"), int):
            shown["tokens"] = round(shown["bytes"] / 4)
        view[key] = shown
    events = receipt.get("events")
    view["events"] = events if isinstance(events, dict) else {}
    return view
