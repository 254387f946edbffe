"""Import's messages read as English whatever value they name."""

from __future__ import annotations

import io
import json

import pytest
from helpers import CliRunner


@pytest.mark.parametrize(
    ("scope", "column"),
    [("agent", "agent_profile"), ("workflow", "workflow_id"), ("session", "session_id")],
)
def test_a_private_row_without_id_or_identity(
    run_cli: CliRunner, monkeypatch: pytest.MonkeyPatch, scope: str, column: str
) -> None:
    row = {"summary": "A note of its own", "event_type": "note", "scope": scope}
    stdin = io.TextIOWrapper(io.BytesIO(json.dumps(row).encode() + b"\n"), encoding="utf-8")
    monkeypatch.setattr("sys.stdin", stdin)
    result = run_cli("import", "-")
    assert result.code == 2 and result.out == ""
    assert result.err == (
        f"error: line 1: a memory of scope {scope} without {column} needs an id; "
        f"add an id to the row, or its {column}; nothing imported\n"
    )
