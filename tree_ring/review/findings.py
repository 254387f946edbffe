"""What in the store needs a person: `tree-ring audit --audit-type TYPE`.

Each finding names one memory and says why it is reported:

- stale: expired but still stored, or not updated in `stale_days` and of low
  salience (user-pinned rows are never stale).
- sensitive: rows with a sensitivity other than normal (hidden from default
  reads, still in the file).
- low_confidence: current rows whose writer was unsure (confidence < 0.3).
- supersession: rows superseded by an id that does not exist, rows that name
  a missing predecessor, replacements waiting for review, and the head of
  every chain of two or more supersessions.
- contradictions: pairs of current rows linked by `contradicts`, once each,
  until a person approves one of them with the other in place.
- review: the review queue, pending and disputed, with why each waits, and
  the requests to forget or confirm a row that wait for a person (an
  agent's, or one an import raised), with who asked and why.

Only the project's rows are read: every partition's for a person, and for an
agent (`reader`) only those it may read, as its recall reads them
(`live.visible`); a row in another partition is as if it were not there,
and is never named. Redacted rows hold nothing to report. A
finding about a row whose text a read withholds (a sensitive row, unless the
view includes them: `read/withheld.py`) is left out and counted, as recall and
list leave such rows out; listed, a sensitive row's summary is still only its
sensitivity, since a report may be pasted anywhere.

A row whose content the other store a project reads forgot (`read/
forgotten_here.py`) is named as the review queue names it: the findings are
what needs a person, and such a row may still need one (a waiting one waits,
an expired one is still stored), so it stays, with every field that holds its
words withheld (`read/withheld.forgotten`) before any finding's summary or
reason is made of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from tree_ring.govern import admission, reasons
from tree_ring.model.errors import UsageError
from tree_ring.model.identity import Identity
from tree_ring.model.record import Memory, format_time, now_iso
from tree_ring.read import withheld
from tree_ring.store import findings
from tree_ring.store.live import View
from tree_ring.store.sql import Db

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.read.forgotten_here import ForgottenHere

TYPES = ("stale", "sensitive", "low_confidence", "supersession", "contradictions", "review")
STALE_DAYS = 90
LOW_SALIENCE = 0.5  # below the default weight a writer gives a memory
LOW_CONFIDENCE = 0.3

# The rows a finding is made of, as a report may name them: each function
# below reads its rows through one (`masked`).
Mask = Callable[[Sequence[Memory]], list[Memory]]


def _as_read(memories: Sequence[Memory]) -> list[Memory]:
    return list(memories)


def masked(forgotten: ForgottenHere | None) -> Mask:
    """Rows as a report names them: those whose content `forgotten` holds
    (the other store forgot it) with their words withheld, one lookup a batch."""
    if forgotten is None:
        return _as_read
    hides = forgotten

    def mask(memories: Sequence[Memory]) -> list[Memory]:
        gone = hides.hidden(memories) if memories else set[str]()
        return [withheld.forgotten(m) if m.id in gone else m for m in memories]

    return mask


@dataclass(frozen=True)
class Finding:
    type: str
    id: str
    reason: str
    summary: str = ""
    # The row it is about: whether a read may list it (`report`).
    memory: Memory | None = field(default=None, compare=False, repr=False)

    def to_dict(self) -> dict[str, str]:
        return {"type": self.type, "id": self.id, "reason": self.reason, "summary": self.summary}


def _shown(memory: Memory) -> str:
    # Sensitive text is not echoed into a report that may be pasted anywhere.
    return withheld.summary(memory, View())


def _finding(kind: str, memory: Memory, reason: str) -> Finding:
    return Finding(kind, memory.id, reason, _shown(memory), memory)


def stale_cutoff(now: str, stale_days: int) -> str:
    """The time `stale_days` before `now`, or a UsageError when that reaches
    back before the year 1, where no time is: the most it may be is said,
    the value given is not (an int of thousands of digits has no text)."""
    if stale_days < 1:
        raise UsageError("--stale-days must be at least 1")
    moment = datetime.fromisoformat(now.replace("Z", "+00:00"))
    try:
        return format_time(moment - timedelta(days=stale_days))
    except OverflowError:  # past a timedelta's days, or a datetime's years
        most = (moment.replace(tzinfo=None) - datetime.min).days
        raise UsageError(
            f"--stale-days reaches back before the year 1, where no time is; use at most {most}"
        ) from None


def stale(
    db: Db,
    project: str | None,
    now: str,
    stale_days: int = STALE_DAYS,
    reader: Identity | None = None,
    mask: Mask = _as_read,
) -> list[Finding]:
    cutoff = stale_cutoff(now, stale_days)
    found: list[Finding] = []
    for m in mask(findings.current_unpinned(db, project, reader)):
        if m.expires_at is not None and m.expires_at <= now:
            reason = f"expired at {m.expires_at[:19]}Z; `tree-ring maintain --apply` removes it"
        elif m.updated_at < cutoff and m.salience < LOW_SALIENCE:
            reason = (
                f"not updated since {m.updated_at[:10]} (over {stale_days} days) "
                f"and low salience {m.salience:.2f}"
            )
        else:
            continue
        found.append(_finding("stale", m, reason))
    return found


def sensitive(
    db: Db, project: str | None, reader: Identity | None = None, mask: Mask = _as_read
) -> list[Finding]:
    return [
        _finding(
            "sensitive",
            m,
            f"sensitivity {m.sensitivity}: hidden from default reads but kept in the store; "
            "redact it if it should not be",
        )
        for m in mask(findings.sensitive(db, project, reader))
    ]


def low_confidence(
    db: Db, project: str | None, reader: Identity | None = None, mask: Mask = _as_read
) -> list[Finding]:
    return [
        _finding(
            "low_confidence",
            m,
            f"confidence {m.confidence:.2f} is below {LOW_CONFIDENCE}: confirm it or forget it",
        )
        for m in mask(findings.current_below(db, project, LOW_CONFIDENCE, reader))
    ]


def supersession(
    db: Db, project: str | None, reader: Identity | None = None, mask: Mask = _as_read
) -> list[Finding]:
    everything = {m.id: m for m in mask(findings.every(db, project, reader))}
    # A row a reader may not read is not missing: only a row not there is.
    held = everything.keys() if reader is None else findings.ids(db, project)
    found: list[Finding] = []
    for m in everything.values():
        if m.superseded_by is not None and m.superseded_by not in held:
            found.append(
                _finding(
                    "supersession", m, f"superseded by {m.superseded_by}, which is not in the store"
                )
            )
        for old_id in m.supersedes:
            old = everything.get(old_id)
            if old_id not in held:
                found.append(
                    _finding("supersession", m, f"replaces {old_id}, which is not in the store")
                )
            elif old is None:
                continue  # in a partition the reader may not read: not its to name
            elif old.superseded_by is None and m.trust in ("pending", "disputed"):
                found.append(
                    _finding(
                        "supersession", m, f"will replace {old_id} once approved (now {m.trust})"
                    )
                )
        if m.superseded_by is None and m.retired_at is None and m.supersedes:
            chain = _chain(m, everything)
            if len(chain) >= 3:
                found.append(
                    _finding(
                        "supersession",
                        m,
                        f"head of a chain of {len(chain) - 1} supersessions: " + " <- ".join(chain),
                    )
                )
    return found


def _chain(head: Memory, everything: dict[str, Memory]) -> list[str]:
    """head <- predecessor <- ... following applied supersessions, cycle-safe."""
    chain = [head.id]
    current = head
    while True:
        previous = [
            everything[i]
            for i in current.supersedes
            if i in everything and everything[i].superseded_by == current.id
        ]
        if not previous or previous[0].id in chain:
            return chain
        current = previous[0]
        chain.append(current.id)


def contradictions(
    db: Db, project: str | None, reader: Identity | None = None, mask: Mask = _as_read
) -> list[Finding]:
    current = {m.id: m for m in mask(findings.current_unrejected(db, project, reader))}
    found: list[Finding] = []
    seen: set[tuple[str, str]] = set()
    for m in current.values():
        for link in m.links:
            other = current.get(link.target)
            if link.type != admission.CONTRADICTS or other is None:
                continue
            pair = (min(m.id, other.id), max(m.id, other.id))
            if pair in seen or findings.settled(m, other):
                continue
            seen.add(pair)
            first, second = (m, other) if m.id == pair[0] else (other, m)
            found.append(
                _finding(
                    "contradictions",
                    first,
                    f"contradicts {second.id} ({second.trust}: {_shown(second)!r}); "
                    "approve one and supersede the other, or reject one",
                )
            )
    return found


def waiting(
    db: Db, project: str | None, reader: Identity | None = None, mask: Mask = _as_read
) -> list[Finding]:
    # A reason may quote content forgotten since (`reasons.Withholding`).
    withholding = reasons.Withholding(db)
    return [
        _finding("review", m, f"{m.trust}: {m.review_reason or 'waiting for review'}")
        for m in mask([withholding.memory(m) for m in findings.waiting(db, project, reader)])
    ] + requests_waiting(db, project, reader, mask)


def requests_waiting(
    db: Db, project: str | None, reader: Identity | None, mask: Mask = _as_read
) -> list[Finding]:
    """A finding for each request to forget or confirm that waits, about the
    row it names, its reason withheld as `review list` withholds it."""
    from tree_ring.review.queue import waiting_requests
    from tree_ring.store import rows
    from tree_ring.write.requests import asked_for

    withholding = reasons.Withholding(db)
    found: list[Finding] = []
    for request in waiting_requests(db, project, View(), reader):
        why = f"{asked_for(request)}, asked by {request.actor} ({request.id}): {request.reason}"
        memory = rows.find(db, request.memory_id)
        if memory is None:
            found.append(Finding("review", request.memory_id, why))
        else:
            [shown] = mask([withholding.memory(memory)])
            found.append(_finding("review", shown, why))
    return found


def report(
    db: Db,
    project: str | None,
    kind: str = "all",
    *,
    now: str | None = None,
    stale_days: int = STALE_DAYS,
    reader: Identity | None = None,
    forgotten: ForgottenHere | None = None,
) -> list[Finding]:
    """The findings of `kind` (or all); `reader`: an agent's identity, whose
    report covers only the rows it may read (a person's, None, every partition);
    `forgotten`: what the other store forgot, whose rows here are named with
    their words withheld (`masked`)."""
    if kind != "all" and kind not in TYPES:
        raise UsageError(f"unknown audit type {kind!r}; use all or one of: {', '.join(TYPES)}")
    moment = now or now_iso()
    stale_cutoff(moment, stale_days)  # a bad --stale-days is refused whatever the type
    wanted = TYPES if kind == "all" else (kind,)
    mask = masked(forgotten)
    found: list[Finding] = []
    for name in wanted:
        if name == "stale":
            found += stale(db, project, moment, stale_days, reader, mask)
        elif name == "sensitive":
            found += sensitive(db, project, reader, mask)
        elif name == "low_confidence":
            found += low_confidence(db, project, reader, mask)
        elif name == "supersession":
            found += supersession(db, project, reader, mask)
        elif name == "contradictions":
            found += contradictions(db, project, reader, mask)
        else:
            found += waiting(db, project, reader, mask)
    return found


@dataclass(frozen=True)
class Listed:
    """The findings a read may list, and how many it left out."""

    findings: list[Finding]
    withheld: int  # about rows whose text the view withholds (sensitive ones)


def listed(found: list[Finding], view: View) -> Listed:
    """`found` as a read under `view` may list it: a finding about a row it
    withholds is left out, as recall and list leave the row out, and counted."""
    shown = [f for f in found if f.memory is None or not withheld.hidden(f.memory, view)]
    return Listed(shown, len(found) - len(shown))
