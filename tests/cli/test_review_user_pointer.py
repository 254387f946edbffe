"""A person's review queue points at what waits in their user store, as the
inbox does: an agent's proposal about them is theirs to decide too."""

from __future__ import annotations

from pathlib import Path

from governance_support import CLAUDE
from helpers import CliRunner

POINTER = (
    "your user store: 1 waiting for you (agents' proposals about you, or your "
    "notes an agent refuted): `tree-ring review list --user`"
)


def test_review_list_names_the_user_stores_queue(run_cli: CliRunner, tmp_path: Path) -> None:
    home = {"TREE_RING_USER_HOME": str(tmp_path / "me")}
    mine = run_cli("remember", "Prefers short commit subjects", "--scope", "global", environ=home)
    assert mine.code == 0, mine.err
    proposed = run_cli(
        "--json", "remember", "Prefers tabs in Go files", "--scope", "global",
        environ=home | CLAUDE,
    )  # fmt: skip
    assert proposed.code == 0, proposed.err
    assert proposed.json()["trust"] == "pending"
    listed = run_cli("review", "list", environ=home)
    assert listed.out.splitlines() == ["review queue: empty", POINTER]
    assert run_cli("--json", "review", "list", environ=home).json()["user_store_waiting"] == 1
    # The agent's own list, and the user store's, do not point at it.
    assert POINTER not in run_cli("review", "list", environ=home | CLAUDE).out
    assert POINTER not in run_cli("review", "list", "--user", environ=home).out
