"""What a project forgot stays out of what it reads from the person's user store,
whichever project wrote it there, before any cap; other projects still read it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import CliRunner, cli_runner, make_memory

from tree_ring.api.project import Project
from tree_ring.harness import guidance
from tree_ring.read import brief, forgotten_here
from tree_ring.store import forgotten_rows, rows, tombstones, user
from tree_ring.store.db import Store

TEXT = "Deploy the payments service only from the release branch"
# The forgotten claim as other notes hold it: whole, annotated, one sentence of
# several, with other details. A write of any of these into the project is refused.
FORMS = (
    "{text}",
    "Note: {text} (confirmed)",
    "{text}. Also noted on day {i} of the rollout.",
)
VISIBLE = "Payments service logs go to the audit bucket"
MANY = 300


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    return {"TREE_RING_USER_HOME": str(tmp_path / "me")}


@pytest.fixture
def other(tmp_path: Path) -> Path:
    root = tmp_path / "other"
    root.mkdir()
    guidance.init_project(root)
    return root


def _run(run_cli: CliRunner, home: dict[str, str], *args: str) -> dict[str, object]:
    done = run_cli("--json", *args, environ=home)
    assert done.code == 0, done.err
    data: dict[str, object] = done.json()
    return data


def _forget(run_cli: CliRunner, home: dict[str, str], text: str) -> str:
    memory_id = str(_run(run_cli, home, "remember", text)["id"])
    _run(run_cli, home, "forget", memory_id, "--mode", "delete", "--reason", "wrong")
    return memory_id


@pytest.fixture
def crowded(
    run_cli: CliRunner, home: dict[str, str], other: Path, tmp_path: Path
) -> Iterator[tuple[list[str], str]]:
    """The project forgot TEXT; the user store holds MANY global notes that
    hold it, every one ranked before one note that does not (a scar of the
    highest salience before a plain note of the lowest, and holding every word
    of the question where it holds two)."""
    _forget(run_cli, home, TEXT)
    # The other project forgot nothing: there its global notes are written as ever.
    visible = str(_run(cli_runner(other), home, "remember", VISIBLE, "--scope", "global")["id"])
    with Store.open_file(str(tmp_path / "me" / "user.sqlite")) as mine:
        hidden = [
            make_memory(
                user.USER_PROJECT,
                FORMS[i % len(FORMS)].format(text=TEXT, i=i),
                details=f"Written while working on release {i}",
                scope="global",
                ring="scar",
                salience=1.0,
                confidence=1.0,
            )
            for i in range(MANY)
        ]
        with mine.write() as db:
            rows.insert_many(db, hidden)
            db.execute("UPDATE memories SET salience = 0.0 WHERE id = ?", (visible,))
    yield [m.id for m in hidden], visible


def _mine(found: brief.Brief, every: set[str]) -> set[str]:
    return set(found.ids) & every


def test_the_brief_hides_what_the_project_forgot_before_its_cap(
    project_root: Path, other: Path, home: dict[str, str], crowded: tuple[list[str], str]
) -> None:
    hidden, visible = crowded
    every = {*hidden, visible}
    with Project.open(str(project_root), home) as here:
        assert set(here.brief().ids) == {visible}
        assert set(here.brief(strict=True).ids) == {visible}
    # The other project forgot nothing: its brief shows the first of them, as ever.
    with Project.open(str(other), home) as there:
        shown = _mine(there.brief(), every)
    assert len(shown) == brief.MAX_MINE and shown <= set(hidden)


@pytest.mark.parametrize("limit", [1, 10, 50])
def test_recall_hides_what_the_project_forgot_before_its_limit(
    project_root: Path,
    other: Path,
    home: dict[str, str],
    crowded: tuple[list[str], str],
    limit: int,
) -> None:
    hidden, visible = crowded
    question = "payments service release branch"
    with Project.open(str(project_root), home) as here:
        found = here.recall(question, limit=limit)
    assert {f.memory.id for f in found} == {visible}
    with Project.open(str(other), home) as there:
        theirs = there.recall(question, limit=limit)
    assert {f.memory.id for f in theirs} <= set(hidden) and len(theirs) == limit


def test_each_batch_is_one_lookup_by_the_tombstones_key(
    project_root: Path, home: dict[str, str], crowded: tuple[list[str], str]
) -> None:
    """The filter asks the project's tombstones by their primary key, never
    reading the table through, and a long run of hidden rows costs few lookups."""
    _, visible = crowded
    asked: list[str] = []
    with Project.open(str(project_root), home) as here:
        store, mine = here.store, here.user_store()
        assert mine is not None
        asks = [(forgotten_rows.ANY_SQL, ("p",)), (tombstones._FIND_FORGOTTEN, ("p", "[]"))]  # pyright: ignore[reportPrivateUsage]
        for sql, params in asks:
            plan = " ".join(str(r[3]) for r in store.db.query(f"EXPLAIN QUERY PLAN {sql}", params))
            assert "SCAN content_tombstones" not in plan and "SEARCH content_tombstones" in plan
        forgotten = forgotten_here.of(store, here.project_id, mine)
        assert forgotten is not None
        store.db.conn.set_trace_callback(asked.append)
        chosen = brief.select(mine, user.user_identity(here.identity), None, 2, forgotten)
        store.db.conn.set_trace_callback(None)
    assert [m.id for m in chosen] == [visible]
    assert 1 <= len(asked) <= 10, len(asked)


def test_a_project_that_forgot_nothing_reads_no_tombstone_key(
    project_root: Path, home: dict[str, str], run_cli: CliRunner
) -> None:
    _run(run_cli, home, "remember", TEXT, "--scope", "global")
    with Project.open(str(project_root), home) as here:
        mine = here.user_store()
        assert mine is not None
        assert forgotten_here.of(here.store, here.project_id, mine) is None
        assert brief.forgotten_here(here.store, here.project_id, mine) is None
        assert [f.memory.summary for f in here.recall("payments", limit=5)] == [TEXT]


def test_what_a_person_wrote_over_the_tombstones_is_read_again(
    project_root: Path, home: dict[str, str], run_cli: CliRunner
) -> None:
    """`remember --override-tombstone` then `review approve`: a person decided
    the claim may come back, so the project that forgot it reads it again."""
    _forget(run_cli, home, TEXT)
    again = _run(
        run_cli, home, "remember", TEXT, "--scope", "global",
        "--override-tombstone", "--reason", "it holds again",
    )  # fmt: skip
    _run(run_cli, home, "review", "approve", str(again["id"]), "--user", "--reason", "agreed")
    with Project.open(str(project_root), home) as here:
        assert set(here.brief().ids) == {again["id"]}
        assert [f.memory.id for f in here.recall("payments", limit=5)] == [again["id"]]


def test_a_readmission_lets_through_only_the_keys_it_was_written_over(
    project_root: Path, home: dict[str, str], run_cli: CliRunner, tmp_path: Path
) -> None:
    """A row a person wrote over one forgotten claim stays hidden once it
    holds another claim the project forgot later (forgotten by someone whose
    user store does not hold it: a person's own global note holding a claim
    keeps their forget of it here from tombstoning it)."""
    _forget(run_cli, home, TEXT)
    again = _run(
        run_cli, home, "remember", TEXT, "--scope", "global", "--details",
        "Hotfixes follow the same rule", "--override-tombstone", "--reason", "it holds again",
    )  # fmt: skip
    _run(run_cli, home, "review", "approve", str(again["id"]), "--user", "--reason", "agreed")
    with Project.open(str(project_root), home) as here:
        assert set(here.brief().ids) == {again["id"]}
    teammate = {"TREE_RING_USER_HOME": str(tmp_path / "teammate")}
    _forget(run_cli, teammate, "Hotfixes follow the same rule")
    with Project.open(str(project_root), home) as here:
        assert here.brief().ids == ()
        assert here.recall("payments hotfixes", limit=5) == []
