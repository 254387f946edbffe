"""An id this store forgot is never taken again by an import, and the team
ledger says a forgotten id as its tombstone whatever row holds it.

A person's forget travels as the tombstone line of the memory's id. A row
imported under that id (an agent's, into its own partition) would stand in the
ledger where the tombstone line was, so the forget would never reach the
upstream and a teammate would keep the forgotten memory. Each team case runs
through real git, as `test_ledger_trust.py` does. Nor may an imported row take
an id of the store read beside its own (the person's user store and the
project): one id would name two memories.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import CliRunner, cli_runner, make_memory
from team_support import (
    cli,
    clone,
    commit,
    first_repo,
    hub,
    ledger_entries,
    ok,
    publish,
    pull,
    remember,
    summaries,
)

from tree_ring.model import project
from tree_ring.model.actor import Actor
from tree_ring.model.identity import Origin, resolve
from tree_ring.store.db import Store
from tree_ring.transfer import reach
from tree_ring.write import pipeline

AGENT_ENV = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "agent-session-1"}
CLAUDE = Actor("claude-code", Origin("claude-code", "agent-session-1"))
FORGOTTEN = "Never deploy the billing service during business hours"
BENIGN = "A benign agent note about formatting code"
LATER = "Deploys freeze on Fridays after the release branch is cut"


def reused(memory_id: str, project_id: str, scope: str) -> dict[str, Any]:
    return {
        "id": memory_id,
        "project": project_id,
        "scope": scope,
        "agent_profile": "claude-code",
        "session_id": "agent-session-1",
        "summary": BENIGN,
    }


def write_lines(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def stones(root: Path) -> list[str]:
    return [entry["id"] for entry in ledger_entries(root) if entry["record"] == "tombstone"]


def forgotten_on_alice(tmp_path: Path) -> tuple[Path, Path, str]:
    """Alice's memory, taken by Bob's clone; then Alice forgets it."""
    alice = first_repo(tmp_path)
    gone = remember(alice, FORGOTTEN)
    commit(alice, "the team's memory")
    origin = hub(tmp_path, alice)
    bob = clone(origin, tmp_path, "bob")
    ok(bob, "sync")
    commit(bob, "bob's clone")
    assert FORGOTTEN in summaries(bob)
    ok(alice, "forget", gone, "--mode", "delete", "--reason", "person forgets")
    assert stones(alice) == [gone]
    return alice, bob, gone


def reaches_bob(alice: Path, bob: Path, gone: str) -> None:
    """Alice's ledger, pushed; Bob's clone forgets the memory at its next sync."""
    remember(alice, LATER)  # any write rewrites the ledger from the store
    assert stones(alice) == [gone]
    publish(alice, "alice's memory")
    pull(bob)
    assert ok(bob, "--json", "sync").json()["forgotten"] == 1
    assert FORGOTTEN not in summaries(bob)


@pytest.mark.parametrize("scope", ["agent", "session"])
def test_an_agents_import_cannot_take_the_id_a_person_forgot(tmp_path: Path, scope: str) -> None:
    alice, bob, gone = forgotten_on_alice(tmp_path)
    path = write_lines(
        tmp_path / "reuse.jsonl", [reused(gone, project.load_project_id(alice), scope)]
    )
    done = cli(alice, "import", str(path), environ=AGENT_ENV)
    assert (done.code, done.err) == (
        1,
        f"error: line 1: memory id {gone} was forgotten here and cannot be reused; "
        "omit the id or give a new one; nothing imported\n",
    )
    assert BENIGN not in summaries(alice)
    reaches_bob(alice, bob, gone)


def test_a_persons_import_cannot_take_a_forgotten_id_and_skip_invalid_leaves_it_out(
    tmp_path: Path,
) -> None:
    alice, _, gone = forgotten_on_alice(tmp_path)
    project_id = project.load_project_id(alice)
    fresh = {"project": project_id, "summary": "A later note about the release checklist"}
    path = write_lines(tmp_path / "reuse.jsonl", [reused(gone, project_id, "project"), fresh])
    done = cli(alice, "import", str(path))
    assert done.code == 1 and f"memory id {gone} was forgotten here" in done.err
    skipped = ok(alice, "--json", "import", str(path), "--skip-invalid").json()
    assert skipped["imported"] == 1 and [item["line"] for item in skipped["items"][1:]] == [1]
    assert BENIGN not in summaries(alice) and stones(alice) == [gone]


@pytest.mark.parametrize("spell", [str.upper, str.swapcase], ids=["upper", "swapped"])
def test_a_forgotten_id_in_other_case_is_refused(
    tmp_path: Path, spell: Callable[[str], str]
) -> None:
    # An id whose hex holds letters (one `remember` makes may hold none).
    alice = first_repo(tmp_path)
    gone = "mem_20261101_090000_a1b2c3d4e5f6"
    assert (
        cli(
            alice,
            "import",
            str(write_lines(tmp_path / "one.jsonl", [{"id": gone, "summary": FORGOTTEN}])),
        ).code
        == 0
    )
    ok(alice, "forget", gone, "--mode", "delete", "--reason", "person forgets")
    project_id = project.load_project_id(alice)
    # The id's form kept (`mem_`, the date), its hex in other case.
    other = "mem_" + spell(gone.removeprefix("mem_"))
    assert other != gone
    path = write_lines(tmp_path / "case.jsonl", [reused(other, project_id, "project")])
    done = cli(alice, "import", str(path))
    assert done.code == 1 and f"memory id {other} was forgotten here" in done.err
    assert BENIGN not in summaries(alice)


def test_the_ledger_keeps_the_tombstone_line_of_a_forgotten_id_a_row_holds(
    tmp_path: Path,
) -> None:
    """A store whose row took a forgotten id before imports refused it."""
    alice, bob, gone = forgotten_on_alice(tmp_path)
    project_id = project.load_project_id(alice)
    row = make_memory(
        project_id,
        BENIGN,
        id=gone,
        scope="agent",
        agent_profile="claude-code",
        origin="claude-code",
    )
    with Store.open(alice) as store:
        pipeline.store_memory(store, row, CLAUDE)
    assert BENIGN in summaries(alice)
    reaches_bob(alice, bob, gone)


def test_a_consolidation_rewritten_over_a_forgotten_source_keeps_its_line(
    tmp_path: Path,
) -> None:
    """The one row that stands where its own id's tombstone was recorded."""
    alice = first_repo(tmp_path)
    sources = [
        ok(alice, "--json", "remember", text, "--event-type", "decision").json()["id"]
        for text in (
            "The release train leaves every second Tuesday",
            "Hotfixes skip the staging soak on weekends",
            "The billing service owns invoice numbering",
        )
    ]
    ok(alice, "consolidate", "--period-type", "manual")
    with Store.open(alice) as store:
        [summary] = [
            str(row[0])
            for row in store.conn.execute(
                "SELECT id FROM memories WHERE source_type = 'consolidation'"
            )
        ]
    ok(alice, "forget", sources[0], "--mode", "delete", "--reason", "wrong")
    entries = {entry["id"]: entry for entry in ledger_entries(alice)}
    assert entries[sources[0]]["record"] == "tombstone"
    assert entries[summary]["record"] == "memory"
    assert "release train" not in entries[summary]["summary"]
    assert "invoice numbering" in entries[summary]["summary"]


def test_a_persons_restore_brings_a_rejected_row_back_under_its_own_id(
    run_cli: CliRunner, tmp_path: Path
) -> None:
    """A store that holds the rejection (from the file's tombstone line, as a
    clone holds a teammate's) and not the row: the person's restore of the
    export brings the row back rejected, and the ledger says it as the
    tombstone it is."""
    waiting = run_cli(
        "--json", "remember", "Skip the integration tests on Fridays", environ=AGENT_ENV
    ).json()["id"]
    assert run_cli("review", "reject", waiting, "--reason", "wrong").code == 0
    exported = run_cli("export", "--include-unreviewed", "--include-superseded").out.splitlines()
    stone_lines = [line for line in exported if '"content_tombstone"' in line]
    assert len(stone_lines) >= 1
    other = tmp_path / "other"
    other.mkdir()
    run_other = cli_runner(other)
    assert run_other("init").code == 0
    (tmp_path / "stones.jsonl").write_text("\n".join(stone_lines) + "\n", encoding="utf-8")
    assert run_other("import", str(tmp_path / "stones.jsonl"), "--all-projects").code == 0
    (tmp_path / "all.jsonl").write_text("\n".join(exported) + "\n", encoding="utf-8")
    done = run_other("--json", "import", str(tmp_path / "all.jsonl"), "--restore")
    assert done.code == 0, done.err
    assert [item["id"] for item in done.json()["items"] if item["result"] == "imported"] == [
        waiting
    ]
    assert run_other("--json", "show", waiting).json()["memory"]["trust"] == "rejected"
    assert run_other("sync").code == 0
    entries = {entry["id"]: entry for entry in ledger_entries(other)}
    assert entries[waiting]["record"] == "tombstone"


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    return {"TREE_RING_USER_HOME": str(tmp_path / "me")}


def test_an_agents_import_cannot_take_the_id_of_the_persons_global_note(
    run_cli: CliRunner, project_id: str, home: dict[str, str], tmp_path: Path
) -> None:
    note = "Always run the linters before pushing any branch upstream"
    done = run_cli("--json", "remember", note, "--scope", "global", environ=home)
    assert done.code == 0, done.err
    mine = done.json()["id"]
    row = reused(mine, project_id, "agent") | {"summary": "Linting is optional"}
    path = write_lines(tmp_path / "take.jsonl", [row])
    taken = run_cli("import", str(path), environ=home | AGENT_ENV)
    assert (taken.code, taken.err) == (
        1,
        f"error: line 1: memory id {mine} names a memory of your user store (read beside "
        "this project's); omit the id or give a new one; nothing imported\n",
    )
    assert (
        run_cli("--json", "show", mine, "--user", environ=home).json()["memory"]["summary"] == note
    )


def test_a_global_row_cannot_take_the_id_of_a_project_memory(
    run_cli: CliRunner, project_id: str, home: dict[str, str], tmp_path: Path
) -> None:
    assert run_cli("remember", "A note that creates the user store", "--scope", "global",
                   environ=home).code == 0  # fmt: skip
    ours = run_cli("--json", "remember", "The release train leaves on Tuesdays").json()["id"]
    row = {"id": ours, "project": project_id, "scope": "global", "summary": "Another text"}
    path = write_lines(tmp_path / "global.jsonl", [row])
    done = run_cli("import", str(path), "--global-to", "user", environ=home)
    assert (done.code, done.err) == (
        1,
        f"error: line 1: memory id {ours} names a memory of this project (read beside your "
        "user store); omit the id or give a new one; nothing imported\n",
    )
    shown = run_cli("--json", "show", ours, environ=home).json()["memory"]
    assert shown["summary"] == "The release train leaves on Tuesdays"


def test_a_global_row_cannot_take_the_id_the_project_forgot(
    run_cli: CliRunner, project_id: str, home: dict[str, str], tmp_path: Path
) -> None:
    assert run_cli("remember", "A note that creates the user store", "--scope", "global",
                   environ=home).code == 0  # fmt: skip
    gone = run_cli("--json", "remember", "The release train leaves on Tuesdays").json()["id"]
    assert run_cli("forget", gone, "--mode", "delete", "--reason", "no").code == 0
    row = {"id": gone, "project": project_id, "scope": "global", "summary": "Other words here"}
    path = write_lines(tmp_path / "global.jsonl", [row])
    done = run_cli("import", str(path), "--global-to", "user", environ=home)
    assert (done.code, done.err) == (
        1,
        f"error: line 1: memory id {gone} names a memory this project forgot (read beside "
        "your user store); omit the id or give a new one; nothing imported\n",
    )
    assert gone not in run_cli("brief", environ=home).out
    assert run_cli("--json", "list", "--user", environ=home).json()["total"] == 1


def test_a_project_row_cannot_take_the_id_the_user_store_forgot(
    run_cli: CliRunner, project_id: str, home: dict[str, str], tmp_path: Path
) -> None:
    made = run_cli("--json", "remember", "I like short commit titles", "--scope", "global",
                   environ=home)  # fmt: skip
    gone = made.json()["id"]
    forgot = run_cli("forget", gone, "--user", "--mode", "delete", "--reason", "no", environ=home)
    assert forgot.code == 0, forgot.err
    row = {"id": gone, "project": project_id, "summary": "Other words for the project"}
    path = write_lines(tmp_path / "project.jsonl", [row])
    done = run_cli("import", str(path), environ=home)
    assert (done.code, done.err) == (
        1,
        f"error: line 1: memory id {gone} names a memory your user store forgot (read beside "
        "this project's); omit the id or give a new one; nothing imported\n",
    )
    assert run_cli("--json", "list", environ=home).json()["total"] == 0


def test_an_id_in_other_case_of_a_stored_memory_is_refused_in_either_store(
    run_cli: CliRunner, project_id: str, home: dict[str, str], tmp_path: Path
) -> None:
    # Ids whose hex digits hold letters: one of digits alone reads the same in either case.
    ours, mine = "mem_20261101_090000_abcdef012345", "mem_20261101_090000_fedcba543210"
    here = write_lines(
        tmp_path / "ours.jsonl", [{"id": ours, "summary": "The release train leaves on Tuesdays"}]
    )
    assert run_cli("import", str(here), environ=home).code == 0
    there = write_lines(tmp_path / "mine.jsonl", [
        {"id": mine, "scope": "global", "summary": "I like short commit titles"}
    ])  # fmt: skip
    assert run_cli("import", str(there), "--global-to", "user", environ=home).code == 0
    for taken, said in ((ours, "differs from a memory's id here only in letter case"),
                        (mine, "names a memory of your user store")):  # fmt: skip
        other = "mem_" + taken.removeprefix("mem_").upper()
        row = {"id": other, "project": project_id, "summary": "Other words for the project"}
        path = write_lines(tmp_path / "case.jsonl", [row])
        done = run_cli("import", str(path), environ=home)
        assert done.code == 1 and said in done.err, done.err
    assert run_cli("--json", "list", environ=home).json()["total"] == 1
    # Into the user store, a project's id in other case.
    row = {"id": "mem_" + ours.removeprefix("mem_").upper(), "project": project_id,
           "scope": "global", "summary": "Other words for me"}  # fmt: skip
    path = write_lines(tmp_path / "global.jsonl", [row])
    done = run_cli("import", str(path), "--global-to", "user", environ=home)
    assert done.code == 1 and "names a memory of this project" in done.err, done.err


def test_a_persons_tombstone_line_forgets_the_memory_it_names_here(tmp_path: Path) -> None:
    # Alice forgets a memory Bob's clone still holds, and hands Bob her export:
    # Bob's import forgets it too, so his store and the ledger he writes agree.
    alice = first_repo(tmp_path)
    origin = hub(tmp_path, alice)
    doomed = remember(alice, "The staging database password rotates every Sunday night")
    kept = remember(alice, "The changelog lives in docs/CHANGES.md")
    publish(alice, "two memories")
    bob = clone(origin, tmp_path, "bob")
    ok(bob, "sync")
    assert {doomed, kept} <= {e["id"] for e in ledger_entries(bob)}
    ok(alice, "forget", doomed, "--mode", "delete", "--reason", "not ours to keep")
    exported = tmp_path / "alice.jsonl"
    exported.write_text(ok(alice, "export").out, encoding="utf-8")
    done = ok(bob, "--json", "import", str(exported)).json()
    assert done["forgotten_here"] == [doomed]
    assert "The staging database" not in " ".join(summaries(bob))
    lines = {e["id"]: e["record"] for e in ledger_entries(bob)}
    assert lines[doomed] == "tombstone" and lines[kept] == "memory"
    again = cli(bob, "remember", "The staging database password rotates every Sunday night")
    assert again.code != 0 and "forgotten" in again.err


def test_an_agents_withdrawal_of_an_id_does_not_refuse_the_persons_row(tmp_path: Path) -> None:
    root = first_repo(tmp_path)
    pid = project.load_project_id(root)
    taken = "mem_20261201_000000_cccccccccccc"
    planted = {
        "record": "content_tombstone",
        "content_hash": "sha256:" + "2" * 64,
        "kind": "forgotten",
        "memory_id": taken,
        "project": pid,
        "reason": "x",
        "created_at": "2026-12-01T00:00:00Z",
    }
    done = cli(root, "import", str(write_lines(tmp_path / "t.jsonl", [planted])), environ=AGENT_ENV)
    assert done.code == 0, done.err
    row = {"id": taken, "project": pid, "summary": LATER}
    # The withdrawal is recorded under the id the agent's imports give
    # `taken` (`transfer/reach.derived_id`): its own withdrawal binds its
    # own later import of the id, and nothing else.
    agents = cli(root, "import", str(write_lines(tmp_path / "a.jsonl", [row])), environ=AGENT_ENV)
    derived = reach.derived_id(resolve(pid, AGENT_ENV), taken)
    assert (agents.code, agents.err.count("\n")) == (1, 1)
    assert f"memory id {derived} was forgotten here and cannot be reused" in agents.err
    assert LATER not in summaries(root)
    mine = ok(root, "--json", "import", str(write_lines(tmp_path / "p.jsonl", [row])))
    assert mine.json()["imported"] == 1 and LATER in summaries(root)


def crafted(tmp_path: Path, root: Path, made_up: str) -> Path:
    """A file of tombstone lines for FORGOTTEN under the made-up id `made_up`,
    for `root`'s project: the hashes any store gives (an export of its forget)."""
    elsewhere = first_repo(tmp_path, "elsewhere")
    gone = remember(elsewhere, FORGOTTEN)
    ok(elsewhere, "forget", gone, "--mode", "delete", "--reason", "x")
    lines = [json.loads(line) for line in ok(elsewhere, "export").out.splitlines()]
    pid = project.load_project_id(root)
    stones = [
        line | {"project": pid, "memory_id": made_up}
        for line in lines
        if line.get("record") == "content_tombstone"
    ]
    assert stones
    return write_lines(tmp_path / "crafted.jsonl", stones)


def test_a_persons_tombstone_line_holding_a_stored_memorys_content_asks(tmp_path: Path) -> None:
    root = first_repo(tmp_path)
    kept = remember(root, FORGOTTEN)
    lines = crafted(tmp_path, root, "mem_20261201_000000_dddddddddddd")
    done = ok(root, "--json", "import", str(lines)).json()
    [asked] = done["requested"]
    assert asked.startswith("req_") and done["forgotten_here"] == []
    # Nothing recorded: the memory stays here, and no tombstone reaches the ledger.
    assert FORGOTTEN in summaries(root)
    ok(root, "sync")
    assert stones(root) == [] and kept in {e["id"] for e in ledger_entries(root)}
    # The person decides: approving the request forgets it everywhere.
    ok(root, "review", "approve", asked, "--reason", "it was forgotten elsewhere")
    assert FORGOTTEN not in summaries(root)


def test_a_tombstone_line_holding_a_sentence_of_a_memorys_details_asks(tmp_path: Path) -> None:
    root = first_repo(tmp_path)
    details = f"Bump the version first. {FORGOTTEN}. Then tag the release."
    kept = ok(root, "--json", "remember", "Release checklist", "--details", details).json()["id"]
    lines = crafted(tmp_path, root, "mem_20261201_000000_eeeeeeeeeeee")
    done = ok(root, "--json", "import", str(lines)).json()
    [asked] = done["requested"]
    assert asked.startswith("req_")
    # The memory stays, and its sentence reaches no clone as a tombstone.
    ok(root, "sync")
    assert kept in {e["id"] for e in ledger_entries(root)}
    fresh = cli(root, "--json", "remember", "Checklist copy", "--details", details)
    assert fresh.code == 0, fresh.err


def test_a_tombstone_line_holding_a_global_notes_words_is_not_recorded(tmp_path: Path) -> None:
    root = first_repo(tmp_path)
    home = {"TREE_RING_USER_HOME": str(tmp_path / "me")}
    note = cli(root, "--json", "remember", FORGOTTEN, "--scope", "global", environ=home)
    assert note.code == 0, note.err
    lines = crafted(tmp_path, root, "mem_20261201_000000_ffffffffffff")
    done = cli(root, "--json", "import", str(lines), environ=home)
    assert done.code == 0, done.err
    assert done.json()["spared_notes"] == [note.json()["id"]] and done.json()["requested"] == []
    brief = cli(root, "brief", environ=home)
    assert FORGOTTEN in brief.out
    ok(root, "sync")
    assert stones(root) == []
