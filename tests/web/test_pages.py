"""The viewer's pages show what the library reads, and its forms change what the CLI would."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import CliRunner, make_memory
from web_support import Client, insert, serving

from tree_ring.model import project

AGENT = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s1"}


@pytest.fixture
def client(project_root: Path) -> Iterator[Client]:
    with serving(project_root) as c:
        c.login()
        yield c


def _id(out: str) -> str:
    return json.loads(out)["id"]


def test_every_page_loads(client: Client, run_cli: CliRunner) -> None:
    memory_id = _id(run_cli("--json", "remember", "Deploys freeze on Fridays").out)
    for path in ("/", "/rings", "/memories", f"/memory?id={memory_id}", "/review", "/tree"):
        reply = client.get(path)
        assert reply.status == 200, path
    assert "Deploys freeze on Fridays" in client.get("/memories").body
    status = client.get("/status?doctor=1").body
    assert 'id="doctor"' in status and "The store is healthy." in status


def test_an_unknown_memory_is_not_found(client: Client) -> None:
    reply = client.get("/memory?id=mem_20260101_000000_000000000000")
    assert reply.status == 404 and "no memory" in reply.body.lower()
    assert client.get("/nowhere").status == 404


def test_bad_filters_are_one_line_errors(client: Client) -> None:
    reply = client.get("/memories?ring=bark")
    assert reply.status == 400 and "ring &#x27;bark&#x27; is not one of" in reply.body
    assert client.get("/memories?as_of=yesterday").status == 400


def test_search_uses_recall(client: Client, run_cli: CliRunner) -> None:
    run_cli("remember", "Deploys freeze on Fridays")
    run_cli("remember", "The cache is warmed at noon")
    page = client.get("/memories?q=deploy").body
    assert "Deploys freeze on Fridays" in page and "warmed at noon" not in page
    assert "Best 1 matches by recall" in page


def test_filters_run_before_the_page(client: Client, project_root: Path) -> None:
    pid = project.load_project_id(project_root)
    # 300 newer rows that the filter drops, ahead of the one it keeps.
    hidden = [
        make_memory(
            pid, f"cambium note {i}", created_at=f"2026-06-01T00:{i // 60:02d}:{i % 60:02d}.000000Z"
        )
        for i in range(300)
    ]
    kept = make_memory(pid, "The only scar", ring="scar", created_at="2026-01-01T00:00:00.000000Z")
    insert(project_root, [*hidden, kept])
    page = client.get("/memories?ring=scar").body
    assert set(re.findall(r"mem_\w+", page)) == {kept.id}
    assert "showing 1–1 of 1" in page
    everything = client.get("/memories").body
    assert "of 301" in everything and 'id="next"' in everything
    second = client.get("/memories?offset=300").body
    assert kept.id in second


def test_approving_a_pending_memory_takes_it_off_the_queue(
    client: Client, run_cli: CliRunner
) -> None:
    out = run_cli(
        "--json",
        "remember",
        "Run migrations through the schema tool",
        "--ring",
        "heartwood",
        environ=AGENT,
    )
    memory_id = _id(out.out)
    before = client.get("/review").body
    assert f'id="w-{memory_id}"' in before and "1 waiting" in before
    reply = client.post(
        "/act",
        {"action": "approve", "id": memory_id, "back": "/review", "reason": "matches the docs"},
    )
    assert reply.status == 303 and reply.headers["location"] == "/review"
    page = client.get("/review").body
    assert f'id="w-{memory_id}"' not in page and "0 waiting" in page
    assert f"approved {memory_id} (now accepted) by person" in page
    shown = json.loads(run_cli("--json", "show", memory_id).out)["memory"]
    assert shown["trust"] == "accepted" and shown["review"]["reviewed_by"] == "person"
    log = json.loads(run_cli("--json", "audit", "--target", memory_id).out)["items"]
    assert [e["action"] for e in log][-1] == "review" and log[-1]["actor"] == "person"


def test_reject_and_dispute_need_a_reason(client: Client, run_cli: CliRunner) -> None:
    memory_id = _id(
        run_cli("--json", "remember", "Pending heartwood", "--ring", "heartwood", environ=AGENT).out
    )
    client.post("/act", {"action": "reject", "id": memory_id, "back": "/review"})
    assert "reject needs a reason" in client.get("/review").body
    assert json.loads(run_cli("--json", "show", memory_id).out)["memory"]["trust"] == "pending"
    client.post("/act", {"action": "reject", "id": memory_id, "reason": "wrong", "back": "/review"})
    assert json.loads(run_cli("--json", "show", memory_id).out)["memory"]["trust"] == "rejected"
    # Rejected content is tombstoned: its page keeps the id, never the text.
    page = client.get(f"/memory?id={memory_id}").body
    assert "Pending heartwood" not in page and "tombstoned" in page


def test_forgetting_with_a_reason_removes_it_from_recall(
    client: Client, run_cli: CliRunner
) -> None:
    memory_id = _id(run_cli("--json", "remember", "The staging password rotates weekly").out)
    assert memory_id in run_cli("recall", "staging rotates").out
    reply = client.post(
        "/act",
        {
            "action": "forget",
            "id": memory_id,
            "mode": "redact",
            "reason": "obsolete",
            "back": "/memories",
        },
    )
    assert reply.status == 303
    assert f"redacted {memory_id}" in client.get("/memories").body
    assert memory_id not in run_cli("recall", "staging rotates").out
    for path in ("/", "/memories", f"/memory?id={memory_id}", "/review", "/memories?q=staging"):
        assert "staging password" not in client.get(path).body, path
    entries = json.loads(run_cli("--json", "audit", "--target", memory_id).out)["items"]
    assert entries[-1]["action"] == "forget" and entries[-1]["actor"] == "person"


def test_an_agent_started_viewer_decides_nothing(project_root: Path, run_cli: CliRunner) -> None:
    memory_id = _id(
        run_cli("--json", "remember", "Agent heartwood", "--ring", "heartwood", environ=AGENT).out
    )
    with serving(project_root, AGENT) as agent:
        agent.login()
        agent.post("/act", {"action": "approve", "id": memory_id, "back": "/review"})
        assert "a person&#x27;s decision" in agent.get("/review").body
    assert json.loads(run_cli("--json", "show", memory_id).out)["memory"]["trust"] == "pending"


def test_sensitive_rows_are_hidden_until_toggled(client: Client, project_root: Path) -> None:
    pid = project.load_project_id(project_root)
    private = make_memory(pid, "The lead's diagnosis was flu", sensitivity="health")
    insert(project_root, [private])
    for path in ("/", "/memories", f"/memory?id={private.id}"):
        assert "diagnosis" not in client.get(path).body, path
    assert "1 sensitive hidden" in client.get("/").body
    client.post("/sensitive", {"back": "/memories"})
    assert "diagnosis" in client.get("/memories").body
    assert "diagnosis" in client.get(f"/memory?id={private.id}").body
    client.post("/sensitive", {"back": "/memories"})
    assert "diagnosis" not in client.get("/memories").body


HOSTILE = (
    "<script>alert('x')</script> \"quoted\" & 'single' \u202eevil\u0000 "
    "<img src=x onerror=alert(1)>"
)


def test_hostile_text_is_escaped_on_every_page(client: Client, project_root: Path) -> None:
    pid = project.load_project_id(project_root)
    memory = make_memory(pid, HOSTILE, details=HOSTILE, tags=(HOSTILE,), source_ref=HOSTILE)
    insert(project_root, [memory])
    for path in ("/", "/memories", f"/memory?id={memory.id}", "/memories?q=script%20alert"):
        body = client.get(path).body
        assert "<script" not in body and "<img" not in body, path
        assert "\u202e" not in body and "\u0000" not in body, path
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in client.get("/memories").body
    assert "U+202Eevil" in client.get(f"/memory?id={memory.id}").body


# An emoji family and a Persian word hold joiners between visible characters,
# which the write path accepts: shown as written. A joiner at the end of a
# field, which only a hand edit could leave, is spelled out.
JOINED = ("\U0001f468\u200d\U0001f469\u200d\U0001f467", "\u0645\u06cc\u200c\u0631\u0648\u0645")


def test_joiners_between_visible_characters_are_shown_as_written(
    client: Client, project_root: Path
) -> None:
    pid = project.load_project_id(project_root)
    memory = make_memory(pid, f"Family {JOINED[0]} and {JOINED[1]}", details="tail\u200d")
    insert(project_root, [memory])
    for path in ("/memories", f"/memory?id={memory.id}"):
        body = client.get(path).body
        assert JOINED[0] in body and JOINED[1] in body, path
    assert "tailU+200D" in client.get(f"/memory?id={memory.id}").body
    # What a write refuses is spelled out wherever the page shows it: a search's
    # own words echoed back too.
    body = client.get("/memories?q=%EF%B8%8Fa%E2%80%A8b").body
    assert "U+FE0Fa" in body and "U+2028" in body
    assert "\ufe0fa" not in body and "\u2028" not in body


def test_the_inbox_promotes_keeps_and_forgets(client: Client, run_cli: CliRunner) -> None:
    captured = [
        _id(run_cli("--json", "remember", text, "--scope", "agent", environ=AGENT).out)
        for text in ("Tests need the fake clock", "The linter wants tabs", "Scratch note")
    ]
    page = client.get("/inbox").body
    assert "3 unseen memories" in page
    assert {m for m in captured if f'id="i-{m}"' in page} == set(captured)
    # Looking is not deciding: a second look shows the same three.
    assert "3 unseen memories" in client.get("/inbox").body
    promoted, kept, forgotten = captured
    client.post(
        "/act", {"action": "promote", "id": promoted, "reason": "true everywhere", "back": "/inbox"}
    )
    assert (
        f"promoted {promoted} from agent to the shared project scope" in client.get("/inbox").body
    )
    assert json.loads(run_cli("--json", "show", promoted).out)["memory"]["scope"] == "project"
    client.post("/act", {"action": "keep", "id": kept, "back": "/inbox"})
    client.post(
        "/act",
        {
            "action": "forget",
            "id": forgotten,
            "mode": "delete",
            "reason": "noise",
            "back": "/inbox",
        },
    )
    page = client.get("/inbox").body
    assert "0 unseen memories" in page and "Nothing new from agents" in page
    assert json.loads(run_cli("--json", "show", kept).out)["memory"]["scope"] == "agent"
    assert run_cli("show", forgotten).code != 0


def test_promote_needs_a_reason_and_a_person(project_root: Path, run_cli: CliRunner) -> None:
    memory_id = _id(
        run_cli("--json", "remember", "Agent note", "--scope", "agent", environ=AGENT).out
    )
    with serving(project_root) as person:
        person.login()
        person.post("/act", {"action": "promote", "id": memory_id, "back": "/inbox"})
        assert "promote needs a reason" in person.get("/inbox").body
    with serving(project_root, AGENT) as agent:
        agent.login()
        assert agent.get("/inbox").status == 400
        agent.post("/act", {"action": "promote", "id": memory_id, "reason": "mine", "back": "/"})
        assert "error:" in agent.get("/").body
    assert json.loads(run_cli("--json", "show", memory_id).out)["memory"]["scope"] == "agent"


def test_the_tree_page_shows_levels_nodes_and_a_memorys_path_to_the_root(
    client: Client, run_cli: CliRunner
) -> None:
    from tree_support import sentence

    run_cli("tree", "config", "--set", "input_token_budget=12", "--set", "summary_fanout=2")
    ids = [_id(run_cli("--json", "remember", sentence(i)).out) for i in range(12)]
    page = client.get("/tree").body
    assert 'id="node"' in page and "L1" in page and "sealed nodes" in page
    path = client.get(f"/tree?memory={ids[0]}").body
    steps = re.findall(r'href="/tree\?node=(node_[^"]+)"', path.split('id="path"')[1])
    assert len(steps) >= 2  # L1 up to at least L2
    root = json.loads(run_cli("--json", "tree", "show").out)["node"]["id"]
    assert root in steps
    node = client.get(f"/tree?node={steps[0]}").body
    assert ids[0] in node  # the L1 node lists the memory among its children
    assert client.get("/tree?node=node_9_nothing").status == 404


def test_as_of_and_valid_at_ask_the_library_about_other_times(
    client: Client, run_cli: CliRunner
) -> None:
    old = _id(run_cli("--json", "remember", "The default branch is master").out)
    new = _id(run_cli("--json", "remember", "The default branch is main", "--supersedes", old).out)
    now = client.get("/memories").body
    assert new in now and old not in now
    created = json.loads(run_cli("--json", "show", new).out)["memory"]["created_at"]
    before = client.get(f"/memories?as_of={old_time(run_cli, old)}").body
    assert old in before and new not in before
    assert "No memories match" in client.get("/memories?as_of=2000-01-01").body
    assert new in client.get(f"/memories?valid_at={created}").body


def old_time(run_cli: CliRunner, memory_id: str) -> str:
    return json.loads(run_cli("--json", "show", memory_id).out)["memory"]["created_at"]


def test_cached_counts_follow_every_change(client: Client, run_cli: CliRunner) -> None:
    run_cli("remember", "First note")
    assert "1 memory (1 live, 0 waiting for review)." in client.get("/").body
    second = _id(run_cli("--json", "remember", "Second note").out)
    assert "2 memories (2 live, 0 waiting for review)." in client.get("/").body
    run_cli("forget", second, "--mode", "delete", "--reason", "duplicate")
    assert "1 memory (1 live, 0 waiting for review)." in client.get("/").body
    status = client.get("/status").body
    assert '<td>memories (every state)</td><td><span id="total">1</span></td>' in status
    assert '<span id="live">1</span>' in status


def test_a_memorys_page_shows_who_refuted_it_and_its_usage(
    client: Client, run_cli: CliRunner, project_root: Path
) -> None:
    from tree_ring.store import usage_log

    memory_id = _id(run_cli("--json", "remember", "The API listens on port 8080").out)
    usage_log.append(project_root, "brief", harness="codex", session="s1", ids=[memory_id], size=9)
    assert run_cli("refute", memory_id, "--reason", "binds <9090>", environ=AGENT).code == 0
    page = client.get(f"/memory?id={memory_id}").body
    assert "disputed by claude-code: binds &lt;9090&gt;" in page
    assert "usage: injected 1 time (last " in page


def test_the_inbox_says_where_a_row_came_from_as_the_cli_does(
    client: Client, project_root: Path
) -> None:
    # An MCP client that names no harness writes as `agent`.
    pid = project.load_project_id(project_root)
    memory = make_memory(
        pid, "Cache keys carry the schema version", origin="agent", agent_profile="agent",
        scope="agent", session_id="s-mcp", workflow_id="s-mcp",
    )  # fmt: skip
    insert(project_root, [memory])
    page = client.get("/inbox").body
    assert "an agent over MCP (no harness named)" in page and "in its own partition" in page
    assert "agent · agent" not in page
