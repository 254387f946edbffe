"""Projects whose `.tree-ring/` holds a link, as a hostile clone would ship them.

Each case builds, under `tmp`, a project `proj` (initialised) with one entry of
its `.tree-ring/` replaced by a link (relative unless the case says
otherwise), a second project `other` with a memory and receipts of its own, and
an empty `outside` directory where dangling links point. `snapshot` records
every entry of those three trees, so a test can show that a refused call
created, changed or removed nothing anywhere, the links' targets included.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from tree_ring.harness import guidance, receipts
from tree_ring.model import project
from tree_ring.store.db import Store

OTHER_MEMORY = "The other project keeps its secrets to itself."


def _other(tmp: Path) -> Path:
    from tree_support import remember  # a tests/ module: on pytest's path, not pyright's

    other = tmp / "other"
    other.mkdir()
    guidance.init_project(other)
    with Store.open(other) as store:
        remember(store, project.load_project_id(other), OTHER_MEMORY, ring="scar")
    receipts.write_receipt(other, harness="codex", event="SessionStart", brief=None)
    return other


def _replace(path: Path, target: str) -> None:
    """`path` becomes a link to `target` (a relative or absolute text)."""
    if path.is_dir() and not path.is_symlink():
        for child in sorted(path.rglob("*"), reverse=True):
            child.rmdir() if child.is_dir() else child.unlink()
        path.rmdir()
    elif path.exists() or path.is_symlink():
        path.unlink()
    path.symlink_to(target)


def link_dir_relative(proj: Path, tmp: Path) -> None:
    _replace(proj / ".tree-ring", "../other/.tree-ring")


def link_dir_absolute(proj: Path, tmp: Path) -> None:
    _replace(proj / ".tree-ring", str(tmp / "other" / ".tree-ring"))


def link_store_dangling(proj: Path, tmp: Path) -> None:
    _replace(proj / ".tree-ring" / "memory.sqlite", "../../outside/stolen.sqlite")


def link_store_to_other(proj: Path, tmp: Path) -> None:
    _replace(proj / ".tree-ring" / "memory.sqlite", "../../other/.tree-ring/memory.sqlite")


def link_wal(proj: Path, tmp: Path) -> None:
    _replace(proj / ".tree-ring" / "memory.sqlite-wal", "../../outside/stolen-wal")


def link_shm(proj: Path, tmp: Path) -> None:
    _replace(proj / ".tree-ring" / "memory.sqlite-shm", "../../outside/stolen-shm")


def link_receipts_dir(proj: Path, tmp: Path) -> None:
    (tmp / "outside" / "receipts").mkdir()
    _replace(proj / ".tree-ring" / "receipts", "../../outside/receipts")


def link_receipt_file(proj: Path, tmp: Path) -> None:
    folder = proj / ".tree-ring" / "receipts"
    folder.mkdir(exist_ok=True)
    for harness in ("claude-code", "codex"):
        _replace(folder / f"{harness}.json", f"../../../outside/{harness}.json")


def link_project_json(proj: Path, tmp: Path) -> None:
    _replace(proj / ".tree-ring" / "project.json", "../../other/.tree-ring/project.json")


def link_guidance(proj: Path, tmp: Path) -> None:
    _replace(proj / ".tree-ring" / "AGENTS.md", "../../outside/AGENTS.md")


def link_attributes_dangling(proj: Path, tmp: Path) -> None:
    """The ledger's merge rule (`init` in a git repository writes it) as a
    link: git would read no rule for the ledger, and say nothing."""
    path = proj / ".tree-ring" / ".gitattributes"
    path.unlink(missing_ok=True)
    path.symlink_to("../../outside/nowhere")


def attributes_is_a_fifo(proj: Path, tmp: Path) -> None:
    path = proj / ".tree-ring" / ".gitattributes"
    path.unlink(missing_ok=True)
    os.mkfifo(path)


def project_json_is_a_directory(proj: Path, tmp: Path) -> None:
    path = proj / ".tree-ring" / "project.json"
    path.unlink()
    path.mkdir()


def store_is_a_fifo(proj: Path, tmp: Path) -> None:
    path = proj / ".tree-ring" / "memory.sqlite"
    path.unlink()
    os.mkfifo(path)


def receipts_is_a_file(proj: Path, tmp: Path) -> None:
    folder = proj / ".tree-ring" / "receipts"
    if folder.exists():
        _replace(folder, "unused")
        folder.unlink()
    folder.write_text("not a directory\n", encoding="utf-8")


def receipts_is_a_fifo(proj: Path, tmp: Path) -> None:
    folder = proj / ".tree-ring" / "receipts"
    if folder.exists():
        _replace(folder, "unused")
        folder.unlink()
    os.mkfifo(folder)


CASES: dict[str, Callable[[Path, Path], None]] = {
    f.__name__: f
    for f in (
        link_dir_relative,
        link_dir_absolute,
        link_store_dangling,
        link_store_to_other,
        link_wal,
        link_shm,
        link_project_json,
        link_guidance,
        link_attributes_dangling,
        attributes_is_a_fifo,
        project_json_is_a_directory,
        store_is_a_fifo,
    )
}
# What may stand where the receipts folder belongs, or in it (committed to the
# repository, say): not refused, but read as no receipts and never written through.
RECEIPTS_CASES: dict[str, Callable[[Path, Path], None]] = {
    f.__name__: f
    for f in (link_receipts_dir, receipts_is_a_file, receipts_is_a_fifo, link_receipt_file)
}


def receipts_said(case: str, proj: Path) -> str:
    """The line that says why nothing is recorded, for a case of RECEIPTS_CASES."""
    folder = proj / ".tree-ring" / "receipts"
    if case == "link_receipt_file":
        return (
            f"{folder}/claude-code.json is not a regular file, so nothing is recorded in "
            f"{folder}; remove it (git rm it if it is committed)"
        )
    kind = "a symbolic link" if case == "link_receipts_dir" else "not a directory"
    return (
        f"{folder} is {kind}, so nothing is recorded there; remove it "
        "(git rm it if it is committed) and Tree Ring makes the folder again"
    )


def build(tmp: Path, case: str) -> Path:
    """`tmp/proj`, its `.tree-ring/` broken as `case` says; returns the project."""
    _other(tmp)
    (tmp / "outside").mkdir()
    proj = tmp / "proj"
    proj.mkdir()
    guidance.init_project(proj)
    (CASES | RECEIPTS_CASES)[case](proj, tmp)
    return proj


def changed(
    before: dict[str, tuple[str, int, int]], after: dict[str, tuple[str, int, int]]
) -> set[str]:
    """The entries `snapshot` saw created, changed or removed between the two."""
    return {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}


def snapshot(tmp: Path) -> dict[str, tuple[str, int, int]]:
    """Every entry under proj, other and outside: kind, size and mtime, links unfollowed."""
    seen: dict[str, tuple[str, int, int]] = {}
    for top in ("proj", "other", "outside"):
        for folder, dirs, files in os.walk(tmp / top, followlinks=False):
            for name in dirs + files:
                path = Path(folder) / name
                info = path.lstat()
                kind = "link" if path.is_symlink() else "dir" if path.is_dir() else "file"
                seen[str(path.relative_to(tmp))] = (kind, info.st_size, info.st_mtime_ns)
    return seen
