"""Whether a `Memory` may be stored: every limit, vocabulary, character and
encoding rule a write checks before the guard and governance see it.

`validate` raises one `UsageError` that names the field and what to do; it
never echoes the offending text. The limits and vocabularies are declared in
`tree_ring.model.record`; the character policy in `tree_ring.model.text`.
"""

from __future__ import annotations

import math

from tree_ring.model.errors import UsageError
from tree_ring.model.record import (
    MAX_DETAILS,
    MAX_IDENTIFIER,
    MAX_QUOTE,
    MAX_REF,
    MAX_SUMMARY,
    MAX_TAG,
    MAX_TAGS,
    ORIGINS,
    REDACTED,
    RETENTIONS,
    RINGS,
    SCOPES,
    SENSITIVITIES,
    TRUST_STATES,
    Memory,
    compiled_patterns,
)
from tree_ring.model.text import refusal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    Problems = Iterator[tuple[str, str]]

# How far a row's record times may run past the clock that reads them: two
# machines' clocks differ by that much.
AHEAD_SECONDS = 60
RECORD_TIMES = ("created_at", "updated_at", "retired_at")


def dated_ahead(memory: Memory, latest: str | None = None) -> tuple[str, str] | None:
    """The first of `memory`'s record times (`RECORD_TIMES`) later than
    `latest` (by default, `AHEAD_SECONDS` past now), as (its field, the
    time); None when none is. A row read from a file or a team ledger line
    was not written, changed or retired after it is read: one dated later
    would stand past every later write in the inbox (and a line changed
    later would win every merge of its id), and one retired later would
    read as current to a look at now (`--as-of`)."""
    if latest is None:
        import time

        ahead = time.gmtime(time.time() + AHEAD_SECONDS)
        latest = time.strftime("%Y-%m-%dT%H:%M:%S.999999Z", ahead)
    for name in RECORD_TIMES:
        when = getattr(memory, name)
        if when is not None and when > latest:
            return name, when
    return None


# A validity window that closes before it opens.
INVERTED_WINDOW = "valid-to must be later than valid-from"
_REQUIRED_FOR_SCOPE = {"agent": "agent_profile", "workflow": "workflow_id", "session": "session_id"}
# The identifiers a memory names, as a write checks them: (name, column).
_IDENTIFIERS = (
    ("project", "project"),
    ("agent profile", "agent_profile"),
    ("workflow id", "workflow_id"),
    ("session id", "session_id"),
    ("operation id", "operation_id"),
    ("source type", "source_type"),
    ("reviewed by", "reviewed_by"),
    ("origin session", "origin_session"),
)


def _text(
    name: str, column: str, value: str, limit: int, plain: bool, *, multiline: bool = False
) -> Problems:
    if len(value) > limit:
        yield column, f"{name} is {len(value):,} characters; the limit is {limit:,}"
    elif not plain:
        yield from _characters(name, column, value, multiline)


def _characters(name: str, column: str, value: str, multiline: bool = False) -> Problems:
    """The one invisible-character policy (`model.text`), for every text field."""
    problem = refusal(name, value, multiline=multiline)
    if problem is not None:
        yield column, problem


def _identifier(name: str, column: str, value: str | None, plain: bool) -> Problems:
    if value is None:
        return
    if not value.strip():
        yield column, f"{name} must not be blank; omit it or give a value"
    elif len(value) > MAX_IDENTIFIER:
        yield column, f"{name} must be at most {MAX_IDENTIFIER} characters"
    elif not plain:
        yield from _characters(name, column, value)


def _member(name: str, column: str, value: str, allowed: tuple[str, ...]) -> Problems:
    if value not in allowed:
        yield column, f"unknown {name}{shown(value)}; use one of: {', '.join(allowed)}"


def _score(column: str, value: float) -> Problems:
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        yield column, f"{column} must be a number between 0 and 1"


# Printable ASCII; deleting it from a text leaves only what the checks refuse.
_PRINTABLE_ASCII = bytes(range(0x20, 0x7F))


def _plain(memory: Memory) -> bool:
    """Whether every text field is printable ASCII, apart from the newlines and
    tabs multi-line fields may hold.

    Such text has no lone surrogate and none of the characters the control
    checks refuse, so `validate` skips those searches. Almost every memory is
    plain, and one test over all its fields costs less than a search per field;
    `bytes.translate` makes the test, as str.isprintable() reads the Unicode
    database for every character, ASCII or not.
    """
    one_line = [memory.summary, memory.source_ref, memory.event_type, memory.source_type]
    one_line += memory.tags
    one_line += [link.target for link in memory.links]
    for value in (
        memory.project,
        memory.agent_profile,
        memory.workflow_id,
        memory.session_id,
        memory.operation_id,
        memory.review_reason,
        memory.reviewed_by,
        memory.origin_session,
    ):
        if value:
            one_line.append(value)
    joined = "".join(one_line)
    multiline = memory.details + memory.source_quote
    return (
        joined.isascii()
        and multiline.isascii()
        and not joined.encode().translate(None, _PRINTABLE_ASCII)
        and not multiline.encode().translate(None, _PRINTABLE_ASCII + b"\t\n")
    )


def _encoding(memory: Memory) -> Problems:
    """Lone surrogates in any text field, the first in guard order."""
    surrogate = compiled_patterns().surrogate
    for name, value in {**memory.text_fields(), "source type": memory.source_type}.items():
        if surrogate.search(value):
            said = name.replace("_", " ")
            yield (
                name.replace(" ", "_"),
                f"{said} is not valid UTF-8 text; re-encode it as UTF-8 and retry",
            )
            return


def shown(value: str) -> str:
    """` 'VALUE'` for a refused value that reads as a word (no digit, at most
    40 characters), else nothing: a token in a word's place is not echoed."""
    return f" {value!r}" if len(value) <= 40 and not any(c.isdigit() for c in value) else ""


def validate(memory: Memory) -> None:
    """Raise UsageError naming the first field that a store must not accept."""
    for _, said in problems(memory):
        raise UsageError(said)


def problems(memory: Memory) -> Problems:
    """Each field a store must not accept, as (its column, what `validate`
    says of it), in the order a write checks them: `validate` raises the
    first, and `doctor` names the columns of a row an import would refuse
    (store/health.py)."""
    plain = _plain(memory)
    if not plain:
        yield from _encoding(memory)
    patterns = compiled_patterns()
    if not patterns.memory_id.match(memory.id):
        # A value in the id's place that is no memory id at all (a token pasted
        # there) is not shown: an error line is printed, and may be logged.
        named = f"memory id {memory.id[:40]!r}" if memory.id.startswith("mem_") else "memory id"
        yield "id", f"{named} must look like mem_YYYYmmdd_HHMMSS_<hex>"
    if not memory.summary.strip():
        yield "summary", "summary must not be blank; say in one sentence what to remember"
    yield from _text("summary", "summary", memory.summary, MAX_SUMMARY, plain)
    yield from _text("details", "details", memory.details, MAX_DETAILS, plain, multiline=True)
    yield from _text("source ref", "source_ref", memory.source_ref, MAX_REF, plain)
    yield from _text(
        "source quote", "source_quote", memory.source_quote, MAX_QUOTE, plain, multiline=True
    )
    if not patterns.event_type.match(memory.event_type):
        yield (
            "event_type",
            f"event type{shown(memory.event_type)} must be a lowercase word "
            "such as decision, lesson, preference, warning",
        )
    yield from _member("ring", "ring", memory.ring, RINGS)
    yield from _member("scope", "scope", memory.scope, SCOPES)
    yield from _member("sensitivity", "sensitivity", memory.sensitivity, SENSITIVITIES)
    yield from _member("retention", "retention", memory.retention, RETENTIONS)
    yield from _member("trust state", "trust", memory.trust, TRUST_STATES)
    yield from _member("origin", "origin", memory.origin, ORIGINS)
    yield from _score("salience", memory.salience)
    yield from _score("confidence", memory.confidence)
    for name, column in _IDENTIFIERS:
        yield from _identifier(name, column, getattr(memory, column), plain)
    if memory.review_reason is not None:
        yield from _text("review reason", "review_reason", memory.review_reason, MAX_REF, plain)
    for other in (*memory.supersedes, memory.superseded_by or "mem_x"):
        if not patterns.memory_id.match(other):
            yield "supersedes", "supersedes and superseded_by name memory ids, not that value"
            break
    for link in memory.links:
        if not patterns.event_type.match(link.type):
            yield "links", "each link's type is a lowercase word such as related or contradicts"
        yield from _text("link target", "links", link.target, MAX_REF, plain)
        if not link.target.strip():
            yield "links", "each link needs a target: a memory id, a file or a URL"
    needed = _REQUIRED_FOR_SCOPE.get(memory.scope)
    # A redaction's placeholder keeps its scope and empties its partition's
    # columns on purpose (`write/correct.forget_in`): it is no partition's.
    placeholder = memory.redacted_at is not None and memory.summary == REDACTED
    if needed and not getattr(memory, needed) and not placeholder:
        flag = "--" + needed.replace("_", "-")
        yield needed, f"scope {memory.scope} needs {flag} (or choose another --scope)"
    if len(memory.tags) > MAX_TAGS:
        yield "tags", f"at most {MAX_TAGS} tags"
    for tag in memory.tags:
        yield from _identifier("tag", "tags", tag, plain)
        if len(tag) > MAX_TAG:
            yield "tags", f"tags must be at most {MAX_TAG} characters"
    if memory.valid_to is not None and memory.valid_to <= memory.valid_from:
        # Except an empty interval on a superseded row: a correction says the
        # old fact never held (correct.closed_validity).
        if not (memory.valid_to == memory.valid_from and memory.superseded_by):
            yield "valid_to", INVERTED_WINDOW
