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
    RETENTIONS,
    RINGS,
    SCOPES,
    SENSITIVITIES,
    TRUST_STATES,
    Memory,
    compiled_patterns,
)
from tree_ring.model.text import describe, refused_at

# A validity window that closes before it opens.
INVERTED_WINDOW = "valid-to must be later than valid-from"
_REQUIRED_FOR_SCOPE = {"agent": "agent_profile", "workflow": "workflow_id", "session": "session_id"}


def _check_text(name: str, value: str, limit: int, plain: bool, *, multiline: bool = False) -> None:
    if len(value) > limit:
        raise UsageError(f"{name} is {len(value):,} characters; the limit is {limit:,}")
    if plain:
        return
    _check_characters(name, value, multiline)


def _check_characters(name: str, value: str, multiline: bool = False) -> None:
    """The one invisible-character policy (`model.text`), for every text field."""
    index = refused_at(value, multiline=multiline)
    if index is not None:
        raise UsageError(
            f"{name} contains control characters or invisible formatting "
            f"({describe(value, index)}); remove them and retry"
        )


def _check_identifier(name: str, value: str | None, plain: bool) -> None:
    if value is None:
        return
    if not value.strip():
        raise UsageError(f"{name} must not be blank; omit it or give a value")
    if len(value) > MAX_IDENTIFIER:
        raise UsageError(f"{name} must be at most {MAX_IDENTIFIER} characters")
    if not plain:
        _check_characters(name, value)


def _check_member(name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise UsageError(f"unknown {name} {value[:40]!r}; use one of: {', '.join(allowed)}")


def _check_score(name: str, value: float) -> None:
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise UsageError(f"{name} must be a number between 0 and 1")


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


def _check_encoding(memory: Memory) -> None:
    """Refuse lone surrogates in any text field, naming the first in guard order."""
    surrogate = compiled_patterns().surrogate
    for name, value in {**memory.text_fields(), "source type": memory.source_type}.items():
        if surrogate.search(value):
            raise UsageError(
                f"{name.replace('_', ' ')} is not valid UTF-8 text; re-encode it as UTF-8 and retry"
            )


def validate(memory: Memory) -> None:
    """Raise UsageError naming the first field that a store must not accept."""
    plain = _plain(memory)
    if not plain:
        _check_encoding(memory)
    patterns = compiled_patterns()
    if not patterns.memory_id.match(memory.id):
        raise UsageError(f"memory id {memory.id[:40]!r} must look like mem_YYYYmmdd_HHMMSS_<hex>")
    if not memory.summary.strip():
        raise UsageError("summary must not be blank; say in one sentence what to remember")
    _check_text("summary", memory.summary, MAX_SUMMARY, plain)
    _check_text("details", memory.details, MAX_DETAILS, plain, multiline=True)
    _check_text("source ref", memory.source_ref, MAX_REF, plain)
    _check_text("source quote", memory.source_quote, MAX_QUOTE, plain, multiline=True)
    if not patterns.event_type.match(memory.event_type):
        raise UsageError(
            f"event type {memory.event_type[:40]!r} must be a lowercase word "
            "such as decision, lesson, preference, warning"
        )
    _check_member("ring", memory.ring, RINGS)
    _check_member("scope", memory.scope, SCOPES)
    _check_member("sensitivity", memory.sensitivity, SENSITIVITIES)
    _check_member("retention", memory.retention, RETENTIONS)
    _check_member("trust state", memory.trust, TRUST_STATES)
    _check_member("origin", memory.origin, ORIGINS)
    _check_score("salience", memory.salience)
    _check_score("confidence", memory.confidence)
    _check_identifier("project", memory.project, plain)
    _check_identifier("agent profile", memory.agent_profile, plain)
    _check_identifier("workflow id", memory.workflow_id, plain)
    _check_identifier("session id", memory.session_id, plain)
    _check_identifier("operation id", memory.operation_id, plain)
    _check_identifier("source type", memory.source_type, plain)
    _check_identifier("reviewed by", memory.reviewed_by, plain)
    _check_identifier("origin session", memory.origin_session, plain)
    if memory.review_reason is not None:
        _check_text("review reason", memory.review_reason, MAX_REF, plain)
    for other in (*memory.supersedes, memory.superseded_by or "mem_x"):
        if not patterns.memory_id.match(other):
            raise UsageError("supersedes and superseded_by name memory ids, not that value")
    for link in memory.links:
        if not patterns.event_type.match(link.type):
            raise UsageError("each link's type is a lowercase word such as related or contradicts")
        _check_text("link target", link.target, MAX_REF, plain)
        if not link.target.strip():
            raise UsageError("each link needs a target: a memory id, a file or a URL")
    needed = _REQUIRED_FOR_SCOPE.get(memory.scope)
    if needed and not getattr(memory, needed):
        flag = "--" + needed.replace("_", "-")
        raise UsageError(f"scope {memory.scope} needs {flag} (or choose another --scope)")
    if len(memory.tags) > MAX_TAGS:
        raise UsageError(f"at most {MAX_TAGS} tags")
    for tag in memory.tags:
        _check_identifier("tag", tag, plain)
        if len(tag) > MAX_TAG:
            raise UsageError(f"tags must be at most {MAX_TAG} characters")
    if memory.valid_to is not None and memory.valid_to <= memory.valid_from:
        # Except an empty interval on a superseded row: a correction says the
        # old fact never held (correct.closed_validity).
        if not (memory.valid_to == memory.valid_from and memory.superseded_by):
            raise UsageError(INVERTED_WINDOW)
