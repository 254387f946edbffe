"""An agent's refutation reason the brief shows is read by today's guard, as
a row's text is: one kept before a newer rule that now finds a secret in it
is named, not shown."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from conftest import CliRunner
from governance_support import CLAUDE

from tree_ring.api.project import Project
from tree_ring.model import project

SECRET = "Zq8vN3kLp0R7tYw2XbC9mJ4hGfD6sA1eUoI5nVcK is our AWS secret access key"


def test_a_refutation_reason_holding_a_secret_is_withheld_from_the_brief(
    project_root: Path, run_cli: CliRunner
) -> None:
    kept = run_cli("--json", "remember", "Staging deploys read the key from the vault")
    memory_id = kept.json()["id"]
    refuted = run_cli("refute", memory_id, "--reason", "the vault path moved", environ=CLAUDE)
    assert refuted.code == 0, refuted.err
    refused = run_cli("refute", memory_id, "--reason", SECRET, environ=CLAUDE)
    assert refused.code != 0  # today's guard refuses it as a write
    with Project.open(str(project_root), {}) as here:
        assert "disputed by claude-code: " in here.brief().text
        assert "the vault path moved" in here.brief().text
    # As a reason kept before the rule that finds it: written by hand here.
    db = sqlite3.connect(project.store_path(project_root))
    with db:
        db.execute("UPDATE refutations SET reason = ? WHERE memory_id = ?", (SECRET, memory_id))
    db.close()
    with Project.open(str(project_root), {}) as here:
        text = here.brief().text
    assert "Zq8vN3kLp0R7tYw2XbC9mJ4hGfD6sA1eUoI5nVcK" not in text
    assert "disputed by claude-code; its reason is withheld: `tree-ring review list`" in text
