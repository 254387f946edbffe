"""A terminal too small to draw the screen: keys that would act do nothing.

Under 20x6 the screen says only "enlarge the terminal". What a key would do
there (move, open a prompt, answer one) nobody could see, so no key but `q`
and Esc (which quit) does anything until the screen is larger again; a
confirmation asked before the terminal shrank is not taken while it cannot be
shown. Each case here runs the same keys twice, too small and at 80x24, so
the test also shows that they do act where the screen is drawn.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import pytest
from helpers import run_process
from terminal import Terminal

from tree_ring.review import inbox

pytestmark = pytest.mark.slow

AGENT_ENV = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "sess-tui"}
SMALL = "enlarge the terminal"


@pytest.fixture(autouse=True)
def no_terminal_left() -> Iterator[None]:
    yield
    Terminal.close_all()


class Row(NamedTuple):
    trust: str
    scope: str
    ring: str
    retired: bool
    redacted: bool
    superseded_by: str | None


class Snapshot(NamedTuple):
    memories: dict[str, Row]  # every row of the store, by id
    settings: dict[str, str]  # the inbox's seen mark among them
    audited: int  # audit log entries


def snapshot(root: Path) -> Snapshot:
    db = sqlite3.connect(root / ".tree-ring" / "memory.sqlite")
    try:
        memories = {
            row[0]: Row(row[1], row[2], row[3], bool(row[4]), bool(row[5]), row[6])
            for row in db.execute(
                "SELECT id, trust, scope, ring, retired_at IS NOT NULL, "
                "redacted_at IS NOT NULL, superseded_by FROM memories"
            )
        }
        settings = dict(db.execute("SELECT key, value FROM settings"))
        audited = db.execute("SELECT count(*) FROM audit_log").fetchone()[0]
    finally:
        db.close()
    return Snapshot(memories, settings, audited)


def changed(before: Snapshot, after: Snapshot) -> dict[str, tuple[Row | None, Row | None]]:
    """The rows a run added, removed or changed: (before, after), None where absent."""
    ids = set(before.memories) | set(after.memories)
    return {
        i: (before.memories.get(i), after.memories.get(i))
        for i in ids
        if before.memories.get(i) != after.memories.get(i)
    }


class Store(NamedTuple):
    root: Path
    pending: str  # an agent's heartwood, in the review queue
    capture: str  # an agent's capture, in the inbox
    older: str  # a person's memory
    newest: str  # a person's memory, selected when the screen opens


def cli(root: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = run_process("--root", str(root), "--json", *args, env=env)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode()


def stored_id(out: str) -> str:
    import json

    return str(json.loads(out)["id"])


@pytest.fixture
def store(project_root: Path) -> Store:
    pending = stored_id(
        cli(
            project_root,
            *("remember", "always run the linter first", "--ring", "heartwood"),
            *("--scope", "project"),
            env=AGENT_ENV,
        )
    )
    capture = stored_id(
        cli(project_root, "remember", "the flaky upload test needs a retry", env=AGENT_ENV)
    )
    older = stored_id(cli(project_root, "remember", "the build uses make"))
    newest = stored_id(cli(project_root, "remember", "deploys go out on tuesdays"))
    return Store(project_root, pending, capture, older, newest)


def press(term: Terminal, keys: tuple[str, ...]) -> None:
    """Send `keys`: a name of one character is a key, a longer one typed text."""
    for key in keys:
        if len(key) == 1:
            term.keys(key)
        else:
            term.type(key)


def run_small(store: Store, keys: tuple[str, ...], columns: int = 20, lines: int = 5) -> None:
    term = Terminal(store.root, columns=columns, lines=lines)
    term.wait_for(SMALL[:columns])
    press(term, keys)
    term.keys("q")  # still quits
    assert term.finish() == 0


def run_drawn(store: Store, keys: tuple[str, ...]) -> None:
    term = Terminal(store.root)
    term.wait_for("live:")
    press(term, keys)
    term.keys("q")
    assert term.finish() == 0


Check = Callable[[Store, Snapshot, Snapshot, Path], None]


def approved(s: Store, before: Snapshot, after: Snapshot, tmp: Path) -> None:
    assert changed(before, after) == {
        s.pending: (
            before.memories[s.pending],
            before.memories[s.pending]._replace(trust="accepted"),
        )
    }


def rejected(s: Store, before: Snapshot, after: Snapshot, tmp: Path) -> None:
    assert set(changed(before, after)) == {s.pending}
    assert after.memories[s.pending].trust == "rejected"


def disputed(s: Store, before: Snapshot, after: Snapshot, tmp: Path) -> None:
    assert changed(before, after) == {
        s.newest: (before.memories[s.newest], before.memories[s.newest]._replace(trust="disputed"))
    }


def forgotten(s: Store, before: Snapshot, after: Snapshot, tmp: Path) -> None:
    assert changed(before, after) == {s.newest: (before.memories[s.newest], None)}


def promoted(s: Store, before: Snapshot, after: Snapshot, tmp: Path) -> None:
    assert set(changed(before, after)) == {s.capture}
    assert after.memories[s.capture].scope == "project"


def kept(s: Store, before: Snapshot, after: Snapshot, tmp: Path) -> None:
    assert changed(before, after) == {}
    # The inbox's seen mark, and nothing else.
    keys = before.settings.keys() | after.settings.keys()
    moved = {k for k in keys if before.settings.get(k) != after.settings.get(k)}
    assert moved == {inbox.SETTING}


def remembered(s: Store, before: Snapshot, after: Snapshot, tmp: Path) -> None:
    (new,) = changed(before, after)
    assert changed(before, after)[new] == (
        None,
        Row("accepted", "project", "cambium", False, False, None),
    )


def scarred(s: Store, before: Snapshot, after: Snapshot, tmp: Path) -> None:
    moved = changed(before, after)
    (new,) = set(moved) - {s.newest}
    assert moved[s.newest][1] == before.memories[s.newest]._replace(retired=True, superseded_by=new)
    assert moved[new][0] is None and after.memories[new].ring == "scar"


def redacted(s: Store, before: Snapshot, after: Snapshot, tmp: Path) -> None:
    assert changed(before, after) == {
        s.newest: (
            before.memories[s.newest],
            before.memories[s.newest]._replace(retired=True, redacted=True),
        )
    }


def superseded(s: Store, before: Snapshot, after: Snapshot, tmp: Path) -> None:
    assert set(changed(before, after)) == {s.older}
    assert after.memories[s.older].superseded_by == s.newest


def exported(s: Store, before: Snapshot, after: Snapshot, tmp: Path) -> None:
    assert (tmp / "out.jsonl").is_file()


# name -> the keys (a longer string is typed text), and what they do where drawn.
CASES: dict[str, tuple[Callable[[Store, Path], tuple[str, ...]], Check]] = {
    "approve": (lambda s, tmp: ("v", "a", "y"), approved),
    "reject": (lambda s, tmp: ("v", "x", "not so", "\r", "y"), rejected),
    "dispute": (lambda s, tmp: ("d", "unsure", "\r", "y"), disputed),
    "forget": (lambda s, tmp: ("f", "blind", "\r", "y"), forgotten),
    "promote": (lambda s, tmp: ("n", "p", "share it", "\r", "y"), promoted),
    "keep": (lambda s, tmp: ("n", "K", "y"), kept),
    "/remember": (lambda s, tmp: ("/", "remember a note typed blind", "\r", "y"), remembered),
    "/scar": (lambda s, tmp: ("/", "scar", "\r", "y"), scarred),
    "/redact": (lambda s, tmp: ("/", "redact private", "\r", "y"), redacted),
    "/supersede": (lambda s, tmp: ("/", f"supersede {s.older} newer", "\r", "y"), superseded),
    "/export": (lambda s, tmp: ("/", f"export {tmp / 'out.jsonl'}", "\r", "y"), exported),
}


@pytest.mark.parametrize("name", list(CASES))
def test_keys_that_act_do_nothing_until_the_screen_can_show_them(
    store: Store, tmp_path: Path, name: str
) -> None:
    keys_of, check = CASES[name]
    keys = keys_of(store, tmp_path)
    before = snapshot(store.root)
    run_small(store, keys)
    assert snapshot(store.root) == before
    assert not (tmp_path / "out.jsonl").exists()
    run_drawn(store, keys)
    check(store, before, snapshot(store.root), tmp_path)


@pytest.mark.parametrize(("columns", "lines"), [(19, 24), (80, 5)])
def test_too_narrow_or_too_short_alike(store: Store, columns: int, lines: int) -> None:
    before = snapshot(store.root)
    run_small(store, ("f", "blind", "\r", "y"), columns, lines)
    assert snapshot(store.root) == before


def test_a_confirmation_asked_before_the_terminal_shrank_waits_to_be_shown(
    store: Store,
) -> None:
    before = snapshot(store.root)
    term = Terminal(store.root)
    term.wait_for("live:")
    press(term, ("f", "stale", "\r"))
    term.wait_for(f"forget (delete) {store.newest}? y/n (reason: stale)")
    term.resize(20, 5)
    term.wait_for(lambda text: text.splitlines()[0].rstrip() == SMALL)
    press(term, ("y", "Y", "\r", "n"))
    term.resize(80, 24)
    # Shown again as it was: nothing the keys typed blind did reached it.
    term.wait_for(f"forget (delete) {store.newest}? y/n (reason: stale)")
    assert snapshot(store.root) == before
    term.keys("y")
    term.wait_for("deleted mem_")
    term.keys("q")
    assert term.finish() == 0
    assert changed(before, snapshot(store.root)) == {
        store.newest: (before.memories[store.newest], None)
    }
