"""A forget commits the store, then rewrites the team ledger. One stopped
between the two (killed, the terminal closed) leaves the forgotten text in a
file the person commits: `doctor` says so, and `sync` rewrites it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from team_support import (
    LEDGER,
    cli,
    first_repo,
    forget_hashes,
    hub,
    ledger_check,
    ledger_entries,
    ok,
    publish,
    remember,
    widen_tombstone,
)

from tree_ring.team import sync

FORGOTTEN = "The deploy key lives in vault path ops/deploy-legacy"
KEPT = "The catalog cache keeps entries for ten minutes"


@pytest.mark.parametrize("published", [False, True])
def test_a_forget_stopped_before_the_ledger_is_found_by_doctor_and_mended_by_sync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, published: bool
) -> None:
    alice = first_repo(tmp_path)
    gone, kept = remember(alice, FORGOTTEN), remember(alice, KEPT)
    if published:  # the upstream holds the line the forget left: still this store's lag
        hub(tmp_path, alice)
        publish(alice, "two memories")
    assert ledger_check(alice)["ok"] is True
    with monkeypatch.context() as stopped:
        # The process dies after the store's commit: the ledger is not rewritten.
        stopped.setattr(sync, "after_write", lambda *_args: False)
        ok(alice, "forget", gone, "--mode", "delete", "--reason", "never store this")
    assert FORGOTTEN in (alice / LEDGER).read_text(encoding="utf-8")
    check = ledger_check(alice)
    assert check["ok"] is False
    assert check["detail"] == (
        f"{LEDGER} still holds 1 memory(ies) this store forgot ({gone}): "
        "a forget stopped before it rewrote the ledger; run `tree-ring sync` before committing it"
    )
    ok(alice, "sync")
    assert FORGOTTEN not in (alice / LEDGER).read_text(encoding="utf-8")
    assert {(e["id"], e["record"]) for e in ledger_entries(alice)} == {
        (kept, "memory"),
        (gone, "tombstone"),
    }
    assert ledger_check(alice)["ok"] is True


def test_a_rejection_or_a_redaction_is_no_lag(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    redacted = remember(alice, FORGOTTEN)
    ok(alice, "forget", redacted, "--mode", "redact", "--reason", "wrong key")
    agent = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s1"}
    proposed = cli(alice, "--json", "remember", KEPT, "--scope", "project", environ=agent)
    assert proposed.code == 0, proposed.err
    ok(alice, "review", "reject", proposed.json()["id"], "--reason", "not ours")
    ok(alice, "sync")
    assert ledger_check(alice)["ok"] is True


def _copy_line(root: Path, summary: str, new_summary: str, new_id: str) -> None:
    """Append a copy of the ledger's line for `summary` under `new_id`, its
    text edited to `new_summary`: an agent's edit of the working tree, or a
    bad merge."""
    line = next(e for e in ledger_entries(root) if e.get("summary") == summary)
    line = {**line, "id": new_id, "summary": new_summary}
    line.pop("content_hash", None)
    with (root / LEDGER).open("a", encoding="utf-8") as ledger:
        ledger.write(json.dumps(line, sort_keys=True) + "\n")


@pytest.mark.parametrize("mode", ["delete", "redact"])
def test_forgotten_text_under_a_new_id_is_found_by_doctor(tmp_path: Path, mode: str) -> None:
    alice = first_repo(tmp_path)
    remember(alice, KEPT)
    gone = remember(alice, FORGOTTEN)
    ledger_before = (alice / LEDGER).read_text(encoding="utf-8")
    ok(alice, "forget", gone, "--mode", mode, "--reason", "never store this")
    copy = "mem_20260101_000000_aaaaaaaaaaaa"
    line = next(json.loads(text) for text in ledger_before.splitlines() if FORGOTTEN in text)
    line = {**line, "id": copy, "summary": FORGOTTEN + "."}
    line.pop("content_hash", None)
    with (alice / LEDGER).open("a", encoding="utf-8") as ledger:
        ledger.write(json.dumps(line, sort_keys=True) + "\n")
    check = ledger_check(alice)
    assert check["ok"] is False
    assert check["detail"] == (
        f"{LEDGER} holds text this store forgot in 1 line(s) it did not write ({copy}): "
        "a line copied or edited into the file; run `tree-ring sync`, which refuses those "
        "lines and rewrites the ledger, before committing it"
    )
    cli(alice, "sync")
    assert FORGOTTEN not in (alice / LEDGER).read_text(encoding="utf-8")
    assert ledger_check(alice)["ok"] is True


def test_a_teammates_new_line_is_no_forgotten_text(tmp_path: Path) -> None:
    """A line under an id the store does not hold, whose text nothing
    forgot: a teammate's memory a pull brought, which `sync` takes."""
    alice = first_repo(tmp_path)
    remember(alice, KEPT)
    gone = remember(alice, FORGOTTEN)
    ok(alice, "forget", gone, "--mode", "delete", "--reason", "never store this")
    _copy_line(
        alice,
        KEPT,
        "The search cache keeps entries for an hour",
        "mem_20260101_000000_bbbbbbbbbbbb",
    )
    assert ledger_check(alice)["ok"] is True


def test_a_person_re_admitting_forgotten_text_leaves_the_ledger_sound(tmp_path: Path) -> None:
    """A person writes forgotten words again over their tombstone and
    approves them: the ledger carries them, with the re-admission, and
    doctor finds it sound."""
    alice = first_repo(tmp_path)
    gone = remember(alice, FORGOTTEN)
    ok(alice, "forget", gone, "--mode", "delete", "--reason", "never store this")
    again = cli(
        alice,
        "--json",
        "remember",
        FORGOTTEN,
        "--override-tombstone",
        "--reason",
        "right after all",
    )
    assert again.code == 0, again.err
    ok(alice, "review", "approve", again.json()["id"], "--reason", "checked")
    assert FORGOTTEN in (alice / LEDGER).read_text(encoding="utf-8")
    assert ledger_check(alice)["ok"] is True


def test_hand_edited_lines_are_read_without_tripping(tmp_path: Path) -> None:
    """A line whose id is no string is left to `sync`; one `sync` would
    refuse as malformed still holds its words, which a commit would take."""
    alice = first_repo(tmp_path)
    remember(alice, KEPT)
    gone = remember(alice, FORGOTTEN)
    line = next(e for e in ledger_entries(alice) if e.get("summary") == FORGOTTEN)
    ok(alice, "forget", gone, "--mode", "delete", "--reason", "never store this")
    malformed = "mem_20260101_000000_cccccccccccc"
    with (alice / LEDGER).open("a", encoding="utf-8") as ledger:
        for odd in (
            {**line, "id": ["not", "an", "id"]},
            {**line, "id": malformed, "links": [{"no": "type"}]},
        ):
            ledger.write(json.dumps(odd, sort_keys=True) + "\n")
    check = ledger_check(alice)
    assert check["ok"] is False
    assert f"in 2 line(s) it did not write (line 5, {malformed})" in str(check["detail"])
    cli(alice, "sync")
    assert FORGOTTEN not in (alice / LEDGER).read_text(encoding="utf-8")
    assert ledger_check(alice)["ok"] is True


NEW_ID = "mem_20260101_000000_dddddddddddd"


def _nested(text: str, depth: int) -> object:
    value: object = text
    for _ in range(depth):
        value = [value]
    return value


# What an edit appends to the ledger, from the forgotten memory's line and a kept one's.
EDITS: dict[str, Callable[[dict[str, Any], dict[str, Any]], object]] = {
    # A re-admission the line names itself: the store that holds one writes its line.
    "forged re-admission": lambda gone, _kept: {
        **gone,
        "id": NEW_ID,
        "readmitted": {"by": "person", "overrides": [], "reason": "it is back"},
    },
    # A record this version does not know, which sync would carry.
    "unknown record": lambda gone, _kept: {"record": "note", "text": gone["summary"]},
    # A field this version does not know, on the line of a memory the store keeps.
    "unknown field": lambda gone, kept: {**kept, "remark": gone["summary"]},
    "no JSON": lambda gone, _kept: f"# {gone['summary']}",
    # A key holds words as well as a value does.
    "a key": lambda gone, _kept: {"record": "note", gone["summary"]: 1},
    # Nested deeper than any few levels a reader might stop at.
    "deeply nested": lambda gone, _kept: {"record": "note", "x": _nested(gone["summary"], 40)},
}


@pytest.mark.parametrize("edit", EDITS.values(), ids=EDITS.keys())
def test_forgotten_text_in_any_line_the_store_did_not_write(
    tmp_path: Path, edit: Callable[[dict[str, Any], dict[str, Any]], object]
) -> None:
    alice = first_repo(tmp_path)
    kept = remember(alice, KEPT)
    gone = remember(alice, FORGOTTEN)
    entries = {e["id"]: e for e in ledger_entries(alice)}
    ok(alice, "forget", gone, "--mode", "delete", "--reason", "never store this")
    line = edit(entries[gone], entries[kept])
    with (alice / LEDGER).open("a", encoding="utf-8") as ledger:
        ledger.write((line if isinstance(line, str) else json.dumps(line, sort_keys=True)) + "\n")
    assert ledger_check(alice)["ok"] is False
    cli(alice, "sync")
    assert FORGOTTEN not in (alice / LEDGER).read_text(encoding="utf-8")
    assert ledger_check(alice)["ok"] is True


def test_a_consolidation_rewritten_in_place_is_no_forgotten_memory(tmp_path: Path) -> None:
    """Forgetting one source of a consolidation rewrites it in place under
    its id, its old text tombstoned there: the store still holds that id,
    and its line says the new text."""
    alice = first_repo(tmp_path)
    remember(alice, "Cache warmup runs at boot on node alpha")
    source = remember(alice, "Cache warmup uses the orchid key prefix")
    remember(alice, "Cache warmup takes ninety seconds on node alpha")
    ok(alice, "consolidate")
    consolidations = [
        e for e in ledger_entries(alice) if (e.get("source") or {}).get("type") == "consolidation"
    ]
    assert len(consolidations) == 1
    ok(alice, "forget", source, "--mode", "delete", "--reason", "wrong prefix")
    rewritten = {e["id"]: e for e in ledger_entries(alice)}[consolidations[0]["id"]]
    assert rewritten["summary"] != consolidations[0]["summary"]
    assert ledger_check(alice)["ok"] is True


def test_a_tombstone_line_edited_to_refuse_a_kept_memory(tmp_path: Path) -> None:
    """An edit that adds a kept memory's words to another memory's
    tombstone line: every clone built from that ledger would drop the kept
    memory, so doctor names it."""
    alice = first_repo(tmp_path)
    kept = remember(alice, KEPT)
    gone = remember(alice, FORGOTTEN)
    kept_hashes = forget_hashes(tmp_path, KEPT)
    ok(alice, "forget", gone, "--mode", "delete", "--reason", "never store this")
    assert ledger_check(alice)["ok"] is True
    widen_tombstone(alice, gone, kept_hashes)
    check = ledger_check(alice)
    assert check["ok"] is False
    assert f"refuses 1 memory(ies) it keeps ({kept})" in str(check["detail"])
