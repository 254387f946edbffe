"""A request's reason, as every review listing shows it (`review.waiting_requests`):
withheld with the row it is about when the read withholds that row's text,
without what looks like a secret, and printed on one line of a preview's width."""

from __future__ import annotations

import re
from pathlib import Path

from helpers import AGENT, PERSON, CliRunner, make_memory

from tree_ring.guard import messages
from tree_ring.model.text import PREVIEW
from tree_ring.review import queue as review
from tree_ring.store.db import Store
from tree_ring.store.live import View
from tree_ring.tui.actions import Session
from tree_ring.tui.state import State
from tree_ring.web import queue as web_queue
from tree_ring.web.site import Site
from tree_ring.write import correct, pipeline

HEALTH = "Alice takes insulin before the standup"
QUOTED = f"out of date: it says {HEALTH}"
LONG = "the runner pool moved to the new region and this note no longer holds " * 5
SECRET = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def asked(store: Store, project_id: str, summary: str, reason: str, **fields: object) -> str:
    """A person's memory, and an agent's request to forget it with `reason`."""
    memory = make_memory(project_id, summary, **fields)
    pipeline.store_memory(store, memory, PERSON)
    done = correct.forget(store, memory.id, mode="redact", reason=reason, actor=AGENT)
    assert done.request is not None
    return done.request


def reasons(store: Store, project_id: str, view: View) -> dict[str, str]:
    return {r.id: r.reason for r in review.waiting_requests(store.db, project_id, view)}


def test_a_reason_about_a_withheld_row_is_withheld_with_it(store: Store, project_id: str) -> None:
    sensitive = asked(store, project_id, HEALTH, QUOTED, sensitivity="health")
    plain = asked(store, project_id, "The build cache lives in tmp", "moved to /var/cache")
    assert reasons(store, project_id, View()) == {
        sensitive: "[health]",
        plain: "moved to /var/cache",
    }
    assert reasons(store, project_id, View(include_sensitive=True)) == {
        sensitive: QUOTED,
        plain: "moved to /var/cache",
    }


def test_a_hand_edited_reason_loses_what_looks_like_a_secret(store: Store, project_id: str) -> None:
    request = asked(store, project_id, "The build cache lives in tmp", "stale")
    with store.write() as db:
        db.execute(
            "UPDATE forget_requests SET reason = ? WHERE id = ?",
            (f"the token {SECRET} is\nin it", request),
        )
    shown = reasons(store, project_id, View(include_sensitive=True))
    assert shown == {request: f"the token {messages.BARE} is\nin it"}


def test_review_list_prints_each_reason_on_one_bounded_line(
    store: Store, project_id: str, run_cli: CliRunner
) -> None:
    sensitive = asked(store, project_id, HEALTH, QUOTED, sensitivity="health")
    long = asked(store, project_id, "The runner pool is in the old region", LONG.strip())
    out = run_cli("review", "list").out
    assert HEALTH not in out
    whys = re.findall(r"^(req_\S+)  .*\n    why: (.*)$", out, re.MULTILINE)
    clipped = LONG.strip()[: PREVIEW - 3] + "..."
    assert whys == [(sensitive, "[health]"), (long, clipped)]
    assert len(clipped) == PREVIEW
    listed = run_cli("--json", "review", "list").json()["items"]
    assert {i["id"]: i["reason"] for i in listed if i["kind"] == "forget_request"} == {
        sensitive: "[health]",
        long: LONG.strip(),
    }
    shown = run_cli("review", "list", "--include-sensitive").out
    assert f"    why: {QUOTED}\n" in shown


def test_the_web_and_terminal_review_listings_withhold_the_same_reason(
    store: Store, project_id: str, project_root: Path
) -> None:
    request = asked(store, project_id, HEALTH, QUOTED, sensitivity="health")
    site = Site.open(str(project_root), {})
    session = site.session(site.new_session())
    assert session is not None
    html = web_queue.review_page(site, session, {})
    assert HEALTH not in html and "<td>[health]</td>" in html
    session.show_sensitive = True
    assert HEALTH in web_queue.review_page(site, session, {})
    terminal = Session(str(project_root), {})
    try:
        state = State(view="review")
        terminal.load(state)
        [item] = [i for i in state.items if i.key == request]
        assert "reason: [health]" in item.detail and HEALTH not in "\n".join(item.detail)
        state.include_sensitive = True
        terminal.load(state)
        [item] = [i for i in state.items if i.key == request]
        assert f"reason: {QUOTED}" in item.detail
    finally:
        terminal.close()
