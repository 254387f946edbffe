"""The guard reads a ledger line it carries whole once per clone: its verdict
is kept in the store by the line's hash, beside the guard's fingerprint, so a
person's later writes read no such line again, and a new guard reads them all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from team_support import LEDGER, first_repo, hub, ok, publish, remember

from tree_ring.store import settings
from tree_ring.store.db import Store
from tree_ring.team import ledger, ledger_verdicts

AWS = "AKIA" + "Q3EGRIXS5KDJ7VNP"  # assembled, so no scanner takes it for a key
CLEAN = [
    json.dumps({"record": "futurething", "n": n, "note": f"a newer teammate's record {n}"})
    for n in range(5)
]
SECRET = json.dumps({"record": "memory2", "note": "the key", "key": AWS})


def _append(root: Path, lines: list[str]) -> None:
    with (root / LEDGER).open("a", encoding="utf-8") as handle:
        handle.write("".join(line + "\n" for line in lines))


def _carried(root: Path) -> set[str]:
    text = (root / LEDGER).read_text(encoding="utf-8")
    return {line for line in text.splitlines() if '"futurething"' in line or "memory2" in line}


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts the guard reads whole, in order."""
    seen: list[str] = []
    real = ledger.withheld

    def counted(text: str, data: Any) -> str | None:
        seen.append(text)
        return real(text, data)

    monkeypatch.setattr(ledger, "withheld", counted)
    return seen


def test_each_line_is_read_once_and_its_verdict_kept(tmp_path: Path, reads: list[str]) -> None:
    alice = first_repo(tmp_path)
    hub(tmp_path, alice)
    remember(alice, "The ledger parse test note for the carried lines")
    _append(alice, [*CLEAN, SECRET])
    publish(alice, "a teammate's lines")
    remember(alice, "A note written after the teammate's lines")  # syncs first
    assert sorted(reads) == sorted([*CLEAN, SECRET])
    assert _carried(alice) == set(CLEAN)  # the secret's line is left out
    for n in range(3):  # later writes: the streaming merge, no line read again
        remember(alice, f"Another note, number {n}, through the merge")
    ok(alice, "sync")
    assert sorted(reads) == sorted([*CLEAN, SECRET])
    assert _carried(alice) == set(CLEAN)
    with Store.open(alice) as store:
        kept = settings.stored(store.db, ledger_verdicts.SETTING)
    assert kept["guard"] == ledger_verdicts.guard_print()
    # The secret's line, which the upstream still holds, is read at each sync: its verdict too.
    verdicts = sorted(kept["lines"].values(), key=str)
    assert verdicts == [
        *[None] * len(CLEAN),
        "holds what looks like a secret (rule aws-access-key, in its line)",
    ]


def test_a_new_guard_reads_every_line_again(
    tmp_path: Path, reads: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = first_repo(tmp_path)
    hub(tmp_path, alice)
    _append(alice, CLEAN)
    publish(alice, "a teammate's lines")
    remember(alice, "A note written after the teammate's lines")
    assert len(reads) == len(CLEAN)
    monkeypatch.setattr(ledger_verdicts, "_GUARD", ["a guard with a new rule"])
    remember(alice, "A note written by the newer guard")
    assert len(reads) == 2 * len(CLEAN) and _carried(alice) == set(CLEAN)
