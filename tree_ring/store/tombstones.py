"""Content tombstones: what was forgotten or rejected never comes back.

A tombstone holds hashes of a memory's claims, never its text. Forgetting or
rejecting a memory records a key for its whole summary, one for its whole
details (when there are any), and, for a summary of several sentences, one for
each sentence of at least `SENTENCE_WORDS` words. A later write is refused
when any of its own keys is tombstoned, and its keys are its whole summary,
its whole details and every sentence of either (`MIN_WORDS` words or more).
So a forgotten claim is refused with other details, wrapped in quotes, with
"Note:" in front or "(confirmed)" behind, inside a consolidation that lists
it, or as one sentence of a longer memory; while a short stock sentence that
many memories share ("See the runbook.") never blocks the others because one
of them was forgotten.

The keys are over `claim_text`, which folds what never makes a claim new:
case, width, spacing, punctuation, wrapping quotes and markup, and the
annotations people put around a claim ("Note:", "FYI -", "(confirmed)").
Tombstones written before these keys existed hold `record.content_hash`
(summary and details together); a write is checked against that too.

A tombstone's reason stays in the store and the audit log. It is never
echoed in an error: a reason is free text someone else wrote (an imported
tombstone's reason could carry an instruction, or a secret), so the error
says when and which memory, and points at `tree-ring audit`.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

from tree_ring.model.errors import Conflict
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


def claim_text(text: str) -> str:
    """The words a claim is made of, folded: what a tombstone key is over."""
    folded = unicodedata.normalize("NFKC", text)
    while True:
        trimmed = _TRAILING.sub("", _LEADING.sub("", folded.strip()))
        if trimmed == folded.strip():
            break
        folded = trimmed
    return " ".join(_NOT_WORD.sub(" ", folded.casefold()).split())


def _key(claim: str) -> str:
    return sha256("claim\n" + claim)


def whole_key(text: str) -> str | None:
    """The key of a whole text as one claim, or None for a text with no words."""
    claim = claim_text(text)
    return _key(claim) if claim else None


def sentences(text: str) -> list[str]:
    return [part for part in _SENTENCES.split(text) if part.strip()]


def _wholes(summary: str, details: str) -> dict[str, None]:
    return {_key(claim): None for claim in map(claim_text, (summary, details)) if claim}


def keys(summary: str, details: str) -> list[str]:
    """What a new memory is checked by: its whole summary and details, and
    every sentence of either, summary first, without repeats."""
    found = _wholes(summary, details)
    for part in (*sentences(summary), *sentences(details)):
        claim = claim_text(part)
        if len(claim.split()) >= MIN_WORDS:
            found[_key(claim)] = None
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
    return [*keys(memory.summary, memory.details), memory.content_hash]


def forget_keys(memory: Memory) -> list[str]:
    """What forgetting or rejecting `memory` tombstones: its whole summary and
    details, the longer sentences of a summary of several, and its
    whole-content hash (which older Tree Ring versions check)."""
    found = _wholes(memory.summary, memory.details)
    parts = sentences(memory.summary)
    # A consolidation's sentences are its sources' claims: forgetting the
    # summary forgets the summary, not each memory it lists.
    if len(parts) > 1 and memory.source_type != "consolidation":
        for part in parts:
            claim = claim_text(part)
            if len(claim.split()) >= SENTENCE_WORDS:
                found[_key(claim)] = None
    return [*found, memory.content_hash]
