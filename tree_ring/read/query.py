"""What a question asks, read without a model: its words, their kin, its kind.

A question rarely uses its answer's words. Three cheap readings close part
of the gap, each measured on a conversational benchmark and a coding
paraphrase set before it was kept (docs/RECALL.md; docs/RECALL-RANKING.md gives the figures):

- the words worth searching for, filler dropped, and a verb with its
  particle also read as the one word it makes ("log in": login) (`terms`);
- related words (`related`): a small hand list of the coding domain
  (`lexicon.py`: an abbreviation and what it stands for, a symptom beside
  its usual causes) and relations derived from general resources
  (`relations.py`), for each word and each run of two or three words of the
  question ("memory leak"). Each related word or phrase is searched too,
  weighted below the question's own words by RELATED_WEIGHT times its
  relation's weight, at most MAX_KIN a word, so "DB outage" finds "the
  database went down"; a memory they alone find ranks after every memory
  holding the question's own words (`ranking`: literal first);
- the question's kind: "when" wants a memory that bears a time ("yesterday",
  "last week", a date), "how many"/"how long" one with a number, "why" one
  that gives a reason ("because", "due to", "so that"), "where" one that
  names a place (a preposition before a capitalised name: "in Galway", "to
  Grafana"); and the names it asks about (capitalised words not opening the
  question), which a memory is about when it opens with one;
- the dates it names ("on 3 March 2025", "in June", "yesterday": `dates.py`):
  recall looks at what was written then, and a calendar date's words are
  not searched.

`stem` is a light suffix stripper, the same on both sides of a comparison;
it matches the forms the index's porter stemmer brings together often
enough for scoring, which only ever sees rows the index already matched.
"""

from __future__ import annotations

import re
from functools import lru_cache

from tree_ring.model.fold import searchable
from tree_ring.model.frozen import Frozen, field
from tree_ring.model.identifiers import with_words
from tree_ring.read import lexicon, relations
from tree_ring.read.date_cues import may_name_a_date
from tree_ring.read.ranking import RING_INTENT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.read.dates import Span

FILLER = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "for",
        "with",
        "at",
        "by",
        "from",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "it",
        "this",
        "that",
        "these",
        "those",
        "what",
        "which",
        "who",
        "how",
        "why",
        "when",
        "where",
        "did",
        "do",
        "does",
        "we",
        "our",
        "us",
        "i",
        "me",
        "my",
        "you",
        "your",
        "about",
        "any",
        "there",
        "should",
        "can",
        "could",
        "would",
        "please",
        "tell",
        "remind",
    ]
)
# Words a question uses for its grammar, not its subject: not searched as
# their own clause, still scored if a memory has them (bm25 makes them cheap).
QUESTION_WORDS = frozenset(
    [
        "has",
        "have",
        "had",
        "he",
        "she",
        "him",
        "her",
        "his",
        "hers",
        "they",
        "them",
        "their",
        "its",
        "was",
        "some",
        "kind",
        "type",
        "sort",
        "much",
        "many",
        "often",
        "ever",
        "also",
        "both",
        "into",
        "keep",
        "keeps",
        "kept",
        "get",
        "gets",
        "got",
        "getting",
        "make",
        "makes",
        "made",
        "more",
        "over",
        "still",
        "very",
        "just",
        "really",
        "too",
        "thing",
        "things",
    ]
)
MAX_TERMS = 16
MAX_TERM_CHARS = 64
# A related word counts this much of one of the question's own words, times
# the relation's own weight (a hand-listed one weighs HAND_WEIGHT).
RELATED_WEIGHT = 0.8
HAND_WEIGHT = 1.0
# Derived relations weaker than this are not used.
MIN_WEIGHT = 0.4
# Related words searched and scored beside each of the question's words,
# strongest first: a bound on how far relations widen a recall.
MAX_KIN = 8
# The question's runs of two and three searched words are looked up too.
PHRASE_WORDS = (2, 3)
# A grammar word, or a word that names a ring's genre ("failure", "decision":
# the ring boost answers it), counts this much.
MINOR_WEIGHT = 0.3
INTENT_WORDS = frozenset(w for words in RING_INTENT.values() for w in words)

WORD = re.compile(r"\w+")
# A searched word, as the index's tokenizer reads one: "_" parts words.
TERM_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """The words of `text` as the index's tokenizer reads them: runs of
    letters and digits, "_" between words, and a mark written on a letter
    (a combining accent, an Indic vowel sign or virama) part of its word,
    where a word character alone would cut "हिन्दी" into consonants and "i̇zmir" (İzmir
    case-folded) into "i" and "zmir"."""
    if text.isascii():
        return TERM_WORD.findall(text)
    from unicodedata import category

    found: list[str] = []
    start = -1
    for at, char in enumerate(text):
        inside = (char.isalnum() and char != "_") or (
            start >= 0 and not char.isascii() and category(char)[0] == "M"
        )
        if inside and start < 0:
            start = at
        elif not inside and start >= 0:
            found.append(text[start:at])
            start = -1
    if start >= 0:
        found.append(text[start:])
    return found


# "couldn't" is "could not" and "what's" is "what is": split at the
# apostrophe as the index splits it, they would be searched as "couldn" and
# "t", words of no question's subject. The negation and the clitic are
# dropped; "can't", "won't" and "shan't" keep their verb.
# Compiled on first use (`re` caches them): most questions hold no apostrophe.
_CONTRACTED_VERBS = r"\b(ca|wo|sha)n['\u2019]t\b"
_CONTRACTION = r"(?<=\w)(?:n['\u2019]t|['\u2019](?:s|t|d|m|re|ve|ll))\b"
_FULL_VERBS = {"ca": "can", "wo": "will", "sha": "shall"}
MONTHS = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
)
WEEKDAYS = "monday tuesday wednesday thursday friday saturday sunday weekend"
# Words and shapes that put a memory at a time: relative days, named days and
# months, years, clock times and dates.
_TIME_WORDS = (
    r"\b(?:yesterday|today|tonight|tomorrow|ago|recently|lately|since|last|next|"
    r"this (?:morning|week|month|year|weekend)|"
    rf"{'|'.join(MONTHS.split())}|{'|'.join(WEEKDAYS.split())}s?|"
    r"(?:19|20)\d\d|\d{1,2}:\d\d|\d{1,4}[-/]\d{1,2}(?:[-/]\d{1,4})?)\b"
)
_NUMBER_WORDS = (
    r"\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|twice|once|dozen|hundred)\b"
)
# Words that give a reason or a cause.
_REASON_WORDS = (
    r"\b(?:because|since|due to|so that|caused|in order to|to avoid|the reason|"
    r"as a result|which is why|so we|after)\b"
)
# A place: a preposition before a name (capitalised, so read with case).
_PLACE_WORDS = r"\b(?:in|at|to|from|near|around) (?:the )?[A-Z][a-z]+"
KIND_WORDS = 3
# kind -> the cues among the question's first KIND_WORDS words, and what a
# memory that answers it bears (a pattern; read without case unless the
# kind is in _CASED).
KINDS = {
    "when": (
        ("when", "what time", "what date", "what year", "what month", "which year"),
        _TIME_WORDS,
    ),
    "count": (("how many", "how much", "how long", "how often", "what number"), _NUMBER_WORDS),
    "why": (("why", "what caused", "how come", "what led", "for what reason"), _REASON_WORDS),
    "where": (
        ("where", "which city", "what city", "which country", "what country", "what place"),
        _PLACE_WORDS,
    ),
}
_CASED = frozenset({"where"})


@lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    """A light stemmer: plurals, -ing, -ed, -ly; enough to compare word forms."""
    w = word
    if len(w) <= 3:
        return w
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    for suffix in ("ing", "ed", "ly"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)]
            if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":
                w = w[:-1]  # "running" -> "run"
            break
    if w.endswith("e") and len(w) > 4:
        w = w[:-1]  # "shared" and "share" meet at "shar"
    return w


# Two words that say one thing: "log in" is signing in. The pair also
# brings the word the lexicon knows it by, after its own two words; not after
# a determiner, where "log" is a noun ("errors in the log in production").
COMPOUNDS = {
    (verb, particle): joined
    for verbs, particles, joined in (
        (("log", "logged", "logging"), ("in",), "login"),
        (("sign", "signed", "signing"), ("in", "on"), "signin"),
    )
    for verb in verbs
    for particle in particles
}
DETERMINERS = frozenset(
    [
        "a",
        "an",
        "the",
        "this",
        "that",
        "these",
        "those",
        "my",
        "our",
        "your",
        "his",
        "her",
        "its",
        "their",
    ]
)


def uncontracted(text: str) -> str:
    """`text`, casefolded, with its contractions undone ("couldn't" -> "could",
    "what's" -> "what")."""
    if "'" not in text and "\u2019" not in text:
        return text
    text = re.sub(_CONTRACTED_VERBS, lambda m: _FULL_VERBS[m.group(1)], text)
    return re.sub(_CONTRACTION, "", text)


def terms(query: str) -> list[str]:
    """The words of a query worth searching for, in order, without repeats,
    folded as the index folds the rows (`fold.searchable`), each camelCase
    identifier followed by its words as the index reads it
    (`identifiers.with_words`): `statementTimeout` finds `statement_timeout`."""
    text = uncontracted(searchable(with_words(query)).casefold())
    read = ["", *(w[:MAX_TERM_CHARS] for w in words(text)), ""]
    out: dict[str, None] = {}  # insertion-ordered, and a lookup in constant time
    for at in range(1, len(read) - 1):
        pair = (read[at], read[at + 1])
        joined = "" if read[at - 1] in DETERMINERS else COMPOUNDS.get(pair, "")
        for term in (read[at], joined):
            if term and term not in FILLER and term not in out:
                out[term] = None
                if len(out) == MAX_TERMS:
                    return list(out)
    return list(out)


class Concept(Frozen):
    """One word of the question with its kin: matching any of them is
    matching the concept, a related word at RELATED_WEIGHT of the word."""

    word: str
    weight: float  # 1 for a content word; MINOR_WEIGHT for grammar and intent words
    stems: dict[str, float]  # stem -> how much one occurrence counts


class Question(Frozen):
    """A query as recall reads it; see the module's text."""

    words: list[str]  # the query's content words, searched by the ladder
    concepts: tuple[Concept, ...] = ()  # every word of the query, scored
    # word -> related words and phrases searched beside it, strongest first
    kin: dict[str, tuple[str, ...]] = field(default_factory=lambda: {})
    kind: str = ""  # a key of KINDS, or ""
    names: frozenset[str] = frozenset()  # stems of the names it asks about
    dates: tuple[Span, ...] = ()  # the dates it names (`dates.py`)
    days: tuple[str, ...] = ()  # the days whose memories join, `YYYY-MM-DD`
    about: str = ""  # the question without its calendar dates, for its meaning


def related(term: str) -> tuple[tuple[str, float], ...]:
    """What recall relates to `term` (a word, or a phrase of two or three),
    strongest first, at most MAX_KIN: the hand-listed coding words
    (`lexicon`, weight HAND_WEIGHT), then the derived relations
    (`relations`) of at least MIN_WEIGHT."""
    # The hand list holds single words (its prefix rule would read a phrase
    # as its first word).
    hand = () if " " in term else lexicon.related(term)
    near: dict[str, float] = dict.fromkeys(hand, HAND_WEIGHT)
    for other, weight in relations.related(term):
        if weight >= MIN_WEIGHT and weight > near.get(other, 0.0):
            near[other] = weight
    near.pop(term, None)
    return tuple(sorted(near.items(), key=lambda kv: -kv[1])[:MAX_KIN])


def phrase_stem(text: str) -> str:
    """A word's stem, or a phrase's stems joined by spaces (`bm25` counts
    a memory's runs of words so)."""
    return " ".join(stem(w) for w in WORD.findall(text))


def _kin(searched: list[str]) -> dict[str, dict[str, float]]:
    """Each searched word's related words and phrases with their weights:
    its own, and those of each run of searched words it is part of ("memory
    leak" for "memory" and "leak"), strongest first, at most MAX_KIN."""
    found: dict[str, dict[str, float]] = {w: dict(related(w)) for w in searched}
    for size in PHRASE_WORDS:
        for at in range(len(searched) - size + 1):
            run = searched[at : at + size]
            for other, weight in related(" ".join(run)):
                for w in run:
                    if weight > found[w].get(other, 0.0):
                        found[w][other] = weight
    return {
        w: dict(sorted(near.items(), key=lambda kv: -kv[1])[:MAX_KIN])
        for w, near in found.items()
        if near
    }


def understand(query: str, today: int | None = None) -> Question:
    """`query` as recall reads it; `today` (days since 1970) is the day its
    "yesterday" and "last week" count back from."""
    # A date is when the question looks, not what it is about: its words are
    # not searched (a note rarely says the day it was written).
    folded = searchable(query).casefold()
    if may_name_a_date(folded):
        from tree_ring.read import dates

        when = dates.named(folded, today)
        spans, dated, days, about = when.spans, when.words, when.days, when.rest
    else:
        spans, dated, days, about = (), frozenset[str](), (), folded
    words = terms(query)
    words = [w for w in words if w not in dated] or words
    searched = [w for w in words if w not in QUESTION_WORDS] or words
    near = _kin(searched)
    kin: dict[str, tuple[str, ...]] = {}
    concepts: list[Concept] = []
    seen: set[str] = set()
    for w in words:
        if stem(w) in seen:
            continue
        seen.add(stem(w))
        full = w in searched and w not in INTENT_WORDS
        stems = {stem(w): 1.0}
        if w in near:
            kin[w] = tuple(near[w])
            for other, weight in near[w].items():
                stems.setdefault(phrase_stem(other), RELATED_WEIGHT * weight)
        concepts.append(Concept(w, 1.0 if full else MINOR_WEIGHT, stems))
    # The kind is read from the question's opening words only: "which port
    # when it pages" is not a question about a time.
    lowered = (
        " " + " ".join(WORD.findall(uncontracted(searchable(query).casefold()))[:KIND_WORDS]) + " "
    )
    kind = next(
        (k for k, (cues, _) in KINDS.items() if any(f" {cue} " in lowered for cue in cues)),
        "",
    )
    tokens = [(t, searchable(t).casefold()) for t in WORD.findall(query)]
    names = frozenset(
        stem(folded)
        for i, (t, folded) in enumerate(tokens)
        if i > 0 and t[:1].isupper() and folded not in FILLER and len(folded) > 1
    )
    names = frozenset(n for n in names if n not in {stem(w) for w in dated})
    return Question(searched, tuple(concepts), kin, kind, names, spans, days, about)


# Compiled when first asked for: only a question of that kind reads its
# pattern, and compiling the time pattern costs every recall's start-up a millisecond.
@lru_cache(maxsize=len(KINDS))
def _pattern(kind: str) -> re.Pattern[str]:
    return re.compile(KINDS[kind][1], 0 if kind in _CASED else re.IGNORECASE)


def bears(kind: str, text: str) -> bool:
    """Whether `text` bears what a question of `kind` asks for: a time for
    "when", a number for "how many", a reason for "why", a place for "where"."""
    return kind in KINDS and _pattern(kind).search(text) is not None
