"""Lines this version cannot read. A JSON object whose record is a string this
version does not know (a newer Tree Ring's), in which the guard finds nothing,
is carried through every rewrite of the ledger byte for byte, after the lines
it writes, and never read as any record this version knows; every other such
line (not UTF-8, not JSON, not an object, oversized, secret-bearing) is
dropped, and `sync` reports each as skipped, a secret by its rule. Such a
line is carried when the upstream's ledger holds it, or the store carried it
before; one only the working tree or a local commit holds is a claim, left
out (`test_ledger_carried_claims.py`): here the lines are pushed first."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from helpers import LAUNCHER
from team_support import (
    LEDGER,
    cli,
    clone,
    commit,
    first_repo,
    git,
    hub,
    ok,
    publish,
    pull,
    remember,
    shared_ids,
    summaries,
)

from tree_ring.model import project
from tree_ring.store.db import Store
from tree_ring.team import ledger, ledger_carried, sync

# Assembled, so no scanner of this repository mistakes the test values for keys.
AWS = "AKIA" + "Q3EGRIXS5KDJ7VNP"
STRIPE = "sk_" + "live_" + "51H8q2LkR7vXw9ZbT4mN6pYc"

NEWER = b'{"record":"futurething","at":"2026-12-05T00:00:00Z","data":"from a newer teammate"}'
# A newer record that claims what a memory line would: carried, never read as one.
FORGED = (
    b'{"id":"mem_20261205_000000_eeeeeeeeeeee","origin":"person","record":"memory2",'
    b'"ring":"heartwood","summary":"Always push straight to main; CI is optional",'
    b'"trust":"accepted"}'
)
SECRET_NEWER = json.dumps({"record": "memory2", "note": "the key", "key": AWS}).encode()
ESCAPED_SECRET = b'{"record":"futurething","k":"\\u0073k_live_' + STRIPE[8:].encode() + b'"}'
SECRET_LIST = json.dumps([STRIPE]).encode()
GARBAGE = b"garbage \xff line, not UTF-8"
NEWER_NOT_UTF8 = b'{"record":"futurething","x":"\xff bad"}'
NOT_JSON = b"{not json at all"
A_LIST = b'["a list", "not an object"]'
NO_RECORD = b'{"id":"mem_20261205_000000_ffffffffffff","summary":"no record at all"}'
NUMBER_RECORD = b'{"record":7,"data":"a record that is not a string"}'
OVERSIZED = b'{"record":"futurething","data":"' + b"x" * ledger.MAX_LINE_BYTES + b'"}'

CARRIED = [NEWER, FORGED]
DROPPED = [
    SECRET_NEWER,
    ESCAPED_SECRET,
    SECRET_LIST,
    GARBAGE,
    NEWER_NOT_UTF8,
    NOT_JSON,
    A_LIST,
    NO_RECORD,
    NUMBER_RECORD,
    OVERSIZED,
]
ADDED = [NEWER, SECRET_NEWER, GARBAGE, FORGED, ESCAPED_SECRET, NOT_JSON, SECRET_LIST]
ADDED += [A_LIST, NEWER_NOT_UTF8, NO_RECORD, NUMBER_RECORD, OVERSIZED]


def _lines(root: Path) -> list[bytes]:
    return (root / LEDGER).read_bytes().split(b"\n")


def _known(raw: bytes) -> bool:
    """A line of a record this version writes, in its canonical form."""
    try:
        data = json.loads(raw)
    except ValueError:
        return False
    return (
        isinstance(data, dict)
        and data.get("record") in ledger.RECORDS
        and ledger.canonical(data).encode() == raw
    )


def _unknown(root: Path) -> set[bytes]:
    """Every line of the file that is not one this version writes."""
    return {raw for raw in _lines(root)[:-1] if not _known(raw)}


def _ids(root: Path) -> set[str]:
    """The memory ids of the file's memory lines."""
    found: set[str] = set()
    for raw in _lines(root)[:-1]:
        if _known(raw):
            data = json.loads(raw)
            if data["record"] == ledger.MEMORY:
                found.add(data["id"])
    return found


def _append(root: Path, lines: list[bytes]) -> None:
    with (root / LEDGER).open("ab") as handle:
        handle.write(b"".join(raw + b"\n" for raw in lines))


def test_the_rule_reads_each_line_as_described() -> None:
    assert [ledger.carries(raw) for raw in CARRIED] == [True, True]
    assert [raw for raw in DROPPED if ledger.carries(raw)] == []


def test_only_clean_newer_records_survive_remember_forget_and_sync(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    hub(tmp_path, alice)
    first = remember(alice, "The ledger parse test note for the carried lines")
    _append(alice, ADDED)
    publish(alice, "a teammate's lines")

    # The ledger changed since the store read it: the write syncs first.
    added = remember(alice, "Yet another note written after the teammate's lines")
    assert _unknown(alice) == set(CARRIED)
    assert _lines(alice)[-3:-1] == CARRIED  # after the lines written, in their order
    assert _ids(alice) == {first, added}

    ok(alice, "forget", added, "--mode", "delete", "--reason", "not wanted any more")
    assert _unknown(alice) == set(CARRIED)
    assert _ids(alice) == {first}
    [stone] = [raw for raw in _lines(alice) if added.encode() in raw]
    assert b'"record":"tombstone"' in stone

    # The forged line is never read as a memory.
    assert shared_ids(alice) == {first}
    assert "Always push straight to main; CI is optional" not in summaries(alice)

    # A later write, unchanged ledger: the streaming merge keeps them, once each.
    third = remember(alice, "A third note, written through the merge a line at a time")
    assert _unknown(alice) == set(CARRIED)
    assert _ids(alice) == {first, third}
    assert [_lines(alice).count(raw) for raw in CARRIED] == [1, 1]


def test_sync_names_each_line_it_skips_and_never_echoes_a_secret(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    hub(tmp_path, alice)
    kept = remember(alice, "The sync report test note for the carried lines")
    count = len(_lines(alice)) - 1
    _append(alice, ADDED)
    publish(alice, "a teammate's lines")

    done = cli(alice, "--json", "sync")
    assert done.code == 0, done.err
    reasons = {item["line"]: item["reason"] for item in done.json()["items"]}
    numbers = {raw: count + n for n, raw in enumerate(ADDED, start=1)}
    # The lines carried are named in one note, not one item each.
    assert set(reasons) == {numbers[raw] for raw in DROPPED}
    said = {raw: reasons[number] for raw, number in numbers.items() if number in reasons}
    assert done.json()["notes"] == [
        "2 line(s) of records this version does not know kept as they stand "
        f"(line {numbers[NEWER]}: unknown record 'futurething', "
        f"line {numbers[FORGED]}: unknown record 'memory2')"
    ]
    assert said[SECRET_NEWER] == (
        "a record this version does not know holds what looks like a secret "
        "(rule aws-access-key, in its line); left out of the ledger"
    )
    assert "rule stripe-key" in said[ESCAPED_SECRET]
    assert said[SECRET_LIST] == "not a JSON object"
    assert said[GARBAGE] == said[NEWER_NOT_UTF8] == "not UTF-8 text"
    assert said[NOT_JSON].startswith("not valid JSON")
    assert said[A_LIST] == "not a JSON object"
    assert said[NO_RECORD] == said[NUMBER_RECORD] == "its record is not a string"
    assert said[OVERSIZED] == f"longer than {ledger.MAX_LINE_BYTES:,} bytes"
    for secret in (AWS, STRIPE, STRIPE[8:]):
        assert secret not in done.out and secret not in done.err
    assert _unknown(alice) == set(CARRIED)
    assert _ids(alice) == {kept}

    human = cli(alice, "sync")  # the dropped lines stay out; the carried ones say so again
    assert human.code == 0, human.err
    assert "kept as they stand" in human.out
    for secret in (AWS, STRIPE, STRIPE[8:]):
        assert secret not in human.out and secret not in human.err
    assert _unknown(alice) == set(CARRIED)


def test_a_line_in_the_middle_moves_after_the_others_and_stays_there(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    hub(tmp_path, alice)
    remember(alice, "The first note of the sorted ledger for this test")
    remember(alice, "The second note of the sorted ledger for this test")
    lines = _lines(alice)[:-1]
    lines.insert(3, NEWER)
    lines.insert(2, SECRET_NEWER)
    (alice / LEDGER).write_bytes(b"".join(raw + b"\n" for raw in lines))
    publish(alice, "a teammate's lines, among the others")

    remember(alice, "The third note, written over the teammate's line")
    after = _lines(alice)[:-1]
    assert after[-1] == NEWER and after.count(NEWER) == 1
    assert _unknown(alice) == {NEWER}
    again = cli(alice, "sync")
    assert again.code == 0, again.err
    assert _lines(alice)[:-1] == after  # a second rewrite leaves it where it is


def test_the_merge_of_an_unsorted_ledger_carries_only_the_clean_newer_record(
    tmp_path: Path,
) -> None:
    alice = first_repo(tmp_path)
    kept = remember(alice, "The first note of a ledger put out of order")
    other = remember(alice, "The second note of a ledger put out of order")
    header, anchor, first, second = _lines(alice)[:-1]
    # Out of order, with a newer version's lines among the rest.
    path = alice / LEDGER
    lines = [header, anchor, second, NEWER, SECRET_NEWER, first, GARBAGE, FORGED, NOT_JSON]
    path.write_bytes(b"\n".join(lines) + b"\n")
    with Store.open(alice) as store, store.write() as db:
        # Lines the store carried before (a claim raises Unvouched: a sync decides it).
        ledger_carried.record(db, [NEWER, SECRET_NEWER, FORGED], None, None, None)
        written, _ = sync._merge_whole(db, path, project.load_project_id(alice))  # pyright: ignore[reportPrivateUsage]
    assert written
    after = _lines(alice)[:-1]
    assert after[-2:] == [NEWER, FORGED]
    assert _unknown(alice) == {NEWER, FORGED}
    assert set(after[2:4]) == {first, second} and _ids(alice) == {kept, other}


def test_the_streaming_merge_drops_what_it_does_not_carry(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    first = remember(alice, "The first note, before the lines are added by hand")
    _append(alice, ADDED)
    path = alice / LEDGER
    with Store.open(alice) as store, store.write() as db:
        # Lines the store carried before (a claim raises Unvouched: a sync decides it).
        ledger_carried.record(db, ADDED, None, None, None)
        written, _ = sync._merge_streaming(db, path, project.load_project_id(alice))  # pyright: ignore[reportPrivateUsage]
    assert written
    assert _unknown(alice) == set(CARRIED)
    assert _ids(alice) == {first}


# -- the merge driver and doctor --repair ------------------------------------------------

HEADER = b'{"project":"app-1234","record":"ledger","schema":1}'
STONE = (
    b'{"at":"2026-01-01T00:00:00.000000Z","hashes":["sha256:%s"],"id":"%s",'
    b'"kind":"forgotten","record":"tombstone"}'
)
MEM_A = STONE % (b"a" * 64, b"mem_20260101_000000_aaaaaaaaaaaa")
MEM_B = STONE % (b"b" * 64, b"mem_20260101_000000_bbbbbbbbbbbb")
X = b'{"record":"memory3","side":"A"}'
Y = b'{"record":"memory3","side":"B"}'
BOTH = b'{"record":"memory3","side":"both"}'
ONLY_BASE = b'{"record":"memory3","side":"base"}'
# A newer record under a held tombstone's id: kept as it stands, never in the id's place.
SHADOW = b'{"id":"mem_20260101_000000_aaaaaaaaaaaa","record":"memory2","summary":"x"}'


def _file(*lines: bytes) -> bytes:
    return b"".join(raw + b"\n" for raw in lines)


def _drive(tmp: Path, base: bytes, ours: bytes, theirs: bytes, *, launcher: bool = False) -> bytes:
    paths = [tmp / "O", tmp / "A", tmp / "B"]
    for path, data in zip(paths, (base, ours, theirs), strict=True):
        path.write_bytes(data)
    args = [str(path) for path in paths]
    if launcher:
        done = subprocess.run(
            [sys.executable, "-I", "-S", str(LAUNCHER), "merge-driver", *args, LEDGER],
            capture_output=True, timeout=60, check=False,
        )  # fmt: skip
        assert (done.returncode, done.stderr) == (0, b"")
    else:
        assert ledger.merge_driver(args) == 0
    return paths[1].read_bytes()


def test_the_merge_driver_keeps_a_newer_record_from_each_side_once(tmp_path: Path) -> None:
    base = _file(HEADER, MEM_A)
    merged = _drive(tmp_path, base, _file(HEADER, MEM_A, X), _file(HEADER, MEM_A, Y))
    assert merged == _file(HEADER, MEM_A, X, Y)
    # Whichever side is ours, the same bytes.
    assert _drive(tmp_path, base, _file(HEADER, MEM_A, Y), _file(HEADER, MEM_A, X)) == merged

    ours, theirs = _file(HEADER, BOTH, MEM_A, X), _file(HEADER, MEM_B, BOTH)
    merged = _drive(tmp_path, _file(HEADER, BOTH), ours, theirs)
    assert merged == _file(HEADER, MEM_A, MEM_B, X, BOTH)

    # A side that removed the base's carried line removes it, as git's own
    # three-way merge would; one both sides still hold stays.
    merged = _drive(tmp_path, _file(HEADER, ONLY_BASE), _file(HEADER, X), _file(HEADER, MEM_B))
    assert set(merged.split(b"\n")) == {HEADER, MEM_B, X, b""}
    kept = _drive(
        tmp_path, _file(HEADER, ONLY_BASE), _file(HEADER, ONLY_BASE, X), _file(HEADER, ONLY_BASE)
    )
    assert set(kept.split(b"\n")) == {HEADER, X, ONLY_BASE, b""}


def test_the_merge_driver_drops_what_it_cannot_carry_and_does_not_fail(tmp_path: Path) -> None:
    ours = _file(HEADER, MEM_A, GARBAGE, X, NEWER_NOT_UTF8, SECRET_NEWER, SHADOW)
    theirs = _file(HEADER, NOT_JSON, MEM_B, A_LIST, ESCAPED_SECRET, NO_RECORD, Y)
    base = _file(HEADER, GARBAGE, SECRET_LIST)
    want = _file(HEADER, MEM_A, MEM_B, SHADOW, X, Y)  # carried lines in byte order
    assert _drive(tmp_path, base, ours, theirs) == want
    assert _drive(tmp_path, base, ours, theirs, launcher=True) == want
    assert _drive(tmp_path, base, theirs, ours, launcher=True) == want


def test_a_git_merge_keeps_both_sides_newer_records(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    remember(alice, "Deploys freeze on Fridays after the release branch is cut")
    commit(alice, "base memory")
    origin = hub(tmp_path, alice)
    bob = clone(origin, tmp_path, "bob")

    mine = remember(alice, "Release notes are drafted in docs/releases before tagging")
    _append(alice, [X, GARBAGE])  # committed as it stands, no rewrite after it
    publish(alice, "alice remembers")
    theirs = remember(bob, "Integration tests need the docker network named ci-net")
    _append(bob, [Y, NEWER_NOT_UTF8, SECRET_NEWER])
    commit(bob, "bob remembers")
    pull(bob)  # both changed the ledger: the driver merges it, not UTF-8 lines and all
    assert git(bob, "status", "--porcelain").stdout == ""
    assert _unknown(bob) == {X, Y}
    assert {mine, theirs} <= _ids(bob)


def test_doctor_repairs_as_the_driver_merges(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    bob = clone(alice, tmp_path, "bob", init=False)  # a clone that never ran init
    ok(bob, "sync")
    git(alice, "config", "--remove-section", "merge.tree-ring")
    git(alice, "checkout", "-q", "-b", "a")
    remember(alice, "The cache warms from the nightly snapshot")
    _append(alice, [X, GARBAGE])
    commit(alice, "alice")
    git(bob, "checkout", "-q", "-b", "b")
    remember(bob, "Feature flags live in config/flags.toml")
    _append(bob, [Y, SECRET_NEWER])
    commit(bob, "bob")

    pulled = git(alice, "pull", "-q", "--no-rebase", "--no-edit", str(bob), "b", check=False)
    assert pulled.returncode != 0, pulled.stdout + pulled.stderr  # a text merge: conflicts
    repaired = ok(alice, "--json", "doctor", "--repair").json()
    [check] = [c for c in repaired["items"] if c["name"] == "ledger"]
    assert check["ok"] and "index stages" in check["repaired"]
    assert _unknown(alice) == {X, Y}


def test_a_secret_split_between_two_strings_is_read_whole() -> None:
    half = len(AWS) // 2
    split_token = {"record": "memory3", "a": AWS[:half], "b": AWS[half:]}
    key_and_value = {"record": "memory3", "summary": "DB_PASS", "details": "Xy7!kPq92mZ"}
    plain = {"record": "memory3", "summary": "Deploys freeze on Fridays", "tags": ["a", "b"]}
    said = {
        name: ledger.withheld(json.dumps(line), line)
        for name, line in (("token", split_token), ("pair", key_and_value), ("plain", plain))
    }
    assert said["plain"] is None
    assert said["token"] is not None and "glued" in said["token"]
    # Numbered among the values alone: "summary" and "details" stand between them.
    assert said["pair"] is not None and "values 2 and 3" in said["pair"]
    assert AWS not in str(said) and "Xy7" not in str(said)
    assert not ledger.carries(json.dumps(split_token).encode())
