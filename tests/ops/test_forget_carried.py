"""A forget reaches what other rows carry beside their claims.

A row's review reason and reviewer, origin session, source type,
supersession ids and link targets, and the paths of the files it is about,
are shown, exported and written to the team ledger as they stand. When they
quote a memory that is forgotten after the row was stored, the forget
withholds the words there: the row stays, its other fields as they were,
the audit log names its new state, and neither the store's files nor the
ledger hold the words. A teammate's line that still quotes them is not
taken by a sync, and a merge of ledgers withholds them as the clone that
forgot does. What the person forgot in their user store hides a project's
row that carries the words, as it hides one that says them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import CliRunner
from governance_support import CLAUDE
from team_support import (
    LEDGER,
    cli,
    clone,
    commit,
    first_repo,
    hub,
    ok,
    publish,
    pull,
    remember,
)

from tree_ring.model.text import WITHHELD_FORGOTTEN, WITHHELD_ID
from tree_ring.store import tombstones
from tree_ring.team import ledger
from tree_ring.team.ledger import Line

FORGOTTEN = "The payments worker drains the refund queue every night at two"
WORDS = "refund queue"
HYPHENED = "-".join(FORGOTTEN.lower().split())
OTHER = "mem_20261206_110000_00000000abcd"
KEPT = "mem_20261206_110001_00000000abcd"
FRESH = "mem_20261206_110002_00000000abcd"
SUMMARY = "Deploy notes for the lint settings live in the runbook"


def _project(root: Path) -> str:
    return json.loads((root / ".tree-ring" / "project.json").read_text())["project_id"]


def _import(root: Path, tmp: Path, **fields: Any) -> None:
    rows = [
        {"id": OTHER, "project": _project(root), "summary": SUMMARY, **fields},
        {"id": KEPT, "project": _project(root), "summary": "A kept note about the lint settings"},
    ]
    path = tmp / "rows.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    ok(root, "import", str(path), "--restore")


def _held(root: Path) -> set[str]:
    """The project's files holding the words: the ledger, the store's files."""
    files = [root / LEDGER, *(root / ".tree-ring").glob("memory.sqlite*")]
    return {p.name for p in files if p.is_file() and WORDS.encode() in p.read_bytes()}


def _shown(root: Path, memory_id: str) -> dict[str, Any]:
    return ok(root, "--json", "show", memory_id).json()["memory"]


# (place, the row's fields, where the place is read in `show --json`, what it reads after)
PLACES = [
    (
        "review reason",
        {"trust": "accepted", "review": {"review_reason": f"FYI: {FORGOTTEN}, as said"}},
        ("review", "review_reason"),
        f"FYI: {WITHHELD_FORGOTTEN}, as said",
    ),
    (
        "reviewer",
        {"trust": "accepted", "review": {"reviewed_by": HYPHENED}},
        ("review", "reviewed_by"),
        WITHHELD_FORGOTTEN,
    ),
    ("origin session", {"origin_session": HYPHENED}, ("origin_session",), WITHHELD_FORGOTTEN),
    ("source type", {"source": {"type": FORGOTTEN}}, ("source", "type"), WITHHELD_FORGOTTEN),
    (
        "link target",
        {"links": [{"type": "related", "target": f"see {FORGOTTEN}"}]},
        ("links", 0, "target"),
        f"see {WITHHELD_FORGOTTEN}",
    ),
    ("supersedes", {"supersedes": [f"mem_{HYPHENED}"]}, ("supersedes", 0), WITHHELD_ID),
]


def _at(value: Any, path: tuple[str | int, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


@pytest.mark.parametrize(("place", "fields", "path", "after"), PLACES)
def test_a_forget_withholds_its_words_from_what_another_row_carries(
    tmp_path: Path, place: str, fields: dict[str, Any], path: tuple[str | int, ...], after: str
) -> None:
    root = first_repo(tmp_path)
    forgotten = remember(root, FORGOTTEN)
    _import(root, tmp_path, **fields)
    before = _shown(root, OTHER)
    assert WORDS in json.dumps(_at(before, path)).replace("-", " ").lower()
    done = cli(root, "forget", forgotten, "--mode", "delete", "--reason", "gone")
    assert done.code == 0, done.err
    shown = _shown(root, OTHER)
    assert _at(shown, path) == after, place
    # Nothing else of the row moved.
    drop = {path[0], "updated_at"}
    assert {k: v for k, v in shown.items() if k not in drop} == {
        k: v for k, v in before.items() if k not in drop
    }
    assert _held(root) == set()
    assert WORDS not in ok(root, "export", "--include-unreviewed").out
    verified = cli(root, "audit", "verify")
    assert verified.code == 0, verified.out + verified.err
    entries = ok(root, "--json", "audit", "--target", forgotten).json()["items"]
    assert [e["detail"].get("withheld") for e in entries if e["action"] == "forget"] == [[OTHER]]
    assert cli(root, "doctor").code == 0


def test_a_forget_that_touches_nothing_carried_leaves_every_row_as_it_was(
    tmp_path: Path,
) -> None:
    root = first_repo(tmp_path)
    forgotten = remember(root, FORGOTTEN)
    _import(root, tmp_path, origin_session="the lint settings moved to the new cluster")
    before = {i: _shown(root, i) for i in (OTHER, KEPT)}
    ok(root, "forget", forgotten, "--mode", "delete", "--reason", "gone")
    assert {i: _shown(root, i) for i in (OTHER, KEPT)} == before
    entries = ok(root, "--json", "audit", "--target", forgotten).json()["items"]
    assert [e["detail"].get("withheld") for e in entries if e["action"] == "forget"] == [None]


def test_a_redaction_withholds_what_its_own_row_carries(tmp_path: Path) -> None:
    """A redacted row keeps its review reason, reviewer and session: a
    reason that quoted its own summary must not keep the summary."""
    root = first_repo(tmp_path)
    fields = {"trust": "accepted", "review": {"review_reason": f"kept: {FORGOTTEN}"}}
    rows = [{"id": OTHER, "project": _project(root), "summary": FORGOTTEN, **fields}]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    ok(root, "import", str(path), "--restore")
    ok(root, "forget", OTHER, "--mode", "redact", "--reason", "gone")
    assert _shown(root, OTHER)["review"]["review_reason"] == f"kept: {WITHHELD_FORGOTTEN}"
    assert _held(root) == set()


def test_a_forget_unanchors_a_file_whose_path_quotes_its_words(tmp_path: Path) -> None:
    root = first_repo(tmp_path)
    name = "docs/" + "_".join(FORGOTTEN.split()) + ".md"
    (root / "docs").mkdir()
    (root / name).write_text("notes\n", encoding="utf-8")
    (root / "docs" / "runbook.md").write_text("runbook\n", encoding="utf-8")
    anchored = ok(
        root, "--json", "remember", SUMMARY, "--file", name, "--file", "docs/runbook.md"
    ).json()["id"]
    forgotten = remember(root, FORGOTTEN)
    assert WORDS.replace(" ", "_") in (root / LEDGER).read_text(encoding="utf-8")
    ok(root, "forget", forgotten, "--mode", "delete", "--reason", "gone")
    files = {a["path"] for a in ok(root, "--json", "show", anchored).json()["anchors"]}
    assert files == {"docs/runbook.md"}
    text = (root / LEDGER).read_text(encoding="utf-8")
    assert WORDS.replace(" ", "_") not in text and "docs/runbook.md" in text


def test_a_sync_takes_no_line_naming_a_file_whose_path_quotes_forgotten_words(
    tmp_path: Path,
) -> None:
    alice = first_repo(tmp_path)
    hub(tmp_path, alice)
    bob = clone(alice, tmp_path, "bob")
    ok(bob, "forget", remember(bob, FORGOTTEN), "--mode", "delete", "--reason", "gone")
    commit(bob, "forgot")
    name = "docs/" + "_".join(FORGOTTEN.split()) + ".md"
    (alice / "docs").mkdir()
    (alice / name).write_text("notes\n", encoding="utf-8")
    quoting = ok(alice, "--json", "remember", SUMMARY, "--file", name).json()["id"]
    kept = remember(alice, "The lint settings live in pyproject.toml")
    publish(alice, "anchored")
    pull(bob)
    synced = cli(bob, "sync")
    assert synced.code == 0, synced.err
    named = [line.strip() for line in synced.out.splitlines() if quoting in line]
    assert len(named) == 1 and "files[].path holds content" in named[0], synced.out
    ids = {item["id"] for item in ok(bob, "--json", "list").json()["items"]}
    assert ids == {kept}
    held = [bob / LEDGER, *(bob / ".tree-ring").glob("memory.sqlite*")]
    assert [p.name for p in held if WORDS.replace(" ", "_").encode() in p.read_bytes()] == []


def _key(claim: str) -> str:
    return tombstones.claim_key(tombstones.claim_text(claim))


ROW = {
    "record": "memory",
    "id": OTHER,
    "valid_from": "2026-01-01T00:00:00.000000Z",
    "updated_at": "2026-01-02T00:00:00.000000Z",
    "summary": SUMMARY,
}
STONE = {
    "record": "tombstone",
    "id": KEPT,
    "at": "2026-01-03T00:00:00.000000Z",
    "hashes": [_key(FORGOTTEN)],
    "kind": "forgotten",
}
FILE = {"blob": "0" * 40, "commit": "0" * 40, "at": "2026-01-01T00:00:00.000000Z"}
REASON, GONE = f"FYI {FORGOTTEN}", f"FYI {WITHHELD_FORGOTTEN}"
QUOTED, KEEP = {"path": f"docs/{HYPHENED}.md", **FILE}, {"path": "a.md", **FILE}
# (a memory line's fields quoting the words, the same withheld as a clone that forgot writes them)
LINES = [
    ({"review": {"review_reason": REASON}}, {"review": {"review_reason": GONE}}),
    ({"review": {"reviewed_by": HYPHENED}}, {"review": {"reviewed_by": WITHHELD_FORGOTTEN}}),
    ({"origin_session": HYPHENED}, {"origin_session": WITHHELD_FORGOTTEN}),
    ({"source": {"type": FORGOTTEN}}, {"source": {"type": WITHHELD_FORGOTTEN}}),
    ({"links": [{"type": "related", "target": REASON}]},
     {"links": [{"type": "related", "target": GONE}]}),
    ({"supersedes": [f"mem_{HYPHENED}", KEPT]}, {"supersedes": [WITHHELD_ID, KEPT]}),
    ({"superseded_by": f"mem_{HYPHENED}"}, {"superseded_by": WITHHELD_ID}),
    ({"files": [QUOTED, KEEP]}, {"files": [KEEP]}),
    ({"files": [QUOTED]}, {}),
]  # fmt: skip


def _text(*datas: dict[str, Any]) -> bytes:
    return "".join(json.dumps(d) + "\n" for d in datas).encode()


@pytest.mark.parametrize(("quoting", "withheld"), LINES)
def test_a_merge_withholds_what_a_memory_line_carries_of_a_merged_tombstone(
    quoting: dict[str, Any], withheld: dict[str, Any]
) -> None:
    words = {**ROW, **quoting}
    out = ledger.merge_texts(_text(words), _text(STONE))
    assert out == ledger.merge_texts(_text(STONE), _text(words))
    lines = {d["record"]: d for d in map(json.loads, out.splitlines())}
    assert lines["memory"] == {**ROW, **withheld}
    # Without the tombstone, the line stands as it was written.
    [alone] = map(json.loads, ledger.merge_texts(_text(words)).splitlines())
    assert alone == words


@pytest.mark.parametrize(("quoting", "withheld"), LINES[:7])
def test_the_withheld_line_wins_over_the_one_with_the_words_whatever_their_lengths(
    quoting: dict[str, Any], withheld: dict[str, Any]
) -> None:
    words, held = Line({**ROW, **quoting}), Line({**ROW, **withheld})
    for pair in ((words, held), (held, words)):
        [won] = ledger.merge(pair).values()
        assert won is held


def test_a_user_store_forget_hides_a_project_row_that_carries_its_words(tmp_path: Path) -> None:
    environ = {"TREE_RING_USER_HOME": str(tmp_path / "user")}
    root = first_repo(tmp_path)

    def run(*args: str) -> Any:
        done = cli(root, *args, environ=environ)
        assert done.code == 0, done.err
        return done

    note = run("--json", "remember", FORGOTTEN, "--scope", "global").json()["id"]
    _import(root, tmp_path, origin_session=HYPHENED)
    assert OTHER in {i["id"] for i in run("--json", "list").json()["items"]}
    run("forget", note, "--user", "--mode", "delete", "--reason", "gone")
    assert {i["id"] for i in run("--json", "list").json()["items"]} == {KEPT}
    hits = run("--json", "recall", "deploy notes lint settings runbook").json()["items"]
    assert OTHER not in {h["id"] for h in hits} and hits
    assert WORDS not in run("export", "--include-unreviewed").out.replace("-", " ")
    assert cli(root, "show", OTHER, environ=environ).code != 0


def test_an_agents_withdrawal_leaves_what_a_persons_row_carries(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    """An agent's forget of its own note binds agents only: it cannot be
    used to rewrite a person's rows."""
    reason = {"trust": "accepted", "review": {"review_reason": f"FYI {FORGOTTEN}"}}
    rows = [{"id": OTHER, "project": _project(project_root), "summary": SUMMARY, **reason}]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    assert run_cli("import", str(path), "--restore").code == 0
    wrote = run_cli("--json", "remember", FORGOTTEN, "--scope", "agent", environ=CLAUDE)
    assert wrote.code == 0, wrote.err
    done = run_cli("--json", "forget", wrote.json()["id"], "--mode", "delete", "--reason", "x",
                   environ=CLAUDE)  # fmt: skip
    assert done.code == 0 and done.json()["withdrawn"] is True, done.err
    shown = run_cli("--json", "show", OTHER).json()["memory"]
    assert shown["review"]["review_reason"] == f"FYI {FORGOTTEN}"


def test_a_sync_takes_no_claim_naming_a_file_whose_path_quotes_forgotten_words(
    tmp_path: Path,
) -> None:
    """A line written into the working tree's ledger is a claim a person
    decides on; one naming such a file is not taken as one."""
    root = first_repo(tmp_path)
    ok(root, "forget", remember(root, FORGOTTEN), "--mode", "delete", "--reason", "gone")
    (root / "docs").mkdir()
    (root / "docs" / "runbook.md").write_text("runbook\n", encoding="utf-8")
    made = ok(root, "--json", "remember", SUMMARY, "--file", "docs/runbook.md").json()["id"]
    ledger_path = root / LEDGER
    [line] = [json.loads(t) for t in ledger_path.read_text().splitlines() if made in t]
    claim = {**line, "id": OTHER, "summary": "A claimed note about the lint settings"}
    claim["files"] = [{**line["files"][0], "path": "docs/" + "_".join(FORGOTTEN.split()) + ".md"}]
    with ledger_path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(claim, sort_keys=True) + "\n")
    synced = cli(root, "sync")
    assert synced.code == 0, synced.err
    named = [text.strip() for text in synced.out.splitlines() if OTHER in text]
    assert len(named) == 1 and "files[].path holds content" in named[0], synced.out
    listed = ok(root, "--json", "list", "--include-unreviewed").json()["items"]
    assert {item["id"] for item in listed} == {made}


SHORT = "Use tabs"


@pytest.mark.parametrize("said", ["Note: use tabs.", "Use tabs (confirmed)", "FYI - use-tabs"])
@pytest.mark.parametrize(
    ("fields", "path"),
    [
        ({"review": {"reviewed_by": "{}"}, "trust": "accepted"}, ("review", "reviewed_by")),
        ({"origin_session": "{}"}, ("origin_session",)),
        ({"source": {"type": "{}"}}, ("source", "type")),
    ],
)
def test_a_short_claim_with_what_annotates_it_is_withheld_whole(
    tmp_path: Path, said: str, fields: dict[str, Any], path: tuple[str, ...]
) -> None:
    root = first_repo(tmp_path)
    forgotten = remember(root, SHORT)
    _import(root, tmp_path, **json.loads(json.dumps(fields).replace("{}", said)))
    ok(root, "forget", forgotten, "--mode", "delete", "--reason", "gone")
    assert _at(_shown(root, OTHER), path) == WITHHELD_FORGOTTEN


PATHS = ["docs/use-tabs.md", "use_tabs.md", "use tabs/x.md", "Note/use tabs.md", "docs/USE TABS"]


@pytest.mark.parametrize("name", PATHS)
def test_a_forget_unanchors_a_file_whose_folder_or_name_is_a_short_claim(
    tmp_path: Path, name: str
) -> None:
    root = first_repo(tmp_path)
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_text("notes\n", encoding="utf-8")
    (root / "kept.md").write_text("kept\n", encoding="utf-8")
    anchored = ok(root, "--json", "remember", SUMMARY, "--file", name, "--file", "kept.md")
    forgotten = remember(root, SHORT)
    ok(root, "forget", forgotten, "--mode", "delete", "--reason", "gone")
    shown = ok(root, "--json", "show", anchored.json()["id"]).json()["anchors"]
    assert {a["path"] for a in shown} == {"kept.md"}


@pytest.mark.parametrize(
    ("claim", "name"),
    [(SHORT, p) for p in PATHS]
    + [(FORGOTTEN, "docs/" + FORGOTTEN + ".rst"), (FORGOTTEN, "_".join(FORGOTTEN.split()))],
)
@pytest.mark.parametrize("environ", [{}, CLAUDE])
def test_a_write_about_a_file_whose_path_quotes_forgotten_words_is_refused(
    tmp_path: Path, claim: str, name: str, environ: dict[str, str]
) -> None:
    root = first_repo(tmp_path)
    ok(root, "forget", remember(root, claim), "--mode", "delete", "--reason", "gone")
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_text("notes\n", encoding="utf-8")
    before = (root / LEDGER).read_bytes()
    done = cli(root, "remember", SUMMARY, "--file", name, environ=environ)
    assert done.code != 0
    assert done.err.strip().splitlines() == [
        "error: files[].path holds content that was forgotten here, and would keep it in "
        "the store and the team ledger; name no file whose path says them"
    ]
    assert ok(root, "--json", "list").json()["items"] == []
    assert (root / LEDGER).read_bytes() == before
    # The same note about another file is stored.
    (root / "other.md").write_text("other\n", encoding="utf-8")
    assert cli(root, "remember", SUMMARY, "--file", "other.md", environ=environ).code == 0


IDS = [
    ({"links": [{"type": "related", "target": "mem_use-tabs"}]}, ("links", 0, "target")),
    ({"supersedes": ["mem_Use_Tabs"]}, ("supersedes", 0)),
    ({"superseded_by": "mem_use.tabs"}, ("superseded_by",)),
]


@pytest.mark.parametrize(("fields", "path"), IDS)
def test_an_id_a_file_chose_from_a_short_claims_words_is_withheld(
    tmp_path: Path, fields: dict[str, Any], path: tuple[str | int, ...]
) -> None:
    """`mem_` is an id's form, not a word: "mem_use-tabs" says "use tabs"."""
    root = first_repo(tmp_path)
    forgotten = remember(root, SHORT)
    _import(root, tmp_path, **fields)
    ok(root, "forget", forgotten, "--mode", "delete", "--reason", "gone")
    assert _at(_shown(root, OTHER), path) == WITHHELD_ID
    again = {"id": FRESH, "project": _project(root), "summary": SUMMARY, **fields}
    rows = tmp_path / "again.jsonl"
    rows.write_text(json.dumps(again) + "\n", encoding="utf-8")
    refused = cli(root, "import", str(rows), "--restore")
    assert refused.code != 0 and "holds content that was forgotten here" in refused.err


@pytest.mark.parametrize("chosen", ["mem_use-tabs", "mem_Use_Tabs", "mem_note-use-tabs"])
def test_a_row_whose_id_a_file_chose_from_forgotten_words_is_refused(
    tmp_path: Path, chosen: str
) -> None:
    root = first_repo(tmp_path)
    ok(root, "forget", remember(root, SHORT), "--mode", "delete", "--reason", "gone")
    rows = tmp_path / "rows.jsonl"
    row = {"id": chosen, "project": _project(root), "summary": SUMMARY}
    rows.write_text(json.dumps(row) + "\n", encoding="utf-8")
    refused = cli(root, "import", str(rows))
    assert refused.code != 0
    assert "id holds content that was forgotten here" in refused.err
    assert ok(root, "--json", "list").json()["items"] == []
