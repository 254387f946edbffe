"""A ledger edited by hand: each bad line named by file and line and skipped; the rest syncs."""

from __future__ import annotations

import json
from pathlib import Path

from team_support import (
    LEDGER,
    cli,
    first_repo,
    hub,
    ledger_entries,
    ok,
    publish,
    remember,
    shared_ids,
)

from tree_ring.model import project
from tree_ring.model.record import now_iso

# Assembled, so no scanner of this repository mistakes the test value for a key.
SECRET = "sk-" + "proj-" + "Zq8Lm2Xv9Rt4Wy7Kp3Nb6Hd1Fs5Gj0Ac"


def test_bad_lines_are_named_and_skipped_and_the_rest_syncs(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    keep = remember(alice, "Deploys freeze on Fridays after the release branch is cut")
    good = ledger_entries(alice)[0]
    project_id = project.load_project_id(alice)

    def row(memory_id: str, summary: str, **changes: object) -> str:
        data = {**good, "id": memory_id, "summary": summary, **changes}
        return json.dumps(data, sort_keys=True)

    lines = (alice / LEDGER).read_text(encoding="utf-8").splitlines()
    lines += [
        '{"record": "memory", "id": ',  # malformed
        row("mem_20260101_000000_aaaaaaaaaaaa", f"The deploy token is {SECRET}"),
        row("mem_20260101_000000_bbbbbbbbbbbb", "x" * 1_000_001),  # oversized
        row("mem_20260101_000000_cccccccccccc", "Another team's rule", project="other-1234"),
        row("mem_20260101_000000_dddddddddddd", "The staging database is rebuilt on Mondays"),
    ]
    (alice / LEDGER).write_text("\n".join(lines) + "\n", encoding="utf-8")
    first_bad = len(lines) - 4

    done = cli(alice, "--json", "sync")
    assert done.code == 0, done.err
    report = done.json()
    skipped = {item["line"]: item["reason"] for item in report["items"]}
    assert set(skipped) == {first_bad, first_bad + 1, first_bad + 2, first_bad + 3}
    assert "not valid JSON" in skipped[first_bad]
    assert "secret" in skipped[first_bad + 1].lower() or "key" in skipped[first_bad + 1].lower()
    assert SECRET not in json.dumps(report)
    assert "longer than" in skipped[first_bad + 2]
    assert "another project" in skipped[first_bad + 3]
    assert shared_ids(alice) == {keep, "mem_20260101_000000_dddddddddddd"}
    assert project_id in (alice / LEDGER).read_text(encoding="utf-8")
    assert SECRET not in (alice / LEDGER).read_text(encoding="utf-8")
    # Every line it skipped is gone (none is a record this version does not
    # know), and the good one is a claim, out of the ledger until approved.
    written = [json.loads(raw) for raw in (alice / LEDGER).read_text("utf-8").splitlines()]
    assert {(d["record"], d.get("id")) for d in written if d["record"] != "anchor"} == {
        ("ledger", None),
        ("memory", keep),
    }
    human = cli(alice, "sync")
    assert human.code == 0


def test_the_human_output_names_file_and_line(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    number = len((alice / LEDGER).read_text(encoding="utf-8").splitlines()) + 1
    with (alice / LEDGER).open("a", encoding="utf-8") as handle:
        handle.write("not json\n")
    done = ok(alice, "sync")
    assert f"{LEDGER}:{number}: not valid JSON" in done.out


def test_a_ledger_from_a_newer_schema_is_refused_and_nothing_written(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    project_id = project.load_project_id(alice)
    newer = json.dumps({"record": "ledger", "schema": 99, "project": project_id})
    line = json.dumps({**{"record": "memory"}, "id": "mem_20260101_000000_eeeeeeeeeeee"})
    (alice / LEDGER).write_text(newer + "\n" + line + "\n", encoding="utf-8")
    before = (alice / LEDGER).read_bytes()
    done = cli(alice, "sync")
    assert done.code != 0 and "newer Tree Ring" in done.err and "upgrade" in done.err
    assert (alice / LEDGER).read_bytes() == before
    assert shared_ids(alice) == set()


def test_duplicate_ids_from_a_union_merge_resolve_by_the_rule(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    hub(tmp_path, alice)  # the lines come from the upstream: trusted as they stand
    memory_id = remember(alice, "Deploys freeze on Fridays after the release branch is cut")
    [line] = ledger_entries(alice)
    later = {**line, "summary": "Deploys freeze on Fridays and Saturdays"}
    later["updated_at"] = now_iso()  # after the stored row, not ahead of the clock
    earlier = {
        **line,
        "summary": "Deploys never freeze",
        "updated_at": "2000-01-01T00:00:00.000000Z",
    }
    with (alice / LEDGER).open("a", encoding="utf-8") as handle:
        for data in (later, earlier):  # both after the stored row, in either order
            handle.write(json.dumps(data) + "\n")
    publish(alice, "a union merge")
    ok(alice, "sync")
    [entry] = ledger_entries(alice)
    assert (
        entry["id"] == memory_id and entry["summary"] == "Deploys freeze on Fridays and Saturdays"
    )


def test_a_linked_ledger_is_refused_not_followed(tmp_path: Path) -> None:
    """A committed symbolic link in place of the ledger must not make a clone
    read (and import) whatever file it names, nor write through it."""
    alice = first_repo(tmp_path)
    project_id = project.load_project_id(alice)
    outside = tmp_path / "elsewhere.jsonl"
    header = json.dumps({"record": "ledger", "schema": 1, "project": project_id})
    planted = {
        "record": "memory",
        "id": "mem_20260101_000000_dddddddddddd",
        "project": project_id,
        "summary": "Planted through a link",
    }
    outside.write_text(header + "\n" + json.dumps(planted) + "\n", encoding="utf-8")
    before = outside.read_bytes()
    (alice / LEDGER).unlink()
    (alice / LEDGER).symlink_to(outside)
    done = cli(alice, "sync")
    assert done.code == 2 and "symbolic link" in done.err, done.err
    assert outside.read_bytes() == before
    assert "mem_20260101_000000_dddddddddddd" not in shared_ids(alice)
    assert (alice / LEDGER).is_symlink()


def test_a_skipped_line_is_named_by_its_number_or_as_the_upstreams() -> None:
    from tree_ring.team.ledger_report import Skipped

    assert Skipped(7, "not JSON").named(".tree-ring/ledger.jsonl") == (
        ".tree-ring/ledger.jsonl:7: not JSON"
    )
    # Line 0: a line only the upstream's ledger holds, not a line of the file.
    upstream = Skipped(0, "(a line of the upstream's ledger) not JSON")
    assert upstream.named(".tree-ring/ledger.jsonl") == (
        ".tree-ring/ledger.jsonl: (a line of the upstream's ledger) not JSON"
    )
