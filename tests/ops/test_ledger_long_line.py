"""A line of the team ledger longer than any a check reads (a teammate pushed
megabytes of one character, which git compresses to almost nothing) is
skipped and reported, and never held whole: not by the SessionStart hook's
pass, a sync, a clone's first build, `doctor` (which names it) or the merge driver, nor in
the upstream's copy git gives. What each holds is measured by `tracemalloc`
while it runs, the store already open: well under the line's size."""

from __future__ import annotations

import os
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from team_support import LEDGER, clone, first_repo, hub, ok, publish, pull, remember

from tree_ring.model import project
from tree_ring.model.actor import Actor
from tree_ring.model.identity import Origin
from tree_ring.store.db import Store
from tree_ring.team import ledger, ledger_check, ledger_delta, ledger_refresh, sync

LONG = 24 * 1024 * 1024  # the line's bytes: several times the bound below
HELD = 8 * 1024 * 1024  # the most any reader may hold at once while it reads it
ACTOR = Actor("ledger", Origin("import"))
SKIPPED = f"longer than {ledger.MAX_LINE_BYTES:,} bytes"

T = TypeVar("T")


def peak(run: Callable[[], T]) -> tuple[T, int]:
    """What `run` returns, and the most memory Python held for it at once."""
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        got = run()
        return got, tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def pushed_long_line(tmp_path: Path) -> tuple[Path, Path, int]:
    """Alice's team, Bob's clone synced, then a long line Alice pushed and Bob
    pulled: (the hub, Bob's clone, the line's number in the ledger)."""
    alice = first_repo(tmp_path)
    remember(alice, "Deploys freeze on Fridays after the release branch is cut")
    origin = hub(tmp_path, alice)
    publish(alice, "the team's memory")
    bob = clone(origin, tmp_path, "bob")
    with (alice / LEDGER).open("ab") as handle:
        for _ in range(LONG // (1 << 20)):
            handle.write(b"A" * (1 << 20))
        handle.write(b"\n")
    number = (alice / LEDGER).read_bytes().count(b"\n")
    publish(alice, "a long line")
    pull(bob)
    return origin, bob, number


def test_the_hooks_pass_and_the_full_pass_skip_it_unread(tmp_path: Path) -> None:
    _, bob, number = pushed_long_line(tmp_path)
    project_id = project.load_project_id(bob)
    with Store.open(bob) as store:
        said, held = peak(lambda: ledger_refresh.refresh(store, str(bob), project_id))
    assert said == "seen"  # the line is no entry: nothing to apply
    assert held < HELD, held
    # The hook's full pass (the bytes kept beside the store gone): the line is
    # skipped and named, against the upstream's copy that holds it too.
    Path(str(project.store_path(bob)) + ledger_delta.SIDE).unlink()
    os.utime(bob / LEDGER, ns=(1, 1))
    with Store.open(bob) as store:
        report, held = peak(lambda: sync.refresh(store, bob, project_id))
    assert report is not None
    assert [(s.line, s.reason) for s in report.skipped] == [(number, SKIPPED)]
    assert held < HELD, held


def test_sync_reports_it_and_writes_the_ledger_without_it(tmp_path: Path) -> None:
    _, bob, number = pushed_long_line(tmp_path)
    with Store.open(bob) as store:
        project_id = project.load_project_id(bob)
        report, held = peak(lambda: sync.sync(store, bob, project_id, ACTOR))
    assert [(s.line, s.reason) for s in report.skipped] == [(number, SKIPPED)]
    assert held < HELD, held
    assert report.written
    assert max(map(len, (bob / LEDGER).read_bytes().split(b"\n"))) < 10_000
    assert f"{LEDGER}:{number}: {SKIPPED}" not in ok(bob, "sync").out  # gone for good


def test_a_clones_first_build_and_doctor_read_past_it(tmp_path: Path) -> None:
    origin, _, number = pushed_long_line(tmp_path)
    carol = clone(origin, tmp_path, "carol", init=False)
    project_id = project.load_project_id(carol)
    problem, held = peak(lambda: project.ledger_problem(carol, project_id))
    assert problem is None
    assert held < HELD, held
    with Store.open(carol, create=True) as store:
        report, held = peak(lambda: sync.sync(store, carol, project_id, ACTOR, write=False))
        assert [(s.line, s.reason) for s in report.skipped] == [(number, SKIPPED)]
        assert held < HELD, held
        assert tuple(store.conn.execute("SELECT count(*) FROM memories").fetchone()) == (1,)
        found, held = peak(lambda: ledger_check.check(carol, store.db, repair=False))
    # Named as a sync names it, and failed: the ledger a sync writes drops it.
    assert found is not None and not found[0], found
    assert found[1].splitlines()[1:] == [f"{LEDGER}:{number}: {SKIPPED}"]
    assert held < HELD, held


def test_the_merge_driver_drops_it_unread(tmp_path: Path) -> None:
    _, bob, _ = pushed_long_line(tmp_path)
    theirs = (bob / LEDGER).read_bytes()
    ours = theirs[: theirs.index(b"A" * 16)]
    paths = [tmp_path / name for name in ("base", "ours", "theirs")]
    for path, data in zip(paths, (ours, ours, theirs), strict=True):
        path.write_bytes(data)
    code, held = peak(lambda: ledger.merge_driver([str(p) for p in paths]))
    assert code == 0
    assert paths[1].read_bytes() == ours
    assert held < HELD, held
