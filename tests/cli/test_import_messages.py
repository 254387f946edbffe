"""Import's messages read as English whatever value they name."""

from __future__ import annotations

import io
import json
from pathlib import Path

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


def test_a_leading_byte_order_mark_is_read_past(run_cli: CliRunner, tmp_path: Path) -> None:
    row = {"summary": "Marked at the start", "event_type": "note"}
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(row).encode() + b"\n")
    result = run_cli("import", str(path))
    assert result.code == 0 and result.err == ""
    listed = run_cli("--json", "list").json()["items"]
    assert [m["summary"] for m in listed] == ["Marked at the start"]


def test_one_id_on_two_lines_with_other_content_is_a_usage_error(
    run_cli: CliRunner, tmp_path: Path
) -> None:
    memory_id = "mem_20260101_000000_0123456789ab"
    rows = [
        {"id": memory_id, "summary": f"The build needs node {n}", "event_type": "note"}
        for n in (22, 20)
    ]
    path = tmp_path / "twice.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    result = run_cli("import", str(path))
    assert result.code == 2 and result.out == ""
    assert result.err == (
        f"error: line 2: memory {memory_id} is on line 1 too, with other content; "
        "give one of them a new id or omit it; nothing imported\n"
    )
    assert run_cli("--json", "list").json()["items"] == []
