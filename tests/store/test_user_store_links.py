"""The user store is opened through no link, as `.tree-ring/` is not.

A linked `user.sqlite` (or side file), or a linked user home folder
(`TREE_RING_USER_HOME`, or `tree-ring/` in the data directory), would have
every brief read, and a global write create or overwrite, whatever the link
points at. Commands refuse it with one line naming the path; the hook's brief
goes on without the person's lines and says why on stderr. Nothing is read
from or written to where the link points.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliRunner
from test_user_store import hook_brief

NOTE = "Elsewhere: the build uses the blue pipeline."


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under `folder` with its size and modification time."""
    return {
        str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def elsewhere(tmp_path: Path, run_cli: CliRunner) -> Path:
    """A real user store with a note in it, where the links below point."""
    folder = tmp_path / "elsewhere"
    done = run_cli("remember", NOTE, "--scope", "global", environ=home_at(folder))
    assert done.code == 0, done.err
    return folder


def home_at(folder: Path) -> dict[str, str]:
    return {"TREE_RING_USER_HOME": str(folder)}


def home_linked(tmp: Path, elsewhere: Path) -> tuple[dict[str, str], Path]:
    (tmp / "me").symlink_to(elsewhere)
    return home_at(tmp / "me"), tmp / "me"


def home_linked_dangling(tmp: Path, elsewhere: Path) -> tuple[dict[str, str], Path]:
    (tmp / "me").symlink_to(tmp / "nowhere")
    return home_at(tmp / "me"), tmp / "me"


def home_linked_with_slash(tmp: Path, elsewhere: Path) -> tuple[dict[str, str], Path]:
    (tmp / "me").symlink_to(elsewhere)
    return {"TREE_RING_USER_HOME": str(tmp / "me") + "/"}, tmp / "me"


def store_linked(tmp: Path, elsewhere: Path) -> tuple[dict[str, str], Path]:
    (tmp / "me").mkdir()
    (tmp / "me" / "user.sqlite").symlink_to(elsewhere / "user.sqlite")
    return home_at(tmp / "me"), tmp / "me" / "user.sqlite"


def store_linked_dangling(tmp: Path, elsewhere: Path) -> tuple[dict[str, str], Path]:
    (tmp / "me").mkdir()
    (tmp / "me" / "user.sqlite").symlink_to("../nowhere.sqlite")
    return home_at(tmp / "me"), tmp / "me" / "user.sqlite"


def wal_linked(tmp: Path, elsewhere: Path) -> tuple[dict[str, str], Path]:
    (tmp / "me").mkdir()
    (tmp / "me" / "user.sqlite").write_bytes((elsewhere / "user.sqlite").read_bytes())
    (tmp / "me" / "user.sqlite-wal").symlink_to(tmp / "nowhere-wal")
    return home_at(tmp / "me"), tmp / "me" / "user.sqlite-wal"


def default_home_linked(tmp: Path, elsewhere: Path) -> tuple[dict[str, str], Path]:
    # No TREE_RING_USER_HOME: the data directory's `tree-ring/` is the link.
    data = tmp / "data"
    data.mkdir()
    (data / "tree-ring").symlink_to(elsewhere)
    return {"XDG_DATA_HOME": str(data)}, data / "tree-ring"


CASES: list[Callable[[Path, Path], tuple[dict[str, str], Path]]] = [
    home_linked,
    home_linked_dangling,
    home_linked_with_slash,
    store_linked,
    store_linked_dangling,
    wal_linked,
    default_home_linked,
]
COMMANDS = [
    ("remember", "A new global note.", "--scope", "global"),
    ("recall", "pipeline"),
    ("list", "--user"),
    ("forget", "mem_x", "--user", "--mode", "delete", "--reason", "gone"),
    ("review", "list", "--user"),
    ("export", "--user"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: a[0])
def test_a_command_refuses_a_linked_user_store_with_one_line(
    run_cli: CliRunner,
    tmp_path: Path,
    elsewhere: Path,
    case: Callable[[Path, Path], tuple[dict[str, str], Path]],
    argv: tuple[str, ...],
) -> None:
    environ, link = case(tmp_path, elsewhere)
    before = snapshot(tmp_path)
    done = run_cli(*argv, environ=environ)
    assert done.code != 0 and done.out == ""
    assert done.err == f"error: {link} is a symbolic link; " + done.err.split("; ", 1)[1]
    assert done.err.count("\n") == 1 and "TREE_RING_USER_HOME" in done.err
    assert snapshot(tmp_path) == before
    assert not (tmp_path / "nowhere").exists() and not (tmp_path / "nowhere.sqlite").exists()


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_the_hook_briefs_the_project_without_a_linked_user_store(
    project_root: Path,
    tmp_path: Path,
    elsewhere: Path,
    case: Callable[[Path, Path], tuple[dict[str, str], Path]],
) -> None:
    environ, link = case(tmp_path, elsewhere)
    before = snapshot(elsewhere)
    text, err = hook_brief(project_root, environ, "claude-code")
    assert text.startswith("Tree Ring memory for project") and NOTE not in text
    # The message alone, as the CLI says it: no exception's class.
    assert err == (
        f"tree-ring hook (claude-code): user store skipped: {link} is a symbolic link; "
        "Tree Ring opens the user store through no link: put the real folder or file in "
        "its place, or point TREE_RING_USER_HOME at the real folder\n"
    )
    assert snapshot(elsewhere) == before
    assert not (tmp_path / "nowhere").exists() and not (tmp_path / "nowhere.sqlite").exists()


def test_a_real_user_store_is_still_read_and_written(
    run_cli: CliRunner, project_root: Path, elsewhere: Path
) -> None:
    # The links above are refused, not the store: the same folder, named directly.
    assert NOTE in hook_brief(project_root, home_at(elsewhere))[0]
    assert (
        run_cli("remember", "Another.", "--scope", "global", environ=home_at(elsewhere)).code == 0
    )
    # A link above the folder is the person's choice (a home on another disk).
    os.symlink(elsewhere.parent, elsewhere.parent.parent / "linked-parent")
    above = home_at(elsewhere.parent.parent / "linked-parent" / elsewhere.name)
    assert NOTE in hook_brief(project_root, above)[0]


def test_a_fault_of_the_project_store_is_not_blamed_on_the_user_store(
    project_root: Path, elsewhere: Path
) -> None:
    # With a user store present and the project's own store broken, the
    # hook's one stderr line names the project's store, never "user store skipped".
    import sqlite3

    with sqlite3.connect(project_root / ".tree-ring" / "memory.sqlite") as conn:
        conn.execute("DROP TABLE memories")
    text, err = hook_brief(project_root, home_at(elsewhere))
    assert text == ""
    assert "user store skipped" not in err and err.count("\n") == 1, err
    # The check can fail: a broken user store alone is what the note names.
    (elsewhere / "user.sqlite").write_bytes(b"not a database" * 100)
    fresh = project_root.parent / "fresh"
    fresh.mkdir()
    from tree_ring.harness import guidance

    guidance.init_project(fresh)
    text, err = hook_brief(fresh, home_at(elsewhere))
    assert text.startswith("Tree Ring memory for project") and "user store skipped" in err


def test_an_unexpected_fault_of_the_user_store_is_named_by_its_class(
    project_root: Path, elsewhere: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tree Ring's own errors are said as their message; anything else keeps
    its class, as the hook's last-resort line does."""
    from tree_ring.model import user_home

    def broken(path: object) -> None:
        raise RuntimeError("no way through")

    monkeypatch.setattr(user_home, "check_user_store", broken)
    text, err = hook_brief(project_root, home_at(elsewhere), "claude-code")
    assert text.startswith("Tree Ring memory for project") and NOTE not in text
    assert err == "tree-ring hook (claude-code): user store skipped: RuntimeError: no way through\n"
