"""Every filter of the memories page, on the listing and on a search alike.

Six rows that differ in ring, trust, origin, scope, partition and record
time, two of them exactly on a time boundary; each filter (and a few
together) must leave exactly the rows it names, whether the page lists the
store or narrows recall's hits. The form shows what was asked, exactly.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from helpers import make_memory
from web_support import insert

from tree_ring.model import project
from tree_ring.web import pages
from tree_ring.web.site import Site

AT = {
    "a": "2026-01-10T09:00:00.000000Z",
    "b": "2026-02-01T00:00:00.000000Z",  # exactly on `from`: kept (inclusive)
    "c": "2026-02-15T12:00:00.000000Z",
    "d": "2026-03-01T00:00:00.000000Z",  # exactly on `to`: dropped (exclusive)
    "e": "2026-03-01T00:00:00.000000Z",
    "f": "2026-02-20T08:00:00.000000Z",
}
FIELDS: dict[str, dict[str, Any]] = {
    "a": {"ring": "cambium", "origin": "person"},
    "b": {"ring": "scar", "origin": "person"},
    "c": {"ring": "cambium", "origin": "codex", "scope": "agent", "agent_profile": "codex"},
    "d": {
        "ring": "cambium",
        "origin": "claude-code",
        "scope": "agent",
        "agent_profile": "claude-code",
        "trust": "pending",
    },
    "e": {"ring": "heartwood", "origin": "import"},
    "f": {"ring": "cambium", "origin": "claude-code", "trust": "pending"},
}
FROM, TO = "2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z"
# (query, rows listed): a person's search ranks every partition of the project,
# as `tree-ring recall` does for a person, so it finds exactly what the listing
# shows (an agent's partition too).
CASES: list[tuple[dict[str, str], str]] = [
    ({}, "abce"),  # accepted only, by default
    ({"trust": "any"}, "abcdef"),
    ({"trust": "pending"}, "df"),
    ({"trust": "accepted"}, "abce"),
    ({"ring": "scar"}, "b"),
    ({"ring": "cambium", "trust": "any"}, "acdf"),
    ({"origin": "person"}, "ab"),
    ({"origin": "codex"}, "c"),
    ({"origin": "claude-code"}, ""),  # its rows wait for review
    ({"origin": "claude-code", "trust": "any"}, "df"),
    ({"agent": "codex", "trust": "any"}, "c"),
    ({"agent": "claude-code", "trust": "any"}, "d"),
    ({"scope": "agent", "trust": "any"}, "cd"),
    ({"scope": "project"}, "abe"),
    ({"from": FROM}, "bce"),
    ({"to": TO}, "abc"),
    ({"from": FROM, "to": TO, "trust": "any"}, "bcf"),
    ({"from": "2026-02-01"}, "bce"),  # a date is its midnight
    ({"from": "2026-03-02"}, ""),
]


@pytest.fixture
def page(project_root: Path) -> Any:
    pid = project.load_project_id(project_root)
    made = {
        key: make_memory(pid, f"Lantern row {key} about the harbour", created_at=AT[key], **fields)
        for key, fields in FIELDS.items()
    }
    insert(project_root, list(made.values()))
    site = Site.open(str(project_root), {})
    session = site.session(site.new_session())
    assert session is not None
    names = {m.id: key for key, m in made.items()}

    def shown(query: dict[str, str]) -> tuple[str, str]:
        html = pages.memories_page(site, session, query)
        found = {names[i] for i in re.findall(r'<a href="/memory\?id=(mem_\w+)"', html)}
        return "".join(sorted(found)), html

    return shown


@pytest.mark.parametrize(("query", "expected"), CASES, ids=str)
def test_each_filter_keeps_exactly_its_rows_when_listing(
    page: Any, query: dict[str, str], expected: str
) -> None:
    found, html = page(query)
    assert found == expected
    if expected:
        assert f"showing 1–{len(expected)} of {len(expected)}" in html
    else:
        assert '<p id="empty">No memories match.</p>' in html


@pytest.mark.parametrize(("query", "expected"), CASES, ids=str)
def test_each_filter_keeps_exactly_its_rows_when_searching(
    page: Any, query: dict[str, str], expected: str
) -> None:
    found, html = page({**query, "q": "lantern harbour"})
    assert found == expected
    if expected:
        assert f"showing 1–{len(expected)} of {len(expected)}" in html
    else:
        assert '<p id="empty">No memories match.</p>' in html


def test_search_says_how_many_hits_the_filters_kept(page: Any) -> None:
    _, every = page({"q": "lantern", "trust": "any"})
    assert '<p class="note">Best 6 matches by recall.</p>' in every
    _, some = page({"q": "lantern", "trust": "any", "ring": "cambium"})
    assert '<p class="note">Best 6 matches by recall, 4 of them pass the filters.</p>' in some


def test_the_form_shows_what_was_asked(page: Any) -> None:
    query = {
        "q": "lantern",
        "ring": "scar",
        "trust": "any",
        "origin": "person",
        "scope": "project",
        "agent": "codex",
        "from": FROM,
        "to": TO,
        "as_of": "",
        "valid_at": "",
    }
    _, html = page(query)
    form = html[html.index('<form method="get" action="/memories"') :]
    form = form[: form.index("</form>") + len("</form>")]
    selects = dict(re.findall(r'<select name="(\w+)"[^>]*>.*?<option value="(\w*)" selected', form))
    assert selects == {"ring": "scar", "trust": "any", "origin": "person", "scope": "project"}
    boxes = re.findall(r'<label>([^<]+) <input name="(\w+)" id="f-\w+" value="([^"]*)" ', form)
    assert boxes == [
        ("agent partition", "agent", "codex"),
        ("recorded from", "from", FROM),
        ("to", "to", TO),
        ("as of", "as_of", ""),
        ("valid at", "valid_at", ""),
    ]
    sizes = re.findall(r'<input name="(\w+)" id="f-\w+" value="[^"]*" size="(\d+)">', form)
    assert sizes == [
        ("agent", "14"),
        ("from", "12"),
        ("to", "12"),
        ("as_of", "20"),
        ("valid_at", "20"),
    ]
    assert '<input type="search" name="q" id="q" value="lantern" ' in form
    # The blank choice of trust is "accepted", what the page shows when none is chosen.
    assert '<select name="trust" id="f-trust"><option value="">accepted</option>' in form
