"""`tree-ring report --html` covers what the caller may read: an agent's report
draws, counts and names the rows of the shared scopes and its own partitions
(rings, review queue, tombstones, recent activity), a person's every partition."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from governance_support import CLAUDE, CODEX, remember
from helpers import CliRunner, make_memory
from web_support import insert

from tree_ring.model import project
from tree_ring.web import app

TEXTS = {
    "claude": "Claude keeps the lint cache warm",
    "codex": "Codex rotates the signing keys weekly",
    "shared": "The release branch freezes on Fridays",
}
IDS = re.compile(r"mem_[0-9]{8}_[0-9]{6}_[0-9a-f]{12}")


def seeded(run_cli: CliRunner, root: Path) -> dict[str, set[str]]:
    """Each agent's own note, a shared one, a pending row waiting in each
    agent's partition, and a forgotten row of each. A forgotten row's text and
    partition are gone: no agent reads it, so only the person's report names
    or counts those of the agents' partitions."""
    ids = {
        "claude": {remember(run_cli, TEXTS["claude"], environ=CLAUDE)},
        "codex": {remember(run_cli, TEXTS["codex"], environ=CODEX)},
        "shared": {remember(run_cli, TEXTS["shared"])},
        "forgotten": set(),
    }
    pid = project.load_project_id(root)
    waiting = {
        name: make_memory(
            pid, f"{TEXTS[name]} pending", scope="agent", agent_profile=profile, trust="pending"
        )
        for name, profile in (("claude", "claude-code"), ("codex", "codex"))
    }
    insert(root, list(waiting.values()))
    for name, environ in (("claude", CLAUDE), ("codex", CODEX), ("shared", {})):
        gone = remember(run_cli, f"{name} forgot the old mirror host", environ=environ)
        done = run_cli("forget", gone, "--mode", "redact", "--reason", "moved")
        assert done.code == 0, done.err
        ids["shared" if name == "shared" else "forgotten"].add(gone)
        if name != "shared":
            ids[name].add(waiting[name].id)
    return ids


def reported(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], environ: dict[str, str]
) -> str:
    target = tmp_path / "report.html"
    code = app.main(["report", "--root", str(root), "--html", str(target)], environ)
    assert code == 0, capsys.readouterr().err
    return target.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("environ", "mine", "other"), [(CLAUDE, "claude", "codex"), (CODEX, "codex", "claude")]
)
def test_an_agents_report_covers_its_own_partition(
    run_cli: CliRunner,
    project_root: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    environ: dict[str, str],
    mine: str,
    other: str,
) -> None:
    ids = seeded(run_cli, project_root)
    html = reported(project_root, tmp_path, capsys, environ)
    assert set(IDS.findall(html)) == ids[mine] | ids["shared"]
    assert TEXTS[mine] in html and TEXTS["shared"] in html
    assert TEXTS[other] not in html
    assert "3 memories (2 live, 1 waiting for review)" in html
    # The shared forgotten row, of two claims (summary and text).
    assert '<td>forgotten</td><td class="num">1</td><td class="num">2</td>' in html


def test_a_persons_report_covers_every_partition(
    run_cli: CliRunner, project_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = seeded(run_cli, project_root)
    html = reported(project_root, tmp_path, capsys, {})
    assert set(IDS.findall(html)) == set().union(*ids.values())
    assert all(text in html for text in TEXTS.values())
    assert "5 memories (3 live, 2 waiting for review)" in html
    assert '<td>forgotten</td><td class="num">3</td><td class="num">6</td>' in html
