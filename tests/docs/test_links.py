"""Every relative link in README.md and docs/*.md leads to a file that exists,
and every `#anchor` to a heading of that page (GitHub's heading ids)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import REPO

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]

# Pages other work adds; linked from the README before they exist. Only
# while they do not exist is a link to them let through.
PENDING = {REPO / "docs" / "RELATIONS.md", REPO / "docs" / "ANCHORS.md"}

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
CODE_SPAN = re.compile(r"`[^`\n]*`")


def links(text: str) -> list[str]:
    prose = CODE_SPAN.sub("", FENCE.sub("", text))
    return [target for target in LINK.findall(prose) if not re.match(r"[a-z]+:", target)]


def heading_ids(text: str) -> set[str]:
    """The ids GitHub gives a page's headings."""
    ids: set[str] = set()
    for line in FENCE.sub("", text).splitlines():
        if found := re.match(r"#{1,6} (.+)", line):
            words = re.sub(r"[^\w\- ]", "", found.group(1).lower())
            ids.add(words.replace(" ", "-"))
    return ids


def test_heading_ids_are_githubs() -> None:
    text = "# The stop checkpoint: `tree-ring config`\n## Recall's latency\n"
    assert heading_ids(text) == {"the-stop-checkpoint-tree-ring-config", "recalls-latency"}


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_relative_link_resolves(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    for target in links(text):
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if file in PENDING and not file.exists():
            continue
        assert file.exists(), f"{page.name}: {target} leads nowhere"
        if anchor:
            ids = heading_ids(file.read_text(encoding="utf-8"))
            assert anchor in ids, f"{page.name}: {target}: no heading '{anchor}'"


def test_the_readme_links_every_page() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    linked = {(REPO / target.partition("#")[0]).resolve() for target in links(readme)}
    pages = {page for page in (REPO / "docs").glob("*.md")} | PENDING
    assert pages <= linked, sorted(page.name for page in pages - linked)
