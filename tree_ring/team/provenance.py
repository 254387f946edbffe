"""Where a team ledger line came from, kept in the store, and what a claim becomes.

`team/upstream.py` tells a line the upstream's ledger holds (trusted, as the
rest of that repository is) from one this clone cannot trace there (a claim).
This module keeps that answer beside what the line made: the memory it wrote,
or the request to forget it raised (`ledger_provenance`), so `show`, the
review queue, the TUI and the web view can say who put it there. A row this
store wrote itself has no entry.

A claim never becomes a person's decision on its own: `as_claim` gives the
memory it asks for the state of any unvouched write (pending, never
heartwood, origin `import`, so its source type weighs in recall no more than
an import's, `read/ranking.authority`; a claimed review kept only as words),
and a claim that rewrites or retires a stored memory becomes a new pending
row that replaces it only when a person approves it (`review approve`, as
for any pending replacement).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tree_ring.model.record import Memory, sha256
from tree_ring.store import ledger_rows
from tree_ring.store.sql import Db
from tree_ring.team import ledger_delta
from tree_ring.team.upstream import UPSTREAM, WORKING_TREE, Provenance, withheld_author

MAX_REASON = 1_000
# Fields whose change a rewrite claim names for the reviewer.
_WATCHED = (
    "summary",
    "details",
    "ring",
    "scope",
    "event_type",
    "trust",
    "origin",
    "reviewed_by",
    "expires_at",
    "valid_to",
    "retired_at",
    "superseded_by",
    "supersedes",
    "retention",
    "salience",
    "confidence",
)


def line_hash(text: str) -> str:
    return sha256(text)


def note(db: Db, subject: str, project: str, text: str, source: Provenance, at: str) -> None:
    """Record where the line that made `subject` (a memory or request id) came from."""
    ledger_rows.note(
        db,
        (
            subject,
            project,
            line_hash(text),
            source.source,
            source.commit,
            source.author,
            source.ref,
            at,
        ),
    )


def taken(db: Db, texts: Iterable[str]) -> set[str]:
    """The line hashes of `texts` a sync already took as claims."""
    return {line_hash(text) for text in ledger_delta.taken(db, texts)}


def claimed(db: Db, ids: Iterable[str]) -> set[str]:
    """Which of `ids` are rows a claim made (not an upstream line, not this store)."""
    return ledger_rows.subjects_not_from(db, UPSTREAM, ids)


def of(db: Db, subjects: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Subject -> where its line came from, as shown to a person (`label`
    one line; `source`, `commit`, `author`, `ref` apart), for those that
    came from a ledger line."""
    wanted = sorted(set(subjects))
    if not wanted or not ledger_rows.kept(db):
        return {}
    found = ledger_rows.provenance_of(db, wanted)
    out: dict[str, dict[str, Any]] = {}
    for subject, source, commit, author, ref in found:
        # A row kept before authors were checked as they are read from git
        # (`safe_author`); the characters it holds each client escapes (`said`).
        author = withheld_author(str(author)) if author else None
        said = Provenance(str(source), commit, author, ref)
        out[str(subject)] = {
            "source": said.source,
            "commit": said.commit,
            "author": said.author,
            "ref": said.ref,
            "label": "team ledger, " + said.label(),
        }
    return out


def said(entry: dict[str, Any]) -> str:
    """One of `of`'s entries as the TUI and the web view say it, after "team
    ledger": who committed an upstream line, or whence a claim came. Raw
    text: an author is whatever a commit says, so each client makes it safe
    to show (one line on a terminal, escaped in a page)."""
    source = str(entry.get("source") or "")
    if source != UPSTREAM:
        return "a claim from " + ("the working tree" if source == WORKING_TREE else f"a {source}")
    ref = str(entry.get("ref") or "").removeprefix("refs/remotes/")
    where = f"upstream {ref}".rstrip()
    commit, author = entry.get("commit"), entry.get("author")
    if not commit and not author:
        return f"the {where}"
    said = f"commit {str(commit)[:7]}" if commit else "a commit"
    return said + (f" by {author}" if author else "") + f" ({where})"


def said_of(db: Db, subjects: Iterable[str]) -> dict[str, str]:
    """Subject -> `said` of where its line came from, for those a ledger line made."""
    return {subject: said(entry) for subject, entry in of(db, subjects).items()}


def as_claim(memory: Memory, source: Provenance, held: Memory | None) -> Memory:
    """The memory a claim asks for, as an unvouched write is stored: pending,
    never heartwood, origin `import`, no review, with why it waits."""
    claims: list[str] = []
    if memory.ring == "heartwood":
        claims.append("ring heartwood")
    if memory.origin != "import":
        claims.append(f"origin {memory.origin}")
    if memory.reviewed_by:
        claims.append(f"a review by {memory.reviewed_by}")
    if memory.scope == "global":
        claims.append("scope global")
    reason = f"a team ledger line from the {source.label()}, not the upstream's"
    if held is not None:
        changed = _changed(held, memory)
        reason += f"; it would rewrite {held.id} ({', '.join(changed) or 'its record'})"
    if claims:
        reason += f"; it claims {', '.join(claims)}"
    reason += ": not believed until a person approves it"
    return memory.replace(
        trust="pending",
        ring="cambium" if memory.ring == "heartwood" else memory.ring,
        origin="import",
        origin_session=None,
        reviewed_by=None,
        reviewed_at=None,
        review_reason=reason[:MAX_REASON],
    )


def rewrite(claimed: Memory, held: Memory, new_id: str) -> Memory:
    """A claim's version of a stored memory as a new row that replaces it once
    a person approves it; the stored memory stays as it is until then."""
    replacement = claimed.replace(
        id=new_id,
        supersedes=(held.id,),
        superseded_by=None,
        retired_at=None,
        operation_id=None,
    )
    return replacement


def _changed(held: Memory, claimed: Memory) -> list[str]:
    before, after = held.to_dict(), claimed.to_dict()
    flat_before = {**before, **before.get("review", {}), **before.get("source", {})}
    flat_after = {**after, **after.get("review", {}), **after.get("source", {})}
    return [name for name in _WATCHED if flat_before.get(name) != flat_after.get(name)]
