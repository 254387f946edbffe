"""A memory an agent refuted keeps a line in the brief, marked, until a
person decides: however many newer rows outrank it in the brief's order, the
sessions that read it must learn it is in doubt (docs/CORRECTING.md)."""

from __future__ import annotations

from conftest import CliRunner
from governance_support import CLAUDE, CODEX

DOUBTED = "Deploys freeze on Fridays after the release branch is cut"
WHY = "the freeze moved to Thursdays this quarter"


def _remember(
    run_cli: CliRunner, text: str, *args: str, environ: dict[str, str] | None = None
) -> str:
    done = run_cli("--json", "remember", text, *args, environ=environ)
    assert done.code == 0, done.err
    return str(done.json()["id"])


def test_a_refuted_memory_keeps_its_line_under_newer_notes(run_cli: CliRunner) -> None:
    doubted = _remember(run_cli, DOUBTED)
    refuted = run_cli("refute", doubted, "--reason", WHY, environ=CODEX)
    assert refuted.code == 0, refuted.err
    # Twelve newer notes of Codex's own, and scars that rank above any cambium row.
    topics = (
        "the linter runs before the unit tests",
        "fixtures live in tests/data",
        "the docs build with mkdocs",
        "the CLI entry point is app/main.py",
        "integration tests need the docker socket",
        "the changelog is kept in CHANGES.md",
        "coverage reports go to the artifacts folder",
        "the API schema is generated from the models",
        "feature flags are read from flags.yaml",
        "the queue consumer retries with backoff",
    )
    for topic in topics:
        _remember(run_cli, f"Codex noted that {topic}", environ=CODEX)
    for n in range(2):
        _remember(run_cli, f"Scar {n}: migrations on the primary took the site down",
                  "--ring", "scar")  # fmt: skip
    # Codex's session reads its own ten newer notes too: the refuted row keeps a line.
    brief = run_cli("brief", environ=CODEX).out
    lines = [line for line in brief.splitlines() if line.startswith("[")]
    assert len(lines) == 8 and "More are stored than shown" in brief
    [doubt] = [line for line in lines if DOUBTED in line]
    assert "disputed by codex" in doubt
    # In ring order: the scars, then it, first of the rest.
    assert lines.index(doubt) == 2 and lines[0].startswith("[scar]")
    for who in (CLAUDE, None):
        assert "disputed by codex" in run_cli("brief", environ=who).out
    # Decided by a person, it is ranked as any row again: below the newer notes
    # (a person's row, it keeps a line from Codex's unreviewed ones: brief_agents.py).
    assert run_cli("review", "approve", doubted, "--reason", "still true").code == 0
    after = [line for line in run_cli("brief", environ=CODEX).out.splitlines() if line[:1] == "["]
    assert after[-1].startswith("[cambium]") and DOUBTED in after[-1]
    assert "disputed by" not in after[-1] and all("Codex noted" in x for x in after[2:-1])
