"""The project a row of an import names is read by the guard like the row's
other fields: one that looks like a secret refuses the row (exit 2), and no
output of the import shows it, in text, --json, --dry-run or --skip-invalid."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import CliRunner, Run

from tree_ring.store import user
from tree_ring.store.db import Store

# Secret shapes (none of them live), each with the rule that refuses it.
SECRETS = [
    ("proj-ghp_YJfEODd6zcz7DrwZ19xTaTQlHGkPJoQr3ega", "github-token"),
    ("AKIAQYLPMN5HHHFPZAM2", "aws-access-key"),
    ("proj-sk_live_4eC39HqLyjWDarjtT1zdp7dc", "stripe-key"),
]
OTHER_ID = "mem_20260901_100000_0123456789ab"
SECRET_ID = "mem_20260901_100000_ba9876543210"


def _refused(rule: str, line: int, *, whole: bool = True) -> str:
    said = (
        f"refused: project looks like a secret (rule {rule}); "
        "remove the secret and store a description of it instead"
    )
    return f"line {line}: {said}; nothing imported" if whole else said


def _row(memory_id: str, project: str, summary: str, scope: str = "project") -> str:
    memory = {"id": memory_id, "project": project, "scope": scope, "summary": summary}
    return json.dumps({"type": "memory_event", "memory": memory})


def _file(tmp_path: Path, *lines: str) -> str:
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def _ids(project_root: Path) -> set[str]:
    with Store.open(project_root) as store:
        return {row[0] for row in store.db.query("SELECT id FROM memories")}


def _held(run_cli: CliRunner, project_root: Path) -> set[str]:
    """The store before the import: two memories of its own."""
    for summary in ("The deploy runs migrations first", "Builds use the locked toolchain"):
        assert run_cli("remember", summary).code == 0
    held = _ids(project_root)
    assert len(held) == 2
    return held


def _unseen(secret: str, result: Run) -> None:
    for start in range(0, len(secret) - 8):
        assert secret[start : start + 8] not in result.out + result.err, result


# (the file's lines, where the secret row is, the flags): the row alone, after
# a row of this project, after a row of a third project (with the flag that
# takes it), and a global row bound for the user store.
LAYOUTS = [
    ("alone", 1, ()),
    ("after-own", 2, ()),
    ("after-other", 2, ()),
    ("after-other", 2, ("--all-projects",)),
    ("after-other", 2, ("--project-map", "other-project={own}")),
    ("global", 1, ("--global-to", "user")),
]


def _lines(layout: str, secret: str, own: str) -> list[str]:
    scope = "global" if layout == "global" else "project"
    bad = _row(SECRET_ID, secret, "A note of a project named oddly", scope)
    first = {
        "alone": [],
        "global": [],
        "after-own": [_row(OTHER_ID, own, "A note of this project")],
        "after-other": [_row(OTHER_ID, "other-project", "A note of another project")],
    }[layout]
    return [*first, bad]


@pytest.mark.parametrize(("secret", "rule"), SECRETS)
@pytest.mark.parametrize(("layout", "line", "flags"), LAYOUTS)
@pytest.mark.parametrize("mode", [(), ("--dry-run",)])
def test_a_secret_project_name_refuses_its_row_unechoed(
    run_cli: CliRunner,
    project_root: Path,
    project_id: str,
    tmp_path: Path,
    secret: str,
    rule: str,
    layout: str,
    line: int,
    flags: tuple[str, ...],
    mode: tuple[str, ...],
) -> None:
    held = _held(run_cli, project_root)
    path = _file(tmp_path, *_lines(layout, secret, project_id))
    argv = ["import", path, *mode, *(flag.format(own=project_id) for flag in flags)]
    home = {"TREE_RING_USER_HOME": str(tmp_path / "me")}
    result = run_cli(*argv, environ=home)
    assert (result.code, result.out) == (2, "")
    assert result.err == f"error: {_refused(rule, line)}\n"
    as_json = run_cli("--json", *argv, environ=home)
    assert (as_json.code, as_json.out) == (2, "")
    assert json.loads(as_json.err)["error"] == {
        "code": "secret_refused",
        "exit": 2,
        "message": _refused(rule, line),
    }
    _unseen(secret, result)
    _unseen(secret, as_json)
    assert _ids(project_root) == held
    mine = tmp_path / "me" / "user.sqlite"
    if mine.exists():  # a person's import opens their user store before it reads
        with Store.open_file(str(mine), name=user.NAME) as user_store:
            assert user_store.db.query("SELECT id FROM memories") == []


@pytest.mark.parametrize(("secret", "rule"), SECRETS)
@pytest.mark.parametrize("dry_run", [False, True])
def test_skip_invalid_leaves_the_row_out_unnamed(
    run_cli: CliRunner,
    project_root: Path,
    project_id: str,
    tmp_path: Path,
    secret: str,
    rule: str,
    dry_run: bool,
) -> None:
    held = _held(run_cli, project_root)
    lines = _lines("after-other", secret, project_id)
    argv = ["import", _file(tmp_path, *lines), "--skip-invalid", *(["--dry-run"] * dry_run)]
    result = run_cli(*argv)
    assert result.code == 0
    assert result.err == f"skipped line 2: {_refused(rule, 2, whole=False)}\n"
    assert "merged rows of other projects into " + project_id + ": other-project (1)" in (
        result.out.splitlines()
    )
    as_json = run_cli("--json", *argv)
    assert (as_json.code, as_json.err) == (0, "")
    report = as_json.json()
    assert report["merged"] == ({"other-project": 1} if dry_run else {})
    assert [item for item in report["items"] if item["result"] == "skipped"] == [
        {"line": 2, "reason": _refused(rule, 2, whole=False), "result": "skipped"}
    ]
    _unseen(secret, result)
    _unseen(secret, as_json)
    assert _ids(project_root) == (held if dry_run else held | {OTHER_ID})


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("id", "TRC_" + "3f9a" * 16),
        ("id", "ghp_YJfEODd6zcz7DrwZ19xTaTQlHGkPJoQr3ega"),
        ("event_type", "ghp_YJfEODd6zcz7DrwZ19xTaTQlHGkPJoQr3ega"),
        ("ring", "ghp_YJfEODd6zcz7DrwZ19xTaTQlHGkPJoQr3ega"),
        ("scope", "TRC_" + "3f9a" * 16),
        ("sensitivity", "sk-ant-api03-YJfEODd6zcz7DrwZ19xTaTQlHGkPJoQr3ega"),
    ],
)
def test_a_token_in_a_fields_shape_check_is_not_echoed(
    run_cli: CliRunner, tmp_path: Path, field: str, value: str
) -> None:
    """An id or event type that is no id or word at all is refused without
    its value: the error line would otherwise print the start of a token."""
    memory = {"id": OTHER_ID, "summary": "Deploys freeze on Fridays after the cut", field: value}
    path = tmp_path / "token.jsonl"
    path.write_text(json.dumps({"type": "memory_event", "memory": memory}) + "\n", "utf-8")
    done = run_cli("import", str(path))
    assert done.code == 2
    assert value[4:12].lower() not in (done.out + done.err).lower(), done.err
    shown = run_cli("import", str(path), "--skip-invalid")
    assert value[4:12].lower() not in (shown.out + shown.err).lower()


@pytest.mark.parametrize(
    "line",
    [
        # A team ledger's record name, and the original format's header version.
        {
            "summary": "A harmless note about the build",
            "record": "ghp_YJfEODd6zcz7DrwZ19xTaTQlHGkPJoQr3ega",
        },
        {"type": "tree_ring_memory_export", "schema_version": "AKIAQYLPMN5HHHFPZAM2"},
    ],
)
def test_a_skipped_lines_reason_withholds_what_looks_like_a_secret(
    run_cli: CliRunner, tmp_path: Path, line: dict[str, str]
) -> None:
    """A skip report quotes the line it left out: the quoted value is withheld,
    as the error of a plain import withholds it, in text, --json and --dry-run."""
    secret = next(v for v in line.values() if v.startswith(("ghp_", "AKIA")))
    path = tmp_path / "odd.jsonl"
    path.write_text(json.dumps(line) + "\n", "utf-8")
    runs = [
        run_cli("import", str(path)),
        run_cli("import", str(path), "--skip-invalid"),
        run_cli("--json", "import", str(path), "--skip-invalid", "--dry-run"),
    ]
    assert [r.code != 0 for r in runs] == [True, False, False]
    for done in runs:
        _unseen(secret, done)
    [item] = [i for i in runs[2].json()["items"] if i.get("result") == "skipped"]
    assert "[withheld: it looks like a secret]" in item["reason"]
