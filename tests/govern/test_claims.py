"""What a statement is reduced to before two are compared: its content words,
its settings, and which way it points."""

from __future__ import annotations

import pytest

from tree_ring.govern import claims, contradictions
from tree_ring.govern.claims import claim


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
        ("Set the limit to 5", {"limit"}, {"5"}, False),  # "set" restates, as "is" does
        ("Fix for issue 123", {"fix", "issue", "123"}, set(), False),
        # After a name capitalised inside the sentence, a number is its version;
        # a sentence's capitalised first word is no name.
        ("We run Postgres 16 in staging", {"run", "postgre", "staging"}, {"16"}, False),
        ("See the notes. Issue 12 here", {"see", "note", "issue", "12"}, set(), False),
        # Polarity: negations and opposites, counted; opposites share one word.
        ("Disable the build cache", {"enable", "build", "cache"}, set(), True),
        ("Do not disable the cache", {"enable", "cache"}, set(), False),
        ("It isn't enabled", {"enable"}, set(), True),
        ("Don\u2019t use tabs", {"use", "tab"}, set(), True),
        ("Cannot exclude vendored code", {"include", "vendored", "code"}, set(), False),
        # A day of the week is a value: when.
        ("Never deploy on Fridays", {"deploy", "on"}, {"friday"}, True),
        # Light stemming: plurals and possessives.
        ("The user's policies", {"user", "policy"}, set(), False),
        ("Boxes and watches and tests", {"box", "watch", "test"}, set(), False),
        ("The class status analysis", {"class", "status", "analysis"}, set(), False),
        # One word after "is" (or "is the") ending a statement of a subject
        # of two words or more: the word it sets (`setting`, below).
        ("The default branch is master", {"default", "branch"}, set(), False),
        ("The default branch is the master.", {"default", "branch"}, set(), False),
        ("The default branch is not master", {"default", "branch"}, set(), True),
        ("Tests are flaky", {"test", "flaky"}, set(), False),
        # "now" restates a setting: no content word.
        ("The default branch is master now", {"default", "branch", "master"}, set(), False),
        ("The main branch is main", {"main", "branch"}, set(), False),
        # Filler and one-letter words carry nothing.
        ("a b c 7 x", {"7"}, set(), False),
    ],
)
def test_a_statement_becomes_words_values_and_a_direction(
    text: str, words: set[str], values: set[str], negated: bool
) -> None:
    found = claim(text)
    assert (set(found.words), set(found.values), found.negated) == (words, values, negated)


@pytest.mark.parametrize(
    ("text", "setting"),
    [
        ("The default branch is master", "master"),
        ("The default branch is the master.", "master"),
        ("The default branch isn't master", "master"),
        ("The default branch is not master", "master"),
        ("Tests are flaky", None),
        ("The default branch is master now", None),
        ("The main branch is main", None),
        ("The worker timeout setting is 30s", None),
    ],
)
def test_the_word_a_statement_sets(text: str, setting: str | None) -> None:
    assert claim(text).setting == setting
    assert setting is None or setting not in claim(text).terms


def test_search_terms_are_the_content_words_as_written_in_order() -> None:
    # A day of the week after "on" is a value, searched for no more than a
    # number is; after another word it is a word like any other.
    assert claim("Never deploy on Fridays, deploy again Monday").terms == (
        "deploy",
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
    assert claims.compare(new, old) == kind


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
    assert claims.compare(new, old) is None


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        ("user's", "user"),
        ("policies", "policy"),
        ("pies", "pie"),  # four letters: not an "ies" plural
        ("batches", "batch"),
        ("dishes", "dish"),
        ("classes", "class"),
        ("boxes", "box"),
        ("fizzes", "fizz"),
        ("axes", "axe"),  # four letters: only the "s" goes
        ("cats", "cat"),
        ("its", "its"),  # three letters: kept
        ("bus", "bus"),
        ("this", "this"),
        ("class", "class"),
        ("status", "status"),
    ],
)
def test_stem_drops_plural_endings_by_length(word: str, stem: str) -> None:
    assert claims.stem(word) == stem  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize(
    ("token", "before", "previous", "value"),
    [
        ("30s", "", "", True),  # a unit
        ("3.11", "", "", True),  # a version
        ("10:30", "", "", True),  # a time of day
        ("123", "", "", False),  # a bare number names something
        ("123", " = ", "", True),
        ("123", ": ", "", True),
        ("5", " ", "to", True),
        ("5", " ", "issue", False),
    ],
)
def test_is_value_tells_settings_from_names(
    token: str, before: str, previous: str, value: bool
) -> None:
    assert claims._is_value(token, before, previous) is value  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize(
    ("count", "misses", "listed", "shaped"),
    [
        (5, 0, 0, (2, 2)),
        (5, 1, 0, (3, 2)),
        (1, 3, 0, (1, 1)),
        (5, 2, 4, (4, 2)),
        (0, 0, 0, (0, 1)),
        (3, 3, 0, (3, 1)),
    ],
)
def test_shape_takes_the_rarest_words_and_needs_all_but_the_misses(
    count: int, misses: int, listed: int, shaped: tuple[int, int]
) -> None:
    assert contradictions.shape(count, misses, listed) == shaped


def _holds(expression: str, held: set[str]) -> bool:
    """An FTS5 boolean of quoted words, evaluated for a row holding `held`."""
    python = expression.replace(" AND ", " and ").replace(" OR ", " or ")
    for word in ("a", "b", "c", "d", "e", "f"):
        python = python.replace(f'"{word}"', str(word in held))
    return bool(eval(python))  # only True, False, and, or and brackets are left


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 6])
def test_at_least_matches_rows_holding_that_many_phrases(size: int) -> None:
    import itertools

    phrases = [f'"{w}"' for w in "abcdef"[:size]]
    for need in range(1, size + 1):
        expression = contradictions.at_least(phrases, need)
        for n in range(size + 1):
            for held in itertools.combinations("abcdef"[:size], n):
                assert _holds(expression, set(held)) is (n >= need), (need, held, expression)


@pytest.mark.parametrize(
    ("text", "negated"),
    [
        ("retries are enabled", False),
        ("retries are disabled", True),
        ("retries are not disabled", False),  # two flips
        ("retries aren't enabled", True),
        ("we never allow retries", True),
        ("retries are off", True),
    ],
)
def test_claim_direction_counts_flips(text: str, negated: bool) -> None:
    assert claim(text).negated is negated


def test_claim_keeps_sixteen_terms_at_most() -> None:
    words = [f"word{letter}" for letter in "abcdefghijklmnopqrst"]
    assert claim(" ".join(words)).terms == tuple(words[:16])


@pytest.mark.parametrize(
    ("new", "old", "kind"),
    [
        ("the api timeout is 30s", "the api timeout is 60s", "value"),
        ("the api timeout is not 30s", "the api timeout is 30s", "negation"),
        ("the api timeout is not 30s", "the api timeout is 60s", None),  # both differ
        ("the api timeout is 30s", "the api timeout is 30s", None),
        ("the api timeout is 30s", "the api timeout", None),  # one has no value
        # Three words of four shared: exactly the overlap needed.
        ("alpha beta gamma is 30s", "alpha beta gamma delta is 60s", "value"),
        # Three of five: under it.
        ("alpha beta gamma is 30s", "alpha beta gamma delta epsilon is 60s", None),
        ("alpha is 30s", "beta is 60s", None),  # nothing shared
        ("the default branch is master", "the default branch is main", "value"),
        ("the default branch is not master", "the default branch is master", "negation"),
        ("the default branch is not master", "the default branch is main", None),
        # A word set and a number set are not the same kind of setting.
        ("the worker timeout is documented", "the worker timeout is 30s", None),
    ],
)
def test_compare_at_the_overlap_and_value_rules(new: str, old: str, kind: str | None) -> None:
    assert claims.compare(new, old) == kind


def test_search_words_group_forms_and_key_a_final_y() -> None:
    found = contradictions.search_words(claim("the tests and test runner"))
    assert [(w.word, w.phrase, w.key) for w in found] == [
        ("test", '("tests" OR "test")', "test"),
        ("runner", '"runner"', "runner"),
    ]
    found = contradictions.search_words(claim("policies policy"))
    assert [(w.word, w.phrase, w.key) for w in found] == [
        ("policy", '("policies" OR "policy")', "polic")
    ]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # A number and its unit written apart are one value, as written together.
        ("Responses must stay under 200 ms", "Responses must stay under 300 ms"),
        ("Workers keep 4 GB of heap", "Workers keep 8 GB of heap"),
        ("The cache holds entries for 5 minutes", "The cache holds entries for 10 minutes"),
        ("Builds must finish within 200ms", "Builds must finish within 300 ms"),
        # A word that restates the setting changes nothing of what it is about.
        ("The request timeout is 30s", "The request timeout is now 90s"),
        ("The request timeout is 30s", "The request timeout is 90s now"),
        ("The request timeout is 30s", "The request timeout is set to 90s"),
        ("The request timeout is 30s", "The request timeout becomes 90s"),
        ("The request timeout is 30s", "The request time-out is 90s"),
    ],
)
def test_a_changed_value_however_it_is_written(old: str, new: str) -> None:
    assert claims.compare(new, old) == "value"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Builds must finish within 200 ms", "Builds must finish within 200ms"),
        ("Step 2 runs the linter", "Step 3 runs the linter"),  # a number that names a step
        ("Keep 4 GB of heap for workers", "Keep 4 GB of heap for the cache workers and jobs"),
    ],
)
def test_the_same_value_or_a_named_number_is_no_change(old: str, new: str) -> None:
    assert claims.compare(new, old) is None
