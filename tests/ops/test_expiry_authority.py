"""An expiry deletes a row with the authority of whoever wrote it, never of
whoever runs `maintain --apply-expired`.

An agent picks when its note expires. Were the expiry applied as a forget by
whoever runs maintain, an agent could write a person's words into its own
partition, expiring a moment later, and a person's routine housekeeping
would forget them for everyone: the person's own write of them refused, the
person's global note of them hidden, a tombstone line committed to the team
ledger that drops a teammate's memory of them from every fresh clone. So
an agent's note no person stands behind (and any row waiting for review) is
withdrawn, as the agent's own forget of it withdraws it, whoever runs
maintain; a person's row is forgotten as a person's forget, by a person's
maintain only; an agent's maintain leaves it, counted, and writes nothing.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from conftest import CliRunner
from governance_support import CLAUDE, CODEX
from team_support import (
    LEDGER,
    cli,
    clone,
    commit,
    expire,
    first_repo,
    git,
    hub,
    ledger_check,
    ledger_entries,
    ok,
    publish,
    pull,
)

from tree_ring.model import project

SQUASH = "I always squash commits before merging a feature branch"
DEPLOYS = "Production deploys require the on-call engineer to approve"
FREEZE = "The holiday code freeze lasts until the second of January"
KEPT = "The changelog lives in docs/CHANGES.md at the root"
LATER = "2999-01-01T00:00:00Z"


def written(root: Path, *args: str, environ: dict[str, str] | None = None) -> str:
    done = cli(root, "--json", "remember", *args, environ=environ)
    assert done.code == 0, done.err
    return str(done.json()["id"])


def expiring(root: Path, text: str, *args: str, environ: dict[str, str] | None = None) -> str:
    """`text` written expiring, its expiry then moved into the past, as time would."""
    memory_id = written(root, text, "--expires-at", LATER, *args, environ=environ)
    expire(root, memory_id)
    return memory_id


def maintained(root: Path, *args: str, environ: dict[str, str] | None = None) -> dict[str, Any]:
    done = cli(root, "--json", "maintain", *args, environ=environ)
    assert done.code == 0, done.err
    return done.json()


def row_ids(root: Path) -> set[str]:
    with sqlite3.connect(project.store_path(root)) as conn:
        return {str(row[0]) for row in conn.execute("SELECT id FROM memories")}


def stone_kinds(root: Path) -> set[tuple[str, str]]:
    with sqlite3.connect(project.store_path(root)) as conn:
        found = conn.execute("SELECT DISTINCT memory_id, kind FROM content_tombstones")
        return {(str(row[0]), str(row[1])) for row in found}


def listed(report: dict[str, Any], kind: str) -> set[str]:
    return {item["id"] for item in report["items"] if item["kind"] == kind}


def withdrawn_items(report: dict[str, Any]) -> set[str]:
    return {i["id"] for i in report["items"] if i["kind"] == "expired_removable" and i["withdrawn"]}


def agents_note(root: Path, text: str, how: str, tmp: Path, n: int = 1) -> str:
    """An agent's note of `text` in its own partition, written by `how` (its
    `remember`, the Stop hook's `capture`, its `import`), expired."""
    if how == "remember":
        return expiring(root, text, environ=CLAUDE)
    if how == "capture":
        done = cli(
            root, "--json", "capture", text, "--event-type", "lesson", "--ring", "cambium",
            "--agent-profile", "claude-code", "--session-id", "s1",
            "--operation-id", f"auto-0123456789ab-{n}", "--expires-at", LATER, environ=CLAUDE,
        )  # fmt: skip
        assert done.code == 0, done.err
        memory_id = str(done.json()["id"])
    else:
        rows = tmp / f"rows-{n}.jsonl"
        row = {
            "summary": text, "scope": "agent", "agent_profile": "claude-code",
            "session_id": "s1", "workflow_id": "s1", "expires_at": LATER,
        }  # fmt: skip
        rows.write_text(json.dumps(row) + "\n", encoding="utf-8")
        done = cli(root, "--json", "import", str(rows), environ=CLAUDE)
        assert done.code == 0 and done.json()["imported"] == 1, done.err
        memory_id = str(done.json()["items"][0]["id"])
    expire(root, memory_id)
    return memory_id


@pytest.mark.parametrize("how", ["remember", "capture", "import"])
def test_a_persons_sweep_withdraws_an_agents_expired_note(tmp_path: Path, how: str) -> None:
    root = first_repo(tmp_path)
    home = {"TREE_RING_USER_HOME": str(tmp_path / "me")}
    written(root, SQUASH, "--scope", "global", environ=home)
    copy = agents_note(root, SQUASH, how, tmp_path, 1)
    other = agents_note(root, DEPLOYS, how, tmp_path, 2)
    assert row_ids(root) == {copy, other}
    report = maintained(root, "--apply-expired", environ=home)
    assert row_ids(root) == set()
    # Its writer's end of it, which says nothing against its words: no
    # tombstone, here or in the team ledger.
    assert stone_kinds(root) == set()
    assert [e for e in ledger_entries(root) if e["record"] != "memory"] == []
    # The person's global note stays in the project's brief ...
    assert SQUASH in cli(root, "brief", environ=home).out
    # ... and the words are anyone's to write again: a recurring note.
    again = written(root, DEPLOYS, "--scope", "agent", environ=CODEX)
    mine = written(root, DEPLOYS, environ=home)
    assert row_ids(root) == {again, mine}
    assert {e["id"] for e in ledger_entries(root)} == {mine}
    assert listed(report, "expired_removable") == {copy, other} == withdrawn_items(report)
    assert (report["deleted"], report["withdrawn"], report["expired_for_person"]) == (2, 2, 0)


def test_no_teammates_clone_loses_their_memory_to_an_agents_expiry(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    origin = hub(tmp_path, alice)
    bob = clone(origin, tmp_path, "bob")
    # Bob's memory, not pushed yet; Alice's agent notes the same words, expiring.
    bobs = written(bob, FREEZE)
    agents = expiring(alice, FREEZE, environ=CLAUDE)
    report = maintained(alice, "--apply-expired")
    assert row_ids(alice) == set() and stone_kinds(alice) == set()
    assert (report["deleted"], report["withdrawn"]) == (1, 1)
    publish(alice, "housekeeping")
    commit(bob, "bob's memory")
    pull(bob)
    ok(bob, "sync")
    publish(bob, "synced")
    assert ledger_check(bob)["ok"] is True
    assert {(e["id"], e["record"]) for e in ledger_entries(bob)} == {(bobs, "memory")}
    carol = clone(origin, tmp_path, "carol")
    assert row_ids(carol) == {bobs}
    assert FREEZE in ok(carol, "list").out
    pull(alice)
    ok(alice, "sync")
    assert row_ids(alice) == {bobs} and agents not in row_ids(alice)


def test_an_agents_sweep_leaves_a_persons_expired_memory_for_a_person(tmp_path: Path) -> None:
    root = first_repo(tmp_path)
    hub(tmp_path, root)
    gone = expiring(root, FREEZE)
    kept = written(root, KEPT)
    publish(root, "the team's memory")
    ledger = (root / LEDGER).read_bytes()
    doctor = cli(root, "--json", "doctor").json()
    audit = ok(root, "--json", "audit", "log").out
    text = cli(root, "maintain", "--apply-expired", environ=CLAUDE).out
    assert row_ids(root) == {gone, kept}
    assert stone_kinds(root) == set()
    assert (root / LEDGER).read_bytes() == ledger
    assert cli(root, "--json", "doctor").json()["items"] == doctor["items"]
    assert ok(root, "--json", "audit", "log").out == audit
    assert "expired but a person's to delete (an agent's maintain leaves them; kept): 1" in text
    assert gone in text and "deleted" not in text
    # The plan, and the run, say the same: left for a person, nothing written.
    for args in ((), ("--apply-expired",)):
        report = maintained(root, *args, environ=CLAUDE)
        assert listed(report, "expired_for_person") == {gone}
        assert listed(report, "expired_removable") == set()
        assert (report["deleted"], report["expired_for_person"]) == (0, 1)
    # Its next sync reads nothing back as a claim.
    synced = cli(root, "--json", "sync", environ=CLAUDE)
    assert synced.code == 0, synced.err
    assert (synced.json()["claimed"], synced.json()["requested"]) == ([], [])
    assert row_ids(root) == {gone, kept}
    assert ok(root, "--json", "review", "list").json()["total"] == 0
    # A person's sweep deletes it as the person's forget: the ledger loses its line.
    report = maintained(root, "--apply-expired")
    assert row_ids(root) == {kept}
    assert stone_kinds(root) == {(gone, "forgotten")}
    assert (report["deleted"], report["withdrawn"]) == (1, 0)
    assert {(e["id"], e["record"]) for e in ledger_entries(root)} == {
        (kept, "memory"),
        (gone, "tombstone"),
    }
    assert FREEZE not in (root / LEDGER).read_text(encoding="utf-8")
    assert ledger_check(root)["ok"] is True
    assert git(root, "status", "--porcelain").stdout.strip() == f"M {LEDGER}"


def test_each_run_plans_what_it_applies(run_cli: CliRunner, project_root: Path) -> None:
    """An agent's note and any proposal waiting for review are withdrawn,
    whoever runs it; a person's row, and an agent's a person approved, are a
    person's to forget; the report without --apply-expired says so first."""
    person = expiring(project_root, FREEZE)
    note = expiring(project_root, DEPLOYS, environ=CLAUDE)
    waiting = expiring(project_root, SQUASH, "--scope", "project", environ=CODEX)
    approved = written(project_root, KEPT, "--scope", "project", "--expires-at", LATER,
                       environ=CLAUDE)  # fmt: skip
    done = run_cli("review", "approve", approved, "--reason", "right")
    assert done.code == 0, done.err
    expire(project_root, approved)
    agent = maintained(project_root, environ=CLAUDE)
    persons = maintained(project_root)
    text = run_cli("maintain").out
    # An agent's run does what its plan said, and no more.
    applied = maintained(project_root, "--apply-expired", environ=CLAUDE)
    assert row_ids(project_root) == {person, approved}
    assert stone_kinds(project_root) == set()
    assert listed(agent, "expired_removable") == {note, waiting} == withdrawn_items(agent)
    assert listed(agent, "expired_for_person") == {person, approved}
    assert listed(persons, "expired_removable") == {person, note, waiting, approved}
    assert withdrawn_items(persons) == {note, waiting}
    assert listed(persons, "expired_for_person") == set()
    assert "expired: 4 removable (--apply-expired deletes them)" in text
    assert "deleted as their writer's end of them, with no tombstone): 2" in text
    assert (applied["deleted"], applied["withdrawn"], applied["expired_for_person"]) == (2, 2, 2)
    applied = maintained(project_root, "--apply-expired")
    assert row_ids(project_root) == set()
    assert stone_kinds(project_root) == {(person, "forgotten"), (approved, "forgotten")}
    assert (applied["deleted"], applied["withdrawn"]) == (2, 0)


def test_an_agents_shared_note_the_ledger_carries_waits_for_a_persons_sweep(
    tmp_path: Path,
) -> None:
    """With review of agents' shared writes turned off, an agent's project
    note is accepted and goes into the team ledger. An agent's sweep leaves
    it (its writes reach the ledger only at its next sync, which would read
    the line back as a claim); a person's withdraws it, and its line leaves
    the ledger with no tombstone."""
    root = first_repo(tmp_path)
    ok(root, "review", "policy", "--set", "agent_shared=false")
    note = expiring(root, DEPLOYS, "--scope", "project", environ=CLAUDE)
    ok(root, "sync")
    assert {e["id"] for e in ledger_entries(root)} == {note}
    report = maintained(root, "--apply-expired", environ=CLAUDE)
    assert row_ids(root) == {note}
    assert listed(report, "expired_for_person") == {note} and report["deleted"] == 0
    report = maintained(root, "--apply-expired")
    assert row_ids(root) == set() and stone_kinds(root) == set()
    assert ledger_entries(root) == []
    assert ledger_check(root)["ok"] is True
    mine = written(root, DEPLOYS)
    assert row_ids(root) == {mine}
    assert withdrawn_items(report) == {note} and report["withdrawn"] == 1


def test_a_persons_expired_note_spares_their_global_note(tmp_path: Path) -> None:
    """A person's expiry is a person's forget: what their own notes hold (a
    global note among them) stays shown and writable, as `forget` leaves it."""
    root = first_repo(tmp_path)
    home = {"TREE_RING_USER_HOME": str(tmp_path / "me")}
    written(root, SQUASH, "--scope", "global", environ=home)
    gone = expiring(root, SQUASH, environ=home)
    report = maintained(root, "--apply-expired", environ=home)
    assert row_ids(root) == set()
    assert SQUASH in cli(root, "brief", environ=home).out
    assert gone not in (root / LEDGER).read_text(encoding="utf-8")
    assert (report["deleted"], report["withdrawn"]) == (1, 0)
