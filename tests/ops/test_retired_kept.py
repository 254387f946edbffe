"""A retired memory stays on record, whatever is forgotten or rejected after it.

A superseded, refuted or retired memory stays on record: `show`, `history`,
`--as-of` and an export with `--include-superseded` still give it, and the
team ledger carries its line. Were a tombstone to refuse it, the store's own
export would not import, and every fresh clone would skip its line and drop
it from the ledger it writes. So when another memory that quoted the same
words is forgotten, the forget tombstones nothing a retired memory a person
stands behind holds, as it tombstones nothing a live one holds (an agent's
retired note shields nothing); and a review's rejection of the same words,
which turns the claim down and keeps refusing it as a new memory, refuses no
retired record of it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from governance_support import CLAUDE
from team_support import LEDGER, cli, clone, first_repo, hub, ok, publish, remember

QUOTE = "warm the build cache before every deploy to staging"
DETAILS = f"Step one: {QUOTE}"
RETIRED = "The deploy checklist has five steps"
FORGOTTEN = "Cache warmup matters for deploys"


def _quoting(root: Path) -> str:
    """A person's memory whose source quotes `QUOTE`: the one forgotten."""
    done = ok(root, "--json", "remember", FORGOTTEN, "--source-quote", QUOTE)
    return done.json()["id"]


def _retire(root: Path, memory_id: str, how: str) -> None:
    if how == "supersede":
        newer = remember(root, "The deploy checklist has six steps")
        ok(root, "supersede", memory_id, newer, "--reason", "a step was added")
    else:
        ok(root, "refute", memory_id, "--reason", "the checklist changed")


def _exported(root: Path, tmp: Path) -> Path:
    out = ok(root, "export", "--include-unreviewed", "--include-superseded").out
    path = tmp / f"{root.name}.jsonl"
    path.write_text(out, encoding="utf-8")
    return path


def _ids(path: Path) -> set[str]:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return {line["id"] for line in lines if "summary" in line}


def _lines(root: Path) -> list[dict[str, object]]:
    """The ledger's lines but the clones' anchors."""
    lines = [json.loads(line) for line in (root / LEDGER).read_text(encoding="utf-8").splitlines()]
    return [line for line in lines if line.get("record") != "anchor"]


def _writable(root: Path, text: str) -> bool:
    done = cli(root, "remember", text)
    assert done.code == 0 or "will not be stored again" in done.err, done.err
    return done.code == 0


@pytest.mark.parametrize("how", ["supersede", "refute"])
def test_an_export_after_the_forget_imports_whole(tmp_path: Path, how: str) -> None:
    root = first_repo(tmp_path, "source")
    forgotten = _quoting(root)
    retired = ok(root, "--json", "remember", RETIRED, "--details", DETAILS).json()["id"]
    _retire(root, retired, how)
    done = ok(root, "--json", "forget", forgotten, "--mode", "delete", "--reason", "gone").json()
    assert done["tombstoned"] is True  # its own claim is kept out

    path = _exported(root, tmp_path)
    assert retired in _ids(path)
    fresh = first_repo(tmp_path, "fresh")
    ok(fresh, "import", str(path), "--restore")
    assert _ids(_exported(fresh, tmp_path)) == _ids(path)
    assert ok(fresh, "--json", "show", retired).json()["memory"]["details"] == DETAILS
    assert not _writable(fresh, FORGOTTEN)  # the forgotten claim itself stays out


def test_a_fresh_clone_keeps_the_retired_line(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    hub(tmp_path, alice)
    forgotten = _quoting(alice)
    retired = ok(alice, "--json", "remember", RETIRED, "--details", DETAILS).json()["id"]
    _retire(alice, retired, "supersede")
    publish(alice, "notes")
    ok(alice, "forget", forgotten, "--mode", "delete", "--reason", "gone")
    publish(alice, "forgot")
    before = _lines(alice)
    assert retired in {line["id"] for line in before if "summary" in line}

    carol = clone(alice, tmp_path, "carol", init=False)
    started = ok(carol, "init")  # builds the store from the ledger
    assert retired not in started.out + started.err, started.out + started.err
    assert ok(carol, "--json", "sync").json()["skipped"] == 0
    assert ok(carol, "--json", "show", retired).json()["memory"]["details"] == DETAILS
    assert _lines(carol) == before


def test_a_person_may_write_the_words_the_retired_memory_holds(tmp_path: Path) -> None:
    root = first_repo(tmp_path, "source")
    forgotten = _quoting(root)
    retired = ok(root, "--json", "remember", RETIRED, "--details", DETAILS).json()["id"]
    _retire(root, retired, "refute")
    ok(root, "forget", forgotten, "--mode", "delete", "--reason", "gone")
    assert _writable(root, QUOTE)


def test_an_agents_retired_note_shields_nothing(tmp_path: Path) -> None:
    root = first_repo(tmp_path, "source")
    forgotten = _quoting(root)

    def agent(*args: str) -> dict[str, object]:
        done = cli(root, "--json", *args, environ=CLAUDE)
        assert done.code == 0, done.err
        return done.json()

    note = agent("remember", RETIRED, "--details", DETAILS, "--scope", "agent")["id"]
    newer = agent("remember", "The deploy checklist has six steps", "--scope", "agent")["id"]
    agent("supersede", str(note), str(newer), "--reason", "a step was added")
    assert ok(root, "--json", "show", str(note)).json()["memory"]["retired_at"] is not None
    ok(root, "forget", forgotten, "--mode", "delete", "--reason", "gone")
    assert not _writable(root, QUOTE)


def _rejected_proposal(root: Path) -> None:
    """An agent proposes `QUOTE` for the project, and a person rejects it."""
    done = cli(root, "--json", "remember", QUOTE, "--scope", "project", environ=CLAUDE)
    assert done.code == 0, done.err
    proposal = done.json()
    assert proposal["trust"] == "pending", proposal
    ok(root, "review", "reject", proposal["id"], "--reason", "not a rule")


@pytest.mark.parametrize("how", ["supersede", "refute"])
def test_a_rejection_refuses_the_claim_but_not_a_retired_record_of_it(
    tmp_path: Path, how: str
) -> None:
    root = first_repo(tmp_path, "source")
    retired = ok(root, "--json", "remember", RETIRED, "--details", DETAILS).json()["id"]
    _retire(root, retired, how)
    _rejected_proposal(root)
    assert not _writable(root, QUOTE)  # the claim stays turned down

    path = _exported(root, tmp_path)
    fresh = first_repo(tmp_path, "fresh")
    ok(fresh, "import", str(path), "--restore")
    assert _ids(_exported(fresh, tmp_path)) == _ids(path)
    assert ok(fresh, "--json", "show", retired).json()["memory"]["details"] == DETAILS
    assert not _writable(fresh, QUOTE)
    live = tmp_path / "live.jsonl"
    line = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert line["id"] == retired
    for field in ("retired_at", "superseded_by", "valid_to"):
        line[field] = None
    line["id"] = "mem_20261206_120000_00000000beef"
    live.write_text(json.dumps(line) + "\n", encoding="utf-8")
    refused = cli(fresh, "import", str(live))
    assert refused.code != 0 and "rejected in review" in refused.err, refused.err


def test_a_fresh_clone_keeps_a_retired_line_a_rejection_quotes(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    hub(tmp_path, alice)
    retired = ok(alice, "--json", "remember", RETIRED, "--details", DETAILS).json()["id"]
    _retire(alice, retired, "supersede")
    _rejected_proposal(alice)
    publish(alice, "notes")
    before = _lines(alice)
    assert retired in {line["id"] for line in before if "summary" in line}

    carol = clone(alice, tmp_path, "carol", init=False)
    started = ok(carol, "init")
    assert retired not in started.out + started.err, started.out + started.err
    assert ok(carol, "--json", "show", retired).json()["memory"]["details"] == DETAILS
    assert not _writable(carol, QUOTE)
    assert _lines(carol) == before


def test_a_forget_takes_an_agents_retired_copy(tmp_path: Path) -> None:
    root = first_repo(tmp_path, "source")
    forgotten = remember(root, QUOTE)

    def agent(*args: str) -> dict[str, object]:
        done = cli(root, "--json", *args, environ=CLAUDE)
        assert done.code == 0, done.err
        return done.json()

    note = str(agent("remember", QUOTE, "--scope", "agent")["id"])
    newer = str(agent("remember", "The deploy checklist has six steps", "--scope", "agent")["id"])
    agent("supersede", note, newer, "--reason", "a step was added")
    proposal = str(agent("remember", QUOTE, "--scope", "project")["id"])
    ok(root, "review", "reject", proposal, "--reason", "a person holds it")
    done = ok(root, "--json", "forget", forgotten, "--mode", "delete", "--reason", "gone").json()
    assert set(done["twins"]) == {note, proposal}
    assert not _writable(root, QUOTE)

    path = _exported(root, tmp_path)
    assert QUOTE not in path.read_text(encoding="utf-8")
    fresh = first_repo(tmp_path, "fresh")
    ok(fresh, "import", str(path), "--restore")
    assert _ids(_exported(fresh, tmp_path)) == _ids(path) == {newer}
