"""The answers a brief keeps about its rows (the guard's, and the keys' against
the other store's forgets) give the brief it would give without them, through
any sequence of writes, forgets and re-admissions, and hold no text."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO, CliRunner, cli_runner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tree_ring.api.project import Project
from tree_ring.harness import guidance
from tree_ring.store import guard_answers, moved

CLAIMS = (
    "Deploy the payments service only from the release branch",
    "Payments service logs go to the audit bucket",
    "The staging database is shared with the QA team",
)


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    return {"TREE_RING_USER_HOME": str(tmp_path / "me")}


@pytest.fixture
def other(tmp_path: Path) -> Path:
    root = tmp_path / "other"
    root.mkdir()
    guidance.init_project(root)
    return root


def _run(run_cli: CliRunner, home: dict[str, str], *args: str) -> dict[str, Any]:
    done = run_cli("--json", *args, environ=home)
    assert done.code == 0, done.err
    data: dict[str, Any] = done.json()
    return data


def _store(root: Path) -> Path:
    return root / ".tree-ring" / "memory.sqlite"


def _kept(root: Path) -> Any:
    with sqlite3.connect(_store(root)) as conn:
        row = conn.execute("SELECT value FROM settings WHERE key = 'brief_checks'").fetchone()
    return None if row is None else json.loads(row[0])


def _drop_kept(root: Path) -> None:
    with sqlite3.connect(_store(root)) as conn:
        conn.execute("DELETE FROM settings WHERE key = 'brief_checks'")


def _brief(root: Path, home: dict[str, str]) -> tuple[str, tuple[str, ...]]:
    with Project.open(str(root), home) as here:
        found = here.brief()
    return found.text, found.ids


def _kept_and_fresh(root: Path, home: dict[str, str]) -> tuple[str, tuple[str, ...]]:
    """The brief with what the last one kept, which must be the brief without it."""
    kept = _brief(root, home)
    _drop_kept(root)
    assert _brief(root, home) == kept
    return kept


def _forgotten_here_held_there(
    run_cli: CliRunner, home: dict[str, str], other: Path, claim: str
) -> str:
    """The project forgets `claim`; a global note holding it, written from
    `other` (which forgot nothing), is the id returned: hidden here."""
    gone = _run(run_cli, home, "remember", claim)["id"]
    _run(run_cli, home, "forget", gone, "--mode", "delete", "--reason", "no")
    return str(_run(cli_runner(other), home, "remember", claim, "--scope", "global")["id"])


# One step of a history: (where, what, which claim). `here` is the project
# briefed, `there` another project of the same person; a teammate's forget
# (whose user store holds none of the person's notes) tombstones a claim the
# person's user store may hold.
STEPS = st.tuples(
    st.sampled_from(["here", "there"]),
    st.sampled_from(["remember", "global", "forget", "forget-user", "readmit", "teammate"]),
    st.integers(min_value=0, max_value=1),
)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(history=st.lists(STEPS, min_size=1, max_size=7))
# A row kept as clear, then its claim forgotten; a row kept as hidden, then written over.
@example(history=[("here", "global", 0), ("here", "teammate", 0)])
@example(
    history=[
        ("here", "remember", 1),
        ("here", "forget", 1),
        ("there", "global", 1),
        ("here", "readmit", 1),
    ]
)
def test_a_kept_answer_gives_the_brief_asking_again_gives(
    tmp_path_factory: pytest.TempPathFactory, history: list[tuple[str, str, int]]
) -> None:
    base = tmp_path_factory.mktemp("history")
    home = {"TREE_RING_USER_HOME": str(base / "me")}
    roots = {"here": base / "here", "there": base / "there"}
    for root in roots.values():
        root.mkdir()
        guidance.init_project(root)
    # Both stores forgot something from the start, so each row read is keyed.
    run = cli_runner(roots["here"])
    for user, unrelated in (([], "The coffee machine is on floor two"), (["--user"], CLAIMS[2])):
        scope = ["--scope", "global"] if user else []
        done = run("--json", "remember", unrelated, *scope, environ=home)
        run("forget", done.json()["id"], *user, "--mode", "delete", "--reason", "no", environ=home)
    written: dict[tuple[str, int], list[str]] = {}
    for where, what, which in history:
        run = cli_runner(roots[where])
        claim = CLAIMS[which]
        if what in ("remember", "global"):
            scope = ["--scope", "global"] if what == "global" else []
            done = run("--json", "remember", claim, *scope, environ=home)
            if done.code == 0:
                key = ("user" if what == "global" else where, which)
                written.setdefault(key, []).append(done.json()["id"])
        elif what == "teammate":
            teammate = {"TREE_RING_USER_HOME": str(base / "teammate")}
            done = run("--json", "remember", claim, environ=teammate)
            if done.code == 0:
                run(
                    "forget",
                    done.json()["id"],
                    "--mode",
                    "delete",
                    "--reason",
                    "no",
                    environ=teammate,
                )
        elif what in ("forget", "forget-user"):
            key = ("user" if what == "forget-user" else where, which)
            if written.get(key):
                user = ["--user"] if what == "forget-user" else []
                run(
                    "forget",
                    written[key].pop(),
                    *user,
                    "--mode",
                    "delete",
                    "--reason",
                    "no",
                    environ=home,
                )
        else:
            done = run(
                "--json", "remember", claim, "--scope", "global", "--override-tombstone",
                "--reason", "it holds again", environ=home,
            )  # fmt: skip
            if done.code == 0 and (found := done.json().get("id")):
                run("review", "approve", found, "--user", "--reason", "ok", environ=home)
                written.setdefault(("user", which), []).append(found)
        _kept_and_fresh(roots["here"], home)


def test_a_forget_after_a_kept_answer_hides_the_row(
    project_root: Path, other: Path, home: dict[str, str], run_cli: CliRunner
) -> None:
    mine = _run(cli_runner(other), home, "remember", CLAIMS[0], "--scope", "global")["id"]
    _, ids = _kept_and_fresh(project_root, home)
    assert mine in ids and _kept(project_root)["forgets"] == {}
    # The project forgets the claim: the user store's copy, kept as clear when
    # the project had forgotten something else, is hidden.
    copy = _run(run_cli, home, "remember", CLAIMS[1])["id"]
    _run(run_cli, home, "forget", copy, "--mode", "delete", "--reason", "no")
    _, ids = _brief(project_root, home)
    assert mine in ids
    assert any(entry["clear"] for entry in _kept(project_root)["forgets"].values())
    # A project copy of another person's note, forgotten here (the user store
    # holds none of it, so the claim is tombstoned).
    teammate = {"TREE_RING_USER_HOME": str(project_root.parent / "teammate")}
    again = _run(run_cli, teammate, "remember", CLAIMS[0])["id"]
    _run(run_cli, teammate, "forget", again, "--mode", "delete", "--reason", "no")
    assert mine not in _kept_and_fresh(project_root, home)[1]


def test_a_readmission_shows_a_row_kept_as_hidden(
    project_root: Path, other: Path, home: dict[str, str], run_cli: CliRunner
) -> None:
    copy = _forgotten_here_held_there(run_cli, home, other, CLAIMS[0])
    assert copy not in _brief(project_root, home)[1]
    [entry] = _kept(project_root)["forgets"].values()
    assert list(entry["held"].values()) == [True]
    again = _run(
        run_cli, home, "remember", CLAIMS[0], "--scope", "global",
        "--override-tombstone", "--reason", "it holds again",
    )["id"]  # fmt: skip
    assert again in _kept_and_fresh(project_root, home)[1]


def test_every_change_to_the_tombstones_moves_the_count(project_root: Path) -> None:
    """Inserts, updates and deletes, by any hand: each moves the count, to a
    value it has not held."""
    with sqlite3.connect(_store(project_root)) as conn:
        counts = [conn.execute("SELECT value FROM settings WHERE key = ?", (moved.KEY,)).fetchone()]
        insert = "INSERT INTO content_tombstones VALUES ('p', 'h', 'forgotten', 'r', 'm', 'a', 't')"
        changes = (
            insert,
            "UPDATE content_tombstones SET kind = 'rejected'",
            "UPDATE content_tombstones SET kind = 'forgotten'",
            "DELETE FROM content_tombstones",
            insert,
        )
        for sql in changes:
            conn.execute(sql)
            counts.append(
                conn.execute("SELECT value FROM settings WHERE key = ?", (moved.KEY,)).fetchone()
            )
    values = [int(row[0]) for row in counts]
    assert len(set(values)) == len(values) and all(0 <= v < 2**53 for v in values)


def test_a_store_without_the_count_keeps_no_answer_against_it(
    project_root: Path, other: Path, home: dict[str, str], run_cli: CliRunner
) -> None:
    gone = _run(run_cli, home, "remember", CLAIMS[0])["id"]
    _run(run_cli, home, "forget", gone, "--mode", "delete", "--reason", "no")
    _run(cli_runner(other), home, "remember", CLAIMS[1], "--scope", "global")
    with sqlite3.connect(_store(project_root)) as conn:
        conn.execute("DELETE FROM settings WHERE key = ?", (moved.KEY,))
    _kept_and_fresh(project_root, home)
    assert _kept(project_root)["forgets"] == {}


def test_a_new_guard_reads_every_text_again(
    project_root: Path, home: dict[str, str], run_cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A text kept as clean is not read again by the same guard; a guard
    whose code changed (a new rule) reads it, and its finding withholds the row."""
    shown = _run(run_cli, home, "remember", CLAIMS[2])["id"]
    assert shown in _brief(project_root, home)[1]
    read: list[str] = []

    def flags(text: str) -> str | None:
        read.append(text)
        return "a new rule" if "staging" in text else None

    monkeypatch.setattr("tree_ring.guard.find_secret", flags)
    assert shown in _brief(project_root, home)[1] and read == []
    monkeypatch.setattr(guard_answers, "_CODE", ["sha256:another guard"])
    assert shown not in _brief(project_root, home)[1]
    assert any("staging" in text for text in read)


def test_the_record_holds_hashes_and_no_text(
    project_root: Path, other: Path, home: dict[str, str], run_cli: CliRunner
) -> None:
    """What the record keeps of a forgotten row is a hash of it, never its words."""
    _forgotten_here_held_there(run_cli, home, other, CLAIMS[0])
    _run(run_cli, home, "remember", CLAIMS[1])
    _brief(project_root, home)
    raw = json.dumps(_kept(project_root))
    assert all(word not in raw.lower() for claim in CLAIMS for word in claim.lower().split()[1:])


def test_a_record_damaged_by_hand_is_asked_again(
    project_root: Path, other: Path, home: dict[str, str], run_cli: CliRunner
) -> None:
    hidden = _forgotten_here_held_there(run_cli, home, other, CLAIMS[0])
    shown = _run(run_cli, home, "remember", CLAIMS[1])["id"]
    expected = _brief(project_root, home)
    assert shown in expected[1] and hidden not in expected[1]
    damaged = (
        "not json",
        '"a string"',
        '{"code": 1, "clean": 2, "forgets": []}',
        '{"forgets": {"x": {"changes": "1", "clear": [1], "held": [true]}}}',
    )
    for value in damaged:
        with sqlite3.connect(_store(project_root)) as conn:
            conn.execute("UPDATE settings SET value = ? WHERE key = 'brief_checks'", (value,))
        assert _brief(project_root, home) == expected


def test_a_busy_or_read_only_store_keeps_nothing_and_waits_for_nothing(
    project_root: Path, home: dict[str, str], run_cli: CliRunner
) -> None:
    _run(run_cli, home, "remember", CLAIMS[1])
    expected = _kept_and_fresh(project_root, home)
    _drop_kept(project_root)
    holder = sqlite3.connect(_store(project_root), isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        assert _brief(project_root, home) == expected
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert _kept(project_root) is None
    with Project.open(str(project_root), {**home, "TREE_RING_READ_ONLY": "1"}) as here:
        assert (here.brief().text, here.brief().ids) == expected
    assert _kept(project_root) is None


# Computes rows' keys as a read does, and the guard's verdict on texts of
# several scripts and spellings, then names every Tree Ring file loaded.
KEYS_PROBE = """\
import sys
sys.path.insert(0, sys.argv[1])
before = set(sys.modules)
from tree_ring.model.record import Link, Memory
from tree_ring.store import carried_words, tombstones
from tree_ring import guard
from tree_ring.read import forgotten_here
texts = ["Revolve \u00c4piGateway runs v2Checks: see docs",
    "Deploys&#32;freeze%20on&nbsp;Fridays <b>after</b> the cut",
    "\uff26\uff55\uff4c\uff4c width. Second sentence here",
    "\u0414\u0435\u043f\u043b\u043e\u0439 \u043f\u043e "
    "\u043f\u044f\u0442\u043d\u0438\u0446\u0430\u043c",
    "D\u24a0\u24ab\u24a7 token ghp_Zk3q9XvB7mWp2LdR8sTn4YcH6jFa1Ue5GoQi \u0440assword=Qv8#nL2x!Rt5"]
for text in texts:
    m = Memory(id="mem_deploy-from-main", created_at="2026-01-01T00:00:00Z",
        updated_at="2026-01-01T00:00:00Z", summary=text, details=text, event_type="note",
        project="p", valid_from="2026-01-01T00:00:00Z", review_reason="because the RunBook says",
        origin_session="session one two", tags=["deployOnlyFromMain"],
        links=(Link(type="relates", target="mem_other-words-here"),)).with_hash()
    tombstones.check_keys(m); carried_words.carried_keys(m)
    guard.find_secret(text)
made = [sys.modules[n] for n in set(sys.modules) - before if n.startswith("tree_ring")]
print("\\n".join(sorted(getattr(module, "__file__", "") or "" for module in made)))
"""


def test_the_code_print_names_every_module_the_kept_answers_come_from() -> None:
    done = subprocess.run(
        [sys.executable, "-I", "-c", KEYS_PROBE, str(REPO)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    package = REPO / "tree_ring"
    loaded = {Path(line).relative_to(package).as_posix() for line in done.stdout.split() if line}
    named = set(guard_answers.KEYS_CODE)
    # The guard's package is printed whole; the rest must be named.
    needed = {p for p in loaded if not p.endswith("__init__.py") and not p.startswith("guard/")}
    assert any(p.startswith("guard/") for p in loaded)
    assert needed <= named, sorted(needed - named)
    assert {"model/escapes.py", "read/forgotten_here.py"} <= needed
    # Loaded with a store: the check itself, and the re-admissions a held row's answer reads.
    assert {"read/brief_checks.py", "store/audit.py"} <= named
