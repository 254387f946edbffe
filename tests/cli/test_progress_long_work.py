"""Progress of consolidate, tree rebuild, sync and the file syncs: told by the
library, drawn on a terminal's stderr by the CLI, silent off one, never on stdout."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import PERSON
from progress_support import run_tree_ring

from tree_ring.harness import guidance
from tree_ring.model import project
from tree_ring.model.identity import Identity
from tree_ring.sources import dox
from tree_ring.store.db import Store
from tree_ring.team import sync
from tree_ring.tree import repair
from tree_ring.upkeep import consolidate

FACTS = (
    "Deploys go through the staging branch first",
    "Billing webhooks retry five times with backoff",
    "Release notes are drafted from merged pull requests",
    "The search index is rebuilt nightly at two",
    "Feature flags live in the settings service",
)
AGENTS = (
    "# Rules\n- You must run the test suite before every release.\n\n## Build\nUse make build.\n"
)

Seen = list[tuple[str, int, "int | None"]]


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    guidance.init_project(root)
    (root / "AGENTS.md").write_text(AGENTS, encoding="utf-8")
    for fact in FACTS:
        done = _run(root, ["remember", fact, "--event-type", "decision"], tty=False)
        assert done[0] == 0, done[2]
    return root


_run = run_tree_ring


VERBS = [
    (["consolidate"], b"\rconsolidate: 1 of 1 (100%)"),
    (["tree", "rebuild"], b"\rtree rebuild: 5 of 5 (100%)"),
    (["sync"], b"\rsync: ledger read: 1 of 3 (33%)"),
    (["dox", "sync"], b"\rdox sync: 2 read: 1 of 3 (33%)"),
]


@pytest.mark.parametrize(("args", "drawn"), VERBS, ids=[" ".join(v[0]) for v in VERBS])
def test_on_a_terminal_long_work_draws_progress_on_stderr_only(
    tmp_path: Path, args: list[str], drawn: bytes
) -> None:
    root = _project(tmp_path)
    code, out, err = _run(root, args, tty=True)
    assert code == 0, err
    assert drawn in err
    assert b"\r" not in out and out.strip()


@pytest.mark.parametrize(("args", "drawn"), VERBS, ids=[" ".join(v[0]) for v in VERBS])
def test_off_a_terminal_long_work_is_quiet(tmp_path: Path, args: list[str], drawn: bytes) -> None:
    root = _project(tmp_path)
    code, out, err = _run(root, [*args, "--json"], tty=False)
    assert code == 0, err
    assert err == b"" and out.startswith(b"{")


def test_each_operation_tells_its_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _project(tmp_path)
    project_id = project.load_project_id(root)
    with Store.open(root) as store:
        seen: Seen = []
        consolidate.consolidate(
            store, project_id, "manual", actor=PERSON, progress=lambda *a: seen.append(a)
        )
        assert seen == [("consolidate", 1, 1)]

        seen = []
        monkeypatch.setattr(repair, "REBUILD_BATCH", 2)
        with store.write() as db:
            placed = repair.rebuild(db, project_id, progress=lambda *a: seen.append(a))
        assert [(done, total) for _, done, total in seen] == [(2, 5), (4, 5), (5, 5)]
        assert placed == 5  # the five facts; their consolidation is no leaf

        seen = []
        sync.sync(store, root, project_id, PERSON, progress=lambda *a: seen.append(a))
        assert [(done, total) for _, done, total in seen] == [(1, 3), (2, 3), (3, 3)]

        seen = []
        dox.sync(store, root, Identity(project_id), PERSON, progress=lambda *a: seen.append(a))
        assert seen == [
            ("dox sync: 2 read", 1, 3),
            ("dox sync: planned", 2, 3),
            ("dox sync: written", 3, 3),
        ]
