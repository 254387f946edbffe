"""A person's contradicting fact is accepted and offered for supersession;
a person's supersede settles a contradicted pair; agents still wait. And the
sharing policy for captures."""

from __future__ import annotations

from pathlib import Path

from conftest import CliRunner
from governance_support import CLAUDE, CODEX, remember, show, write

from tree_ring.model.identity import Identity
from tree_ring.read.brief import build_brief
from tree_ring.store.db import Store


def test_a_persons_new_fact_is_accepted_and_the_old_one_offered(run_cli: CliRunner) -> None:
    old = remember(run_cli, "The request timeout is 30s", "--event-type", "decision")
    done = run_cli("remember", "The request timeout is 60s", "--event-type", "decision")
    assert done.code == 0
    new = done.out.split()[1]
    assert show(run_cli, new)["trust"] == "accepted"
    assert f"contradicts {old}: run `tree-ring supersede {old} {new}" in done.out
    data = run_cli("--json", "remember", "The request timeout is 90s", "--event-type", "decision")
    assert set(data.json()["contradicts"]) >= {old}
    # Both stand until the person settles it.
    assert show(run_cli, old)["trust"] == "accepted" and show(run_cli, old)["retired_at"] is None


def test_an_agents_contradiction_still_waits(run_cli: CliRunner) -> None:
    old = remember(run_cli, "The request timeout is 30s", "--event-type", "decision")
    done = write(
        run_cli,
        "remember",
        "The request timeout is 45s",
        "--event-type",
        "decision",
        "--scope",
        "project",
        environ=CLAUDE,
    )
    assert done["trust"] == "disputed" and done["contradicts"] == [old]


def test_a_persons_supersede_settles_a_disputed_pair_in_one_step(run_cli: CliRunner) -> None:
    old = remember(run_cli, "The retry limit is 3", "--event-type", "decision")
    new = write(
        run_cli,
        "remember",
        "The retry limit is 5",
        "--event-type",
        "decision",
        "--scope",
        "project",
        environ=CODEX,
    )["id"]
    assert show(run_cli, new)["trust"] == "disputed"
    # An agent's supersede of that pair still waits for a person.
    waits = write(run_cli, "supersede", old, new, "--reason", "newer", environ=CODEX)
    assert waits["applied"] is False and waits["approved"] is False
    assert show(run_cli, new)["trust"] == "disputed"

    done = write(run_cli, "supersede", old, new, "--reason", "5 is right")
    assert done["applied"] is True and done["approved"] is True
    assert show(run_cli, new)["trust"] == "accepted"
    assert show(run_cli, old)["superseded_by"] == new
    assert run_cli("audit", "verify").code == 0


def test_supersede_of_an_unlinked_pending_row_still_waits(run_cli: CliRunner) -> None:
    old = remember(run_cli, "Deploys go out on Mondays")
    new = write(
        run_cli, "remember", "Deploy notes live in docs/deploy.md", "--scope", "project",
        environ=CLAUDE,
    )["id"]  # fmt: skip
    assert show(run_cli, new)["trust"] == "pending"
    done = write(run_cli, "supersede", old, new, "--reason", "replaced")
    assert done["applied"] is False and done["approved"] is False


def _capture(run_cli: CliRunner, project_id: str, text: str, op: str) -> dict[str, object]:
    return write(
        run_cli,
        "capture", text, "--event-type", "lesson", "--ring", "cambium",
        "--project", project_id, "--agent-profile", "claude-code", "--workflow-id", "s1",
        "--session-id", "s1", "--operation-id", op, "--source-ref", "session:s1",
        environ=CLAUDE,
    )  # fmt: skip


def test_share_captures_puts_captures_in_the_project_scope(
    run_cli: CliRunner, project_root: Path, project_id: str
) -> None:
    assert run_cli("--json", "review", "policy").json()["review_policy"]["share_captures"] is False
    kept = _capture(
        run_cli, project_id, "The linter config lives in ruff.toml", "auto-aaaaaaaaaaaa-1"
    )
    assert show(run_cli, str(kept["id"]))["scope"] == "agent"

    refused = run_cli("review", "policy", "--set", "share_captures=true", environ=CLAUDE)
    assert refused.code != 0
    write(run_cli, "review", "policy", "--set", "share_captures=true")
    shared = _capture(run_cli, project_id, "The docs site deploys from main", "auto-bbbbbbbbbbbb-1")
    row = show(run_cli, str(shared["id"]))
    assert (row["scope"], row["origin"], row["trust"]) == ("project", "claude-code", "accepted")
    with Store.open(project_root) as store:
        text = build_brief(store, Identity(project_id, "codex", "cx-1", "cx-1")).text
    assert "The docs site deploys from main" in text
    assert "ruff.toml" not in text  # earlier captures stay where they were
    # A capture that contradicts project memory is not shared: it stays in
    # its partition, for the person to decide in the inbox.
    remember(run_cli, "The build timeout is 10 minutes", "--event-type", "lesson")
    stays = _capture(run_cli, project_id, "The build timeout is 20 minutes", "auto-cccccccccccc-1")
    assert show(run_cli, str(stays["id"]))["scope"] == "agent"
    assert str(stays["id"]) in {i["id"] for i in run_cli("--json", "inbox").json()["items"]}
    assert run_cli("audit", "verify").code == 0
