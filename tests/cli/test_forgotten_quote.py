"""A disputed row's reason that quotes content forgotten since is shown with
the quote withheld, by every read that shows the reason: the brief, `show`,
the review queue (text and JSON), MCP's show and list, `list --json`, the
inbox, `maintain --suggest`, an export (which a restore takes back as it is)
and the audit log's entries, whose stored bytes stay as they were hashed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import CliRunner
from forgotten_quote_support import MARK, QUOTED, REFUTED, SHOWN, disputed
from helpers import cli_runner
from mcp_support import CLAUDE_ENV, claude

from tree_ring.harness import guidance
from tree_ring.store.db import Store


def test_every_read_shows_the_reason_with_the_forgotten_quote_withheld(
    run_cli: CliRunner, project_root: Path
) -> None:
    memory_id = disputed(run_cli)
    shown = run_cli("--json", "show", memory_id).json()
    assert shown["memory"]["review"]["review_reason"] == SHOWN
    assert shown["refuted"]["reason"] == REFUTED
    text = run_cli("show", memory_id).out
    assert f"review.review_reason: {SHOWN}" in text
    assert f"contradicts: {MARK}; check the runbook" in text.split("disputed_by:")[1]
    [item] = run_cli("--json", "review", "list").json()["items"]
    assert (item["id"], item["review_reason"]) == (memory_id, SHOWN)
    listed = run_cli("review", "list").out
    assert f"    why: {SHOWN}" in listed.splitlines()
    brief = run_cli("brief").out
    [line] = [line for line in brief.splitlines() if memory_id in line]
    assert f'(disputed by claude-code: "contradicts: {MARK}; check the runbook")' in line
    mcp = claude(project_root).call("show", {"id": memory_id})["memory"]
    assert mcp["review_reason"] == SHOWN
    for out in (str(shown), text, str(item), listed, brief, str(mcp)):
        assert "payments" not in out


def test_a_reason_quoting_nothing_forgotten_is_shown_as_written(run_cli: CliRunner) -> None:
    wrong = run_cli("--json", "remember", "Run the migrations before each deploy of the api")
    run_cli("--json", "remember", QUOTED)
    forgotten = run_cli("--json", "remember", "Releases are cut every second Thursday morning")
    run_cli("forget", forgotten.json()["id"], "--mode", "delete", "--reason", "wrong")
    reason = f"contradicts: {QUOTED}"
    run_cli("refute", wrong.json()["id"], "--reason", reason, environ=CLAUDE_ENV)
    shown = run_cli("--json", "show", wrong.json()["id"]).json()["memory"]
    assert shown["review"]["review_reason"] == f"refuted by claude-code: {reason}"


ASKED = f"because {MARK} now"


def _asked(run_cli: CliRunner) -> tuple[str, str]:
    """A disputed row (`disputed`) and a person's row an agent asked to forget,
    giving a reason that quotes what the person then forgot."""
    other = run_cli("--json", "remember", "The API gateway timeout is thirty seconds")
    asked = run_cli(
        *("forget", other.json()["id"], "--mode", "delete"),
        *("--reason", f"because {QUOTED} now"),
        environ=CLAUDE_ENV,
    )
    assert asked.code == 0, asked.err
    return disputed(run_cli), other.json()["id"]


def _reasons(run_cli: CliRunner, target: str, environ: dict[str, str] | None) -> list[Any]:
    done = run_cli("--json", "audit", "log", "--target", target, environ=environ)
    assert done.code == 0, done.err
    return [e["detail"].get("reason") for e in done.json()["items"]]


def test_the_audit_log_prints_each_entry_with_the_forgotten_quote_withheld(
    run_cli: CliRunner, project_root: Path
) -> None:
    memory_id, other = _asked(run_cli)
    for environ in (None, CLAUDE_ENV):
        assert _reasons(run_cli, memory_id, environ) == [None, REFUTED]
        assert _reasons(run_cli, other, environ) == [None, ASKED]
        for target in (memory_id, other):
            text = run_cli("audit", "log", "--target", target, environ=environ).out
            assert "payments" not in text
        text = run_cli("audit", "log", "--target", memory_id, environ=environ).out
        assert f'"reason":"{REFUTED}"' in text
    whole = run_cli("audit", "log").out
    assert "payments" not in whole
    assert f'"reason":"{REFUTED}"' in whole and f'"reason":"{ASKED}"' in whole
    everything = run_cli("--json", "audit", "log").json()["items"]
    said = {(e["action"], e["target"]): e["detail"].get("reason") for e in everything}
    assert (said[("refute", memory_id)], said[("forget-request", other)]) == (REFUTED, ASKED)
    # The log keeps what was hashed: the chain holds, and the stored words with it.
    assert run_cli("audit", "verify").code == 0
    with Store.open(project_root) as store:
        stored = [row[0] for row in store.db.query("SELECT detail FROM audit_log")]
    assert sum(QUOTED in detail for detail in stored) == 2


def test_list_json_and_mcp_list_show_the_reason_with_the_forgotten_quote_withheld(
    run_cli: CliRunner, project_root: Path
) -> None:
    memory_id = disputed(run_cli)
    for environ in (None, CLAUDE_ENV):
        listed = run_cli("--json", "list", "--include-unreviewed", environ=environ)
        [item] = [i for i in listed.json()["items"] if i["id"] == memory_id]
        assert item["review"]["review_reason"] == SHOWN
        assert "payments" not in listed.out
        waiting = run_cli("--json", "list", "--trust", "disputed", environ=environ).json()
        assert [i["review"]["review_reason"] for i in waiting["items"]] == [SHOWN]
    listed = claude(project_root).call("list", {"trust": "disputed"})
    assert [m["id"] for m in listed["memories"]] == [memory_id]
    assert "payments" not in str(listed)


def test_an_export_holds_the_reason_with_the_forgotten_quote_withheld_and_restores(
    run_cli: CliRunner, tmp_path: Path
) -> None:
    memory_id = disputed(run_cli)
    for environ in (None, CLAUDE_ENV):
        done = run_cli("export", "--include-unreviewed", environ=environ)
        assert done.code == 0, done.err
        lines = [json.loads(line) for line in done.out.splitlines()]
        [row] = [line for line in lines if line.get("id") == memory_id]
        assert row["review"]["review_reason"] == SHOWN
        assert "payments" not in done.out
    backup = tmp_path / "backup.jsonl"
    backup.write_text(run_cli("export", "--include-unreviewed").out, encoding="utf-8")
    other = tmp_path / "other"
    other.mkdir()
    guidance.init_project(other)
    there = cli_runner(other)
    restored = there("--json", "import", str(backup), "--restore", "--all-projects")
    assert restored.code == 0, restored.err
    back = there("--json", "show", memory_id).json()["memory"]
    assert (back["trust"], back["review"]["review_reason"]) == ("disputed", SHOWN)
    again = there("export", "--include-unreviewed").out
    [row] = [json.loads(line) for line in again.splitlines() if memory_id in line]
    assert row["review"]["review_reason"] == SHOWN
    assert "payments" not in again


def test_the_inbox_and_suggestions_show_the_reason_with_the_forgotten_quote_withheld(
    run_cli: CliRunner,
) -> None:
    noted = run_cli(
        "--json", "remember", "Run the migrations before each deploy of the api",
        environ=CLAUDE_ENV,
    )  # fmt: skip
    memory_id = noted.json()["id"]
    quoted = run_cli("--json", "remember", QUOTED).json()["id"]
    reason = f"contradicts: {QUOTED}; check the runbook"
    refuted = run_cli("refute", memory_id, "--reason", reason, environ=CLAUDE_ENV)
    assert refuted.code == 0, refuted.err
    run_cli("forget", quoted, "--mode", "delete", "--reason", "wrong")
    [item] = run_cli("--json", "inbox", "--peek").json()["items"]
    assert (item["id"], item["why"]) == (memory_id, SHOWN)
    assert f"waits: {SHOWN}" in run_cli("inbox", "--peek").out
    suggested = run_cli("--json", "maintain", "--suggest").json()
    [refuted_item] = [i for i in suggested["items"] if i["kind"] == "refuted"]
    assert (refuted_item["id"], refuted_item["why"]) == (memory_id, SHOWN)
    for out in (run_cli("inbox").out, run_cli("maintain", "--suggest").out, str(suggested)):
        assert SHOWN in out
        assert "payments" not in out


def test_audit_findings_withhold_the_quote(run_cli: CliRunner) -> None:
    memory_id = disputed(run_cli)
    for environ in (None, CLAUDE_ENV):
        found = run_cli("--json", "audit", "findings", environ=environ)
        assert found.code == 0, found.err
        [item] = [i for i in found.json()["items"] if i.get("id") == memory_id]
        assert SHOWN in json.dumps(item) and "payments" not in found.out
        text = run_cli("audit", "findings", environ=environ).out
        assert SHOWN in text and "payments" not in text


def test_an_export_withholds_a_forget_reason_quoting_what_was_forgotten(
    run_cli: CliRunner,
) -> None:
    stored = run_cli("--json", "remember", QUOTED).json()["id"]
    done = run_cli("forget", stored, "--mode", "delete", "--reason", f"remove: {QUOTED}")
    assert done.code == 0, done.err
    exported = run_cli("export").out
    stones = [json.loads(line) for line in exported.splitlines()]
    reasons = {s["reason"] for s in stones if s.get("record") == "content_tombstone"}
    assert reasons == {f"remove: {MARK}"}
    assert "payments" not in exported
    original = run_cli("export", "--format", "original").out
    assert MARK in original and "payments" not in original
