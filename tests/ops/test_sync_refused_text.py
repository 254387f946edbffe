"""A synced section or record whose new text is refused keeps its earlier row.

One invisible character added to a file (a soft hyphen, a zero-width space,
a byte-order mark) makes its text one that cannot be stored. The sync reports
the refusal and holds the earlier row as it was, in every brief; only a fix
(an update) or the section's removal (a retirement) moves it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import CliRunner
from governance_support import query, write

from tree_ring.sources.files import stable_id
from tree_ring.sources.filesync import HELD_REFUSED

RULE = "You must never commit credentials to the repository."
AGENTS = f"# Security rules\n{RULE}\n\n## Style\nPrefer small functions.\n"
KEY = "AGENTS.md#security-rules-1"
RULE_ID = stable_id("dox", KEY)
STYLE_ID = stable_id("dox", "AGENTS.md#style-1")


def _rows(root: Path, source_type: str) -> dict[str, dict[str, Any]]:
    """Every row a sync of `source_type` wrote, all its columns, retired ones too."""
    sql = "SELECT * FROM memories WHERE source_type = ?"
    return {row["id"]: dict(row) for row in query(root, sql, (source_type,))}


def _audit(root: Path) -> list[tuple[Any, ...]]:
    return [tuple(row) for row in query(root, "SELECT * FROM audit_log ORDER BY seq")]


def _changes(report: dict[str, Any]) -> dict[str, list[tuple[str, str]]]:
    """Each kind of change of a sync, as (id or where, reason) pairs."""
    found: dict[str, list[tuple[str, str]]] = {}
    for item in report["items"]:
        found.setdefault(item["change"], []).append(
            (item.get("id", item.get("where")), item["reason"])
        )
    return found


def _refusal(field: str, code: str, at: int) -> str:
    return (
        f"{field} contains control characters or invisible formatting "
        f"(U+{code} at character {at}); remove them and retry"
    )


# The file as written, and the refusal its sync reports.
EDITS = {
    "soft hyphen in the text": (
        AGENTS.replace("repository", "repo\u00adsitory"),
        _refusal("summary", "00AD", 80),
    ),
    "zero-width space in the text": (
        AGENTS.replace("commit", "com\u200bmit"),
        _refusal("summary", "200B", 53),
    ),
    "byte-order mark in the text": (
        AGENTS.replace("must", "\ufeffmust"),
        _refusal("summary", "FEFF", 39),
    ),
    "soft hyphen in the heading": (
        AGENTS.replace("Security", "Secu\u00adrity"),
        _refusal("details", "00AD", 89),
    ),
    "a second leading byte-order mark": (
        "\ufeff\ufeff" + AGENTS,
        _refusal("details", "FEFF", 83),
    ),
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_a_section_whose_new_text_is_refused_keeps_its_row(
    run_cli: CliRunner, project_root: Path, edit: str
) -> None:
    agents = project_root / "AGENTS.md"
    agents.write_text(AGENTS)
    first = write(run_cli, "dox", "sync")
    assert {item["id"] for item in first["items"]} == {RULE_ID, STYLE_ID}
    before, audit = _rows(project_root, "dox"), _audit(project_root)
    assert before[RULE_ID]["ring"] == "heartwood" and before[RULE_ID]["retired_at"] is None

    text, refusal = EDITS[edit]
    agents.write_text(text, encoding="utf-8")
    report = write(run_cli, "dox", "sync")
    assert _changes(report) == {
        "unchanged": [(STYLE_ID, "")],
        "held": [(RULE_ID, HELD_REFUSED)],
        "skipped": [(KEY, refusal)],
    }
    assert _rows(project_root, "dox") == before
    assert _audit(project_root) == audit
    brief = run_cli("brief").out
    assert RULE_ID in brief and RULE in brief
    # Held by a person's sync is held by an agent's too.
    agent = write(run_cli, "dox", "sync", environ={"CLAUDECODE": "1"})
    assert _changes(agent)["held"] == [(RULE_ID, HELD_REFUSED)]
    assert _rows(project_root, "dox") == before

    # Fixed (and reworded): an update, as ever.
    agents.write_text(AGENTS.replace("repository", "repository or its history"))
    fixed = write(run_cli, "dox", "sync")
    assert _changes(fixed) == {"update": [(f"{RULE_ID}_r2", "")], "unchanged": [(STYLE_ID, "")]}
    assert _rows(project_root, "dox")[RULE_ID]["superseded_by"] == f"{RULE_ID}_r2"

    # Removed: retired, as ever.
    agents.write_text("## Style\nPrefer small functions.\n")
    removed = write(run_cli, "dox", "sync")
    assert _changes(removed) == {
        "retire": [(f"{RULE_ID}_r2", "gone from its source")],
        "unchanged": [(STYLE_ID, "")],
    }
    assert RULE not in run_cli("brief").out


def test_a_revolve_record_whose_new_text_is_refused_keeps_its_row(
    run_cli: CliRunner, project_root: Path
) -> None:
    record = project_root / "revolve" / "evals" / "cache-v2.md"
    record.parent.mkdir(parents=True)
    text = "# Cache v2\nThe LRU cache change was rolled back after a latency regression.\n"
    record.write_text(text)
    first = write(run_cli, "revolve", "sync")
    (row_id,) = {item["id"] for item in first["items"]}
    assert row_id == stable_id("revolve", "revolve/evals/cache-v2.md:evaluation_rejection")
    before, audit = _rows(project_root, "revolve"), _audit(project_root)

    record.write_text(text.replace("Cache", "Ca\u200bche"), encoding="utf-8")
    report = write(run_cli, "revolve", "sync")
    assert _changes(report).keys() == {"held", "skipped"}
    assert _changes(report)["held"] == [(row_id, HELD_REFUSED)]
    assert "U+200B" in _changes(report)["skipped"][0][1]
    assert _rows(project_root, "revolve") == before
    assert _audit(project_root) == audit

    record.unlink()
    removed = write(run_cli, "revolve", "sync")
    assert _changes(removed) == {"retire": [(row_id, "gone from its source")]}
