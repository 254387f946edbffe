"""The fields a row carries beside its claim, read against the tombstones.

A file or a team ledger line fills fields beside a memory's claim (its review
reason and reviewer, origin session, source type, the ids it supersedes or
links to, and its own id when the file chose it) that a write does not key
as claims (`tombstones.check_keys`): they are stored, shown and written to
the ledger as they stand, so each is read run by run of its words (`runs`),
as a reason is (`govern/reasons.py`), and a file's path folder by folder
(`path_texts`). What a read hides a row by when the other store forgot its
words is `carried_keys` (`read/forgotten_here.py`).
"""

from __future__ import annotations

import re

from tree_ring.model.claims import cased_claim_text, claim_text, legacy_claim_text
from tree_ring.model.identifiers import glued, spaced
from tree_ring.model.record import Memory, generated_id
from tree_ring.store.tombstones import MIN_WORDS, claim_key, one_word

# Types only: the SessionStart hook loads this module to hide what a project
# forgot (`read/forgotten_here.py`).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator


def carried(memory: Memory) -> Iterator[tuple[str, str]]:
    """(field, text) of each field a file or a team ledger line fills beside
    a memory's claim that a write does not key (`check_keys`), named as an
    export names it: stored, shown and written to the ledger as it stands,
    so read run by run of its words (`runs`) against the tombstones
    (`govern/reasons.carried_quoting`, `write/carried.py`). The row's own id
    too when a file chose it (a forget cannot rewrite an id: it is refused
    on the way in, and hidden where the other store forgot its words)."""
    for text in id_texts(memory.id):
        yield "id", text
    yield "review.review_reason", memory.review_reason or ""
    yield "review.reviewed_by", memory.reviewed_by or ""
    yield "origin_session", memory.origin_session or ""
    yield "source.type", memory.source_type
    for other in memory.supersedes:
        for text in id_texts(other):
            yield "supersedes", text
    for text in id_texts(memory.superseded_by or ""):
        yield "superseded_by", text
    for link in memory.links:
        for text in id_texts(link.target):
            yield "links", text


def id_texts(value: str) -> list[str]:
    """What a value that may be a memory's id is read as: itself, and, when
    it is an id a file chose (`mem_` and words), those words alone: `mem_`
    is the id's form, not a word said ("mem_use-tabs" says "use tabs")."""
    if value.startswith("mem_") and len(value) > 4 and not generated_id(value):
        return [value, value[4:]]
    return [value]


def keyed(text: str) -> bool:
    """Whether a carried field's `text` is read against the tombstones at all:
    a single word (`one_word`) or a generated id holds no claim."""
    return bool(text) and not one_word(text) and not generated_id(text)


def carried_keys(memory: Memory, seen: dict[str, list[str]] | None = None) -> set[str]:
    """The keys of the runs of words of `memory`'s carried fields (`carried`)
    that are `keyed`: what a read hides a row by when the other store forgot
    them (`read/forgotten_here.py`). `seen` keeps each text's keys across the
    rows of one read: a waiting row's reason, a session, a reviewer repeat."""
    seen = {} if seen is None else seen
    found: set[str] = set()
    for _, text in carried(memory):
        if not keyed(text):
            continue
        if text not in seen:
            seen[text] = list(runs(text, list(TOKEN.finditer(text))))
        found.update(seen[text])
    return found


def path_texts(path: str) -> list[str]:
    """What a file's path is read as against the tombstones: the path, each
    of its folders and its file's name, and the name without its extension,
    each whole ("docs/use-tabs.md" says "use tabs" as much as a reason
    "use-tabs" does)."""
    parts = [part for part in re.split(r"[/\\]+", path) if part]
    stems = [part.rpartition(".")[0] for part in parts if "." in part.strip(".")]
    return list(dict.fromkeys([path, *parts, *(stem for stem in stems if stem)]))


# A word of free text as a reason or a carried field is read: between spaces.
TOKEN = re.compile(r"\S+")


def _spaced_claim_text(text: str) -> str:
    """`claim_text` with each camelCase identifier read as its words."""
    return claim_text(spaced(text))


def _glued_claim_text(text: str) -> str:
    """`claim_text` with each digit joined to a letter beside it too."""
    return claim_text(glued(text))


# The run `runs` gives a whole text's key: all of it, its annotations too.
WHOLE = (-1, -1)


def runs(text: str, tokens: list[re.Match[str]]) -> dict[str, list[tuple[int, int]]]:
    """Each key of `text`'s runs of words (every run of at least `MIN_WORDS`
    of its folded words, and the whole text), keyed as a write's claims are,
    by today's fold, for text that is not ASCII the legacy one and that of
    small letters (`cased_claim_text`) too, and for
    a text naming a camelCase identifier, its words (`spaced`), and with
    each digit joined to a letter beside it (`glued`); with the
    runs of `tokens` (`TOKEN` over `text`: first, last) it was made from, the
    whole text's as `WHOLE` (its fold leaves out the annotations around a
    claim, "Note:", "(confirmed)", which go with it)."""
    found: dict[str, list[tuple[int, int]]] = {}
    folds = [claim_text]
    if not text.isascii():
        folds += [legacy_claim_text, cased_claim_text]
    split = spaced(text)
    if split != text:
        folds.append(_spaced_claim_text)
    if glued(text) != split:
        folds.append(_glued_claim_text)
    for fold in folds:
        whole = fold(text)
        if whole:
            found.setdefault(claim_key(whole), []).append(WHOLE)
        # Each folded word, with the token of the text it came from.
        words = [(word, i) for i, t in enumerate(tokens) for word in fold(t.group()).split()]
        for start in range(len(words)):
            claim = " ".join(word for word, _ in words[start : start + MIN_WORDS - 1])
            for end in range(start + MIN_WORDS - 1, len(words)):
                claim = f"{claim} {words[end][0]}" if claim else words[end][0]
                found.setdefault(claim_key(claim), []).append((words[start][1], words[end][1]))
    return found
