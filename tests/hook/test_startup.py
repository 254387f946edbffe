"""What a hook call loads: each event, in a fresh `python3 -I -S` as hooks.json runs
it, imports only the modules it uses and none of the standard library's costly ones."""

from __future__ import annotations

import json
import os
import re
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO
from hypothesis import given, settings
from hypothesis import strategies as st
from startup_support import COSTLY
from transcript_support import WORK, write_transcript

from tree_ring.govern import admission
from tree_ring.harness import guidance, receipts
from tree_ring.hook import adapter
from tree_ring.model import text as text_policy
from tree_ring.model.identity import Identity
from tree_ring.read import brief
from tree_ring.store import forgotten_rows, live, schema, user
from tree_ring.write import propagate

FIXTURES = REPO / "tests" / "fixtures" / "hooks"
MODEL = {
    "tree_ring",
    "tree_ring.model",
    "tree_ring.model.errors",
    "tree_ring.model.frozen",
    "tree_ring.model.jsontext",
    "tree_ring.model.project",
    "tree_ring.model.record",
    "tree_ring.model.text",
    "tree_ring.model.user_home",
    "tree_ring.hook",
    "tree_ring.hook.adapter",
    "tree_ring.harness",
    "tree_ring.harness.receipts",
}
# SessionStart: the adapter, the brief, the store's open and migration check
# (with `gitdir`: a store git tracks came with a checkout and is refused), receipts,
# the usage log's one line; the anchors' table read, and the anchor model only
# when a memory shown has anchors (none here); the checks the brief before
# kept (`brief_checks`, one setting read).
BRIEFED = MODEL | {
    "tree_ring.api",
    "tree_ring.api.decisions",
    "tree_ring.api.opened",
    "tree_ring.api.project",
    "tree_ring.model.gitdir",
    "tree_ring.model.identity",
    "tree_ring.read.staleness",
    "tree_ring.store.anchors",
    "tree_ring.read",
    "tree_ring.read.brief",
    "tree_ring.read.brief_checks",
    "tree_ring.store",
    "tree_ring.store.db",
    "tree_ring.store.guard_answers",
    "tree_ring.store.live",
    "tree_ring.store.rows",
    "tree_ring.store.schema",
    "tree_ring.store.settings",
    "tree_ring.store.sql",
    "tree_ring.store.usage_log",
}
# A row the brief has not checked before loads the guard: the engine, the
# prefilter and the secret rules' plan written out (`secret_plan`): a row that
# opens none of its tests builds no rule, so neither the rule table (`table`,
# `tokens`, `credentials`, `values`) nor the sensitivity rules (`personal`) nor
# the pattern reader (`reader`) load for plain memories.
GUARD = {
    "tree_ring.guard",
    "tree_ring.guard.engine",
    "tree_ring.guard.prefilter",
    "tree_ring.guard.rule",
    "tree_ring.guard.secret_plan",
}
START = BRIEFED | GUARD
# Stop: the adapter, the project's id, a receipt and (when it blocks) a usage
# log line, plus the cadence: one
# settings read through the store's SQL module (sqlite3, but neither the
# store's open and migrations nor the write path), the session's state and
# the transcript's tail; a stop that blocks keeps the turn's changed files
# (`turn_files`, their paths judged by `anchor`, no file opened).
STOP = MODEL | {
    "tree_ring.model.anchor",
    "tree_ring.model.turn_files",
    "tree_ring.hook.cadence",
    "tree_ring.hook.transcript",
    "tree_ring.harness.checkpoint",
    "tree_ring.store",
    "tree_ring.store.settings",
    "tree_ring.store.sql",
    "tree_ring.store.usage_log",
}

# The launcher's own steps, then what it leaves loaded: the hook's one line of
# output, then a module name a line. Run with hooks.json's flags, and importing
# nothing itself (not even json) that would hide what the hook imports.
PROBE = """\
import io, sys
sys.path.insert(0, sys.argv[1])
from tree_ring.hook.adapter import main
out = io.BytesIO()
main(sys.argv[2], stdin=io.BytesIO(sys.stdin.buffer.read()), stdout=out)
sys.stdout.write(out.getvalue().decode() + "\\n".join(sorted(sys.modules)))
"""


def loaded(
    event: str, project_root: Path, harness: str = "claude-code", transcript: Path | None = None
) -> tuple[Any, set[str]]:
    data = json.loads((FIXTURES / f"{harness}-{event}.json").read_text(encoding="utf-8"))
    data["cwd"] = str(project_root)
    if transcript is not None:
        data["transcript_path"] = str(transcript)
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", PROBE, str(REPO), harness],
        input=json.dumps(data).encode(),
        capture_output=True,
        check=True,
        timeout=60,
    )
    assert done.stderr == b"", done.stderr.decode()
    output, *modules = done.stdout.decode().splitlines()
    return json.loads(output), set(modules)


@pytest.fixture
def remembered(project_root: Path) -> Path:
    """A project whose brief has memories to show (plain text: no guard rule's
    prefilter opens on it, so nothing is compiled)."""
    text = "Deploys freeze on Fridays after the release branch is cut"
    subprocess.run(
        [
            sys.executable,
            str(REPO / "bin" / "tree-ring"),
            "--root",
            str(project_root),
            "remember",
            text,
        ],
        check=True,
        capture_output=True,
    )
    return project_root


def test_session_start_loads_the_brief_and_nothing_costly(remembered: Path) -> None:
    # The write kept the guard's answer for its row: the first brief after it reads it.
    output, modules = loaded("session-start", remembered)
    assert "Deploys freeze on Fridays" in output["hookSpecificOutput"]["additionalContext"]
    assert {m for m in modules if m.startswith("tree_ring")} == BRIEFED
    assert modules & COSTLY == set()
    # Without it (a row imported, a record another guard made), the guard reads the row.
    with sqlite3.connect(remembered / ".tree-ring" / "memory.sqlite") as conn:
        conn.execute("DELETE FROM settings WHERE key = 'brief_checks'")
    asked, modules = loaded("session-start", remembered)
    assert asked == output
    assert {m for m in modules if m.startswith("tree_ring")} == START
    assert modules & COSTLY == set()
    # The next session's brief reads the same rows: the guard's answer was kept.
    again, modules = loaded("session-start", remembered)
    assert again == output
    assert {m for m in modules if m.startswith("tree_ring")} == BRIEFED


def test_the_first_session_after_a_capture_does_not_load_the_guard(project_root: Path) -> None:
    """The stop checkpoint's capture keeps the guard's answer for the row it
    writes, as `remember` does: the next session's brief shows it, guard unloaded."""
    data = json.loads((FIXTURES / "claude-code-session-start.json").read_text(encoding="utf-8"))
    session = data["session_id"]
    text = "The integration suite needs the docker socket mounted"
    subprocess.run(
        [
            sys.executable, str(REPO / "bin" / "tree-ring"), "--root", str(project_root),
            "capture", text, "--event-type", "lesson", "--session-id", session,
            "--operation-id", "auto-0123456789ab-1",
        ],
        env={**os.environ, "CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": session},
        check=True,
        capture_output=True,
    )  # fmt: skip
    output, modules = loaded("session-start", project_root)
    assert text in output["hookSpecificOutput"]["additionalContext"]
    assert {m for m in modules if m.startswith("tree_ring")} == BRIEFED


def test_a_project_that_forgot_loads_no_keys_for_rows_it_checked_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a user store, and forgets on both sides, every row the brief
    reads is keyed against the other store's tombstones: the first session
    loads the keys' modules (and `re`), the next reads the answers kept."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    root, other = tmp_path / "project", tmp_path / "other"

    def cli(where: Path, *args: str) -> str:
        done = subprocess.run(
            [sys.executable, str(REPO / "bin" / "tree-ring"), "--root", str(where), *args],
            check=True,
            capture_output=True,
            text=True,
        )
        return done.stdout

    for where in (root, other):
        where.mkdir()
        cli(where, "init")
    cli(root, "remember", "Deploys freeze on Fridays after the release branch is cut")
    cli(root, "remember", "--scope", "global", "I prefer small commits with clear messages")
    gone = cli(root, "--json", "remember", "Old builds ran on Jenkins agents in the basement")
    cli(root, "forget", json.loads(gone)["id"], "--mode", "delete", "--reason", "moved")
    # Written from elsewhere, so only this project's forget hides it here.
    cli(other, "remember", "--scope", "global", "Old builds ran on Jenkins agents in the basement")
    mine = cli(other, "--json", "remember", "--scope", "global", "Lint runs before every push")
    cli(other, "forget", "--user", json.loads(mine)["id"], "--mode", "delete", "--reason", "no")
    first, modules = loaded("session-start", root)
    context = first["hookSpecificOutput"]["additionalContext"]
    assert "small commits" in context and "Jenkins" not in context
    assert {"tree_ring.store.carried_words", "tree_ring.store.tombstones", "re"} <= modules
    again, modules = loaded("session-start", root)
    assert again == first
    keys = {"tree_ring.store.carried_words", "tree_ring.store.tombstones", "tree_ring.model.claims"}
    assert modules & (keys | GUARD | {"re"}) == set()
    assert modules & COSTLY == set()


@pytest.mark.parametrize("harness", ["claude-code", "codex"])
def test_stop_reads_its_cadence_and_loads_nothing_costly(
    remembered: Path, harness: str, tmp_path: Path
) -> None:
    transcript = write_transcript(tmp_path / "t.jsonl", harness, WORK)
    output, modules = loaded("stop", remembered, harness, transcript)
    assert output["decision"] == "block" and " capture " in output["reason"]
    assert {m for m in modules if m.startswith("tree_ring")} == STOP
    assert modules & COSTLY == set()
    assert "tree_ring.store.db" not in modules and "tree_ring.write" not in modules


# The migration that last shipped a new vector table.
RECODED = "0018_meaning_recoded_products"


def test_an_upgrade_that_ships_a_new_vector_table_costs_the_hook_no_coding(
    remembered: Path,
) -> None:
    """A store whose codes an older vector table made, one migration behind:
    the SessionStart hook migrates it and briefs from it, and neither reads
    the vector table nor codes a memory (at 100,000 memories that took longer
    than a hook is given); the first recall does (test_migrations.py)."""
    path = remembered / ".tree-ring" / "memory.sqlite"
    conn = sqlite3.connect(path)
    try:
        conn.execute("UPDATE meaning_source SET vectors = '1 10 128 3280 0badc0de'")
        conn.execute("DELETE FROM schema_migrations WHERE name = ?", (RECODED,))
        conn.execute(f"PRAGMA user_version = {len(schema.MIGRATIONS) - 1}")
        conn.commit()
        codes = dict(conn.execute("SELECT rowid, code FROM memory_meaning"))
    finally:
        conn.close()
    output, modules = loaded("session-start", remembered)
    assert "Deploys freeze on Fridays" in output["hookSpecificOutput"]["additionalContext"]
    assert "tree_ring.model.vectors" not in modules and "tree_ring.store.meaning" not in modules
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone() == (len(schema.MIGRATIONS),)
        assert dict(conn.execute("SELECT rowid, code FROM memory_meaning")) == codes
        assert conn.execute("SELECT vectors FROM meaning_source").fetchall() == [
            ("1 10 128 3280 0badc0de",)
        ]
    finally:
        conn.close()


def test_a_fresh_clone_gets_its_store_and_a_brief_all_the_same(tmp_path: Path) -> None:
    """No database yet (project.json only): SessionStart creates it, and the
    migrations, which need json, the declared settings, the meaning codes'
    table and the record of the vector table that codes them (its header
    line: an empty store has nothing to code), and the modules that hold the
    later migrations' statements (the summary tree's leaves, the inbox's and
    the refutations' indexes, the team ledger's kept lines, the tombstones'
    memory ids), bring them in only then; so does the reader of the team
    ledger's lines a bounded block at a time, with which the build first
    reads the ledger's header lines (`project.ledger_problem`), and where a
    store is built (`store.builds`)."""
    root = tmp_path / "clone"
    root.mkdir()
    guidance.init_project(root)
    (root / ".tree-ring" / "memory.sqlite").unlink()
    output, modules = loaded("session-start", root)
    assert "no memories to recall" in output["hookSpecificOutput"]["additionalContext"]
    assert (root / ".tree-ring" / "memory.sqlite").exists()
    # No row to check, so the guard is never loaded; the empty brief asks
    # whether other partitions hold memories.
    expected = BRIEFED | {
        "tree_ring.read.brief_elsewhere",
        "tree_ring.store.moved",
        "tree_ring.store.builds",
        "tree_ring.store.meaning",
        "tree_ring.store.leaves",
        "tree_ring.store.inbox",
        "tree_ring.store.refutations",
        "tree_ring.store.ledger_rows",
        "tree_ring.store.tombstone_ids",
        "tree_ring.model.fold",
        "tree_ring.model.line_bound",
        "tree_ring.model.morphy",
        "tree_ring.model.vectors",
    }
    assert {m for m in modules if m.startswith("tree_ring")} == expected


# The adapter checks and quotes without re or shlex; these hold it to them.
TRICKY = st.text(
    alphabet=st.sampled_from(list("aZ09._:-_@%+=,/ '\"$`\\!\n\té😀\x00-")), max_size=40
)


@settings(max_examples=400, deadline=None, database=None)
@given(text=TRICKY)
def test_the_adapters_checks_are_the_patterns_they_replace(text: str) -> None:
    assert adapter.usable_session_id(text) == bool(
        re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}", text)
    )
    assert adapter.replace_runs(text, adapter.AGENT_TYPE_CHARACTERS, "-") == re.sub(
        r"[^A-Za-z0-9_.-]+", "-", text
    )
    assert adapter.shell_quote(text) == shlex.quote(text)


def test_long_session_ids_are_refused_at_the_same_length() -> None:
    assert adapter.usable_session_id("a" * 128) and not adapter.usable_session_id("a" * 129)


def _drawn_on(code: int) -> bool:
    import unicodedata

    kind = unicodedata.category(chr(code))
    return kind[0] == "M" or kind == "Cf"


# A dash and the marks or format characters drawn on it (`text.no_fence`).
_DASH = "[" + re.escape("".join(sorted(text_policy.DASHES))) + "]"
_ON = "[" + "".join(re.escape(chr(c)) for c in range(0x80, 0x110000) if _drawn_on(c)) + "]*"
_RUN = re.compile(f"(?:{_DASH}{_ON}){{3,}}")
_UNIT = re.compile(f"{_DASH}{_ON}")


@settings(max_examples=300, deadline=None, database=None)
@given(
    text=TRICKY,
    dashes=st.text(
        alphabet=st.sampled_from(list("-- a\u2014\uff0d\u2500\u0336\u034f\u200b")), max_size=30
    ),
)
def test_the_receipt_and_brief_helpers_are_the_patterns_they_replace(
    text: str, dashes: str
) -> None:
    assert receipts.receipt_name(text) == re.sub(r"[^a-z0-9-]+", "-", text.lower()) + ".json"
    for sample in (text, dashes):
        assert text_policy.no_fence(sample) == _RUN.sub(
            lambda run: "".join(_UNIT.findall(run.group())[:2]), sample
        )


def test_the_brief_orders_by_its_index_columns() -> None:
    order = schema.BRIEF_ORDER
    for column in ("ring", "salience", "confidence", "created_at"):
        order = re.sub(rf"\b{column}\b", f"m.{column}", order)
    assert brief.select_sql(live.Clause("1", {})).endswith(f"ORDER BY {order} LIMIT :brief_limit")


def test_the_written_rule_names_every_module_the_hooks_may_not_load() -> None:
    """docs/STARTUP.md's table of refused modules is the test's list, no more, no less."""
    text = (REPO / "docs" / "STARTUP.md").read_text(encoding="utf-8")
    section = text.split("## What the hooks may not load", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([a-z0-9_]+)` \|", section, flags=re.MULTILINE)
    assert set(rows) == COSTLY and len(rows) == len(COSTLY)


def test_the_briefs_copies_are_their_sources() -> None:
    """Values the brief spells out because SessionStart loads neither the write
    path nor the user store (docs/STARTUP.md, "Copies kept for start-up")."""
    assert brief.CONSOLIDATES == propagate.CONSOLIDATES
    assert brief.CONTRADICTS == admission.CONTRADICTS
    assert brief.AGENT_ORIGINS == admission.AGENT_ORIGINS
    listed = ", ".join(f"'{origin}'" for origin in sorted(admission.AGENT_ORIGINS))
    assert f"({listed})" == brief._AGENTS  # pyright: ignore[reportPrivateUsage]
    assert brief.FORGOTTEN_ANY_SQL == forgotten_rows.ANY_SQL
    assert brief.USER_PROJECT == user.USER_PROJECT
    caller = Identity("p1", "claude-code", "sess-1", "sess-1")
    assert brief.user_identity(caller) == user.user_identity(caller)
