"""A forget racing a teammate's write: Alice forgets a memory whose words
Bob's memory holds, written before her tombstone reached him. Bob's store
keeps his memory; every clone built from the ledger refuses it. `doctor`
in Bob's clone says so for every memory a clone would hold live (an agent's
dispute does not stop its line from travelling), and again when the copy a
re-admission made stands beside it. Re-admitted as it stands (`review readmit`, or
a `remember --override-tombstone` of its own words), the memory itself
travels: every clone takes it, and the ledger settles."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from governance_support import CLAUDE, query
from team_support import (
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
    remember,
    settled,
    shared_ids,
)

from tree_ring.model import project
from tree_ring.team import ledger_check as ledger_lines

TEXT = "Alpha bravo charlie delta echo"


def _raced(tmp_path: Path, *, disputed: bool = False) -> tuple[Path, str, Path]:
    """Bob's clone after Alice's forget of TEXT reached it, his memory holding
    TEXT in its details: (Bob's root, his memory's id, the team's remote)."""
    alice = first_repo(tmp_path)
    shared = hub(tmp_path, alice)
    forgotten = remember(alice, TEXT)
    publish(alice, "a memory")
    bob = clone(shared, tmp_path, "bob")
    his = ok(bob, "--json", "remember", "Bob one", "--details", TEXT).json()["id"]
    if disputed:
        refuted = cli(bob, "refute", his, "--reason", "looks wrong", environ=CLAUDE)
        assert refuted.code == 0, refuted.err
    publish(bob, "his memory")
    # Alice forgets before she has Bob's memory: her tombstone holds its words.
    ok(alice, "forget", forgotten, "--mode", "delete", "--reason", "never store this")
    commit(alice, "forget it")
    pull(alice)
    ok(alice, "sync")
    publish(alice, "synced")
    pull(bob)
    ok(bob, "sync")
    assert his in shared_ids(bob)
    return bob, his, shared


def _refuses(check: dict[str, object], memory_id: str) -> bool:
    return check["ok"] is False and f"refuse 1 memory(ies) this store keeps ({memory_id})" in str(
        check["detail"]
    )


def test_doctor_names_the_teammates_memory_a_fresh_clone_drops(tmp_path: Path) -> None:
    bob, his, shared = _raced(tmp_path)
    assert _refuses(ledger_check(bob), his)
    fresh = clone(shared, tmp_path, "fresh")
    assert his not in shared_ids(fresh)


def test_a_memory_an_agent_disputed_still_counts(tmp_path: Path) -> None:
    bob, his, _ = _raced(tmp_path, disputed=True)
    assert _refuses(ledger_check(bob), his)


def test_a_copy_beside_it_leaves_it_named_until_it_is_re_admitted(tmp_path: Path) -> None:
    """Every clone but this one drops its line, which this one writes back at
    every sync: the same words under another id settle nothing."""
    bob, his, _ = _raced(tmp_path)
    # The same words in another scope: a copy, waiting for review.
    again = cli(
        bob, "--json", "remember", "Bob one", "--details", TEXT, "--scope", "manual",
        "--override-tombstone", "--reason", "kept on purpose",
    )  # fmt: skip
    assert again.code == 0, again.err
    copy = again.json()["id"]
    assert copy != his and again.json()["created"] is True
    ok(bob, "review", "approve", copy, "--reason", "checked")
    assert _refuses(ledger_check(bob), his)
    ok(bob, "review", "readmit", his, "--reason", "kept on purpose")
    assert ledger_check(bob)["ok"] is True


def test_an_expired_memory_costs_no_clone_anything(tmp_path: Path) -> None:
    bob, his, _ = _raced(tmp_path)
    expire(bob, his)
    assert ledger_check(bob)["ok"] is True


def test_re_admitting_the_kept_memory_lets_every_clone_take_it(tmp_path: Path) -> None:
    bob, his, shared = _raced(tmp_path)
    done = ok(bob, "--json", "review", "readmit", his, "--reason", "Bob's note stays").json()
    assert (done["id"], done["readmitted"], done["trust"]) == (his, True, "accepted")
    assert ledger_check(bob)["ok"] is True
    publish(bob, "re-admitted")
    alice = tmp_path / "alice"
    pull(alice)
    ok(alice, "sync")
    assert his in shared_ids(alice)
    publish(alice, "took it")
    fresh = clone(shared, tmp_path, "fresh")
    assert his in shared_ids(fresh) and ledger_check(fresh)["ok"] is True
    # No line flips between the clones that kept it and those that took it.
    settled(bob, alice, fresh)


@pytest.mark.parametrize("how", ["readmit", "override"])
def test_the_ledger_and_its_history_are_read_before_the_write_begins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """Reading the team's tombstones asks git for the ledger's history: no
    other writer of the store waits for it (each takes the store's write
    lock while it runs)."""
    bob, his, _ = _raced(tmp_path)
    read = ledger_lines.refusals
    free: list[bool] = []

    def taking_the_lock(root: Path) -> list[dict[str, str]]:
        other = sqlite3.connect(project.store_path(bob), timeout=0)
        try:
            other.execute("BEGIN IMMEDIATE")
            other.rollback()
            free.append(True)
        except sqlite3.OperationalError:
            free.append(False)
        finally:
            other.close()
        return read(root)

    monkeypatch.setattr(ledger_lines, "refusals", taking_the_lock)
    if how == "readmit":
        ok(bob, "review", "readmit", his, "--reason", "Bob's note stays")
    else:
        ok(bob, "remember", "Bob one", "--details", TEXT, "--override-tombstone", "--reason", "x")
    assert free == [True]


def test_its_own_words_over_the_tombstone_re_admit_it_and_make_no_copy(
    tmp_path: Path,
) -> None:
    bob, his, shared = _raced(tmp_path)
    before = shared_ids(bob)
    done = ok(
        bob, "--json", "remember", "Bob one", "--details", TEXT,
        "--override-tombstone", "--reason", "Bob's note stays",
    ).json()  # fmt: skip
    assert (done["id"], done["created"], done["readmitted"]) == (his, False, True)
    assert shared_ids(bob) == before
    publish(bob, "re-admitted")
    assert his in shared_ids(clone(shared, tmp_path, "fresh"))


def test_only_a_person_re_admits_and_only_a_kept_memory_a_tombstone_refuses(
    tmp_path: Path,
) -> None:
    bob, his, _ = _raced(tmp_path)
    other = remember(bob, "Deploys freeze on Fridays after the release branch is cut")
    # An agent's note holding the forgotten words, in its own partition.
    partition = cli(
        bob, "--json", "remember", f"An older page of the runbook says {TEXT}", environ=CLAUDE
    ).json()["id"]
    refused = {
        "partition": cli(bob, "review", "readmit", partition, "--reason", "x"),
        "agent": cli(bob, "review", "readmit", his, "--reason", "x", environ=CLAUDE),
        "no reason": cli(bob, "review", "readmit", his),
        "unrefused": cli(bob, "review", "readmit", other, "--reason", "x"),
        "unknown": cli(
            bob, "review", "readmit", "mem_20260101_000000_000000000000", "--reason", "x"
        ),
    }
    ok(bob, "refute", his, "--reason", "wrong after all")
    refused["retired"] = cli(bob, "review", "readmit", his, "--reason", "x")
    for name, run in refused.items():
        assert run.code != 0 and run.out == "" and run.err.count("\n") == 1, (name, run.err)
    assert "person's decision" in refused["agent"].err
    assert "no tombstone here or in the team ledger refuses" in refused["unrefused"].err
    assert "no longer kept" in refused["retired"].err
    assert "partition, which never travels" in refused["partition"].err
    readmissions = cli(bob, "--json", "audit", "log").json()["items"]
    assert not [e for e in readmissions if e.get("action") == "tombstone-override"]


FORGOTTEN = "The legacy billing cron job runs at midnight UTC daily"


def test_a_re_admissions_reason_carries_no_forgotten_words(tmp_path: Path) -> None:
    """The reason travels in the memory's line to every clone: one quoting
    what the project forgot is refused, and words forgotten after it was
    given are withheld from the line, as every read withholds them."""
    bob, his, _ = _raced(tmp_path)
    ok(bob, "forget", remember(bob, FORGOTTEN), "--mode", "delete", "--reason", "retired job")
    quoting = f"kept, unlike the note that said {FORGOTTEN.lower()}"
    for argv in (
        ("review", "readmit", his, "--reason", quoting),
        ("remember", "Bob one", "--details", TEXT, "--override-tombstone", "--reason", quoting),
    ):
        refused = cli(bob, *argv)
        assert refused.code == 2 and refused.err.count("\n") == 1, refused.err
        assert "holds content this project forgot" in refused.err
    assert not [e for e in ledger_entries(bob) if "readmitted" in e]
    later = "The nightly export goes to the cold bucket at two"
    ok(bob, "review", "readmit", his, "--reason", f"kept: {later}")
    [line] = [e for e in ledger_entries(bob) if e.get("id") == his]
    assert line["readmitted"]["reason"] == f"kept: {later}"
    ok(bob, "forget", remember(bob, later), "--mode", "delete", "--reason", "moved")
    [line] = [e for e in ledger_entries(bob) if e.get("id") == his]
    assert line["readmitted"]["reason"] == "kept: [withheld: forgotten content]"
    exported = [json.loads(row) for row in cli(bob, "export").out.splitlines()]
    [row] = [r for r in exported if r.get("id") == his]
    assert row["readmitted"]["reason"] == "kept: [withheld: forgotten content]"


def test_a_reason_a_clone_takes_keeps_none_of_what_it_forgot(tmp_path: Path) -> None:
    """A line written before a forget reached its clone quotes what the
    team then forgot (Bob re-admits, quoting Alice's note, while Alice
    forgets it; git merges the two): a new clone takes the re-admission
    with those words withheld, in its audit log and its ledger line."""
    bob, his, _ = _raced(tmp_path)
    alice = tmp_path / "alice"
    note = remember(alice, FORGOTTEN)
    publish(alice, "a note")
    ok(alice, "forget", note, "--mode", "delete", "--reason", "retired job")
    commit(bob, "synced")
    pull(bob)
    ok(bob, "sync")
    ok(bob, "review", "readmit", his, "--reason", f"kept, as {FORGOTTEN.lower()}")
    publish(bob, "re-admitted")
    commit(alice, "forgotten")
    pull(alice)  # the merge driver, no sync: Bob's line as he wrote it
    git(alice, "push", "-q")
    fresh = clone(tmp_path / "alice-hub.git", tmp_path, "fresh")
    assert his in shared_ids(fresh)
    details = [str(row[0]) for row in query(fresh, "SELECT detail FROM audit_log")]
    assert not [d for d in details if "billing cron" in d.lower()]
    ok(fresh, "sync")
    [line] = [e for e in ledger_entries(fresh) if e.get("id") == his]
    assert line["readmitted"]["reason"] == "kept, as [withheld: forgotten content]"


def test_a_re_admission_reason_in_the_file_quoting_what_this_store_forgot_is_named(
    tmp_path: Path,
) -> None:
    """A teammate who had not taken a forget yet writes their line of a
    re-admitted memory with its reason as it was; a merge, or a fresh clone
    of the upstream, leaves it in the file. Every store withholds the words;
    `doctor` names the line and says `sync` writes it without them."""
    alice = first_repo(tmp_path)
    forgotten_words = "Ops uses the zebra crossing ritual for rollbacks"
    forgotten = remember(alice, forgotten_words)
    kept = remember(alice, "Rollbacks go through the release channel")
    ok(alice, "forget", forgotten, "--mode", "delete", "--reason", "not ours")
    path = alice / ".tree-ring" / "ledger.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    [at] = [i for i, raw in enumerate(lines) if f'"id":"{kept}"' in raw]
    data = json.loads(lines[at])
    data["readmitted"] = {
        "at": data["updated_at"],
        "by": "person",
        "overrides": [data["content_hash"]],
        "reason": f"keep it: {forgotten_words}",
    }
    lines[at] = json.dumps(data, separators=(",", ":"), sort_keys=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    check = ledger_check(alice)
    assert check["ok"] is False
    assert str(check["detail"]).startswith(
        f".tree-ring/ledger.jsonl holds 1 line(s) whose re-admission reason quotes words this "
        f"store forgot ({kept}): "
    )
    assert forgotten_words not in str(check["detail"])
    ok(alice, "sync")
    assert "zebra" not in path.read_text(encoding="utf-8")
    assert ledger_check(alice)["ok"] is True


def test_a_teammates_newer_line_merged_by_the_driver_keeps_forgotten_words_out(
    tmp_path: Path,
) -> None:
    """Bob, who has not taken Alice's forget of Z, makes his line of a
    memory re-admitted with a reason quoting Z newer (a dispute and an
    approval), then pulls and pushes without a sync: the driver keeps his
    line, with Z's words withheld, as Alice's tombstone of Z is in the
    merged file; the upstream and a fresh clone of it never hold them."""
    alice = first_repo(tmp_path)
    shared = hub(tmp_path, alice)
    words = "The staging password rotation uses the purple walrus procedure"
    quoted = "Ops uses the zebra crossing ritual for rollbacks"
    first = remember(alice, words)
    z = remember(alice, quoted)
    publish(alice, "two memories")
    ok(alice, "forget", first, "--mode", "delete", "--reason", "leaked")
    again = ok(alice, "--json", "remember", words, "--override-tombstone", "--reason",
               f"keep it: {quoted}").json()["id"]  # fmt: skip
    ok(alice, "review", "approve", again)
    publish(alice, "re-admitted")
    bob = clone(shared, tmp_path, "bob")
    assert again in shared_ids(bob)
    ok(alice, "forget", z, "--mode", "delete", "--reason", "not ours")
    publish(alice, "forgot Z")
    ok(bob, "review", "dispute", again, "--reason", "checking")
    ok(bob, "review", "approve", again)
    [mine] = [e for e in ledger_entries(bob) if e.get("id") == again]
    assert quoted in mine["readmitted"]["reason"]
    commit(bob, "approved")
    pull(bob)  # the merge driver, both sides moved; no sync after it
    git(bob, "push", "-q")
    upstream = git(bob, "show", "origin/main:.tree-ring/ledger.jsonl").stdout
    assert "zebra" not in upstream
    [line] = [json.loads(raw) for raw in upstream.splitlines() if f'"id":"{again}"' in raw]
    assert line["updated_at"] == mine["updated_at"]
    assert line["readmitted"]["reason"] == "keep it: [withheld: forgotten content]"
    fresh = clone(shared, tmp_path, "fresh")
    assert "zebra" not in (fresh / ".tree-ring" / "ledger.jsonl").read_text(encoding="utf-8")
    assert ledger_check(fresh)["ok"] is True
