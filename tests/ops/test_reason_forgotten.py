"""A reason given after a forget never keeps the forgotten words.

Every decision that keeps a reason (on the memory it decides, in the audit
log, in the policy audit) refuses one that quotes content already forgotten,
in one line, a person's as an agent's: a review reason travels with its
memory in the team ledger, where a clone that forgot the words refuses the
line, so the memory a person approved or promoted would never reach a
teammate. Whatever a row came to hold, the ledger a clone writes withholds
what it forgot from the strings a line carries; and `policy audit` shows a
recovery's reason as `audit log` does, with what was forgotten since withheld.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from governance_support import CLAUDE
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
    remember,
    shared_ids,
)

from tree_ring.model import project

FORGOTTEN = "The vault unseal ceremony happens in room Bravo Twelve"
# What no stored text, line or output may hold once FORGOTTEN is forgotten.
WORDS = "unseal ceremony"
QUOTING = f"because {FORGOTTEN.lower()}"
MARK = "[withheld: forgotten content]"
REFUSED_TAIL = "and it holds content this project forgot; give the reason without it\n"


def _forgotten(root: Path) -> None:
    """FORGOTTEN remembered, then forgotten by a person."""
    ok(root, "forget", remember(root, FORGOTTEN), "--mode", "delete", "--reason", "not true")


def _agent(root: Path, text: str, *flags: str) -> str:
    done = cli(root, "--json", "remember", text, *flags, environ=CLAUDE)
    assert done.code == 0, done.err
    return done.json()["id"]


def _stored_texts(root: Path) -> str:
    """Every row of the tables a decision keeps a reason in, as text."""
    conn = sqlite3.connect(project.store_path(root))
    try:
        tables = ("memories", "audit_log", "policy_audit", "forget_requests", "content_tombstones")
        return "\n".join(
            str(tuple(row)) for t in tables for row in conn.execute(f"SELECT * FROM {t}")
        )
    finally:
        conn.close()


def _holds_no_words(root: Path, *, stored: bool = True) -> None:
    """Neither the ledger nor an export nor the audit log's reads hold
    WORDS; with `stored`, nor any row of the store (the audit log keeps the
    bytes of a reason given before the words were forgotten: its chain was
    hashed over them)."""
    ok(root, "sync")
    assert WORDS.encode() not in (root / LEDGER).read_bytes()
    assert WORDS not in ok(root, "export", "--include-unreviewed").out
    assert WORDS not in ok(root, "audit", "log").out
    assert not stored or WORDS not in _stored_texts(root)


# ------------------------------------------------ each reason-taking write


def _approve(root: Path) -> list[str]:
    return ["review", "approve", _agent(root, "Always squash merge", "--scope", "project")]


def _approve_all(root: Path) -> list[str]:
    _agent(root, "Always squash merge", "--scope", "project")
    return ["review", "approve", "--all"]


def _reject(root: Path) -> list[str]:
    return ["review", "reject", _agent(root, "Never rebase main", "--scope", "project")]


def _dispute(root: Path) -> list[str]:
    return ["review", "dispute", remember(root, "The lint runs nightly")]


def _promote(root: Path) -> list[str]:
    return ["promote", _agent(root, "The printer is on floor two")]


def _promote_global(root: Path) -> list[str]:
    return ["promote", _agent(root, "The printer is on floor two"), "--scope", "global"]


def _inbox_promote(root: Path) -> list[str]:
    _agent(root, "The printer is on floor two")
    return ["inbox", "--all", "--promote"]


def _refute(root: Path) -> list[str]:
    return ["refute", remember(root, "Builds take an hour")]


def _supersede(root: Path) -> list[str]:
    return ["supersede", remember(root, "Deploys use ansible"), remember(root, "Deploys use tf")]


def _confirm(root: Path) -> list[str]:
    (root / "retry.py").write_text("tries = 5\n", encoding="utf-8")
    memory = ok(root, "--json", "remember", "Retries stop at five", "--file", "retry.py")
    return ["confirm", memory.json()["id"]]


def _forget(root: Path) -> list[str]:
    return ["forget", remember(root, "The queue is rabbit"), "--mode", "delete"]


def _request(root: Path) -> str:
    asked = cli(root, "--json", "forget", remember(root, "The db is postgres"), "--mode",
                "delete", "--reason", "stale", environ=CLAUDE)  # fmt: skip
    assert asked.code == 0, asked.err
    return asked.json()["request"]


def _request_approve(root: Path) -> list[str]:
    return ["review", "approve", _request(root)]


def _request_reject(root: Path) -> list[str]:
    return ["review", "reject", _request(root)]


def _readmit(root: Path) -> list[str]:
    return ["remember", FORGOTTEN, "--override-tombstone"]


def _policy_rotate(root: Path) -> list[str]:
    ok(root, "policy", "enable", "--coordinator", "lead")
    return ["policy", "rotate"]


def _policy_disable(root: Path) -> list[str]:
    ok(root, "policy", "enable", "--coordinator", "lead")
    return ["policy", "disable"]


WRITES: dict[str, tuple[Callable[[Path], list[str]], str]] = {
    "approve": (_approve, "is kept on the memory and travels with it"),
    "approve --all": (_approve_all, "is kept on the memory and travels with it"),
    "reject": (_reject, "is kept on the memory and travels with it"),
    "dispute": (_dispute, "is kept on the memory and travels with it"),
    "promote": (_promote, "is kept on the memory and travels with it"),
    "promote --scope global": (_promote_global, "is kept on the memory and travels with it"),
    "inbox --promote": (_inbox_promote, "is kept on the memory and travels with it"),
    "refute": (_refute, "is kept in the audit log"),
    "supersede": (_supersede, "is kept in the audit log"),
    "confirm": (_confirm, "is kept in the audit log"),
    "forget": (_forget, "is kept in the audit log"),
    "approve a request to forget": (_request_approve, "is kept in the audit log"),
    "reject a request to forget": (_request_reject, "is kept in the audit log"),
    "remember --override-tombstone": (_readmit, "travels with the re-admission to every clone"),
    "policy rotate": (_policy_rotate, "is kept in the audit log and the policy audit"),
    "policy disable": (_policy_disable, "is kept in the audit log and the policy audit"),
}


@pytest.mark.parametrize("verb", list(WRITES))
def test_a_persons_reason_quoting_forgotten_content_is_refused(tmp_path: Path, verb: str) -> None:
    root = first_repo(tmp_path)
    _forgotten(root)
    setup, where = WRITES[verb]
    argv = setup(root)
    home = {"HOME": os.environ["HOME"]}  # the user store's, for a global promote
    refused = cli(root, *argv, "--reason", QUOTING, environ=home)
    assert refused.code == 2 and refused.out == "", refused.err
    assert refused.err.startswith(f"error: the reason {where}")
    assert refused.err.endswith(REFUSED_TAIL) and refused.err.count("\n") == 1
    _holds_no_words(root)
    if verb != "remember --override-tombstone":  # re-admitting the claim is its own test
        done = cli(root, *argv, "--reason", "checked with the team", environ=home)
        assert done.code == 0, done.err
    _holds_no_words(root)


def test_a_reason_given_before_the_forget_is_still_taken(tmp_path: Path) -> None:
    """Only words already forgotten are refused: a reason may quote what a
    forget later takes, and that forget withholds them (`write/carried.py`)."""
    root = first_repo(tmp_path)
    later = remember(root, FORGOTTEN)
    proposal = _agent(root, "Always squash merge", "--scope", "project")
    ok(root, "review", "approve", proposal, "--reason", QUOTING)
    ok(root, "forget", later, "--mode", "delete", "--reason", "not true")
    _holds_no_words(root, stored=False)
    shown = ok(root, "--json", "show", proposal).json()["memory"]
    assert shown["review"]["review_reason"] == f"because {MARK}"


def test_approving_a_request_writes_its_reason_again_without_what_was_forgotten_since(
    tmp_path: Path,
) -> None:
    """An agent's request to forget keeps the reason it was asked with; the
    forget a person's approval makes writes that reason again, beside the
    person's, in its tombstone and its audit entry: without the words
    forgotten since."""
    root = first_repo(tmp_path)
    claim = remember(root, FORGOTTEN)
    stale = remember(root, "The db is postgres")
    asked = cli(root, "--json", "forget", stale, "--mode", "delete", "--reason",
                f"stale, like {FORGOTTEN}", environ=CLAUDE)  # fmt: skip
    assert asked.code == 0, asked.err
    ok(root, "forget", claim, "--mode", "delete", "--reason", "not true")
    ok(root, "review", "approve", asked.json()["request"], "--reason", "yes")
    conn = sqlite3.connect(project.store_path(root))
    try:
        [said] = conn.execute(
            "SELECT reason FROM content_tombstones WHERE memory_id = ? LIMIT 1", (stale,)
        ).fetchone()
        [detail] = conn.execute(
            "SELECT detail FROM audit_log WHERE target = ? AND action = 'forget'", (stale,)
        ).fetchone()
    finally:
        conn.close()
    assert said.startswith(f"stale, like {MARK} (asked by claude-code in ")
    assert WORDS not in said and WORDS not in detail and MARK in json.loads(detail)["reason"]


# ------------------------------------------ the approved memory reaches a clone


def test_approved_and_promoted_memories_reach_a_fresh_clone(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    shared = hub(tmp_path, alice)
    _forgotten(alice)
    proposal = _agent(alice, "Always squash merge", "--scope", "project")
    note = _agent(alice, "The printer is on floor two")
    for argv in (("review", "approve", proposal), ("promote", note)):
        refused = cli(alice, *argv, "--reason", QUOTING)
        assert refused.code == 2 and refused.err.count("\n") == 1, refused.err
        ok(alice, *argv, "--reason", "matches the docs")
    _holds_no_words(alice)
    publish(alice, "ledger")
    fresh = clone(shared, tmp_path, "fresh", init=False)
    built = ok(fresh, "init")
    assert "forgotten here" not in built.out + built.err
    assert {proposal, note} <= shared_ids(fresh)


def _set_reason(root: Path, memory_id: str, reason: str) -> None:
    """A review reason as a store an older Tree Ring wrote may hold it."""
    conn = sqlite3.connect(project.store_path(root))
    try:
        with conn:
            conn.execute("UPDATE memories SET review_reason = ? WHERE id = ?", (reason, memory_id))
    finally:
        conn.close()


def test_the_ledger_never_carries_words_the_clone_forgot(tmp_path: Path) -> None:
    """Whatever a row holds, its line leaves out what this clone forgot: a
    reason stored with forgotten words (an older Tree Ring's) and one quoting
    a claim a review rejected after it was given (a rejection rewrites no
    row). Every fresh clone then takes both memories."""
    alice = first_repo(tmp_path)
    shared = hub(tmp_path, alice)
    _forgotten(alice)
    stored = _agent(alice, "Always squash merge", "--scope", "project")
    ok(alice, "review", "approve", stored, "--reason", "matches the docs")
    _set_reason(alice, stored, QUOTING)
    turned_down = "Keep the staging database on the old cluster forever"
    waiting = _agent(alice, turned_down, "--scope", "project")
    kept = _agent(alice, "Move staging to the new cluster", "--scope", "project")
    ok(alice, "review", "approve", kept, "--reason", f"unlike the idea to {turned_down.lower()}")
    ok(alice, "review", "reject", waiting, "--reason", "no")
    ok(alice, "sync")
    ledger = (alice / LEDGER).read_bytes()
    assert WORDS.encode() not in ledger
    assert b"old cluster forever" not in ledger
    lines = {e.get("id"): e for e in map(json.loads, ledger.decode().splitlines())}
    assert lines[stored]["review"]["review_reason"] == f"because {MARK}"
    assert lines[kept]["review"]["review_reason"] == f"unlike the idea to {MARK}"
    publish(alice, "ledger")
    fresh = clone(shared, tmp_path, "fresh", init=False)
    built = ok(fresh, "init")
    assert "forgotten here" not in built.out + built.err
    assert {stored, kept} <= shared_ids(fresh)
    ok(alice, "sync")  # the store's own line: nothing changes
    assert git(alice, "status", "--porcelain").stdout == ""


# ------------------------------------------------------------- policy audit


def test_policy_audit_withholds_a_recovery_reason_forgotten_since(tmp_path: Path) -> None:
    root = first_repo(tmp_path)
    claim = remember(root, FORGOTTEN)
    ok(root, "policy", "enable", "--coordinator", "lead")
    ok(root, "policy", "disable", "--reason", f"lost token; {FORGOTTEN}")
    ok(root, "forget", claim, "--mode", "delete", "--reason", "not true")
    commit(root, "forgot")
    shown = f"recovery by a person at the terminal: lost token; {MARK}"
    for environ in ({}, CLAUDE):
        text = cli(root, "policy", "audit", environ=environ)
        assert text.code == 0 and WORDS not in text.out, text.err
        assert text.out.count(shown) == 1
        listed = cli(root, "--json", "policy", "audit", environ=environ)
        assert listed.code == 0 and WORDS not in listed.out
        assert [i["reason"] for i in listed.json()["items"]].count(shown) == 1
    logged = ok(root, "audit", "log").out
    assert WORDS not in logged and MARK in logged
