"""Reasons an agent gives that later reads show: a refutation's, in every
brief until a person decides, and a request to forget, in the review queue.

A reason is free text, so it is held to what a memory's text is held to: it
must not read as sensitive (health, financial, legal, private, a personal
identifier) when the row it is about is shown by default, and it must not
hold content the project forgot. An agent's
reason that does is refused when given; one that came to do so later (the
content it quotes was forgotten after) is shown with that content withheld
(`shown`), wherever it is shown: the brief, `show`, `list`, the review
queue, the inbox, `maintain --suggest`, an export, MCP, the viewer and the
TUI; and so is the reason an audit entry records (`entries_shown`), printed
only: the log keeps the bytes its chain was hashed over. An export is a
backup too; a restore takes the withheld words back as they are, so the
forgotten content does not return with it.

A quote sits inside a reason's own words ("refuted by codex: contradicts:
<quote>"), not as a sentence of its own, so a reason is checked run by run
of its words (`forgotten_spans`): every run of at least `MIN_WORDS` words,
and the whole reason, keyed as a write's claims are (`claims.claim_text`).

Every reason a decision keeps, whoever gives it (a forget, a review
decision, a policy change), is first checked as it is given (`check_reason`).
"""

from __future__ import annotations

import re

from tree_ring.model.errors import Conflict, UsageError
from tree_ring.model.text import WITHHELD_FORGOTTEN, check_characters

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any

    from tree_ring.model.record import Memory
    from tree_ring.store.sql import Db

# The longest reason a decision keeps.
MAX_REASON = 1_000
# What stands for forgotten words in a reason a read shows.
FORGOTTEN = WITHHELD_FORGOTTEN
# Whether the project has any tombstone: most have none, and then no reason
# is keyed at all.
_ANY = "SELECT 1 FROM content_tombstones WHERE project = ? LIMIT 1"
_WORD = re.compile(r"[^\W_]")


def check_reason(reason: str | None) -> str:
    """A reason as every decision keeps it (the audit log, a row's review
    reason, a policy change, the team ledger): one line, held to the
    invisible-character policy of every stored text field (`model/text.py`),
    and no secret."""
    text = (reason or "").strip()
    if not text:
        raise UsageError("a reason is required (--reason); it is kept in the audit log")
    if len(text) > MAX_REASON or any(ord(c) < 32 for c in text):
        raise UsageError(f"the reason must be one line of at most {MAX_REASON} characters")
    check_characters("the reason", text)
    from tree_ring import guard

    guard.check_fields({"reason": text})
    return text


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
    return Withholding(db).spans(project, reason)


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
    return Withholding(db).reason(project, reason)


def memory_shown(db: Db, memory: Memory) -> Memory:
    """`memory` with its review reason as a read may show it (`shown`)."""
    return Withholding(db).memory(memory)


def rows_shown(db: Db, found: Iterable[Any]) -> Iterator[Memory]:
    """Each stored row of `found` (`memories` columns) as a memory, as
    `memory_shown` gives it: the tombstones asked about once per project, not
    once per row, and one row at a time, so an export still streams."""
    from tree_ring.store import rows

    withholding = Withholding(db)
    for row in found:
        yield withholding.memory(rows.from_row(row))


def entries_shown(db: Db, project: str, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Audit log entries (`store/audit.entries`) of `project`'s store, each
    with the reason its detail records as a read may show it (`shown`). The
    log keeps the bytes it was hashed over; only what is printed changes."""
    withholding = Withholding(db)
    return [withholding.entry(project, e) for e in entries]


def readmissions_shown(
    db: Db, project: str, found: dict[str, dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """Re-admissions (`store/audit.readmissions`) as a row of `project`
    carries them to its ledger line and export row: each reason with what the
    project forgot since withheld. A person's reason quoting forgotten
    content is refused when given (`write/readmit.py`)."""
    withholding = Withholding(db)
    for readmission in found.values():
        readmission["reason"] = withholding.reason(project, str(readmission["reason"]))
    return found


def spans_held(reason: str, held: Callable[[list[str]], set[str]]) -> list[tuple[int, int]]:
    """The (start, end) character spans of `reason` whose runs of words
    `held` holds the key of, merged, in order: every run of at least
    `tombstones.MIN_WORDS` words and the whole reason (then all of it, what
    annotates the claim too), each keyed as a write's claims are, by today's
    fold and, for text that is not ASCII, the legacy one. `held` is given
    every key at once and returns those a tombstone holds: a store's
    (`Withholding`), or a ledger file's lines (`team/ledger.py`)."""
    from tree_ring.store import tombstones

    tokens = list(tombstones.TOKEN.finditer(reason))
    runs = tombstones.runs(reason, tokens)
    found = sorted(span for key in held(list(runs)) for span in runs[key])
    if found and found[0] == tombstones.WHOLE:
        return [(0, len(reason))]  # the claim with what annotates it
    merged: list[tuple[int, int]] = []
    for first, last in found:
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    return [_inner(tokens[first], tokens[last]) for first, last in merged]


def carried_quoting(db: Db, memory: Memory, *, agent: bool = False) -> str | None:
    """The first field of `memory`, named as an export names it, that a file
    or a team ledger line fills beside its claim, that a write does not key
    (`tombstones.check_keys`), and that holds content a write into its
    project answers to (`tombstones.matching`: its own tombstones and those
    of the store read beside it); or None. Each is read as a reason is, run
    by run of its words (`spans_held`): a review reason quotes a claim inside
    its own words ("the import claims ...; <quote>"). An import or a sync
    refuses such a row, as it refuses the claim itself: those fields are
    stored, exported and written to the team ledger as they stand. A
    restored rejected row meets its own rejection's tombstone, and its
    reviewer's reason may quote it: that is no forgotten content coming back."""
    from tree_ring.store import tombstones

    own = memory.id if memory.trust == "rejected" else None
    return quoting(db, memory.project or "", tombstones.carried(memory), agent=agent, own=own)


def refusal(field: str, fix: str = "give the row without those words") -> Conflict:
    """The error for a row whose `field` quotes forgotten content (`quoting`)."""
    return Conflict(
        f"{field} holds content that was forgotten here, and would keep it in "
        f"the store and the team ledger; {fix}"
    )


def files_quoting(
    db: Db, project: str, paths: Iterable[str], *, agent: bool = False
) -> Conflict | None:
    """Why a memory may not name files of `paths` when one of them quotes
    content a write into `project` answers to, read whole and folder by
    folder (`tombstones.path_texts`): the path is stored, shown and written
    to the team ledger as it stands; or None."""
    from tree_ring.store import tombstones

    if not tombstones.any_answered(db, project):
        return None
    texts = [("files[].path", text) for path in paths for text in tombstones.path_texts(path)]
    field = quoting(db, project, texts, agent=agent)
    return None if field is None else refusal(field, "name no file whose path says them")


def quoting(
    db: Db,
    project: str,
    fields: Iterable[tuple[str, str]],
    *,
    agent: bool = False,
    own: str | None = None,
) -> str | None:
    """The name of the first of `fields` (name, text) whose text holds
    content a write into `project` answers to, read run by run of its words
    as `carried_quoting` reads a row's; or None. `own`: a rejected row's id,
    whose own rejection's tombstone it may quote."""
    from tree_ring.store import tombstones

    def held(keys: list[str]) -> set[str]:
        found = tombstones.matching(db, project, keys, agent=agent)
        return {
            str(row["content_hash"])
            for row in found
            if not (row["kind"] == "rejected" and row["memory_id"] == own)
        }

    for name, text in fields:
        if tombstones.keyed(text) and spans_held(text, held):
            return name
    return None


def withheld(reason: str, spans: list[tuple[int, int]]) -> str:
    """`reason` with each of `spans` (`spans_held`) replaced by `FORGOTTEN`."""
    for start, end in reversed(spans):
        reason = reason[:start] + FORGOTTEN + reason[end:]
    return reason


class Withholding:
    """`shown` for the reasons of one read: whether a project has any
    tombstone is asked once per read, so a read of many rows in a project
    that forgot nothing (most) keys no reason and costs one query."""

    def __init__(self, db: Db) -> None:
        self.db = db
        self._forgets: dict[str, bool] = {}

    def forgets(self, project: str) -> bool:
        """Whether `project` has any tombstone in this store."""
        if project not in self._forgets:
            self._forgets[project] = self.db.execute(_ANY, (project,)).fetchone() is not None
        return self._forgets[project]

    def spans(self, project: str, reason: str) -> list[tuple[int, int]]:
        """As `forgotten_spans`."""
        if not reason or not self.forgets(project):
            return []
        from tree_ring.store import tombstones

        return spans_held(reason, lambda keys: tombstones.held(self.db, project, keys))

    def reason(self, project: str, reason: str) -> str:
        """`reason` with each run of forgotten words replaced by `FORGOTTEN`."""
        return withheld(reason, self.spans(project, reason))

    def memory(self, memory: Memory) -> Memory:
        """`memory` with its review reason as `reason` gives it."""
        if not memory.review_reason:
            return memory
        reason = self.reason(memory.project or "", memory.review_reason)
        return memory if reason == memory.review_reason else memory.replace(review_reason=reason)

    def entry(self, project: str, entry: dict[str, Any]) -> dict[str, Any]:
        """An audit entry whose detail (canonical JSON) records a `reason`,
        with that reason as `reason` gives it and the detail written again."""
        raw = entry.get("detail")
        if not isinstance(raw, str) or '"reason"' not in raw or not self.forgets(project):
            return entry
        from tree_ring.model import jsontext
        from tree_ring.model.record import canonical_json

        try:
            detail = jsontext.as_object(jsontext.loads(raw))
        except ValueError:
            return entry
        said = detail.get("reason") if detail else None
        if detail is None or not isinstance(said, str):
            return entry
        reason = self.reason(project, said)
        if reason == said:
            return entry
        return {**entry, "detail": canonical_json({**detail, "reason": reason})}
