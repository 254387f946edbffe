"""Hook receipts: which entry each event fills, the counters, and what a
broken, oversized or missing receipt reads as."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tree_ring.harness import receipts
from tree_ring.read.brief import Brief


def _folder(root: Path) -> Path:
    return root / ".tree-ring" / "receipts"


def test_name_keeps_safe_characters_and_joins_the_rest() -> None:
    assert receipts.receipt_name("claude-code") == "claude-code.json"
    assert receipts.receipt_name("Codex") == "codex.json"
    assert receipts.receipt_name("a b//c") == "a-b-c.json"
    assert receipts.receipt_name("../x") == "-x.json"


def test_each_event_fills_its_own_entry_and_counts(project_root: Path) -> None:
    shown = Brief(text="héllo", ids=("mem_a", "mem_b"), project="p")
    receipts.write_receipt(project_root, harness="codex", event="SessionStart", brief=shown)
    receipts.write_receipt(project_root, harness="codex", event="SubagentStart", brief=shown)
    receipts.write_receipt(project_root, harness="codex", event="Stop", brief=None)
    receipts.write_receipt(project_root, harness="codex", event="SubagentStop", brief=None)
    receipts.write_receipt(project_root, harness="codex", event="Stop", brief=None)
    record = json.loads((_folder(project_root) / "codex.json").read_text())
    assert set(record) == {
        "last_brief",
        "last_subagent_brief",
        "last_stop",
        "last_subagent_stop",
        "events",
        "harness",
    }
    assert record["harness"] == "codex"
    brief = record["last_brief"]
    assert (brief["count"], brief["bytes"], brief["event"]) == (2, 6, "SessionStart")
    assert brief["ids_digest"] == receipts.ids_digest(("mem_a", "mem_b"))
    assert record["last_subagent_brief"]["event"] == "SubagentStart"
    assert set(record["last_stop"]) == {"at", "event"}
    assert record["last_subagent_stop"]["event"] == "SubagentStop"
    fired = {event: entry["fired"] for event, entry in record["events"].items()}
    assert fired == {"SessionStart": 1, "SubagentStart": 1, "Stop": 2, "SubagentStop": 1}
    assert receipts.receipts(project_root) == {"codex": record}


def test_no_folder_reads_as_no_receipts(project_root: Path) -> None:
    assert receipts.receipts(project_root) == {}


@pytest.mark.parametrize(
    ("content", "read"),
    [
        (b'{"harness": "codex"}', {"harness": "codex"}),
        (b"[1, 2]", {}),  # not an object
        (b"{broken", {}),
        (b"\xff\xfe", {}),  # not UTF-8
        (b'{"x": "' + b"y" * (64 * 1024) + b'"}', {}),  # past 64 KiB: not ours
    ],
)
def test_read_receipt(tmp_path: Path, content: bytes, read: dict[str, str]) -> None:
    path = tmp_path / "r.json"
    path.write_bytes(content)
    assert receipts.read_receipt(path) == read
    assert receipts.read_receipt(tmp_path / "missing.json") == {}


def test_a_receipt_just_under_the_cap_is_read(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    body = b'{"x": "' + b"y" * (64 * 1024 - 9) + b'"}'
    assert len(body) == 64 * 1024
    path.write_bytes(body)
    assert receipts.read_receipt(path) == {"x": "y" * (64 * 1024 - 9)}
