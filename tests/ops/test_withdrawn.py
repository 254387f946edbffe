"""An agent's forget of its own memory withdraws it: agents may not store
the content again, but a person may, reads of the person's user store do not
hide it, and no line of it reaches the team ledger or an export.

A forgotten or rejected tombstone binds everyone and travels, so an agent
that could make one for any text it chose (write it into its own partition,
then forget it) could keep a person's content out of the project, out of the
person's own global notes read here, and out of every teammate's clone.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import CliRunner
from governance_support import CLAUDE, CODEX
from team_support import (
    cli,
    clone,
    first_repo,
    hub,
    ledger_entries,
    ok,
    publish,
    pull,
)

from tree_ring.model.actor import Actor, Origin
from tree_ring.store import tombstones
from tree_ring.store.db import Store

TEXT = "Release candidates are tagged from the main branch only"
GLOBAL = "Prefer short commit subjects in the imperative mood"


def stored(run_cli: CliRunner, *args: str, environ: dict[str, str] | None = None) -> str:
    done = run_cli("--json", "remember", *args, environ=environ)
    assert done.code == 0, done.err
    return str(done.json()["id"])


def withdraw(run_cli: CliRunner, text: str, environ: dict[str, str]) -> str:
    """An agent writes `text` into its own partition and forgets it."""
    memory_id = stored(run_cli, text, "--scope", "agent", environ=environ)
    done = run_cli(
        "--json", "forget", memory_id, "--mode", "delete", "--reason", "wrong", environ=environ
    )
    assert done.code == 0, done.err
    assert done.json()["withdrawn"] is True and done.json()["request"] is None
    return memory_id


def kinds(root: Path) -> set[tuple[str, str]]:
    with Store.open(root) as store:
        found = store.db.query("SELECT memory_id, kind FROM content_tombstones")
    return {(str(row[0]), str(row[1])) for row in found}


def test_agents_may_not_store_it_again_and_a_person_may(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    gone = withdraw(run_cli, TEXT, CLAUDE)
    assert kinds(project_root) and kinds(project_root) <= {(gone, "withdrawn")}
    for environ in (CLAUDE, CODEX):
        again = run_cli("remember", TEXT, "--scope", "agent", environ=environ)
        assert again.code != 0 and "withdrawn by an agent" in again.err
    rows = tmp_path / "rows.jsonl"
    row = {"summary": TEXT, "scope": "agent", "agent_profile": "codex"}
    rows.write_text(json.dumps(row) + "\n", encoding="utf-8")
    imported = run_cli("import", str(rows), environ=CODEX)
    assert imported.code != 0 and "withdrawn" in imported.err
    # A person's own write needs no override and lands accepted.
    done = run_cli("--json", "remember", TEXT)
    assert done.code == 0, done.err
    assert done.json()["trust"] == "accepted"
    # Forgotten by the person, it is forgotten for everyone, the person too.
    person = str(done.json()["id"])
    ok_forget = run_cli("--json", "forget", person, "--mode", "delete", "--reason", "x")
    assert ok_forget.code == 0 and ok_forget.json()["withdrawn"] is False
    assert {kind for _, kind in kinds(project_root)} == {"forgotten"}
    refused = run_cli("remember", TEXT)
    assert refused.code != 0 and "was forgotten on" in refused.err


def test_a_withdrawal_never_lowers_a_persons_tombstone(project_root: Path) -> None:
    with Store.open(project_root) as store, store.write() as db:
        project = "p"
        tombstones.record(
            db, project, ["k1"], kind="forgotten", reason="r", memory_id="a", actor="person", at="t"
        )
        tombstones.record(
            db, project, ["k1", "k2"], kind="withdrawn", reason="r", memory_id="b",
            actor="claude-code", at="t",
        )  # fmt: skip
        found = {
            (row[0], row[1], row[2])
            for row in db.query("SELECT content_hash, kind, memory_id FROM content_tombstones")
        }
    assert found == {("k1", "forgotten", "a"), ("k2", "withdrawn", "b")}


def test_the_persons_global_note_stays_in_the_projects_reads(
    run_cli: CliRunner, tmp_path: Path
) -> None:
    home = {"TREE_RING_USER_HOME": str(tmp_path / "me")}
    stored(run_cli, GLOBAL, "--scope", "global", environ=home)
    withdraw(run_cli, GLOBAL, home | CLAUDE)
    assert GLOBAL in run_cli("brief", environ=home).out
    recalled = run_cli("--json", "recall", "commit subjects imperative", environ=home)
    assert GLOBAL in recalled.out


def test_no_line_of_it_reaches_the_ledger_or_an_export(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    origin = hub(tmp_path, alice)
    kept = ok(alice, "--json", "remember", "The changelog lives in docs/CHANGES.md").json()["id"]
    made = cli(alice, "--json", "remember", TEXT, "--scope", "agent", environ=CLAUDE)
    assert made.code == 0, made.err
    done = cli(
        alice, "--json", "forget", made.json()["id"], "--mode", "delete", "--reason", "w",
        environ=CLAUDE,
    )  # fmt: skip
    assert done.code == 0 and done.json()["withdrawn"] is True, done.err
    publish(alice, "the team's memory")
    assert {e["id"] for e in ledger_entries(alice)} == {kept}
    exported = ok(alice, "export").out
    assert [json.loads(line).get("record") for line in exported.splitlines()].count(
        "tombstone"
    ) == 0
    bob = clone(origin, tmp_path, "bob")
    pull(bob)
    assert ok(bob, "--json", "remember", TEXT).json()["trust"] == "accepted"


@pytest.mark.parametrize("holds", [False, True])
def test_an_agent_with_the_coordinators_capability_forgets_for_everyone(
    project_root: Path, holds: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tree_ring.govern import coordinator
    from tree_ring.write import correct

    kind = correct._kind  # pyright: ignore[reportPrivateUsage]
    agent = Actor("claude-code", Origin("claude-code", "s1"))
    monkeypatch.setattr(coordinator, "holds", lambda db, actor: holds)
    with Store.open(project_root) as store:
        assert kind(store.db, agent) == ("forgotten" if holds else "withdrawn")
        assert kind(store.db, Actor("person", Origin("person"))) == "forgotten"


def test_a_person_clearing_an_agents_copy_keeps_their_global_note(
    run_cli: CliRunner, tmp_path: Path
) -> None:
    home = {"TREE_RING_USER_HOME": str(tmp_path / "me")}
    stored(run_cli, GLOBAL, "--scope", "global", environ=home)
    copy = stored(run_cli, GLOBAL, "--scope", "agent", environ=home | CLAUDE)
    done = run_cli("--json", "inbox", "--all", "--forget", "--reason", "agent junk", environ=home)
    assert done.code == 0, done.err
    assert copy not in run_cli("--json", "list", environ=home).out
    assert GLOBAL in run_cli("brief", environ=home).out
    again = run_cli("--json", "remember", GLOBAL, environ=home)
    assert again.code == 0, again.err


def test_a_persons_forget_of_an_agents_note_binds_everyone(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    # Confidential words an agent saved, in its partition and asking to share
    # them: the person's forget takes both copies and binds everyone, so a
    # batch approval, an import or the person's own write cannot bring them back.
    mine = stored(run_cli, TEXT, "--scope", "agent", environ=CLAUDE)
    waiting = run_cli("--json", "remember", TEXT, "--scope", "project", environ=CLAUDE)
    assert waiting.code == 0 and waiting.json()["trust"] == "pending", waiting.err
    backup = tmp_path / "backup.jsonl"
    backup.write_text(run_cli("export").out, encoding="utf-8")
    done = run_cli("--json", "forget", mine, "--mode", "delete", "--reason", "confidential")
    assert done.code == 0, done.err
    assert done.json()["twins"] == [waiting.json()["id"]] and done.json()["withdrawn"] is False
    assert {kind for _, kind in kinds(project_root)} == {"forgotten"}
    batch = run_cli("review", "approve", "--all", "--reason", "batch")
    assert batch.code == 0 and batch.out.startswith("approved 0 pending memories"), batch.out
    assert TEXT not in run_cli("brief").out
    again = run_cli("import", str(backup))
    assert again.code != 0 and ("forgotten" in again.err), again.err
    refused = run_cli("remember", TEXT)
    assert refused.code != 0 and "was forgotten on" in refused.err


def test_a_persons_forget_of_an_agents_note_takes_the_other_agents_copies(
    run_cli: CliRunner, project_root: Path
) -> None:
    mine = stored(run_cli, TEXT, "--scope", "agent", environ=CLAUDE)
    codex = stored(run_cli, TEXT, "--scope", "agent", environ=CODEX)
    own = stored(run_cli, GLOBAL)
    done = run_cli("--json", "forget", mine, "--mode", "delete", "--reason", "confidential")
    assert done.code == 0, done.err
    assert done.json()["twins"] == [codex] and done.json()["tombstoned"] is True
    again = run_cli("remember", TEXT, "--scope", "agent", environ=CODEX)
    assert again.code != 0 and "was forgotten on" in again.err
    assert own in run_cli("--json", "list").out
