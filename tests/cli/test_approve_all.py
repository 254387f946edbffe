"""`review approve --all`: a person accepts a migration in one step, each row
decided and audited as a single approve would be, and an agent is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from governance_support import CLAUDE, db, write
from helpers import CliRunner

from tree_ring.model.record import now_iso


def _import_rules(run_cli: CliRunner, tmp_path: Path, count: int) -> set[str]:
    lines = [
        {"summary": f"Release rule number {n} holds", "event_type": "decision", "scope": "project"}
        for n in range(count)
    ]
    path = tmp_path / "rules.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    done = write(run_cli, "import", str(path))
    assert done["pending"] == count
    return {i["id"] for i in done["items"] if i["result"] == "imported"}


def _trust(root: Path) -> dict[str, str]:
    with db(root) as conn:
        return {row["id"]: row["trust"] for row in conn.execute("SELECT id, trust FROM memories")}


def _review_entries(root: Path) -> list[str]:
    with db(root) as conn:
        rows = conn.execute("SELECT target FROM audit_log WHERE action = 'review'")
        return [row["target"] for row in rows]


@pytest.fixture
def waiting(run_cli: CliRunner, tmp_path: Path) -> dict[str, set[str]]:
    imported = _import_rules(run_cli, tmp_path, 5)
    agent = write(run_cli, "remember", "Vendor the SDK", "--ring", "heartwood", environ=CLAUDE)
    disputed = write(run_cli, "remember", "Logs rotate nightly")["id"]
    write(run_cli, "review", "dispute", disputed, "--reason", "unsure")
    return {"import": imported, "agent": {agent["id"]}, "disputed": {disputed}}


def test_a_dry_run_counts_exactly_the_rows_and_writes_nothing(
    run_cli: CliRunner, project_root: Path, waiting: dict[str, set[str]]
) -> None:
    before = _trust(project_root)
    plan = write(run_cli, "review", "approve", "--all", "--origin", "import", "--dry-run")
    assert plan["dry_run"] is True and plan["approved"] == 0
    assert {d["id"] for d in plan["items"]} == waiting["import"] and plan["total"] == 5
    assert _trust(project_root) == before
    text = run_cli("review", "approve", "--all", "--origin", "import", "--dry-run").out
    assert text.splitlines()[0] == "would approve 5 pending memories (dry run: nothing was written)"


def test_approve_all_takes_the_rows_the_filter_names_each_audited(
    run_cli: CliRunner, project_root: Path, waiting: dict[str, set[str]]
) -> None:
    done = write(run_cli, "review", "approve", "--all", "--origin", "import")
    assert done["approved"] == 5 and {d["id"] for d in done["items"]} == waiting["import"]
    assert all(d["trust"] == "accepted" and d["decision"] == "approve" for d in done["items"])
    trust = _trust(project_root)
    assert {i for i, t in trust.items() if t == "accepted"} >= waiting["import"]
    # The agent's row and the disputed one are untouched: other origin, not pending.
    assert [trust[i] for i in (*waiting["agent"], *waiting["disputed"])] == ["pending", "disputed"]
    # One review entry per row, as five single approvals would leave.
    assert sorted(_review_entries(project_root)) == sorted(
        [*waiting["import"], *waiting["disputed"]]
    )
    assert run_cli("audit", "verify").code == 0
    again = write(run_cli, "review", "approve", "--all", "--origin", "import")
    assert again["approved"] == 0 and again["items"] == []


def test_without_a_filter_every_pending_row_but_no_disputed_one(
    run_cli: CliRunner, project_root: Path, waiting: dict[str, set[str]]
) -> None:
    done = write(run_cli, "review", "approve", "--all")
    assert {d["id"] for d in done["items"]} == waiting["import"] | waiting["agent"]
    assert _trust(project_root)[next(iter(waiting["disputed"]))] == "disputed"


def test_since_narrows_by_the_records_time(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    early = _import_rules(run_cli, tmp_path, 2)
    cut = now_iso()
    later = write(run_cli, "remember", "Ship on Mondays", "--ring", "heartwood", environ=CLAUDE)
    plan = write(run_cli, "review", "approve", "--all", "--since", cut, "--dry-run")
    assert {d["id"] for d in plan["items"]} == {later["id"]}
    assert plan["filters"]["since"] == cut and early.isdisjoint(d["id"] for d in plan["items"])


def test_an_agent_is_refused_as_for_a_single_approve(
    run_cli: CliRunner, project_root: Path, waiting: dict[str, set[str]]
) -> None:
    before = _trust(project_root)
    single = run_cli("review", "approve", next(iter(waiting["import"])), environ=CLAUDE)
    every = run_cli("review", "approve", "--all", "--origin", "import", environ=CLAUDE)
    assert single.code == every.code == 1
    assert single.err.startswith("error: denied: review.approve is a person's decision")
    assert every.err.startswith("error: denied: review.approve is a person's decision")
    assert _trust(project_root) == before
    # Refused even when nothing would match: the answer does not depend on the queue.
    nothing = run_cli("review", "approve", "--all", "--origin", "codex", environ=CLAUDE)
    assert nothing.code == 1 and "denied" in nothing.err


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["review", "approve", "--origin", "import"], "--origin goes with --all"),
        (["review", "approve", "--dry-run"], "--dry-run goes with --all"),
        (["review", "approve", "mem_x", "--all"], "an id or --all, not both"),
        (["review", "approve"], "needs the memory id"),
        (["review", "approve", "--all", "--since", "yesterday"], "--since"),
        (["review", "approve", "--all", "--origin", "robots"], "invalid choice"),
    ],
)
def test_approve_all_refuses_a_muddled_request(
    run_cli: CliRunner, argv: list[str], said: str
) -> None:
    result = run_cli(*argv)
    assert result.code == 2 and said in result.err, result.err


def test_batch_takes_exactly_one_imports_rows(
    run_cli: CliRunner, tmp_path: Path, project_root: Path
) -> None:
    """Two imports wait side by side; `--batch` names one of them by the id
    its import printed, and approves those rows and no others."""
    lines = [
        {"summary": f"Rule {word} holds for releases", "event_type": "decision", "scope": "project"}
        for word in ("alpha", "beta", "gamma", "delta")
    ]
    batches: list[tuple[str, set[str]]] = []
    for n, part in enumerate((lines[:2], lines[2:])):
        path = tmp_path / f"part{n}.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in part), encoding="utf-8")
        done = write(run_cli, "import", str(path))
        ids = {i["id"] for i in done["items"] if i["result"] == "imported"}
        assert len(ids) == 2
        batches.append((str(done["batch"]), ids))
    (first, first_ids), (_, second_ids) = batches
    plan = write(run_cli, "review", "approve", "--all", "--batch", first, "--dry-run")
    assert {i["id"] for i in plan["items"]} == first_ids
    write(run_cli, "review", "approve", "--all", "--batch", first)
    trust = _trust(project_root)
    assert {trust[i] for i in first_ids} == {"accepted"}
    assert {trust[i] for i in second_ids} == {"pending"}
    refused = run_cli("review", "approve", "--batch", first)
    assert refused.code == 2 and "--batch goes with --all" in refused.err
