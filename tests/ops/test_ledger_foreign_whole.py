"""A record this version does not know is read whole before it is carried:
every key and string in the order the line writes them, spaced and glued,
and glued from each string's start, so a secret split over three strings,
around another string, or between a key and its value is refused and
named; ordinary records of several strings are still carried, and a record
past the bound on its strings is not read whole and not carried."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from team_support import LEDGER, cli, first_repo, hub, publish, remember

from tree_ring.model import project
from tree_ring.store.db import Store
from tree_ring.team import ledger, sync

# Assembled, so no scanner of this repository mistakes the test values for keys.
GITHUB = "ghp_" + "R8x2mQ7pL4vN9kT3wZ6yB1cF5hJ0dS2gA8eU"
AWS = "AKIA" + "Q3EGRIXS5KDJ7VNP"

THREE_STRINGS = json.dumps(
    {"record": "m5", "a": GITHUB[:11], "b": GITHUB[11:24], "c": GITHUB[24:]},
    separators=(",", ":"),
).encode()
AROUND_ANOTHER = json.dumps(
    {"record": "m5", "a": GITHUB[:18], "z": "unrelated", "b": GITHUB[18:]},
    separators=(",", ":"),
).encode()
KEY_AND_VALUE = json.dumps(
    {"record": "m5", GITHUB[:18]: GITHUB[18:]}, separators=(",", ":")
).encode()
# A token of a fixed length split over three values, a key between each two.
FIXED_LENGTH = json.dumps(
    {"record": "m5", "a": AWS[:8], "b": AWS[8:14], "c": AWS[14:]}, separators=(",", ":")
).encode()

# Ordinary records of a newer version, several harmless strings each.
CHECKLIST = json.dumps(
    {
        "record": "checklist",
        "at": "2026-12-05T00:00:00Z",
        "items": ["Reset the admin password", "Confirm MFA on the new laptop", "Ping #ops"],
        "by": "alice",
    },
    separators=(",", ":"),
).encode()
BUILD = json.dumps(
    {
        "record": "build_recipe",
        "steps": ["npm ci", "npm run build", "npm test"],
        "env": {"NODE_ENV": "production", "CI": "true"},
        "hashes": ["ab12cd34ef56ab12cd34", "ef56ab12cd34ef56ab12"],
    },
    separators=(",", ":"),
).encode()
# Two unrelated fields that, read as one sentence, say "the staging password
# is kept in ...": words that follow a password only by accident of order.
ACCIDENT = json.dumps(
    {
        "record": "note_pair",
        "left": "Where the staging password is",
        "right": "kept in 1Password under Staging",
        "ids": ["sk", "live", "2026", "release"],
    },
    separators=(",", ":"),
).encode()


def _why(raw: bytes) -> str | None:
    text = raw.decode()
    return ledger.withheld(text, json.loads(text))


def test_a_secret_split_three_ways_is_refused_and_named_by_place() -> None:
    said = {raw: _why(raw) for raw in (THREE_STRINGS, AROUND_ANOTHER, KEY_AND_VALUE, FIXED_LENGTH)}
    secret = "holds what looks like a secret (rule {}, in its {})"
    assert said == {
        THREE_STRINGS: secret.format("github-token", "strings 4 to 8 glued"),
        AROUND_ANOTHER: secret.format("github-token", "strings 4 to 8 glued"),
        KEY_AND_VALUE: secret.format("github-token", "strings 3 to 4 glued"),
        FIXED_LENGTH: secret.format("aws-access-key", "values 2 to 4 glued"),
    }
    assert not any(ledger.carries(raw) for raw in said)


def test_ordinary_records_and_accidental_sentences_are_carried() -> None:
    assert {raw: _why(raw) for raw in (CHECKLIST, BUILD, ACCIDENT)} == dict.fromkeys(
        (CHECKLIST, BUILD, ACCIDENT)
    )
    assert all(ledger.carries(raw) for raw in (CHECKLIST, BUILD, ACCIDENT))


def test_a_record_past_the_bound_is_not_read_whole_and_not_carried() -> None:
    # "record", "m5" and "items" count among the strings.
    many = {"record": "m5", "items": ["ab"] * (ledger.MOST_STRINGS - 2)}
    long = {"record": "m5", "text": "word " * (ledger.MOST_STRING_CHARS // 5 + 1)}
    within = {"record": "m5", "items": ["ab"] * (ledger.MOST_STRINGS - 3)}
    assert _why(json.dumps(many).encode()) == (
        "holds 201 strings of 409 characters, more than the guard reads whole "
        "(200 strings, 48,000 characters)"
    )
    assert _why(json.dumps(long).encode()) == (
        "holds 4 strings of 48,017 characters, more than the guard reads whole "
        "(200 strings, 48,000 characters)"
    )
    assert _why(json.dumps(within).encode()) is None


def test_sync_drops_each_split_secret_and_a_write_commits_none(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    remember(alice, "The base note before a teammate's newer lines")
    count = len((alice / LEDGER).read_bytes().split(b"\n")) - 1
    added = [THREE_STRINGS, AROUND_ANOTHER, KEY_AND_VALUE, CHECKLIST]
    hub(tmp_path, alice)
    with (alice / LEDGER).open("ab") as handle:
        handle.write(b"".join(raw + b"\n" for raw in added))
    publish(alice, "a teammate's newer lines")  # the upstream's: a claim's would be left out

    done = cli(alice, "--json", "sync")
    assert done.code == 0, done.err
    reasons = {item["line"]: item["reason"] for item in done.json()["items"]}
    assert reasons == {
        count + 1: "a record this version does not know holds what looks like a secret "
        "(rule github-token, in its strings 4 to 8 glued); left out of the ledger",
        count + 2: "a record this version does not know holds what looks like a secret "
        "(rule github-token, in its strings 4 to 8 glued); left out of the ledger",
        count + 3: "a record this version does not know holds what looks like a secret "
        "(rule github-token, in its strings 3 to 4 glued); left out of the ledger",
    }
    assert done.json()["notes"] == [
        "1 line(s) of records this version does not know kept as they stand "
        f"(line {count + 4}: unknown record 'checklist')"
    ]
    for piece in (GITHUB[:11], GITHUB[11:24], GITHUB[24:], GITHUB[:18], GITHUB[18:]):
        assert piece not in done.out and piece not in done.err

    remember(alice, "A person's note written after the teammate's lines")
    written = (alice / LEDGER).read_bytes()
    assert [raw for raw in added if raw in written] == [CHECKLIST]
    assert GITHUB[:11].encode() not in written and GITHUB[18:].encode() not in written


def test_an_import_reads_no_unknown_record_and_a_rewrite_reads_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The SessionStart hook's import takes nothing from a record this version
    does not know, so the guard does not read one there: many costly lines
    cost the hook nothing. A write that rewrites the ledger reads each before
    it carries it, and drops the one that holds a secret."""
    alice = first_repo(tmp_path)
    hub(tmp_path, alice)
    remember(alice, "The base note before a teammate's newer lines")
    with (alice / LEDGER).open("ab") as handle:
        handle.write(THREE_STRINGS + b"\n" + CHECKLIST + b"\n")
    publish(alice, "a teammate's newer lines")
    read: list[str] = []
    real = ledger.withheld

    def watched(text: str, data: Any) -> str | None:
        read.append(text)
        return real(text, data)

    monkeypatch.setattr(ledger, "withheld", watched)
    with Store.open(alice) as store:
        report = sync.refresh(store, alice, project.load_project_id(alice))
    assert report is not None and read == []
    assert cli(alice, "sync").code == 0
    assert {json.loads(text)["record"] for text in read} == {"m5", "checklist"}
    written = (alice / LEDGER).read_bytes()
    assert CHECKLIST in written and THREE_STRINGS not in written
