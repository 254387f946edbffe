"""A forgotten claim split between any two of the fields a brief shows as
one line (summary, details, source quote, source ref, tags) is refused, by a
person and by an agent: it was stored when split across the source ref or a
tag, and the brief then showed it whole (`"Never run ..." (...; source: "on
the primary ...")`). Notes that only share a field's words are stored.
"""

from __future__ import annotations

import itertools

import pytest
from forgetting_support import forgotten, listed
from helpers import CliRunner

CLAIM = "Never run database migrations directly on the primary during business hours"
HEAD, TAIL = "Never run database migrations directly", "on the primary during business hours"
AGENT = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "7f3c2a91"}
FLAGS = {
    "details": "--details",
    "quote": "--source-quote",
    "ref": "--source-ref",
    "tag": "--tag",
}


@pytest.mark.parametrize("who", ["person", "agent"])
@pytest.mark.parametrize("field", FLAGS)
def test_a_claim_split_between_the_summary_and_a_field_is_refused(
    run_cli: CliRunner, field: str, who: str
) -> None:
    forgotten(run_cli, CLAIM)
    environ = AGENT if who == "agent" else None
    for summary, other in ((HEAD, TAIL), (TAIL, HEAD)):
        done = run_cli("remember", summary, FLAGS[field], other, environ=environ)
        assert done.code != 0, (field, summary)
        assert "this content was forgotten" in done.err
    assert listed(run_cli) == 0


@pytest.mark.parametrize(
    ("first", "then"), list(itertools.permutations(["quote", "ref", "tag"], 2))
)
def test_a_claim_split_between_two_other_fields_is_refused(
    run_cli: CliRunner, first: str, then: str
) -> None:
    forgotten(run_cli, CLAIM)
    done = run_cli("remember", "A note on deploys", FLAGS[first], HEAD, FLAGS[then], TAIL)
    assert done.code != 0, (first, then)
    assert "this content was forgotten" in done.err
    assert listed(run_cli) == 0


# The claim in three parts, the middle one a sentence of its own field.
THIRDS = ("Never run database migrations", "directly on the primary", "during business hours")


@pytest.mark.parametrize("who", ["person", "agent"])
@pytest.mark.parametrize(
    "fields", list(itertools.permutations(["summary", *FLAGS], 3)), ids=lambda f: "-".join(f)
)
def test_a_claim_split_across_three_fields_is_refused(
    run_cli: CliRunner, fields: tuple[str, ...], who: str
) -> None:
    forgotten(run_cli, CLAIM)
    given = dict(zip(fields, THIRDS, strict=True))
    # The summary's other sentences, before the split or after it; other words
    # when the split leaves the summary out.
    summary = (
        {0: "Unrelated start. {}", 1: "{}", 2: "{}. Unrelated end."}[
            fields.index("summary")
        ].format(given.pop("summary"))
        if "summary" in given
        else "A note"
    )
    args = [summary, *(a for field, text in given.items() for a in (FLAGS[field], text))]
    done = run_cli("remember", *args, environ=AGENT if who == "agent" else None)
    assert done.code != 0, fields
    assert "this content was forgotten" in done.err
    assert listed(run_cli) == 0


@pytest.mark.parametrize("who", ["person", "agent"])
def test_a_claim_split_across_three_fields_with_framing_words_is_refused(
    run_cli: CliRunner, who: str
) -> None:
    forgotten(run_cli, CLAIM)
    first, middle, last = THIRDS
    done = run_cli(
        "remember", f"So {first.lower()}", "--details", middle, "--source-quote",
        f"{last}, as before", environ=AGENT if who == "agent" else None,
    )  # fmt: skip
    assert done.code != 0 and "this content was forgotten" in done.err, done.err
    assert listed(run_cli) == 0


def test_notes_sharing_only_some_words_are_stored(run_cli: CliRunner) -> None:
    forgotten(run_cli, CLAIM)
    for args in (
        (HEAD, "--source-ref", "docs/migrations.md"),
        ("Migrations run from the release pipeline", "--tag", "primary during business hours"),
        (HEAD + " from a laptop", "--tag", "ops"),
    ):
        done = run_cli("remember", *args)
        assert done.code == 0, (args, done.err)
    assert listed(run_cli) == 3
