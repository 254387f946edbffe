"""Every write a client offers goes through the library's front (`api.Project`).

A client that called a use case below the front would assemble it on its own
(its store, its actor, which tombstones answer), and two clients would then
disagree: the terminal UI's supersede wrote into a store that did not answer
to the person's user store, where the CLI's did. So the clients' modules are
read (ast, nothing imported) for a call of any write use case below the
front, and two writes that once went round it are checked for what the front
does: a global evidence note lands in the user store, as a global `remember`
does, and a supersede's approval refuses what the person forgot.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

from governance_support import CLAUDE
from helpers import cli_runner

from tree_ring.harness import guidance
from tree_ring.store.db import Store

PACKAGE = Path(__file__).resolve().parents[2] / "tree_ring"
CLIENTS = ("cli", "mcp", "tui", "web", "hook")
# The write use cases below the front, by module: a client asks `Project` for each.
BELOW_THE_FRONT: dict[str, frozenset[str]] = {
    "tree_ring.review.settle": frozenset({"supersede"}),
    "tree_ring.review.inbox": frozenset({"keep", "mark_seen", "unseen"}),
    "tree_ring.review.queue": frozenset({"approve", "reject", "dispute", "approve_all"}),
    "tree_ring.review.promote": frozenset({"promote", "promote_many"}),
    "tree_ring.review.refute": frozenset({"refute"}),
    "tree_ring.upkeep.consolidate": frozenset({"consolidate"}),
    "tree_ring.upkeep.maintain": frozenset({"maintain"}),
    "tree_ring.write.verbs": frozenset({"remember", "capture", "evidence"}),
    "tree_ring.write.correct": frozenset({"forget", "supersede", "forget_copies", "retire"}),
    "tree_ring.write.anchors": frozenset({"confirm"}),
    "tree_ring.write.readmit": frozenset({"readmit_kept", "remember_over_tombstone"}),
    "tree_ring.team.sync": frozenset({"sync"}),
}


def calls_below_the_front(path: Path) -> set[str]:
    """`module.function` for each call of a use case below the front in `path`,
    through a module imported under any name or a function imported by name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules: dict[str, str] = {}  # local name -> module
    functions: dict[str, str] = {}  # local name -> module.function
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                whole = f"{node.module}.{alias.name}"
                if whole in BELOW_THE_FRONT:
                    modules[alias.asname or alias.name] = whole
                elif alias.name in BELOW_THE_FRONT.get(node.module, ()):
                    functions[alias.asname or alias.name] = whole
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in BELOW_THE_FRONT and alias.asname:
                    modules[alias.asname] = alias.name
    found: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in functions:
            found.add(functions[func.id])
        elif (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id in modules
            and func.attr in BELOW_THE_FRONT[modules[func.value.id]]
        ):
            found.add(f"{modules[func.value.id]}.{func.attr}")
    return found


def test_the_scan_finds_each_way_of_calling_below_the_front(tmp_path: Path) -> None:
    source = tmp_path / "client.py"
    source.write_text(
        "from tree_ring.review import settle\n"
        "from tree_ring.review import inbox as box\n"
        "from tree_ring.write.verbs import remember as keep_this\n"
        "import tree_ring.upkeep.consolidate as folding\n"
        "from tree_ring.write import verbs\n"
        "def act(store):\n"
        "    settle.supersede(store, 'a', 'b')\n"
        "    box.keep(store, 'p', [], None)\n"
        "    keep_this(store)\n"
        "    folding.consolidate(store)\n"
        "    verbs.Draft('a note')\n",  # a value, not a use case
        encoding="utf-8",
    )
    assert calls_below_the_front(source) == {
        "tree_ring.review.settle.supersede",
        "tree_ring.review.inbox.keep",
        "tree_ring.write.verbs.remember",
        "tree_ring.upkeep.consolidate.consolidate",
    }


def test_no_client_calls_a_write_use_case_below_the_front() -> None:
    found = {
        f"{path.relative_to(PACKAGE)}: {call}"
        for room in CLIENTS
        for path in sorted((PACKAGE / room).rglob("*.py"))
        for call in calls_below_the_front(path)
    }
    assert found == set()


def test_global_evidence_lands_in_the_user_store(project_root: Path, tmp_path: Path) -> None:
    home = tmp_path / "me"
    home.mkdir()
    environ = {"TREE_RING_USER_HOME": str(home), "HOME": str(home)}
    run = cli_runner(project_root)
    done = run(
        "--json", "evidence", "The parser reads 10k lines in 2s", "--outcome", "observed",
        "--evidence-ref", "ci/run/7", "--scope", "global", environ=environ,
    )  # fmt: skip
    assert done.code == 0, done.err
    written = json.loads(done.out)["id"]
    with Store.open(project_root) as store:
        assert store.query("SELECT id FROM memories", {}) == []
    listed = run("--json", "list", "--user", environ=environ)
    assert listed.code == 0, listed.err
    [row] = json.loads(listed.out)["items"]
    assert (row["id"], row["scope"], row["source"]["type"]) == (written, "global", "evidence")


def test_supersede_approves_nothing_the_person_forgot(project_root: Path, tmp_path: Path) -> None:
    """An agent's disputed row whose words the person then forgot in their user
    store (from another project, so the copy here stays, hidden from them): a
    person's supersede of the pair it contradicts would approve it into the
    shared scope, and so into the team ledger. It is refused, whole."""
    home = tmp_path / "me"
    home.mkdir()
    person = {"TREE_RING_USER_HOME": str(home), "HOME": str(home)}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    guidance.init_project(elsewhere)
    run = cli_runner(project_root)

    def write(*args: str, environ: dict[str, str]) -> str:
        done = run("--json", "remember", *args, environ=environ)
        assert done.code == 0, done.err
        return json.loads(done.out)["id"]

    old = write("The API request timeout is 30 seconds", environ=person)
    new = write(
        "The API request timeout is 60 seconds", "--scope", "project", environ={**person, **CLAUDE}
    )
    mine = write("The API request timeout is 60 seconds", "--scope", "global", environ=person)
    forgot = cli_runner(elsewhere)(
        "forget", mine, "--user", "--mode", "delete", "--reason", "wrong", environ=person
    )
    assert forgot.code == 0, forgot.err

    done = run("supersede", old, new, "--reason", "the new value", environ=person)

    assert done.code != 0
    assert "forgotten" in done.err and done.err.count("\n") == 1
    with Store.open(project_root) as store:
        live = store.query("SELECT id, trust FROM memories WHERE retired_at IS NULL", {})
    states = {row["id"]: row["trust"] for row in live}
    assert states == {old: "accepted", new: "disputed"}
