"""The inbox: what agents saved since the person last looked, and the three decisions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import CliRunner, make_memory
from governance_support import CLAUDE, CODEX, remember, show, write

from tree_ring.model.identity import Identity
from tree_ring.model.record import Memory
from tree_ring.read.brief import build_brief
from tree_ring.store import rows
from tree_ring.store.db import Store

NOW = "2026-01-01T00:00:03.000000Z"


def agent_row(project_id: str, text: str, origin: str, session: str, at: str) -> object:
    memory = make_memory(project_id, text, scope="agent", created_at=at, valid_from=at)
    return memory.replace(
        origin=origin,
        origin_session=session,
        agent_profile=origin,
        workflow_id=session,
        session_id=session,
        source_type="agent",
    )


def seed(root: Path, memories: list[object]) -> None:
    with Store.open(root) as store, store.write() as db:
        rows.insert_many(db, memories)  # type: ignore[arg-type]  # Memory rows built above


def inbox(run_cli: CliRunner, *args: str) -> dict[str, object]:
    result = run_cli("--json", "inbox", *args)
    assert result.code == 0, result.err
    data: dict[str, object] = result.json()
    return data


def ids(data: dict[str, object]) -> list[str]:
    return [item["id"] for item in data["items"]]  # type: ignore[index, union-attr]


def test_lists_agent_writes_newest_first_then_marks_them_seen(
    run_cli: CliRunner, project_root: Path, project_id: str
) -> None:
    older = agent_row(
        project_id,
        "Docker must run for integration tests",
        "claude-code",
        "s1",
        "2026-01-01T00:00:01.000000Z",
    )
    newer = agent_row(
        project_id,
        "Codex found the flaky test seed",
        "codex",
        "cx-7",
        "2026-01-01T00:00:02.000000Z",
    )
    seed(project_root, [older, newer])
    remember(run_cli, "A person's own note is not inbox material")

    first = inbox(run_cli)
    assert first["command"] == "inbox" and first["project"] == project_id
    assert ids(first) == [newer.id, older.id]  # type: ignore[attr-defined]
    assert first["total"] == first["shown"] == 2 and first["marked_seen"] is True
    item = first["items"][0]  # type: ignore[index]
    assert item["origin"] == "codex" and item["partition"] == "agent codex"  # type: ignore[index]
    assert item["session_id"] == "cx-7" and item["ring"] == "cambium"  # type: ignore[index]

    assert ids(inbox(run_cli)) == []
    later = write(
        run_cli, "remember", "Codex again: cache keys include the lockfile", environ=CODEX
    )
    assert ids(inbox(run_cli)) == [later["id"]]


def test_human_output_offers_promote_keep_and_forget(run_cli: CliRunner) -> None:
    memory_id = remember(run_cli, "The staging database resets nightly", environ=CLAUDE)
    out = run_cli("inbox").out
    assert f"tree-ring promote {memory_id}" in out
    assert "keep: nothing to do" in out
    assert f"tree-ring forget {memory_id}" in out
    assert "from claude-code session s1, in its own partition, " in out


def test_peek_marks_nothing_seen(run_cli: CliRunner) -> None:
    memory_id = remember(run_cli, "The release branch is cut on Tuesdays", environ=CLAUDE)
    assert ids(inbox(run_cli, "--peek")) == [memory_id]
    assert ids(inbox(run_cli)) == [memory_id]
    assert ids(inbox(run_cli, "--peek")) == []


def test_all_after_a_listing_says_why_it_found_nothing(run_cli: CliRunner) -> None:
    """Looking marks seen, and `--all` acts on unseen items: the batch run
    right after a look finds none, and says how to act on what was seen."""
    memory_id = remember(run_cli, "The release branch is cut on Tuesdays", environ=CLAUDE)
    assert ids(inbox(run_cli)) == [memory_id]
    done = run_cli("inbox", "--all", "--promote", "--reason", "seen it")
    assert done.code == 0
    assert done.out.splitlines() == [
        "inbox: promoted 0 of 0",
        "nothing unseen: a listing without --peek marks what it shows seen; "
        "`tree-ring promote ID --reason WHY` acts on one of those, "
        "and `inbox --peek` looks without marking",
    ]
    assert "tree-ring forget ID" in run_cli("inbox", "--all", "--forget", "--reason", "x").out
    assert run_cli("inbox", "--all", "--keep").out.splitlines() == ["inbox: kept 0 of 0"]


def test_filters_run_before_the_limit(
    run_cli: CliRunner, project_root: Path, project_id: str
) -> None:
    """300 newer codex rows cannot push the one claude row out of a page of one."""
    lone = agent_row(
        project_id, "Claude: the lone row", "claude-code", "s1", "2026-01-01T00:00:00.000000Z"
    )
    crowd = [
        agent_row(
            project_id,
            f"Codex note number {i}",
            "codex",
            "cx-7",
            f"2026-01-02T00:{i // 60:02d}:{i % 60:02d}.000000Z",
        )
        for i in range(300)
    ]
    seed(project_root, [lone, *crowd])
    found = inbox(run_cli, "--origin", "claude-code", "--limit", "1", "--peek")
    assert ids(found) == [lone.id] and found["total"] == 1  # type: ignore[attr-defined]
    by_session = inbox(run_cli, "--session-id", "s1", "--limit", "1", "--peek")
    assert ids(by_session) == [lone.id]  # type: ignore[attr-defined]
    page = inbox(run_cli, "--limit", "5")
    assert page["total"] == 301 and page["shown"] == 5
    # Only what was shown is seen: the other 296 stay.
    assert inbox(run_cli, "--peek", "--limit", "1")["total"] == 296


def test_all_promote_handles_a_filtered_batch(
    run_cli: CliRunner, project_root: Path, project_id: str
) -> None:
    a = remember(run_cli, "Claude: migrations run through alembic", environ=CLAUDE)
    b = remember(run_cli, "Claude: fixtures live in tests/data", environ=CLAUDE)
    c = remember(run_cli, "Codex: builds need the cache mounted", environ=CODEX)
    done = inbox(run_cli, "--all", "--promote", "--origin", "claude-code", "--reason", "agreed")
    assert set(done["promoted"]) == {a, b}  # type: ignore[arg-type]
    scopes = {i: run_cli("--json", "show", i).json()["memory"]["scope"] for i in (a, b, c)}
    assert scopes == {a: "project", b: "project", c: "agent"}
    with Store.open(project_root) as store:  # a subagent of another harness: shared rows only
        brief = build_brief(store, Identity(project_id, "other", "x", "x")).text
    assert "migrations run through alembic" in brief and "fixtures live in" in brief
    assert "builds need the cache" not in brief
    assert ids(inbox(run_cli)) == [c]


def test_all_promote_promotes_what_it_can_and_names_the_rest(run_cli: CliRunner) -> None:
    """A batch promote over an inbox holding a waiting proposal and a row
    shared already: the partition's notes are promoted, the others left as
    they are, each with why."""
    note = remember(run_cli, "Codex: builds need the cache mounted", environ=CODEX)
    waiting = remember(
        run_cli, "Codex: the deploy freeze starts on Fridays", "--scope", "project", environ=CODEX
    )
    shared = remember(
        run_cli, "Codex: the nightly job owns the cache", "--scope", "project", environ=CODEX
    )
    write(run_cli, "review", "approve", shared, "--reason", "checked")
    done = inbox(run_cli, "--all", "--promote", "--origin", "codex", "--reason", "weekly review")
    assert done["promoted"] == [note]
    why = {s["id"]: s["why"] for s in done["skipped"]}  # type: ignore[union-attr]
    assert set(why) == {waiting, shared}
    assert why[waiting].startswith("is pending; decide it first")
    assert why[shared].startswith("is already in the shared project scope")
    assert show(run_cli, waiting)["trust"] == "pending"
    text = run_cli("inbox", "--all", "--promote", "--origin", "codex", "--reason", "again")
    assert text.code == 0, text.err
    assert f"{waiting}: is pending; decide it first" in text.out


def test_all_keep_and_all_forget(run_cli: CliRunner) -> None:
    kept = remember(run_cli, "Codex: the docs build takes a minute", environ=CODEX)
    assert inbox(run_cli, "--all", "--keep")["kept"] == [kept]
    assert run_cli("--json", "show", kept).json()["memory"]["scope"] == "agent"
    assert ids(inbox(run_cli, "--peek")) == []
    gone = remember(run_cli, "Claude: a wrong guess about the port", environ=CLAUDE)
    assert inbox(run_cli, "--all", "--forget", "--reason", "wrong")["forgot"] == [gone]
    assert run_cli("show", gone).code != 0


def test_all_forget_takes_identical_copies_once(run_cli: CliRunner) -> None:
    """A copy forgotten with an earlier item is not forgotten again (it is gone)."""
    text = "Claude: the port is 8080 on every host"
    first = remember(run_cli, text, environ=CLAUDE)
    second = remember(run_cli, text, "--scope", "session", environ=CLAUDE)
    other = remember(run_cli, "Codex: the port is 9090 on the gateway", environ=CODEX)
    forgot = inbox(run_cli, "--all", "--forget", "--reason", "wrong")["forgot"]
    assert sorted(forgot) == sorted([first, second, other])  # type: ignore[type-var]
    assert ids(inbox(run_cli, "--peek")) == []


def test_all_forget_names_the_retired_copies_it_takes(run_cli: CliRunner) -> None:
    """A retired copy of a claim goes with its forget, unlisted: the batch says so."""
    text = "Claude: the e2e suite needs docker compose up first"
    old = remember(run_cli, text, environ=CLAUDE)
    newer = remember(run_cli, "Claude: the e2e suite needs podman", environ=CLAUDE)
    write(run_cli, "supersede", old, newer, "--reason", "moved", environ=CLAUDE)
    again = remember(run_cli, text, environ=CLAUDE)
    shown = run_cli("inbox", "--all", "--forget", "--reason", "noise")
    assert shown.code == 0, shown.err
    assert shown.out.splitlines()[0] == "inbox: forgot 2 of 2"
    assert set(shown.out.splitlines()[1:3]) == {newer, again}
    assert shown.out.splitlines()[-1] == f"also forgot 1 of the same claims: {old}"
    assert run_cli("show", old).code != 0


def test_all_forget_lists_no_copy_when_it_takes_none(run_cli: CliRunner) -> None:
    gone = remember(run_cli, "Claude: a wrong guess about the port", environ=CLAUDE)
    done = inbox(run_cli, "--all", "--forget", "--reason", "wrong")
    assert (done["forgot"], done["also_forgot"]) == ([gone], [])


@pytest.mark.parametrize(
    "argv",
    [
        ("--promote",),  # needs --all
        ("--all",),  # needs an action
        ("--all", "--promote"),  # needs --reason
        ("--all", "--forget"),
        ("--all", "--keep", "--forget", "--reason", "x"),
        ("--limit", "0"),
        ("--since", "yesterday-ish"),
        ("--origin", "person"),
    ],
)
def test_bad_inbox_arguments_change_nothing(run_cli: CliRunner, argv: tuple[str, ...]) -> None:
    memory_id = remember(run_cli, "Claude: the API rate limit is per token", environ=CLAUDE)
    refused = run_cli("inbox", *argv)
    assert refused.code == 2 and refused.out == ""
    assert len(refused.err.strip().splitlines()) == 1 or refused.err.startswith("usage:")
    assert ids(inbox(run_cli, "--peek")) == [memory_id]


def test_an_agent_cannot_read_or_mark_the_inbox(run_cli: CliRunner) -> None:
    memory_id = remember(run_cli, "Codex: integration tests use port 5433", environ=CODEX)
    for harness in (CLAUDE, CODEX):
        refused = run_cli("inbox", environ=harness)
        assert refused.code == 2 and "person's view" in refused.err
    assert ids(inbox(run_cli, "--peek")) == [memory_id]


def test_status_counts_the_inbox_and_the_brief_never_mentions_it(
    run_cli: CliRunner, project_root: Path, project_id: str
) -> None:
    remember(run_cli, "Codex: the build cache lives in .cache/build", environ=CODEX)
    status = run_cli("--json", "status").json()
    assert status["inbox"] == 1
    assert "inbox: 1 new from agents" in run_cli("status").out
    brief = run_cli("brief").out + run_cli("brief", environ=CODEX).out
    assert "inbox" not in brief.lower()
    inbox(run_cli)
    assert run_cli("--json", "status").json()["inbox"] == 0


def _typed(row: object) -> Memory:
    assert isinstance(row, Memory)
    return row


def test_since_includes_its_own_moment_and_each_filter_narrows(
    run_cli: CliRunner, project_root: Path, project_id: str
) -> None:
    at = "2026-01-01T00:00:0{}.000000Z"
    first = _typed(agent_row(project_id, "Alpha note", "claude-code", "s1", at.format(1)))
    second = _typed(agent_row(project_id, "Beta note", "codex", "cx-7", at.format(2)))
    third = _typed(agent_row(project_id, "Gamma note", "codex", "cx-8", at.format(3)))
    third = third.replace(agent_profile="reviewer")
    seed(project_root, [first, second, third])
    assert set(ids(inbox(run_cli, "--peek"))) == {first.id, second.id, third.id}
    at_second = inbox(run_cli, "--peek", "--since", at.format(2))
    assert set(ids(at_second)) == {second.id, third.id}
    assert ids(inbox(run_cli, "--peek", "--since", "2026-01-01T00:00:03.500000Z")) == []
    assert ids(inbox(run_cli, "--peek", "--origin", "codex")) == [third.id, second.id]
    assert ids(inbox(run_cli, "--peek", "--session-id", "cx-7")) == [second.id]
    assert ids(inbox(run_cli, "--peek", "--agent-profile", "reviewer")) == [third.id]


def test_the_human_header_says_whether_looking_marked_them_seen(run_cli: CliRunner) -> None:
    remember(run_cli, "The release branch is cut on Tuesdays", environ=CLAUDE)
    remember(run_cli, "The staging database resets nightly", environ=CLAUDE)
    peeked = run_cli("inbox", "--peek", "--limit", "1").out.splitlines()[0]
    assert peeked == "inbox: 2 new since you last looked (newest first; showing 1 of 2)"
    looked = run_cli("inbox").out.splitlines()[0]
    assert looked == "inbox: 2 new since you last looked (newest first; now marked seen)"
    assert run_cli("inbox").out.splitlines() == ["inbox: nothing new since you last looked"]


def test_why_is_one_line_clipped_at_its_width(run_cli: CliRunner) -> None:
    long = "Found while bisecting the flaky deploy test " * 6  # 264 characters
    memory_id = remember(
        run_cli, "The flaky deploy test needs the clock frozen", "--details",
        long.strip() + "\nsecond line never shown", environ=CLAUDE,
    )  # fmt: skip
    [item] = inbox(run_cli, "--peek")["items"]  # type: ignore[misc]
    assert item["id"] == memory_id  # type: ignore[index]
    assert item["why"] == long.strip()[:157] + "..."  # type: ignore[index]
    exact = ("Found while bisecting the flaky deploy test " * 4)[:160]  # fits exactly
    remember(run_cli, "The cache is warmed at noon", "--details", exact, environ=CLAUDE)
    whys = [i["why"] for i in inbox(run_cli, "--peek")["items"]]  # type: ignore[union-attr, index]
    assert whys[0] == exact


def test_why_shows_runs_of_whitespace_as_one_space(run_cli: CliRunner) -> None:
    remember(
        run_cli, "The cache is warmed at noon", "--details", "Seen   in\tthe  deploy log",
        environ=CLAUDE,
    )  # fmt: skip
    [item] = inbox(run_cli, "--peek")["items"]  # type: ignore[misc]
    assert item["why"] == "Seen in the deploy log"  # type: ignore[index]


def test_a_shared_approved_row_offers_no_promote_and_names_the_reviewers_reason(
    run_cli: CliRunner,
) -> None:
    memory_id = remember(
        run_cli, "The deploy freeze starts on Fridays", "--scope", "project", environ=CLAUDE
    )
    assert show(run_cli, memory_id)["trust"] == "pending"
    # Waiting, keeping it leaves it waiting: no session sees it yet.
    waiting = run_cli("inbox", "--peek").out
    assert "keep: nothing to do (it stays waiting; no session sees it until it is" in waiting
    assert "already shared" not in waiting
    write(run_cli, "review", "approve", memory_id, "--reason", "checked with the ops rota")
    out = run_cli("inbox").out
    assert "promote:" not in out
    assert "stays in its partition" not in out
    assert "keep: nothing to do (it is already shared with the project)" in out
    assert "reviewed: checked with the ops rota (approved by " in out
    assert "why:" not in out
    promoted = run_cli("promote", memory_id, "--reason", "x")
    assert promoted.code != 0 and "already in the shared project scope" in promoted.err


def test_a_waiting_row_offers_the_decision_not_a_promote(run_cli: CliRunner) -> None:
    memory_id = remember(
        run_cli, "The nightly job owns the cache", "--scope", "project", environ=CLAUDE
    )
    [item] = inbox(run_cli, "--peek")["items"]  # type: ignore[misc]
    assert item["actions"] == ["review", "keep", "forget"]  # type: ignore[index]
    out = run_cli("inbox").out
    assert "promote:" not in out
    assert f'review: tree-ring review approve {memory_id} --reason "..."' in out
    assert f"or `tree-ring review reject {memory_id}" in out
    assert "waits: " in out


def test_a_partition_row_offers_all_three(run_cli: CliRunner) -> None:
    remember(
        run_cli, "The staging database resets nightly", "--details", "seen in CI", environ=CLAUDE
    )
    [item] = inbox(run_cli, "--peek")["items"]  # type: ignore[misc]
    assert item["actions"] == ["promote", "keep", "forget"]  # type: ignore[index]
    out = run_cli("inbox").out
    assert "why: seen in CI" in out
    assert "keep: nothing to do (it stays in its partition)" in out


def test_an_mcp_capture_reads_as_an_agent_over_mcp(
    run_cli: CliRunner, project_root: Path, project_id: str
) -> None:
    row = agent_row(project_id, "The flaky test needs a frozen clock", "agent", "m1", NOW)
    seed(project_root, [row.replace(origin_session=None)])  # type: ignore[attr-defined]
    out = run_cli("inbox").out
    assert "from agent in agent agent" not in out
    assert "from an agent over MCP (no harness named), in its own partition," in out


def test_a_sensitive_agent_write_is_counted_and_withheld_unless_asked(
    run_cli: CliRunner, project_root: Path, project_id: str
) -> None:
    # An agent cannot keep a write out of the person's inbox by marking it
    # sensitive: it is counted, withheld with a note, and listed when asked.
    secret = agent_row(
        project_id, "oncall phone rota", "claude-code", "s1", "2026-01-01T00:00:01.000000Z"
    ).replace(sensitivity="private")  # type: ignore[attr-defined]
    plain = agent_row(
        project_id, "the cache needs the lockfile", "codex", "cx", "2026-01-01T00:00:02.000000Z"
    )
    seed(project_root, [secret, plain])

    status = run_cli("--json", "status")
    assert status.code == 0 and status.json()["inbox"] == 2

    peek = run_cli("inbox", "--peek")
    assert peek.code == 0 and peek.err == ""
    assert peek.out.splitlines()[:2] == [
        "inbox: 2 new since you last looked (newest first)",
        "1 of them sensitive, withheld: --include-sensitive lists them",
    ]
    assert "oncall" not in peek.out

    data = inbox(run_cli)
    assert ids(data) == [plain.id]  # type: ignore[attr-defined]
    assert data["total"] == 2 and data["withheld"] == 1 and data["shown"] == 1
    assert run_cli("--json", "status").json()["inbox"] == 1

    asked = inbox(run_cli, "--include-sensitive")
    assert ids(asked) == [secret.id] and asked["withheld"] == 0
    assert run_cli("--json", "status").json()["inbox"] == 0


def test_what_an_agent_imports_into_its_own_partition_is_in_the_inbox(
    run_cli: CliRunner, project_id: str, tmp_path: Path
) -> None:
    # An agent's import lands in its partition accepted, as its own writes
    # do, and the brief of its harness shows it: the person's look at what
    # agents saved must show it too.
    row = {
        "project": project_id,
        "scope": "agent",
        "agent_profile": "claude-code",
        "summary": "The deploy script may skip the smoke tests",
    }
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    written = write(run_cli, "remember", "Linters run before every commit", environ=CLAUDE)
    result = run_cli("--json", "import", str(path), environ=CLAUDE)
    assert result.code == 0, result.err
    imported = {
        m["id"] for m in run_cli("--json", "list").json()["items"] if m["origin"] == "import"
    }
    assert len(imported) == 1
    assert set(ids(inbox(run_cli, "--peek"))) == {written["id"], *imported}
    status = run_cli("--json", "status").json()
    assert status["inbox"] == 2, status["inbox"]
    # A person's own import into a shared scope is not agent work.
    shared = tmp_path / "shared.jsonl"
    shared.write_text(
        json.dumps({"project": project_id, "summary": "Releases are cut on Tuesdays"}) + "\n",
        encoding="utf-8",
    )
    assert run_cli("import", str(shared)).code == 0
    assert set(ids(inbox(run_cli))) == {written["id"], *imported}
