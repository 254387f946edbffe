"""A tombstone line widened to hold a kept memory's words, once it is the
upstream's: the clone that pushed it keeps the memory while every clone
built from the ledger drops it. `doctor` names that however the line came
to be the store's own; a fresh clone's `init` names the line it did not
take; a person's re-admission, approved, mends it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from team_support import (
    LEDGER,
    clone,
    commit,
    first_repo,
    forget_hashes,
    forget_line,
    git,
    hub,
    ledger_check,
    ok,
    publish,
    pull,
    remember,
    shared_ids,
    summaries,
    widen_tombstone,
)

FORGOTTEN = "The deploy key lives in vault path ops/deploy-legacy"
KEPT = "The catalog cache keeps entries for ten minutes"


def _widened(tmp_path: Path) -> tuple[Path, str, str]:
    """Alice's clone after she pushed a tombstone line widened to hold her
    kept memory's words, past doctor's FAIL, and synced: (root, kept id,
    forgotten id)."""
    alice = first_repo(tmp_path)
    hub(tmp_path, alice)
    kept = remember(alice, KEPT)
    gone = remember(alice, FORGOTTEN)
    kept_hashes = forget_hashes(tmp_path, KEPT)
    ok(alice, "forget", gone, "--mode", "delete", "--reason", "never store this")
    publish(alice, "forget the key")
    widen_tombstone(alice, gone, kept_hashes)
    assert ledger_check(alice)["ok"] is False  # the edit, before it is pushed
    publish(alice, "an edited tombstone")
    ok(alice, "sync")  # the upstream's line is believed: now the store's own
    assert kept in shared_ids(alice)
    return alice, kept, gone


def test_doctor_names_a_kept_memory_the_upstreams_tombstone_refuses(tmp_path: Path) -> None:
    alice, kept, _ = _widened(tmp_path)
    check = ledger_check(alice)
    assert check["ok"] is False
    assert check["detail"] == (
        f"{LEDGER}'s tombstone or redaction lines refuse 1 memory(ies) this store keeps "
        f"({kept}): every clone built from the ledger drops them (`git log -p -- {LEDGER}` "
        "shows the commit that gave a line their words); re-admit each that should stay: "
        "`tree-ring review readmit ID --reason WHY` (it says what to do for one whose own "
        "id was forgotten)"
    )


def test_a_fresh_clones_init_names_the_line_it_did_not_take(tmp_path: Path) -> None:
    alice, kept, gone = _widened(tmp_path)
    bob = clone(alice, tmp_path, "bob", init=False)
    notes = ok(bob, "--json", "init").json()["notes"]
    assert kept not in shared_ids(bob)
    number = next(
        n
        for n, text in enumerate((bob / LEDGER).read_text(encoding="utf-8").splitlines(), 1)
        if json.loads(text).get("id") == kept and json.loads(text)["record"] == "memory"
    )
    [note] = [n for n in notes if n.startswith(f"{LEDGER}:")]
    assert note.startswith(f"{LEDGER}:{number}: {kept}: this content was forgotten on ")
    assert f"(as {gone})" in note


def test_re_admitted_as_it_stands_it_keeps_its_words_for_every_clone(tmp_path: Path) -> None:
    alice, kept, _ = _widened(tmp_path)
    again = ok(
        alice, "--json", "remember", KEPT, "--override-tombstone", "--reason", "kept on purpose"
    ).json()
    assert (again["id"], again["created"], again["readmitted"]) == (kept, False, True)
    assert shared_ids(alice) == {kept}
    assert ledger_check(alice)["ok"] is True
    publish(alice, "re-admitted")
    carol = clone(alice, tmp_path, "carol")
    assert shared_ids(carol) == {kept}
    assert ledger_check(carol)["ok"] is True


def test_a_clean_init_has_no_skipped_notes(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    remember(alice, KEPT)
    commit(alice, "a memory")
    bob = clone(alice, tmp_path, "bob", init=False)
    notes = ok(bob, "--json", "init").json()["notes"]
    assert [n for n in notes if n.startswith(f"{LEDGER}:")] == []
    assert KEPT in summaries(bob)


def _only_in_history(
    tmp_path: Path, alice: Path, shared: Path, memory_id: str, at: str | None = None
) -> None:
    """A branch adds a tombstone line of KEPT's words under `memory_id` (dated
    `at`) and removes it again; Alice merges it with a merge commit, pushes
    and syncs."""
    stone = {**forget_line(tmp_path, KEPT), "id": memory_id}
    if at is not None:
        stone["at"] = at
    mallory = clone(shared, tmp_path, "mallory", init=False)
    git(mallory, "checkout", "-q", "-b", "feature")
    path = mallory / LEDGER
    before = path.read_text(encoding="utf-8")
    line = json.dumps(stone, sort_keys=True, separators=(",", ":"))
    path.write_text(f"{before}{line}\n", encoding="utf-8")
    commit(mallory, "wip")
    path.write_text(before, encoding="utf-8")
    commit(mallory, "tidy")
    git(mallory, "push", "-q", "origin", "feature")
    git(alice, "fetch", "-q")
    git(alice, "merge", "--no-ff", "-q", "--no-edit", "origin/feature")
    git(alice, "push", "-q")
    ok(alice, "sync")


@pytest.mark.parametrize("verb", ["review readmit", "remember --override-tombstone"])
def test_a_tombstone_only_the_history_holds_is_named(tmp_path: Path, verb: str) -> None:
    """A branch adds a tombstone line holding a kept memory's words and
    removes it again, so its diff shows no ledger change; merged, every new
    clone reads it from the upstream's history and drops the memory."""
    alice = first_repo(tmp_path)
    shared = hub(tmp_path, alice)
    kept = remember(alice, KEPT)
    publish(alice, "a memory")
    _only_in_history(tmp_path, alice, shared, "mem_20261201_000000_0123456789ab")
    assert kept in shared_ids(alice)
    check = ledger_check(alice)
    assert check["ok"] is False
    assert f"refuse 1 memory(ies) this store keeps ({kept})" in str(check["detail"])
    fresh = clone(shared, tmp_path, "fresh")
    assert kept not in shared_ids(fresh)
    # The line only the history holds is in its audit log, naming no memory.
    assert ok(fresh, "--json", "audit", "verify").json()["ok"] is True
    # The fresh clone's doctor names the team's line it drops, not an edit.
    assert ledger_check(fresh)["detail"] == (
        f"{LEDGER} holds 1 line(s) of the upstream's with words this store forgot ({kept}): "
        "every clone built from the ledger drops them, while the clone that wrote them keeps "
        "them; there, `tree-ring review readmit ID --reason WHY` re-admits each that should "
        "stay, and a `tree-ring sync` here drops the rest from the file"
    )
    # Re-admitted where it is kept, over the line only the history holds.
    if verb == "review readmit":
        ok(alice, "review", "readmit", kept, "--reason", "the staging note stays")
    else:  # its own words: the memory itself, over the ledger's tombstones
        ok(alice, "remember", KEPT, "--override-tombstone", "--reason", "the staging note stays")
    assert ledger_check(alice)["ok"] is True
    publish(alice, "re-admitted")
    pull(fresh)
    ok(fresh, "sync")
    assert kept in shared_ids(fresh) and ledger_check(fresh)["ok"] is True
    assert kept in shared_ids(clone(shared, tmp_path, "newer"))


def test_a_history_line_of_the_memorys_own_id_says_no_line_of_its_own(tmp_path: Path) -> None:
    """The line only the history holds names the kept memory itself, dated
    after the forget Alice then makes: a new clone keeps the content out, and
    writes the lines the file holds, as the file holds them."""
    alice = first_repo(tmp_path)
    shared = hub(tmp_path, alice)
    kept = remember(alice, KEPT)
    publish(alice, "a memory")
    _only_in_history(tmp_path, alice, shared, kept, at="2030-01-01T00:00:00.000000Z")
    ok(alice, "forget", kept, "--mode", "delete", "--reason", "as the team did")
    again = ok(
        alice, "--json", "remember", KEPT, "--override-tombstone", "--reason", "it holds"
    ).json()["id"]
    ok(alice, "review", "approve", again, "--reason", "checked")
    publish(alice, "its words under a new id")
    fresh = clone(shared, tmp_path, "fresh")
    assert shared_ids(fresh) == {again}
    assert ledger_check(fresh)["ok"] is True
    # Its first sync takes in only what the file says: it writes no line, not
    # even an anchor of its own (its log holds nothing but the ledger's imports).
    ok(fresh, "sync")
    changed = [
        json.loads(text[1:])["record"]
        for text in git(fresh, "diff", "--", LEDGER).stdout.splitlines()
        if text.startswith(("+{", "-{"))
    ]
    assert changed == []
