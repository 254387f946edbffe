"""The coordinated write policy: the capability, the gate, and its audit trail."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections import Counter
from pathlib import Path

import pytest
from conftest import PERSON, CliRunner, make_memory, run_process
from governance_support import (
    CLAUDE,
    TOKEN_VAR,
    audit_rows,
    enable,
    policy_rows,
    query,
    remember,
    show,
    write,
)

from tree_ring.govern import coordinator
from tree_ring.model import project
from tree_ring.model.actor import Actor
from tree_ring.model.errors import Denied
from tree_ring.model.identity import Origin
from tree_ring.model.record import sha256
from tree_ring.store.db import Store
from tree_ring.write import pipeline


def store_bytes(root: Path) -> bytes:
    folder = project.store_path(root).parent
    return b"".join(p.read_bytes() for p in sorted(folder.glob(project.STORE + "*")))


# -- the capability -------------------------------------------------------------


def test_enable_prints_the_capability_once_and_stores_only_its_hash(
    run_cli: CliRunner, project_root: Path
) -> None:
    result = run_cli("policy", "enable", "--coordinator", "release-lead")
    assert result.code == 0, result.err
    token = result.out.strip().splitlines()[-1]
    assert token.startswith("trc_") and len(token) == 4 + 64
    assert "shown once" in result.out
    stored = json.loads(
        query(project_root, "SELECT value FROM settings WHERE key = ?", (coordinator.SETTING,))[0][
            0
        ]
    )
    assert stored["token_hash"] == "sha256:" + hashlib.sha256(token.encode()).hexdigest()
    assert stored["mode"] == "coordinated" and stored["coordinator"] == "release-lead"
    # Never again: not in status, not in the audit trails, not anywhere in the file.
    for argv in (("policy", "status"), ("--json", "policy", "status"), ("policy", "audit")):
        shown = run_cli(*argv, environ={TOKEN_VAR: token})
        assert shown.code == 0 and shown.out.strip(), shown.err
        assert token not in shown.out
    # The file holds the capability's hash, and only that.
    assert hashlib.sha256(token.encode()).hexdigest().encode() in store_bytes(project_root)
    assert token.encode() not in store_bytes(project_root)
    status = run_cli("--json", "policy", "status", environ={TOKEN_VAR: token}).json()
    assert (status["mode"], status["coordinator"], status["capability_present"]) == (
        "coordinated",
        "release-lead",
        True,
    )
    assert run_cli("--json", "status").json()["write_policy"] == "coordinated"


def test_the_capability_is_refused_as_a_secret_wherever_an_agent_would_write_it(
    run_cli: CliRunner, project_root: Path
) -> None:
    """Whoever holds the capability acts as the coordinator: in a memory, every
    worker's brief and the committed team ledger would hand it out."""
    token = run_cli("policy", "enable", "--coordinator", "lead").out.strip().splitlines()[-1]
    upper = "TRC_" + token[4:].upper()
    for text in (token, f"capability {token}", f"the lead uses {token} for approvals", upper):
        for environ in ({TOKEN_VAR: token}, CLAUDE | {TOKEN_VAR: token}):
            done = run_cli("remember", text, environ=environ)
            assert done.code == 2 and "rule tree-ring-capability" in done.err, done.err
            assert token not in done.err
    assert token.encode() not in store_bytes(project_root)
    ledger = project_root / ".tree-ring" / "ledger.jsonl"
    assert not ledger.exists() or token not in ledger.read_text(encoding="utf-8")
    # A person's note that names the prefix, with no capability in it, is stored.
    note = run_cli(
        "remember", "The coordinator's capability starts with trc_", environ={TOKEN_VAR: token}
    )
    assert note.code == 0, note.err


def test_there_is_no_flag_for_the_capability(run_cli: CliRunner) -> None:
    token = enable(run_cli)
    for argv in (
        ("remember", "x", "--scope", "project", "--coordinator-token", token),
        ("remember", "x", "--scope", "project", "--token", token),
        ("policy", "disable", "--token", token),
    ):
        assert run_cli(*argv).code == 2


def test_enable_is_a_persons_decision_and_happens_once(run_cli: CliRunner) -> None:
    refused = run_cli("policy", "enable", "--coordinator", "me", environ=CLAUDE)
    assert refused.code == 1 and "person's decision" in refused.err
    assert run_cli("--json", "policy", "status").json()["mode"] == "open"
    enable(run_cli)
    again = run_cli("policy", "enable", "--coordinator", "other")
    assert again.code == 1 and "already coordinated" in again.err
    assert run_cli("policy", "enable").code == 2


def test_rotate_replaces_the_capability(run_cli: CliRunner, project_root: Path) -> None:
    old = enable(run_cli)
    assert run_cli("policy", "rotate").code == 1  # needs the current capability
    rotated = write(run_cli, "policy", "rotate", "--coordinator", "next", environ={TOKEN_VAR: old})
    new = rotated["capability"]
    assert new != old and rotated["coordinator"] == "next"
    stale = run_cli("remember", "Shared fact", environ={TOKEN_VAR: old})
    assert stale.code == 1 and "does not match" in stale.err
    write(run_cli, "remember", "Shared fact", environ={TOKEN_VAR: new})
    assert hashlib.sha256(new.encode()).hexdigest().encode() in store_bytes(project_root)
    assert old.encode() not in store_bytes(project_root)
    assert new.encode() not in store_bytes(project_root)


def test_disable_needs_the_capability_and_returns_to_open(run_cli: CliRunner) -> None:
    token = enable(run_cli)
    refused = run_cli("policy", "disable")
    assert refused.code == 1 and "policy.disable needs the coordinator capability" in refused.err
    write(run_cli, "policy", "disable", environ={TOKEN_VAR: token})
    assert run_cli("--json", "policy", "status").json()["mode"] == "open"
    write(run_cli, "remember", "Anyone may write again")
    assert run_cli("policy", "disable").code == 2  # not coordinated


def test_a_person_who_lost_the_capability_recovers_with_a_reason_audited(
    run_cli: CliRunner, project_root: Path
) -> None:
    enable(run_cli)  # and the capability is lost
    refused = run_cli("policy", "disable")
    assert refused.code == 1
    assert "ordinary writers" not in refused.err
    assert 'policy disable --reason "..."' in refused.err and "person" in refused.err
    rotated = write(run_cli, "policy", "rotate", "--reason", "the lead's token was lost")
    assert rotated["capability"].startswith("trc_")
    write(run_cli, "policy", "disable", "--reason", "moving back to open mode")
    assert run_cli("--json", "policy", "status").json()["mode"] == "open"
    allowed = [
        (r["action"], r["reason"])
        for r in policy_rows(project_root)
        if r["decision"] == "allow" and r["action"] in ("policy.rotate", "policy.disable")
    ]
    assert allowed == [
        ("policy.rotate", "recovery by a person at the terminal: the lead's token was lost"),
        ("policy.disable", "recovery by a person at the terminal: moving back to open mode"),
    ]
    details = [json.loads(r["detail"]) for r in audit_rows(project_root, "policy")]
    assert [(d["change"], d.get("reason")) for d in details] == [
        ("enable", None),
        ("rotate", "the lead's token was lost"),
        ("disable", "moving back to open mode"),
    ]


def test_an_agent_cannot_recover_the_policy(run_cli: CliRunner) -> None:
    enable(run_cli)
    for verb in ("disable", "rotate"):
        refused = run_cli("policy", verb, "--reason", "lost it", environ=CLAUDE)
        assert refused.code == 1 and "a person at the terminal" in refused.err
    assert run_cli("--json", "policy", "status").json()["mode"] == "coordinated"


def test_disable_with_the_capability_keeps_its_reason(
    run_cli: CliRunner, project_root: Path
) -> None:
    token = enable(run_cli)
    write(run_cli, "policy", "disable", "--reason", "release done", environ={TOKEN_VAR: token})
    [entry] = [r for r in audit_rows(project_root, "policy") if "disable" in r["detail"]]
    assert json.loads(entry["detail"]) == {"change": "disable", "reason": "release done"}


def test_the_capability_is_compared_in_constant_time(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    minted = coordinator.enable(store, "lead", PERSON)
    calls: list[tuple[str, str]] = []
    real = coordinator.hmac.compare_digest

    def spy(a: str, b: str) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(coordinator.hmac, "compare_digest", spy)
    assert coordinator.holds(store.db, PERSON, {TOKEN_VAR: minted.token})
    assert not coordinator.holds(store.db, PERSON, {TOKEN_VAR: minted.token + "x"})
    assert len(calls) == 2 and all(minted.token not in pair for pair in calls)


# -- the gate ------------------------------------------------------------------------


def test_open_mode_allows_and_records_every_create(run_cli: CliRunner, project_root: Path) -> None:
    memory_id = remember(run_cli, "Use WAL")
    agent_id = remember(run_cli, "Agent note", environ=CLAUDE)
    entries = policy_rows(project_root)
    assert [(e["mode"], e["action"], e["decision"], e["actor"], e["origin"]) for e in entries] == [
        ("open", "create.project", "allow", "person", "person"),
        ("open", "create.agent", "allow", "claude-code", "claude-code"),
    ]
    assert [e["target_hash"] for e in entries] == [sha256(memory_id), sha256(agent_id)]
    assert entries[1]["session"] == "s1"


PROTECTED = [
    (("remember", "Project fact", "--scope", "project"), "create.project"),
    # (`--scope global` goes to the person's user store, under that store's policy.)
    (("remember", "Tool fact", "--scope", "tool"), "create.tool"),
    (("remember", "Flow state", "--scope", "workflow", "--workflow-id", "wf"), "create.workflow"),
    (("remember", "Attempt state", "--scope", "session", "--session-id", "a1"), "create.session"),
    (
        (
            "remember",
            "Own heartwood",
            "--scope",
            "agent",
            "--agent-profile",
            "w1",
            "--ring",
            "heartwood",
        ),
        "create.heartwood",
    ),
    (("remember", "No profile, so project scope"), "create.project"),
]


@pytest.mark.parametrize(("argv", "action"), PROTECTED)
def test_coordinated_mode_gates_every_shared_create(
    run_cli: CliRunner, project_root: Path, argv: tuple[str, ...], action: str
) -> None:
    token = enable(run_cli)
    before = query(project_root, "SELECT count(*) FROM audit_log")[0][0]
    refused = run_cli(*argv, environ={"TREE_RING_AGENT_PROFILE": "w1"})
    assert refused.code == 1
    assert (
        refused.err.startswith("error: denied: coordinated mode")
        and "\n" not in refused.err.strip()
    )
    # Nothing written but the record of the refusal.
    assert query(project_root, "SELECT count(*) FROM memories")[0][0] == 0
    assert query(project_root, "SELECT count(*) FROM audit_log")[0][0] == before
    last = policy_rows(project_root)[-1]
    assert (last["action"], last["decision"], last["capability"], last["actor"]) == (
        action,
        "deny",
        "absent",
        "w1",
    )
    done = write(run_cli, *argv, environ={"TREE_RING_AGENT_PROFILE": "w1", TOKEN_VAR: token})
    assert show(run_cli, done["id"])["trust"] == "accepted"


def test_an_ordinary_writer_may_add_to_its_own_partition(run_cli: CliRunner) -> None:
    enable(run_cli)
    done = write(run_cli, "remember", "Worker result", "--scope", "agent", "--agent-profile", "w1")
    assert done["trust"] == "accepted"
    agent = write(run_cli, "remember", "Harness worker note", environ=CLAUDE)
    assert show(run_cli, agent["id"])["scope"] == "agent"


def test_an_ordinary_writer_may_not_write_under_another_profile(
    store: Store, project_id: str
) -> None:
    coordinator.enable(store, "lead", PERSON)
    worker = Actor("w1", Origin("person"))
    memory = make_memory(project_id, "Impersonation", scope="agent", agent_profile="w2")
    with pytest.raises(Denied, match=r"create\.agent\.other"):
        pipeline.store_memory(store, memory, worker)
    assert store.query("SELECT count(*) FROM memories")[0][0] == 0


def test_coordinated_mode_gates_lifecycle_changes(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    token = enable(run_cli)
    coordinator = {TOKEN_VAR: token}
    old = remember(run_cli, "Cache lives in Redis", environ=coordinator)
    new = remember(run_cli, "Cache lives in SQLite", environ=coordinator)
    pending = remember(
        run_cli, "Agent heartwood", "--ring", "heartwood", environ=CLAUDE | coordinator
    )
    dump = tmp_path / "in.jsonl"
    dump.write_text(json.dumps({"summary": "Imported note"}) + "\n", encoding="utf-8")
    attempts = [
        (("supersede", old, new, "--reason", "moved"), "supersede"),
        (("forget", old, "--mode", "redact", "--reason", "x"), "forget.redact"),
        (("forget", old, "--mode", "delete", "--reason", "x"), "forget.delete"),
        (("import", str(dump)), "import"),
        (("review", "dispute", new, "--reason", "x"), "review.dispute"),
        (("review", "reject", new, "--reason", "x"), "review.reject"),
        (("policy", "rotate"), "policy.rotate"),
    ]
    for argv, action in attempts:
        refused = run_cli(*argv)
        assert refused.code == 1, (argv, refused.err)
        assert f"{action} needs the coordinator capability" in refused.err
    assert run_cli("--json", "import", str(dump), "--dry-run").code == 0  # read-only
    assert {r["id"] for r in run_cli("--json", "list").json()["items"]} == {old, new, pending}
    assert show(run_cli, pending)["trust"] == "accepted"  # written with the capability
    write(run_cli, "supersede", old, new, "--reason", "moved", environ=coordinator)
    write(run_cli, "import", str(dump), environ=coordinator)
    denied = [r["action"] for r in policy_rows(project_root) if r["decision"] == "deny"]
    assert denied == [action for _, action in attempts]


def test_authorize_records_a_hashed_target_and_raises_denied(store: Store) -> None:
    minted = coordinator.enable(store, "lead", PERSON)
    actor = Actor("w9", Origin("codex", "cx-1"))
    with store.write() as conn:
        coordinator.authorize(conn, "consolidate", actor, "project:abc", {TOKEN_VAR: minted.token})
    with pytest.raises(Denied), store.write() as conn:
        coordinator.authorize(conn, "consolidate", actor, "project:abc", {})
    found = coordinator.audit_entries(store.db)[-2:]
    assert [
        (e["action"], e["decision"], e["capability"], e["origin"], e["session"]) for e in found
    ] == [
        ("consolidate", "allow", "held", "codex", "cx-1"),
        ("consolidate", "deny", "absent", "codex", "cx-1"),
    ]
    assert {e["target_hash"] for e in found} == {sha256("project:abc")}


def test_the_policy_audit_is_append_only(store: Store) -> None:
    coordinator.enable(store, "lead", PERSON)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        store.conn.execute("UPDATE policy_audit SET decision = 'allow'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        store.conn.execute("DELETE FROM policy_audit")


def test_policy_changes_are_in_the_audit_log(run_cli: CliRunner, project_root: Path) -> None:
    token = enable(run_cli)
    write(run_cli, "policy", "rotate", environ={TOKEN_VAR: token})
    changes = [json.loads(r["detail"])["change"] for r in audit_rows(project_root, "policy")]
    assert changes == ["enable", "rotate"]
    assert token not in json.dumps([dict(r) for r in audit_rows(project_root, "policy")])


# -- eight writers at once ---------------------------------------------------------


def test_eight_concurrent_writers_get_exactly_what_the_policy_allows(
    run_cli: CliRunner, project_root: Path
) -> None:
    token = enable(run_cli)
    victim = remember(
        run_cli, "Release checklist lives in docs/release.md", environ={TOKEN_VAR: token}
    )
    root = ["--root", str(project_root), "--json"]
    writers: dict[str, tuple[list[str], dict[str, str]]] = {
        "own-agent": (
            ["remember", "Worker one validated WAL", "--scope", "agent", "--agent-profile", "w1"],
            {},
        ),
        "harness-agent": (["remember", "Claude worker saw flaky sync test"], dict(CLAUDE)),
        "project-no-token": (["remember", "Unreviewed project rule", "--scope", "project"], {}),
        "heartwood-no-token": (
            [
                *("remember", "Worker heartwood", "--scope", "agent", "--agent-profile", "w4"),
                *("--ring", "heartwood"),
            ],
            {},
        ),
        "forget-no-token": (["forget", victim, "--mode", "delete", "--reason", "cleanup"], {}),
        "stale-token": (
            ["remember", "Project rule with a bad token", "--scope", "project"],
            {TOKEN_VAR: "trc_" + "f" * 64},
        ),
        "coordinator-project": (
            ["remember", "Fan-in summary: release ready", "--scope", "project"],
            {TOKEN_VAR: token},
        ),
        "coordinator-heartwood": (
            ["remember", "Releases are cut from main", "--scope", "project", "--ring", "heartwood"],
            {TOKEN_VAR: token},
        ),
    }
    results: dict[str, tuple[int, str]] = {}
    start = threading.Barrier(len(writers))

    def run(name: str) -> None:
        argv, env = writers[name]
        start.wait()
        proc = run_process(*root, *argv, env={"TREE_RING_BUSY_TIMEOUT_MS": "20000", **env})
        results[name] = (proc.returncode, proc.stderr.decode())

    threads = [threading.Thread(target=run, args=(name,)) for name in writers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    assert {(name, code) for name, (code, _) in results.items()} == {
        ("own-agent", 0),
        ("harness-agent", 0),
        ("project-no-token", 1),
        ("heartwood-no-token", 1),
        ("forget-no-token", 1),
        ("stale-token", 1),
        ("coordinator-project", 0),
        ("coordinator-heartwood", 0),
    }
    for name, (code, err) in results.items():
        if code:
            # One line: under --json the error object, its code the policy's refusal.
            assert err.count("\n") == 1, (name, err)
            assert json.loads(err)["error"]["code"] == "denied", (name, err)
    stored = query(project_root, "SELECT summary, scope, ring, trust, agent_profile FROM memories")
    assert {tuple(r) for r in stored} == {
        ("Release checklist lives in docs/release.md", "project", "cambium", "accepted", None),
        ("Worker one validated WAL", "agent", "cambium", "accepted", "w1"),
        ("Claude worker saw flaky sync test", "agent", "cambium", "accepted", "claude-code"),
        ("Fan-in summary: release ready", "project", "cambium", "accepted", None),
        ("Releases are cut from main", "project", "heartwood", "accepted", None),
    }
    decisions = Counter(
        (r["action"], r["decision"], r["capability"]) for r in policy_rows(project_root)[2:]
    )
    assert decisions == Counter(
        {
            ("create.agent", "allow", "absent"): 2,
            ("create.project", "deny", "absent"): 1,
            ("create.heartwood", "deny", "absent"): 1,
            ("forget.delete", "deny", "absent"): 1,
            ("create.project", "deny", "invalid"): 1,
            ("create.project", "allow", "held"): 1,
            ("create.heartwood", "allow", "held"): 1,
        }
    )
    assert hashlib.sha256(token.encode()).hexdigest().encode() in store_bytes(project_root)
    assert token.encode() not in store_bytes(project_root)
    assert run_cli("--json", "audit", "verify").json()["ok"] is True


def test_an_older_store_gains_the_policy_audit_on_open(project_root: Path, project_id: str) -> None:
    conn = sqlite3.connect(project.store_path(project_root))
    conn.execute("DROP TABLE policy_audit")
    conn.execute("DELETE FROM schema_migrations WHERE name = '0002_policy_audit'")
    conn.commit()
    conn.close()
    with Store.open(project_root) as store:
        ledger = [r[0] for r in store.query("SELECT name FROM schema_migrations ORDER BY name")]
        assert "0002_policy_audit" in ledger
        pipeline.store_memory(store, make_memory(project_id, "After upgrade"), PERSON)
        assert [e["action"] for e in coordinator.audit_entries(store.db)] == ["create.project"]


def test_every_persons_decision_says_what_it_is_when_refused() -> None:
    # An agent refused `review approve` of heartwood reads "review.promote":
    # the refusal says what that is.
    assert set(coordinator.DESCRIBED) == set(coordinator.PERSON_ONLY)
    actor = Actor("claude-code", Origin("claude-code", "s1"))
    allowed, why = coordinator._decide("open", "review.promote", actor, "")  # pyright: ignore[reportPrivateUsage]
    assert not allowed
    said = "review.promote is a person's decision (approving or promoting heartwood)"
    assert why.startswith(said)
