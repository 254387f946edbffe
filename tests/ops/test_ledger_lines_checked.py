"""Each kind of ledger line as `sync` checks it before reading it: what passes,
what is refused and with which words."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tree_ring.model.errors import TreeRingError
from tree_ring.team import ledger_read

H = "sha256:" + "a" * 64
H2 = "sha256:" + "b" * 64
AT = "2026-01-01T00:00:00.000000Z"


def check(line: dict[str, Any] | list[int] | bytes) -> dict[str, Any]:
    piece = line if isinstance(line, bytes) else json.dumps(line).encode()
    scratch = ledger_read.Read({}, {}, [], {})
    return ledger_read.check_line(piece, "proj", scratch).data


def refused(line: dict[str, Any] | list[int] | bytes) -> str:
    with pytest.raises(TreeRingError) as caught:
        check(line)
    return str(caught.value)


def test_header() -> None:
    assert check({"record": "ledger", "schema": 1, "project": "proj", "x": 1}) == {
        "record": "ledger",
        "schema": 1,
        "project": "proj",
    }
    said = refused({"record": "ledger", "schema": 2, "project": "proj"})
    assert "names ledger schema 2, and this Tree Ring reads 1" in said
    assert "upgrade the plugin, then sync" in said
    assert "git checkout -- .tree-ring/ledger.jsonl" in said  # an edit is restored
    # No Tree Ring wrote a schema that is no whole number: neither newer nor this one's.
    for schema in ("1", True, None):
        said = refused({"record": "ledger", "schema": schema, "project": "proj"})
        assert "which is no schema number" in said and "newer" not in said
    assert "belongs to project 'other', not proj" in refused(
        {"record": "ledger", "schema": 1, "project": "other"}
    )


def test_anchor() -> None:
    anchor = {"record": "anchor", "clone": "0123456789abcdef", "seq": 0, "head": "", "at": AT}
    assert check(anchor) == anchor
    assert check({**anchor, "seq": 5, "head": H})["head"] == H
    assert "16 hex digits" in refused({**anchor, "clone": "0123456789abcde"})
    assert "16 hex digits" in refused({**anchor, "clone": "0123456789ABCDEF"})
    assert "needs seq and head" in refused({**anchor, "seq": -1})
    assert "needs seq and head" in refused({**anchor, "seq": "1"})
    assert "needs seq and head" in refused({**anchor, "head": None})
    assert "head is a sha256 hash" in refused({**anchor, "head": "sha256:xyz"})


def test_tombstone_and_redaction() -> None:
    stone = {"record": "tombstone", "id": "mem_a", "at": AT, "hashes": [H2, H, H]}
    assert check(stone) == {
        "record": "tombstone",
        "id": "mem_a",
        "at": AT,
        "hashes": [H, H2],
        "kind": "forgotten",
    }
    assert check({**stone, "kind": "rejected"})["kind"] == "rejected"
    assert "kind is forgotten or rejected" in refused({**stone, "kind": "redacted"})
    redaction = {**stone, "record": "redaction"}
    assert "kind" not in check(redaction)
    assert "id is a memory id" in refused({**stone, "id": "x_a"})
    assert "id is a memory id" in refused({**stone, "id": 7})
    assert "needs its content hashes" in refused({**stone, "hashes": []})
    assert "needs its content hashes" in refused({**stone, "hashes": H})
    assert "at most 1,000" in refused({**stone, "hashes": [H, "sha1:x"]})
    many = [f"sha256:{n:064x}" for n in range(1_001)]
    assert "at most 1,000" in refused({**stone, "hashes": many})
    assert len(check({**stone, "hashes": many[:1_000]})["hashes"]) == 1_000


def test_what_is_no_ledger_line() -> None:
    assert "unknown record 'note'" in refused({"record": "note"})
    assert "not a JSON object" in refused([1, 2])
    assert "not UTF-8 text" in refused(b'{"record": "\xff"}')
    assert "longer than 1,000,000 bytes" in refused(b" " * 1_000_001)
