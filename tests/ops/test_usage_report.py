"""`tree-ring usage`, `show`'s counts and `maintain --suggest`, from the usage log."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from conftest import PERSON, CliRunner, make_memory
from governance_support import CLAUDE

from tree_ring.store import rows, usage_log
from tree_ring.store.db import Store
from tree_ring.upkeep import suggest, usage
from tree_ring.write import pipeline

DAY = 86_400 * 1_000_000_000
NOW = time.time_ns()


def log(root: Path, event: str, ids: list[str], size: int, *, days_ago: float = 0,
        harness: str = "codex", session: str | None = "s1") -> None:  # fmt: skip
    usage_log.append(root, event, harness=harness, session=session, ids=ids, size=size,
                     now_ns=NOW - int(days_ago * DAY))  # fmt: skip


A, B, OLD = (f"mem_20260101_000000_00000000000{c}" for c in "abc")


def test_the_report_adds_up_the_log(store: Store, project_id: str, project_root: Path) -> None:
    log(project_root, "brief", [A, B], 400, session="s1")
    log(project_root, "brief", [A], 200, session="s2", harness="claude-code")
    log(project_root, "checkpoint", [], 580, session="s1")
    log(project_root, "recall", [B], 100, session=None, harness="person")
    log(project_root, "recall", [B], 50, session="s1", harness="codex")
    log(project_root, "brief", [OLD], 999, days_ago=30, session="s0")
    found = usage.report(store, project_id, usage.parse_since("7d"))
    assert found.sessions == 2  # s1 (codex) and s2 (claude-code); s0 is before the period
    assert (found.briefs.count, found.briefs.bytes, found.briefs.tokens) == (2, 600, 150)
    assert (found.checkpoints.count, found.model_turns) == (1, 1)
    # A person's own recall is logged, but put nothing into an agent's context.
    assert (found.recalls.count, found.own_recalls.count, found.injected.bytes) == (1, 1, 1230)
    assert [(i, n) for i, n, _ in found.top] == [(A, 2), (B, 1)]
    assert found.by_harness["person"] == {"brief": 0, "checkpoint": 0, "recall": 1}
    everything = usage.report(store, project_id)
    assert everything.briefs.count == 3 and (OLD, 1) in [(i, n) for i, n, _ in everything.top]
    assert everything.to_dict()["model_tokens_spent_by_tree_ring"] == 0


def test_captures_stored_counts_the_checkpoints_writes(
    project_root: Path, run_cli: CliRunner, project_id: str, store: Store
) -> None:
    capture = [
        "capture", "The flaky test needed a fixed seed", "--event-type", "lesson",
        "--ring", "cambium", "--project", project_id, "--agent-profile", "codex",
        "--workflow-id", "s1", "--session-id", "s1", "--operation-id", "auto-0123456789ab-1",
        "--source-ref", "session:s1",
    ]  # fmt: skip
    assert run_cli(*capture).code == 0
    assert run_cli("remember", "Not a capture").code == 0
    assert usage.report(store, project_id).captures == 1


@pytest.mark.parametrize("text", ["soon", "7", "d", "3x", "7y", "1.5d", "", "zebra-crossing"])
def test_a_since_that_is_not_an_age_is_a_one_line_error(run_cli: CliRunner, text: str) -> None:
    result = run_cli("usage", "--since", text)  # empty too: leaving --since out is everything
    assert result.code == 2 and result.err.count("\n") == 1 and "--since takes" in result.err
    assert "zebra" not in result.err  # the value is not echoed, as no option's mistake is


def test_usage_prints_the_account_and_the_guarantee(project_root: Path, run_cli: CliRunner) -> None:
    stored = run_cli("--json", "remember", "Deploys freeze on Fridays").json()["id"]
    log(project_root, "brief", [stored], 523)
    log(project_root, "checkpoint", [], 595)
    result = run_cli("usage", "--since", "1d")
    assert result.code == 0
    assert "briefs:       1 (523 bytes, ~131 tokens)" in result.out
    assert "checkpoints:  1 asked (595 bytes, ~149 tokens); 1 model turn added" in result.out
    assert f"1x {stored}  Deploys freeze on Fridays" in result.out
    assert "Tree Ring itself spends no model tokens" in result.out
    data = run_cli("--json", "usage").json()
    assert data["injected"] == {"count": 2, "bytes": 1118, "tokens": 280}


def test_show_says_how_often_a_memory_was_injected_and_recalled(
    project_root: Path, run_cli: CliRunner
) -> None:
    stored = run_cli("--json", "remember", "Deploys freeze on Fridays").json()["id"]
    other = run_cli("--json", "remember", "The cache lives in SQLite").json()["id"]
    log(project_root, "brief", [stored, other], 400, days_ago=2)
    log(project_root, "brief", [stored], 300, days_ago=1)
    assert run_cli("recall", "deploys freeze").code == 0
    assert run_cli("recall", "cache SQLite").code == 0
    data = run_cli("--json", "show", stored).json()["usage"]
    assert (data["injected"], data["recalled"]) == (2, 1)
    assert data["last_injected"] == usage_log.iso(NOW - DAY)
    assert data["last_recalled"] is not None and data["last_recalled"] > data["last_injected"]
    [line] = [
        line for line in run_cli("show", stored).out.splitlines() if line.startswith("usage:")
    ]
    assert line.split(": ", 1)[1].strip().startswith("injected 2 times (last ")
    never = run_cli("--json", "remember", "Nobody asks about this").json()["id"]
    assert " injected 0 times, recalled 0 times\n" in run_cli("show", never).out


def test_suggest_lists_refuted_and_unused_and_changes_nothing(
    store: Store, project_id: str, project_root: Path, run_cli: CliRunner
) -> None:
    def seed(summary: str, days_ago: int) -> str:
        at = usage_log.iso(NOW - days_ago * DAY)
        memory = make_memory(project_id, summary, scope="project", created_at=at)
        with store.write() as db:
            return pipeline.insert_prepared(db, memory, PERSON).id

    injected = seed("Injected last week", 200)
    recalled = seed("Recalled last month", 200)
    unused = seed("Nobody used this", 200)
    used_long_ago = seed("Used a year ago only", 400)
    young = seed("Written yesterday", 1)
    refuted = seed("The port is 8080", 200)
    log(project_root, "brief", [injected], 100, days_ago=7)
    log(project_root, "recall", [recalled], 100, days_ago=30)
    log(project_root, "brief", [used_long_ago], 100, days_ago=365)
    log(project_root, "checkpoint", [], 500, days_ago=1)
    assert (
        run_cli("refute", refuted, "--reason", "it is 9090", environ={"CODEX_THREAD_ID": "t"}).code
        == 0
    )
    before = store.db.scalar(
        "SELECT group_concat(id || trust || ifnull(retired_at, '')) FROM memories"
    )
    found = suggest.suggest(store, project_id, NOW)
    assert {s.id for s in found.of("unused")} == {unused, used_long_ago}
    assert {s.id for s in found.of("refuted")} == {refuted}
    assert found.of("refuted")[0].why == "refuted by codex: it is 9090"
    assert found.of("stale") == [] and found.stale_checked  # nothing is anchored here
    assert young not in {s.id for s in found.items}
    after = store.db.scalar(
        "SELECT group_concat(id || trust || ifnull(retired_at, '')) FROM memories"
    )
    assert before == after
    text = run_cli("maintain", "--suggest").out
    assert f'{unused}  "Nobody used this"' in text and "nothing was changed" in text
    data = run_cli("--json", "maintain", "--suggest").json()
    assert {(i["kind"], i["id"]) for i in data["items"]} == {
        ("refuted", refuted),
        ("unused", unused),
        ("unused", used_long_ago),
    }
    assert run_cli("maintain", "--suggest", "--apply-expired").code == 2


def test_suggest_lists_exactly_the_stale_memories_with_what_changed(
    project_root: Path, run_cli: CliRunner
) -> None:
    folder = project_root / "src"
    folder.mkdir()
    for name in ("retry.py", "queue.py", "gone.py"):
        (folder / name).write_text(f"# {name}\n", encoding="utf-8")

    def anchored(summary: str, *files: str) -> str:
        flags = [arg for name in files for arg in ("--file", f"src/{name}")]
        done = run_cli("--json", "remember", summary, *flags)
        assert done.code == 0, done.err
        return str(done.json()["id"])

    changed = anchored("Retries back off to 30 s", "retry.py", "queue.py")
    fresh = anchored("The queue is FIFO", "queue.py")
    deleted = anchored("A file that went", "gone.py")
    anchored("Not about any file")
    (folder / "retry.py").write_text("# retry.py, rewritten\n", encoding="utf-8")
    (folder / "gone.py").unlink()
    data = run_cli("--json", "maintain", "--suggest").json()
    assert data["stale_checked"] is True
    stale = {i["id"]: i for i in data["items"] if i["kind"] == "stale"}
    assert set(stale) == {changed, deleted}
    assert fresh not in stale
    assert stale[changed]["summary"] == "Retries back off to 30 s"
    assert stale[changed]["why"].startswith('"src/retry.py" changed since ')
    assert stale[deleted]["why"].startswith('"src/gone.py" deleted since ')
    assert data["counts"]["stale"] == 2
    text = run_cli("maintain", "--suggest").out
    assert "stale: anchored files changed: 2" in text
    assert f'{changed}  "Retries back off to 30 s"  ("src/retry.py" changed since ' in text


def test_an_agents_top_injected_are_rows_it_may_read_chosen_before_the_cut(
    store: Store, project_id: str, project_root: Path, run_cli: CliRunner
) -> None:
    """More of codex's rows than the top holds were injected more often than
    claude's own row and the project's: an agent's report names its own two,
    never codex's; a person's the most injected of every partition."""
    others = [
        make_memory(project_id, f"Codex note {i}", scope="agent", agent_profile="codex")
        for i in range(usage.TOP + 2)
    ]
    mine = make_memory(project_id, "Claude note", scope="agent", agent_profile="claude-code")
    shared = make_memory(project_id, "The project note", scope="project")
    with store.write() as db:
        rows.insert_many(db, [*others, mine, shared])
    for _ in range(3):
        log(project_root, "brief", [m.id for m in others], 100)
    log(project_root, "brief", [mine.id, shared.id], 100, harness="claude-code")

    def top(environ: dict[str, str] | None = None) -> dict[str, str]:
        done = run_cli("--json", "usage", environ=environ)
        assert done.code == 0, done.err
        return {i["id"]: i["summary"] for i in done.json()["top_injected"]}

    assert top(CLAUDE) == {mine.id: "Claude note", shared.id: "The project note"}
    ranked = sorted(m.id for m in others)[: usage.TOP]
    assert top() == {m.id: m.summary for m in others if m.id in ranked}
    out = run_cli("usage", environ=CLAUDE).out
    assert "Codex note" not in out and "Claude note" in out


# A GitHub token's shape (not a live token), as a harness session variable.
TOKEN = "ghp_1A2b3C4d5E6f7G8h9I0jK1L2m3N4o5P6q7R8"


@pytest.mark.parametrize(
    ("session", "logged"),
    [
        (TOKEN, None),
        ("thread-42", "thread-42"),
        ("7f3c2a91-0000-4000-8000-000000000001", "7f3c2a91-0000-4000-8000-000000000001"),
    ],
    ids=["secret", "plain", "uuid"],
)
def test_a_recall_logs_no_session_that_reads_as_a_secret(
    run_cli: CliRunner, project_root: Path, session: str, logged: str | None
) -> None:
    assert run_cli("remember", "The cache warms at startup").code == 0
    agent = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": session}
    done = run_cli("recall", "cache", environ=agent)
    assert done.code == 0, done.err
    (entry,) = [e for e in usage_log.read(project_root).entries if e["event"] == "recall"]
    assert entry.get("session") == logged
    raw = (project_root / ".tree-ring" / "receipts" / "usage.jsonl").read_text()
    assert TOKEN not in raw
