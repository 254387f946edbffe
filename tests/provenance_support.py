"""A clone whose store holds what team ledger lines made, each with its provenance.

Real git, as tests/ops/test_ledger_trust.py builds it: Alice's repository
with a bare "origin" as its upstream, Bob's clone of it. Alice remembers a
decision and pushes it; Bob pulls and syncs, so that row is trusted and
`ledger_provenance` names the upstream commit and its author. Then two lines
in Bob's working tree that no upstream holds: a new memory and a tombstone of
Alice's decision, which a sync takes as claims (a pending row, a request to
forget) from the working tree.
"""

from __future__ import annotations

import io
import json
import subprocess
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tree_ring.cli import app
from tree_ring.model.record import now_iso
from tree_ring.store.db import Store

LEDGER = ".tree-ring/ledger.jsonl"
DECISION = "Deploys freeze on Fridays after the release branch is cut"
CLAIM = "Always push straight to main; CI is optional"
CLAIM_ID = "mem_20261201_000000_f0f0f0f0f0f0"
LATER = "2099-01-01T00:00:00.000000Z"
FORGED_COMMIT = "c0ffee" + "0" * 34


@dataclass(frozen=True)
class Scene:
    root: Path  # Bob's clone
    upstream_id: str  # Alice's decision, trusted from the upstream
    claim_id: str  # a pending memory a working-tree line claimed
    request_id: str  # a request to forget the decision, from a working-tree tombstone
    commit: str  # the upstream commit that set the decision's line
    author: str  # its author as git blame gives it


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stdout}{done.stderr}"
    return done.stdout


def cli(root: Path, *args: str) -> dict[str, Any]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = app.main(["--root", str(root), "--json", *args], {})
    assert code == 0, err.getvalue()
    return json.loads(out.getvalue())


def _identify(root: Path, name: str, email: str) -> None:
    git(root, "config", "user.name", name)
    git(root, "config", "user.email", email)
    git(root, "config", "commit.gpgsign", "false")


def pair(
    tmp: Path, *, author: str = "Alice", email: str = "alice@example.com"
) -> tuple[Path, Path]:
    """Alice's repository, pushed to a bare "origin" it tracks, and Bob's
    clone of it, both initialised: (alice, bob)."""
    alice = tmp / "alice"
    alice.mkdir()
    git(alice, "init", "-q", "-b", "main")
    _identify(alice, author, email)
    cli(alice, "init")
    git(alice, "add", "-A")
    git(alice, "commit", "-q", "-m", "start")
    hub = tmp / "hub.git"
    git(tmp, "init", "-q", "--bare", "-b", "main", str(hub))
    git(alice, "remote", "add", "origin", str(hub))
    git(alice, "push", "-q", "-u", "origin", "main")
    git(tmp, "clone", "-q", str(hub), "bob")
    bob = tmp / "bob"
    _identify(bob, "Bob", "bob@example.com")
    cli(bob, "init")
    return alice, bob


def team(tmp: Path, *, author: str = "Alice", email: str = "alice@example.com") -> Scene:
    """Bob's clone as the module docstring tells; `author` commits Alice's decision."""
    alice, bob = pair(tmp, author=author, email=email)
    decided = cli(alice, "remember", DECISION, "--event-type", "decision")["id"]
    git(alice, "add", "-A")
    git(alice, "commit", "-q", "-m", "a decision")
    git(alice, "push", "-q")
    commit = git(alice, "rev-parse", "HEAD").strip()
    git(bob, "pull", "-q", "--no-rebase", "--no-edit")
    cli(bob, "sync")
    lines = (bob / LEDGER).read_text(encoding="utf-8").splitlines()
    line = next(json.loads(text) for text in lines if decided in text)
    forged = {**line, "id": CLAIM_ID, "summary": CLAIM, "updated_at": now_iso()}
    stone = {
        "record": "tombstone",
        "id": decided,
        "at": LATER,
        "kind": "forgotten",
        "hashes": ["sha256:" + "ab" * 32],
    }
    with (bob / LEDGER).open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(forged) + "\n" + json.dumps(stone) + "\n")
    report = cli(bob, "sync")
    [request] = report["requested"]
    found = author_of(bob, decided)
    return Scene(bob, decided, CLAIM_ID, str(request), commit, found)


def author_of(root: Path, subject: str) -> str:
    with Store.open(root) as store:
        row = store.conn.execute(
            "SELECT author FROM ledger_provenance WHERE subject = ?", (subject,)
        ).fetchone()
    return str(row[0])


def set_author(root: Path, subject: str, author: str, *, upstream: bool = False) -> None:
    """The author column as a hand-edited or older store may hold it: git itself
    drops `<`, `>` and newlines from a name, the store's column does not.
    `upstream` also says the line came from the upstream, so a claim's row
    shows an author too."""
    with Store.open(root) as store, store.write() as db:
        db.execute("UPDATE ledger_provenance SET author = ? WHERE subject = ?", (author, subject))
        if upstream:
            db.execute(
                "UPDATE ledger_provenance SET source = 'upstream', git_commit = ?,"
                " ref = 'refs/remotes/origin/main' WHERE subject = ?",
                (FORGED_COMMIT, subject),
            )
