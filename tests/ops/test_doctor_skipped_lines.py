"""`doctor` names each team ledger line a sync skips, by the sync's own check
and in its words (`.tree-ring/ledger.jsonl:LINE: reason`): a ledger that
would lose a line fails the check (exit 1), one a newer Tree Ring wrote,
which a sync keeps as it stands, is named without failing it, and a clean
ledger is ok. The check reads the store and the file and writes neither."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from team_support import (
    LEDGER,
    cli,
    clone,
    first_repo,
    hub,
    ledger_entries,
    ok,
    publish,
    remember,
)

from tree_ring.model import project
from tree_ring.store.sql import open_db
from tree_ring.team import ledger_check, ledger_read

# Assembled, so no scanner of this repository mistakes the test value for a key.
SECRET = "sk-" + "proj-" + "Zq8Lm2Xv9Rt4Wy7Kp3Nb6Hd1Fs5Gj0Ac"
CLEAN = f"{LEDGER}: no conflicts, audit anchor ok"
KEPT = "; kept in the ledger as it stands"


def doctor(root: Path) -> tuple[int, dict[str, Any]]:
    """`--json doctor`'s exit code and its ledger check."""
    done = cli(root, "--json", "doctor")
    assert done.code in (0, 1), done.err
    [check] = [c for c in done.json()["items"] if c["name"] == "ledger"]
    return done.code, check


def named(detail: str) -> set[str]:
    """The ledger lines a check's detail names, one a line after its first."""
    return set(detail.splitlines()[1:])


def sync_named(root: Path) -> set[str]:
    """What `sync` names of the lines it skipped, as its human output does."""
    done = cli(root, "--json", "sync")
    assert done.code == 0, done.err
    return {
        f"{LEDGER}:{item['line']}: {item['reason']}"
        if item["line"]
        else f"{LEDGER}: {item['reason']}"
        for item in done.json()["items"]
    }


def bad_ledger(tmp_path: Path) -> tuple[Path, set[int], int]:
    """A project whose ledger holds, among its good lines, one of each kind
    a sync skips: (the project, the lines it drops, the line it keeps). The
    newer Tree Ring's line it keeps is the upstream's: a claimed one is
    dropped (`test_ledger_carried_claims.py`)."""
    alice = first_repo(tmp_path)
    remember(alice, "Deploys freeze on Fridays after the release branch is cut")
    remember(alice, "Staging resets every night at two")
    good = ledger_entries(alice)[0]
    newer = json.dumps({"record": "memory2", "id": "n1", "say": "hello"}).encode()
    hub(tmp_path, alice)
    with (alice / LEDGER).open("ab") as handle:
        handle.write(newer + b"\n")
    publish(alice, "a newer Tree Ring's line")

    def row(letter: str, summary: str, **changes: object) -> bytes:
        data = {**good, "id": f"mem_20260101_000000_{letter * 12}", "summary": summary}
        return json.dumps({**data, **changes}, sort_keys=True).encode()

    lines = (alice / LEDGER).read_bytes().splitlines()
    bad = [
        b'{"record": "memory", "id": ',  # not JSON
        row("a", f"The deploy token is {SECRET}"),  # a secret
        row("b", "x" * 1_000_001),  # past the line bound
        row("c", "Another team's rule", project="other-1234"),  # another project's
        row("d", "Written later", updated_at="2999-01-01T00:00:00.000000Z"),  # dated ahead
        row("e", "A partition's note", scope="agent"),  # a scope never shared
        b"\xff\xfe not UTF-8",
        json.dumps({"record": "anchor", "clone": "nothex", "seq": 1, "head": ""}).encode(),
    ]
    fine = row("f", "The staging database is rebuilt on Mondays")  # a claim: taken
    lines.remove(newer)
    # Among the good lines, not after them: each is named by its own number.
    edited = [lines[0], lines[1], *bad[:4], fine, *lines[2:], *bad[4:], newer]
    (alice / LEDGER).write_bytes(b"\n".join(edited) + b"\n")
    numbers = {n for n, piece in enumerate(edited, start=1) if piece in bad}
    return alice, numbers, len(edited)


def test_each_line_a_sync_skips_is_named_as_the_sync_names_it(tmp_path: Path) -> None:
    alice, dropped, kept = bad_ledger(tmp_path)
    code, check = doctor(alice)
    assert code == 1
    assert check["ok"] is False
    first, *_ = check["detail"].splitlines()
    assert first == (
        f"{CLEAN}; {len(dropped)} line(s) a sync skips and leaves out of the ledger it "
        "writes: fix each, or run `tree-ring sync` and commit the ledger it writes; "
        "1 line(s) of a record this version does not know (a newer Tree Ring's), which a "
        "sync skips and keeps as they stand"
    )
    shown = named(check["detail"])
    numbers = {int(line.removeprefix(f"{LEDGER}:").split(":", 1)[0]) for line in shown}
    assert numbers == dropped | {kept}
    assert [line for line in shown if line.endswith(KEPT)] == [
        f"{LEDGER}:{kept}: unknown record 'memory2'{KEPT}"
    ]
    assert SECRET not in json.dumps(check)
    # The sync's own words, line for line (the kept line in one note): then it
    # drops them from the file.
    assert sync_named(alice) == {line for line in shown if not line.endswith(KEPT)}
    code, check = doctor(alice)
    assert (code, check["ok"]) == (0, True)
    assert check["detail"].splitlines() == [
        f"{CLEAN}; 1 line(s) of a record this version does not know (a newer Tree Ring's), "
        "which a sync skips and keeps as they stand",
        f"{LEDGER}:{len((alice / LEDGER).read_bytes().splitlines())}: "
        f"unknown record 'memory2'{KEPT}",
    ]


def test_the_human_output_names_each_line_under_the_check(tmp_path: Path) -> None:
    alice, dropped, _ = bad_ledger(tmp_path)
    done = cli(alice, "doctor")
    assert done.code == 1
    out = done.out.splitlines()
    at = next(n for n, line in enumerate(out) if line.startswith("FAIL ledger       "))
    under = [line for line in out[at + 1 :] if line.startswith(" " * 18 + LEDGER)]
    assert len(under) == len(dropped) + 1
    assert out[-1] == "problems remain"


def test_a_clean_ledger_is_ok(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    remember(alice, "Deploys freeze on Fridays after the release branch is cut")
    code, check = doctor(alice)
    assert (code, check["ok"], check["detail"]) == (0, True, CLEAN)
    assert ok(alice, "doctor").out.splitlines()[-1] == f"ok   ledger       {CLEAN}"


def test_a_line_only_the_upstream_holds_is_named_as_the_upstreams(tmp_path: Path) -> None:
    """A bad line pushed to the upstream: each clone's sync leaves it out of
    the file it writes, and names it at every sync while the upstream holds
    it; so does `doctor`."""
    alice = first_repo(tmp_path)
    remember(alice, "Deploys freeze on Fridays after the release branch is cut")
    origin = hub(tmp_path, alice)
    later = {**ledger_entries(alice)[0], "id": "mem_20260101_000000_dddddddddddd"}
    later["updated_at"] = "2999-01-01T00:00:00.000000Z"
    with (alice / LEDGER).open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(later, sort_keys=True) + "\n")
    publish(alice, "a line dated ahead")
    bob = clone(origin, tmp_path, "bob")
    ok(bob, "sync")  # writes the file without it
    assert "mem_20260101_000000_dddddddddddd" not in (bob / LEDGER).read_text("utf-8")
    code, check = doctor(bob)
    assert (code, check["ok"]) == (1, False)
    reason = "updated_at 2999-01-01T00:00:00.000000Z is later than now: a line is not dated ahead"
    assert named(check["detail"]) == {f"{LEDGER}: (a line of the upstream's ledger) {reason}"}
    assert sync_named(bob) == named(check["detail"])


def test_the_check_writes_nothing(tmp_path: Path) -> None:
    """Read-only: through a connection that cannot write, the same lines are
    named, and neither the file nor the guard's kept verdicts change."""
    alice, dropped, _ = bad_ledger(tmp_path)
    path = alice / LEDGER
    before = (path.read_bytes(), os.stat(path).st_mtime_ns)
    db = open_db(project.store_path(alice), read_only=True)
    try:
        verdicts = db.conn.execute("SELECT * FROM settings WHERE key = 'ledger_verdicts'")
        kept_verdicts = [tuple(row) for row in verdicts]
        found = ledger_check.check(alice, db, repair=False)
        after = db.conn.execute("SELECT * FROM settings WHERE key = 'ledger_verdicts'")
        assert [tuple(row) for row in after] == kept_verdicts
    finally:
        db.conn.close()
    assert found is not None and not found[0]
    assert len(named(found[1])) == len(dropped) + 1
    assert (path.read_bytes(), os.stat(path).st_mtime_ns) == before


def test_a_part_at_a_time_names_the_same_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file is checked a part at a time (`ledger_read.PART_LINES`); parts
    of two lines name what one part names."""
    alice, _, _ = bad_ledger(tmp_path)
    _, whole = doctor(alice)
    monkeypatch.setattr(ledger_read, "PART_LINES", 2)
    _, parts = doctor(alice)
    assert parts == whole


def test_past_the_lines_shown_the_rest_are_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, dropped, _ = bad_ledger(tmp_path)
    monkeypatch.setattr(ledger_check, "SHOWN", 2)
    _, check = doctor(alice)
    lines = check["detail"].splitlines()[1:]
    assert lines[2] == f"... and {len(dropped) - 2:,} more"
    assert len(lines) == 2 + 1 + 1  # two named, the count, then the kept line
