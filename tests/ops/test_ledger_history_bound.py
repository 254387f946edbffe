"""The upstream's history of the team ledger is read without git holding a
version of it larger than `upstream.MAX_VERSION_BYTES`: git holds both sides
of a diff whole, so one line of gigabytes a teammate pushed would cost every
fresh clone's first build (and each blame) twice its size in the git child,
whatever the Python side bounds. Such a version's commits are left out of
`git log -p`, the blame stops at the commit out of it, and the first build
names it in one line. A history without one reads as before. The bound is
made small here, as is the long line."""

from __future__ import annotations

from pathlib import Path

import pytest
from team_support import LEDGER, clone, first_repo, git, hub, publish, remember

from tree_ring.model import project
from tree_ring.model.actor import Actor
from tree_ring.model.identity import Origin
from tree_ring.store.db import Store
from tree_ring.team import sync, upstream

BOUND = 20_000
ACTOR = Actor("ledger", Origin("import"))
EARLY = b'{"id":"mem_early","record":"tombstone"}'  # a stone a later commit deletes
LATE = b'{"id":"mem_late","record":"tombstone"}'  # a stone set after the long line went


def _append(root: Path, line: bytes, message: str) -> None:
    with (root / LEDGER).open("ab") as handle:
        handle.write(line + b"\n")
    publish(root, message)


def _drop(root: Path, line: bytes, message: str) -> None:
    kept = [piece for piece in (root / LEDGER).read_bytes().split(b"\n") if piece != line]
    (root / LEDGER).write_bytes(b"\n".join(kept))
    publish(root, message)


def _said(commit: str) -> str:
    return (
        f"{LEDGER} in upstream commit {commit[:12]}: larger than {BOUND:,} bytes; "
        "its history there was not read"
    )


def _head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").stdout.strip()


def history(tmp_path: Path, *, cleaned: bool = True) -> tuple[Path, Path, str, str]:
    """Alice's pushed history: a stone set and deleted again, a long line
    (a version over BOUND) pushed, then (when `cleaned`) taken out again and
    a stone set. (the hub, Bob's fresh clone, the long line's commit, the
    commit out of it or "")."""
    alice = first_repo(tmp_path)
    remember(alice, "Deploys freeze on Fridays after the release branch is cut")
    origin = hub(tmp_path, alice)
    publish(alice, "the team's memory")
    _append(alice, EARLY, "a stone")
    _drop(alice, EARLY, "the stone deleted")
    long = b"A" * (2 * BOUND)
    _append(alice, long, "a long line")
    made, out = _head(alice), ""
    if cleaned:
        _drop(alice, long, "the long line taken out")
        out = _head(alice)
        _append(alice, LATE, "another stone")
    return origin, clone(origin, tmp_path, "bob", init=False), made, out


def _record(monkeypatch: pytest.MonkeyPatch) -> list[tuple[tuple[str, ...], bytes | None]]:
    """Every git command `upstream` runs, with its input."""
    calls: list[tuple[tuple[str, ...], bytes | None]] = []
    real = upstream.git_output

    def spy(
        root: str | Path,
        *args: str,
        limit: int = upstream.MAX_LINE_BYTES,
        stdin: bytes | None = None,
    ) -> bytes | None:
        calls.append((args, stdin))
        if stdin is None:
            return real(root, *args, limit=limit)
        return real(root, *args, limit=limit, stdin=stdin)

    monkeypatch.setattr(upstream, "git_output", spy)
    return calls


def _diffs(
    calls: list[tuple[tuple[str, ...], bytes | None]],
) -> list[tuple[tuple[str, ...], bytes | None]]:
    return [(args, given) for args, given in calls if "-p" in args or args[0] == "blame"]


def test_a_normal_history_reads_as_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, bob, _, _ = history(tmp_path)
    calls = _record(monkeypatch)
    up = upstream.read(bob)
    assert up.forgotten_ever() == [LATE, EARLY]
    assert up.skipped == []
    # The history's read itself: `log -p` of the upstream, as before.
    assert _diffs(calls) == [
        (
            (
                "log",
                "-p",
                "--no-color",
                "--no-ext-diff",
                "--no-textconv",
                "--diff-merges=first-parent",
                "--format=",
                str(up.ref),
                "--",
                upstream.LEDGER,
            ),
            None,
        )
    ]
    assert set(up.blame()) == up.lines


def test_a_version_over_the_bound_is_never_diffed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(upstream, "MAX_VERSION_BYTES", BOUND)
    _, bob, made, out = history(tmp_path)
    calls = _record(monkeypatch)
    up = upstream.read(bob)
    # The commits into and out of the long version are not diffed; the rest are.
    assert up.forgotten_ever() == [LATE, EARLY]
    assert up.skipped == [_said(made)]
    [(args, given)] = _diffs(calls)
    assert args[:2] == ("--no-walk=unsorted", "--stdin") or args[1:3] == (
        "--no-walk=unsorted",
        "--stdin",
    )
    assert given is not None and made.encode() not in given and out.encode() not in given
    # The blame stops at the commit out of it: the lines set before have no commit.
    blamed = up.blame()
    assert _diffs(calls)[-1][0][:4] == ("blame", "--line-porcelain", str(up.ref), f"^{out}")
    assert {commit for commit, _ in blamed.values()} == {_head(bob)}
    assert set(blamed) == {LATE}


def test_an_upstream_ledger_over_the_bound_is_not_blamed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(upstream, "MAX_VERSION_BYTES", BOUND)
    _, bob, made, _ = history(tmp_path, cleaned=False)
    calls = _record(monkeypatch)
    up = upstream.read(bob)
    assert up.forgotten_ever() == [EARLY]
    assert up.blame() == {}
    assert all(given is None or made.encode() not in given for _, given in _diffs(calls))
    assert [args[0] for args, _ in _diffs(calls)] == ["log"]


def test_a_clones_first_build_names_the_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(upstream, "MAX_VERSION_BYTES", BOUND)
    origin, _, made, _ = history(tmp_path)
    carol = clone(origin, tmp_path, "carol", init=False)
    project_id = project.load_project_id(carol)
    with Store.open(carol, create=True) as store:
        report = sync.sync(store, carol, project_id, ACTOR, write=False)
        assert tuple(store.conn.execute("SELECT count(*) FROM memories").fetchone()) == (1,)
    assert [note for note in report.notes if made[:12] in note] == [_said(made)]
