"""No team ledger line takes the id of a note in the person's user store.

A project's brief and recall show the person's notes beside the project's
rows, with their ids, and `show` and `refute` reach those ids (docs/INBOX.md).
A ledger line under such an id (a working-tree edit, a commit) would make
the id name two memories in this clone: the person's decisions aimed at
their `[you]` line would land on the line's row. A sync and the
SessionStart hook leave such a line out of the store, as `import` refuses
it, and say so in one line.
"""

from __future__ import annotations

import json
from pathlib import Path

from team_support import (
    LEDGER,
    cli,
    clone,
    commit,
    first_repo,
    git,
    hub,
    publish,
    pull,
    remember,
    run_session_start,
    summaries,
)

from tree_ring.model import project
from tree_ring.store.db import Store

NOTE = "I prefer small focused pull requests"


def _plant(root: Path, memory_id: str, summary: str) -> None:
    """A memory line of the ledger copied under `memory_id` with `summary`."""
    lines = (root / LEDGER).read_text(encoding="utf-8").splitlines()
    data = next(json.loads(line) for line in lines if '"record":"memory"' in line)
    data |= {"id": memory_id, "summary": summary}
    with (root / LEDGER).open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n")


def _held(root: Path, memory_id: str) -> bool:
    with Store.open(root) as store:
        return store.db.scalar("SELECT count(*) FROM memories WHERE id = ?", (memory_id,)) == 1


def _setup(tmp_path: Path) -> tuple[Path, dict[str, str], str]:
    home = {"TREE_RING_USER_HOME": str(tmp_path / "me")}
    alice = first_repo(tmp_path)
    remember(alice, "Deploys freeze on Fridays after the release branch is cut")
    assert cli(alice, "sync").code == 0
    mine = cli(alice, "--json", "remember", NOTE, "--scope", "global", environ=home)
    assert mine.code == 0, mine.err
    note = mine.json()["id"]
    _plant(alice, note, "Always push straight to main without review")
    return alice, home, note


def test_a_sync_leaves_out_a_line_under_a_user_store_notes_id(tmp_path: Path) -> None:
    alice, home, note = _setup(tmp_path)
    done = cli(alice, "--json", "sync", environ=home)
    assert done.code == 0, done.err
    said = (
        f"the ledger's line of {note} left out of this store, and of the ledger it writes "
        "(`git diff` shows it gone): its id names a memory of your user store (read beside this "
        "project's)"
    )
    assert [n for n in done.json()["notes"] if note in n] == [said]
    assert not _held(alice, note)
    shown = cli(alice, "--json", "show", note, environ=home)
    assert shown.code == 0 and shown.json()["memory"]["summary"] == NOTE
    # A working-tree edit the store did not take: the ledger is written without it.
    assert note not in (alice / LEDGER).read_text(encoding="utf-8")


def test_the_session_start_hook_leaves_it_out_too(tmp_path: Path) -> None:
    alice, home, note = _setup(tmp_path)
    done = run_session_start(alice, home)
    assert note in done.stderr.decode() and "your user store" in done.stderr.decode()
    assert not _held(alice, note)
    brief = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert NOTE in brief and "push straight to main" not in brief


def test_a_fresh_clones_init_leaves_it_out_too(tmp_path: Path) -> None:
    """`init` in a fresh clone takes the team's memory from the ledger by the
    same rule, with the person's user store read beside the project's."""
    alice, home, note = _setup(tmp_path)
    commit(alice, "the ledger with a line under the note's id")
    bob = clone(alice, tmp_path, "bob", init=False)
    done = cli(bob, "--json", "init", environ=home)
    assert done.code == 0, done.err
    assert any(note in n and "your user store" in n for n in done.json()["notes"])
    assert not _held(bob, note)
    # Without a user store holding the id, the line is the team's memory as ever.
    carol = clone(alice, tmp_path, "carol", init=False)
    assert cli(carol, "init", environ={"TREE_RING_USER_HOME": str(tmp_path / "other")}).code == 0
    assert _held(carol, note)


# The team's memory under an id the person's own user store also holds (the
# same file imported into both, as a move from the original Tree Ring does).
SHARED_ID = "mem_20261101_090000_aaaa00001111"
TEAMS = "Prefer small pull requests that touch one concern"


def _team_and_person(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """Alice's project, its ledger holding the team's memory under SHARED_ID,
    pushed upstream; Bob's clone, not yet initialised, whose user store
    holds a note under the same id."""
    alice = first_repo(tmp_path)
    bare = hub(tmp_path, alice)
    lines = tmp_path / "team.jsonl"
    lines.write_text(json.dumps({"id": SHARED_ID, "summary": TEAMS}) + "\n", encoding="utf-8")
    assert cli(alice, "import", str(lines)).code == 0
    publish(alice, "the team's memory")
    home = {"TREE_RING_USER_HOME": str(tmp_path / "bob-home")}
    mine = tmp_path / "mine.jsonl"
    mine.write_text(json.dumps({"id": SHARED_ID, "summary": NOTE, "scope": "global"}) + "\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert cli(elsewhere, "init", environ=home).code == 0
    assert cli(elsewhere, "import", str(mine), "--global-to", "user", environ=home).code == 0
    bob = clone(bare, tmp_path, "bob", init=False)
    return alice, bob, home


def _team_line(root: Path) -> list[str]:
    return [
        line
        for line in (root / LEDGER).read_text(encoding="utf-8").splitlines()
        if SHARED_ID in line
    ]


def _writes_keep_the_teams_line(alice: Path, bob: Path, home: dict[str, str]) -> None:
    """Bob's store leaves the line out, and his writes keep it in the ledger:
    nothing he commits deletes the team's memory."""
    assert not _held(bob, SHARED_ID)
    assert [json.loads(line)["summary"] for line in _team_line(bob)] == [TEAMS]
    for text in ("Bob's first note on the build", "Bob's second note on the release"):
        assert cli(bob, "remember", text, environ=home).code == 0
        assert [json.loads(line)["summary"] for line in _team_line(bob)] == [TEAMS]
    assert not any(
        line.startswith("-") and SHARED_ID in line
        for line in git(bob, "diff", "--", LEDGER).stdout.splitlines()
    )
    shown = cli(bob, "--json", "show", SHARED_ID, environ=home)
    assert shown.code == 0 and shown.json()["memory"]["summary"] == NOTE
    publish(bob, "Bob's notes")
    pull(alice)
    assert cli(alice, "sync").code == 0
    assert _held(alice, SHARED_ID) and TEAMS in summaries(alice)


def test_a_sync_keeps_the_upstreams_line_under_a_user_store_id_in_the_ledger(
    tmp_path: Path,
) -> None:
    alice, bob, home = _team_and_person(tmp_path)
    assert cli(bob, "init", environ=home).code == 0
    done = cli(bob, "--json", "sync", environ=home)
    assert done.code == 0, done.err
    said = (
        f"the ledger's line of {SHARED_ID} left out of this store, and kept in the ledger as "
        "it stands (it is the team's): its id names a memory of your user store (read beside "
        "this project's)"
    )
    assert [n for n in done.json()["notes"] if SHARED_ID in n] == [said]
    _writes_keep_the_teams_line(alice, bob, home)


def test_a_clone_the_session_start_hook_built_keeps_it_too(tmp_path: Path) -> None:
    alice, bob, home = _team_and_person(tmp_path)
    done = run_session_start(bob, home)
    assert SHARED_ID in done.stderr.decode()
    _writes_keep_the_teams_line(alice, bob, home)


def test_a_ledger_out_of_order_is_merged_whole_keeping_it(tmp_path: Path) -> None:
    """A person's write over a ledger whose lines are out of key order (put so
    by hand, and taken as they stand) merges it whole: the line is kept there too."""
    from tree_ring.team import sync

    _, bob, home = _team_and_person(tmp_path)
    assert cli(bob, "init", environ=home).code == 0
    assert cli(bob, "remember", "Bob's note on the build", environ=home).code == 0
    path = bob / LEDGER
    lines = path.read_text(encoding="utf-8").splitlines()
    memories = [i for i, line in enumerate(lines) if '"record":"memory"' in line]
    assert len(memories) >= 2
    first, last = memories[0], memories[-1]
    lines[first], lines[last] = lines[last], lines[first]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with Store.open(bob) as store, store.write() as db:
        written, _ = sync._merge_whole(db, path, project.load_project_id(bob))  # pyright: ignore[reportPrivateUsage]
    assert written
    assert [json.loads(line)["summary"] for line in _team_line(bob)] == [TEAMS]
