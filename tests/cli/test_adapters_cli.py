"""The adapter and integration verbs at the command line: recall-quality, welcome, sync output."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from conftest import CliRunner

from tree_ring.cli import app
from tree_ring.upkeep import quality


def test_recall_quality_writes_its_report_and_passes(run_cli: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "evidence"
    result = run_cli("--json", "recall-quality", "--out-dir", str(out))
    assert result.code == 0, result.err
    data = result.json()
    scenarios = quality.scenario_files(quality.DEFAULT_PATH)
    assert data["status"] == "pass" and data["scenario_count"] == len(scenarios) > 0
    report = json.loads((out / "quality" / "quality-report.json").read_text())
    assert report["forbidden_recall_rate"] == 0.0 and report["expected_recall_rate"] == 1.0
    summary = (out / "quality" / "quality-summary.md").read_text()
    rows = [line for line in summary.splitlines() if line.startswith("| ") and "| pass |" in line]
    assert len(rows) == len(scenarios)


def test_recall_quality_fails_on_a_failing_scenario(run_cli: CliRunner, tmp_path: Path) -> None:
    source = quality.DEFAULT_PATH / "pending-not-recalled.json"
    scenario = json.loads(source.read_text())
    scenario["forbidden_recall"] = []
    scenario["expected_recall"] = [{"memory_id": "mem_not_seeded", "reason": "cannot be found"}]
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(scenario))
    result = run_cli("--json", "recall-quality", str(broken), "--source-root", str(tmp_path))
    assert result.code == 1
    assert result.json()["status"] == "fail"
    summary = tmp_path / "target" / "tree-ring-certification" / "quality" / "quality-summary.md"
    assert "FAIL" in summary.read_text()


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def welcome(project_root: Path, *args: str, out: io.StringIO) -> int:
    with redirect_stdout(out):
        return app.main(["--root", str(project_root), "welcome", *args], {})


@pytest.mark.parametrize("flags", [(), ("--no-animation",)])
def test_welcome_animates_only_at_a_terminal_unless_asked_not_to(
    project_root: Path, monkeypatch: pytest.MonkeyPatch, flags: tuple[str, ...]
) -> None:
    monkeypatch.setattr("time.sleep", lambda _: None)
    at_terminal = Terminal()
    assert welcome(project_root, *flags, out=at_terminal) == 0
    assert ("\r" in at_terminal.getvalue()) is (not flags)
    piped = io.StringIO()
    assert welcome(project_root, *flags, out=piped) == 0
    assert "\r" not in piped.getvalue()
    assert at_terminal.getvalue().rpartition("\r")[2] == piped.getvalue()


def test_welcome_tours_the_store_hooks_and_commands(run_cli: CliRunner, project_root: Path) -> None:
    run_cli("remember", "One memory")
    text = run_cli("welcome").out
    assert f"Store: {project_root / '.tree-ring' / 'memory.sqlite'}" in text
    assert "1 memory" in text
    assert "Claude Code: not-installed" in text and "Codex: not-installed" in text
    assert text.count("  tree-ring ") == 3


def test_welcome_init_creates_the_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    monkeypatch.chdir(fresh)
    out = io.StringIO()
    with redirect_stdout(out):
        assert app.main(["--json", "welcome"], {}) == 0
    assert json.loads(out.getvalue())["store"] == {"found": False}
    assert not (fresh / ".tree-ring").exists()
    out = io.StringIO()
    with redirect_stdout(out):
        assert app.main(["--json", "welcome", "--init"], {}) == 0
    store = json.loads(out.getvalue())["store"]
    assert store["found"] is True and ".tree-ring/project.json" in store["created"]
    assert (fresh / ".tree-ring" / "memory.sqlite").exists()


def test_sync_prints_a_readable_plan(run_cli: CliRunner, project_root: Path) -> None:
    (project_root / "AGENTS.md").write_text("# Rules\nYou must sign releases.\n")
    text = run_cli("dox", "sync", "--dry-run").out
    assert "dox sync of" in text and "1 would create" in text
    assert "[heartwood] AGENTS.md#rules-1" in text
    assert "nothing was written" in text
