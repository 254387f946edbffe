"""The team ledger through real git: clones, branches, merges with and without the driver."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import PERSON
from team_support import (
    LEDGER,
    cli,
    clone,
    commit,
    cut_audit,
    first_repo,
    git,
    hub,
    ledger_entries,
    ok,
    publish,
    pull,
    raw_bytes,
    remember,
    session_start,
    session_start_modules,
    shared_ids,
    summaries,
    trust_of,
)
from tree_support import remember as tree_remember
from tree_support import sentence, tune

from tree_ring.govern import coordinator
from tree_ring.model import project
from tree_ring.store.db import Store
from tree_ring.team import repository as team
from tree_ring.team import sync
from tree_ring.upkeep import consolidate

WORD = "zebracorn7731"


def test_two_people_remember_and_merge_through_the_upstream_with_the_driver(
    tmp_path: Path,
) -> None:
    alice = first_repo(tmp_path)
    base = remember(alice, "Deploys freeze on Fridays after the release branch is cut")
    commit(alice, "base memory")
    origin = hub(tmp_path, alice)
    bob = clone(origin, tmp_path, "bob")
    assert shared_ids(bob) == {base}  # init built the store from the ledger
    assert git(bob, "status", "--porcelain").stdout == ""  # and only read it

    mine = remember(alice, "Release notes are drafted in docs/releases before tagging")
    publish(alice, "alice remembers")
    theirs = remember(bob, "Integration tests need the docker network named ci-net")
    commit(bob, "bob remembers")
    pull(bob)  # both changed the ledger: the driver merges it
    assert "<<<<<<<" not in (bob / LEDGER).read_text(encoding="utf-8")
    assert ok(bob, "--json", "sync").json()["imported"] == 1  # alice's, from upstream
    publish(bob, "bob syncs")
    pull(alice)
    assert ok(alice, "--json", "sync").json()["imported"] == 1
    assert shared_ids(alice) == shared_ids(bob) == {base, mine, theirs}
    for root in (alice, bob):
        assert trust_of(root) == dict.fromkeys({base, mine, theirs}, "accepted")
    # Both sides wrote the same memory lines: the rule, not the side, decides.
    assert ledger_entries(alice) == ledger_entries(bob)
    # A second sync changes nothing.
    again = ok(alice, "--json", "sync").json()
    assert again["imported"] == 0 and again["written"] == []


def test_three_clones_merged_in_any_order_hold_the_same(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    origin = hub(tmp_path, alice)
    bob = clone(origin, tmp_path, "bob")
    carol = clone(origin, tmp_path, "carol")
    ids: set[str] = set()
    for root, text in (
        (alice, "The cache warms from the nightly snapshot"),
        (bob, "Feature flags live in config/flags.toml"),
        (carol, "The billing service owns invoice numbering"),
    ):
        ids.add(remember(root, text))
        commit(root, f"{root.name} remembers")
    for root in (carol, alice, bob):
        pull(root)
        ok(root, "sync")
        publish(root, f"{root.name} merges")
    for root in (alice, bob, carol):
        pull(root)
        ok(root, "sync")
    assert shared_ids(alice) == shared_ids(bob) == shared_ids(carol) == ids
    assert ledger_entries(alice) == ledger_entries(carol) == ledger_entries(bob)


def tree_and_consolidation_text(root: Path) -> tuple[str, str]:
    with Store.open(root) as store:
        nodes = " ".join(r[0] for r in store.conn.execute("SELECT content FROM tree_nodes"))
        summaries = " ".join(
            r[0] for r in store.conn.execute(
                "SELECT summary FROM memories WHERE source_type = 'consolidation'"
            )
        )  # fmt: skip
    return nodes, summaries


def test_a_forget_on_one_branch_beats_an_edit_on_the_other(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    doomed = ok(
        alice, "--json", "remember", f"The cache key is {WORD} for the nightly build",
        "--event-type", "decision",
    ).json()["id"]  # fmt: skip
    commit(alice, "base")
    origin = hub(tmp_path, alice)
    bob = clone(origin, tmp_path, "bob")
    # On bob's clone the memory is summarised twice over: a sealed tree node and a consolidation.
    with Store.open(bob) as store:
        tune(store, input_token_budget=16, summary_fanout=2, output_token_budget=500)
        project_id = project.load_project_id(bob)
        for i in range(3):
            tree_remember(store, project_id, sentence(i), event_type="decision")
        consolidate.consolidate(store, project_id, "manual", actor=PERSON)
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    nodes, consolidated = tree_and_consolidation_text(bob)
    assert WORD in nodes and WORD in consolidated  # the control: the scan finds it
    assert WORD.encode() in raw_bytes(bob)

    ok(alice, "forget", doomed, "--mode", "delete", "--reason", "wrong key")
    publish(alice, "alice forgets")
    newer = remember(bob, "The nightly build reads its cache key from the vault")
    ok(bob, "supersede", doomed, newer, "--reason", "moved to the vault")  # an edit of the line
    commit(bob, "bob edits")

    pull(bob)  # the driver: alice's tombstone beats bob's edited line
    done = ok(bob, "--json", "sync").json()
    assert done["forgotten"] == 1  # bob's edited row gave way to the upstream's tombstone
    publish(bob, "bob merges")
    pull(alice)
    for root in (alice, bob):
        ok(root, "sync")
        assert doomed not in shared_ids(root)
        assert not any(WORD in text for text in summaries(root))
    # On the other clone the forgotten text is gone from every table, index and file.
    assert tree_and_consolidation_text(bob) != ("", "")
    assert all(WORD not in text for text in tree_and_consolidation_text(bob))
    assert WORD.encode() not in raw_bytes(bob).lower()
    entries = {e["id"]: e for e in ledger_entries(bob)}
    assert entries[doomed]["record"] == "tombstone" and WORD not in json.dumps(entries[doomed])
    # And it cannot be written again there, under any id.
    again = cli(bob, "remember", f"The cache key is {WORD} for the nightly build")
    assert again.code != 0 and "forgotten" in again.err


def test_a_redaction_reaches_the_other_clone(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    memory_id = remember(alice, f"The cache key is {WORD} for the nightly build")
    commit(alice, "base")
    bob = clone(alice, tmp_path, "bob")
    ok(alice, "forget", memory_id, "--mode", "redact", "--reason", "wrong key")
    commit(alice, "redacted")
    pull(bob)
    assert ok(bob, "--json", "sync").json()["redacted"] == 1
    assert "[REDACTED]" in summaries(bob) and not any(WORD in t for t in summaries(bob))
    assert WORD.encode() not in raw_bytes(bob).lower()


@pytest.mark.parametrize("committed", [False, True], ids=["unfinished-merge", "markers-committed"])
def test_without_the_driver_a_text_merge_is_detected_and_doctor_repairs_it(
    tmp_path: Path, committed: bool
) -> None:
    alice = first_repo(tmp_path)
    bob = clone(alice, tmp_path, "bob", init=False)  # a clone that never ran init
    ok(bob, "sync")
    git(alice, "config", "--remove-section", "merge.tree-ring")
    git(alice, "checkout", "-q", "-b", "a")
    mine = remember(alice, "The cache warms from the nightly snapshot")
    commit(alice, "alice")
    git(bob, "checkout", "-q", "-b", "b")
    theirs = remember(bob, "Feature flags live in config/flags.toml")
    commit(bob, "bob")

    pulled = git(alice, "pull", "-q", "--no-rebase", "--no-edit", str(bob), "b", check=False)
    assert pulled.returncode != 0, pulled.stdout + pulled.stderr  # a text merge: conflicts
    assert "<<<<<<<" in (alice / LEDGER).read_text(encoding="utf-8"), pulled.stdout + pulled.stderr
    if committed:
        commit(alice, "merged with the markers in")
    refused = cli(alice, "sync")
    assert refused.code != 0 and "doctor --repair" in refused.err
    assert mine in shared_ids(alice) and theirs not in shared_ids(alice)

    found = cli(alice, "--json", "doctor").json()
    [check] = [c for c in found["items"] if c["name"] == "ledger"]
    assert not check["ok"] and "conflict" in check["detail"]
    assert check["detail"].endswith("(git's merge driver for it is not configured here)")
    if committed:  # in a clone whose git has the driver, the markers came with a pull
        git(bob, "pull", "-q", "--no-rebase", "--no-edit", str(alice), "a")
        [there] = [c for c in cli(bob, "--json", "doctor").json()["items"] if c["name"] == "ledger"]
        assert not there["ok"] and there["detail"].endswith(
            "(merged as text where git had no merge driver for it, then committed)"
        )
    repaired = ok(alice, "--json", "doctor", "--repair").json()
    [check] = [c for c in repaired["items"] if c["name"] == "ledger"]
    source = "the two sides' lines" if committed else "index stages"
    assert check["ok"] and source in check["repaired"]
    # What to do next: the sync after the push (docs/TEAM.md, "Pull requests").
    assert check["repaired"].endswith(
        "; run `git add .tree-ring/ledger.jsonl`, commit the merge and push it, then "
        "`tree-ring sync` (a sync before the push takes the lines the upstream lacks as claims)"
    )
    assert "<<<<<<<" not in (alice / LEDGER).read_text(encoding="utf-8")
    commit(alice, "resolved")
    ok(alice, "sync")
    assert {mine, theirs} <= shared_ids(alice)


def test_a_fresh_clones_first_brief_carries_the_teams_memories(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    remember(alice, "Deploys freeze on Fridays after the release branch is cut")
    commit(alice, "memory")
    fresh = clone(alice, tmp_path, "fresh", init=False)
    assert not project.store_path(fresh).exists()
    brief = session_start(fresh)
    assert "Deploys freeze on Fridays" in brief
    # The hook imported without touching the working tree.
    assert git(fresh, "status", "--porcelain").stdout == ""
    # And configured the ledger's merge driver as `init` does, in the clone's own config.
    driver = git(fresh, "config", "--local", "--get", "merge.tree-ring.driver").stdout.strip()
    assert driver == team.driver_command()
    # An unchanged ledger is not read again: the sync code does not even load.
    brief, modules = session_start_modules(fresh)
    assert "Deploys freeze on Fridays" in brief
    assert "tree_ring.team.sync" not in modules and "json" not in modules
    assert "tree_ring.team.repository" not in modules
    # A ledger that moved (a pull) is imported before the brief.
    remember(alice, "Release notes are drafted in docs/releases before tagging")
    commit(alice, "another")
    git(fresh, "pull", "-q", "--no-rebase", "--no-edit")
    brief, modules = session_start_modules(fresh)
    assert "Release notes are drafted" in brief and "tree_ring.team.sync" in modules


def test_a_persons_write_reaches_the_ledger_at_once(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    assert git(alice, "status", "--porcelain").stdout == ""
    memory_id = remember(alice, "Deploys freeze on Fridays after the release branch is cut")
    assert git(alice, "status", "--porcelain").stdout.strip() == f"M {LEDGER}"
    assert [e["id"] for e in ledger_entries(alice)] == [memory_id]
    commit(alice, "memory")
    ok(alice, "forget", memory_id, "--mode", "delete", "--reason", "stale")
    assert [e["record"] for e in ledger_entries(alice)] == ["tombstone"]


def test_a_persons_promotion_reaches_the_ledger_at_once(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    agent = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s1"}
    done = cli(alice, "--json", "remember", "The staging database resets nightly", environ=agent)
    assert done.code == 0, done.err
    memory_id = done.json()["id"]
    assert memory_id not in {e.get("id") for e in ledger_entries(alice)}  # a partition's
    ok(alice, "promote", memory_id, "--reason", "the team needs it")
    promoted = {e["summary"] for e in ledger_entries(alice) if e["record"] == "memory"}
    assert promoted == {"The staging database resets nightly"}


def test_a_store_outside_git_keeps_no_ledger(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    ok(root, "init")
    remember(root, "Deploys freeze on Fridays after the release branch is cut")
    assert not (root / LEDGER).exists()
    assert not (root / ".tree-ring" / ".gitattributes").exists()


def test_truncating_the_audit_log_shows_against_the_anchor(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    remember(alice, "Deploys freeze on Fridays after the release branch is cut")
    ok(alice, "sync")
    cut_audit(alice)
    done = cli(alice, "--json", "sync")
    assert done.code == 1 and "truncated" in done.json()["audit_anchor"]


def test_under_the_coordinated_policy_only_the_capability_imports(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    bob = clone(alice, tmp_path, "bob")
    with Store.open(bob) as store:
        token = coordinator.enable(store, "lead", PERSON).token
    memory_id = remember(alice, "Deploys freeze on Fridays after the release branch is cut")
    commit(alice, "memory")
    pull(bob)
    denied = cli(bob, "sync")
    assert denied.code != 0 and "denied" in denied.err
    assert memory_id not in shared_ids(bob)
    allowed = cli(bob, "sync", environ={coordinator.TOKEN_VAR: token})
    assert allowed.code == 0, allowed.err
    assert memory_id in shared_ids(bob)


def test_after_write_says_whether_the_ledger_took_the_write(tmp_path: Path) -> None:
    from helpers import make_memory

    from tree_ring.team import sync
    from tree_ring.write import pipeline

    alice = first_repo(tmp_path)
    first = remember(alice, "Deploys freeze on Fridays after the release branch is cut")
    pid = project.load_project_id(alice)
    with Store.open(alice) as store:
        # A write the ledger has not seen (not through the CLI): merged in, True.
        memory = make_memory(pid, "The staging database resets nightly at two")
        second = pipeline.store_memory(store, memory, PERSON).id
        assert sync.after_write(store, alice, pid) is True
        assert {e["id"] for e in ledger_entries(alice)} == {first, second}
        # Nothing new: the ledger already holds it all.
        assert sync.after_write(store, alice, pid) is False
        (alice / LEDGER).unlink()
        assert sync.after_write(store, alice, pid) is False  # no ledger: none made
        assert not (alice / LEDGER).exists()


def test_sync_refuses_an_empty_store_as_every_command_does(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    remember(alice, "Deploys freeze on Fridays after the release branch is cut")
    path = project.store_path(alice)
    path.write_bytes(b"")
    ledger = (alice / LEDGER).read_bytes()
    git(alice, "config", "--unset", "merge.tree-ring.driver")
    message = (
        f"the store at {path} is empty (truncated?); restore it from a backup, "
        "or delete it and run `tree-ring init`"
    )
    assert cli(alice, "status").err == f"error: {message}\n"
    for argv in (("sync",), ("sync", "--setup")):
        done = cli(alice, *argv)
        assert (done.code, done.out, done.err) == (1, "", f"error: {message}\n")
        done = cli(alice, "--json", *argv)
        assert (done.code, done.out) == (1, "")
        assert json.loads(done.err)["error"] == {
            "code": "store_fault",
            "exit": 1,
            "message": message,
        }
    assert path.stat().st_size == 0 and (alice / LEDGER).read_bytes() == ledger
    assert not team.driver_configured(alice)
    # Deleted, as the message says: sync builds the store again from the ledger.
    path.unlink()
    ok(alice, "sync")
    assert summaries(alice) == {"Deploys freeze on Fridays after the release branch is cut"}


def test_a_fresh_clones_first_sync_configures_the_merge_driver(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    remember(alice, "Deploys freeze on Fridays after the release branch is cut")
    commit(alice, "memory")
    fresh = clone(alice, tmp_path, "fresh", init=False)
    assert not team.driver_configured(fresh)
    done = ok(fresh, "sync")
    assert f"note:       {sync.DRIVER_NOTE}" in done.out.splitlines()
    driver = git(fresh, "config", "--local", "--get", "merge.tree-ring.driver").stdout.strip()
    assert driver == team.driver_command()
    # Only the clone's config: of the working tree, sync writes the ledger alone.
    assert git(fresh, "status", "--porcelain").stdout in ("", " M .tree-ring/ledger.jsonl\n")
    assert summaries(fresh) == {"Deploys freeze on Fridays after the release branch is cut"}
    # Set once: a later sync says nothing of it, and one the person unset stays unset.
    git(fresh, "config", "--unset", "merge.tree-ring.driver")
    assert sync.DRIVER_NOTE not in ok(fresh, "sync").out
    assert not team.driver_configured(fresh)
    # doctor fails on it (every merge that changed the ledger on both sides
    # would conflict), and a person's repair configures it again.
    doctor = cli(fresh, "--json", "doctor")
    [check] = [c for c in doctor.json()["items"] if c["name"] == "ledger"]
    assert doctor.code == 1 and (check["ok"], check["repairable"]) == (False, True)
    assert check["detail"].endswith(
        "; merge driver not configured, so git merges the ledger as text and a merge that "
        "changed it on both sides conflicts (`doctor --repair` or `init` configures it)"
    )
    repaired = cli(fresh, "--json", "doctor", "--repair")
    [check] = [c for c in repaired.json()["items"] if c["name"] == "ledger"]
    assert repaired.code == 0 and check["ok"]
    assert check["repaired"] == "configured git's merge driver for the ledger in this clone"
    assert team.driver_configured(fresh)


def test_a_merge_driver_left_pointing_at_a_moved_plugin_is_named_and_pointed_again(
    tmp_path: Path,
) -> None:
    """A plugin updated or moved since `init` leaves git's driver running an
    entry that is gone: git fails to run it and merges the ledger as text.
    `doctor` says so, and a person's `sync` points it at this plugin again."""
    alice = first_repo(tmp_path)
    gone = "/nowhere/tree-ring/0.0.9/bin/tree-ring"
    git(alice, "config", "merge.tree-ring.driver", f"python3 -I -S {gone} merge-driver %O %A %B %P")
    doctor = cli(alice, "--json", "doctor")
    [check] = [c for c in doctor.json()["items"] if c["name"] == "ledger"]
    assert doctor.code == 1 and not check["ok"]
    assert f"merge driver runs {gone}, which is gone, so git merges" in check["detail"]
    done = ok(alice, "sync")
    assert f"note:       {sync.DRIVER_NOTE}" in done.out.splitlines()
    driver = git(alice, "config", "--local", "--get", "merge.tree-ring.driver").stdout.strip()
    assert driver == team.driver_command()
    [check] = [c for c in ok(alice, "--json", "doctor").json()["items"] if c["name"] == "ledger"]
    assert "merge driver" not in check["detail"]
    assert sync.DRIVER_NOTE not in ok(alice, "sync").out


@pytest.mark.parametrize(
    ("command", "said"),
    [
        ("true {entry} %O %A %B %P", "but does not run its merge-driver"),
        ("true {entry} merge-driver %O %A %B %P", "but runs true"),
        ("echo python3 -I -S {entry} merge-driver %O %A %B %P", "but runs echo"),
        ("python3 -I -S {entry} status %O %A %B %P", "but does not run its merge-driver"),
    ],
)
def test_a_merge_driver_naming_the_entry_without_running_it_is_named_and_pointed_again(
    tmp_path: Path, command: str, said: str
) -> None:
    """`true .../bin/tree-ring`: the entry is there, the driver is not, and a
    merge would keep one side's ledger whole."""
    alice = first_repo(tmp_path)
    entry = team.driver_command().split(" -I -S ")[1].split(" merge-driver")[0]
    git(alice, "config", "merge.tree-ring.driver", command.format(entry=entry))
    doctor = cli(alice, "--json", "doctor")
    [check] = [c for c in doctor.json()["items"] if c["name"] == "ledger"]
    assert doctor.code == 1 and not check["ok"]
    assert said in check["detail"]
    ok(alice, "sync")
    driver = git(alice, "config", "--local", "--get", "merge.tree-ring.driver").stdout.strip()
    assert driver == team.driver_command()
