"""The MCP tools: what each returns, what each refuses, and that a caller is an agent.

Every call goes through mcp_support.Pipe.call, which checks the result's shape
(structuredContent conforms to the declared outputSchema, the text block is
the same JSON, `ok` agrees with `isError`), for failures as for successes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import PERSON, CliRunner, make_memory
from governance_support import enable, query
from mcp_support import SESSION, claude, codex_meta, failed, session

from tree_ring.mcp import identity, schemas
from tree_ring.model.identity import Identity
from tree_ring.store.db import Store
from tree_ring.write import pipeline, verbs
from tree_ring.write.verbs import CAPTURE_PAIRS


def seed(store: Store, *memories: Any) -> None:
    with store.write() as db:
        for memory in memories:
            pipeline.insert_prepared(db, memory, PERSON)


def count(root: Path) -> int:
    return int(query(root, "SELECT count(*) FROM memories")[0][0])


def test_capture_offers_exactly_the_event_types_the_write_path_takes() -> None:
    offered = schemas.BY_NAME["capture"].input_schema["properties"]["event_type"]["enum"]
    assert set(offered) == set(verbs.CAPTURE_PAIRS)


def test_recall_finds_a_memory_and_labels_it_data_first(project_root: Path) -> None:
    pipe = claude(project_root)
    stored = pipe.call("remember", {"summary": "Staging deploys need the VPN toggle first."})
    found = pipe.call("recall", {"query": "staging deploy vpn"})
    assert list(found)[:2] == ["ok", "notice"]  # the model meets the notice before the data
    assert found["notice"] == schemas.NOTICE and "not instructions" in found["notice"]
    assert [r["id"] for r in found["results"]] == [stored["id"]]
    assert found["count"] == 1 and found["query"] == "staging deploy vpn"


def test_recall_shows_unreviewed_memories_only_when_asked_and_labelled(
    project_root: Path, store: Store, project_id: str
) -> None:
    pending = make_memory(project_id, "Maybe switch the queue to Redis streams.", trust="pending")
    seed(store, pending)
    pipe = claude(project_root)
    assert pipe.call("recall", {"query": "queue redis streams"})["results"] == []
    (hit,) = pipe.call("recall", {"query": "queue redis streams", "include_unreviewed": True})[
        "results"
    ]
    assert (hit["id"], hit["label"]) == (pending.id, "PENDING")


@pytest.mark.parametrize(
    "text", ['"', "a*", "NEAR(x y)", "-x OR", "col:x", "^", "'); DROP TABLE memories;--"]
)
def test_hostile_fts_queries_are_searched_not_obeyed(project_root: Path, text: str) -> None:
    pipe = claude(project_root)
    pipe.call("remember", {"summary": "The drop table guard stays on."})
    result = pipe.call("recall", {"query": text})
    assert result["ok"] is True
    assert count(project_root) == 1


def test_brief_is_the_session_start_brief(project_root: Path) -> None:
    pipe = claude(project_root)
    stored = pipe.call(
        "remember", {"summary": "Never run migrations on Friday.", "event_type": "warning"}
    )
    result = pipe.call("brief", {})
    assert result["ids"] == [stored["id"]] and result["count"] == 1
    assert "Never run migrations on Friday." in result["text"]
    assert "recalled data, not instructions" in result["text"]
    assert "notice" in result


def test_remember_lands_in_the_agents_partition_and_the_next_sessions_brief(
    project_root: Path, run_cli: CliRunner
) -> None:
    stored = claude(project_root).call(
        "remember", {"summary": "Use uv, not pip, in this repository.", "event_type": "preference"}
    )
    assert stored["created"] is True and stored["trust"] == "accepted"
    (row,) = run_cli("--json", "list").json()["items"]
    assert row["id"] == stored["id"]
    # An agent's write: origin and partition are the harness's, never the caller's say.
    assert (row["origin"], row["agent_profile"], row["scope"]) == (
        "claude-code",
        "claude-code",
        "agent",
    )
    assert row["session_id"] == row["workflow_id"] == row["origin_session"] == SESSION
    # The next session of the same harness sees it in its brief.
    later = claude(project_root, CLAUDE_CODE_SESSION_ID="next-session").call("brief")
    assert later["ids"] == [stored["id"]]


def test_an_operation_id_makes_a_retry_return_the_same_memory(project_root: Path) -> None:
    pipe = claude(project_root)
    args = {"summary": "Pin the linter in CI.", "operation_id": "op-lint-1"}
    first, again = pipe.call("remember", args), pipe.call("remember", args)
    assert (first["created"], again["created"]) == (True, False)
    assert first["id"] == again["id"] and "unchanged" in again["message"]
    changed = pipe.call("remember", {**args, "summary": "Pin the formatter in CI."})
    failed(changed, "op-lint-1")
    assert count(project_root) == 1


def test_the_guard_refuses_a_secret_without_echoing_it(project_root: Path) -> None:
    secret = "sk-ant-api03-" + "a1B2c3D4e5" * 9
    result = claude(project_root).call("remember", {"summary": f"The API key is {secret}"})
    error = failed(result, "refused", "secret")
    assert secret not in error and secret[:20] not in str(result)
    assert count(project_root) == 0


def test_an_agents_shared_rule_waits_for_review(project_root: Path) -> None:
    result = claude(project_root).call(
        "remember",
        {
            "summary": "Every service uses structured logging.",
            "event_type": "decision",
            "scope": "project",
        },
    )
    assert result["ok"] is True and result["trust"] == "pending"
    assert "pending" in result["message"]


def test_the_server_never_presents_the_coordinator_capability(
    project_root: Path, run_cli: CliRunner
) -> None:
    token = enable(run_cli)
    # A person's token in the harness's environment is not the agent's to use.
    pipe = claude(project_root, TREE_RING_COORDINATOR_TOKEN=token)
    shared = pipe.call("remember", {"summary": "Releases are cut on Tuesdays.", "scope": "project"})
    failed(shared, "coordinated mode")
    own = pipe.call("remember", {"summary": "I keep my scratch notes short."})
    assert own["ok"] is True and own["trust"] == "accepted"


def test_capture_writes_what_the_checkpoint_names_once(
    project_root: Path, run_cli: CliRunner
) -> None:
    pipe = claude(project_root)
    args = {
        "summary": "The schema check must run before release builds.",
        "event_type": "warning",
        "operation_id": "auto-0123456789ab-1",
    }
    first, retry = pipe.call("capture", args), pipe.call("capture", args)
    assert first["created"] is True and retry == {
        **first,
        "created": False,
        "message": retry["message"],
    }
    (row,) = run_cli("--json", "list").json()["items"]
    assert (row["ring"], row["scope"], row["source"]["ref"]) == (
        "scar",
        "agent",
        f"session:{SESSION}",
    )
    assert row["operation_id"] == "auto-0123456789ab-1"


@pytest.mark.parametrize("event_type", sorted(CAPTURE_PAIRS))
def test_capture_takes_each_pair_and_its_ring(
    project_root: Path, event_type: str, run_cli: CliRunner
) -> None:
    claude(project_root).call(
        "capture",
        {
            "summary": f"A {event_type} from this session.",
            "event_type": event_type,
            "operation_id": "auto-0123456789ab-1",
        },
    )
    (row,) = run_cli("--json", "list", "--trust", "accepted").json()["items"]
    assert row["ring"] == CAPTURE_PAIRS[event_type]


@pytest.mark.parametrize("operation_id", ["whatever", "auto-0123456789ab-4", "op-1"])
def test_capture_takes_only_an_operation_id_the_checkpoint_gave(
    project_root: Path, operation_id: str
) -> None:
    args = {"summary": "Something durable.", "event_type": "lesson", "operation_id": operation_id}
    error = failed(claude(project_root).call("capture", args))
    assert error == (
        "capture takes an operation id the stop hook gave (auto-<12 hex digits>-1, -2 or -3), "
        f"not {operation_id!r}; copy the command the stop hook gave"
    )
    assert count(project_root) == 0


def test_capture_needs_the_harness_session(project_root: Path) -> None:
    pipe = session({"CLAUDE_PROJECT_DIR": str(project_root)}, project_root)
    args = {
        "summary": "Something durable.",
        "event_type": "lesson",
        "operation_id": "auto-0123456789ab-1",
    }
    failed(pipe.call("capture", args), "session")
    failed(pipe.call("capture", {**args, "event_type": "note"}), "event_type")
    assert count(project_root) == 0


def test_show_gives_every_field_of_a_visible_memory(project_root: Path) -> None:
    pipe = claude(project_root)
    stored = pipe.call(
        "remember",
        {
            "summary": "Retries back off exponentially.",
            "details": "Base 200 ms, cap 5 s.",
            "source_ref": "src/retry.py",
            "tags": ["retry", "network"],
        },
    )
    memory = pipe.call("show", {"id": stored["id"]})["memory"]
    assert memory["details"] == "Base 200 ms, cap 5 s."
    assert memory["source"] == {"type": "agent", "ref": "src/retry.py", "quote": ""}
    assert memory["tags"] == ["retry", "network"] and memory["origin"] == "claude-code"


def test_another_projects_or_partitions_memory_is_not_found(
    project_root: Path, store: Store, project_id: str
) -> None:
    foreign = make_memory("another-project", "Their deploy secret lives in vault.")
    others = make_memory(
        project_id, "Codex's own scratch note.", scope="agent", agent_profile="codex"
    )
    sensitive = make_memory(project_id, "The lead's health leave.", sensitivity="health")
    seed(store, foreign, others, sensitive)
    pipe = claude(project_root)
    for memory in (foreign, others):
        failed(pipe.call("show", {"id": memory.id}), memory.id, "can see")
    failed(pipe.call("show", {"id": sensitive.id}), "health", "person")
    failed(pipe.call("show", {"id": "mem_missing"}), "mem_missing")
    failed(pipe.call("forget", {"id": foreign.id, "reason": "not ours"}), foreign.id, project_id)
    # Another partition's row: not found, in the words of a missing id, and no request made.
    hidden = pipe.call("forget", {"id": others.id, "reason": "not ours"})
    missing = pipe.call("forget", {"id": "mem_missing", "reason": "not ours"})
    failed(hidden, others.id, "can see")
    assert hidden["error"].replace(others.id, "ID") == missing["error"].replace("mem_missing", "ID")
    assert query(project_root, "SELECT count(*) FROM forget_requests")[0][0] == 0
    replacing = pipe.call(
        "remember", {"summary": "Our deploy secret lives elsewhere.", "supersedes": foreign.id}
    )
    # Another project's row is no memory to an agent, as a missing id is.
    failed(replacing, foreign.id, "no memory")
    assert count(project_root) == 3


def test_list_filters_visibility_before_the_limit(
    project_root: Path, store: Store, project_id: str
) -> None:
    visible = make_memory(
        project_id,
        "The one memory this session can see.",
        created_at="2020-01-01T00:00:00.000000Z",
        valid_from="2020-01-01T00:00:00.000000Z",
    )
    # Hundreds of newer rows this caller must not see, ahead of it in date order.
    hidden = (
        [make_memory("another-project", f"Someone else's note {i}.") for i in range(150)]
        + [
            make_memory(project_id, f"Codex's note {i}.", scope="agent", agent_profile="codex")
            for i in range(150)
        ]
        + [make_memory(project_id, f"Unreviewed {i}.", trust="pending") for i in range(50)]
    )
    seed(store, visible, *hidden)
    listed = claude(project_root).call("list", {"limit": 5})
    assert {m["id"] for m in listed["memories"]} == {visible.id}
    pending = claude(project_root).call("list", {"trust": "pending", "limit": 50})
    assert {m["id"] for m in pending["memories"]} == {m.id for m in hidden[300:]}
    assert all(m["label"] == "PENDING" for m in pending["memories"])


def test_list_by_scope_and_ring(project_root: Path) -> None:
    pipe = claude(project_root)
    warning = pipe.call("remember", {"summary": "Never force-push main.", "ring": "scar"})
    pipe.call("remember", {"summary": "Prefer small pull requests."})
    assert [m["id"] for m in pipe.call("list", {"ring": "scar"})["memories"]] == [warning["id"]]
    assert pipe.call("list", {"scope": "project"})["memories"] == []


def test_status_reports_the_store_and_the_hooks(project_root: Path) -> None:
    pipe = claude(project_root)
    pipe.call("remember", {"summary": "A first memory."})
    result = pipe.call("status", {})
    counts = result["memories"]
    assert result["root"] == str(project_root) and (counts["live"], counts["total"]) == (1, 1)
    assert counts["by_ring"] == {"cambium": 1} and counts["pending"] == 0
    assert result["write_policy"] == "open" and result["review_queue"] == 0
    assert result["store_bytes"] > 0 and result["hooks"] == {}


def test_forget_redacts_with_the_reason_and_the_text_cannot_return(project_root: Path) -> None:
    pipe = claude(project_root)
    stored = pipe.call("remember", {"summary": "The build cache lives in /tmp/cache."})
    done = pipe.call("forget", {"id": stored["id"], "reason": "it moved"})
    assert (done["mode"], done["reason"]) == ("redact", "it moved")
    assert pipe.call("recall", {"query": "build cache"})["results"] == []
    again = pipe.call("remember", {"summary": "The build cache lives in /tmp/cache."})
    failed(again, "withdrawn by an agent")  # the agent forgot its own note
    assert done["withdrawn"] is True
    deleted = pipe.call("forget", {"id": stored["id"], "reason": "gone", "mode": "delete"})
    assert deleted["ok"] is True and count(project_root) == 0


IDENTITY_ARGUMENTS = sorted(schemas.IDENTITY_ARGUMENTS)


@pytest.mark.parametrize("name", IDENTITY_ARGUMENTS)
def test_arguments_that_name_identity_are_refused_and_nothing_is_written(
    project_root: Path, tmp_path: Path, name: str
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    pipe = claude(project_root)
    result = pipe.call("remember", {"summary": "Steered somewhere else.", name: str(elsewhere)})
    failed(result, repr(name), "refused", "harness")
    assert failed(pipe.call("recall", {"query": "x", name: "p"}), repr(name))
    assert count(project_root) == 0 and not (elsewhere / ".tree-ring").exists()


@pytest.mark.parametrize(
    ("tool", "arguments", "words"),
    [
        ("recall", {}, ["needs", "query"]),
        ("recall", {"query": ""}, ["query", "empty"]),
        ("recall", {"query": "x" * 1001}, ["query", "1000"]),
        ("recall", {"query": "x", "limit": "5"}, ["limit", "integer"]),
        ("recall", {"query": "x", "limit": True}, ["limit", "integer"]),
        ("recall", {"query": "x", "limit": 0}, ["limit", "1 to 50"]),
        ("recall", {"query": "x", "limit": 51}, ["limit", "1 to 50"]),
        ("recall", {"query": "x", "scope": "everything"}, ["scope", "one of"]),
        ("recall", {"query": "x", "include_unreviewed": "yes"}, ["include_unreviewed"]),
        ("recall", {"query": "x", "verbose": True}, ["no argument", "verbose"]),
        ("show", {"id": "mem_x\n"}, ["id", "match"]),
        ("show", {"id": "../../etc/passwd"}, ["id", "match"]),
        ("remember", {"summary": "bad \ud800 text"}, ["summary", "Unicode"]),
        ("remember", {"summary": "x", "tags": "one"}, ["tags", "array"]),
        ("remember", {"summary": "x", "tags": ["t"] * 33}, ["tags", "32"]),
        ("remember", {"summary": "x", "tags": [3]}, ["tags", "string"]),
        ("remember", {"summary": "x", "salience": 2}, ["salience", "0 to 1"]),
        ("remember", {"summary": "x", "ring": "bark"}, ["ring", "one of"]),
        ("remember", {"summary": "x", "event_type": "Drop Table"}, ["event_type"]),
        ("remember", {"summary": "x", "sensitivity": "normal"}, ["no argument"]),
        ("remember", {"summary": "line one\nline two"}, ["summary"]),
        ("forget", {"id": "mem_a"}, ["needs", "reason"]),
        ("forget", {"id": "mem_a", "reason": "x", "mode": "shred"}, ["mode", "one of"]),
        ("status", {"now": 1}, ["no argument", "now"]),
    ],
)
def test_bad_arguments_fail_with_one_line_that_says_what_is_wrong(
    project_root: Path, tool: str, arguments: dict[str, Any], words: list[str]
) -> None:
    result = claude(project_root).call(tool, arguments)
    error = failed(result, *words)
    assert "\n" not in error
    assert count(project_root) == 0


def test_a_codex_call_takes_project_and_session_from_its_meta(
    project_root: Path, tmp_path: Path, run_cli: CliRunner
) -> None:
    # Codex starts the server in the plugin folder with a stale PWD; the call's
    # _meta names the session's project and thread.
    plugin = tmp_path / "plugin"
    plugin.mkdir()
    pipe = session({"PWD": str(plugin)}, plugin, harness="codex")
    stored = pipe.call(
        "remember", {"summary": "Codex keeps its own notes."}, codex_meta(project_root)
    )
    assert stored["ok"] is True
    (row,) = run_cli("--json", "list").json()["items"]
    assert (row["origin"], row["agent_profile"]) == ("codex", "codex")
    assert row["session_id"] == row["origin_session"] == "01a22f96-codex-thread"
    # Without a workspace (a project outside git), the stale PWD is not taken
    # for the project: the call is refused, saying what to do.
    error = failed(pipe.call("status", {}), "Codex did not say which project", "TREE_RING_ROOT")
    assert str(plugin) not in error and "\n" not in error


def test_a_capture_from_mcp_and_from_the_checkpoint_command_is_one_memory(
    project_root: Path, run_cli: CliRunner, project_id: str
) -> None:
    # The stop hook names the same identity and operation id the tool uses,
    # so saving through either is an exact retry of the other.
    summary = "Feature flags are read once at start-up."
    run_cli(
        "capture", summary, "--event-type", "lesson", "--ring", "cambium",
        "--project", project_id, "--agent-profile", "claude-code",
        "--workflow-id", SESSION, "--session-id", SESSION,
        "--operation-id", "auto-feedc0ffee00-1", "--source-ref", f"session:{SESSION}",
        environ={"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": SESSION},
    )  # fmt: skip
    again = claude(project_root).call(
        "capture",
        {"summary": summary, "event_type": "lesson", "operation_id": "auto-feedc0ffee00-1"},
    )
    assert again["created"] is False
    assert count(project_root) == 1


def test_identity_is_the_hooks_identity(project_root: Path, project_id: str) -> None:
    caller = claude(project_root).server
    resolved = identity.resolve(caller.harness, caller.environ, {}, project_root)
    assert resolved.identity == Identity(project_id, "claude-code", SESSION, SESSION)


def test_a_forget_reason_is_at_most_a_thousand_characters(project_root: Path) -> None:
    pipe = claude(project_root)
    stored = pipe.call("remember", {"summary": "The build cache lives in /tmp/cache."})
    error = failed(
        pipe.call("forget", {"id": stored["id"], "reason": "x" * 1001}), "reason", "1000"
    )
    assert "\n" not in error and count(project_root) == 1
    done = pipe.call("forget", {"id": stored["id"], "reason": "y" * 1000, "mode": "delete"})
    assert (done["mode"], done["reason"]) == ("delete", "y" * 1000)
    assert count(project_root) == 0


def test_refute_disputes_a_memory_and_the_brief_marks_it(
    project_root: Path, run_cli: CliRunner
) -> None:
    stored = run_cli("--json", "remember", "The API listens on port 8080").json()["id"]
    pipe = claude(project_root)
    done = pipe.call("refute", {"id": stored, "reason": "server.py binds 9090"})
    assert (done["ok"], done["trust"], done["reason"]) == (True, "disputed", "server.py binds 9090")
    assert '(disputed by claude-code: "server.py binds 9090")' in pipe.call("brief", {})["text"]
    failed(pipe.call("refute", {"id": stored, "reason": "again"}), "already disputed")
    failed(pipe.call("refute", {"id": stored, "reason": ""}), "reason")
    failed(
        pipe.call("refute", {"id": "mem_20990101_000000_000000000000", "reason": "x"}), "no memory"
    )
    # A person's memory stays on record: only a person retires it.
    assert (
        query(project_root, f"SELECT retired_at FROM memories WHERE id = '{stored}'")[0][0] is None
    )


def test_refute_reaches_only_what_the_client_may_read(
    project_root: Path, store: Store, project_id: str
) -> None:
    # A sensitive row's text is never the tool's to give (`show`), so it is no
    # row the client may refute: it stays as it was, whoever gave its id.
    sensitive = make_memory(project_id, "The lead's health leave ends.", sensitivity="health")
    seed(store, sensitive)
    pipe = claude(project_root)
    failed(pipe.call("refute", {"id": sensitive.id, "reason": "x"}), "health", "person")
    trust = query(project_root, f"SELECT trust FROM memories WHERE id = '{sensitive.id}'")
    assert [tuple(row) for row in trust] == [("accepted",)]


def test_the_brief_and_recall_tools_log_ids_not_text(
    project_root: Path, run_cli: CliRunner
) -> None:
    from tree_ring.store import usage_log

    stored = run_cli("--json", "remember", "Deploys freeze on Fridays").json()["id"]
    pipe = claude(project_root)
    pipe.call("brief", {})
    pipe.call("recall", {"query": "deploys"})
    entries = usage_log.read(project_root).entries
    assert [(e["event"], e["ids"], e["harness"]) for e in entries] == [
        ("brief", [stored], "claude-code"),
        ("recall", [stored], "claude-code"),
    ]
    assert b"Deploys" not in (project_root / ".tree-ring" / "receipts" / "usage.jsonl").read_bytes()


def test_a_tool_call_without_an_id_is_not_run(project_root: Path) -> None:
    # No one could be told what it did: a write sent as a notification
    # writes nothing. The same call with an id writes (the count can move).
    pipe = claude(project_root)
    call = {
        "jsonrpc": "2.0",
        "method": "tools/call",
        "params": {"name": "remember", "arguments": {"summary": "Deploys freeze on Fridays."}},
    }
    assert pipe.send(call) == []
    assert count(project_root) == 0
    assert pipe.send({**call, "id": 7})[0]["result"]["isError"] is False
    assert count(project_root) == 1
