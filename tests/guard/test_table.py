"""The guard's rule table is checked here, once, rather than on every import
(the SessionStart hook imports the guard on every call)."""

from __future__ import annotations

import pytest

from tree_ring.guard.table import RULES, term_problem

WORD_TERMS = [(rule.name, term) for rule in RULES if rule.view == "words" for term in rule.terms]


def test_the_table_has_word_rules() -> None:
    assert len(WORD_TERMS) > 100


@pytest.mark.parametrize(("name", "term"), WORD_TERMS, ids=[f"{n}:{t!r}" for n, t in WORD_TERMS])
def test_every_words_term_can_join_the_shared_scanner(name: str, term: bytes) -> None:
    assert term_problem(term) is None, name


@pytest.mark.parametrize(
    ("term", "problem"),
    [
        (b"pass(word)?", "must be one group-free alternative"),
        (b"ssn|social", "must be one group-free alternative"),
        (b"Salary", "must start with a plain letter"),
        (b"a?ccount", "must start with a plain letter"),
        (b"(?:x)y", "must start with a plain letter"),
        (b"medical(?: record)", None),
        (b"diagnos[a-z]*", None),
        (b"blood (?:type|group)", None),
    ],
)
def test_term_problem_says_what_is_wrong(term: bytes, problem: str | None) -> None:
    assert term_problem(term) == problem


def test_a_familys_rules_sit_together() -> None:
    """The first rule that matches names a refusal, so whichever pattern of a
    family matched, the name is the same only if its rules are adjacent."""
    families = [
        rule.name for i, rule in enumerate(RULES) if not i or RULES[i - 1].name != rule.name
    ]
    assert len(set(families)) == len(families)
    assert len(families) < len(RULES)  # some families do have several rules
