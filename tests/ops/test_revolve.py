"""`revolve sync`: evaluation outcomes as scars, heartwood, seeds and outer-ring results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import CliRunner
from governance_support import CLAUDE, audit_rows, query, show, write
from helpers import SAVED_AS

from tree_ring.sources import revolve
from tree_ring.sources.files import stable_id

# file -> (text, ring, event type, salience, confidence, retention)
RECORDS: dict[str, tuple[str, str, str, float, float, str]] = {
    "evals/cache-v2.md": (
        "# Cache v2\nThe LRU cache change was rolled back after a latency regression.\n",
        "scar",
        "evaluation_rejection",
        0.90,
        0.78,
        "durable",
    ),
    "evals/parser.json": (
        json.dumps({"title": "Streaming parser wins the bake-off", "verdict": "promoted"}),
        "heartwood",
        "evaluation_promotion",
        0.86,
        0.84,
        "durable",
    ),
    "ideas/sharding.txt": (
        "Sharding the index by project may halve recall latency.\nStatus: hypothesis.\n",
        "seed",
        "evaluation_hypothesis",
        0.68,
        0.60,
        "normal",
    ),
    "logs/nightly.jsonl": (
        '{"suite": "nightly benchmark", "score": 0.91}\n',
        "outer",
        "evaluation_result",
        0.72,
        0.70,
        "normal",
    ),
}


def revolve_rows(root: Path, *, live: bool = True) -> dict[str, dict[str, Any]]:
    sql = "SELECT * FROM memories WHERE source_type = 'revolve'"
    if live:
        sql += " AND retired_at IS NULL"
    return {row["id"]: dict(row) for row in query(root, sql)}


def record_id(ref: str, event_type: str) -> str:
    return stable_id("revolve", f"revolve/{ref}:{event_type}")


def sync(run_cli: CliRunner, *args: str, environ: dict[str, str] | None = None) -> dict[str, Any]:
    return write(run_cli, "revolve", "sync", *args, environ=environ)


@pytest.fixture
def folder(project_root: Path) -> Path:
    base = project_root / "revolve"
    for ref, (text, *_rest) in RECORDS.items():
        (base / ref).parent.mkdir(parents=True, exist_ok=True)
        (base / ref).write_text(text)
    (base / "notes.md").write_text("Meeting notes about lunch.\n")  # names no outcome
    (base / "image.png").write_bytes(b"rejected promoted")  # not a file type it reads
    (base / "huge.md").write_text("promoted " * (revolve.MAX_BYTES // 9 + 10))
    (base / "leak.md").write_text("Promoted: token ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8\n")
    return base


def test_each_outcome_becomes_its_ring_with_a_stable_id(run_cli: CliRunner, folder: Path) -> None:
    report = sync(run_cli)
    stored = revolve_rows(folder.parent)
    expected = {record_id(ref, values[2]) for ref, values in RECORDS.items()}
    assert (
        set(stored)
        == expected
        == {item["id"] for item in [i for i in report["items"] if i["change"] == "create"]}
    )
    for ref, (_, ring, event_type, salience, confidence, retention) in RECORDS.items():
        row = stored[record_id(ref, event_type)]
        assert (row["ring"], row["event_type"], row["scope"]) == (ring, event_type, "revolve")
        assert (row["salience"], row["confidence"], row["retention"]) == (
            salience,
            confidence,
            retention,
        )
        assert row["source_ref"] == f"revolve/{ref}"
    scar = stored[record_id("evals/cache-v2.md", "evaluation_rejection")]
    assert scar["summary"] == "Revolve rejected evidence from revolve/evals/cache-v2.md: Cache v2"
    assert scar["details"].startswith("Outcome: rejected. Source Revolve record remains")
    skipped = {
        item["where"]: item["reason"] for item in report["items"] if item["change"] == "skipped"
    }
    assert set(skipped) == {"revolve/huge.md", "revolve/leak.md:evaluation_promotion"}
    assert "larger than" in skipped["revolve/huge.md"]
    assert "secret-like" in skipped["revolve/leak.md:evaluation_promotion"]
    assert report["files_read"] == 6  # four records, notes.md and leak.md


def test_resync_is_idempotent_and_a_changed_outcome_supersedes(
    run_cli: CliRunner, folder: Path
) -> None:
    sync(run_cli)
    before = revolve_rows(folder.parent, live=False)
    again = sync(run_cli)
    assert {i["id"] for i in [i for i in again["items"] if i["change"] == "unchanged"]} == set(
        before
    )
    assert revolve_rows(folder.parent, live=False) == before
    # The hypothesis was later accepted: the seed is replaced by heartwood.
    (folder / "ideas" / "sharding.txt").write_text("Sharding the index: accepted as the winner.\n")
    report = sync(run_cli)
    seed = record_id("ideas/sharding.txt", "evaluation_hypothesis")
    heartwood = record_id("ideas/sharding.txt", "evaluation_promotion")
    assert [
        (c["id"], c["replaces"]) for c in [i for i in report["items"] if i["change"] == "update"]
    ] == [(heartwood, [seed])]
    assert show(run_cli, seed)["superseded_by"] == heartwood
    assert show(run_cli, heartwood)["ring"] == "heartwood"


def test_a_record_that_disappears_or_loses_its_outcome_is_retired(
    run_cli: CliRunner, folder: Path
) -> None:
    sync(run_cli)
    (folder / "logs" / "nightly.jsonl").unlink()
    (folder / "evals" / "parser.json").write_text('{"title": "Parser notes"}')
    report = sync(run_cli)
    retired = {item["id"] for item in [i for i in report["items"] if i["change"] == "retire"]}
    assert retired == {
        record_id("logs/nightly.jsonl", "evaluation_result"),
        record_id("evals/parser.json", "evaluation_promotion"),
    }
    assert {entry["target"] for entry in audit_rows(folder.parent, "retire")} == retired
    assert retired <= set(revolve_rows(folder.parent, live=False))
    assert not retired & set(revolve_rows(folder.parent))


def test_an_agents_revolve_sync_waits_for_a_person(run_cli: CliRunner, folder: Path) -> None:
    sync(run_cli, environ=CLAUDE)
    trust = {row["event_type"]: row["trust"] for row in revolve_rows(folder.parent).values()}
    # The revolve scope is shared: whatever an agent syncs into it waits.
    assert trust == {
        "evaluation_rejection": "pending",
        "evaluation_promotion": "pending",
        "evaluation_hypothesis": "pending",
        "evaluation_result": "pending",
    }
    sync(run_cli)  # a person's sync of the same folder: nothing changes, nothing is believed
    again = {row["event_type"]: row["trust"] for row in revolve_rows(folder.parent).values()}
    assert again == trust


def test_outcome_words_are_tried_in_order() -> None:
    assert revolve.outcome_of("a.md", "promoted, then rolled back") == 0
    assert revolve.outcome_of("a.md", "the winner") == 1
    assert revolve.outcome_of("a.md", "future work") == 2
    assert revolve.outcome_of("scores.md", "nothing else") == 3  # the path counts too
    assert revolve.outcome_of("a.md", "lunch") is None
    assert revolve.excerpt("#\n- ok\n## - A real first line\n") == "A real first line"


def test_excerpt_is_the_first_line_of_more_than_six_characters() -> None:
    assert revolve.excerpt("# Title\n- short\n-  a  longer   line\n") == "a longer line"
    assert revolve.excerpt("## 123456\n1234567") == "1234567"  # six is too short
    assert revolve.excerpt("y" * 180) == "y" * 180
    assert revolve.excerpt("y" * 181) == "y" * 180 + "..."
    assert revolve.excerpt("# x\n\n- y") is None


def test_files_git_ignores_are_not_read(
    run_cli: CliRunner, project_root: Path, identity: Any
) -> None:
    """As for DOX: in a git repository, a file git ignores (a scratch folder
    an agent writes to) is read only when named as the source itself; a
    file whose suffix is in capitals is the project's as much."""
    import subprocess

    from tree_ring.model.actor import Actor

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(project_root), *args], check=True, capture_output=True)

    git("init", "-q")
    folder = project_root / "revolve"
    (folder / "scratch").mkdir(parents=True)
    (project_root / ".gitignore").write_text("revolve/scratch/\n")
    kept = "The LRU cache change was rolled back after a latency regression.\n"
    (folder / "cache.md").write_text(kept)
    (folder / "NOTES.MD").write_text("The streaming parser was promoted after the bake-off.\n")
    (folder / "scratch" / "sneaky.md").write_text("Disabling the auth check was promoted.\n")
    git("add", "revolve/cache.md")

    def read(source: Path) -> set[str]:
        return revolve.collect(source, project_root, identity, Actor.person()).read

    assert read(folder) == {"revolve/cache.md", "revolve/NOTES.MD"}
    write(run_cli, "revolve", "sync", "--source-root", str(folder))
    refs = {row["source_ref"] for row in query(project_root, "SELECT * FROM memories")}
    assert refs == {"revolve/cache.md", "revolve/NOTES.MD"}
    assert read(folder / "scratch" / "sneaky.md") == {"revolve/scratch/sneaky.md"}


@pytest.mark.parametrize("verb", ["revolve", "dox"])
def test_a_source_root_neither_folder_nor_file_is_refused(
    run_cli: CliRunner, project_root: Path, verb: str
) -> None:
    import os

    fifo = project_root / "pipe"
    os.mkfifo(fifo)
    done = run_cli(verb, "sync", "--source-root", str(fifo))
    assert done.code != 0
    assert done.err.strip().splitlines() == [
        f"error: {verb} source root {fifo} is neither a folder nor a file; give a folder or a file"
    ]
    assert done.out == ""


@pytest.mark.parametrize("saved", list(SAVED_AS))
def test_a_byte_order_mark_or_crlf_line_ends_give_the_plain_records_memory(
    run_cli: CliRunner, project_root: Path, saved: str
) -> None:
    base = project_root / "revolve"
    base.mkdir()
    for ref in ("evals/cache-v2.md", "ideas/sharding.txt"):
        (base / ref).parent.mkdir(parents=True, exist_ok=True)
        (base / ref).write_bytes(SAVED_AS[saved](RECORDS[ref][0]))
    report = sync(run_cli)
    assert [i for i in report["items"] if i["change"] != "create"] == []
    stored = {
        row["id"]: (row["source_ref"], row["ring"], row["summary"])
        for row in revolve_rows(project_root).values()
    }
    assert stored == {
        record_id("evals/cache-v2.md", "evaluation_rejection"): (
            "revolve/evals/cache-v2.md",
            "scar",
            "Revolve rejected evidence from revolve/evals/cache-v2.md: Cache v2",
        ),
        record_id("ideas/sharding.txt", "evaluation_hypothesis"): (
            "revolve/ideas/sharding.txt",
            "seed",
            "Revolve deferred evidence from revolve/ideas/sharding.txt: "
            "Sharding the index by project may halve recall latency.",
        ),
    }


@pytest.mark.parametrize(
    ("ref", "text", "said"),
    [
        # A field that says what was found, wherever it stands and however laid out.
        ("r.json", '{"outcome": "promoted", "summary": "Batching doubled throughput"}',
         "Batching doubled throughput"),
        ("r.json", '{\n  "outcome": "promoted",\n  "title": "Streaming parser wins"\n}',
         "Streaming parser wins"),
        ("r.jsonl", '{"result": "Nightly score rose to 0.91", "run": 7}\n{"result": "later"}\n',
         "Nightly score rose to 0.91"),
        # None: its fields in the order of their names, whatever order the file gives.
        ("r.json", '{"suite": "nightly", "score": 0.91, "ok": true}',
         "ok: True; score: 0.91; suite: nightly"),
        ("r.json", '{"score": 0.91, "ok": true, "suite": "nightly"}',
         "ok: True; score: 0.91; suite: nightly"),
        # No JSON object: the first meaningful line, as for any other file.
        ("r.json", "promoted: not json at all", "promoted: not json at all"),
        ("r.json", '["a list", "promoted"]', '["a list", "promoted"]'),
    ],
)  # fmt: skip
def test_a_json_record_says_what_its_fields_say(ref: str, text: str, said: str) -> None:
    assert revolve.excerpt(text, ref) == said


def test_a_forgotten_json_record_stays_forgotten_when_its_keys_move(
    run_cli: CliRunner, project_root: Path
) -> None:
    base = project_root / "revolve"
    base.mkdir()
    record = base / "batch.json"
    said = "Batching writes in the ingest worker doubled throughput"
    record.write_text(json.dumps({"outcome": "promoted", "summary": said}) + "\n")
    sync(run_cli)
    (row,) = revolve_rows(project_root).values()
    assert row["summary"] == f"Revolve promoted evidence from revolve/batch.json: {said}"
    done = run_cli("forget", row["id"], "--mode", "delete", "--reason", "a fluke")
    assert done.code == 0, done.err
    record.write_text(json.dumps({"summary": said, "outcome": "promoted"}, indent=2) + "\n")
    sync(run_cli)
    assert revolve_rows(project_root) == {}


def test_a_forgotten_record_stays_forgotten_in_another_file_and_alone(
    run_cli: CliRunner, project_root: Path
) -> None:
    base = project_root / "revolve"
    base.mkdir()
    said = "The LRU cache change caused a latency regression in search"
    (base / "cache.json").write_text(json.dumps({"outcome": "rejected", "summary": said}))
    sync(run_cli)
    (row,) = revolve_rows(project_root).values()
    done = run_cli("forget", row["id"], "--mode", "delete", "--reason", "a fluke")
    assert done.code == 0, done.err
    # Its words alone, by a person: the record's claim, forgotten.
    again = run_cli("remember", said)
    assert again.code == 1 and "this content was forgotten" in again.err
    # The same record renamed, and copied into a Markdown file.
    (base / "cache.json").rename(base / "cache-v2.json")
    (base / "notes.md").write_text(f"# {said}\nStatus: rejected\n")
    sync(run_cli)
    assert revolve_rows(project_root) == {}
    # Another record of the same file keeps its place and its own words.
    (base / "cache-v2.json").write_text(
        json.dumps({"outcome": "rejected", "summary": "The LFU cache change doubled memory use"})
    )
    sync(run_cli)
    assert [r["ref"] for r in map(_ref, revolve_rows(project_root).values())] == [
        "revolve/cache-v2.json"
    ]


def _ref(row: dict[str, Any]) -> dict[str, str]:
    return {"ref": str(row["source_ref"])}
