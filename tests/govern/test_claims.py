"""What a statement is reduced to before two are compared: its content words,
its settings, and which way it points."""

from __future__ import annotations

import pytest

from tree_ring.govern import contradictions
from tree_ring.govern.contradictions import claim


@pytest.mark.parametrize(
    ("text", "words", "values", "negated"),
    [
        # A number with a unit, a version, a time of day: a setting, cue or not.
        ("Request timeout 30s", {"request", "timeout"}, {"30s"}, False),
        ("Use Python 3.11", {"use", "python"}, {"3.11"}, False),
        ("Standup at 9:30", {"standup"}, {"9:30"}, False),
        # A bare number is a setting only after `=`, `:` or a cue word.
        ("max_connections=100", {"max_connection"}, {"100"}, False),
        ("retry limit: 5", {"retry", "limit"}, {"5"}, False),
        ("Set the limit to 5", {"set", "limit"}, {"5"}, False),
        ("Fix for issue 123", {"fix", "issue", "123"}, set(), False),
        # Polarity: negations and opposites, counted; opposites share one word.
        ("Disable the build cache", {"enable", "build", "cache"}, set(), True),
        ("Do not disable the cache", {"enable", "cache"}, set(), False),
        ("It isn't enabled", {"enable"}, set(), True),
        ("Don\u2019t use tabs", {"use", "tab"}, set(), True),
        ("Cannot exclude vendored code", {"include", "vendored", "code"}, set(), False),
        ("Never deploy on Fridays", {"deploy", "on", "friday"}, set(), True),
        # Light stemming: plurals and possessives.
        ("The user's policies", {"user", "policy"}, set(), False),
        ("Boxes and watches and tests", {"box", "watch", "test"}, set(), False),
        ("The class status analysis", {"class", "status", "analysis"}, set(), False),
        # Filler and one-letter words carry nothing.
        ("a b c 7 x", {"7"}, set(), False),
    ],
)
def test_a_statement_becomes_words_values_and_a_direction(
    text: str, words: set[str], values: set[str], negated: bool
) -> None:
    found = claim(text)
    assert (set(found.words), set(found.values), found.negated) == (words, values, negated)


def test_search_terms_are_the_content_words_as_written_in_order() -> None:
    assert claim("Never deploy on Fridays, deploy again Monday").terms == (
        "deploy",
        "fridays",
        "again",
        "monday",
    )
    many = " ".join(f"wor{chr(97 + n)}dx" for n in range(26))
    assert claim(many).terms == tuple(f"wor{chr(97 + n)}dx" for n in range(16))


@pytest.mark.parametrize(
    ("old", "new", "kind"),
    [
        ("Cache TTL 30s", "Cache TTL 45s", "value"),  # a unit, no cue word
        ("Use Python 3.11", "Use Python 3.12", "value"),
        ("Enable the build cache", "Disable the build cache", "negation"),
        ("The build cache is not disabled", "Disable the build cache", "negation"),
    ],
)
def test_changed_settings_and_flipped_polarity_contradict(old: str, new: str, kind: str) -> None:
    assert contradictions.compare(new, old) == kind


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Fix for issue 12 was pinning urllib3", "Fix for issue 13 was pinning urllib3"),
        ("Enable the build cache", "Enable the build cache again"),
        ("Disable the build cache", "Do not enable the build cache"),  # the same claim
        ("The cache TTL is 30s and the timeout 5s", "The cache TTL is 30s and the timeout 5s"),
    ],
)
def test_names_and_restatements_do_not(old: str, new: str) -> None:
    assert contradictions.compare(new, old) is None
