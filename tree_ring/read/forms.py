"""The forms of a word that widen recall's ladder: "deploy" also as "deployments".

The index's porter stemmer brings many forms of a word to one stem, but not
all ("deploy" and "deploying" stem to "deploi", "deployments" to "deploy").
The widened rung searches a word with its other forms, each an exact term
(a prefix query would merge the postings of every indexed word that starts
with it), and only those that can find more: a form the index stems as it
stems the word, or that no memory holds, would only cost a lookup in every
rung it joins.
"""

from __future__ import annotations

from tree_ring.read import porter
from tree_ring.store import fts
from tree_ring.store.db import Store

# A widened word is searched as itself, without one of ENDINGS, and with each
# of SUFFIXES.
ENDINGS = ("s", "es", "ed", "ing", "er", "ers", "ment", "ments", "ation", "ations")
SUFFIXES = ("er", "ment", "ation")
# Whether any memory holds a word.
EXISTS_SQL = "SELECT 1 FROM memory_fts WHERE memory_fts MATCH :match LIMIT 1"


def word_forms(term: str) -> list[str]:
    """The word, then its other forms, for the widened rung ("deploy" ->
    "deployments"); words under five letters are left as they are."""
    if len(term) < 5:
        return [term]
    base = term
    for ending in sorted(ENDINGS, key=len, reverse=True):
        if term.endswith(ending) and len(term) - len(ending) >= 4:
            base = term[: -len(ending)]
            break
    return list(dict.fromkeys([term, base, *(base + suffix for suffix in SUFFIXES)]))


def indexed_forms(store: Store, words: list[str]) -> dict[str, tuple[str, ...]]:
    """Each word with those of its other forms that can widen it: a form the
    index stems as it stems the word matches the same memories, and a form
    no memory holds matches none, yet each would cost a lookup in every rung
    it joins. One search tells whether any form is held at all; only then
    is each asked about."""
    candidates: dict[str, list[str]] = {}
    for word in words:
        # Only a word of ASCII letters is one token stemmed as `porter` does.
        own = porter.stem(word) if word.isascii() and word.isalpha() else None
        stems: set[str] = set()
        for form in word_forms(word)[1:]:
            if own is None:
                candidates.setdefault(word, []).append(form)
                continue
            form_stem = porter.stem(form)
            if form_stem != own and form_stem not in stems:
                stems.add(form_stem)
                candidates.setdefault(word, []).append(form)
    every = [form for forms in candidates.values() for form in forms]
    held: set[str] = set()
    if every and store.query(EXISTS_SQL, {"match": " OR ".join(map(fts.quote, every))}):
        held = {form for form in every if store.query(EXISTS_SQL, {"match": fts.quote(form)})}
    return {w: (w, *(f for f in candidates.get(w, ()) if f in held)) for w in words}
