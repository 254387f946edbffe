"""A restore cannot bring back, believed, what this store forgot.

`import --restore` takes a file's trust states and re-admissions as a
person's word for their own export; but content this project (or the user
store) forgot is re-admitted here only by a person's review: such a row lands
pending, whatever the file's `readmitted` says, and `review approve` then
accepts it as it accepts a `remember --override-tombstone`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import CliRunner

from tree_ring.store.db import Store

TEXT = "Deploy the payments service only from the release branch"
MINE = "Prefer short commit subjects in the imperative mood"
BACK = "mem_20261201_000000_c3c3c3c3c3c3"


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    return {"TREE_RING_USER_HOME": str(tmp_path / "me")}


def _forget(run_cli: CliRunner, home: dict[str, str], text: str, *where: str) -> None:
    stored = run_cli("--json", "remember", text, *where, environ=home)
    assert stored.code == 0, stored.err
    user = ["--user"] if where else []
    memory_id = stored.json()["id"]
    done = run_cli("forget", memory_id, *user, "--mode", "delete", "--reason", "x", environ=home)
    assert done.code == 0, done.err


def _stones(path: Path) -> list[str]:
    with Store.open_file(str(path)) as store:
        return [row[0] for row in store.db.query("SELECT content_hash FROM content_tombstones")]


def _crafted(path: Path, text: str, scope: str, overrides: list[str]) -> Path:
    """A row as a person's export of a re-admission writes it, accepted and reviewed."""
    row: dict[str, Any] = {
        "id": BACK,
        "summary": text,
        "scope": scope,
        "trust": "accepted",
        "origin": "person",
        "review": {"reviewed_by": "person", "reviewed_at": "2026-12-01T00:00:00.000000Z"},
        "readmitted": {
            "at": "2026-12-01T00:00:00.000000Z",
            "by": "person",
            "reason": "it holds again",
            "overrides": overrides,
        },
    }
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    return path


def _shown(run_cli: CliRunner, home: dict[str, str], *user: str) -> dict[str, Any]:
    done = run_cli("--json", "show", BACK, *user, environ=home)
    assert done.code == 0, done.err
    memory: dict[str, Any] = done.json()["memory"]
    review = memory["review"]
    return {
        "trust": memory["trust"],
        "origin": memory["origin"],
        "reviewed_by": review["reviewed_by"],
        "review_reason": review["review_reason"],
    }


PENDING = {
    "trust": "pending",
    "origin": "person",
    "reviewed_by": None,
    "review_reason": "forgotten here, and re-admitted where it was exported by person: "
    "it holds again",
}


def test_a_restored_readmission_of_what_the_project_forgot_waits_for_review(
    run_cli: CliRunner, home: dict[str, str], project_root: Path, tmp_path: Path
) -> None:
    _forget(run_cli, home, TEXT)
    stones = _stones(project_root / ".tree-ring" / "memory.sqlite")
    assert stones
    # The file also carries the project's own tombstones, as an export does.
    path = _crafted(tmp_path / "in.jsonl", TEXT, "project", stones)
    with path.open("a", encoding="utf-8") as extra:
        for line in run_cli("export", environ=home).out.splitlines():
            if json.loads(line).get("record") == "content_tombstone":
                extra.write(line + "\n")
    done = run_cli("--json", "import", str(path), "--restore", environ=home)
    assert done.code == 0, done.err
    assert (done.json()["imported"], done.json()["pending"]) == (1, 1)
    assert _shown(run_cli, home) == PENDING
    waiting = run_cli("--json", "review", "list", environ=home).json()["items"]
    assert BACK in {item["id"] for item in waiting}
    approved = run_cli("review", "approve", BACK, "--reason", "checked", environ=home)
    assert approved.code == 0, approved.err
    assert _shown(run_cli, home)["trust"] == "accepted"
    # The tombstones stay: anyone else writing the claim is still refused.
    again = run_cli("remember", TEXT, environ=home)
    assert again.code == 1 and "forgotten" in again.err


def test_a_restored_readmission_of_what_the_user_store_forgot_waits_for_review(
    run_cli: CliRunner, home: dict[str, str], tmp_path: Path
) -> None:
    _forget(run_cli, home, MINE, "--scope", "global")
    stones = _stones(tmp_path / "me" / "user.sqlite")
    assert stones
    path = _crafted(tmp_path / "in.jsonl", MINE, "global", stones)
    done = run_cli("--json", "import", str(path), "--restore", "--global-to", "user", environ=home)
    assert done.code == 0, done.err
    assert (done.json()["user"]["imported"], done.json()["user"]["pending"]) == (1, 1)
    assert _shown(run_cli, home, "--user") == PENDING
    approved = run_cli("review", "approve", BACK, "--user", "--reason", "checked", environ=home)
    assert approved.code == 0, approved.err
    assert _shown(run_cli, home, "--user")["trust"] == "accepted"


def test_a_restored_readmission_over_the_files_own_tombstones_stays_accepted(
    run_cli: CliRunner, home: dict[str, str], project_root: Path, tmp_path: Path
) -> None:
    # Forgotten where the file came from, never here: the restore is as it was.
    _forget(run_cli, home, TEXT)
    exported = run_cli("export", environ=home).out.splitlines()
    stones = [json.loads(line) for line in exported]
    keys = [stone["content_hash"] for stone in stones]
    with Store.open(project_root) as store, store.write() as db:
        db.execute("DELETE FROM content_tombstones")
    path = _crafted(tmp_path / "in.jsonl", TEXT, "project", keys)
    with path.open("a", encoding="utf-8") as extra:
        extra.writelines(line + "\n" for line in exported)
    done = run_cli("--json", "import", str(path), "--restore", environ=home)
    assert done.code == 0, done.err
    assert (done.json()["imported"], done.json()["pending"]) == (1, 0)
    assert _shown(run_cli, home) == {
        "trust": "accepted",
        "origin": "person",
        "reviewed_by": "person",
        "review_reason": None,
    }


def _with_tombstones(run_cli: CliRunner, home: dict[str, str], path: Path, *user: str) -> None:
    """Append the tombstone lines of an export of the project or (`--user`) the user store."""
    with path.open("a", encoding="utf-8") as extra:
        for line in run_cli("export", *user, environ=home).out.splitlines():
            if json.loads(line).get("record") == "content_tombstone":
                extra.write(line + "\n")


@pytest.mark.parametrize("carried", [False, True], ids=["bare", "with-the-stores-tombstones"])
def test_a_restored_readmission_into_the_project_of_what_the_user_store_forgot_waits(
    run_cli: CliRunner, home: dict[str, str], tmp_path: Path, carried: bool
) -> None:
    # A project write answers to the user store's tombstones; so does a
    # restore's re-admission, even when the file brings those tombstones as its own.
    _forget(run_cli, home, MINE, "--scope", "global")
    stones = _stones(tmp_path / "me" / "user.sqlite")
    path = _crafted(tmp_path / "in.jsonl", MINE, "project", stones)
    if carried:
        _with_tombstones(run_cli, home, path, "--user")
    done = run_cli("--json", "import", str(path), "--restore", environ=home)
    assert done.code == 0, done.err
    assert (done.json()["imported"], done.json()["pending"]) == (1, 1)
    assert _shown(run_cli, home) == PENDING
    waiting = run_cli("--json", "review", "list", environ=home).json()["items"]
    assert {item["id"] for item in waiting} == {BACK}
    approved = run_cli("review", "approve", BACK, "--reason", "checked", environ=home)
    assert approved.code == 0, approved.err
    assert _shown(run_cli, home)["trust"] == "accepted"
    again = run_cli("remember", MINE, environ=home)
    assert again.code == 1 and "forgotten" in again.err


def test_a_restored_readmission_into_the_user_store_of_what_the_project_forgot_waits(
    run_cli: CliRunner, home: dict[str, str], project_root: Path, tmp_path: Path
) -> None:
    _forget(run_cli, home, TEXT)
    stones = _stones(project_root / ".tree-ring" / "memory.sqlite")
    path = _crafted(tmp_path / "in.jsonl", TEXT, "global", stones)
    done = run_cli("--json", "import", str(path), "--restore", "--global-to", "user", environ=home)
    assert done.code == 0, done.err
    assert (done.json()["user"]["imported"], done.json()["user"]["pending"]) == (1, 1)
    assert _shown(run_cli, home, "--user") == PENDING
