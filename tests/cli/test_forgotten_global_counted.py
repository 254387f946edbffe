"""What the person's user store forgot stays out of what `usage` names.

A project row whose content the person forgot in their user store is gone
from every read of the project (`Project.forgotten_elsewhere`): `usage` names
it among the memories injected most as a deleted row is named, by its id
alone (an agent's report leaves it out, as it leaves out a deleted row). The
fixtures and helpers are those of `test_forgotten_global_copies.py`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import test_forgotten_global_copies as copies
from conftest import CliRunner
from governance_support import CLAUDE
from mcp_support import claude
from test_forgotten_global_copies import KEPT, TEXT, _forget_user, _json, _remember

# The same fixtures: a user home, another project.
home, other = copies.home, copies.other

OTHER_TEXT = "The standup moved to half past nine on Mondays"


def _served(project_root: Path, home: dict[str, str], times: int = 3) -> None:
    """Briefs served by the MCP `brief` tool, each a line of the usage log."""
    session = claude(project_root, **home)
    for _ in range(times):
        assert session.call("brief", {})["ok"] is True


def _injected_most(run: CliRunner, environ: dict[str, str]) -> list[str]:
    done = run("usage", environ=environ)
    assert (done.code, done.err) == (0, ""), done.err
    lines = done.out.splitlines()
    start = lines.index("injected most:") + 1
    return [line for line in lines[start:] if line.startswith("  ")]


def _top(run: CliRunner, environ: dict[str, str]) -> list[dict[str, Any]]:
    top: list[dict[str, Any]] = _json(run, environ, "usage")["top_injected"]  # pyright: ignore[reportAssignmentType]
    return top


def _line(n: int, memory_id: str, summary: str) -> str:
    return f"  {n:>4}x {memory_id}  {summary}"


def test_usage_leaves_out_a_row_the_person_forgot_in_their_user_store(
    run_cli: CliRunner, home: dict[str, str], project_root: Path
) -> None:
    own = _remember(run_cli, home, TEXT)
    kept = _remember(run_cli, home, KEPT)
    _served(project_root, home)
    first, second = sorted([own, kept])
    summary = {own: TEXT, kept: KEPT}
    assert _injected_most(run_cli, home) == [
        _line(3, first, summary[first]),
        _line(3, second, summary[second]),
    ]
    agent = home | CLAUDE
    assert _top(run_cli, agent) == [
        {"id": first, "injected": 3, "summary": summary[first]},
        {"id": second, "injected": 3, "summary": summary[second]},
    ]

    note = _remember(run_cli, home, TEXT, "--scope", "global")
    assert _forget_user(run_cli, home, note)["copies"] == []

    after = {own: "(forgotten)", kept: KEPT}
    assert _injected_most(run_cli, home) == [
        _line(3, first, after[first]),
        _line(3, second, after[second]),
    ]
    assert "wifi" not in run_cli("usage", environ=home).out
    assert _top(run_cli, home) == [
        {"id": first, "injected": 3, "summary": None if first == own else KEPT},
        {"id": second, "injected": 3, "summary": None if second == own else KEPT},
    ]
    assert _top(run_cli, agent) == [{"id": kept, "injected": 3, "summary": KEPT}]
    assert "wifi" not in run_cli("usage", environ=agent).out
    # The rows `list` shows.
    assert {str(i["id"]) for i in _json(run_cli, home, "list")["items"]} == {kept}  # pyright: ignore[reportGeneralTypeIssues, reportUnknownVariableType, reportUnknownArgumentType]


def test_a_forget_in_the_project_and_one_in_the_user_store_read_alike_in_usage(
    run_cli: CliRunner, home: dict[str, str], project_root: Path
) -> None:
    """One row forgotten in the project (deleted), another's words forgotten in
    the user store: `usage` names both by their ids alone, a person's report
    and an agent's alike."""
    here = _remember(run_cli, home, OTHER_TEXT)
    there = _remember(run_cli, home, TEXT)
    kept = _remember(run_cli, home, KEPT)
    _served(project_root, home)
    done = _json(run_cli, home, "forget", here, "--mode", "delete", "--reason", "moved")
    assert done["tombstoned"] is True
    note = _remember(run_cli, home, TEXT, "--scope", "global")
    _forget_user(run_cli, home, note)

    shown = {here: "(forgotten)", there: "(forgotten)", kept: KEPT}
    assert _injected_most(run_cli, home) == [_line(3, i, shown[i]) for i in sorted(shown)]
    assert _top(run_cli, home) == [
        {"id": i, "injected": 3, "summary": None if i != kept else KEPT} for i in sorted(shown)
    ]
    assert _top(run_cli, home | CLAUDE) == [{"id": kept, "injected": 3, "summary": KEPT}]


def test_maintain_suggests_nothing_of_a_row_the_person_forgot_in_their_user_store(
    run_cli: CliRunner, home: dict[str, str], project_root: Path
) -> None:
    """`maintain --suggest` names rows with their summaries (stale, refuted,
    unused): one whose content the user store forgot is in none of its lists."""
    (project_root / "wifi.txt").write_text("tree-guest-5g\n")
    own = _remember(run_cli, home, TEXT, "--file", "wifi.txt")
    kept = _remember(run_cli, home, KEPT, "--file", "wifi.txt")
    (project_root / "wifi.txt").write_text("tree-guest-6g\n")
    for memory_id in (own, kept):
        refuted = run_cli("refute", memory_id, "--reason", "renamed", environ=home | CLAUDE)
        assert refuted.code == 0, refuted.err

    def suggested() -> set[tuple[str, str]]:
        items = _json(run_cli, home, "maintain", "--suggest")["items"]
        return {(str(i["kind"]), str(i["id"])) for i in items}  # pyright: ignore[reportGeneralTypeIssues, reportUnknownVariableType, reportUnknownArgumentType]

    both = {(kind, i) for kind in ("stale", "refuted") for i in (own, kept)}
    assert suggested() == both
    note = _remember(run_cli, home, TEXT, "--scope", "global")
    _forget_user(run_cli, home, note)
    assert suggested() == {(kind, kept) for kind in ("stale", "refuted")}
    assert "wifi network" not in run_cli("maintain", "--suggest", environ=home).out
