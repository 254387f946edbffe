"""`audit findings` and `stale` read what the caller may read: an agent's
report covers the rows its recall reads (the shared scopes and its own
partitions), a person's every partition."""

from __future__ import annotations

from pathlib import Path

import pytest
from governance_support import CLAUDE, CODEX, remember
from helpers import CliRunner, make_memory

from tree_ring.model.identity import Identity
from tree_ring.model.record import Link, Memory
from tree_ring.review import findings
from tree_ring.store import rows
from tree_ring.store.db import Store


def written(run_cli: CliRunner, project_root: Path) -> dict[str, str]:
    """One unsure, anchored memory in each agent's own partition; then the
    file both are about changes, so both are stale."""
    (project_root / "retry.py").write_text("DELAY = 30\n", encoding="utf-8")
    ids = {
        name: remember(
            run_cli,
            f"Retries back off to 30 s, says {name}",
            "--confidence",
            "0.1",
            "--file",
            "retry.py",
            environ=environ,
        )
        for name, environ in (("claude", CLAUDE), ("codex", CODEX))
    }
    (project_root / "retry.py").write_text("DELAY = 45  # longer now\n", encoding="utf-8")
    return ids


def listed(run_cli: CliRunner, *argv: str, environ: dict[str, str] | None = None) -> set[str]:
    done = run_cli("--json", *argv, environ=environ)
    assert done.code == 0, done.err
    return {item["id"] for item in done.json()["items"]}


@pytest.mark.parametrize(
    "argv", [("audit", "findings"), ("audit", "findings", "--audit-type", "low_confidence")]
)
def test_an_agents_findings_cover_its_own_partition_and_a_persons_every_one(
    run_cli: CliRunner, project_root: Path, argv: tuple[str, ...]
) -> None:
    ids = written(run_cli, project_root)
    assert listed(run_cli, *argv, environ=CLAUDE) == {ids["claude"]}
    assert listed(run_cli, *argv, environ=CODEX) == {ids["codex"]}
    assert listed(run_cli, *argv) == {ids["claude"], ids["codex"]}


def test_an_agents_stale_covers_its_own_partition_and_a_persons_every_one(
    run_cli: CliRunner, project_root: Path
) -> None:
    ids = written(run_cli, project_root)
    assert listed(run_cli, "stale", environ=CLAUDE) == {ids["claude"]}
    assert listed(run_cli, "stale", environ=CODEX) == {ids["codex"]}
    assert listed(run_cli, "stale") == {ids["claude"], ids["codex"]}


def test_a_row_in_another_partition_is_neither_missing_nor_named(
    store: Store, project_id: str
) -> None:
    """Supersession and contradiction findings between two partitions: the
    person's report names both rows; the agent's says nothing of the row it
    may not read, and does not call it missing."""
    other = make_memory(project_id, "The cache lives in tmp", scope="agent", agent_profile="codex")
    mine = make_memory(
        project_id,
        "The cache lives in var",
        scope="agent",
        agent_profile="claude-code",
        trust="pending",
        supersedes=(other.id,),
        links=(Link("contradicts", other.id),),
    )
    gone = make_memory(
        project_id,
        "The queue drains hourly",
        scope="agent",
        agent_profile="claude-code",
        superseded_by="mem_20990101_000000_000000000000",
        retired_at="2026-01-01T00:00:00.000000Z",
    )
    with store.write() as db:
        rows.insert_many(db, [other, mine, gone])
    agent = Identity(project_id, "claude-code", "s1", "s1")
    kinds = ("supersession", "contradictions", "review")
    said = {
        (f.type, f.id, f.reason)
        for kind in kinds
        for f in findings.report(store.db, project_id, kind, reader=agent)
    }
    assert said == {
        ("supersession", gone.id, "superseded by mem_20990101_000000_000000000000, "
         "which is not in the store"),
        ("review", mine.id, "pending: waiting for review"),
    }  # fmt: skip
    person = {(f.type, f.id) for kind in kinds for f in findings.report(store.db, project_id, kind)}
    assert person == {
        ("supersession", gone.id),
        ("supersession", mine.id),
        ("contradictions", min(mine.id, other.id)),
        ("review", mine.id),
    }


def test_an_agents_suggestions_cover_its_own_partition_and_a_persons_every_one(
    run_cli: CliRunner, project_root: Path, store: Store, project_id: str
) -> None:
    """`maintain --suggest`'s three lists, refuted, unused and stale, as `stale`
    reads: an agent's of its own partition's rows, a person's of all."""
    ids = {name: {"stale": stale} for name, stale in written(run_cli, project_root).items()}
    long_ago = "2020-01-01T00:00:00.000000Z"
    made: list[Memory] = []
    for name, profile in (("claude", "claude-code"), ("codex", "codex")):
        disputed = make_memory(
            project_id, f"The port is 8080, says {name}", scope="agent",
            agent_profile=profile, trust="disputed", review_reason="it is 9090",
        )  # fmt: skip
        unused = make_memory(
            project_id, f"Nobody reads this, says {name}", scope="agent",
            agent_profile=profile, created_at=long_ago,
        )  # fmt: skip
        ids[name] |= {"refuted": disputed.id, "unused": unused.id}
        made += [disputed, unused]
    with store.write() as db:
        rows.insert_many(db, made)

    def suggested(environ: dict[str, str] | None = None) -> set[tuple[str, str]]:
        done = run_cli("--json", "maintain", "--suggest", environ=environ)
        assert done.code == 0, done.err
        # Written just now, the stale rows are not yet unused: each kind is its own row.
        return {(i["kind"], i["id"]) for i in done.json()["items"]}

    def of(*names: str) -> set[tuple[str, str]]:
        return {(kind, memory_id) for name in names for kind, memory_id in ids[name].items()}

    assert suggested(CLAUDE) == of("claude")
    assert suggested(CODEX) == of("codex")
    assert suggested() == of("claude", "codex")


def test_the_audit_log_is_a_persons_and_an_agent_reads_only_its_own_memorys_entries(
    run_cli: CliRunner, project_root: Path
) -> None:
    ids = written(run_cli, project_root)
    whole = run_cli("--json", "audit", "log")
    assert whole.code == 0, whole.err
    targets = {e["target"] for e in whole.json()["items"]}
    assert {ids["claude"], ids["codex"]} <= targets
    for argv in (("audit", "log"), ("audit",)):
        refused = run_cli(*argv, environ=CLAUDE)
        assert refused.code != 0 and refused.out == ""
        assert refused.err.count("\n") == 1 and "--target" in refused.err
    own = run_cli("--json", "audit", "log", "--target", ids["claude"], environ=CLAUDE)
    assert own.code == 0, own.err
    assert {e["target"] for e in own.json()["items"]} == {ids["claude"]}
    other = run_cli("--json", "audit", "log", "--target", ids["codex"], environ=CLAUDE)
    assert other.code != 0 and ids["codex"] not in other.out
