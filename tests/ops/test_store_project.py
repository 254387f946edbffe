"""The store belongs to one project: a project.json that names another is refused.

The project id every read and write uses comes from `.tree-ring/project.json`, a
committed file an agent's edit or a pulled commit can change. The store records
its own project as it is made (store/settings.py, PROJECT), so a changed file
cannot take every memory out of the brief or void every tombstone; `init`
without the file writes it again with the store's id, else the team ledger's.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from helpers import recorded_project
from team_support import (
    HOOK,
    LEDGER,
    cli,
    clone,
    commit,
    first_repo,
    git,
    hub,
    ok,
    publish,
    pull,
    remember,
    session_start,
)

from tree_ring.model import project

AGENT = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s1"}
FORGOTTEN = "The staging admin password hint is the dog's name"
KEPT = "Deploys freeze on Fridays after the release branch is cut"
FALSE_ID = "p-0000aaaa"


def set_project_id(root: Path, project_id: str) -> None:
    """What an agent's edit of the committed file does."""
    path = root / project.DIR / project.PROJECT_FILE
    data = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**data, "project_id": project_id}, indent=2) + "\n")


def contents(root: Path) -> tuple[set[tuple[str, str]], set[tuple[str, str]], int, bytes]:
    """What a write would change: the rows, the tombstones, the audit log and the ledger."""
    conn = sqlite3.connect(project.store_path(root))
    try:
        found = conn.execute("SELECT id, project FROM memories")
        memories = {(str(r[0]), str(r[1])) for r in found}
        stones = {
            (str(r[0]), str(r[1]))
            for r in conn.execute("SELECT project, content_hash FROM content_tombstones")
        }
        entries = int(conn.execute("SELECT count(*) FROM audit_log").fetchone()[0])
    finally:
        conn.close()
    return memories, stones, entries, (root / LEDGER).read_bytes()


def hook_start(root: Path, event: str = "SessionStart") -> subprocess.CompletedProcess[bytes]:
    """SessionStart (or another event) as hooks.json runs it."""
    payload = {
        "hook_event_name": event,
        "session_id": "s2",
        "cwd": str(root),
        "source": "startup",
        "stop_hook_active": False,
        "transcript_path": str(root / "no-transcript.jsonl"),
    }
    return subprocess.run(
        [sys.executable, "-I", "-S", str(HOOK), "claude-code"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=120,
        check=False,
    )


def project_with_a_forget(tmp_path: Path) -> tuple[Path, str]:
    """A project holding a person's heartwood and a forgotten (tombstoned) text."""
    root = first_repo(tmp_path)
    ok(root, "remember", KEPT, "--ring", "heartwood")
    forgotten = remember(root, FORGOTTEN)
    ok(root, "forget", forgotten, "--mode", "delete", "--reason", "never store this")
    return root, project.load_project_id(root)


def test_an_edited_project_id_is_refused_by_every_read_and_write(tmp_path: Path) -> None:
    root, real = project_with_a_forget(tmp_path)
    assert recorded_project(root) == real
    set_project_id(root, FALSE_ID)
    before = contents(root)
    line = f"error: {project.mismatch(FALSE_ID, real)}\n"
    assert line == (
        f"error: .tree-ring/project.json names project {FALSE_ID}, but this store belongs to "
        f"project {real}; restore it (git checkout .tree-ring/project.json) or set project_id "
        f"back to {real}\n"
    )
    for argv, environ in [
        (("brief",), None),
        (("recall", "deploys"), None),
        (("status",), None),
        (("list",), None),
        (("remember", "Releases are tagged from main"), None),
        (("remember", FORGOTTEN), AGENT),
        (("capture", FORGOTTEN, "--event-type", "lesson", "--ring", "cambium"), AGENT),
        (("sync",), None),
    ]:
        done = cli(root, *argv, environ=environ)
        assert (done.code, done.out, done.err) == (1, "", line), argv
    done = cli(root, "--json", "remember", "Releases are tagged from main")
    assert done.code == 1 and done.out == ""
    assert json.loads(done.err)["error"] == {
        "code": "unsafe_path",
        "exit": 1,
        "message": project.mismatch(FALSE_ID, real),
    }
    assert contents(root) == before
    assert recorded_project(root) == real


def test_the_doctor_names_the_mismatch(tmp_path: Path) -> None:
    root, real = project_with_a_forget(tmp_path)
    set_project_id(root, FALSE_ID)
    done = cli(root, "--json", "doctor")
    assert done.code == 1
    checks = {c["name"]: c for c in json.loads(done.out)["items"]}
    assert (checks["project"]["ok"], checks["project"]["detail"]) == (
        False,
        project.mismatch(FALSE_ID, real),
    )
    assert [name for name, check in checks.items() if not check["ok"]] == ["project"]
    set_project_id(root, real)
    done = cli(root, "--json", "doctor")
    assert done.code == 0 and json.loads(done.out)["ok"] is True


def test_the_session_start_hook_gives_no_brief_and_fails_open(tmp_path: Path) -> None:
    root, real = project_with_a_forget(tmp_path)
    assert KEPT in session_start(root)
    set_project_id(root, FALSE_ID)
    before = contents(root)
    done = hook_start(root)
    assert (done.returncode, done.stdout) == (0, b"")
    assert done.stderr.decode().splitlines() == [
        f"tree-ring hook (claude-code): error: {project.mismatch(FALSE_ID, real)}"
    ]
    assert contents(root) == before


def test_the_stop_hook_asks_for_no_capture_its_store_would_refuse(tmp_path: Path) -> None:
    root, real = project_with_a_forget(tmp_path)
    ok(root, "config", "set", "checkpoint=every-stop")
    asked = hook_start(root, "Stop")
    assert asked.returncode == 0 and json.loads(asked.stdout)["decision"] == "block"
    set_project_id(root, FALSE_ID)
    done = hook_start(root, "Stop")
    assert (done.returncode, done.stdout) == (0, b"")
    assert done.stderr.decode().splitlines() == [
        f"tree-ring hook (claude-code): error: {project.mismatch(FALSE_ID, real)}"
    ]


def test_forgotten_text_stays_forgotten_through_the_edit_and_its_undoing(tmp_path: Path) -> None:
    root, real = project_with_a_forget(tmp_path)
    refused = cli(root, "remember", FORGOTTEN, environ=AGENT)
    assert refused.code != 0 and "will not be stored again" in refused.err
    set_project_id(root, FALSE_ID)
    done = cli(root, "remember", FORGOTTEN, environ=AGENT)
    assert (done.code, done.out) == (1, "") and "belongs to project" in done.err
    git(root, "checkout", project.DIR + "/" + project.PROJECT_FILE)
    assert project.load_project_id(root) == real
    again = cli(root, "remember", FORGOTTEN, environ=AGENT)
    assert again.code != 0 and "will not be stored again" in again.err
    assert FORGOTTEN not in session_start(root)


def test_init_after_a_deleted_project_json_keeps_the_stores_id(tmp_path: Path) -> None:
    root, real = project_with_a_forget(tmp_path)
    (root / project.DIR / project.PROJECT_FILE).unlink()
    done = ok(root, "init")
    assert (
        f"note:   .tree-ring/project.json written again with project id {real}, "
        "from the store's record"
    ) in done.out
    assert project.load_project_id(root) == real
    assert KEPT in ok(root, "brief").out
    refused = cli(root, "remember", FORGOTTEN, environ=AGENT)
    assert refused.code != 0 and "will not be stored again" in refused.err


def test_a_damaged_project_json_says_what_init_then_does(tmp_path: Path) -> None:
    root, real = project_with_a_forget(tmp_path)
    path = root / project.DIR / project.PROJECT_FILE
    path.write_text('{"project_id": "bad id"}\n', encoding="utf-8")
    done = cli(root, "brief")
    assert done.code != 0 and done.err.endswith(
        "fix it, or delete it and run `tree-ring init` to write it again with the store's id\n"
    )
    # Following the advice restores the store's id: nothing is hidden, nothing voided.
    path.unlink()
    ok(root, "init")
    assert project.load_project_id(root) == real
    assert KEPT in ok(root, "brief").out
    refused = cli(root, "remember", FORGOTTEN)
    assert refused.code != 0 and "will not be stored again" in refused.err


def test_init_without_a_store_takes_the_team_ledgers_id(tmp_path: Path) -> None:
    root, real = project_with_a_forget(tmp_path)
    (root / project.DIR / project.PROJECT_FILE).unlink()
    for side in ("", "-wal", "-shm"):
        Path(f"{project.store_path(root)}{side}").unlink(missing_ok=True)
    done = ok(root, "init")
    assert f"written again with project id {real}, from the header of {LEDGER}" in done.out
    assert project.load_project_id(root) == real
    assert recorded_project(root) == real


def test_a_pulled_commit_that_changes_the_id_is_refused(tmp_path: Path) -> None:
    alice, real = project_with_a_forget(tmp_path)
    commit(alice, "memory")
    hub(tmp_path, alice)
    bob = clone(tmp_path / "alice-hub.git", tmp_path, "bob", init=False)
    set_project_id(bob, "p-11111111")
    commit(bob, "chore: tidy")
    git(bob, "push", "-q")
    pull(alice)
    assert project.load_project_id(alice) == "p-11111111"
    line = f"error: {project.mismatch('p-11111111', real)}\n"
    for argv, environ in [(("brief",), None), (("remember", FORGOTTEN), AGENT)]:
        done = cli(alice, *argv, environ=environ)
        assert (done.code, done.out, done.err) == (1, "", line)
    started = hook_start(alice)
    assert (started.returncode, started.stdout) == (0, b"")
    assert project.mismatch("p-11111111", real) in started.stderr.decode()
    # Undoing the commit lets everything through again, tombstones included.
    git(alice, "revert", "--no-edit", "HEAD")
    publish(alice, "restore the project id")
    assert KEPT in session_start(alice)


def test_a_fresh_clones_store_records_the_committed_id(tmp_path: Path) -> None:
    alice, real = project_with_a_forget(tmp_path)
    commit(alice, "memory")
    by_hook = clone(alice, tmp_path, "by-hook", init=False)
    assert not project.store_path(by_hook).exists()
    assert KEPT in session_start(by_hook)
    assert recorded_project(by_hook) == real
    by_sync = clone(alice, tmp_path, "by-sync", init=False)
    ok(by_sync, "sync")
    assert recorded_project(by_sync) == real
    # The clone's store refuses what the team forgot, and an edit of the id.
    refused = cli(by_sync, "remember", FORGOTTEN, environ=AGENT)
    assert refused.code != 0 and "will not be stored again" in refused.err
    set_project_id(by_sync, FALSE_ID)
    assert cli(by_sync, "brief").err == f"error: {project.mismatch(FALSE_ID, real)}\n"


def set_ledger_header(root: Path, project_id: str) -> None:
    """What a commit editing only the ledger's first line does."""
    path = root / LEDGER
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[0] = json.dumps({**json.loads(lines[0]), "project": project_id}, sort_keys=True)
    path.write_text("\n".join(lines), encoding="utf-8")


def test_a_fresh_clone_whose_committed_files_disagree_builds_no_store(tmp_path: Path) -> None:
    """In a fresh clone no store records the id yet: project.json and the
    ledger's header are both committed, and where they name two projects one
    was edited. Nothing is built from them (a store would record the edited
    id, import no tombstone, and then refuse the real file); restoring the
    edited file builds the clone as usual."""
    alice, real = project_with_a_forget(tmp_path)
    commit(alice, "memory")
    for edit, name in ((set_project_id, "json"), (set_ledger_header, "header")):
        fresh = clone(alice, tmp_path, f"fresh-{name}", init=False)
        edit(fresh, "p-11111111")
        named, header = ("p-11111111", real) if name == "json" else (real, "p-11111111")
        line = project.ledger_mismatch(named, header)
        started = hook_start(fresh)
        assert (started.returncode, started.stdout) == (0, b"")
        assert line in started.stderr.decode()
        for verb in ("init", "sync"):
            done = cli(fresh, verb)
            assert (done.code != 0, done.out, done.err) == (True, "", f"error: {line}\n")
        assert cli(fresh, "remember", FORGOTTEN, environ=AGENT).code != 0
        assert not project.store_path(fresh).exists()
        git(fresh, "checkout", "--", ".")
        assert KEPT in session_start(fresh)
        assert recorded_project(fresh) == real
        refused = cli(fresh, "remember", FORGOTTEN, environ=AGENT)
        assert refused.code != 0 and "will not be stored again" in refused.err


def test_the_doctor_names_a_ledger_header_naming_another_project(tmp_path: Path) -> None:
    alice, real = project_with_a_forget(tmp_path)
    set_ledger_header(alice, "p-44444444")
    checks = {c["name"]: c for c in json.loads(cli(alice, "--json", "doctor").out)["items"]}
    assert checks["ledger"]["ok"] is False
    assert checks["ledger"]["detail"] == project.ledger_mismatch(real, "p-44444444")


def _second_header(root: Path, project_id: str) -> None:
    path = root / LEDGER
    lines = path.read_text(encoding="utf-8").split("\n")
    lines.insert(1, json.dumps({**json.loads(lines[0]), "project": project_id}))
    path.write_text("\n".join(lines), encoding="utf-8")


def _newer_schema(root: Path, _project_id: str) -> None:
    path = root / LEDGER
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[0] = json.dumps({**json.loads(lines[0]), "schema": 2})
    path.write_text("\n".join(lines), encoding="utf-8")


def _text_schema(root: Path, project_id: str) -> None:
    """A second header line whose schema is text: no Tree Ring wrote it."""
    path = root / LEDGER
    lines = path.read_text(encoding="utf-8").split("\n")
    lines.insert(1, json.dumps({**json.loads(lines[0]), "schema": "1"}))
    path.write_text("\n".join(lines), encoding="utf-8")


def _look_alike(root: Path, project_id: str) -> None:
    set_ledger_header(root, "\u0440" + project_id[1:])  # a Cyrillic er for the Latin p


def _twice(root: Path, project_id: str) -> None:
    """A header giving `project` twice: another project's id, then its own."""
    path = root / LEDGER
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[0] = lines[0].replace(
        f'"project":"{project_id}"', f'"project":"p-33333333","project":"{project_id}"'
    )
    assert '"p-33333333"' in lines[0]
    path.write_text("\n".join(lines), encoding="utf-8")


def _no_header(root: Path, _project_id: str) -> None:
    path = root / LEDGER
    path.write_text("\n".join(path.read_text(encoding="utf-8").split("\n")[1:]), encoding="utf-8")


def test_a_ledger_no_store_could_import_builds_none_in_a_fresh_clone(tmp_path: Path) -> None:
    """Whatever makes the ledger belong to another project, or to none, or to
    a newer Tree Ring, a fresh clone builds no store from it: one built
    would hold none of the team's memories and tombstones. The doctor of a
    clone that has its store says the same."""
    alice, real = project_with_a_forget(tmp_path)
    commit(alice, "memory")
    edits = {
        "second": (_second_header, "names project 'p-33333333'"),
        "schema": (_newer_schema, "names ledger schema 2, and this Tree Ring reads 1"),
        "text schema": (_text_schema, 'names schema "1", which is no schema number'),
        "alike": (_look_alike, "names project '\u0440"),
        "none": (_no_header, "does not begin with its header line"),
        "twice": (_twice, "header line (line 1) gives a key twice"),
    }
    for name, (edit, said) in edits.items():
        fresh = clone(alice, tmp_path, f"fresh-{name}", init=False)
        edit(fresh, "p-33333333" if name == "second" else real)
        started = hook_start(fresh)
        assert (started.returncode, started.stdout) == (0, b"")
        assert said in started.stderr.decode(), name
        for verb in ("init", "sync"):
            done = cli(fresh, verb)
            assert done.code != 0 and done.out == "" and said in done.err, (name, done.err)
        assert not project.store_path(fresh).exists(), name
        edit(alice, "p-33333333" if name == "second" else real)
        checks = {c["name"]: c for c in json.loads(cli(alice, "--json", "doctor").out)["items"]}
        assert checks["ledger"]["ok"] is False and said in checks["ledger"]["detail"], name
        git(alice, "checkout", "--", ".")
