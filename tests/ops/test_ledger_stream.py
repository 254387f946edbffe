"""The ledger merged with the store's side as two sorted streams: the same
lines as the merge of both held whole, and the ledger written only when it changes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_ledger_merge import entry

from tree_ring.model.errors import Conflict
from tree_ring.team import ledger, ledger_stream
from tree_ring.team.ledger import Line

IDS = [f"mem_20260101_000000_{i:012x}" for i in range(8)]
TIMES = [f"2026-01-0{d}T00:00:00.000000Z" for d in range(1, 4)]

some_lines = st.lists(
    st.builds(
        entry,
        st.sampled_from(["memory", "memory", "redaction", "tombstone"]),
        st.sampled_from(IDS),
        st.sampled_from(TIMES),
        st.sampled_from(TIMES),
        st.sampled_from(["a", "b"]),
    ),
    max_size=14,
)


def _check(piece: bytes) -> Line | None:
    data: Any = json.loads(piece)
    return None if data.get("summary") == "bad" else Line(data)


@settings(max_examples=300, deadline=None)
@given(theirs=some_lines, mine=some_lines, bad=st.sets(st.sampled_from(IDS), max_size=2))
def test_streams_merge_as_the_whole_merge_does(
    theirs: list[dict[str, Any]], mine: list[dict[str, Any]], bad: set[str]
) -> None:
    header = {"record": "ledger", "schema": 1, "project": "p"}
    anchor = {"record": "anchor", "clone": "c1", "seq": 1, "head": "h", "at": TIMES[0]}
    file_lines = [Line(header), Line(anchor), *map(Line, theirs)]
    # Lines the check refuses are left out, wherever they sort.
    refused = [Line(entry("memory", memory_id, TIMES[2], TIMES[2], "bad")) for memory_id in bad]
    text = ledger.render([*file_lines, *refused])  # sorted, duplicates of a key kept
    store = ledger.merge(map(Line, mine))  # one line per key
    pieces = [line.encode() for line in text.splitlines()]
    ordered = sorted(store.values(), key=lambda line: line.key)
    streamed = [line.text for line in ledger_stream.merged(pieces, ordered, _check)]
    whole = ledger.render(ledger.merge(file_lines, store.values()).values())
    assert streamed == whole.splitlines()


def test_keys_out_of_order_or_conflict_markers_stop_the_stream() -> None:
    first, second = (Line(entry("memory", i, TIMES[0], TIMES[0], "a")) for i in IDS[:2])
    unsorted = [second.text.encode(), first.text.encode()]
    with pytest.raises(ledger_stream.Unsorted):
        list(ledger_stream.merged(unsorted, [], _check))
    marked = [first.text.encode(), b"<<<<<<< ours", second.text.encode()]
    with pytest.raises(Conflict):
        list(ledger_stream.merged(marked, [], _check))


def test_the_file_is_replaced_only_when_its_bytes_change(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    lines = [Line(entry("memory", i, TIMES[0], TIMES[0], "a")) for i in IDS[:3]]
    text = "".join(line.text + "\n" for line in lines)
    path.write_text(text, encoding="utf-8")
    before = path.stat().st_mtime_ns
    same = hashlib.sha256(text.encode())
    written, digest, at = ledger_stream.write_if_changed(path, lines, same)
    assert not written and path.stat().st_mtime_ns == before
    assert at == len(text.encode())  # where carried lines would start
    assert digest == "sha256:" + same.hexdigest()
    assert not list(tmp_path.glob(".*.tmp"))  # no temporary left
    written, _, _ = ledger_stream.write_if_changed(path, lines[:2], same)
    assert written and path.read_text(encoding="utf-8").count("\n") == 2


def test_an_import_reaches_the_ledger_and_an_unsorted_ledger_is_merged_whole(
    tmp_path: Path,
) -> None:
    from team_support import LEDGER, cli, first_repo, ledger_entries, remember

    alice = first_repo(tmp_path)
    first = remember(alice, "Deploys freeze on Fridays after the release branch is cut")
    rows = [
        json.dumps(
            {"summary": f"Service {n} restarts with the blue-green script", "id": f"mem_{n}"}
        )
        for n in range(30)
    ]
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    done = cli(alice, "import", str(path))
    assert done.code == 0, done.err
    ids = {e["id"] for e in ledger_entries(alice)}
    assert ids == {first, *(f"mem_{n}" for n in range(30))}
    # Out of order (edited by hand): the next write still merges it, whole.
    ledger_path = alice / LEDGER
    text = ledger_path.read_text(encoding="utf-8").splitlines()
    ledger_path.write_text("\n".join([text[0], *reversed(text[1:])]) + "\n", encoding="utf-8")
    second = remember(alice, "The staging database resets nightly at two")
    after = ledger_path.read_text(encoding="utf-8").splitlines()
    assert {e["id"] for e in ledger_entries(alice)} == {*ids, second}
    keys = [ledger.key_of(json.loads(line)) for line in after]
    assert keys == sorted(keys)
