"""A user store every project command needs but cannot open: one line that
says what to do about it, exit 1, and `doctor` in the project names it with
the same remedy (it said "run `tree-ring doctor`", which checked only the
project's store and passed, or failed as "unexpected PermissionError", 70).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers import CliRunner

from tree_ring.model import project, user_home
from tree_ring.model.errors import StoreFault

NOTE = "The exporter listens on port 9464"


def _home(tmp_path: Path) -> dict[str, str]:
    return {"TREE_RING_USER_HOME": str(tmp_path / "me")}


def _user_file(tmp_path: Path) -> Path:
    return tmp_path / "me" / user_home.USER_STORE


def test_a_damaged_user_store_is_named_with_its_own_remedy(
    run_cli: CliRunner, tmp_path: Path
) -> None:
    home = _home(tmp_path)
    assert run_cli("remember", NOTE, environ=home).code == 0
    assert (
        run_cli("remember", "I prefer rebase over merge", "--scope", "global", environ=home).code
        == 0
    )
    assert run_cli("doctor", environ=home).code == 0
    mine = _user_file(tmp_path)
    with mine.open("r+b") as file:
        file.truncate(mine.stat().st_size // 3)
    for args in (
        ("recall", "exporter"),
        ("brief",),
        ("remember", "Builds use the locked toolchain"),
    ):
        done = run_cli(*args, environ=home)
        assert done.code == 1, args
        assert done.err.count("\n") == 1 and "no ledger holds your notes" in done.err
        assert "tree-ring doctor" not in done.err
    checked = run_cli("--json", "doctor", environ=home)
    assert checked.code == 1
    failed = [c for c in json.loads(checked.out)["items"] if not c["ok"]]
    assert [c["name"] for c in failed] == ["user_store"]
    assert str(mine) in failed[0]["detail"] and "move it aside" in failed[0]["detail"]
    os.replace(mine, tmp_path / "aside.sqlite")
    assert run_cli("doctor", environ=home).code == 0
    assert run_cli("recall", "exporter", environ=home).code == 0


def test_a_user_store_folder_the_person_cannot_read_is_one_line(
    run_cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = _home(tmp_path)
    assert (
        run_cli("remember", "I prefer rebase over merge", "--scope", "global", environ=home).code
        == 0
    )
    folder = str(tmp_path / "me")
    lstat = os.lstat

    def denied(path: os.PathLike[str] | str, *args: object, **kwargs: object) -> os.stat_result:
        if os.fspath(path).startswith(folder + os.sep):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return lstat(path)

    monkeypatch.setattr(os, "lstat", denied)
    with pytest.raises(StoreFault, match="cannot be read by you"):
        user_home.check_user_store(_user_file(tmp_path))
    for args in (("recall", "exporter"), ("remember", NOTE)):
        done = run_cli(*args, environ=home)
        assert done.code == 1, (args, done.err)
        assert done.err == (
            f"error: the user store's folder {folder} cannot be read by you; give it back to "
            "you (chown -R) or move it aside\n"
        )
    checked = run_cli("--json", "doctor", environ=home)
    assert checked.code == 1
    failed = [c["name"] for c in json.loads(checked.out)["items"] if not c["ok"]]
    assert failed == ["user_store"]


def test_a_user_store_with_damaged_pages_is_named_with_its_own_remedy(
    run_cli: CliRunner, tmp_path: Path
) -> None:
    from tree_ring.store import sql

    assert sql.is_user_store(_user_file(tmp_path)) and not sql.is_user_store(
        project.store_path(tmp_path)
    )
    home = _home(tmp_path)
    for n in range(30):
        note = f"Global preference number {n} about rebase and merge styles"
        assert run_cli("remember", note, "--scope", "global", environ=home).code == 0
    mine = _user_file(tmp_path)
    size = mine.stat().st_size
    with mine.open("r+b") as file:  # every page but the header's, overwritten inside
        for page in range(2, size // 4096):
            file.seek(page * 4096 + 100)
            file.write(bytes((page * 37 + n) % 256 for n in range(2000)))
    done = run_cli("recall", "rebase", environ=home)
    assert done.code == 1 and done.err.count("\n") == 1
    assert "no ledger holds your notes" in done.err and "tree-ring doctor" not in done.err
    checked = run_cli("--json", "doctor", environ=home)
    failed = [c for c in json.loads(checked.out)["items"] if not c["ok"]]
    assert [c["name"] for c in failed] == ["user_store"]
    assert "move it aside" in failed[0]["detail"]


def test_a_user_store_folder_below_a_file_is_none_to_read_and_one_line_to_write(
    run_cli: CliRunner, tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    home = {"TREE_RING_USER_HOME": str(blocker / "tree-ring")}
    assert run_cli("remember", NOTE, environ=home).code == 0
    found = run_cli("recall", "exporter", environ=home)
    assert found.code == 0 and "9464" in found.out
    assert run_cli("doctor", environ=home).code == 0
    done = run_cli("remember", "I prefer rebase over merge", "--scope", "global", environ=home)
    assert done.code == 1, done.err
    assert done.err == (
        f"error: cannot make the folder {blocker / 'tree-ring'} for the user store "
        "(Not a directory); make it, or remove what is in its way\n"
    )


def test_the_hook_s_brief_reads_no_user_store_below_a_file(
    project_root: Path, tmp_path: Path, run_cli: CliRunner
) -> None:
    from helpers import run_process
    from team_support import run_session_start

    assert run_cli("remember", NOTE).code == 0
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    env = {"TREE_RING_USER_HOME": str(blocker / "tree-ring")}
    done = run_process("brief", "--root", str(project_root), env=env)
    assert done.returncode == 0 and b"9464" in done.stdout
    assert b"skipped" not in done.stderr
    hook = run_session_start(project_root, env)
    assert b"9464" in hook.stdout and hook.stderr == b""


@pytest.mark.parametrize("linked", [False, True], ids=["written", "linked"])
@pytest.mark.parametrize("variable", ["XDG_DATA_HOME", "TREE_RING_USER_HOME"])
def test_a_user_store_inside_a_project_s_tree_ring_folder_is_refused(
    run_cli: CliRunner, project_root: Path, tmp_path: Path, variable: str, linked: bool
) -> None:
    # The folder a project commits: the person's notes would go with it,
    # whether the path names it or a link leads there.
    inside = project_root / project.DIR / "data"
    if linked:
        inside.mkdir()
        (tmp_path / "data-link").symlink_to(inside)
    home = {variable: str(tmp_path / "data-link" if linked else inside)}
    done = run_cli("remember", "I prefer rebase over merge", "--scope", "global", environ=home)
    assert done.code == 2 and done.err.count("\n") == 1, done.err
    assert f"inside a project's {project.DIR}/ folder" in done.err
    assert not list((project_root / project.DIR).rglob(user_home.USER_STORE))
    # A project command that reads the user store says the same, and writes nothing.
    done = run_cli("remember", NOTE, environ=home)
    assert done.code == 2 and "XDG_DATA_HOME" in done.err
    assert not list((project_root / project.DIR).rglob(user_home.USER_STORE))


@pytest.mark.parametrize("variable", ["XDG_DATA_HOME", "TREE_RING_USER_HOME"])
@pytest.mark.parametrize(
    "control", ["\n", "\t", "\x1b", "\x85", "\u2028"], ids=["newline", "tab", "escape", "nel", "ls"]
)
def test_a_user_store_path_holding_a_control_character_is_refused_in_one_line(
    run_cli: CliRunner, project_root: Path, tmp_path: Path, variable: str, control: str
) -> None:
    """No line that names such a path could show it whole: `status` and
    `doctor` printed a line break in it raw, splitting their lines."""
    home = {variable: str(tmp_path / f"x{control}y")}
    for args in (("remember", "I prefer rebase over merge", "--scope", "global"), ("status",)):
        done = run_cli(*args, environ=home)
        assert done.code == 2 and done.err.count("\n") == 1, done.err
        assert "holds a control character" in done.err and control not in done.err.rstrip("\n")
    assert not (tmp_path / f"x{control}y").exists()


@pytest.mark.parametrize(
    ("variable", "below"),
    [("TREE_RING_USER_HOME", ""), ("XDG_DATA_HOME", ""), ("XDG_DATA_HOME", "data/cache")],
)
def test_a_user_store_in_a_project_s_working_tree_is_refused(
    run_cli: CliRunner, project_root: Path, variable: str, below: str
) -> None:
    """Not only `.tree-ring/`: anywhere in the project, `git add -A` would
    commit the person's notes."""
    home = {variable: str(project_root / below) if below else str(project_root)}
    done = run_cli("remember", "I prefer rebase over merge", "--scope", "global", environ=home)
    assert done.code == 2 and done.err.count("\n") == 1, done.err
    assert f"inside the project at {project_root}" in done.err
    assert not list(project_root.rglob(user_home.USER_STORE))


def test_a_data_folder_linked_into_a_project_s_working_tree_is_refused(
    run_cli: CliRunner, project_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`~/.local/share` a link into a project puts the user store there all
    the same: `git add -A` would commit it. (The walk up stops at the home
    folder, as written and where its links lead.)"""
    inside = project_root / "notes"
    inside.mkdir()
    home = tmp_path / "linked-home"
    (home / ".local").mkdir(parents=True)
    (home / ".local" / "share").symlink_to(inside)
    monkeypatch.setenv("HOME", str(home))
    environ = {"HOME": str(home)}
    done = run_cli("remember", "I prefer rebase over merge", "--scope", "global", environ=environ)
    assert done.code == 2 and done.err.count("\n") == 1, done.err
    assert f"inside the project at {project_root}" in done.err
    assert not list(project_root.rglob(user_home.USER_STORE))


def test_a_home_folder_git_keeps_as_a_project_holds_no_user_store(
    run_cli: CliRunner, tmp_path: Path
) -> None:
    """A dotfiles repository where `init` ran: the default user store under
    HOME would be in its working tree. Outside git, a home folder `init`
    ran in by mistake keeps its user store (it commits nothing)."""
    from tree_ring.harness import guidance

    home = tmp_path / "dotfiles"
    home.mkdir()
    guidance.init_project(home)
    environ = {"HOME": str(home)}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(home))
        done = run_cli(
            "remember", "I prefer rebase over merge", "--scope", "global", environ=environ
        )
        assert done.code == 0, done.err
        (home / ".git").mkdir()
        done = run_cli("remember", "I prefer small commits", "--scope", "global", environ=environ)
        assert done.code == 2 and f"inside the project at {home}" in done.err
