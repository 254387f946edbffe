"""The original Tree Ring's export format both ways, and `import --replace-existing`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CliRunner
from governance_support import CLAUDE, audit_rows, query, remember, show, write
from helpers import FIXTURES, cli_runner

from tree_ring.model import project
from tree_ring.model.record import RETENTIONS, RINGS, SCOPES, SENSITIVITIES
from tree_ring.transfer import original

ENVELOPED = FIXTURES / "original" / "export-enveloped.jsonl"
EVERYTHING = ("--include-unreviewed", "--include-sensitive", "--include-superseded")


def lines_of(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def own_export(run: CliRunner) -> list[dict[str, Any]]:
    result = run("export", *EVERYTHING)
    assert result.code == 0, result.err
    return sorted(lines_of(result.out), key=lambda r: (r.get("record", ""), r.get("id", "")))


def test_the_originals_enveloped_export_imports(run_cli: CliRunner, project_id: str) -> None:
    done = write(run_cli, "import", str(ENVELOPED))
    assert done["imported"] == 7 and done["tombstones"] == 0
    live = {m["id"] for m in write(run_cli, "list", "--include-unreviewed")["items"]}
    assert live == {
        "mem_20260901_100000_a1b2c3d4e5f6",
        "mem_20260902_090000_ba9876543210",
        "mem_20260901_100300_00aa11bb22cc",
        "mem_20260901_100400_33dd44ee55ff",
        "mem_legacy_agent_001",
    }
    assert show(run_cli, "mem_20260901_100100_0123456789ab")["superseded_by"] == (
        "mem_20260902_090000_ba9876543210"
    )
    # A pre-0.12 agent row gets a made-up, stable identity and waits for a person.
    legacy = show(run_cli, "mem_legacy_agent_001")
    assert legacy["agent_profile"].startswith("legacy-agent-") and legacy["scope"] == "agent"
    assert legacy["trust"] == "pending" and "legacy" in legacy["review"]["review_reason"]
    assert legacy["project"] == project_id
    # Importing it again is a no-op, legacy identity included.
    again = write(run_cli, "import", str(ENVELOPED))
    assert again["imported"] == 0 and again["unchanged"] == 7


def test_an_unknown_export_schema_version_is_refused(run_cli: CliRunner, tmp_path: Path) -> None:
    text = ENVELOPED.read_text().replace('"schema_version":1', '"schema_version":2', 1)
    bad = tmp_path / "v2.jsonl"
    bad.write_text(text)
    result = run_cli("import", str(bad))
    assert result.code == 2 and "line 1" in result.err and "schema version 2" in result.err
    assert write(run_cli, "list", "--include-unreviewed")["items"] == []


@pytest.fixture
def populated(run_cli: CliRunner) -> dict[str, str]:
    """A store holding every kind of row an export carries."""
    ids = {
        "plain": remember(run_cli, "Builds pin the toolchain", "--tag", "build"),
        "heartwood": remember(run_cli, "Releases are signed", "--ring", "heartwood"),
        "pending": remember(
            run_cli, "Deploys need two approvals", "--ring", "heartwood", environ=CLAUDE
        ),
        "sensitive": remember(run_cli, "The on-call lead has asthma"),
        "expiring": remember(run_cli, "Staging is frozen", "--expires-at", "2099-01-01"),
        "old": remember(run_cli, "Cache lives in Redis"),
        "forgotten": remember(run_cli, "An experiment we dropped"),
    }
    ids["new"] = remember(run_cli, "Cache lives in SQLite", "--supersedes", ids["old"])
    write(run_cli, "forget", ids["forgotten"], "--mode", "delete", "--reason", "dropped")
    return ids


def test_our_export_in_the_originals_format_imports_unchanged(
    run_cli: CliRunner, populated: dict[str, str], project_root: Path, tmp_path: Path
) -> None:
    result = run_cli("export", "--format", "original", *EVERYTHING)
    assert result.code == 0, result.err
    header, *events = lines_of(result.out)
    assert header["type"] == "tree_ring_memory_export" and header["schema_version"] == 1
    assert header["memory_count"] == len(events) == 7  # every row but the forgotten one
    assert header["sensitive_included"] is True
    # One tombstone per key of the forgotten memory, all of it forgotten.
    assert {stone["kind"] for stone in header["content_tombstones"]} == {"forgotten"}
    assert len(header["content_tombstones"]) >= 2
    assert {e["type"] for e in events} == {"memory_event"}
    for event in events:  # what the original's reader requires of each memory
        memory = event["memory"]
        assert all(isinstance(memory[k], str) and memory[k] for k in ("id", "event_type"))
        assert memory["scope"] in SCOPES and memory["ring"] in RINGS
        assert memory["sensitivity"] in SENSITIVITIES and memory["retention"] in RETENTIONS
        assert set(memory["source"]) == {"type", "ref", "quote"}
        assert memory["review"]["needs_review"] is (memory["trust"] != "accepted")
    # A clone of the project (same project.json) imports it into a fresh store.
    clone = tmp_path / "clone"
    (clone / project.DIR).mkdir(parents=True)
    shutil.copy(project_root / project.DIR / project.PROJECT_FILE, clone / project.DIR)
    run_clone = cli_runner(clone)
    assert run_clone("init").code == 0
    dump = tmp_path / "original.jsonl"
    dump.write_text(result.out)
    write(run_clone, "import", str(dump), "--restore")
    assert own_export(run_clone) == own_export(run_cli)
    # Forgotten content stays forgotten in the clone.
    blocked = run_clone("remember", "An experiment we dropped")
    assert blocked.code != 0 and "forgotten" in blocked.err


# -- import --replace-existing ------------------------------------------------------


def replacement(run_cli: CliRunner, memory_id: str, summary: str, tmp_path: Path) -> Path:
    row = show(run_cli, memory_id)
    for key in ("trust", "content_hash", "origin"):
        row.pop(key, None)
    row["summary"] = summary
    path = tmp_path / "replace.jsonl"
    path.write_text(json.dumps(row) + "\n")
    return path


def test_replace_existing_is_a_persons_audited_decision(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    memory_id = remember(run_cli, "Cache lives in Redis zebracorn", "--operation-id", "cache-1")
    path = replacement(run_cli, memory_id, "Cache lives in SQLite", tmp_path)
    refused = run_cli("import", str(path))
    assert refused.code != 0 and "nothing imported" in refused.err
    assert show(run_cli, memory_id)["summary"] == "Cache lives in Redis zebracorn"
    denied = run_cli("import", str(path), "--replace-existing", environ=CLAUDE)
    assert denied.code != 0 and "import.replace" in denied.err
    planned = write(run_cli, "import", str(path), "--replace-existing", "--dry-run")
    assert planned["replaced"] == 1
    assert show(run_cli, memory_id)["summary"] == "Cache lives in Redis zebracorn"

    done = write(run_cli, "import", str(path), "--replace-existing")
    assert done["replaced"] == 1 and done["items"] == [{"id": memory_id, "result": "imported"}]
    assert show(run_cli, memory_id)["summary"] == "Cache lives in SQLite"
    (entry,) = audit_rows(project_root, "replace")
    detail = json.loads(entry["detail"])
    assert entry["target"] == memory_id and entry["actor"] == "person"
    assert detail["old_content_hash"] != detail["new_content_hash"]
    # The old words are gone from the index; the replacement is found.
    assert write(run_cli, "recall", "zebracorn")["items"] == []
    assert [r["id"] for r in write(run_cli, "recall", "SQLite")["items"]] == [memory_id]
    fts = query(project_root, "SELECT count(*) FROM memory_fts")[0][0]
    assert fts == query(project_root, "SELECT count(*) FROM memories")[0][0]


def test_replace_existing_does_not_beat_tombstones(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    gone = remember(run_cli, "Deploy on Fridays")
    write(run_cli, "forget", gone, "--mode", "delete", "--reason", "never again")
    kept = remember(run_cli, "Deploy on Thursdays")
    path = replacement(run_cli, kept, "Deploy on Fridays", tmp_path)
    refused = run_cli("import", str(path), "--replace-existing")
    assert refused.code != 0 and "forgotten" in refused.err
    assert show(run_cli, kept)["summary"] == "Deploy on Thursdays"
    assert audit_rows(project_root, "replace") == []

    redacted = remember(run_cli, "Old vendor contact")
    path = replacement(run_cli, redacted, "New vendor contact", tmp_path)
    write(run_cli, "forget", redacted, "--mode", "redact", "--reason", "personal")
    refused = run_cli("import", str(path), "--replace-existing")
    assert refused.code != 0 and "redacted" in refused.err
    assert show(run_cli, redacted)["summary"] == "[REDACTED]"


def test_the_header_carries_tombstones_as_records() -> None:
    row, stones = original.unwrap(
        {
            "type": original.HEADER,
            "schema_version": 1,
            original.TOMBSTONES: [{"content_hash": "sha256:x", "kind": "forgotten"}],
        }
    )
    assert row is None
    assert stones == [
        {"content_hash": "sha256:x", "kind": "forgotten", "record": "content_tombstone"}
    ]
    with pytest.raises(Exception, match="memory object"):
        original.unwrap({"type": original.EVENT, "memory": "nope"})
