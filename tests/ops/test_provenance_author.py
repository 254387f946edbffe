"""Who committed an upstream ledger line is whatever git records, chosen by
whoever committed: the author Tree Ring keeps and shows is held to what a
name may be. One that reads as a secret is withheld whole; control and
invisible characters are dropped (an ASCII control becomes a space), so
`show` prints it on one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from team_support import clone, first_repo, git, hub, ok, pull, raw_bytes, session_start
from test_ledger_trust import heartwood

from tree_ring.guard.messages import BARE
from tree_ring.store.db import Store
from tree_ring.team import provenance, upstream

TOKEN = "ghp_pLIix6MEOLeMa61EqJomTEI1JEzO3joOj37H"
REF = "refs/remotes/origin/main"


def shared_by(tmp_path: Path, name: str, email: str) -> tuple[Path, str, str]:
    """Alice's decision, committed under `name` <`email`> and pushed; Bob's
    clone takes it through the SessionStart hook. (Bob, its id, its commit.)"""
    alice = first_repo(tmp_path)
    origin = hub(tmp_path, alice)
    bob = clone(origin, tmp_path, "bob")
    decided = heartwood(alice, "Deploys freeze on Fridays after the release branch is cut")
    git(alice, "add", "-A")
    git(alice, "-c", f"user.name={name}", "-c", f"user.email={email}", "commit", "-q", "-m", "d")
    git(alice, "push", "-q")
    pull(bob)
    assert "Deploys freeze on Fridays" in session_start(bob)
    return bob, decided, git(alice, "rev-parse", "HEAD").stdout.strip()


@pytest.mark.parametrize(
    ("name", "email", "secret"),
    [
        (TOKEN, "eve@example.com", TOKEN),
        ("Eve", f"{TOKEN}@example.com", TOKEN),
        ("Eve", "password=hunter2horse@example.com", "hunter2horse"),
    ],
)
def test_an_author_that_reads_as_a_secret_is_withheld(
    tmp_path: Path, name: str, email: str, secret: str
) -> None:
    bob, decided, head = shared_by(tmp_path, name, email)
    shown = ok(bob, "--json", "show", decided).json()["provenance"]
    assert shown == {
        "source": "upstream",
        "commit": head,
        "author": BARE,
        "ref": REF,
        "label": f"team ledger, upstream {REF} commit {head[:12]} by {BARE}",
    }
    text = ok(bob, "show", decided).out
    assert f"by {BARE}" in text and secret not in text
    assert secret.encode() not in raw_bytes(bob)


def test_control_characters_in_an_author_are_dropped(tmp_path: Path) -> None:
    bob, decided, head = shared_by(tmp_path, "Eve\x1b[2J\x07 Doe", "eve@example.com")
    shown = ok(bob, "--json", "show", decided).json()["provenance"]
    assert shown["author"] == "Eve [2J Doe <eve@example.com>"
    text = ok(bob, "show", decided).out
    said = f"upstream {REF} commit {head[:12]} by Eve [2J Doe <eve@example.com>"
    assert f"provenance: team ledger, {said}\n" in text
    assert "\x1b" not in text and "\x07" not in text


def test_an_author_kept_before_it_was_checked_is_withheld_when_read(tmp_path: Path) -> None:
    """A row a store kept before authors were checked: `provenance.of` checks it again."""
    bob, decided, _ = shared_by(tmp_path, "Alice", "alice@example.com")
    with Store.open(bob) as store:
        store.conn.execute("UPDATE ledger_provenance SET author = ?", (f"{TOKEN} <e@x>",))
        store.conn.commit()
        assert provenance.of(store.db, [decided])[decided]["author"] == BARE


@pytest.mark.parametrize(
    ("raw", "kept"),
    [
        ("Alice <alice@example.com>", "Alice <alice@example.com>"),
        ("Al\tice\n <a@x>", "Al ice <a@x>"),
        ("Al\u200bice <a@x>", "Alice <a@x>"),
        (f"{TOKEN} <a@x>", BARE),
    ],
)
def test_safe_author(raw: str, kept: str) -> None:
    assert upstream.safe_author(raw) == kept
