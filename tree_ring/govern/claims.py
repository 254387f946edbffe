"""A statement reduced to what it is about, what it says, and which way.

`claim` keeps a statement's content words, lightly stemmed; the values it
sets; and whether it is negated. Two statements contradict when their words
overlap by at least `OVERLAP` (Jaccard) and their polarity flips or a value
changes (`compare_claims`); contradictions.py finds the stored ones to
compare. A number is a value when it sets something (a unit, a version,
after "is", "=", "to"); one that names something ("issue 123", "step 2") is
a content word, so "fix for issue 12" and "fix for issue 13" are two facts,
not a dispute; after a name capitalised inside a sentence it is a version
("Postgres 16"). A day of the week is a value ("every Sunday"). So is a
word: the one word a statement ends on after "is"
("the default branch is master"), when two words or more say what it is set
for; "tests are flaky" says too little to set anything. Pure functions of
the text, nothing stored.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

# Share of content words two statements must have in common (Jaccard).
OVERLAP = 0.75
MAX_TERMS = 16
NEGATIONS = frozenset(
    {
        "not",
        "no",
        "never",
        "cannot",
        "without",
        "dont",
        "nor",
    }
)
# Words whose opposite is a negation of one canonical word.
OPPOSITES: dict[str, tuple[str, bool]] = {
    "enable": ("enable", False),
    "enables": ("enable", False),
    "enabled": ("enable", False),
    "enabling": ("enable", False),
    "disable": ("enable", True),
    "disables": ("enable", True),
    "disabled": ("enable", True),
    "disabling": ("enable", True),
    "allow": ("allow", False),
    "allows": ("allow", False),
    "allowed": ("allow", False),
    "disallow": ("allow", True),
    "disallowed": ("allow", True),
    "forbid": ("allow", True),
    "forbids": ("allow", True),
    "forbidden": ("allow", True),
    "include": ("include", False),
    "includes": ("include", False),
    "included": ("include", False),
    "exclude": ("include", True),
    "excludes": ("include", True),
    "excluded": ("include", True),
    "on": ("on", False),
    "off": ("on", True),
    "true": ("true", False),
    "false": ("true", True),
}
# Words that carry neither content nor polarity ("always use X" = "use X").
_NEUTRAL_WORDS = (
    "a an the and or of to in into for with at by from as is are was were be been "
    "being it its this that these those we our us i me my you your they their he she "
    "do does did done always must should shall will would please all every also just "
    "then than so there here has have had can could may might need needs "
    # Words that restate a setting without changing what it is about:
    # "the timeout is now 90s", "is set to 90s", "becomes 90s".
    "now currently still set become becomes became"
)
NEUTRAL = frozenset(_NEUTRAL_WORDS.split())

# Words after which a number is a setting: "is 30", "up to 5", "a limit of 10".
VALUE_CUES = frozenset(
    {"is", "are", "was", "were", "be", "to", "at", "of", "equals", "than", "max", "min"}
    | {"now", "become", "becomes", "became", "under", "within", "below", "above", "over"}
)
# Units a number may be written apart from ("200 ms", "4 GB", "5 minutes"):
# the number and its unit are one value, as "200ms" is.
_UNIT_WORDS = (
    "ms msec msecs millisecond milliseconds s sec secs second seconds m min mins minute "
    "minutes h hr hrs hour hours day days week weeks month months year years "
    "kb mb gb tb kib mib gib tib byte bytes percent px rpm rps qps"
)
UNITS = frozenset(_UNIT_WORDS.split())

# A day of the week after a word that says when ("on", "every", ...) is when
# something happens: "resets every Sunday night" and "every Saturday night"
# set two days for one thing ("Fridays" is stemmed). Before a noun it names
# one: "the Sunday backup" and "the Saturday backup" are two jobs.
WEEKDAYS = frozenset({"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"})
WHEN_CUES = frozenset(
    {"on", "every", "each", "until", "till", "by", "from", "before", "after", "since"}
    | {"through", "to", "next", "this", "last", "or", "and", "than", "at"}
)
# Words a number after them names a thing of ("Step 3", "Issue 12"), whatever
# their case: no version of a product.
NAMING = frozenset(
    {"step", "phase", "stage", "part", "chapter", "section", "issue", "ticket", "item"}
    | {"task", "sprint", "round", "level", "tier", "room", "floor", "gate", "page", "line"}
    | {"case", "rule", "bug", "pr", "story", "week", "day", "year", "month", "hour", "slide"}
    | {"figure", "table", "appendix", "option", "question", "point", "node", "team", "group"}
)

# Words after which a statement's last word is what it sets; the articles between.
COPULAS = frozenset({"is", "are", "was", "were"})
_ARTICLES = frozenset({"a", "an", "the"})
# Content words a statement must name besides the word it sets.
SUBJECT_WORDS = 2

_DIGIT = re.compile(r"\d")
_WORD = re.compile(r"\d+(?:[.,:]\d+)*[a-z%]*|[a-z][a-z0-9_'+#-]*")


@dataclass(frozen=True)
class Claim:
    """A statement reduced to what it is about, what it says, and which way."""

    words: frozenset[str]  # content words, lightly stemmed
    values: frozenset[str]  # settings: 30s, 3.11, "is 8080" (not "issue 123")
    negated: bool
    terms: tuple[str, ...]  # unstemmed content words, for the FTS query
    # The word a statement ends on after "is" ("the default branch is master"):
    # a setting too, but compared only with another such word, never a number
    # ("the timeout is documented" does not dispute "the timeout is 30s").
    setting: str | None = None


# Words repeat (an import stems the same few thousand again and again).
@functools.lru_cache(maxsize=16_384)
def stem(word: str) -> str:
    word = word.replace("-", "")  # "time-out" is "timeout"
    if word.endswith("'s"):
        word = word[:-2]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes", "zes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _is_value(token: str, before: str, previous: str, named: bool = False) -> bool:
    """A number that sets something (30s, 3.11, `timeout = 60`, `up to 5`,
    `Postgres 16`), as opposed to one that names something (issue 123, step
    2, fact 0): only a changed setting is a contradiction. `named`: the word
    before it is a name, capitalised inside the sentence (a product's
    version)."""
    if not token[-1].isdigit() or "." in token or ":" in token:
        return True  # a unit (30s, 512mb, 80%), a version or a time of day
    return before.rstrip().endswith(("=", ":")) or previous in VALUE_CUES or named


@functools.lru_cache(maxsize=4096)
def claim(text: str) -> Claim:
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text).replace("\u2019", "'")
    folded = text.casefold()
    # The text as written, where its case can be read at the folded offsets.
    cased = text if len(text) == len(folded) else ""
    words: set[str] = set()
    values: set[str] = set()
    terms: list[str] = []
    flips = 0
    previous = ""
    end = 0
    copula = False  # the tokens since the last word were "is", "not", "the", ...
    # (word, term, the words before it) while the last word came after a copula.
    setting: tuple[str, str, frozenset[str]] | None = None
    # Every summary a write compares passes through here, so the common case
    # (a plain word) takes the fewest steps: the text before a token is cut
    # out only for a number, the one token that reads it.
    matches = list(_WORD.finditer(folded))
    skip = -1
    for at, match in enumerate(matches):
        if at == skip:
            continue  # a unit read with the number before it
        token = match.group().rstrip(".,:'-")
        start, stop = match.span()
        if token.isdigit() and at + 1 < len(matches):
            unit = matches[at + 1].group().rstrip(".,:'-")
            gap = folded[stop : matches[at + 1].start()]
            if unit in UNITS and gap.strip() == "":
                token, stop, skip = token + unit, matches[at + 1].end(), at + 1
        last, previous, before_at, end = previous, token, end, stop
        if not token:
            continue
        if token[0] in "mtwfs" and stem(token) in WEEKDAYS and last in WHEN_CUES:
            # A value, not searched for: the stored claim it disputes says another day.
            values.add(stem(token))
            continue
        if token in NEGATIONS or token.endswith("n't"):
            flips += 1
            copula = copula or token.endswith("n't")  # "isn't master"
            continue
        after_copula, copula = copula, token in COPULAS or (copula and token in _ARTICLES)
        setting = None
        if token in OPPOSITES:
            canonical, flipped = OPPOSITES[token]
            flips += flipped
            words.add(canonical)
            continue
        if (
            not token.isalpha()
            and _DIGIT.search(token)
            and _is_value(token, folded[before_at:start], last, _named(cased, matches, at))
        ):
            values.add(token)
            continue
        if token in NEUTRAL or (len(token) < 2 and not token.isdigit()):
            continue
        word = stem(token)
        if after_copula and word not in words:
            setting = (word, token, frozenset(words))
        words.add(word)
        if token not in terms and "'" not in token:
            terms.append(token)
    word: str | None = None
    if setting is not None and len(setting[2]) >= SUBJECT_WORDS:
        word, term, _ = setting
        words.discard(word)
        if term in terms:
            terms.remove(term)
    return Claim(
        frozenset(words), frozenset(values), flips % 2 == 1, tuple(terms[:MAX_TERMS]), word
    )


def _named(cased: str, matches: list[re.Match[str]], at: int) -> bool:
    """Whether the word just before token `at` is a name: capitalised, and
    not the first word of a sentence ("We use Postgres 16", not "Issue 12 was
    fixed", nor "issue 12")."""
    if at < 2 or not cased:
        return False
    word = matches[at - 1]
    if not cased[word.start()].isupper() or not word.group().isalpha():
        return False
    if word.group().casefold() in NAMING:
        return False
    between = cased[matches[at - 2].end() : word.start()]
    return not any(mark in between for mark in ".!?;:")


def compare(new: str, old: str) -> str | None:
    """How `new` contradicts `old`: 'negation', 'value', or None if it does not."""
    return compare_claims(claim(new), claim(old))


def compare_claims(a: Claim, b: Claim) -> str | None:
    shared = a.words & b.words
    if not shared:
        return None
    if len(shared) / len(a.words | b.words) < OVERLAP:
        return None
    same = a.values == b.values and a.setting == b.setting
    if a.negated != b.negated and same:
        return "negation"
    if a.negated == b.negated and a.values and b.values and a.values != b.values:
        return "value"
    if a.negated == b.negated and a.values == b.values and a.setting and b.setting and not same:
        return "value"
    return None
