"""The review page: a long queue a page at a time, what a waiting row contradicts,
the decisions each row offers, and the requests to forget beneath."""

from __future__ import annotations

import re
from html import escape
from pathlib import Path
from typing import Any

from helpers import AGENT, make_memory
from web_support import insert

from tree_ring.model import project
from tree_ring.model.record import Link
from tree_ring.store.db import Store
from tree_ring.web import queue
from tree_ring.web.site import Site
from tree_ring.write import correct


def _site(root: Path) -> tuple[Site, Any]:
    site = Site.open(str(root), {})
    session = site.session(site.new_session())
    assert session is not None
    return site, session


def _waiting(html: str) -> list[str]:
    return re.findall(r'<li class="waiting" id="w-([^"]+)"', html)


def _at(i: int) -> str:
    return f"2026-04-01T{i // 60:02d}:{i % 60:02d}:00.000000Z"


def test_a_long_queue_pages_oldest_first_and_says_which_rows_show(project_root: Path) -> None:
    pid = project.load_project_id(project_root)
    # The two oldest are sensitive: left out in SQL, so the page still holds 50.
    hidden = [
        make_memory(
            pid, f"private wait {i}", trust="pending", sensitivity="private", created_at=_at(i)
        )
        for i in range(2)
    ]
    shown = [
        make_memory(pid, f"waiting note {i}", trust="pending", created_at=_at(10 + i))
        for i in range(53)
    ]
    insert(project_root, [*reversed(shown), *hidden])
    site, session = _site(project_root)
    first = queue.review_page(site, session, {})
    assert _waiting(first) == [m.id for m in shown[:50]]
    assert (
        '<p id="queue-size">55 waiting (oldest first); 2 sensitive hidden; showing 1–50.</p>'
        in first
    )
    assert '<a href="/review?offset=50" id="next">more</a>' in first
    second = queue.review_page(site, session, {"offset": "50"})
    assert _waiting(second) == [m.id for m in shown[50:]]
    assert (
        '<p id="queue-size">55 waiting (oldest first); 2 sensitive hidden; showing 51–53.</p>'
        in second
    )
    assert 'id="next"' not in second
    session.show_sensitive = True
    every = queue.review_page(site, session, {})
    assert _waiting(every) == [m.id for m in [*hidden, *shown[:48]]]
    assert '<p id="queue-size">55 waiting (oldest first); showing 1–50.</p>' in every
    assert '<a href="/review?offset=50" id="next">more</a>' in every
    last = queue.review_page(site, session, {"offset": "50"})
    assert _waiting(last) == [m.id for m in shown[48:]]
    assert 'id="next"' not in last


def test_a_queue_of_one_page_says_no_more(project_root: Path) -> None:
    pid = project.load_project_id(project_root)
    rows_ = [make_memory(pid, f"note {i}", trust="pending", created_at=_at(i)) for i in range(50)]
    insert(project_root, rows_)
    site, session = _site(project_root)
    html = queue.review_page(site, session, {})
    assert _waiting(html) == [m.id for m in rows_]
    assert '<p id="queue-size">50 waiting (oldest first).</p>' in html
    assert 'id="next"' not in html


def test_a_contradicted_row_is_shown_clipped_and_a_sensitive_one_withheld(
    project_root: Path,
) -> None:
    pid = project.load_project_id(project_root)
    long = "The deploy window " + "stays open until late " * 12  # 282 characters
    assert len(long) > 200
    plain = make_memory(pid, long.strip(), created_at=_at(1))
    private = make_memory(pid, "My doctor said rest", sensitivity="private", created_at=_at(2))
    links = (Link("contradicts", plain.id), Link("contradicts", private.id))
    waiting = make_memory(
        pid, "The deploy window closes early", trust="pending", links=links, created_at=_at(3)
    )
    insert(project_root, [plain, private, waiting])
    site, session = _site(project_root)
    html = queue.review_page(site, session, {})
    clipped = long.strip()[:199] + "…"
    lines = re.findall(r"contradicts <a [^>]*>([^<]+)</a> <span[^>]*>[^<]*</span>: ([^<]*)", html)
    assert lines == [(plain.id, clipped), (private.id, "(sensitive)")]
    session.show_sensitive = True
    html = queue.review_page(site, session, {})
    lines = re.findall(r"contradicts <a [^>]*>([^<]+)</a> <span[^>]*>[^<]*</span>: ([^<]*)", html)
    assert lines == [(plain.id, clipped), (private.id, "My doctor said rest")]


def test_an_offset_that_is_no_row_number_shows_the_first_page(project_root: Path) -> None:
    pid = project.load_project_id(project_root)
    rows_ = [make_memory(pid, f"note {i}", trust="pending", created_at=_at(i)) for i in range(3)]
    insert(project_root, rows_)
    site, session = _site(project_root)
    everything = [m.id for m in rows_]
    for raw in ("", "abc", "-1", "1.5", "1000000000", "99999999999"):
        html = queue.review_page(site, session, {"offset": raw})
        assert _waiting(html) == everything, raw
        assert (
            '<p id="queue-size">3 waiting (oldest first).</p>' in html and 'id="next"' not in html
        )
    assert _waiting(queue.review_page(site, session, {"offset": "1"})) == everything[1:]
    # Nine digits are still a row number: past the end, nothing shows.
    past = queue.review_page(site, session, {"offset": "999999999"})
    assert _waiting(past) == [] and '<p id="empty">Nothing waits.</p>' in past


def test_each_waiting_row_offers_its_decisions_and_requests_to_forget_are_listed(
    project_root: Path,
) -> None:
    pid = project.load_project_id(project_root)
    pending = make_memory(pid, "Waits for a person", trust="pending", created_at=_at(1))
    disputed = make_memory(pid, "Someone doubts this", trust="disputed", created_at=_at(2))
    kept = make_memory(pid, "The person's own note", created_at=_at(3))
    insert(project_root, [pending, disputed, kept])
    site, session = _site(project_root)
    html = queue.review_page(site, session, {})
    forms = set(re.findall(r'<form method="post" action="/act" class="inline" id="([^"]+)"', html))
    assert forms == {
        f"{action}-{m.id}"
        for m in (pending, disputed)
        for action in ("approve", "reject", "forget", *(("dispute",) if m is pending else ()))
    }
    assert "Requests to forget" not in html
    with Store.open(project_root) as store:
        asked = correct.forget(store, kept.id, mode="redact", reason="stale", actor=AGENT)
    assert asked.request is not None
    html = queue.review_page(site, session, {})
    section = html[html.index("<h2>Requests to forget</h2>") :]
    cells = re.findall(r"<td>(.*?)</td>", section.split("</table>")[0])
    assert cells[:5] == [
        asked.request,
        f'<a href="/memory?id={kept.id}">{kept.id}</a> '
        f'<span class="summary">{escape(kept.summary, quote=True)}</span>',
        "redact",
        "stale",
        "claude-code (claude-code)",
    ]
    assert (
        f'id="approve-{asked.request}"' in cells[5] and f'id="reject-{asked.request}"' in cells[5]
    )
