"""The user store: a person's own memory, in every project's brief and recall."""

from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import PERSON, REPO, CliRunner, cli_runner
from governance_support import CLAUDE, CODEX
from startup_support import COSTLY

from tree_ring.harness import guidance
from tree_ring.hook import adapter
from tree_ring.model import project, user_home
from tree_ring.read import brief
from tree_ring.store import audit, user
from tree_ring.store.db import Store
from tree_ring.write import correct


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    return {"TREE_RING_USER_HOME": str(tmp_path / "me")}


@pytest.fixture
def other(tmp_path: Path) -> Path:
    root = tmp_path / "other"
    root.mkdir()
    guidance.init_project(root)
    return root


def run(run_cli: CliRunner, home: dict[str, str], *args: str, **env: str) -> dict[str, object]:
    done = run_cli("--json", *args, environ={**home, **env})
    assert done.code == 0, done.err
    data: dict[str, object] = done.json()
    return data


def hook_brief(root: Path, environ: dict[str, str], harness: str = "codex") -> tuple[str, str]:
    payload = {"hook_event_name": "SessionStart", "session_id": "sess-9", "cwd": str(root)}
    out = io.BytesIO()
    err = io.StringIO()
    saved, sys.stderr = sys.stderr, err
    try:
        code = adapter.main(harness, io.BytesIO(json.dumps(payload).encode()), environ, out)
    finally:
        sys.stderr = saved
    assert code == 0
    text = out.getvalue().decode()
    return (
        json.loads(text)["hookSpecificOutput"]["additionalContext"] if text else ""
    ), err.getvalue()


def test_the_path_comes_from_the_callers_environment(tmp_path: Path) -> None:
    assert user_home.user_store_path_str({"TREE_RING_USER_HOME": "/x/me"}) == "/x/me/user.sqlite"
    assert user_home.user_store_path_str({"XDG_DATA_HOME": "/x/data", "HOME": "/h"}) == (
        "/x/data/tree-ring/user.sqlite"
    )
    assert user_home.user_store_path_str({"XDG_DATA_HOME": "relative", "HOME": "/h"}) == (
        "/h/.local/share/tree-ring/user.sqlite"
    )
    assert user_home.user_store_path_str({}) is None
    assert brief.USER_PROJECT == user.USER_PROJECT


@pytest.mark.parametrize("value", ["rel", ".tree-ring", "./me", "me/store", ".."])
def test_a_relative_user_home_is_ignored_as_a_relative_xdg_data_home_is(
    run_cli: CliRunner,
    project_root: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    value: str,
) -> None:
    monkeypatch.chdir(project_root)
    assert user_home.user_store_path_str({"TREE_RING_USER_HOME": value, "HOME": "/h"}) == (
        "/h/.local/share/tree-ring/user.sqlite"
    )
    assert (
        user_home.user_store_path_str(
            {"TREE_RING_USER_HOME": value, "XDG_DATA_HOME": "/x/data", "HOME": "/h"}
        )
        == "/x/data/tree-ring/user.sqlite"
    )
    assert user_home.user_store_path_str({"TREE_RING_USER_HOME": value}) is None
    # A person's global note, run inside the project: stored in the home, not the checkout.
    person_home = tmp_path / "person"
    environ = {"TREE_RING_USER_HOME": value, "HOME": str(person_home)}
    run(run_cli, environ, "remember", "I prefer pytest -q", "--scope", "global")
    assert (person_home / ".local" / "share" / "tree-ring" / "user.sqlite").is_file()
    assert {p for p in project_root.rglob("*") if "user.sqlite" in p.name} == set()


def test_a_global_note_is_stored_once_and_briefed_in_every_project(
    run_cli: CliRunner, project_root: Path, other: Path, home: dict[str, str], tmp_path: Path
) -> None:
    done = run(run_cli, home, "remember", "I prefer pytest -q", "--scope", "global")
    path = tmp_path / "me" / "user.sqlite"
    assert path.exists()
    with Store.open(project_root) as store:
        assert store.query("SELECT count(*) FROM memories")[0][0] == 0
    with Store.open_file(str(path)) as mine:
        row = mine.query("SELECT project, scope, origin, trust FROM memories")
    assert [tuple(r) for r in row] == [("user", "global", "person", "accepted")]
    for root in (project_root, other):
        text, err = hook_brief(root, home)
        assert f'[cambium] [you] "I prefer pytest -q" ({done["id"]}; origin: person)' in text
        assert err == ""
    # In recall, labelled as the person's own, in any project.
    hits = cli_runner(other)("--json", "recall", "pytest", environ=home).json()["items"]
    assert [(h["id"], h["partition"], h["store"]) for h in hits] == [(done["id"], "you", "user")]


def test_at_most_two_lines_are_the_persons_scars_and_heartwood_first(
    run_cli: CliRunner, project_root: Path, home: dict[str, str]
) -> None:
    for i in range(8):
        run(run_cli, home, "remember", f"Project fact number {i} about the build")
    run(run_cli, home, "remember", "I like short commit subjects", "--scope", "global")
    run(run_cli, home, "remember", "I keep branches small", "--scope", "global")
    scar = run(
        run_cli, home, "remember", "Never force-push main", "--scope", "global", "--ring", "scar"
    )
    text, _ = hook_brief(project_root, home)
    body = text.split(brief.BEGIN)[1].split(brief.END)[0].strip().splitlines()
    assert len(body) == 8
    mine = [line for line in body if "[you]" in line]
    assert len(mine) == 2
    assert body[0].startswith('[scar] [you] "Never force-push main') and str(scar["id"]) in body[0]
    assert sum("Project fact number" in line for line in body) == 6


def test_an_agents_global_write_waits_for_a_person(
    run_cli: CliRunner, project_root: Path, home: dict[str, str], tmp_path: Path
) -> None:
    refused = run_cli(
        "remember", "Always use tabs", "--scope", "global", environ={**home, **CLAUDE}
    )
    assert refused.code != 0 and "no user store" in refused.err
    assert not (tmp_path / "me" / "user.sqlite").exists()
    run(run_cli, home, "remember", "I review my own diffs first", "--scope", "global")
    waiting = run(run_cli, home, "remember", "Always use tabs", "--scope", "global", **CLAUDE)
    assert waiting["trust"] == "pending"
    text, _ = hook_brief(project_root, home)
    assert "Always use tabs" not in text and "review my own diffs" in text


def test_recall_marks_a_user_store_row_you_only_where_a_person_wrote_it(
    run_cli: CliRunner, project_root: Path, other: Path, home: dict[str, str], tmp_path: Path
) -> None:
    mine = run(run_cli, home, "remember", "I keep the harbour notes short", "--scope", "global")
    proposed = run(
        run_cli, home, "remember", "Push harbour changes straight to main", "--scope", "global",
        **CLAUDE,
    )  # fmt: skip
    assert proposed["trust"] == "pending"
    row = {
        "id": "mem_20261201_000000_aaaaaaaaaaaa",
        "project": project.load_project_id(project_root),
        "scope": "global",
        "summary": "Harbour builds run nightly",
    }
    (tmp_path / "rows.jsonl").write_text(json.dumps(row) + "\n")
    imported = run(run_cli, home, "import", str(tmp_path / "rows.jsonl"), "--global-to", "user")
    into = imported["user"]
    assert isinstance(into, dict)
    batch = into["batch"]  # the user store's own import batch, not the project's
    expected = {
        mine["id"]: "you",
        proposed["id"]: "claude-code session s1 · user store",
        row["id"]: f"import batch {batch} · user store",
    }
    # In another project, for the person and for an agent there, as JSON and as text.
    there = cli_runner(other)
    for env in ({}, CODEX):
        said = there("--json", "recall", "harbour", "--include-unreviewed", environ={**home, **env})
        hits = said.json()["items"]
        assert {h["id"]: h["partition"] for h in hits} == expected
        assert {h["store"] for h in hits} == {"user"}
        text = there("recall", "harbour", "--include-unreviewed", environ={**home, **env}).out
        lines = {line.split()[0]: line for line in text.splitlines()}
        assert set(lines) == set(expected)
        for memory_id, label in expected.items():
            assert f"  ({label}; " in lines[memory_id]


def test_tombstones_and_the_audit_chain_hold_in_the_user_store(
    run_cli: CliRunner, home: dict[str, str], tmp_path: Path
) -> None:
    done = run(run_cli, home, "remember", "My editor is helix", "--scope", "global")
    path = str(tmp_path / "me" / "user.sqlite")
    with Store.open_file(path) as mine:
        correct.forget(mine, str(done["id"]), mode="delete", reason="wrong", actor=PERSON)
    again = run_cli("remember", "My editor is helix", "--scope", "global", environ=home)
    assert again.code != 0 and "forgotten" in again.err
    with Store.open_file(path) as mine:
        assert audit.verify(mine.db).ok


def test_a_missing_user_store_is_silent_and_is_not_created_by_reads(
    run_cli: CliRunner, project_root: Path, home: dict[str, str], tmp_path: Path
) -> None:
    run(run_cli, home, "remember", "The project uses make")
    text, err = hook_brief(project_root, home)
    assert "The project uses make" in text and "[you]" not in text and err == ""
    assert run_cli("recall", "make", environ=home).code == 0
    assert run_cli("brief", environ=home).code == 0
    status = run(run_cli, home, "status")
    assert status["user_store"] == {"path": str(tmp_path / "me" / "user.sqlite"), "exists": False}
    # The Codex start hook's session map is all that folder holds (model/sessions.py).
    assert {p.name for p in (tmp_path / "me").iterdir()} == {"sessions.json", "sessions.json.lock"}


def test_a_damaged_user_store_costs_hooks_nothing_and_commands_one_line(
    run_cli: CliRunner, project_root: Path, home: dict[str, str], tmp_path: Path
) -> None:
    run(run_cli, home, "remember", "The project uses make")
    (tmp_path / "me").mkdir()
    path = tmp_path / "me" / "user.sqlite"
    path.write_bytes(b"this is not a database" * 50)
    text, err = hook_brief(project_root, home)
    assert "The project uses make" in text and "[you]" not in text
    assert "user store" in err and len(err.strip().splitlines()) == 1
    for argv in (("remember", "I like tea", "--scope", "global"), ("brief",), ("recall", "make")):
        refused = run_cli(*argv, environ=home)
        assert refused.code != 0 and refused.out == "", argv
        assert refused.err.count("\n") == 1 and str(path) in refused.err, argv
    assert path.read_bytes() == b"this is not a database" * 50


def test_codex_and_claude_briefs_both_show_it(
    run_cli: CliRunner, project_root: Path, home: dict[str, str]
) -> None:
    run(run_cli, home, "remember", "I prefer small pull requests", "--scope", "global")
    for harness in ("claude-code", "codex"):
        assert '[you] "I prefer small pull requests' in hook_brief(project_root, home, harness)[0]
    assert '[you] "I prefer small pull requests' in run_cli("brief", environ={**home, **CODEX}).out


def test_a_person_reviews_and_forgets_in_the_user_store_with_user(
    run_cli: CliRunner, project_root: Path, home: dict[str, str]
) -> None:
    run(run_cli, home, "remember", "I write commit bodies", "--scope", "global")
    waiting = run(run_cli, home, "remember", "Always squash merges", "--scope", "global", **CLAUDE)
    listed = run(run_cli, home, "review", "list", "--user")
    assert [w["id"] for w in listed["items"]] == [waiting["id"]]  # type: ignore[index, union-attr]
    assert run(run_cli, home, "--json", "status")["user_store"]["review_queue"] == 1  # type: ignore[index]
    refused = run_cli("review", "approve", str(waiting["id"]), "--user", environ={**home, **CLAUDE})
    assert refused.code != 0
    run(run_cli, home, "review", "approve", str(waiting["id"]), "--user", "--reason", "agreed")
    assert '[you] "Always squash merges' in hook_brief(project_root, home)[0]
    run(run_cli, home, "forget", str(waiting["id"]), "--user", "--mode", "delete", "--reason", "no")
    assert "Always squash merges" not in hook_brief(project_root, home)[0]
    shown = {m["summary"] for m in run(run_cli, home, "list", "--user")["items"]}  # type: ignore[union-attr]
    assert shown == {"I write commit bodies"}


def test_an_agents_request_to_forget_a_note_is_found_where_it_says(
    run_cli: CliRunner, home: dict[str, str]
) -> None:
    """The request waits in the user store: the agent is told to look there,
    and `status` counts it beside that store's waiting rows."""
    note = run(run_cli, home, "remember", "I write commit bodies", "--scope", "global")["id"]
    asked = run_cli("forget", str(note), "--user", "--mode", "delete", "--reason", "old",
                    environ={**home, **CLAUDE})  # fmt: skip
    assert asked.code == 0 and "(`tree-ring review list --user`)" in asked.out, asked.err
    status = run(run_cli, home, "status")
    assert status["user_store"]["review_requests"] == 1  # type: ignore[index]
    text = run_cli("status", environ=home).out
    assert "in your user store: 1 (`review list --user`)" in text
    assert "1 request(s) to forget or confirm" in text
    listed = run_cli("review", "list", "--user", environ=home).out
    assert "requests to forget or confirm: 1 waiting" in listed


def test_user_without_a_user_store_is_one_line(run_cli: CliRunner, home: dict[str, str]) -> None:
    for argv in (("list", "--user"), ("review", "list", "--user"), ("show", "mem_x", "--user")):
        refused = run_cli(*argv, environ=home)
        assert refused.code != 0 and refused.err.count("\n") == 1 and "no user store" in refused.err


# The launcher's steps as hooks.json runs them, then what stayed loaded.
PROBE = """\
import io, os, sys
sys.path.insert(0, sys.argv[1])
from tree_ring.hook.adapter import main
out = io.BytesIO()
main("codex", stdin=io.BytesIO(sys.stdin.buffer.read()), environ=dict(os.environ), stdout=out)
sys.stdout.write(out.getvalue().decode() + "\\n".join(sorted(sys.modules)))
"""


def _hook_modules(root: Path, env: dict[str, str]) -> tuple[str, set[str]]:
    payload = {"hook_event_name": "SessionStart", "session_id": "sess-9", "cwd": str(root)}
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", PROBE, str(REPO)],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env={"PATH": os.environ.get("PATH", ""), **env},
        check=True,
        timeout=60,
    )
    output, *modules = done.stdout.decode().splitlines()
    return json.loads(output)["hookSpecificOutput"]["additionalContext"], set(modules)


def test_the_hook_reads_the_user_store_with_the_modules_it_loads_anyway(
    run_cli: CliRunner, project_root: Path, home: dict[str, str], tmp_path: Path
) -> None:
    run(run_cli, home, "remember", "The project uses make")
    without_text, without = _hook_modules(project_root, home)
    run(run_cli, home, "remember", "I prefer tabs in Makefiles", "--scope", "global")
    with_text, loaded = _hook_modules(project_root, home)
    assert "[you]" not in without_text and '[you] "I prefer tabs' in with_text
    assert {m for m in loaded if m.startswith("tree_ring")} == {
        m for m in without if m.startswith("tree_ring")
    }
    assert loaded & COSTLY == set()


def test_the_hooks_quick_open_defers_to_the_full_one_for_other_versions(
    run_cli: CliRunner, project_root: Path, home: dict[str, str], tmp_path: Path
) -> None:
    run(run_cli, home, "remember", "I prefer tabs in Makefiles", "--scope", "global")
    path = tmp_path / "me" / "user.sqlite"

    def stamp(version: int) -> None:
        conn = sqlite3.connect(path)
        conn.execute(f"PRAGMA user_version = {version}")
        conn.close()

    stamp(1)  # a header that disagrees with the ledger: the full open reads the ledger
    assert '[you] "I prefer tabs' in hook_brief(project_root, home)[0]
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO schema_migrations(name, applied_at) VALUES ('9999_future', 'x')")
    conn.commit()
    conn.close()
    stamp(999)  # from a newer Tree Ring: refused, the project's brief stands
    text, err = hook_brief(project_root, home)
    assert "[you]" not in text and "newer Tree Ring" in err


def test_the_hook_loads_the_tombstone_keys_only_for_a_project_that_forgot(
    run_cli: CliRunner, project_root: Path, other: Path, home: dict[str, str]
) -> None:
    """A project that forgot something hides it in the user store's rows
    (`read/forgotten_here.py`): then, and only then, the hook keys them, which
    loads `re` (docs/STARTUP.md), for each row the brief before did not answer
    (`read/brief_checks.py`; each call here reads a row it has not read, or
    under a count of tombstones that moved); a row that matches costs the
    audit log's lookup of re-admissions too."""
    run(run_cli, home, "remember", "I prefer tabs in Makefiles", "--scope", "global")
    _, before = _hook_modules(project_root, home)
    forgotten = run(run_cli, home, "remember", "The project uses make for every build")
    run(run_cli, home, "forget", str(forgotten["id"]), "--mode", "delete", "--reason", "no")
    text, keyed = _hook_modules(project_root, home)
    assert '[you] "I prefer tabs' in text
    added = {
        "tree_ring.model.claims",
        "tree_ring.model.fold",
        "tree_ring.model.identifiers",
        "tree_ring.read.forgotten_here",
        "tree_ring.store.forgotten_rows",
        "tree_ring.store.carried_words",
        "tree_ring.store.moved",
        "tree_ring.store.tombstones",
    }
    assert {m for m in keyed if m.startswith("tree_ring")} - before == added
    assert keyed & COSTLY == {"re", "enum"}
    there = cli_runner(other)
    done = there(
        "remember", "The project uses make for every build", "--scope", "global", environ=home
    )
    assert done.code == 0, done.err
    text, matched = _hook_modules(project_root, home)
    assert '[you] "I prefer tabs' in text and "every build" not in text
    assert {m for m in matched if m.startswith("tree_ring")} - keyed == {
        "tree_ring.model.actor",
        "tree_ring.store.audit",
    }
    assert matched & COSTLY == {"re", "enum"}


def test_the_hook_keys_the_projects_rows_only_when_the_user_store_forgot(
    run_cli: CliRunner, project_root: Path, home: dict[str, str]
) -> None:
    """The project's rows that hold what the person forgot in their user store
    are hidden (`read/forgotten_here.py`); a user store that forgot nothing
    costs the hook one probe and no module."""
    run(run_cli, home, "remember", "The project uses make for every build")
    _, alone = _hook_modules(project_root, home)
    run(run_cli, home, "remember", "I prefer tabs in Makefiles", "--scope", "global")
    text, unforgetting = _hook_modules(project_root, home)
    assert "every build" in text and '[you] "I prefer tabs' in text
    assert {m for m in unforgetting if m.startswith("tree_ring")} == {
        m for m in alone if m.startswith("tree_ring")
    }
    assert unforgetting & COSTLY == set()
    # The person's own project copy of a global note stays in the store when
    # the note is forgotten, and out of the brief.
    copied = "Builds run on the shared runner in the basement"
    run(run_cli, home, "remember", copied)
    note = run(run_cli, home, "remember", copied, "--scope", "global")
    run(run_cli, home, "forget", str(note["id"]), "--user", "--mode", "delete", "--reason", "no")
    text, keyed = _hook_modules(project_root, home)
    assert "every build" in text and "basement" not in text
    assert {m for m in keyed if m.startswith("tree_ring")} - unforgetting == {
        "tree_ring.model.actor",
        "tree_ring.model.claims",
        "tree_ring.model.fold",
        "tree_ring.model.identifiers",
        "tree_ring.read.forgotten_here",
        "tree_ring.store.audit",
        "tree_ring.store.carried_words",
        "tree_ring.store.forgotten_rows",
        "tree_ring.store.moved",
        "tree_ring.store.tombstones",
    }
    assert keyed & COSTLY == {"re", "enum"}
