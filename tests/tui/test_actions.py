"""The library behind the screen, against a real store: what it reads and writes."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import AGENT, PERSON, CliRunner, make_memory

from tree_ring.model.errors import UsageError
from tree_ring.store import audit, rows
from tree_ring.store.db import Store
from tree_ring.tui import commands, screen
from tree_ring.tui.actions import Session
from tree_ring.tui.keys import handle_key
from tree_ring.tui.state import REPLACES, Action, State
from tree_ring.write import pipeline

PAST = "2020-01-01T00:00:00.000000Z"


def seed_invisible(store: Store, project_id: str, count: int) -> None:
    """Rows no view of now may count: rejected, expired, superseded, redacted,
    another project's."""
    kinds = [
        {"trust": "rejected"},
        {"expires_at": PAST},
        {"superseded_by": "mem_x", "retired_at": PAST},
        {"redacted_at": PAST},
        {"project": "another-project"},
    ]
    found = []
    for i in range(count):
        fields = dict(kinds[i % len(kinds)])
        project = str(fields.pop("project", project_id))
        found.append(
            make_memory(project, f"invisible {i}", ring="heartwood", created_at=PAST, **fields)
        )
    with store.write() as db:
        rows.insert_many(db, found)


@pytest.fixture
def session(project_root: Path) -> Iterator[Session]:
    opened = Session(str(project_root), {})
    yield opened
    opened.close()


def write(store: Store, project_id: str, summary: str, **fields: object) -> str:
    return pipeline.store_memory(store, make_memory(project_id, summary, **fields), PERSON).id


def test_the_dashboard_counts_live_rows_only(
    store: Store, project_id: str, session: Session
) -> None:
    seed_invisible(store, project_id, 300)
    write(store, project_id, "a cambium note")
    write(store, project_id, "a private note", sensitivity="private")
    write(store, project_id, "a scar", ring="scar", confidence=0.9, salience=0.7)
    d = session.dashboard(State())
    counts = {s.ring: s.total for s in d.rings if s.total}
    assert counts == {"cambium": 1, "scar": 1}  # the private note is hidden
    assert d.counts is not None
    assert (d.listed, d.counts.live, d.counts.sensitive) == (2, 3, 1)
    d = session.dashboard(State(include_sensitive=True))
    assert {s.ring: s.total for s in d.rings if s.total} == {"cambium": 2, "scar": 1}
    assert d.listed == 3
    scar = next(s for s in d.rings if s.ring == "scar")
    assert (scar.confidence, scar.salience, scar.top_event) == (0.9, 0.7, "note")


@pytest.mark.parametrize("include_sensitive", [False, True])
def test_the_rings_count_what_the_memory_list_shows(
    store: Store, project_id: str, session: Session, include_sensitive: bool
) -> None:
    # Accepted, pending and disputed rows are listed (labelled); private ones
    # only when shown. The panel and the list count the same rows; the header
    # counts as `status` does (live: accepted only; sensitive: of those).
    seed_invisible(store, project_id, 50)
    with store.write() as db:
        rows.insert_many(
            db,
            [
                *(make_memory(project_id, f"accepted {i}") for i in range(3)),
                make_memory(project_id, "waits for review", trust="pending", ring="outer"),
                make_memory(project_id, "in dispute", trust="disputed", ring="heartwood"),
                make_memory(project_id, "a private note", sensitivity="health"),
                make_memory(project_id, "a private pending", trust="pending", sensitivity="legal"),
            ],
        )
    state = State(include_sensitive=include_sensitive)
    session.load(state)
    d = state.dashboard
    listed = 7 if include_sensitive else 5
    assert d.listed == len(state.items) == session.totals["memories"] == listed
    assert sum(s.total for s in d.rings) == d.listed
    assert sum(s.private for s in d.rings) == 2
    assert d.counts is not None
    assert (d.counts.live, d.counts.sensitive, d.counts.review) == (4, 1, 3)


def test_the_memory_list_is_the_live_project_in_every_partition(
    store: Store, project_id: str, session: Session
) -> None:
    seed_invisible(store, project_id, 300)
    mine = write(store, project_id, "a person's note")
    theirs = pipeline.store_memory(
        store,
        make_memory(
            project_id,
            "an agent's own note",
            scope="agent",
            agent_profile="claude-code",
            origin="claude-code",
        ),
        AGENT,
    ).id
    hidden = write(store, project_id, "a health note", sensitivity="health")
    state = State()
    session.load(state)
    assert {i.key for i in state.items} == {mine, theirs}
    state.include_sensitive = True
    session.load(state)
    assert {i.key for i in state.items} == {mine, theirs, hidden}


def test_review_lists_pending_rows_with_what_they_contradict(
    store: Store, project_id: str, session: Session
) -> None:
    write(store, project_id, "accepted one")
    pending = write(store, project_id, "waits for a person", trust="pending")
    state = State(view="review")
    session.load(state)
    assert [i.key for i in state.items] == [pending]
    assert state.dashboard.counts is not None and state.dashboard.counts.review == 1


def test_review_leaves_sensitive_rows_out_until_they_are_shown(
    store: Store, project_id: str, session: Session
) -> None:
    plain = write(store, project_id, "waits for a person", trust="pending")
    hidden = write(store, project_id, "Alice has diabetes", trust="pending", sensitivity="health")
    state = State(view="review")
    session.load(state)
    assert [i.key for i in state.items] == [plain]
    state.include_sensitive = True
    session.load(state)
    assert {i.key for i in state.items} == {plain, hidden}


def test_approve_through_the_review_path_with_the_person_as_actor(
    store: Store, project_id: str, session: Session
) -> None:
    pending = write(store, project_id, "waits for a person", trust="pending")
    said = session.run(Action("approve", pending))
    assert said.startswith(f"approved {pending}")
    assert rows.get(store.db, pending).trust == "accepted"
    last = audit.entries(store.db, limit=1, target=pending)[-1]
    assert (last["action"], last["actor"], last["origin"]) == ("review", "person", "person")
    assert '"approve"' in last["detail"]


def test_forget_keeps_the_reason_and_recall_no_longer_finds_it(
    store: Store, project_id: str, session: Session, run_cli: CliRunner
) -> None:
    target = write(store, project_id, "the staging password rotates monthly")
    assert target in run_cli("recall", "staging rotates").out
    said = session.run(Action("forget", target, (), "no longer true"))
    assert said.startswith(f"deleted {target}")
    assert target not in run_cli("recall", "staging rotates").out
    entries = audit.entries(store.db, limit=5, target=target)
    assert any("no longer true" in (e["detail"] or "") for e in entries)


def test_a_ring_move_supersedes_the_old_row(
    store: Store, project_id: str, session: Session
) -> None:
    old = write(store, project_id, "deploys failed on friday", tags=("ops",))
    said = session.run(Action("ring", old, ("scar",)))
    assert "in scar" in said
    state = State()
    session.load(state)
    (item,) = state.items
    assert item.memory is not None
    assert (item.memory.ring, item.memory.summary, item.memory.tags) == (
        "scar",
        "deploys failed on friday",
        ("ops",),
    )
    assert rows.get(store.db, old).superseded_by == item.key


def test_export_names_a_row_a_hand_edit_damaged(
    session: Session, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As the CLI's: the sound rows are written, the damaged one named."""
    monkeypatch.chdir(tmp_path)
    kept = write(session.store, session.project, "a sound note")
    bad = write(session.store, session.project, "a damaged note")
    with session.store.write() as db:
        db.execute("UPDATE memories SET valid_to = 'never' WHERE id = ?", (bad,))
    state = State()
    session.ask_export(state, "out.jsonl")
    said = session.run(handle_key(state, "y") or Action("none"))
    path = tmp_path / "out.jsonl"
    assert said == (
        f"wrote 1 line to {path}; export left out 1 memory(ies) holding a value edited "
        f"outside Tree Ring that cannot be written as it is: {bad}; `tree-ring doctor` names "
        "each value and what mends it (put a value of its kind back, or forget the row), "
        "then export again"
    )
    assert [json.loads(line)["id"] for line in path.read_text().splitlines()] == [kept]


def test_export_writes_where_the_person_says_from_where_the_screen_started(
    project_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    start = tmp_path / "work"
    (start / "out").mkdir(parents=True)
    (tmp_path / "home").mkdir(exist_ok=True)
    monkeypatch.chdir(start)
    # A folder an older /export wrote into is left as it is.
    old = project_root / ".tree-ring" / "exports" / "old.jsonl"
    old.parent.mkdir()
    old.write_text("kept\n")
    environ = {"TREE_RING_USER_HOME": str(tmp_path / "me"), "HOME": str(tmp_path / "home")}
    session = Session(str(project_root), environ)
    try:
        write(session.store, session.project, "exported note")
        path = start / "out" / "memories.jsonl"
        state = State()
        placed = commands.run(state, "/export out/memories.jsonl")
        assert placed is not None and placed == Action("place", None, ("out/memories.jsonl",))
        screen._do(session, state, placed)  # pyright: ignore[reportPrivateUsage]
        assert state.prompt is not None
        assert state.prompt.label == f"export to {path}? y/n"
        confirmed = handle_key(state, "y")
        assert confirmed is not None and confirmed == Action("export", None, (str(path),))
        screen._do(session, state, confirmed)  # pyright: ignore[reportPrivateUsage]
        assert state.status == f"wrote 1 line to {path}"
        assert [json.loads(line)["summary"] for line in path.read_text().splitlines()] == [
            "exported note"
        ]
        # Again: the confirmation says it replaces the file, and `y` replaces it whole.
        write(session.store, session.project, "a second note")
        session.ask_export(state, "out/memories.jsonl")
        assert state.prompt is not None
        assert state.prompt.label == f"export to {path} (replaces the file there)? y/n"
        said = session.run(handle_key(state, "y") or Action("none"))
        assert said == f"wrote 2 lines to {path}"
        summaries = {json.loads(line)["summary"] for line in path.read_text().splitlines()}
        assert summaries == {"exported note", "a second note"}
        # A file that appeared after a confirmation that offered no replacing stays.
        session.ask_export(state, "out/late.jsonl")
        (start / "out" / "late.jsonl").write_text("someone else's\n")
        said = session.run(handle_key(state, "y") or Action("none"))
        assert said.startswith("refused: ") and "appeared since" in said
        assert (start / "out" / "late.jsonl").read_text() == "someone else's\n"
        # `~` is the person's home: there is no shell to expand it.
        session.ask_export(state, "~/mine.jsonl")
        assert state.prompt is not None
        assert state.prompt.label == f"export to {tmp_path / 'home' / 'mine.jsonl'}? y/n"
        state.cancel()
        assert old.read_text() == "kept\n"
    finally:
        session.close()


def test_export_refuses_tree_rings_folders_as_export_output_does(
    project_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user_home = tmp_path / "me"
    user_home.mkdir()
    monkeypatch.chdir(project_root)
    os.symlink(project_root / ".tree-ring", project_root / "linked")
    (project_root / "sub").mkdir()
    session = Session(str(project_root), {"TREE_RING_USER_HOME": str(user_home)})
    before = _tree_ring_files(project_root)
    try:
        write(session.store, session.project, "exported note")
        inside = "leads into a .tree-ring/ folder, where Tree Ring keeps its store"
        refusals = {
            ".tree-ring/exports/handoff.jsonl": inside,
            ".tree-ring/memory.sqlite": inside,
            "sub/../.tree-ring/x.jsonl": inside,
            "linked/x.jsonl": inside,
            str(user_home / "x.jsonl"): "where Tree Ring keeps your user store",
            "missing/x.jsonl": "there is no folder",
            "sub": "is a folder; name a file to write",
        }
        for name, reason in refusals.items():
            state = State()
            session.ask_export(state, name)
            assert state.prompt is None, name
            shown = os.path.join(project_root, name)  # relative: from where it started
            assert state.status.startswith("refused: ") and reason in state.status
            assert f"{shown} " in state.status or f"{shown}:" in state.status
        # The write checks again, whatever confirmation it was handed.
        forged = Action("export", None, (str(project_root / ".tree-ring" / "x.jsonl"), REPLACES))
        with pytest.raises(UsageError, match=r"leads into a \.tree-ring/ folder"):
            session.run(forged)
    finally:
        session.close()
    assert _tree_ring_files(project_root) == before
    assert list(user_home.iterdir()) == []


def _tree_ring_files(root: Path) -> set[str]:
    """What `.tree-ring/` holds, but SQLite's side files, which come and go."""
    found = (root / ".tree-ring").rglob("*")
    return {p.name for p in found if not p.name.startswith("memory.sqlite-")}


def test_reading_every_view_writes_nothing(
    store: Store, project_id: str, session: Session, project_root: Path
) -> None:
    target = write(store, project_id, "something to look at", trust="pending")
    watcher = sqlite3.connect(project_root / ".tree-ring" / "memory.sqlite")
    before = watcher.execute("PRAGMA data_version").fetchone()[0]
    entries = len(audit.entries(store.db, limit=1000))
    state = State()
    for view in ("memories", "review", "stream", "evidence", "integrations"):
        state.view = view
        session.load(state)
    state.view, state.query = "search", "something"
    session.load(state)
    state.show_audit = True
    state.view = "memories"
    session.load(state)
    session.audit(state)
    assert state.audit and state.audit[0]["target"] == target
    assert session.store.conn.total_changes == 0
    assert watcher.execute("PRAGMA data_version").fetchone()[0] == before
    assert len(audit.entries(store.db, limit=1000)) == entries
    watcher.close()


def test_data_version_moves_when_another_connection_writes(
    project_id: str, session: Session, run_cli: CliRunner
) -> None:
    first = session.data_version()
    assert session.data_version() == first
    assert run_cli("remember", "written elsewhere").code == 0
    assert session.data_version() != first
    state = State()
    session.load(state)
    assert [i.memory.summary for i in state.items if i.memory] == ["written elsewhere"]


def test_library_errors_come_back_as_errors(session: Session) -> None:
    from tree_ring.model.errors import TreeRingError

    with pytest.raises(TreeRingError):
        session.run(Action("approve", "mem_20200101_000000_000000000000"))
    assert "not available" in session.run(Action("nonsense"))


def agent_note(store: Store, project_id: str, summary: str) -> str:
    memory = make_memory(
        project_id, summary, scope="agent", agent_profile="claude-code", origin="claude-code",
        origin_session="sess-1", session_id="sess-1", workflow_id="sess-1",
    )  # fmt: skip
    return pipeline.store_memory(store, memory, AGENT).id


def test_the_inbox_lists_agents_rows_and_looking_marks_nothing_seen(
    store: Store, project_id: str, session: Session
) -> None:
    first = agent_note(store, project_id, "the agent found the flaky test")
    second = agent_note(store, project_id, "the agent learned the deploy script")
    write(store, project_id, "a person's own note")
    state = State(view="inbox")
    session.load(state)
    assert {i.key for i in state.items} == {first, second}
    assert state.dashboard.counts is not None and state.dashboard.counts.inbox == 2
    session.load(state)
    assert {i.key for i in state.items} == {first, second}
    assert "kept" in session.run(Action("keep", first))
    session.load(state)
    assert {i.key for i in state.items} == {second}
    assert state.dashboard.counts is not None and state.dashboard.counts.inbox == 1


def test_promote_moves_an_agents_row_into_the_project(
    store: Store, project_id: str, session: Session, run_cli: CliRunner
) -> None:
    note = agent_note(store, project_id, "the cache key includes the locale")
    said = session.run(Action("promote", note, (), "every session needs it"))
    assert said.startswith(f"promoted {note} from agent to project")
    assert rows.get(store.db, note).scope == "project"
    last = audit.entries(store.db, limit=1, target=note)[-1]
    assert (last["action"], last["actor"]) == ("promote", "person")
    assert "every session needs it" in last["detail"]
    assert note in run_cli("recall", "cache key locale").out


def test_promote_of_a_shared_memory_moves_it_to_heartwood(
    store: Store, project_id: str, session: Session
) -> None:
    old = write(store, project_id, "the api is versioned by date")
    said = session.run(Action("promote", old, (), "it holds"))
    assert "in heartwood" in said
    state = State()
    session.load(state)
    assert [(i.memory.ring, i.memory.summary) for i in state.items if i.memory] == [
        ("heartwood", "the api is versioned by date")
    ]


def test_the_header_counts_the_review_queue_as_review_does(
    store: Store, project_id: str, session: Session
) -> None:
    from tree_ring.review import queue as review

    waiting = [
        make_memory(project_id, "waits", trust="pending"),
        make_memory(project_id, "disputed one", trust="disputed"),
        make_memory(project_id, "expired but waiting", trust="pending", expires_at=PAST),
    ]
    distractors = [
        make_memory("another-project", "elsewhere", trust="pending"),
        make_memory(project_id, "redacted", trust="pending", redacted_at=PAST),
        make_memory(project_id, "retired", trust="pending", retired_at=PAST),
        make_memory(project_id, "rejected", trust="rejected"),
        *(make_memory(project_id, f"accepted {i}") for i in range(200)),
    ]
    with store.write() as db:
        rows.insert_many(db, [*distractors, *waiting])
    d = session.dashboard(State())
    assert d.counts is not None
    assert d.counts.review == review.queue_size(store.db, project_id) == 3


def test_the_list_total_past_one_page_is_every_live_row(
    store: Store, project_id: str, session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tree_ring.tui import actions

    monkeypatch.setattr(actions, "PAGE", 10)
    seed_invisible(store, project_id, 100)
    with store.write() as db:
        rows.insert_many(db, [make_memory(project_id, f"visible {i}") for i in range(25)])
        rows.insert_many(db, [make_memory(project_id, "private", sensitivity="health")])
    state = State()
    session.load(state)
    assert (len(state.items), session.totals["memories"]) == (10, 25)
    state.include_sensitive = True
    session.load(state)
    assert session.totals["memories"] == 26
    state.include_superseded = True  # another view of time: counted on its own
    session.load(state)
    assert session.totals["memories"] == 26 + 20 + 20  # and the rejected and superseded rows


def test_a_request_to_forget_is_decided_from_the_review_view(
    store: Store, project_id: str, session: Session
) -> None:
    from tree_ring.model.errors import NotFound
    from tree_ring.tui.keys import handle_key
    from tree_ring.write import correct

    target = write(store, project_id, "the person's note an agent wants gone")
    asked = correct.forget(store, target, mode="delete", reason="outdated", actor=AGENT)
    assert asked.request is not None
    state = State(view="review")
    session.load(state)
    assert [i.key for i in state.items] == [asked.request]
    handle_key(state, "a")
    action = handle_key(state, "y")
    assert action == Action("approve", asked.request)
    assert session.run(Action("approve", asked.request)).startswith(f"approved {asked.request}")
    session.load(state)
    assert state.items == []
    with pytest.raises(NotFound):  # deleted, as the agent asked
        rows.get(store.db, target)
    state.view = "memories"
    session.load(state)
    assert target not in {i.key for i in state.items}


def test_supersede_retires_the_old_row_with_the_reason(
    store: Store, project_id: str, session: Session
) -> None:
    old = write(store, project_id, "the timeout is 30 seconds")
    new = write(store, project_id, "the client timeout is now 60 seconds")
    said = session.run(Action("supersede", new, (old,), "raised in the last release"))
    assert said.startswith(f"{old} is superseded by {new}")
    assert rows.get(store.db, old).superseded_by == new
    state = State()
    session.load(state)
    assert {i.key for i in state.items} == {new}
    entries = audit.entries(store.db, limit=5, target=old)
    assert any("raised in the last release" in (e["detail"] or "") for e in entries)


def test_consolidate_writes_the_period_summaries(
    store: Store, project_id: str, session: Session
) -> None:
    for i in range(3):
        write(store, project_id, f"the deploy step {i} needs the vpn")
    said = session.run(Action("consolidate", None, ("daily",)))
    assert said.startswith("consolidated daily ")
    written = int(said.split(": ")[1].split()[0])
    summaries = store.query(
        "SELECT id FROM memories WHERE source_type = 'consolidation' AND project = ?",
        (project_id,),
    )
    assert written == len(summaries) >= 1


def test_the_detail_pane_shows_who_refuted_a_memory_and_how_often_it_was_used(
    store: Store, project_id: str, project_root: Path, session: Session
) -> None:
    from tree_ring.model.actor import Actor
    from tree_ring.model.identity import Origin
    from tree_ring.review import refute
    from tree_ring.store import usage_log
    from tree_ring.tui import layout

    wrong = write(store, project_id, "The API listens on port 8080", scope="project")
    usage_log.append(project_root, "brief", harness="codex", session="s1", ids=[wrong], size=9)
    codex = Actor("codex", Origin("codex", "s1"))
    refute.refute(store, wrong, reason="server.py binds 9090", actor=codex)
    state = State(view="review")
    session.load(state)
    shown = "\n".join("".join(part for part, _ in line) for line in layout.detail(state, 100))
    assert "disputed by codex: server.py binds 9090" in shown
    assert "usage: injected 1 time (last " in shown and "recalled 0 times" in shown


@pytest.mark.parametrize("how", ["deleted", "replaced"])
def test_a_store_deleted_or_replaced_while_open_takes_no_write(session: Session, how: str) -> None:
    from tree_ring.tui.screen import _do  # pyright: ignore[reportPrivateUsage]

    path = session.store.path
    for leftover in path.parent.glob(path.name + "*"):
        leftover.unlink()
    if how == "replaced":
        path.write_bytes(b"")
    said = (
        f"error: the store at {path} was {how} after it was opened; "
        "nothing was written: quit and start again"
    )
    state = State()
    _do(session, state, Action("remember", args=("a note for the lost file",)))
    assert state.status == said
    assert audit.entries(session.store.db, limit=5) == []  # the old file took nothing either
    state.status = ""
    _do(session, state, Action("load"))  # `R`
    assert state.status == said


def test_an_agents_export_holds_what_it_sees_as_the_clis_does(
    project_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    agent = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s1"}
    session = Session(str(project_root), agent)
    try:
        write(session.store, session.project, "a shared note")
        write(session.store, session.project, "codex's own", scope="agent", agent_profile="codex")
        state = State()
        session.ask_export(state, "agent.jsonl")
        said = session.run(handle_key(state, "y") or Action("none"))
        assert said == f"wrote 1 line to {tmp_path / 'agent.jsonl'}"
        lines = (tmp_path / "agent.jsonl").read_text().splitlines()
        assert [json.loads(line)["summary"] for line in lines] == ["a shared note"]
    finally:
        session.close()
