"""Reasons: what every reason a decision keeps is held to, and how a read shows one.

A reason is free text, so it is held to what a memory's text is held to.
Every reason a decision keeps, whoever gives it (a forget, a review
decision, a promotion, a refutation, a supersession, a confirmation, a
re-admission, a policy change), is checked as it is given (`check_reason`:
one line, no invisible characters, no secret), and then, in the decision's
own transaction, refused in one line when it holds content the project
already forgot (`kept`), a person's as an agent's: a reason kept on a
memory travels with it, in its export and its team ledger line, where a
clone that forgot the words refuses the line; one kept in the audit log or
the policy audit would keep the words in the store. A reason an agent gives
that later reads show (a refutation's, in every brief until a person
decides; a request to forget, in the review queue) must also not read as
sensitive (health, financial, legal, private, a personal identifier) when
the row it is about is shown by default (`problem`).

A reason that came to quote forgotten content later (the content was
forgotten after it was given) is shown with that content withheld
(`shown`), wherever it is shown: the brief, `show`, `list`, the review
queue, the inbox, `maintain --suggest`, an export, MCP, the viewer and the
TUI; and so is the reason an audit entry records (`entries_shown`) and a
policy decision's (`decisions_shown`), printed only: the logs keep their
bytes (the audit log's chain was hashed over them). On a memory, the forget
withholds it from the row itself (`write/carried.py`). An export is a
backup too; a restore takes the withheld words back as they are, so the
forgotten content does not return with it.

A quote sits inside a reason's own words ("refuted by codex: contradicts:
<quote>"), not as a sentence of its own, so a reason is checked run by run
of its words (`forgotten_spans`, `quoting`): every run of at least
`MIN_WORDS` words, and the whole reason, keyed as a write's claims are
(`claims.claim_text`).
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


# Where a decision keeps its reason, as `kept`'s refusal says it.
ON_MEMORY = "is kept on the memory and travels with it (its export, the team ledger)"
IN_AUDIT_LOG = "is kept in the audit log"
IN_POLICY_AUDIT = "is kept in the audit log and the policy audit"
FORGOTTEN_HERE = "it holds content this project forgot"


def problem(db: Db, project: str, reason: str, about: str = "normal") -> str | None:
    """Why `reason`, about a row of sensitivity `about`, may not be shown in
    `project`'s reads, or None. A reason about a sensitive row is withheld
    with the row's text wherever that is (`read/withheld.py`), so only a
    reason about a row shown by default must not read as sensitive."""
    return sensitive(reason, about) or (
        FORGOTTEN_HERE if quotes_forgotten(db, project, reason) else None
    )


def quotes_forgotten(db: Db, project: str, reason: str) -> bool:
    """Whether `reason` holds content a write into `project` answers to (its
    own tombstones and those of the store `db` answers to, a person's
    forgets and rejections), read run by run of its words as a carried
    field of an imported row is (`quoting`)."""
    from tree_ring.store import tombstones

    if not tombstones.any_answered(db, project):
        return False
    return quoting(db, project, [("the reason", reason)]) is not None


def kept(
    db: Db, project: str, reason: str, where: str, around: tuple[Db, str] | None = None
) -> str:
    """`reason`, as a decision in `project` keeps it (`where`: on the memory,
    in the audit log), refused in one line when it holds content already
    forgotten (`quotes_forgotten`): in `project`, or in the project `around`
    names (the store and id of the project a user-store decision is made
    from, whose reads of the user store show the reason). Whoever gives it:
    a person's reason kept on a memory would otherwise travel in the team
    ledger to clones that refuse the line, and no reason stored after a
    forget may hold its words. The caller holds the write transaction, so
    no forget comes between this check and the reason's write."""
    if quotes_forgotten(db, project, reason) or (
        around is not None and quotes_forgotten(around[0], around[1], reason)
    ):
        raise UsageError(f"the reason {where}, and {FORGOTTEN_HERE}; give the reason without it")
    return reason


def sensitive(reason: str, about: str = "normal") -> str | None:
    """Why `reason` reads as sensitive, about a row shown by default, or
    None. A secret in it too, whatever the row: a reason kept before a newer
    guard rule is read by today's, as a row's text is."""
    from tree_ring import guard

    if guard.find_secret(reason) is not None:
        return "it reads as a secret"
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


def decisions_shown(db: Db, project: str, decisions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The write policy's decisions (`coordinator.audit_entries`) of
    `project`'s store, each with its reason (a person's recovery quotes
    theirs) as a read may show it (`shown`), as `entries_shown` gives the
    audit log's."""
    withholding = Withholding(db)
    return [withholding.decision(project, d) for d in decisions]


def readmissions_shown(
    db: Db, project: str, found: dict[str, dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """Re-admissions (`store/audit.readmissions`) as a row of `project`
    carries them to its export row: each reason with what the project forgot
    since withheld. A reason quoting forgotten content is refused when given
    (`kept`); its ledger line withholds the same as every carried string of
    a line (`team/ledger.withhold_line`)."""
    withholding = Withholding(db)
    for readmission in found.values():
        readmission["reason"] = withholding.reason(project, str(readmission["reason"]))
    return found


def spans_held(reason: str, held: Callable[[list[str]], set[str]]) -> list[tuple[int, int]]:
    """The (start, end) character spans of `reason` whose runs of words
    `held` holds the key of, merged, in order: every run of at least
    `tombstones.MIN_WORDS` words and the whole reason (then all of it, what
    annotates the claim too), each keyed as a write's claims are
    (`carried_words.runs`). `held` is given
    every key at once and returns those a tombstone holds: a store's
    (`Withholding`), or a ledger file's lines (`team/ledger.py`)."""
    from tree_ring.store import carried_words

    tokens = list(carried_words.TOKEN.finditer(reason))
    runs = carried_words.runs(reason, tokens)
    found = sorted(span for key in held(list(runs)) for span in runs[key])
    if found and found[0] == carried_words.WHOLE:
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
    from tree_ring.store import carried_words

    own = memory.id if memory.trust == "rejected" else None
    return quoting(db, memory.project or "", carried_words.carried(memory), agent=agent, own=own)


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
    folder (`carried_words.path_texts`): the path is stored, shown and written
    to the team ledger as it stands; or None."""
    from tree_ring.store import carried_words, tombstones

    if not tombstones.any_answered(db, project):
        return None
    texts = [("files[].path", text) for path in paths for text in carried_words.path_texts(path)]
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
    from tree_ring.store import carried_words, tombstones

    def held(keys: list[str]) -> set[str]:
        found = tombstones.matching(db, project, keys, agent=agent)
        return {
            str(row["content_hash"])
            for row in found
            if not (row["kind"] == "rejected" and row["memory_id"] == own)
        }

    for name, text in fields:
        if carried_words.keyed(text) and spans_held(text, held):
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

    def decision(self, project: str, decision: dict[str, Any]) -> dict[str, Any]:
        """A policy decision with its reason as `reason` gives it."""
        said = decision.get("reason")
        if not isinstance(said, str):
            return decision
        reason = self.reason(project, said)
        return decision if reason == said else {**decision, "reason": reason}

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
