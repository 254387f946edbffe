"""An import reads a row's `files` as the team ledger reads a line's, strictly.

The one reading of a `files` list (`model/anchor_lines.parse_files`) serves
both: a ledger line's bad entry is dropped, an import row's refuses the line
with a one-line error naming the entry (never its value), and nothing is
written; under `--skip-invalid` the line is left out and named. A path that
quotes what the project forgot is refused, as `remember --file` and a sync
refuse it. `--replace-existing` keeps the stored row's anchors when the
line says nothing of files, and takes the line's when it does (`[]`: none).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from governance_support import CLAUDE
from helpers import CliRunner
from test_export_anchors import anchors_of, dump

from tree_ring.model.anchor import MAX_FILES
from tree_ring.model.anchor_lines import parse_files
from tree_ring.model.errors import UsageError
from tree_ring.store.db import Store

BLOB = "96766802bd555f14ace322a7f376c4551f1bf5b7"
COMMIT = "d44e9e0e1bceb13063f57ef282b8fdcded33b121"
AT = "2026-12-01T10:00:00.000000Z"
ID = "mem_20261201_100000_00000000a0a0"
OTHER = "mem_20261201_100001_00000000b0b0"
FORGOTTEN = "The payments worker drains the refund queue every night at two"


def entry(path: Any = "src/a.py", **fields: Any) -> dict[str, Any]:
    return {"path": path, "blob": BLOB, "commit": COMMIT, "at": AT, **fields}


def row(
    project: str, memory_id: str = ID, summary: str = "Retries cap at 30 s", **fields: Any
) -> dict[str, Any]:
    return {"id": memory_id, "project": project, "summary": summary, **fields}


def project_of(run_cli: CliRunner) -> str:
    return run_cli("--json", "status").json()["project"]


def write_rows(path: Path, *rows: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def imported(run_cli: CliRunner, path: Path, *flags: str) -> dict[str, Any]:
    done = run_cli("--json", "import", str(path), *flags)
    assert done.code == 0, done.err
    return done.json()


def test_an_imported_row_is_anchored_as_its_line_says(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    files = [entry("src/b.py", commit=None), entry("src/a.py")]
    path = write_rows(tmp_path / "in.jsonl", row(project_of(run_cli), files=files))
    imported(run_cli, path)
    assert anchors_of(project_root) == {
        (ID, "src/a.py", BLOB, COMMIT, AT),
        (ID, "src/b.py", BLOB, None, AT),
    }
    # A file that is not in this checkout is a file gone since the anchor.
    [item] = run_cli("--json", "stale").json()["items"]
    assert {(f["path"], f["state"]) for f in item["files"]} == {
        ("src/a.py", "deleted"),
        ("src/b.py", "deleted"),
    }


MALFORMED: dict[str, tuple[Any, str]] = {
    "not a list": ("src/a.py", "files must be a list of the files the memory is about"),
    "an object": ({"path": "src/a.py"}, "files must be a list"),
    "an entry not an object": (["src/a.py"], "files[0] must be an object"),
    "a path not a string": ([entry(7)], "files[0].path must be a plain path"),
    "no path": ([{"blob": BLOB, "at": AT}], "files[0].path must be a plain path"),
    "a parent folder": ([entry("../x")], "files[0].path must be a plain path"),
    "a parent on the way": ([entry("src/../../x")], "files[0].path must be a plain path"),
    "an absolute path": ([entry("/etc/passwd")], "files[0].path must be a plain path"),
    "into .git": ([entry(".git/config")], "files[0].path must be a plain path"),
    "into .tree-ring": ([entry(".tree-ring/memory.sqlite")], "files[0].path must be a plain"),
    "a backslash": ([entry("src\\a.py")], "files[0].path must be a plain path"),
    "a control character": ([entry("src/a\x1b.py")], "files[0].path must be a plain path"),
    "a folder": ([entry("src/")], "files[0].path must be a plain path"),
    "a blob not hex": ([entry(blob="z" * 40)], "files[0].blob must be git's blob id"),
    "a blob a number": ([entry(blob=1)], "files[0].blob must be git's blob id"),
    "a short commit": ([entry(commit="abc")], "files[0].commit must be 40 lowercase hex"),
    "a commit a list": ([entry(commit=[COMMIT])], "files[0].commit must be 40 lowercase"),
    "no time": ([{"path": "a", "blob": BLOB}], "files[0].at must be the time it was anchored"),
    "a time a number": ([entry(at=1_700_000_000)], "files[0].at must be the time"),
    "a time not a time": ([entry(at="yesterday")], "files[0].at must be the time"),
    "a path twice": ([entry(), entry(commit=None)], "files[1].path names a file an earlier"),
    "too many": (
        [entry(f"src/{n}.py") for n in range(MAX_FILES + 1)],
        f"files names {MAX_FILES + 1} files; a memory names at most {MAX_FILES}",
    ),
}


@pytest.mark.parametrize(("files", "said"), MALFORMED.values(), ids=list(MALFORMED))
def test_malformed_files_refuse_the_line_and_nothing_is_written(
    run_cli: CliRunner, project_root: Path, tmp_path: Path, files: Any, said: str
) -> None:
    project = project_of(run_cli)
    path = write_rows(
        tmp_path / "in.jsonl",
        row(project, OTHER, "A good row before the bad one", files=[entry("src/ok.py")]),
        row(project, files=files),
    )
    before = dump(project_root)
    done = run_cli("import", str(path))
    assert done.code == 2
    [message] = done.err.strip().splitlines()
    assert message.startswith(f"error: line 2: {said}"), message
    assert message.endswith("; nothing imported")
    assert "/etc/passwd" not in message and "../x" not in message
    assert dump(project_root) == before
    # Under --skip-invalid the line is left out, named; the good one is written.
    done = run_cli("--json", "import", str(path), "--skip-invalid")
    assert done.code == 0, done.err
    [skipped] = [i for i in done.json()["items"] if i["result"] == "skipped"]
    assert skipped["line"] == 2 and skipped["reason"].startswith(said)
    assert anchors_of(project_root) == {(OTHER, "src/ok.py", BLOB, COMMIT, AT)}


def test_the_ledger_drops_what_an_import_refuses() -> None:
    """One reading, two costs: the team ledger keeps the good entries."""
    bad = [entry("../x"), entry("src/a.py"), "src/b.py", entry("src/a.py", commit=None)]
    [kept] = parse_files(bad)
    assert (kept.path, kept.commit, kept.size, kept.mtime_ns) == ("src/a.py", COMMIT, -1, -1)
    assert parse_files("src/a.py") == [] and parse_files(None) == []
    many = [entry(f"src/{n:03}.py") for n in range(MAX_FILES + 1)]
    assert len(parse_files(many)) == MAX_FILES
    with pytest.raises(UsageError, match=r"files\[0\]\.path"):
        parse_files(bad, strict=True)


def test_a_path_the_guard_refuses_is_never_echoed(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    token = "ghp_A1b2C3d4E5f6G7h8I9j0A1b2C3d4E5f6G7h8"
    path = write_rows(tmp_path / "in.jsonl", row(project_of(run_cli), files=[entry(token)]))
    done = run_cli("import", str(path))
    assert done.code != 0 and "files[0] looks like a secret" in done.err
    assert token not in done.err + done.out
    assert anchors_of(project_root) == set()


@pytest.mark.parametrize(
    ("forgotten", "name"),
    [(FORGOTTEN, "docs/" + "_".join(FORGOTTEN.split()) + ".md"), ("Use tabs", "use-tabs.md")],
)
def test_a_path_quoting_forgotten_words_is_refused(
    run_cli: CliRunner, project_root: Path, tmp_path: Path, forgotten: str, name: str
) -> None:
    gone = run_cli("--json", "remember", forgotten).json()["id"]
    assert run_cli("forget", gone, "--mode", "delete", "--reason", "wrong").code == 0
    project = project_of(run_cli)
    path = write_rows(
        tmp_path / "in.jsonl",
        row(project, OTHER, "A note about the runbook", files=[entry("docs/runbook.md")]),
        row(project, files=[entry("src/a.py"), entry(name)]),
    )
    before = dump(project_root)
    done = run_cli("import", str(path), "--restore")
    assert done.code != 0
    assert done.err.strip().splitlines() == [
        "error: line 2: files[].path holds content that was forgotten here, and would keep it "
        "in the store and the team ledger; name no file whose path says them; nothing imported"
    ]
    assert dump(project_root) == before
    done = run_cli("--json", "import", str(path), "--skip-invalid")
    assert done.code == 0 and done.json()["skipped"] == 1
    assert anchors_of(project_root) == {(OTHER, "docs/runbook.md", BLOB, COMMIT, AT)}


def anchored_row(run_cli: CliRunner, project_root: Path) -> set[tuple[Any, ...]]:
    """A person's memory anchored to two files of the checkout; every column
    of its anchors, sizes and times included."""
    (project_root / "src").mkdir()
    for name in ("a.py", "b.py"):
        (project_root / "src" / name).write_text(f"# {name}\n", encoding="utf-8")
    done = run_cli(
        "--json", "remember", "Retries cap at 30 s", "--file", "src/a.py", "--file", "src/b.py"
    )
    assert done.code == 0, done.err
    return every_column(project_root)


def every_column(root: Path) -> set[tuple[Any, ...]]:
    with Store.open(root) as store:
        return {tuple(r) for r in store.conn.execute("SELECT * FROM anchors")}


def replacement(run_cli: CliRunner, tmp_path: Path, **fields: Any) -> Path:
    """The stored row under new words, as its own export writes it, with `fields`."""
    [line] = [
        json.loads(text) for text in run_cli("export").out.splitlines() if '"record"' not in text
    ]
    line.pop("files", None)
    line.update(summary="Retries cap at 60 s", **fields)
    return write_rows(tmp_path / "replace.jsonl", line)


@pytest.mark.parametrize("said", ["absent", "null"])
def test_replace_existing_keeps_the_stored_anchors_when_the_line_names_no_files(
    run_cli: CliRunner, project_root: Path, tmp_path: Path, said: str
) -> None:
    before = anchored_row(run_cli, project_root)
    path = replacement(run_cli, tmp_path, **({"files": None} if said == "null" else {}))
    done = imported(run_cli, path, "--replace-existing")
    assert done["replaced"] == 1
    [memory] = run_cli("--json", "list").json()["items"]
    assert memory["summary"] == "Retries cap at 60 s"
    assert every_column(project_root) == before


def test_replace_existing_with_no_files_clears_them(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    anchored_row(run_cli, project_root)
    done = imported(run_cli, replacement(run_cli, tmp_path, files=[]), "--replace-existing")
    assert done["replaced"] == 1 and every_column(project_root) == set()
    assert run_cli("--json", "stale").json()["items"] == []


def test_replace_existing_takes_the_lines_files(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    anchored_row(run_cli, project_root)
    [memory_id] = {r[0] for r in every_column(project_root)}
    path = replacement(run_cli, tmp_path, files=[entry("src/c.py")])
    assert imported(run_cli, path, "--replace-existing")["replaced"] == 1
    assert anchors_of(project_root) == {(memory_id, "src/c.py", BLOB, COMMIT, AT)}


def test_a_refused_replacement_leaves_the_stored_anchors(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    before = anchored_row(run_cli, project_root)
    gone = run_cli("--json", "remember", FORGOTTEN).json()["id"]
    assert run_cli("forget", gone, "--mode", "delete", "--reason", "wrong").code == 0
    quoting = "docs/" + "_".join(FORGOTTEN.split()) + ".md"
    path = replacement(run_cli, tmp_path, files=[entry(quoting)])
    done = run_cli("import", str(path), "--replace-existing")
    assert done.code != 0 and "files[].path holds content" in done.err
    assert every_column(project_root) == before


def test_a_row_already_present_keeps_its_anchors(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    """A line the store holds as it stands is not written, its files neither:
    an import never re-anchors a stored memory (a person's confirm does)."""
    before = anchored_row(run_cli, project_root)
    [line] = [
        json.loads(text) for text in run_cli("export").out.splitlines() if '"record"' not in text
    ]
    path = write_rows(tmp_path / "same.jsonl", {**line, "files": []})
    done = imported(run_cli, path, "--replace-existing")
    assert done["unchanged"] == 1 and done["replaced"] == 0
    assert every_column(project_root) == before


def test_an_agents_import_answers_to_what_agents_withdrew(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    """An agent's forget of its own note binds agents only: an agent's
    import may not name a file whose path quotes it, a person's may."""
    wrote = run_cli("--json", "remember", FORGOTTEN, "--scope", "agent", environ=CLAUDE)
    assert wrote.code == 0, wrote.err
    gone = wrote.json()["id"]
    forgot = run_cli("--json", "forget", gone, "--mode", "delete", "--reason", "x", environ=CLAUDE)
    assert forgot.code == 0 and forgot.json()["withdrawn"] is True, forgot.err
    quoting = "docs/" + "_".join(FORGOTTEN.split()) + ".md"
    path = write_rows(tmp_path / "in.jsonl", row(project_of(run_cli), files=[entry(quoting)]))
    refused = run_cli("import", str(path), environ=CLAUDE)
    assert refused.code != 0 and "files[].path holds content" in refused.err
    assert anchors_of(project_root) == set()
    imported(run_cli, path)
    assert anchors_of(project_root) == {(ID, quoting, BLOB, COMMIT, AT)}
