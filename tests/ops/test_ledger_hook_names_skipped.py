"""The SessionStart hook names each team ledger line it read and skipped,
as `sync` names it (`.tree-ring/ledger.jsonl:LINE: reason`), on stderr:
the full pass every line a sync skips, the pass over the change alone the
memory, tombstone and redaction lines it checks, numbered by their line in
the file. A line the change alone cannot read as one (not JSON, say) it
passes over unread, and names nothing of it."""

from __future__ import annotations

import json
from pathlib import Path

from team_support import LEDGER, cli, clone, first_repo, hub, ok, publish, run_session_start

from tree_ring.model import project
from tree_ring.store.db import Store
from tree_ring.team import ledger_delta, ledger_refresh

# Assembled, so no scanner of this repository mistakes the test value for a key.
SECRET = "sk-" + "proj-" + "Zq8Lm2Xv9Rt4Wy7Kp3Nb6Hd1Fs5Gj0Ac"
MALFORMED = '{"record": "memory", "id": '


def team(tmp_path: Path) -> Path:
    """Alice's team on a hub, and Bob's clone of it, synced: Bob's."""
    alice = first_repo(tmp_path)
    for text in ("Releases are cut from the release branch only", "Staging resets nightly"):
        ok(alice, "remember", text, "--event-type", "decision")
    origin = hub(tmp_path, alice)
    publish(alice, "the team's memory")
    return clone(origin, tmp_path, "bob")


def edit(root: Path) -> tuple[set[int], int]:
    """Bob's edit of the working tree: among the ledger's lines, lines a
    sync skips, one of them no JSON, and a claim it takes. (The numbers of
    the lines a sync skips that are memory lines, the malformed line's.)"""
    lines = (root / LEDGER).read_text(encoding="utf-8").splitlines()
    good = next(d for d in map(json.loads, lines) if d["record"] == "memory")

    def row(letter: str, summary: str, **changes: object) -> str:
        data = {**good, "id": f"mem_20260101_000000_{letter * 12}", "summary": summary}
        return json.dumps({**data, **changes}, sort_keys=True)

    bad = [
        row("a", f"The deploy token is {SECRET}"),
        row("c", "Another team's rule", project="other-1234"),
        row("d", "Written later", updated_at="2999-01-01T00:00:00.000000Z"),
    ]
    fine = row("f", "The staging database is rebuilt on Mondays")
    edited = [lines[0], bad[0], lines[1], MALFORMED, bad[1], fine, *lines[2:], bad[2]]
    (root / LEDGER).write_text("".join(line + "\n" for line in edited), encoding="utf-8")
    return {n for n, line in enumerate(edited, start=1) if line in bad}, edited.index(MALFORMED) + 1


def hook_pass(root: Path) -> tuple[str, list[str]]:
    notes: list[str] = []
    with Store.open(root) as store:
        said = ledger_refresh.refresh(store, str(root), project.load_project_id(root), notes)
    return said, notes


def sync_named(root: Path) -> set[str]:
    done = cli(root, "--json", "sync")
    assert done.code == 0, done.err
    return {f"{LEDGER}:{item['line']}: {item['reason']}" for item in done.json()["items"]}


def numbers(named: set[str] | list[str]) -> set[int]:
    return {int(line.removeprefix(f"{LEDGER}:").split(":", 1)[0]) for line in named}


def test_the_change_alone_names_the_lines_it_checks_by_their_number(tmp_path: Path) -> None:
    bob = team(tmp_path)
    skipped, malformed = edit(bob)
    said, notes = hook_pass(bob)
    assert said == "applied"
    assert numbers(notes) == skipped
    assert SECRET not in "\n".join(notes)
    # As the sync names them, less the line the change alone does not read.
    named = sync_named(bob)
    assert numbers(named) == skipped | {malformed}
    assert set(notes) == {line for line in named if not line.startswith(f"{LEDGER}:{malformed}:")}


def test_a_line_named_once_is_not_named_again(tmp_path: Path) -> None:
    bob = team(tmp_path)
    edit(bob)
    hook_pass(bob)
    with (bob / LEDGER).open("a", encoding="utf-8") as handle:
        handle.write("\n")  # the file moved; its lines did not
    assert hook_pass(bob) == ("seen", [])


def test_the_full_pass_names_every_line_a_sync_skips(tmp_path: Path) -> None:
    bob = team(tmp_path)
    skipped, malformed = edit(bob)
    with Store.open(bob) as store:  # nothing kept beside the store to compare with
        Path(str(store.db.path) + ledger_delta.SIDE).unlink()
    said, notes = hook_pass(bob)
    assert said == "full"
    assert numbers(notes) == skipped | {malformed}
    assert set(notes) == sync_named(bob)


def test_past_five_lines_the_rest_are_counted(tmp_path: Path) -> None:
    bob = team(tmp_path)
    with (bob / LEDGER).open("a", encoding="utf-8") as handle:
        handle.write("".join(f"not json {n}\n" for n in range(8)))
    with Store.open(bob) as store:
        Path(str(store.db.path) + ledger_delta.SIDE).unlink()
    said, notes = hook_pass(bob)
    assert said == "full"
    assert len(notes) == 6
    assert notes[5] == f"3 more line(s) of {LEDGER} not taken; `tree-ring sync` lists them"


def test_the_hook_says_them_on_stderr(tmp_path: Path) -> None:
    bob = team(tmp_path)
    skipped, _ = edit(bob)
    done = run_session_start(bob)
    said = done.stderr.decode().splitlines()
    prefix = "tree-ring hook (claude-code): team ledger: "
    assert all(line.startswith(prefix) for line in said), said
    assert numbers([line.removeprefix(prefix) for line in said]) == skipped
    assert "hookSpecificOutput" in json.loads(done.stdout)
