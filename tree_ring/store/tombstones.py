"""Content tombstones: what was forgotten or rejected never comes back.

A tombstone holds hashes of a memory's claims, never its text. Forgetting or
rejecting a memory records a key for its whole summary, its whole details
(when there are any), and the two as one text; and, but for a consolidation,
one for each sentence of at least `SENTENCE_WORDS` words in any text field
(summary, details, source quote, tags, source ref), for a source quote or tag
of that many words whole, and for the sentence that runs on from the end of
the summary into the details. A later write is refused when any of its own
keys is tombstoned: its whole summary and details, its other text fields
whole, every sentence of each, and the sentence formed across each seam
between summary, details and source quote (those `MIN_WORDS` words or more).
So a forgotten claim is refused with other details, wrapped in quotes, with
"Note:" in front or "(confirmed)" behind, inside a consolidation that lists
it, as one sentence of a longer memory, in a source quote or a tag, or split
between summary and details; while a short stock sentence that many memories
share ("See the runbook.") never blocks the others because one of them was
forgotten, and forgetting a consolidation leaves its sources' claims alone.

The keys are over `claim_text`, which folds what never makes a claim new:
every spelling of the same letters (`fold.canonical`: width, case, invisible
characters, accents and other marks, look-alike letters from other scripts),
spacing, punctuation, wrapping quotes and markup, and the annotations people
put around a claim ("Note:", "FYI -", "(confirmed)"). Number words and
hyphenation are not folded ("three" is not "3", "re-try" is not "retry").
Tombstones written before the canonical fold hold keys over
`legacy_claim_text` (NFKC and case only), so every text is keyed by both
(they differ only for non-ASCII text); tombstones written before claim keys
existed hold `record.content_hash` (summary and details together), and a
write is checked against that too.

A tombstone's reason stays in the store and the audit log. It is never
echoed in an error: a reason is free text someone else wrote (an imported
tombstone's reason could carry an instruction, or a secret), so the error
says when and which memory, and points at `tree-ring audit`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

from tree_ring.model.errors import Conflict
from tree_ring.model.fold import canonical, skeleton, unmarked
from tree_ring.model.record import Memory, sha256
from tree_ring.store.sql import Db

# A sentence shorter than this says too little to refuse on its own ("Use tabs.").
MIN_WORDS = 3
# A sentence of a forgotten summary is tombstoned on its own only when it says
# this much: shorter ones are the stock phrases many memories share.
SENTENCE_WORDS = 5
# Words that annotate a claim rather than make it, when they lead it with a
# colon or a dash ("Note: ...", "FYI - ...") or close it in brackets ("(confirmed)").
LEADING = (
    "note|notes|nb|n\\.b\\.|fyi|psa|tip|hint|info|reminder|remember|important|update|updated"
    "|todo|warning|heads up|caveat|correction|edit|lesson|decision"
)
TRAILING = "confirmed|verified|updated|important|again|still|fyi|note|see above|as before|v?\\d+"
_LEADING = re.compile(rf"^\W*(?:{LEADING})\s*[:\-–—]+\s*", re.IGNORECASE)
_TRAILING = re.compile(rf"\s*[\(\[]\s*(?:{TRAILING})\s*[\)\]]\W*$", re.IGNORECASE)
# Where one claim ends and the next begins: sentence ends, line breaks, and the
# separators consolidations and the brief put between entries.
_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+|\s+[—–|]\s+|\s*•\s*")
# Everything but letters and digits (of any script) becomes a space.
_NOT_WORD = re.compile(r"[\W_]+")


def _trimmed(text: str) -> str:
    """`text` without the annotations around a claim ("Note:", "(confirmed)")."""
    while True:
        trimmed = _TRAILING.sub("", _LEADING.sub("", text.strip()))
        if trimmed == text.strip():
            return trimmed
        text = trimmed


def _drawn_as_letters(match: re.Match[str]) -> str:
    # A symbol drawn like a letter (∨ for v) stays, as that letter; other
    # symbols part words. Their prototypes that are not ASCII letters (an em
    # dash is drawn like a katakana mark) must not become words of a claim.
    drawn = [skeleton(char) for char in match.group()]
    return "".join(d if d.isascii() and d.isalnum() else " " for d in drawn)


def claim_text(text: str) -> str:
    """The words a claim is made of, folded: what a tombstone key is over.

    One fold for every spelling (`fold.canonical`: NFKC, case, invisible
    characters, marks, look-alike letters), then only letters and digits."""
    trimmed = _trimmed(unmarked(text))
    if trimmed.isascii():
        return " ".join(_NOT_WORD.sub(" ", trimmed.lower()).split())
    # A look-alike can be a symbol, and a prototype can be one (Arabic-Indic
    # zero is drawn as a dot), so words are cut both before and after folding.
    lettered = _NOT_WORD.sub(_drawn_as_letters, trimmed)
    return " ".join(_NOT_WORD.sub(" ", canonical(lettered)).split())


def legacy_claim_text(text: str) -> str:
    """`claim_text` before the canonical fold (NFKC and case only): what the
    keys of tombstones written by earlier versions are over."""
    if not _normalize:
        from unicodedata import normalize

        _normalize.append(normalize)
    folded = _trimmed(_normalize[0]("NFKC", text))
    return " ".join(_NOT_WORD.sub(" ", folded.casefold()).split())


_normalize: list[Callable[[Literal["NFKC"], str], str]] = []


def _key(claim: str) -> str:
    return sha256("claim\n" + claim)


def whole_key(text: str) -> str | None:
    """The key of a whole text as one claim, or None for a text with no words."""
    claim = claim_text(text)
    return _key(claim) if claim else None


def sentences(text: str) -> list[str]:
    return [part for part in _SENTENCES.split(text) if part.strip()]


def _keyed(found: dict[str, None], text: str, words: int) -> None:
    """Add the keys of `text` as one claim, by today's fold and the legacy one,
    when it has at least `words` words."""
    claim = claim_text(text)
    if claim and len(claim.split()) >= words:
        found[_key(claim)] = None
        if not text.isascii():  # ASCII folds the same both ways
            old = legacy_claim_text(text)
            if old:
                found[_key(old)] = None


def _others(memory: Memory) -> list[str]:
    """The free-text fields besides summary and details where a claim can sit."""
    tags = list(memory.tags)
    if len(tags) > 1:
        tags.append(" ".join(memory.tags))  # a sentence spread over several tags
    return [memory.source_quote, *tags, memory.source_ref, memory.event_type]


def _seams(texts: Sequence[str]) -> list[str]:
    """A sentence split between two fields, either way round: the last sentence
    of one joined with the first of another."""
    parts = [found for found in map(sentences, texts) if found]
    return [a[-1] + " " + b[0] for a in parts for b in parts if a is not b]


def keys(summary: str, details: str, others: Sequence[str] = ()) -> list[str]:
    """What a new memory is checked by: its whole summary and details, the
    other text fields whole, every sentence of each, and each sentence split
    between two fields; without repeats."""
    found: dict[str, None] = {}
    for text in (summary, details):
        _keyed(found, text, 1)
    for text in others:
        _keyed(found, text, MIN_WORDS)
    for text in (summary, details, *others):
        for part in sentences(text):
            _keyed(found, part, MIN_WORDS)
    for seam in _seams((summary, details, *others[:1])):
        _keyed(found, seam, MIN_WORDS)
    return list(found)


_FIND = (
    "SELECT content_hash, kind, created_at, memory_id FROM content_tombstones"
    " WHERE project = ? AND content_hash IN (SELECT value FROM json_each(?))"
)


def find(db: Db, project: str | None, hashes: Sequence[str]) -> Any:
    """The first tombstone (in `hashes` order) among `hashes`, or None."""
    found = {row[0]: row for row in db.execute(_FIND, (project or "", json.dumps(hashes)))}
    return next((found[h] for h in hashes if h in found), None)


def refused(stone: Any) -> Conflict:
    """The error for a write of tombstoned content: when and which, never why."""
    verb = "forgotten" if stone["kind"] == "forgotten" else "rejected in review"
    return Conflict(
        f"this content was {verb} on {stone['created_at'][:19]}Z (as {stone['memory_id']}) "
        "and will not be stored again; `tree-ring audit --target "
        f"{stone['memory_id']}` shows why"
    )


def refuse_if_tombstoned(db: Db, memory: Memory, allowed: Iterable[str] = ()) -> None:
    """Raise for tombstoned content, but for the keys in `allowed` (those a
    person wrote the memory over, `write/readmit.py`)."""
    skip = set(allowed)
    stone = find(db, memory.project, [k for k in check_keys(memory) if k not in skip])
    if stone is not None:
        raise refused(stone)


def find_all(db: Db, project: str | None, hashes: Sequence[str]) -> list[Any]:
    """Every tombstone among `hashes`, in `hashes` order."""
    found = {row[0]: row for row in db.execute(_FIND, (project or "", json.dumps(hashes)))}
    return [found[h] for h in dict.fromkeys(hashes) if h in found]


_INSERT = (
    "INSERT INTO content_tombstones"
    "(project, content_hash, kind, reason, memory_id, actor, created_at)"
    " VALUES (?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT(project, content_hash) DO UPDATE SET"
    " kind = excluded.kind, reason = excluded.reason, memory_id = excluded.memory_id,"
    " actor = excluded.actor, created_at = excluded.created_at"
)


def record(
    db: Db,
    project: str | None,
    hashes: Iterable[str],
    *,
    kind: str,
    reason: str,
    memory_id: str,
    actor: str,
    at: str,
) -> list[str]:
    """Tombstone `hashes` for `project`; returns them, for the audit entry."""
    written = list(dict.fromkeys(hashes))
    db.executemany(
        _INSERT, [(project or "", h, kind, reason, memory_id, actor, at) for h in written]
    )
    return written


def check_keys(memory: Memory) -> list[str]:
    """What a new memory is checked against: every key of its content, and its
    whole-content hash (what tombstones written before claim keys existed hold)."""
    return [*keys(memory.summary, memory.details, _others(memory)), memory.content_hash]


# ops/sync.py carries at most this many keys for one tombstone.
MAX_KEYS = 1_000


def forget_keys(memory: Memory) -> list[str]:
    """What forgetting or rejecting `memory` tombstones: its whole summary and
    details, the two as one text, and the longer sentences of every text field
    and of the seam between summary and details (by today's fold and the legacy
    one), and its whole-content hash (which older Tree Ring versions check)."""
    found: dict[str, None] = {}
    for text in (memory.summary, memory.details, memory.summary + " " + memory.details):
        _keyed(found, text, 1)
    # A consolidation's sentences are its sources' claims: forgetting the
    # summary forgets the summary, not each memory it lists.
    if memory.source_type != "consolidation":
        texts = (memory.summary, memory.details, *_others(memory))
        for text in texts[2:]:
            _keyed(found, text, SENTENCE_WORDS)
        for text in texts:
            for part in sentences(text):
                _keyed(found, part, SENTENCE_WORDS)
        for seam in _seams(texts[:2]):
            _keyed(found, seam, SENTENCE_WORDS)
    return [*list(found)[: MAX_KEYS - 1], memory.content_hash]
