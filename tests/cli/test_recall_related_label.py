"""How a recall line says a memory was found: by the question's words (no
mark), near it in meaning (`; near in meaning`), or through related words
alone (`; related words`, `"literal": false`); and the README's rule that
no memory marked as found through related words ranks above one that holds
the question's words or is near it in meaning."""

from __future__ import annotations

import pytest
from conftest import CliRunner

from tree_ring.cli.read import UNWORDED

NOTES = (
    "We use PostgreSQL 15 for orders and payments",
    "API responses must stay under 200 ms at p95",
    "The checkout page broke in production when we cached prices in Redis without a TTL",
    "Stripe webhooks are verified with the signing secret from the vault",
    "Deploys freeze on Fridays after the release branch is cut",
)
QUESTIONS = ("stripe", "latency budget", "what broke in prod", "payments", "slow responses")


@pytest.mark.parametrize("question", QUESTIONS)
def test_no_hit_marked_related_ranks_above_one_found_otherwise(
    run_cli: CliRunner, question: str
) -> None:
    for note in NOTES:
        assert run_cli("remember", note).code == 0
    lines = [line for line in run_cli("recall", question).out.splitlines() if line != UNWORDED]
    items = run_cli("--json", "recall", question).json()["items"]
    assert len(lines) == len(items) > 0
    marks = [line.endswith("; related words)") for line in lines]
    assert marks == [not item["literal"] for item in items]
    if not all(marks):
        # Every line marked related comes after every line that is not.
        assert marks == sorted(marks)


def test_a_hit_found_through_related_words_alone_is_marked(run_cli: CliRunner) -> None:
    for note in NOTES:
        assert run_cli("remember", note).code == 0
    said = run_cli("recall", "slow responses").out.splitlines()
    assert "API responses must stay under 200 ms" in said[0]
    assert not said[0].endswith("; related words)")
    assert any("Redis" in line and line.endswith("; related words)") for line in said[1:])


def test_a_hit_near_in_meaning_says_so_though_related_words_found_it(
    run_cli: CliRunner,
) -> None:
    """The payments note holds "payments", a word related to "stripe", and
    is near the question in meaning: it ranks with the question's words, and
    its line says why, not "related words" (which would rank below them)."""
    for note in NOTES:
        assert run_cli("remember", note).code == 0
    said = run_cli("recall", "stripe").out.splitlines()
    assert "Stripe webhooks" in said[0] and not said[0].endswith(("words)", "meaning)"))
    [payments] = [line for line in said if "payments" in line]
    assert payments.endswith("; near in meaning)")


@pytest.mark.parametrize(
    ("question", "worded"),
    [
        ("stripe", True),  # its own word, and related ones beside it
        ("slow responses", True),
        ("who is on call this week", False),  # no note holds a word of it
        ("what cloud region hosts us", None),
        ("the caching bug", None),
        ("which weekday is risky", None),
    ],
)
def test_a_recall_no_hit_of_which_holds_the_words_says_so_last(
    run_cli: CliRunner, question: str, worded: bool | None
) -> None:
    """The last line says so exactly when every line above it is marked
    (`worded` None: whichever the question finds)."""
    for note in NOTES:
        assert run_cli("remember", note).code == 0
    lines = run_cli("recall", question).out.splitlines()
    hits = [line for line in lines if line.startswith("mem_")]
    assert hits and lines[: len(hits)] == hits
    marked = all(line.endswith(("; related words)", "; near in meaning)")) for line in hits)
    assert lines[len(hits) :] == ([UNWORDED] if marked else [])
    if worded is not None:
        assert marked is not worded
