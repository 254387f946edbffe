"""Reasons an agent gives that later reads show: a refutation's, in every
brief until a person decides, and a request to forget, in the review queue.

A reason is free text, so it is held to what a memory's text is held to: it
must not read as sensitive (health, financial, legal, private, a personal
identifier) when the row it is about is shown by default, and it must not
hold content the project forgot. An agent's
reason that does is refused when given; one that came to do so later (the
content it quotes was forgotten after) is shown with that content withheld
(`shown`), wherever it is shown: the brief, `show`, the review queue, MCP,
the viewer and the TUI.

A quote sits inside a reason's own words ("refuted by codex: contradicts:
<quote>"), not as a sentence of its own, so a reason is checked run by run
of its words (`forgotten_spans`): every run of at least `MIN_WORDS` words,
and the whole reason, keyed as a write's claims are (`tombstones.claim_text`).
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.model.record import Memory
    from tree_ring.store.sql import Db

# What stands for forgotten words in a reason a read shows.
FORGOTTEN = "[withheld: forgotten content]"
# Whether the project has any tombstone: most have none, and then no reason
# is keyed at all.
_ANY = "SELECT 1 FROM content_tombstones WHERE project = ? LIMIT 1"
_TOKEN = re.compile(r"\S+")
_WORD = re.compile(r"[^\W_]")


def problem(db: Db, project: str, reason: str, about: str = "normal") -> str | None:
    """Why `reason`, about a row of sensitivity `about`, may not be shown in
    `project`'s reads, or None. A reason about a sensitive row is withheld
    with the row's text wherever that is (`read/withheld.py`), so only a
    reason about a row shown by default must not read as sensitive."""
    return sensitive(reason, about) or (
        "it holds content this project forgot" if forgotten_spans(db, project, reason) else None
    )


def sensitive(reason: str, about: str = "normal") -> str | None:
    """Why `reason` reads as sensitive, about a row shown by default, or None."""
    from tree_ring import guard

    kind = guard.classify(reason) if about == "normal" else "normal"
    return None if kind == "normal" else f"it reads as {kind.replace('_', ' ')} information"


def forgotten_spans(db: Db, project: str, reason: str) -> list[tuple[int, int]]:
    """The (start, end) character spans of `reason` that hold content
    `project` forgot (its own tombstones in `db`), merged, in order."""
    if not reason or db.execute(_ANY, (project,)).fetchone() is None:
        return []
    from tree_ring.store import tombstones

    tokens = list(_TOKEN.finditer(reason))
    # Each key, with the runs of tokens (first, last) it was made from.
    runs: dict[str, list[tuple[int, int]]] = {}
    # The legacy fold differs from today's only for text that is not ASCII.
    folds = [tombstones.claim_text]
    if not reason.isascii():
        folds.append(tombstones.legacy_claim_text)
    for fold in folds:
        whole = fold(reason)
        if whole:
            runs.setdefault(tombstones.claim_key(whole), []).append((0, len(tokens) - 1))
        # Each folded word, with the token of the reason it came from.
        words = [(word, i) for i, t in enumerate(tokens) for word in fold(t.group()).split()]
        for start in range(len(words)):
            claim = " ".join(word for word, _ in words[start : start + tombstones.MIN_WORDS - 1])
            for end in range(start + tombstones.MIN_WORDS - 1, len(words)):
                claim = f"{claim} {words[end][0]}" if claim else words[end][0]
                key = tombstones.claim_key(claim)
                runs.setdefault(key, []).append((words[start][1], words[end][1]))
    held = tombstones.held(db, project, list(runs))
    found = sorted(span for key in held for span in runs[key])
    merged: list[tuple[int, int]] = []
    for first, last in found:
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    return [_inner(tokens[first], tokens[last]) for first, last in merged]


def _inner(first: re.Match[str], last: re.Match[str]) -> tuple[int, int]:
    """From the first letter or digit of `first` to the last of `last`: the
    punctuation around a quote ("...branch;") is the reason's, and stays."""
    lead = _WORD.search(first.group())
    trail = _WORD.search(last.group()[::-1])
    start = first.start() + (lead.start() if lead else 0)
    end = last.end() - (trail.start() if trail else 0)
    return start, end


def shown(db: Db, project: str, reason: str) -> str:
    """`reason` as a read may show it: each run of its words that holds
    content `project` forgot replaced by `FORGOTTEN`, the rest as written."""
    spans = forgotten_spans(db, project, reason)
    for start, end in reversed(spans):
        reason = reason[:start] + FORGOTTEN + reason[end:]
    return reason


def memory_shown(db: Db, memory: Memory) -> Memory:
    """`memory` with its review reason as a read may show it (`shown`)."""
    if not memory.review_reason:
        return memory
    reason = shown(db, memory.project or "", memory.review_reason)
    return memory if reason == memory.review_reason else memory.replace(review_reason=reason)
