"""Forgetting a memory whose content other live memories hold too ("twins").

A direct forget takes every identical copy the caller may forget with it, so
the text is gone here as it is from every clone the tombstone reaches. A copy
the caller may not forget (a person's, for an agent) stays, and then the
content is not tombstoned: an agent cannot keep a person's memory out of the
clones built from the team ledger by forgetting its own copy.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from governance_support import CLAUDE, CODEX, query, recall_ids, remember, write
from helpers import CliRunner

TEXT = "The staging cluster restarts every Sunday at noon"
PAIR = "The staging cluster restarts every Sunday at noon. Deploys pause during the window."
SENTENCE = "The staging cluster restarts every Sunday at noon."
QUERY = "staging cluster restarts Sunday"
MODES = ("delete", "redact")
# The same words written again in one place are one memory
# (`pipeline.same_memory`): a copy differs by a tag.
COPY = ("--tag", "copy")


def standing(root: Path) -> set[str]:
    """The rows neither deleted nor redacted."""
    return {r[0] for r in query(root, "SELECT id FROM memories WHERE redacted_at IS NULL")}


def forget(
    run_cli: CliRunner, memory_id: str, mode: str, environ: dict[str, str] | None = None
) -> dict[str, Any]:
    return write(run_cli, "forget", memory_id, "--mode", mode, "--reason", "wrong", environ=environ)


def writable(run_cli: CliRunner, text: str) -> bool:
    """Whether a person may store `text` now (refused only for tombstoned content)."""
    done = run_cli("--json", "remember", text, "--scope", "manual")
    assert done.code == 0 or "will not be stored again" in done.err, done.err
    return done.code == 0


@pytest.mark.parametrize("mode", MODES)
def test_a_person_forgets_every_identical_copy(
    run_cli: CliRunner, project_root: Path, mode: str
) -> None:
    first = remember(run_cli, TEXT)
    second = remember(run_cli, TEXT, *COPY)
    third = remember(run_cli, TEXT, "--scope", "manual")
    theirs = remember(run_cli, TEXT, "--scope", "agent", environ=CLAUDE)
    waiting = write(
        run_cli, "remember", TEXT, "--ring", "heartwood", "--scope", "project", environ=CLAUDE
    )
    assert waiting["trust"] == "pending"
    other = remember(run_cli, "The staging cluster is rebuilt every month")
    assert recall_ids(run_cli, QUERY) >= {first, second, third}

    done = forget(run_cli, first, mode)
    assert done["twins"] == [second, third, theirs, waiting["id"]]  # oldest first
    assert done["tombstoned"] is True
    assert standing(project_root) == {other}
    assert recall_ids(run_cli, QUERY) == {other}
    assert not writable(run_cli, TEXT)
    # One tombstone per key, and the content's under the memory asked for.
    owners = query(project_root, "SELECT DISTINCT memory_id FROM content_tombstones")
    assert {r[0] for r in owners} == {first}


def test_the_cli_names_the_copies_forgotten(run_cli: CliRunner) -> None:
    first = remember(run_cli, TEXT)
    second = remember(run_cli, TEXT, *COPY)
    done = run_cli("forget", first, "--mode", "delete", "--reason", "wrong")
    assert done.code == 0, done.err
    assert done.out.splitlines() == [
        f"deleted {first}; its content is tombstoned and will not be stored again",
        f"also forgot 1 memory holding the same claim: {second}",
    ]


@pytest.mark.parametrize("mode", MODES)
def test_an_agent_forgetting_its_copy_leaves_a_persons(
    run_cli: CliRunner, project_root: Path, mode: str
) -> None:
    persons = remember(run_cli, TEXT)
    mine = remember(run_cli, TEXT, "--scope", "agent", environ=CLAUDE)

    done = forget(run_cli, mine, mode, environ=CLAUDE)
    assert done["request"] is None
    assert done["twins"] == []
    assert done["tombstoned"] is False
    assert standing(project_root) == {persons}
    assert recall_ids(run_cli, QUERY) == {persons}
    assert query(project_root, "SELECT count(*) FROM content_tombstones")[0][0] == 0
    assert writable(run_cli, TEXT)


@pytest.mark.parametrize("mode", MODES)
def test_an_agent_forgets_its_own_copies_together(
    run_cli: CliRunner, project_root: Path, mode: str
) -> None:
    mine = remember(run_cli, TEXT, "--scope", "agent", environ=CLAUDE)
    also_mine = remember(run_cli, TEXT, "--scope", "session", environ=CLAUDE)

    done = forget(run_cli, mine, mode, environ=CLAUDE)
    assert done["twins"] == [also_mine]
    assert done["tombstoned"] is True and done["withdrawn"] is True
    assert standing(project_root) == set()
    # Withdrawn: no agent stores it again, a person still may.
    again = run_cli("--json", "remember", TEXT, "--scope", "agent", environ=CODEX)
    assert again.code != 0 and "withdrawn by an agent" in again.err
    assert writable(run_cli, TEXT)


@pytest.mark.parametrize("mode", MODES)
def test_an_agent_leaves_another_agents_copy_and_its_content(
    run_cli: CliRunner, project_root: Path, mode: str
) -> None:
    mine = remember(run_cli, TEXT, "--scope", "agent", environ=CLAUDE)
    also_mine = remember(run_cli, TEXT, "--scope", "session", environ=CLAUDE)
    codexs = remember(run_cli, TEXT, "--scope", "agent", environ=CODEX)

    done = forget(run_cli, mine, mode, environ=CLAUDE)
    assert done["twins"] == [also_mine]
    assert done["tombstoned"] is False
    assert standing(project_root) == {codexs}
    assert writable(run_cli, TEXT)


@pytest.mark.parametrize("mode", MODES)
def test_a_memory_sharing_one_sentence_is_neither_forgotten_nor_refused(
    run_cli: CliRunner, project_root: Path, mode: str
) -> None:
    pair = remember(run_cli, PAIR)
    sentence = remember(run_cli, SENTENCE)

    done = forget(run_cli, pair, mode)
    assert done["twins"] == []
    assert done["tombstoned"] is True
    assert standing(project_root) == {sentence}
    assert recall_ids(run_cli, QUERY) == {sentence}
    assert not writable(run_cli, PAIR)
    # The sentence the other memory holds stays writable while it lives...
    assert writable(run_cli, SENTENCE)
    assert len(forget(run_cli, sentence, "delete")["twins"]) == 1  # the copy just written
    # ...and is refused once no memory holds it.
    assert standing(project_root) == set()
    assert not writable(run_cli, SENTENCE)


def test_a_retired_copy_goes_with_it(run_cli: CliRunner, project_root: Path) -> None:
    # Left on record, the superseded copy would say the forgotten words in
    # `show` and `--as-of`, and refuse the store's own export an import.
    old = remember(run_cli, TEXT)
    newer = remember(
        run_cli, "The staging cluster restarts every Sunday at one", "--supersedes", old
    )
    current = remember(run_cli, TEXT)
    done = forget(run_cli, current, "delete")
    assert done["twins"] == [old]
    assert done["tombstoned"] is True
    assert standing(project_root) == {newer}
    assert not writable(run_cli, TEXT)


@pytest.mark.parametrize("mode", MODES)
def test_a_person_clearing_an_agents_copy_keeps_their_own(
    run_cli: CliRunner, project_root: Path, mode: str
) -> None:
    # The person's memory, the agent's two private copies of it, another
    # harness's copy: forgetting one of the agent's copies (as `inbox --all
    # --forget` does) takes every copy an agent wrote, and not the person's.
    own = remember(run_cli, TEXT)
    agents = remember(run_cli, TEXT, "--scope", "agent", environ=CLAUDE)
    agents_too = remember(run_cli, TEXT, "--scope", "session", environ=CLAUDE)
    codex = remember(run_cli, TEXT, "--scope", "agent", environ=CODEX)
    done = forget(run_cli, agents, mode)
    assert done["twins"] == [agents_too, codex]
    assert done["tombstoned"] is False  # the person's own memory holds the words
    assert standing(project_root) == {own}
    assert writable(run_cli, TEXT)


def test_the_inbox_batch_forget_leaves_the_persons_memory(
    run_cli: CliRunner, project_root: Path
) -> None:
    own = remember(run_cli, TEXT)
    junk = remember(run_cli, "A junk note from the agent", environ=CLAUDE)
    copy = remember(run_cli, TEXT, environ=CLAUDE)
    done = run_cli("inbox", "--all", "--forget", "--reason", "agent junk")
    assert done.code == 0, done.err
    assert standing(project_root) == {own}
    assert {junk, copy}.isdisjoint(standing(project_root))
    assert own in recall_ids(run_cli, QUERY)


# Spellings the tombstone's fold makes one with TEXT whose content hash, which
# folds less, differs: another script's look-alike letters.
LOOK_ALIKES = (
    TEXT.replace("a", "\u0430"),  # Cyrillic a
    TEXT.replace("o", "\u03bf").replace("e", "\u0435"),  # Greek omicron, Cyrillic ie
)


@pytest.mark.parametrize("spelling", LOOK_ALIKES)
def test_a_persons_copy_in_look_alike_letters_keeps_the_claim_writable(
    run_cli: CliRunner, project_root: Path, spelling: str
) -> None:
    """A person's own accepted copy in other letters is not taken with
    another's forget, so it holds the claim: neither spelling is refused
    while that copy stands in every read."""
    copy = remember(run_cli, spelling)
    first = remember(run_cli, TEXT)
    done = forget(run_cli, first, "delete")
    assert done["twins"] == [] and done["tombstoned"] is False
    assert standing(project_root) == {copy}
    assert recall_ids(run_cli, QUERY) == {copy}
    assert writable(run_cli, TEXT) and writable(run_cli, spelling)


@pytest.mark.parametrize("spelling", [TEXT, TEXT.upper(), *LOOK_ALIKES, f"Note: {TEXT}"])
def test_a_persons_waiting_copy_in_any_spelling_goes_with_the_forget(
    run_cli: CliRunner, project_root: Path, spelling: str
) -> None:
    """An import of the claim that waits for review (a heartwood) holds
    nothing: left behind, the claim would stay readable in the queue while
    its tombstone refuses it. A waiting memory that holds the claim beside
    another sentence stays (its approval is refused)."""
    lines = project_root / "waiting.jsonl"
    rows = [
        {"id": "mem_wait_copy", "summary": spelling, "ring": "heartwood", "scope": "project"},
        {"id": "mem_wait_pair", "summary": PAIR, "ring": "heartwood", "scope": "project"},
    ]
    lines.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    assert run_cli("import", str(lines)).code == 0
    pending = query(project_root, "SELECT id FROM memories WHERE trust = 'pending'")
    assert {r[0] for r in pending} == {"mem_wait_copy", "mem_wait_pair"}
    first = remember(run_cli, TEXT)
    done = forget(run_cli, first, "delete")
    assert done["twins"] == ["mem_wait_copy"] and done["tombstoned"] is True
    assert standing(project_root) == {"mem_wait_pair"}
    refused = run_cli("review", "approve", "mem_wait_pair")
    assert refused.code == 1 and "forgotten on" in refused.err


# The claim as other memories spell it: another script's look-alike letters,
# an annotation, accents; each folds to TEXT's claim.
SPELLINGS = (*LOOK_ALIKES, f"Note: {TEXT}", TEXT.replace("e", "\u00e9"))


def tombstones_held(root: Path) -> set[str]:
    return {r[0] for r in query(root, "SELECT content_hash FROM content_tombstones")}


@pytest.mark.parametrize("spelling", SPELLINGS)
@pytest.mark.parametrize("forgotten", ["spelling", "plain"])
def test_a_forget_in_either_spelling_tombstones_nothing_the_other_holds(
    run_cli: CliRunner, project_root: Path, spelling: str, forgotten: str
) -> None:
    """Whichever of two accepted memories of one claim a person forgets, the
    other holds it: no key is tombstoned (so no clone refuses it), and both
    spellings stay writable. The memories that may hold a claim are found
    by its words as written and as the claim reads them."""
    plain = remember(run_cli, TEXT)
    other = remember(run_cli, spelling)
    gone, kept = (other, plain) if forgotten == "spelling" else (plain, other)
    done = forget(run_cli, gone, "delete")
    assert done["twins"] == [] and done["tombstoned"] is False
    assert tombstones_held(project_root) == set()
    assert standing(project_root) == {kept}
    assert writable(run_cli, TEXT) and writable(run_cli, spelling)


@pytest.mark.parametrize("spelling", [TEXT, TEXT.lower(), *SPELLINGS])
def test_rejecting_an_agents_copy_in_any_spelling_keeps_the_persons_claim(
    run_cli: CliRunner, project_root: Path, spelling: str
) -> None:
    """An agent's proposal of a person's claim, rejected as usual: the
    person's memory holds the claim, so nothing is tombstoned."""
    mine = remember(run_cli, TEXT)
    proposal = write(run_cli, "remember", spelling, "--scope", "project", *COPY, environ=CLAUDE)
    assert proposal["trust"] == "pending"
    done = run_cli("review", "reject", proposal["id"], "--reason", "a copy")
    assert done.code == 0, done.err
    assert "stays writable" in done.out
    assert tombstones_held(project_root) == set()
    assert standing(project_root) >= {mine} and writable(run_cli, TEXT)


@pytest.mark.parametrize("spelling", [TEXT, TEXT.lower()])
@pytest.mark.parametrize("how", ["forget", "inbox"])
def test_forgetting_an_agents_proposal_never_takes_the_persons_memory(
    run_cli: CliRunner, project_root: Path, spelling: str, how: str
) -> None:
    """A person's exact copies go with a memory a person stands behind, not
    with an agent's waiting proposal of it (`inbox --all --forget` clears
    the proposals): the person's memory stays and holds the claim."""
    mine = remember(run_cli, TEXT)
    proposal = write(run_cli, "remember", spelling, "--scope", "project", *COPY, environ=CLAUDE)
    assert proposal["trust"] == "pending"
    if how == "forget":
        done = forget(run_cli, proposal["id"], "delete")
        assert done["twins"] == [] and done["tombstoned"] is False
    else:
        cleared = run_cli(
            "--json", "inbox", "--all", "--forget", "--mode", "delete", "--reason", "cleanup"
        )
        assert cleared.code == 0, cleared.err
    assert standing(project_root) == {mine}
    assert tombstones_held(project_root) == set()
    assert writable(run_cli, TEXT)


@pytest.mark.parametrize("how", ["forget", "inbox", "reject", "own copy"])
def test_the_persons_global_note_holds_its_claim_in_the_project(
    run_cli: CliRunner, project_root: Path, tmp_path: Path, how: str
) -> None:
    """A note of the person's user store, read beside the project, holds its
    claim there: clearing an agent's copy of it (forget, the inbox, a
    rejection) or the person's own project copy tombstones nothing, and the
    note stays in the project's brief."""
    home = {"TREE_RING_USER_HOME": str(tmp_path / "me")}
    note = remember(run_cli, TEXT, "--scope", "global", environ=home)
    if how == "own copy":
        copy = remember(run_cli, TEXT, environ=home)
    else:
        copy = write(run_cli, "remember", TEXT, "--scope", "project", environ=home | CLAUDE)["id"]
    if how in ("forget", "own copy"):
        assert forget(run_cli, copy, "delete", environ=home)["tombstoned"] is False
    elif how == "inbox":
        argv = ("inbox", "--all", "--forget", "--mode", "delete", "--reason", "cleanup")
        assert run_cli(*argv, environ=home).code == 0
    else:
        done = run_cli("review", "reject", copy, "--reason", "a copy", environ=home)
        assert done.code == 0 and "stays writable" in done.out, done.err
    assert tombstones_held(project_root) == set()
    assert note in set(run_cli("--json", "brief", environ=home).json()["items"])
    assert run_cli("remember", TEXT, "--scope", "manual", environ=home).code == 0


@pytest.mark.parametrize("how", ["forget", "reject"])
def test_a_persons_note_holding_the_claim_as_one_sentence_keeps_it_writable(
    run_cli: CliRunner, project_root: Path, how: str
) -> None:
    """The person's longer note holds the claim as one of its sentences:
    clearing an agent's proposal of the claim alone tombstones none of it,
    its content hash included."""
    note = remember(run_cli, f"We met the ops team. {TEXT}. Bring coffee.")
    proposal = write(run_cli, "remember", TEXT, "--scope", "project", environ=CLAUDE)["id"]
    if how == "forget":
        assert forget(run_cli, proposal, "delete")["tombstoned"] is False
    else:
        done = run_cli("review", "reject", proposal, "--reason", "a copy")
        assert done.code == 0 and "stays writable" in done.out, done.err
    assert tombstones_held(project_root) == set()
    kept = {note, proposal} if how == "reject" else {note}  # a rejected row stays on record
    assert standing(project_root) == kept and writable(run_cli, TEXT)


@pytest.mark.parametrize("field", ["summary", "details"])
def test_a_persons_note_saying_the_claim_as_a_field_keeps_it_writable(
    run_cli: CliRunner, project_root: Path, field: str
) -> None:
    """The person's other note says the forgotten claim as a whole field of
    its own (the same summary with details, or as its details): it stays,
    and so the claim stays writable, its content hash included."""
    forgotten = remember(run_cli, TEXT)
    if field == "summary":
        note = remember(run_cli, TEXT, "--details", "Seen in the ops channel.")
    else:
        note = remember(run_cli, "A note from the ops channel", "--details", TEXT)
    done = forget(run_cli, forgotten, "delete")
    assert done["twins"] == [] and done["tombstoned"] is False
    assert standing(project_root) == {note}
    assert tombstones_held(project_root) == set()
    assert writable(run_cli, TEXT)
