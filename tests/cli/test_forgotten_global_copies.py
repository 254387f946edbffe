"""A person's forget of a global note binds the copies projects hold of it.

`forget ID --user` run in a project forgets the copies agents wrote of the
note in that project's store, and says so; every project's brief and recall
(the CLI's, the MCP server's, the SessionStart hook's) leave out the rows
whose content the user store forgot, before any cap, but for a row a person
wrote over those tombstones.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CliRunner
from governance_support import CLAUDE
from helpers import REPO, cli_runner, make_memory
from mcp_support import claude

from tree_ring.api.project import Project
from tree_ring.harness import guidance
from tree_ring.model import project
from tree_ring.read.recall import recall
from tree_ring.store import rows
from tree_ring.store.db import Store

HOOK = REPO / "hooks" / "tree_ring_hook.py"
TEXT = "The office wifi network is called tree-guest-5g"
KEPT = "The office printer is on the third floor"
QUESTION = "office wifi network"
# The forgotten claim as other rows hold it: whole, annotated, one sentence of several.
FORMS = (
    "{text}",
    "Note: {text} (confirmed)",
    "{text}. Also noted on day {i} of the move.",
)
MANY = 300


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    return {"TREE_RING_USER_HOME": str(tmp_path / "me")}


@pytest.fixture
def other(tmp_path: Path) -> Path:
    root = tmp_path / "other"
    root.mkdir()
    guidance.init_project(root)
    return root


def _json(run: CliRunner, environ: dict[str, str], *argv: str) -> dict[str, object]:
    done = run("--json", *argv, environ=environ)
    assert done.code == 0, done.err
    data: dict[str, object] = done.json()
    return data


def _ids(run: CliRunner, environ: dict[str, str], *argv: str) -> set[str]:
    items = _json(run, environ, *argv)["items"]
    assert isinstance(items, list)
    return {str(i["id"]) if isinstance(i, dict) else str(i) for i in items}  # pyright: ignore[reportUnknownArgumentType, reportUnknownVariableType]


def _remember(run: CliRunner, environ: dict[str, str], text: str, *flags: str) -> str:
    return str(_json(run, environ, "remember", text, *flags)["id"])


def _forget_user(run: CliRunner, home: dict[str, str], memory_id: str) -> dict[str, object]:
    return _json(
        run, home, "forget", memory_id, "--user", "--mode", "delete", "--reason", "not to keep"
    )


def forget_outside(project_root: Path, home: dict[str, str], note: str) -> None:
    """The person forgets the user store's `note` from outside the project:
    the project's rows holding it are then only hidden, never taken."""
    nowhere = project_root.parent / "nowhere"
    nowhere.mkdir(exist_ok=True)
    done = cli_runner(nowhere)(
        "forget", note, "--user", "--mode", "delete", "--reason", "x", environ=home, root=False
    )
    assert done.code == 0, done.err


def _hook_context(root: Path, home: dict[str, str]) -> str:
    """SessionStart as Claude Code runs it: the launcher in its own process."""
    payload = {"hook_event_name": "SessionStart", "session_id": "sess-9", "cwd": str(root)}
    done = subprocess.run(
        [sys.executable, str(HOOK), "claude-code"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env={**os.environ, **home},
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and done.stderr == b"", done.stderr.decode()
    context: str = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    return context


def _held(root: Path) -> set[str]:
    with Store.open(root) as store:
        return {str(row[0]) for row in store.db.query("SELECT summary FROM memories")}


def test_forgetting_a_global_note_takes_the_agents_copy_here_and_hides_another_projects(
    run_cli: CliRunner, home: dict[str, str], project_root: Path, other: Path
) -> None:
    there = cli_runner(other)
    agent = home | CLAUDE
    note = _remember(run_cli, home, TEXT, "--scope", "global")
    copy_here = _remember(run_cli, agent, TEXT)
    copy_there = _remember(there, agent, TEXT)
    kept_here = _remember(run_cli, home, KEPT)
    kept_there = _remember(there, home, KEPT)

    done = _forget_user(run_cli, home, note)
    assert done["copies_project"] == project.load_project_id(project_root)
    assert done["copies"] == [copy_here] and done["tombstoned"] is True
    assert _ids(run_cli, home, "list", "--user") == set()
    assert _held(project_root) == {KEPT}
    # Another project's copy stays in its store, out of its reads.
    assert _held(other) == {TEXT, KEPT}
    for run, kept in ((run_cli, kept_here), (there, kept_there)):
        for environ in (home, agent):
            assert _ids(run, environ, "brief") == {kept}
            assert _ids(run, environ, "recall", QUESTION) <= {kept}
            assert _ids(run, environ, "recall", QUESTION, "--scope", "agent") <= {kept}
            assert "wifi" not in run("brief", environ=environ).out
            assert "wifi" not in run("recall", QUESTION, environ=environ).out
    assert copy_there not in _ids(there, home, "recall", "wifi tree guest")
    for root in (project_root, other):
        context = _hook_context(root, home)
        assert "wifi" not in context and KEPT in context
        session = claude(root, **home)
        assert "wifi" not in session.call("brief", {})["text"]
        found = session.call("recall", {"query": QUESTION})
        assert {r["id"] for r in found["results"]} <= {kept_here, kept_there}
    # A new write of the text is refused in either project.
    for run in (run_cli, there):
        assert run("remember", TEXT, environ=agent).code == 1


@pytest.mark.parametrize("retired", [False, True], ids=["live", "superseded"])
def test_a_global_notes_own_copy_goes_with_it_and_the_claim_is_tombstoned(
    run_cli: CliRunner, home: dict[str, str], project_root: Path, retired: bool
) -> None:
    # The user store's rows are read in the forget's own transaction: a copy
    # it took no longer holds the claim, however the store is opened.
    first = _remember(run_cli, home, TEXT, "--scope", "global")
    if retired:
        _remember(run_cli, home, KEPT, "--scope", "global", "--supersedes", first)
    # A second note of the same words (tagged: the same memory written again is one).
    note = _remember(run_cli, home, TEXT, "--scope", "global", "--tag", "copy")
    copy_here = _remember(run_cli, home | CLAUDE, TEXT)
    done = _forget_user(run_cli, home, note)
    assert done["twins"] == [first] and done["tombstoned"] is True
    assert done["copies"] == [copy_here]
    again = run_cli("remember", TEXT, "--scope", "global", environ=home)
    assert again.code != 0 and "will not be stored again" in again.err


def test_the_forget_leaves_an_agents_copy_a_person_promoted(
    run_cli: CliRunner, home: dict[str, str], project_root: Path
) -> None:
    # Promoted by a person, the agent's note is the project's (and the team
    # ledger's): one person's forget of their own note must not forget it.
    copy = _remember(run_cli, home | CLAUDE, TEXT)
    _json(run_cli, home, "promote", copy, "--reason", "the team keeps it")
    waiting = _remember(run_cli, home | CLAUDE, TEXT, "--scope", "session")
    note = _remember(run_cli, home, TEXT, "--scope", "global")
    done = _forget_user(run_cli, home, note)
    assert done["copies"] == [waiting]
    assert _held(project_root) == {TEXT}
    assert _ids(run_cli, home, "list") == set()  # hidden from this person's reads


def test_a_hidden_copy_cannot_be_promoted_into_the_shared_scope(
    run_cli: CliRunner, home: dict[str, str], project_root: Path
) -> None:
    # Forgotten from outside the project, the agent's copy is hidden, not
    # taken: promoting it would put the words into the team ledger.
    copy = _remember(run_cli, home | CLAUDE, TEXT)
    kept = _remember(run_cli, home | CLAUDE, KEPT)
    note = _remember(run_cli, home, TEXT, "--scope", "global")
    forget_outside(project_root, home, note)
    refused = run_cli("promote", copy, kept, "--reason", "share it", environ=home)
    assert refused.code != 0 and "will not be stored again" in refused.err
    assert len(refused.err.strip().splitlines()) == 1
    with Store.open(project_root) as store:
        scopes = {row[0]: row[1] for row in store.db.query("SELECT id, scope FROM memories")}
    assert scopes == {copy: "agent", kept: "agent"}  # one transaction: neither promoted
    ledger = project_root / ".tree-ring" / "ledger.jsonl"
    assert not ledger.exists() or "tree-guest" not in ledger.read_text(encoding="utf-8")


def test_the_forget_takes_an_agents_copy_in_another_spelling(
    run_cli: CliRunner, home: dict[str, str], project_root: Path
) -> None:
    # "tree guest 5g" is the note's claim as its tombstone folds it.
    note = _remember(run_cli, home, TEXT, "--scope", "global")
    spelt = _remember(run_cli, home | CLAUDE, TEXT.replace("tree-guest-5g", "tree guest 5g."))
    longer = _remember(run_cli, home | CLAUDE, TEXT + " on the ground floor")
    done = _forget_user(run_cli, home, note)
    assert done["copies"] == [spelt]
    assert _ids(run_cli, home, "list") == {longer}


def test_the_forget_says_how_many_copies_it_took(
    run_cli: CliRunner, home: dict[str, str], project_root: Path
) -> None:
    note = _remember(run_cli, home, TEXT, "--scope", "global")
    first = _remember(run_cli, home | CLAUDE, TEXT)
    elsewhere = home | CLAUDE | {"CLAUDE_CODE_SESSION_ID": "s2"}
    second = _remember(run_cli, elsewhere, TEXT, "--scope", "session")
    done = run_cli("forget", note, "--user", "--mode", "redact", "--reason", "x", environ=home)
    assert done.code == 0, done.err
    pid = project.load_project_id(project_root)
    assert done.out.splitlines() == [
        f"redacted {note}; its content is tombstoned and will not be stored again",
        f"in project {pid}: forgot 2 copies agents wrote: {first}, {second}",
    ]
    nothing = _remember(run_cli, home, KEPT, "--scope", "global")
    done = run_cli("forget", nothing, "--user", "--mode", "delete", "--reason", "x", environ=home)
    assert done.out.splitlines()[-1] == f"in project {pid}: forgot 0 copies agents wrote"


def test_outside_a_project_the_forget_takes_no_copy_and_reads_still_hide_them(
    home: dict[str, str], project_root: Path, tmp_path: Path, run_cli: CliRunner
) -> None:
    note = _remember(run_cli, home, TEXT, "--scope", "global")
    copy = _remember(run_cli, home | CLAUDE, TEXT)
    nowhere = tmp_path / "nowhere"
    nowhere.mkdir()
    anywhere = cli_runner(nowhere)
    done = anywhere(
        "--json", "forget", note, "--user", "--mode", "delete", "--reason", "x",
        environ=home, root=False,
    )  # fmt: skip
    assert done.code == 0, done.err
    assert done.json()["copies_project"] is None and done.json()["copies"] == []
    assert _held(project_root) == {TEXT}
    with Project.open(str(project_root), home) as here:
        assert copy not in here.brief().ids
        assert here.recall(QUESTION, limit=5) == []


def test_a_persons_own_project_copy_is_kept_but_hidden(
    run_cli: CliRunner, home: dict[str, str], project_root: Path
) -> None:
    """The forget takes only what agents wrote; the person's own project row
    stays in the store, and out of the brief and recall."""
    note = _remember(run_cli, home, TEXT, "--scope", "global")
    own = _remember(run_cli, home, TEXT)
    kept = _remember(run_cli, home, KEPT)
    assert _ids(run_cli, home, "brief") >= {own, kept}
    assert _forget_user(run_cli, home, note)["copies"] == []
    assert _held(project_root) == {TEXT, KEPT}
    assert _ids(run_cli, home, "brief") == {kept}
    assert _ids(run_cli, home, "recall", QUESTION) <= {kept}
    # The store keeps it, out of every read, `list` too; `forget` still takes it here.
    assert _ids(run_cli, home, "list") == {kept}
    forgot = _json(run_cli, home, "forget", own, "--mode", "delete", "--reason", "gone")
    assert forgot["id"] == own and _held(project_root) == {KEPT}
    assert "wifi" not in _hook_context(project_root, home)


def test_rejecting_an_agents_global_proposal_hides_and_blocks_no_project_row(
    run_cli: CliRunner, home: dict[str, str], project_root: Path, other: Path
) -> None:
    """An agent proposes a person's project memory as a global note; the
    person rejects it as no global note. That is no forget: the person's rows
    stay in every project's brief and recall, and stay writable there."""
    elsewhere = cli_runner(other)
    there = _remember(elsewhere, home, TEXT)
    own = _remember(run_cli, home, TEXT)
    _remember(run_cli, home, KEPT, "--scope", "global")  # the user store exists
    proposal = _remember(run_cli, {**home, **CLAUDE}, TEXT, "--scope", "global")
    reason = ("--reason", "a project rule, not a global one")
    _json(run_cli, home, "review", "reject", proposal, "--user", *reason)
    assert own in _ids(run_cli, home, "brief") and own in _ids(run_cli, home, "recall", QUESTION)
    assert there in _ids(elsewhere, home, "brief")
    assert "wifi" in _hook_context(project_root, home)
    # An agent may not propose them again anywhere, in its own partition either.
    again = run_cli("remember", TEXT, environ={**home, **CLAUDE})
    assert again.code != 0 and "rejected in review" in again.err
    # Written in a third project by the person, the words are no rejected content there.
    third = other.parent / "third"
    third.mkdir()
    guidance.init_project(third)
    fresh = _remember(cli_runner(third), home, TEXT)
    assert fresh in _ids(cli_runner(third), home, "recall", QUESTION)


def test_a_row_a_person_wrote_over_the_tombstone_is_read_again(
    run_cli: CliRunner, home: dict[str, str], project_root: Path, other: Path
) -> None:
    note = _remember(run_cli, home, TEXT, "--scope", "global")
    there = cli_runner(other)
    copy_there = _remember(there, home | CLAUDE, TEXT)
    _forget_user(run_cli, home, note)
    again = _json(
        run_cli, home, "remember", TEXT, "--override-tombstone", "--reason", "it holds again"
    )
    assert again["trust"] == "pending"
    _json(run_cli, home, "review", "approve", str(again["id"]), "--reason", "agreed")
    assert _ids(run_cli, home, "brief") == {again["id"]}
    assert _ids(run_cli, home, "recall", QUESTION) == {again["id"]}
    assert TEXT in _hook_context(project_root, home)
    # Only the row written over the tombstone: the other project's copy stays hidden.
    assert copy_there not in _ids(there, home, "brief")
    assert _ids(there, home, "recall", QUESTION) == set()


@pytest.fixture
def crowded(run_cli: CliRunner, home: dict[str, str], project_root: Path) -> tuple[list[str], str]:
    """The person forgot TEXT in their user store; the project holds MANY rows
    agents wrote that hold it, every one ranked before one row that does not
    (scars of the highest salience before a plain row of the lowest)."""
    note = _remember(run_cli, home, TEXT, "--scope", "global")
    forget_outside(project_root, home, note)
    pid = project.load_project_id(project_root)
    visible = make_memory(pid, "The office wifi password rotates every month", salience=0.0)
    hidden = [
        make_memory(
            pid,
            FORMS[i % len(FORMS)].format(text=TEXT, i=i),
            details=f"Written on day {i} of the office move",
            origin="claude-code",
            ring="scar",
            salience=1.0,
            confidence=1.0,
        )
        for i in range(MANY)
    ]
    with Store.open(project_root) as store, store.write() as db:
        rows.insert_many(db, [*hidden, visible])
    return [m.id for m in hidden], visible.id


def test_the_brief_hides_what_the_person_forgot_before_its_cap(
    project_root: Path, home: dict[str, str], crowded: tuple[list[str], str]
) -> None:
    _, visible = crowded
    for environ in (home, home | CLAUDE):
        with Project.open(str(project_root), environ) as here:
            assert set(here.brief().ids) == {visible}
            assert set(here.brief(strict=True).ids) == {visible}


@pytest.mark.parametrize("limit", [1, 10, 50])
def test_recall_hides_what_the_person_forgot_before_its_limit(
    project_root: Path, home: dict[str, str], crowded: tuple[list[str], str], limit: int
) -> None:
    hidden, visible = crowded
    for environ in (home, home | CLAUDE):
        with Project.open(str(project_root), environ) as here:
            found = here.recall("office wifi network move", limit=limit)
            assert {f.memory.id for f in found} == {visible}
            shared = here.recall("office wifi network move", limit=limit, scope="project")
            assert {f.memory.id for f in shared} == {visible}
    # Left unhidden, they are all recall would find.
    with Project.open(str(project_root), home) as here:
        first = recall(here.store, here.identity, "office wifi network move", limit=limit)
    assert {h.memory.id for h in first} <= set(hidden) and len(first) == limit


def test_a_summary_node_quoting_what_the_person_forgot_is_hidden_too(
    run_cli: CliRunner, home: dict[str, str], project_root: Path
) -> None:
    """The brief's history line and `recall --tree` read summary nodes that
    rows were sealed into: one quoting a forgotten global note is hidden as
    those rows are, and comes back with nothing else hidden."""
    assert run_cli("config", "set", "tree.input_token_budget=20", environ=home).code == 0
    _remember(run_cli, home, "The nightly job writes the audit tarball to the cold bucket")
    _remember(run_cli, home, TEXT)
    note = _remember(run_cli, home, TEXT, "--scope", "global")

    def history() -> list[str]:
        shown = run_cli("brief", environ=home).out.splitlines()
        return [line for line in shown if line.startswith("[history]")]

    def nodes() -> str:
        return run_cli("recall", "--tree", QUESTION, environ=home).out

    assert "wifi" in nodes()
    _forget_user(run_cli, home, note)
    assert history() == [] and "wifi" not in nodes()
    # The answer the brief kept about the node (`read/brief_checks.py`) is the same.
    assert history() == []
    assert "wifi" not in _hook_context(project_root, home)
    agent = {**home, **CLAUDE}
    assert "wifi" not in run_cli("recall", "--tree", QUESTION, environ=agent).out


def test_an_agents_forget_of_its_own_global_proposal_says_why_it_waits(
    run_cli: CliRunner, home: dict[str, str]
) -> None:
    _remember(run_cli, home, KEPT, "--scope", "global")  # the user store exists
    agent = {**home, **CLAUDE}
    proposal = _remember(run_cli, agent, TEXT, "--scope", "global")
    said = run_cli("forget", proposal, "--user", "--mode", "delete", "--reason", "x", environ=agent)
    assert said.code == 0 and said.out.startswith("requested req_")
    assert "not a row of this agent's own partition" in said.out and "did not write" not in said.out
