"""One definition of live, shared by every read path, applied before any cap."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from helpers import CliRunner, make_memory
from hypothesis import given, settings
from hypothesis import strategies as st

from tree_ring.model.identity import Identity
from tree_ring.model.record import SENSITIVITIES, TRUST_STATES, Memory, format_time
from tree_ring.read import brief
from tree_ring.read.recall import recall
from tree_ring.store import live, rows, schema
from tree_ring.store.db import Store
from tree_ring.store.live import View
from tree_ring.store.sql import Db
from tree_ring.transfer import export

NOW = datetime.now(UTC)
PAST = format_time(NOW - timedelta(days=3))
LONG_AGO = format_time(NOW - timedelta(days=30))
FUTURE = format_time(NOW + timedelta(days=3))
ME = "claude-code"


def insert(store: Store, memories: list[Memory]) -> None:
    with store.write() as conn:
        for memory in memories:
            rows.insert(conn, memory)


def kinds(project_id: str) -> dict[str, Memory]:
    """One row of every kind a read path must consider."""

    def m(summary: str, **fields: Any) -> Memory:
        fields.setdefault("created_at", LONG_AGO)
        fields.setdefault("valid_from", LONG_AGO)
        return make_memory(project_id, f"alpha {summary}", **fields)

    return {
        "live": m("live shared row"),
        "live_own_agent": m("my own agent row", scope="agent", agent_profile=ME),
        "live_own_session": m("my session row", scope="session", session_id="s1"),
        "other_agent": m("another agent row", scope="agent", agent_profile="codex"),
        "expired": m("expired row", expires_at=PAST),
        "superseded": m("superseded row", superseded_by="mem_x", retired_at=PAST, valid_to=PAST),
        "redacted": m("redacted row", redacted_at=PAST, retired_at=PAST),
        "rejected": m("rejected row", trust="rejected", retired_at=PAST),
        "not_yet_valid": m("future fact", valid_from=FUTURE),
        "no_longer_valid": m("past fact", valid_to=PAST),
        "sensitive": m("sensitive row", sensitivity="health"),
        "pending": m("pending row", trust="pending"),
        "disputed": m("disputed row", trust="disputed"),
        "other_project": make_memory(
            "someone-else-1234", "alpha other project", created_at=LONG_AGO, valid_from=LONG_AGO
        ),
        "projectless": make_memory(
            None, "alpha projectless row", scope="global", created_at=LONG_AGO, valid_from=LONG_AGO
        ),
    }


ReadPath = Callable[[Store, Identity, CliRunner, View], set[str]]


def via_recall(store: Store, ident: Identity, _: CliRunner, view: View) -> set[str]:
    return {h.memory.id for h in recall(store, ident, "alpha", limit=100, view=view)}


def via_brief(store: Store, ident: Identity, _: CliRunner, view: View) -> set[str]:
    return {m.id for m in brief.select(store, ident, view)}


def via_list(store: Store, ident: Identity, run_cli: CliRunner, view: View) -> set[str]:
    flags = ["--include-unreviewed"] if view.include_unreviewed else []
    flags += ["--include-sensitive"] if view.include_sensitive else []
    out = run_cli("--json", "list", *flags).json()
    return {m["id"] for m in out["items"]}


def via_export(store: Store, ident: Identity, _: CliRunner, view: View) -> set[str]:
    exported = export.export_rows(store, ident.project, view.replace())
    return {r["id"] for r in exported if "record" not in r}


# Personal reads (recall, brief) see shared scopes plus the caller's partitions;
# the project-wide person views (list, export) see every partition of the project.
PERSONAL = {"live", "live_own_agent", "live_own_session"}
PROJECT_WIDE = PERSONAL | {"other_agent"}
# An export is a file kept to restore from: a fact that holds only later is in it.
EXPORTED = PROJECT_WIDE | {"not_yet_valid"}


@pytest.mark.parametrize(
    ("path", "visible"),
    [
        (via_recall, PERSONAL),
        (via_brief, PERSONAL),
        (via_list, PROJECT_WIDE),
        (via_export, EXPORTED),
    ],
    ids=["recall", "brief", "list", "export"],
)
def test_each_read_path_returns_exactly_the_live_rows(
    store: Store, project_id: str, run_cli: CliRunner, path: ReadPath, visible: set[str]
) -> None:
    made = kinds(project_id)
    insert(store, list(made.values()))
    ident = Identity(project_id, ME, "s1", "s1")
    got = path(store, ident, run_cli, View())
    assert got == {made[k].id for k in visible}


@pytest.mark.parametrize("path", [via_recall, via_list], ids=["recall", "list"])
def test_unreviewed_and_sensitive_only_when_asked(
    store: Store, project_id: str, run_cli: CliRunner, path: ReadPath
) -> None:
    made = kinds(project_id)
    insert(store, list(made.values()))
    ident = Identity(project_id, ME, "s1", "s1")
    base = PERSONAL if path is via_recall else PROJECT_WIDE
    unreviewed = path(store, ident, run_cli, View(include_unreviewed=True))
    assert unreviewed == {made[k].id for k in base | {"pending", "disputed"}}
    sensitive = path(store, ident, run_cli, View(include_sensitive=True))
    assert sensitive == {made[k].id for k in base | {"sensitive"}}


def test_brief_never_shows_unreviewed_rows(store: Store, project_id: str) -> None:
    made = kinds(project_id)
    insert(store, list(made.values()))
    ident = Identity(project_id, ME, "s1", "s1")
    assert {m.id for m in brief.select(store, ident)} == {made[k].id for k in PERSONAL}


def test_unreviewed_rows_are_labelled_in_recall(
    run_cli: CliRunner, store: Store, project_id: str
) -> None:
    made = kinds(project_id)
    insert(store, [made["pending"], made["disputed"], made["live"]])
    out = run_cli("--json", "recall", "alpha", "--include-unreviewed").json()["items"]
    labels = {r["id"]: r["label"] for r in out}
    assert labels == {
        made["pending"].id: "PENDING",
        made["disputed"].id: "DISPUTED",
        made["live"].id: "",
    }
    text = run_cli("recall", "alpha", "--include-unreviewed").out
    assert "[PENDING]" in text and "[DISPUTED]" in text


# ---------------------------------------------------------------- starvation


def hidden(project_id: str, reason: str, n: int) -> list[Memory]:
    """Rows that outrank the visible one on every signal but must not be seen."""
    strong = "alpha alpha alpha beta gamma"
    out: list[Memory] = []
    for i in range(n):
        fields: dict[str, Any] = {
            "salience": 1.0,
            "confidence": 1.0,
            "ring": "scar",
            "created_at": format_time(NOW),
        }
        project: str | None = project_id
        if reason == "other_project":
            project = f"other-{i % 7}"
        elif reason == "other_agent":
            fields |= {"scope": "agent", "agent_profile": f"worker-{i}"}
        elif reason == "sensitive":
            fields["sensitivity"] = "private"
        elif reason == "expired":
            fields["expires_at"] = PAST
        elif reason == "superseded":
            fields |= {"superseded_by": "mem_newer", "retired_at": PAST}
        elif reason == "tombstoned":
            fields |= {"redacted_at": PAST, "retired_at": PAST}
        elif reason == "rejected":
            fields |= {"trust": "rejected", "retired_at": PAST}
        elif reason == "projectless":
            project = None
            fields["scope"] = "global"
        out.append(make_memory(project, f"{strong} {i}", **fields))
    return out


REASONS = [
    "other_project",
    "other_agent",
    "sensitive",
    "expired",
    "superseded",
    "tombstoned",
    "rejected",
    "projectless",
]


@pytest.mark.parametrize("reason", REASONS)
def test_recall_filters_before_the_candidate_cap(
    store: Store, project_id: str, reason: str
) -> None:
    visible = make_memory(project_id, "alpha", salience=0.1, confidence=0.1, created_at=LONG_AGO)
    insert(store, [*hidden(project_id, reason, 300), visible])
    ident = Identity(project_id, ME, "s1", "s1")
    hits = recall(store, ident, "alpha", limit=1)
    assert [h.memory.id for h in hits] == [visible.id]


@pytest.mark.parametrize("reason", REASONS)
def test_brief_filters_before_its_limit(store: Store, project_id: str, reason: str) -> None:
    visible = make_memory(
        project_id, "the one visible row", salience=0.0, confidence=0.0, created_at=LONG_AGO
    )
    insert(store, [*hidden(project_id, reason, 300), visible])
    ident = Identity(project_id, ME, "s1", "s1")
    assert brief.build_brief(store, ident).ids == (visible.id,)


def test_cli_and_library_agree_on_live(run_cli: CliRunner, store: Store, project_id: str) -> None:
    made = kinds(project_id)
    insert(store, list(made.values()))
    out = run_cli(
        "--json",
        "recall",
        "alpha",
        "--limit",
        "100",
        "--agent-profile",
        ME,
        "--session-id",
        "s1",
    ).json()
    assert {r["id"] for r in out["items"]} == {made[k].id for k in PERSONAL}
    exported = {json.loads(x).get("id") for x in run_cli("export").out.splitlines()}
    assert exported == {made[k].id for k in EXPORTED}


# ------------------------------------------- one declaration, SQL and Python

# Times around the moment the views are asked about, so every comparison
# falls on both sides of it and on it. Most rows pass most tests, so that a
# row failing only one of them is common.
T = "2026-06-01T12:00:00.000000Z"
TIMES = ("2026-05-01T00:00:00.000000Z", T, "2026-07-01T00:00:00.000000Z", "")
maybe_time = st.sampled_from((None, None, *TIMES))
mostly_none = st.sampled_from((None, None, None, *TIMES))

memories = st.builds(
    dict,
    created_at=st.sampled_from(TIMES),
    valid_from=st.sampled_from(TIMES),
    valid_to=maybe_time,
    expires_at=maybe_time,
    retired_at=mostly_none,
    redacted_at=mostly_none,
    superseded_by=st.sampled_from((None, None, None, "mem_newer")),
    trust=st.sampled_from(("accepted", "accepted", *TRUST_STATES)),
    sensitivity=st.sampled_from(("normal", "normal", "normal", *SENSITIVITIES[1:3])),
)
now_views = st.builds(View, include_sensitive=st.booleans(), include_unreviewed=st.booleans())


@settings(max_examples=300, deadline=None)
@given(fields=st.lists(memories, min_size=1, max_size=60), view=now_views)
def test_the_python_check_agrees_with_the_sql_clause(
    fields: list[dict[str, Any]], view: View
) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute(schema.MEMORIES)
    made = [make_memory("p", f"row {n}", **values) for n, values in enumerate(fields)]
    rows.insert_many(Db(conn, Path(":memory:")), made)
    clause = live.live(view)
    assert view.is_now()
    params = {**clause.params, "live_t": T, "live_v": T}
    in_sql = {r[0] for r in conn.execute(f"SELECT id FROM memories m WHERE {clause.sql}", params)}
    check = live.check(view, params)
    assert {m.id for m in made if check(m)} == in_sql


def test_only_a_view_of_now_has_a_python_check() -> None:
    for view in (View(as_of=T), View(valid_at=T), View(include_superseded=True)):
        with pytest.raises(ValueError, match="view of now"):
            live.check(view, {})


@pytest.mark.parametrize(
    ("test", "value", "param", "holds"),
    [
        (live.Test("valid_to", live.AT_MOST, "p"), None, T, False),
        (live.Test("valid_to", live.NULL_OR_AFTER, "p"), None, T, True),
        (live.Test("valid_to", live.NULL_OR_AFTER, "p"), T, None, False),
        (live.Test("agent_profile", live.IS, "p"), None, None, True),
        (live.Test("agent_profile", live.EQUALS, "p"), None, None, False),
        (live.Test("agent_profile", live.DIFFERS, "p"), "a", None, False),
        (live.Test("agent_profile", live.DIFFERS, "p"), None, "a", False),
    ],
)
def test_null_is_compared_as_sql_compares_it(
    test: live.Test, value: str | None, param: str | None, holds: bool
) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute(schema.MEMORIES)
    memory = make_memory("p", "row", **{test.column: value})
    rows.insert_many(Db(conn, Path(":memory:")), [memory])
    found = conn.execute(f"SELECT count(*) FROM memories m WHERE {live.sql([test])}", {"p": param})
    assert bool(found.fetchone()[0]) == holds
    assert live.python([test], {"p": param})(memory) == holds
