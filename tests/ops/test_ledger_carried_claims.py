"""Lines of records this version does not know are carried through the
ledger only when someone the store believes vouches for them: the upstream's
ledger holds them, or the store carried them before. Lines only the working
tree or a local commit added are claims: a sync leaves them out and says so
in one note, however many there are, and `doctor` names them as lines a
sync drops. A person's write over a ledger the store last wrote copies the
lines it carries through without reading them: what it reads does not grow
with their number."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from team_support import LEDGER, cli, first_repo, git, hub, ledger_check, ok, publish, remember

from tree_ring.model import project
from tree_ring.store import tombstones
from tree_ring.store.db import Store
from tree_ring.team import ledger, sync


def _newer(count: int, tag: str = "n") -> list[bytes]:
    return [json.dumps({"record": "futurething", tag: n}).encode() for n in range(count)]


def _append(root: Path, lines: list[bytes]) -> None:
    with (root / LEDGER).open("ab") as handle:
        handle.write(b"".join(raw + b"\n" for raw in lines))


def _held(root: Path, lines: list[bytes]) -> list[bytes]:
    """Those of `lines` the file holds, in the file's order."""
    wanted = set(lines)
    return [raw for raw in (root / LEDGER).read_bytes().split(b"\n") if raw in wanted]


def test_claimed_lines_are_left_out_in_one_note(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    remember(alice, "Deploys freeze on Fridays after the release branch is cut")
    count = len((alice / LEDGER).read_bytes().splitlines())
    claims = _newer(50)
    _append(alice, claims)

    check = ledger_check(alice)  # `doctor` says what the sync will do
    assert check["ok"] is False
    assert "50 line(s) a sync skips and leaves out of the ledger" in str(check["detail"])
    assert "not the upstream's nor carried before (a claim)" in str(check["detail"])

    done = cli(alice, "--json", "sync")
    assert done.code == 0, done.err
    assert done.json()["items"] == []
    assert done.json()["notes"] == [
        "50 line(s) of records this version does not know left out of the ledger: not the "
        "upstream's, nor carried before (a working-tree edit, a local commit or a local "
        f"branch's claim) (line {count + 1}: a record this version does not know, line "
        f"{count + 2}: a record this version does not know, line {count + 3}: a record "
        "this version does not know, ...)"
    ]
    assert _held(alice, claims) == []
    assert ledger_check(alice)["ok"] is True


def test_the_upstreams_lines_are_carried_and_stay_carried_off_it(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    hub(tmp_path, alice)
    remember(alice, "Deploys freeze on Fridays after the release branch is cut")
    theirs = _newer(30)
    _append(alice, theirs)
    publish(alice, "a newer teammate's lines")
    human = ok(alice, "sync").out
    assert "30 line(s) of records this version does not know kept as they stand" in human
    assert len(human.splitlines()) < 15  # a note, not a line each
    assert _held(alice, theirs) == theirs

    # A local branch has no upstream: the lines carried before stay, a new claim goes.
    git(alice, "checkout", "-q", "-b", "local-work")
    claim = _newer(1, "claimed")
    _append(alice, claim)
    remember(alice, "Staging resets every night at two")
    ok(alice, "sync")
    assert _held(alice, theirs) == theirs and _held(alice, claim) == []


def test_a_hook_read_lets_no_write_carry_a_claim(tmp_path: Path) -> None:
    """The SessionStart hook reads the changed ledger and writes nothing; a
    person's write after it finds the file as the store last saw it, and
    still carries no line the store never vouched for."""
    alice = first_repo(tmp_path)
    hub(tmp_path, alice)
    remember(alice, "Deploys freeze on Fridays after the release branch is cut")
    claims = _newer(5)
    _append(alice, claims)
    with Store.open(alice) as store:
        sync.refresh(store, alice, project.load_project_id(alice))
    remember(alice, "Staging resets every night at two")
    assert _held(alice, claims) == []


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each carried line a write reads: judged by `ledger.carries`, or read
    for forgotten words (`tombstones.quoted`)."""
    seen: list[str] = []
    carries, quoted = ledger.carries, tombstones.quoted

    def counted_carries(raw: bytes, *args: Any) -> bool:
        seen.append("carries")
        return carries(raw, *args)

    def counted_quoted(*args: Any, **kwargs: Any) -> bool:
        seen.append("quoted")
        return quoted(*args, **kwargs)

    monkeypatch.setattr(ledger, "carries", counted_carries)
    monkeypatch.setattr(tombstones, "quoted", counted_quoted)
    return seen


@pytest.mark.parametrize("count", [10, 300])
def test_a_write_reads_none_of_the_lines_it_carries_unchanged(
    tmp_path: Path, reads: list[str], count: int
) -> None:
    alice = first_repo(tmp_path)
    hub(tmp_path, alice)
    remember(alice, "Deploys freeze on Fridays after the release branch is cut")
    theirs = _newer(count)
    _append(alice, theirs)
    publish(alice, "a newer teammate's lines")
    ok(alice, "sync")
    gone = remember(alice, "A note to forget later, about the staging database")
    reads.clear()
    for n in range(3):
        remember(alice, f"Another note, number {n}, through the merge")
    assert reads == []  # however many lines it carries
    assert _held(alice, theirs) == theirs

    # A forget may hold their words: the next write reads each once, then none.
    ok(alice, "forget", gone, "--mode", "delete", "--reason", "not wanted any more")
    assert reads.count("quoted") == count
    reads.clear()
    remember(alice, "A note written after the forget")
    assert reads == [] and _held(alice, theirs) == theirs


def _edit_own_anchor(root: Path, seq: int = 5) -> None:
    path = root / LEDGER
    lines = path.read_text(encoding="utf-8").splitlines()
    for at, text in enumerate(lines):
        data = json.loads(text)
        if data.get("record") == "anchor":
            data["seq"] += seq
            data["head"] = "sha256:" + "a" * 64
            lines[at] = json.dumps(data, sort_keys=True, separators=(",", ":"))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _truncate_audit(root: Path) -> None:
    import sqlite3

    conn = sqlite3.connect(project.store_path(root))
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='trigger'").fetchall():
        if "audit" in name:
            conn.execute(f'DROP TRIGGER "{name}"')
    conn.execute("DELETE FROM audit_log WHERE seq = (SELECT max(seq) FROM audit_log)")
    conn.commit()
    conn.close()


def test_an_edited_anchor_is_a_claim_not_a_truncated_log(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    remember(alice, "Deploys freeze on Fridays after the release branch is cut")
    ok(alice, "sync")
    before = (alice / LEDGER).read_bytes()
    _edit_own_anchor(alice)

    check = ledger_check(alice)
    assert check["ok"] is True and "a claim, not checked against the audit log" in str(
        check["detail"]
    )
    done = cli(alice, "--json", "sync")
    assert done.code == 0, done.out
    assert done.json()["audit_anchor"] == "ok"
    assert any("a claim, not checked against the audit log" in n for n in done.json()["notes"])
    assert (alice / LEDGER).read_bytes() == before  # the store's own anchor, back


def test_the_upstreams_anchor_ahead_of_the_log_still_fails(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    hub(tmp_path, alice)
    remember(alice, "Deploys freeze on Fridays after the release branch is cut")
    ok(alice, "sync")
    publish(alice, "anchored")
    _truncate_audit(alice)
    _edit_own_anchor(alice, seq=-1)  # a claim in the file does not hide the upstream's line
    with Store.open(alice) as store, store.write() as db:
        state = sync.state_of(db)
        state.pop("anchor", None)  # the store's own record gone too: the upstream's line holds
        from tree_ring.store import settings

        settings.write(db, sync.SETTING, state)
    check = ledger_check(alice)
    assert check["ok"] is False and "truncated" in str(check["detail"])
    done = cli(alice, "--json", "sync")
    assert done.code == 1 and "truncated" in done.json()["audit_anchor"]
