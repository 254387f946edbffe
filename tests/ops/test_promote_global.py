"""`promote --scope global`: a partition memory moves to the person's user store.

The copy there is written as any write to that store is (guarded, hashed,
audited, refused if forgotten there); the project's row retires with an
audit entry naming where it went.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import CliRunner, make_memory
from governance_support import remember, write
from web_support import insert

from tree_ring.model import project
from tree_ring.model.record import content_hash
from tree_ring.store import user


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    return {"TREE_RING_USER_HOME": str(tmp_path / "me")}


def user_rows(home: dict[str, str]) -> list[dict[str, object]]:
    conn = sqlite3.connect(user.user_store_path(home))
    conn.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in conn.execute("SELECT * FROM memories ORDER BY id")]
    finally:
        conn.close()


def user_audit(home: dict[str, str]) -> list[tuple[str, str, str]]:
    conn = sqlite3.connect(user.user_store_path(home))
    try:
        return [tuple(r) for r in conn.execute("SELECT action, target, actor FROM audit_log")]
    finally:
        conn.close()


def test_a_partition_memory_moves_to_the_user_store(
    run_cli: CliRunner, project_root: Path, home: dict[str, str]
) -> None:
    memory_id = remember(
        run_cli, "I prefer short commit subjects", "--scope", "agent", "--agent-profile", "w1"
    )
    done = write(
        run_cli, "promote", memory_id, "--scope", "global", "--reason", "mine everywhere",
        environ=home,
    )  # fmt: skip
    [item] = done["items"]
    assert {k: v for k, v in item.items() if k != "promoted_at"} == {
        "id": memory_id,
        "scope": "global",
        "ring": "cambium",
        "store": "user",
        "from_scope": "agent",
        "decision_reason": "mine everywhere",
        "disputes": [],
    }
    [copy] = user_rows(home)
    assert (copy["id"], copy["project"], copy["scope"], copy["ring"]) == (
        memory_id, "user", "global", "cambium",
    )  # fmt: skip
    assert (copy["summary"], copy["trust"], copy["review_reason"], copy["reviewed_by"]) == (
        "I prefer short commit subjects", "accepted", "mine everywhere", "person",
    )  # fmt: skip
    assert copy["content_hash"] == content_hash("I prefer short commit subjects", "")
    assert user_audit(home) == [("promote", memory_id, "person")]
    shown = run_cli("--json", "show", memory_id).json()["memory"]
    assert shown["retired_at"] == item["promoted_at"]
    # The retired row says where it went; without the user store there is nowhere.
    said = (
        "moved: to your user store, where every project's brief reads it "
        f"(`tree-ring show {memory_id} --user`)"
    )
    assert said in run_cli("show", memory_id, environ=home).out.splitlines()
    assert "moved:" not in run_cli("show", memory_id).out
    log = run_cli("--json", "audit", "--target", memory_id).json()["items"]
    assert log[-1]["action"] == "promote"
    assert {k: v for k, v in log[-1]["detail"].items() if k != "states"} == {
        "from": "agent", "to": "user store", "ring": "cambium", "reason": "mine everywhere",
    }  # fmt: skip
    # The project no longer recalls it; the person's recall still does, from the user store.
    found = run_cli("--json", "recall", "short commit subjects", environ=home).json()
    assert [h["id"] for h in found["items"]] == [memory_id]


def test_the_copy_is_guarded_as_any_write_to_the_user_store(
    run_cli: CliRunner, project_root: Path, home: dict[str, str]
) -> None:
    # A row from an older store (or an edited one), labelled normal and with a
    # stale hash: the user store takes it only as its own write path would.
    pid = project.load_project_id(project_root)
    row = make_memory(
        pid, "My dentist appointment is about a root canal", scope="agent", agent_profile="w1"
    ).replace(content_hash="sha256:" + "0" * 64)
    insert(project_root, [row])
    write(run_cli, "promote", row.id, "--scope", "global", "--reason", "mine", environ=home)
    [copy] = user_rows(home)
    assert copy["sensitivity"] == "health"
    assert copy["content_hash"] == content_hash(row.summary, "")


def test_a_promote_the_user_store_refuses_leaves_the_project_row(
    run_cli: CliRunner, project_root: Path, home: dict[str, str]
) -> None:
    # Forgotten in the user store once: promoting the same content there is refused.
    first = remember(run_cli, "I keep branches small", "--scope", "global", environ=home)
    assert (
        run_cli(
            "forget", first, "--user", "--mode", "delete", "--reason", "not true", environ=home
        ).code
        == 0
    )
    memory_id = remember(
        run_cli, "I keep branches small", "--scope", "agent", "--agent-profile", "w1"
    )
    done = run_cli("promote", memory_id, "--scope", "global", "--reason", "mine", environ=home)
    assert done.code == 1 and done.err.count("\n") == 1
    assert done.err.startswith("error: this content was forgotten on ")
    assert f"(as {first}) and will not be stored again" in done.err
    assert user_rows(home) == []  # deleted there, and nothing written again
    assert run_cli("--json", "show", memory_id).json()["memory"]["retired_at"] is None
