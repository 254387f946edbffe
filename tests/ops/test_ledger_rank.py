"""The ledger's total order, record kind by record kind: which line of a key wins."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tree_ring.team import ledger
from tree_ring.team.ledger import Line


def _winner(*lines: dict[str, Any]) -> dict[str, Any]:
    won = ledger.merge([Line(d) for d in lines])
    assert len(won) == 1
    return next(iter(won.values())).data


def test_keys_by_record() -> None:
    assert ledger.key_of({"record": "ledger"}) == "0"
    assert ledger.key_of({"record": "anchor", "clone": "c1"}) == "1c1"
    assert ledger.key_of({"record": "memory", "id": "mem_a"}) == "2mem_a"
    assert ledger.key_of({"record": "tombstone", "id": "mem_a"}) == "2mem_a"


def test_a_newer_header_schema_wins() -> None:
    assert _winner({"record": "ledger", "schema": 2}, {"record": "ledger", "schema": 1}) == {
        "record": "ledger",
        "schema": 2,
    }
    assert (
        _winner({"record": "ledger", "schema": "9"}, {"record": "ledger", "schema": 1})["schema"]
        == 1
    )  # a schema that is not a number counts as 0


def test_an_anchor_wins_by_time_then_sequence() -> None:
    base = {"record": "anchor", "clone": "c"}
    late = {**base, "at": "2026-01-02", "seq": 1}
    early = {**base, "at": "2026-01-01", "seq": 9}
    assert _winner(early, late) == late
    more = {**base, "at": "2026-01-02", "seq": 2}
    assert _winner(more, late) == more
    odd = {**base, "at": "2026-01-02", "seq": "x"}  # not a number: 0
    assert _winner(odd, late) == late


@pytest.mark.parametrize(
    ("weaker", "stronger"),
    [
        # Forgetting beats a redaction, which beats the memory itself, whatever the times.
        (
            {"record": "memory", "id": "m", "valid_from": "2027", "updated_at": "2027"},
            {"record": "redaction", "id": "m", "at": "2026"},
        ),
        (
            {"record": "redaction", "id": "m", "at": "2027"},
            {"record": "tombstone", "id": "m", "at": "2026"},
        ),
        (
            {"record": "memory", "id": "m", "valid_from": "2027", "updated_at": "2027"},
            {"record": "tombstone", "id": "m", "at": "2026"},
        ),
        # Between two versions of a memory: the later valid_from, then the later update.
        (
            {"record": "memory", "id": "m", "valid_from": "2026", "updated_at": "2029"},
            {"record": "memory", "id": "m", "valid_from": "2027", "updated_at": "2026"},
        ),
        (
            {"record": "memory", "id": "m", "valid_from": "2026", "updated_at": "2026"},
            {"record": "memory", "id": "m", "valid_from": "2026", "updated_at": "2027"},
        ),
        (
            {"record": "tombstone", "id": "m", "at": "2026"},
            {"record": "tombstone", "id": "m", "at": "2027"},
        ),
        ({"record": "unknown", "id": "m", "at": "2030"}, {"record": "memory", "id": "m"}),
    ],
)
def test_which_entry_wins(weaker: dict[str, Any], stronger: dict[str, Any]) -> None:
    assert _winner(weaker, stronger) == stronger
    assert _winner(stronger, weaker) == stronger


def test_the_canonical_text_breaks_a_tie_and_render_sorts_by_key() -> None:
    a = {"record": "memory", "id": "m", "valid_from": "2026", "updated_at": "2026", "x": 1}
    b = {"record": "memory", "id": "m", "valid_from": "2026", "updated_at": "2026", "x": 2}
    # Same times: the canonical text decides, "x":2 after "x":1, in either order.
    assert _winner(b, a) == b and _winner(a, b) == b
    lines = [Line({"record": "memory", "id": "z"}), Line({"record": "ledger", "schema": 1})]
    assert ledger.render(lines).splitlines()[0] == '{"record":"ledger","schema":1}'


def test_merge_driver_takes_three_paths_and_writes_over_ours(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, ours, theirs = (tmp_path / n for n in ("base", "ours", "theirs"))
    header = '{"record":"ledger","schema":1}\n'
    base.write_text(header)
    ours.write_text(header + '{"id":"mem_a","record":"tombstone","at":"2026"}\n')
    theirs.write_text(header + '{"id":"mem_b","record":"tombstone","at":"2026"}\n')
    assert ledger.merge_driver([str(base), str(ours), str(theirs)]) == 0
    assert ours.read_text().splitlines() == [
        '{"record":"ledger","schema":1}',
        '{"at":"2026","id":"mem_a","record":"tombstone"}',
        '{"at":"2026","id":"mem_b","record":"tombstone"}',
    ]
    assert ledger.merge_driver([str(base), str(ours)]) == 2
    assert "usage: merge-driver BASE OURS THEIRS [PATH]" in capsys.readouterr().err
    assert ledger.merge_driver([str(base), str(ours), str(tmp_path / "gone")]) == 1
