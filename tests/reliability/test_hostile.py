"""Hostile input, property-based: hook stdin, recall queries and import lines.

- The hook launcher, as a real process, never crashes, exits 0, and prints
  nothing or one JSON document of a shape the harness accepts, whatever its
  stdin holds: random bytes, wrong types, deep JSON, invalid UTF-8, 5 MB.
- recall never lets a raw SQLite error out, whatever FTS5 syntax the query
  holds (operators, quotes, parentheses, NEAR, `*`, column filters, emoji,
  right-to-left text): tested in-process with hypothesis and through the CLI.
- import reports the bad line by number and writes nothing of the batch.

Example counts are modest: the hook cases start a process each.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import PERSON, make_memory
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reliability_support import (
    assert_hook_contract,
    assert_one_line_error,
    cli,
    counts,
    hook_payload,
    run_hook,
)

from tree_ring.model.errors import TreeRingError
from tree_ring.model.identity import Identity
from tree_ring.model.record import RINGS
from tree_ring.read.recall import recall
from tree_ring.store.db import Store
from tree_ring.transfer import jsonl as transfer
from tree_ring.write import pipeline

# Heavy: CI runs it; the inner loop (`-m "not slow"`) skips it.
pytestmark = pytest.mark.slow


def examples(count: int) -> settings:
    """Few examples, no deadline (processes start), no example database in the repo."""
    return settings(
        max_examples=count,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


# --------------------------------------------------------------------- hooks

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner),
    max_leaves=20,
)
PAYLOAD_KEYS = [
    "session_id",
    "cwd",
    "hook_event_name",
    "stop_hook_active",
    "agent_id",
    "agent_type",
    "transcript_path",
    "prompt_id",
    "turn_id",
    "source",
]


def check_hook_output(doc: dict[str, Any] | None) -> None:
    """Nothing, or exactly one of the shapes Claude Code and Codex accept."""
    if doc is None or doc == {}:
        return
    if "hookSpecificOutput" in doc:
        assert set(doc) == {"hookSpecificOutput"}
        inner = doc["hookSpecificOutput"]
        assert set(inner) == {"hookEventName", "additionalContext"}
        assert inner["hookEventName"] in ("SessionStart", "SubagentStart")
        assert isinstance(inner["additionalContext"], str)
        return
    assert doc.get("decision") == "block" and isinstance(doc.get("reason"), str), doc
    assert set(doc) == {"decision", "reason"}


@examples(15)
@given(data=st.binary(max_size=2048))
def test_hook_survives_random_bytes(data: bytes, project_root: Path) -> None:
    check_hook_output(assert_hook_contract(run_hook(data)))


@examples(15)
@given(value=JSON)
def test_hook_survives_random_json(value: Any) -> None:
    check_hook_output(assert_hook_contract(run_hook(json.dumps(value).encode())))


@examples(20)
@given(
    event=st.sampled_from(["session-start", "stop", "subagent-start", "subagent-stop"]),
    key=st.sampled_from(PAYLOAD_KEYS),
    value=JSON,
)
def test_hook_survives_wrong_types(event: str, key: str, value: Any, project_root: Path) -> None:
    payload = hook_payload(f"claude-code-{event}", project_root)
    payload[key] = value
    check_hook_output(assert_hook_contract(run_hook(payload)))


@examples(10)
@given(position=st.integers(min_value=0, max_value=10_000), junk=st.binary(min_size=1, max_size=4))
def test_hook_survives_invalid_utf8(position: int, junk: bytes, project_root: Path) -> None:
    raw = json.dumps(hook_payload("claude-code-session-start", project_root)).encode()
    cut = position % (len(raw) + 1)
    check_hook_output(assert_hook_contract(run_hook(raw[:cut] + b"\xff" + junk + raw[cut:])))


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"", id="empty"),
        pytest.param(b"\xef\xbb\xbf{}", id="bom"),
        pytest.param(b"\x00" * 1000, id="nul"),
        pytest.param(b"[" * 200_000, id="deep-array"),
        pytest.param(b'{"a":' * 100_000, id="deep-object"),
        pytest.param(b'{"session_id": "' + b"x" * (5 << 20) + b'"}', id="5MB"),
        pytest.param(b'"' + "\u202e\U0001f525".encode() * 1000 + b'"', id="rtl-emoji-string"),
    ],
)
def test_hook_survives_pathological_stdin(data: bytes, project_root: Path) -> None:
    check_hook_output(assert_hook_contract(run_hook(data)))


def test_hook_5mb_valid_looking_payload_is_refused_quietly(project_root: Path) -> None:
    payload = hook_payload("claude-code-session-start", project_root)
    payload["source"] = "x" * (5 << 20)
    proc = run_hook(payload)
    assert assert_hook_contract(proc) is None
    assert proc.stderr


# -------------------------------------------------------------------- recall

FTS_BITS = [
    "AND",
    "OR",
    "NOT",
    "NEAR",
    "NEAR(cache deploy, 2)",
    "*",
    "cache*",
    '"',
    '""',
    "'",
    "(",
    ")",
    "()",
    "summary:cache",
    "details:",
    "tags:x",
    "{summary details}:cache",
    "-",
    "+",
    "^",
    ":",
    "memory_fts",
    "rank",
    "bm25(",
    "\\",
    "%",
    ";",
    "--",
    "/*",
    "\U0001f525",
    "\U0001f9d1\u200d\U0001f4bb",
    "שלום",
    "مرحبا بالعالم",
    "\u202e",
    "\u200f",
    "\x00",
    "\ud800",
    "é",
    "e\u0301",
    "ǅ",
    "ß",
    "Ⅻ",
    "٣",
    "cache",
    "deploy",
    "the",
]
QUERY = st.one_of(
    st.text(max_size=120),
    st.lists(st.sampled_from(FTS_BITS), max_size=12).map(" ".join),
    st.lists(st.one_of(st.sampled_from(FTS_BITS), st.text(max_size=8)), max_size=8).map("".join),
)


@pytest.fixture
def seeded_store(store: Store, project_id: str) -> Store:
    for text in (
        "Deploys warm the cache first",
        "The cache NEAR the edge is flushed nightly",
        "summary: column filters are plain text here",
        "מטמון נמחק בלילה",
        "Emoji in notes \U0001f525 are fine",
    ):
        pipeline.store_memory(store, make_memory(project_id, text), PERSON)
    return store


@examples(300)
@given(query=QUERY, limit=st.integers(min_value=-5, max_value=500))
def test_recall_never_surfaces_a_sqlite_error(
    query: str, limit: int, seeded_store: Store, project_id: str
) -> None:
    identity = Identity(project_id)
    known = {r[0] for r in seeded_store.query("SELECT id FROM memories")}
    hits = recall(seeded_store, identity, query, limit=limit)
    assert {hit.memory.id for hit in hits} <= known


@pytest.mark.parametrize(
    "query",
    [
        'cache" OR 1=1 --',
        "NEAR(cache deploy, 2) AND summary:cache*",
        "((((((",
        "{summary}: * ^ -cache",
        "\U0001f525 מטמון",
        "\u202ecache\u202c",
    ],
)
def test_recall_cli_takes_hostile_queries(query: str, seeded_store: Store) -> None:
    proc = cli(seeded_store.root, "--json", "recall", query)
    assert proc.returncode == 0, proc.stderr
    assert isinstance(json.loads(proc.stdout)["items"], list)


def test_recall_cli_refuses_bytes_that_are_not_utf8(seeded_store: Store) -> None:
    import subprocess
    import sys

    from reliability_support import LAUNCHER

    proc = subprocess.run(
        [sys.executable, str(LAUNCHER), "--root", str(seeded_store.root), "recall", b"\xff\xfe"],
        capture_output=True,
        check=False,
    )
    assert_one_line_error(proc, "not valid UTF-8")


# -------------------------------------------------------------------- import

WORDS = ["cache", "deploy", "build", "schema", "index", "review", "shard", "queue", "token"]
GOOD_ROW = st.fixed_dictionaries(
    {
        "summary": st.lists(st.sampled_from(WORDS), min_size=2, max_size=8).map(
            lambda ws: "Note on " + " ".join(ws)
        ),
        "event_type": st.sampled_from(["note", "lesson", "warning"]),
        "scope": st.just("project"),
        "ring": st.sampled_from([r for r in RINGS if r != "heartwood"]),
        "salience": st.floats(min_value=0, max_value=1),
        "tags": st.lists(st.sampled_from(WORDS), max_size=3),
    }
)
BAD_LINES = [
    "{not json",
    "[1, 2, 3]",
    '"just a string"',
    '{"summary": 5}',
    '{"summary": "x", "ring": "oak"}',
    '{"summary": "   "}',
    '{"summary": "x", "salience": "high"}',
    '{"summary": "x", "salience": 7}',
    '{"summary": "x", "created_at": "yesterday"}',
    '{"summary": "x", "tags": "not-a-list"}',
    '{"summary": "x", "source": "nope"}',
    '{"summary": "a\\u0000b"}',
    '{"summary": "lone \\ud800 surrogate"}',
    '{"summary": "the key is ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"}',
    '{"summary": "x", "scope": "agent"}',
    "[" * 50_000,
    '{"summary": "' + "x" * 9_000 + '"}',
]


@examples(40)
@given(
    good=st.lists(GOOD_ROW, min_size=0, max_size=8),
    bad=st.sampled_from(BAD_LINES),
    where=st.integers(min_value=0, max_value=8),
)
def test_import_names_the_bad_line_and_writes_nothing(
    good: list[dict[str, Any]], bad: str, where: int, store: Store, project_id: str
) -> None:
    lines = [json.dumps(row) for row in good]
    at = min(where, len(lines))
    lines.insert(at, bad)
    before = counts(store.root)
    with pytest.raises(TreeRingError, match=rf"^line {at + 1}: .*nothing imported"):
        transfer.import_lines(store, lines, project=project_id, actor=PERSON)
    assert counts(store.root) == before


@examples(15)
@given(good=st.lists(GOOD_ROW, min_size=1, max_size=8))
def test_a_good_batch_imports_whole(
    good: list[dict[str, Any]], store: Store, project_id: str
) -> None:
    before = counts(store.root)
    lines = [json.dumps(row) for row in good]
    report = transfer.import_lines(store, lines, project=project_id, actor=PERSON)
    after = counts(store.root)
    # A line with no id whose content the store already holds (an earlier
    # example's, or a repeat in this batch) is counted as present.
    assert len(report.created) + len(report.unchanged) == len(good)
    assert after["memories"] == before["memories"] + len(report.created)
    assert after["memory_fts_docsize"] == after["memories"]
    ids = {*report.created, *report.unchanged}
    marks = ",".join("?" * len(ids))
    found = store.conn.execute(f"SELECT summary FROM memories WHERE id IN ({marks})", [*ids])
    assert {row[0] for row in found} == {row["summary"] for row in good}


def test_import_cli_reports_the_line_number(project_root: Path, tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    rows = [json.dumps({"summary": f"Imported fact {n}"}) for n in range(5)]
    rows.insert(3, '{"summary": "x", "ring": "oak"}')
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    before = counts(project_root)
    proc = cli(project_root, "import", str(path))
    assert_one_line_error(proc, "line 4", "nothing imported")
    assert counts(project_root) == before
    path.write_bytes(b'{"summary": "fine"}\n\xff\xfe\n')
    assert_one_line_error(cli(project_root, "import", str(path)), "line 2", "not valid UTF-8")
    assert counts(project_root) == before
