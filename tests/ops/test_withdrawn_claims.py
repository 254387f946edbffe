"""A tombstone an agent imports, or one a team ledger line the upstream does
not hold brings, is a withdrawal: it binds agents' writes only, hides nothing
of the person's (their global note read in the project), refuses no write of
theirs, and never reaches the team ledger, an export or a teammate.

Content hashes are the same in every project, so an agent can compute those
of a person's note and name them under a made-up id; as a forget, that would
hide the note, refuse the person's own write, and travel to every clone as
the person's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import CliRunner
from helpers import make_memory
from team_support import (
    LEDGER,
    cli,
    clone,
    commit,
    first_repo,
    git,
    hub,
    ledger_entries,
    ok,
    publish,
    pull,
    remember,
    run_session_start,
)

from tree_ring.model.record import generated_id
from tree_ring.store import tombstones
from tree_ring.store.db import Store

AGENT = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "agent-session-1"}
TEXT = "Always run the linters before pushing any branch upstream"
OTHER = "Deploys freeze on Fridays after the release branch is cut"
MADE_UP = "mem_20261201_000000_aaaaaaaaaaaa"
AT = "2026-12-01T00:00:00.000000Z"


@pytest.fixture
def me(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The person's user store, for the CLI and for the hook run as a process."""
    home = str(tmp_path / "me")
    monkeypatch.setenv("TREE_RING_USER_HOME", home)
    return {"TREE_RING_USER_HOME": home}


def keys() -> list[str]:
    """What forgetting TEXT anywhere tombstones: the same in every project."""
    return tombstones.forget_keys(make_memory("elsewhere", TEXT))


def stone_file(path: Path) -> Path:
    """An export's tombstone lines for TEXT under a made-up id, as a person's."""
    lines = [
        {
            "record": "content_tombstone",
            "content_hash": key,
            "kind": "forgotten",
            "reason": "outdated",
            "memory_id": MADE_UP,
            "created_at": AT,
            "actor": "person",
        }
        for key in keys()
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def withdrawn(root: Path) -> str:
    """The id the one withdrawal an agent's import of `stone_file` recorded is
    under: not the file's made-up id, which names no memory the agent may read
    (`transfer/reach.py`), but one of the import's own."""
    [(memory_id, kind)] = kinds(root)
    assert kind == "withdrawn" and memory_id != MADE_UP and generated_id(memory_id)
    return memory_id


def kinds(root: Path) -> set[tuple[str, str]]:
    with Store.open(root) as store:
        found = store.db.query("SELECT DISTINCT memory_id, kind FROM content_tombstones")
    return {(str(row[0]), str(row[1])) for row in found}


def stone_ids(root: Path) -> set[str]:
    """The ids of the ledger's tombstone and redaction lines."""
    return {e["id"] for e in ledger_entries(root) if e["record"] in ("tombstone", "redaction")}


def exported_stones(run: Any) -> set[str]:
    out = run("export").out
    found = [json.loads(line) for line in out.splitlines()]
    return {row["memory_id"] for row in found if row.get("record") == "content_tombstone"}


def assert_binds_agents_only(run: Any, agent: Any) -> None:
    """An agent's write of TEXT is refused; a person's lands accepted, unasked."""
    refused = agent("remember", TEXT)
    assert refused.code != 0 and "was withdrawn by an agent" in refused.err, refused.err
    done = run("--json", "remember", TEXT)
    assert done.code == 0, done.err
    assert done.json()["trust"] == "accepted"


# ---------------------------------------------------------------- an import


def test_an_agents_imported_tombstone_is_its_withdrawal(
    run_cli: CliRunner, project_root: Path, tmp_path: Path, me: dict[str, str]
) -> None:
    def run(*args: str) -> Any:
        return run_cli(*args, environ=me)

    def agent(*args: str) -> Any:
        return run_cli(*args, environ=me | AGENT)

    assert run("remember", TEXT, "--scope", "global").code == 0
    assert TEXT in run("brief").out
    done = agent("--json", "import", str(stone_file(tmp_path / "stones.jsonl")))
    assert done.code == 0, done.err
    assert done.json()["requested"] == [] and done.json()["tombstones"] == len(keys())
    named = withdrawn(project_root)
    # The person's global note is still read here.
    assert TEXT in run("brief").out
    assert TEXT in run("recall", "linters before pushing").out
    assert_binds_agents_only(run, agent)
    # No line of it in the ledger a sync writes, nor in an export.
    assert run("sync").code == 0
    assert stone_ids(project_root) == set()
    ledger = (project_root / LEDGER).read_text(encoding="utf-8")
    assert MADE_UP not in ledger and named not in ledger
    assert exported_stones(run) == set()
    assert run("--json", "audit", "verify").json()["ok"] is True
    logged = run("--json", "audit", "log", "--target", "import").json()["items"]
    assert [(e["action"], e["actor"]) for e in logged] == [("tombstone", "claude-code")]


def test_a_persons_import_of_the_same_lines_binds_everyone(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    path = stone_file(tmp_path / "stones.jsonl")
    # An agent's import first: a person's import of the same lines replaces it.
    assert run_cli("import", str(path), environ=AGENT).code == 0
    withdrawn(project_root)
    done = run_cli("--json", "import", str(path))
    assert done.code == 0, done.err
    assert kinds(project_root) == {(MADE_UP, "forgotten")}
    refused = run_cli("remember", TEXT)
    assert refused.code != 0 and "was forgotten on 2026-12-01" in refused.err, refused.err
    assert exported_stones(run_cli) == {MADE_UP}


def test_an_agents_import_never_reaches_a_teammate(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    origin = hub(tmp_path, alice)
    stones = stone_file(tmp_path / "stones.jsonl")
    done = cli(alice, "--json", "import", str(stones), environ=AGENT)
    assert done.code == 0, done.err
    remember(alice, OTHER)  # a person's write rewrites the ledger
    publish(alice, "the team's memory")
    assert stone_ids(alice) == set()
    bob = clone(origin, tmp_path, "bob")
    ok(bob, "sync")
    assert kinds(bob) == set()
    assert ok(bob, "--json", "remember", TEXT).json()["trust"] == "accepted"
    assert cli(bob, "remember", TEXT, "--scope", "agent", environ=AGENT).code == 0


def test_a_persons_import_travels_to_a_teammate(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    origin = hub(tmp_path, alice)
    ok(alice, "import", str(stone_file(tmp_path / "stones.jsonl")))
    ok(alice, "sync")
    publish(alice, "forgotten")
    assert stone_ids(alice) == {MADE_UP}
    bob = clone(origin, tmp_path, "bob")
    assert kinds(bob) == {(MADE_UP, "forgotten")}
    refused = cli(bob, "remember", TEXT)
    assert refused.code != 0 and "was forgotten on" in refused.err, refused.err


# ----------------------------------------------------- a team ledger's claim


def claim_line(record: str = "tombstone") -> str:
    line = {"record": record, "id": MADE_UP, "hashes": keys(), "at": AT}
    if record == "tombstone":
        line["kind"] = "forgotten"
    return json.dumps(line, sort_keys=True, separators=(",", ":"))


def append(root: Path, line: str) -> None:
    with (root / LEDGER).open("a", encoding="utf-8") as out:
        out.write(line + "\n")


def team(tmp_path: Path, me: dict[str, str]) -> tuple[Path, Path]:
    """Alice's memory pushed to the upstream; Bob's clone, with his global note TEXT."""
    alice = first_repo(tmp_path)
    origin = hub(tmp_path, alice)
    remember(alice, OTHER)
    publish(alice, "the team's memory")
    bob = clone(origin, tmp_path, "bob")
    assert cli(bob, "remember", TEXT, "--scope", "global", environ=me).code == 0
    assert TEXT in cli(bob, "brief", environ=me).out
    return alice, bob


@pytest.mark.parametrize(
    ("taken_by", "record"),
    [("hook", "tombstone"), ("agent-sync", "tombstone"), ("agent-sync", "redaction")],
)
def test_a_claimed_tombstone_is_a_withdrawal(
    tmp_path: Path, me: dict[str, str], taken_by: str, record: str
) -> None:
    alice, bob = team(tmp_path, me)
    append(bob, claim_line(record))
    if taken_by == "hook":
        done = run_session_start(bob)  # nothing run by hand
        # The hook says what a sync says of it, in one line.
        assert done.stderr.decode().splitlines() == [
            "tree-ring hook (claude-code): team ledger: 1 forget of memories this store never "
            "held came from lines not the upstream's: kept as withdrawals, which bind agents' "
            "writes only and which the ledger this clone writes leaves out (docs/TEAM.md, "
            '"What the ledger is trusted for")'
        ]
        brief = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    else:
        done = cli(bob, "--json", "sync", environ=me | AGENT)
        assert done.code == 0, done.err
        assert done.json()["requested"] == [] and done.json()["forgotten"] == 0
        brief = cli(bob, "brief", environ=me).out
    assert TEXT in brief  # the person's global note is not hidden
    assert kinds(bob) == {(MADE_UP, "withdrawn")}
    assert_binds_agents_only(
        lambda *a: cli(bob, *a, environ=me),
        lambda *a: cli(bob, *a, "--scope", "agent", environ=me | AGENT),
    )
    logged = ok(bob, "--json", "audit", "log", "--target", MADE_UP).json()["items"]
    assert [(e["action"], e["detail"]["kind"]) for e in logged] == [("tombstone", "withdrawn")]
    assert ok(bob, "--json", "audit", "verify").json()["ok"] is True
    status = ok(bob, "--json", "status").json()["memories"]
    assert status["tombstones_withdrawn"] == status["tombstones"] == len(keys())
    assert f"({len(keys())} withdrawn by agents" in ok(bob, "status").out
    # The ledger Bob writes holds no line of it, nor does any teammate's clone.
    ok(bob, "sync")
    assert stone_ids(bob) == set() and MADE_UP not in (bob / LEDGER).read_text(encoding="utf-8")
    publish(bob, "bob's memory")
    pull(alice)
    ok(alice, "sync")
    carol = clone(tmp_path / "alice-hub.git", tmp_path, "carol")
    for mate in (alice, carol):
        assert kinds(mate) == set()
        assert ok(mate, "--json", "remember", TEXT).json()["trust"] == "accepted"


def test_the_upstreams_tombstone_line_binds_everyone(tmp_path: Path, me: dict[str, str]) -> None:
    alice, bob = team(tmp_path, me)
    append(bob, claim_line())
    ok(bob, "sync")  # taken as a claim first: a withdrawal
    assert kinds(bob) == {(MADE_UP, "withdrawn")}
    git(bob, "checkout", "--", LEDGER)
    # The same line from the upstream is the team's forget, and replaces it.
    append(alice, claim_line())
    publish(alice, "a forget")
    pull(bob)
    ok(bob, "sync")
    assert kinds(bob) == {(MADE_UP, "forgotten")}
    # Forgotten by the team: the person's global note is hidden here too.
    assert TEXT not in cli(bob, "brief", environ=me).out
    refused = cli(bob, "remember", TEXT, environ=me)
    assert refused.code != 0 and "was forgotten on" in refused.err, refused.err
    assert stone_ids(bob) == {MADE_UP}
    commit(bob, "synced")
