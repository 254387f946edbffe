"""Recall's query ladder: the rungs of FTS5 queries it climbs down, strict to
broad, and the windows a broad rung is searched in (recall.py says how
recall uses them, and why each is cheap)."""

from __future__ import annotations

from collections.abc import Iterator

from tree_ring.model.frozen import Frozen
from tree_ring.read import ranking
from tree_ring.read.forms import word_forms
from tree_ring.store import fts

# The any-k-of-n rungs use at most this many words (C(5, 2) = 10 clauses):
# on the benchmark corpus six found nothing five did not, at more cost.
SUBSET_TERMS = 5
# The OR rung reads at most about this many memories (bm25 costs microseconds
# a row): the rarest words that fit, since common words add little to bm25.
OR_BUDGET = 1_000
# A broad rung is searched among the newest WINDOW memories first, then in
# windows WIDEN times as wide (at a million memories: 10k, 40k, 160k, 640k, then all).
WINDOW = 10_000
WIDEN = 4


# One word of a rung: the word, or the word and its forms.
Atom = tuple[str, ...]


def atom(words: Atom) -> str:
    return (
        fts.quote(words[0]) if len(words) == 1 else "(" + " OR ".join(map(fts.quote, words)) + ")"
    )


class Rung(Frozen):
    """One query of the ladder: the memories holding at least `need` of `atoms`
    (all of them: an AND; one: an OR; between: any k of n), and its MATCH
    text, written once (`Rung.of`): recall reads it at every step of a search."""

    atoms: tuple[Atom, ...]
    need: int
    match: str

    @classmethod
    def of(cls, atoms: tuple[Atom, ...], need: int) -> Rung:
        phrases = [atom(words) for words in atoms]
        if need == len(phrases):
            match = " AND ".join(phrases)  # the strict rungs, as FTS5 reads them plainly
        elif need == 1:
            match = " OR ".join(phrases)
        elif need == 2 and len(phrases) % 2:
            match = _pairs(phrases)
        else:
            # Any k of n, each atom written a few times rather than once per
            # subset: FTS5 reads each written atom's postings each time.
            match = fts.at_least(phrases, need)
        return cls(atoms, need, match)


def _pairs(phrases: list[str]) -> str:
    """Any two of an odd number of phrases: each with any of the next n // 2
    around a circle, so every pair is written and each phrase as often as
    the others. bm25 weighs a phrase each time it is written, and halving an
    odd number of phrases (`fts.at_least`) writes the later ones more often,
    which weighs the many two-word matches by the question's word order."""
    n, reach = len(phrases), len(phrases) // 2
    return " OR ".join(
        f"({phrases[i]} AND "
        + (
            phrases[(i + 1) % n]
            if reach == 1
            else "(" + " OR ".join(phrases[(i + j) % n] for j in range(1, reach + 1)) + ")"
        )
        + ")"
        for i in range(n)
    )


def ladder(
    words: list[str],
    counts: dict[str, int] | None = None,
    kin: dict[str, tuple[str, ...]] | None = None,
    forms: dict[str, tuple[str, ...]] | None = None,
) -> list[Rung]:
    """The rungs recall climbs down, strictest first; the last rung is an OR.

    `counts` says in how many memories each word occurs (capped at
    OR_BUDGET + 1; default: in plenty); `forms`, the forms of each word that
    can match a memory the word does not (default: every `word_forms`). A
    word no memory holds cannot help an AND, so the ANDs use only words that
    occur. Rungs: every word; without one ring-intent
    word each; the words widened to their forms; any k of the first five
    words, k from one fewer than all down to two; then an OR of the rarest
    words whose memories fit OR_BUDGET between them, so a broad OR never
    scores tens of thousands of one-word matches in a large store.
    """
    if not words:
        return []

    kin = kin or {}
    have = [(w, *kin.get(w, ())) for w in words if counts is None or counts.get(w, 0) > 0]
    forms = forms or {}
    widened = {
        w: tuple(dict.fromkeys((*(forms[w] if w in forms else word_forms(w)), *kin.get(w, ()))))
        for w in words
    }
    rungs: list[Rung] = []
    if have:
        rungs.append(Rung.of(tuple(have), len(have)))
    intent_words = {w for ws in ranking.RING_INTENT.values() for w in ws}
    for dropped in have:
        if dropped[0] in intent_words:
            rest = tuple(w for w in have if w != dropped)
            if rest:
                rungs.append(Rung.of(rest, len(rest)))
    without_intent = tuple(w for w in have if w[0] not in intent_words)
    if without_intent and len(without_intent) < len(have) - 1:
        rungs.append(Rung.of(without_intent, len(without_intent)))
    rungs.append(Rung.of(tuple(widened.values()), len(widened)))
    head = tuple(have[:SUBSET_TERMS])
    for k in range(len(head) - 1, 1, -1):
        rungs.append(Rung.of(head, k))
    if len(words) > 1:
        rungs.append(Rung.of(tuple(widened[w] for w in _affordable(words, counts)), 1))
    unique: dict[str, Rung] = {}
    for rung in rungs:
        unique.setdefault(rung.match, rung)
    return list(unique.values())


def _affordable(words: list[str], counts: dict[str, int] | None) -> list[str]:
    """The words for the OR rung, in query order: rarest first while their
    memories fit the budget, and always the rarest word that occurs at all
    (words that occur nowhere cost nothing and may still match widened)."""
    if counts is None:
        return words
    chosen: set[str] = set()
    spent = 0
    occurring = False
    for word in sorted(words, key=lambda w: counts.get(w, 0)):
        count = counts.get(word, 0)
        if occurring and spent + count > OR_BUDGET:
            break
        chosen.add(word)
        spent += count
        occurring = occurring or count > 0
    return [w for w in words if w in chosen]


def floors(matches: int, newest: int) -> Iterator[int]:
    """The rowid floors a rung is searched above, narrowest window first; the
    last is 0, the whole store. A rung with at most OR_BUDGET `matches` (as
    counted, no further than OR_BUDGET + 1) is searched whole at once."""
    if matches > OR_BUDGET:
        width = WINDOW
        while width < newest:
            yield newest - width
            width *= WIDEN
    yield 0


# Where the index does not weigh matches, a rung whose words' counts expect
# it to match fewer than BROAD memories is read in the index's order, which
# FTS5 reads faster than newest first; any other, newest first.
BROAD = OR_BUDGET


def expected(rung: Rung, shares: dict[str, float], newest: int) -> float | None:
    """How many memories the rung would match if its words were held
    independently at their counted shares; None for a rung of word forms or
    kin, which are not counted one by one."""
    atoms = [fts.quote(atom[0]) for atom in rung.atoms if len(atom) == 1]
    if len(atoms) < len(rung.atoms) or any(atom not in shares for atom in atoms):
        return None
    return newest * _at_least_share([shares[atom] for atom in atoms], rung.need)


def _at_least_share(shares: list[float], need: int) -> float:
    """The chance that `need` or more of independent events of these chances occur."""
    held = [1.0] + [0.0] * len(shares)  # held[j]: exactly j so far
    for share in shares:
        for j in range(len(shares), 0, -1):
            held[j] = held[j] * (1 - share) + held[j - 1] * share
        held[0] *= 1 - share
    return sum(held[need:])
