"""The terminal UI shows an agent's refutation reason (the detail pane, a
search hit's fields, the audit stream and a memory's audit log) with a quote
of content forgotten since withheld, as `show` does."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from forgotten_quote_support import REFUTED, SHOWN, disputed
from helpers import CliRunner

from tree_ring.tui import layout
from tree_ring.tui.actions import Session
from tree_ring.tui.state import State


@pytest.fixture
def session(project_root: Path) -> Iterator[Session]:
    opened = Session(str(project_root), {})
    yield opened
    opened.close()


def _detail(state: State) -> str:
    return "\n".join("".join(part for part, _ in line) for line in layout.detail(state, 400))


def test_every_screen_withholds_the_forgotten_quote(run_cli: CliRunner, session: Session) -> None:
    memory_id = disputed(run_cli)
    for state in (State(view="review"), State(view="search", query="migrations deploy")):
        session.load(state)
        assert [i.key for i in state.items] == [memory_id]
        shown = _detail(state)
        assert f"disputed by claude-code: {REFUTED}" in shown
        assert f"review.review_reason: {SHOWN}" in shown
        assert "payments" not in shown
    state = State(view="review", show_audit=True)
    session.load(state)
    said = [json.loads(e["detail"]).get("reason") for e in state.audit]
    assert said == [None, REFUTED]
    stream = State(view="stream")
    session.load(stream)
    lines = [line for i in stream.items for line in i.detail]
    assert f"detail.reason: {REFUTED}" in lines
    assert not [line for line in lines if "payments" in line]
