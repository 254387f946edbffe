"""The memory record: its fields, value sets, validation, ids and hashes.

A `Memory` carries every field of the original Tree Ring `MemoryEvent` plus
what the original lacks: a trust state, bitemporal validity, the time a row
stopped being current (`retired_at`), where the write came from, and a hash of
its normalised content for content tombstones.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from json.encoder import encode_basestring
from typing import Any, cast

from tree_ring.model.errors import UsageError

RINGS = ("cambium", "outer", "inner", "heartwood", "scar", "seed")
SCOPES = (
    "global",
    "project",
    "agent",
    "session",
    "workflow",
    "tool",
    "eval",
    "manual",
    "dox",
    "revolve",
)
# Scopes that belong to one caller; every other scope is shared by the project.
PRIVATE_SCOPES = ("agent", "workflow", "session")
SHARED_SCOPES = tuple(s for s in SCOPES if s not in PRIVATE_SCOPES)
SENSITIVITIES = (
    "normal",
    "private",
    "secret",
    "health",
    "financial",
    "legal",
    "personal_identifier",
)
RETENTIONS = ("ephemeral", "normal", "durable", "user_pinned", "forget_after_date")
TRUST_STATES = ("accepted", "pending", "disputed", "rejected")
# Where a write came from: a person at a terminal, an agent's tool call in one
# of the harnesses, an import, or Tree Ring itself (consolidation, the tree).
ORIGINS = ("person", "claude-code", "codex", "agent", "import", "tree-ring")

MAX_IDENTIFIER = 256
MAX_SUMMARY = 8_000
MAX_DETAILS = 32_000
MAX_REF = 1_024
MAX_QUOTE = 4_000
MAX_TAGS = 32
MAX_TAG = 64
REDACTED = "[REDACTED]"

_EVENT_TYPE = re.compile(r"[a-z][a-z0-9_-]{0,63}\Z")
# New ids are mem_YYYYmmdd_HHMMSS_<12 hex>; imported ids keep their own suffix.
_MEMORY_ID = re.compile(r"mem_[A-Za-z0-9_.-]{1,120}\Z")
# Anything in Unicode category C* except the whitespace that details may hold.
# Control, zero-width and bidi-override characters: invisible in a terminal
# or a prompt, they can make a memory read differently from what it says.
_CONTROL = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)
# One-line fields (the summary is injected into the brief) refuse tab and
# newline too.
_CONTROL_LINE = re.compile(
    r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)
# Lone surrogates: what Python makes of bytes that are not UTF-8 (argv, stdin).
_SURROGATE = re.compile("[\ud800-\udfff]")


def now_iso() -> str:
    """Record time as stored: UTC, microseconds, `Z`, so text order is time order."""
    return format_time(datetime.now(UTC))


def format_time(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


_STORED_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z\Z", re.ASCII)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}\Z", re.ASCII)


def parse_time(text: str, what: str = "time") -> str:
    """Normalise an ISO-8601 time (or a date) to the stored form."""
    raw = text.strip()
    stored = _STORED_TIME.match(raw) is not None
    if _DATE.match(raw):
        raw += "T00:00:00"
    try:
        # A time already in the stored form (every row of an export) only
        # needs its fields checked; formatting it again would give it back.
        moment = datetime.fromisoformat(
            raw[:-1] if stored else raw.replace("Z", "+00:00").replace("z", "+00:00")
        )
    except ValueError:
        raise UsageError(
            f"{what} {text[:40]!r} is not an ISO-8601 time; use e.g. 2026-11-29T13:00:00Z"
        ) from None
    if stored:
        return raw
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return format_time(moment)


def new_memory_id(moment: datetime | None = None) -> str:
    stamp = (moment or datetime.now(UTC)).strftime("%Y%m%d_%H%M%S")
    # os.urandom is what secrets.token_hex reads; importing secrets (hmac,
    # random, base64) would cost every hook run more than the brief itself.
    return f"mem_{stamp}_{os.urandom(6).hex()}"


_canonical = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode


def canonical_json(value: Any) -> str:
    """The one serialisation used for anything that is hashed."""
    return _canonical(value)


# Pieces of canonical JSON, for the hashes a bulk write makes millions of
# (audit entries, write intents): those write a fixed set of keys field by
# field, since the general encoder costs more than the row being hashed, and
# tests hold them to the same bytes as canonical_json.
json_string = encode_basestring  # how the encoder writes a str (ensure_ascii=False)


def json_text(value: str | None) -> str:
    return "null" if value is None else json_string(value)


def sha256(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def normalise_content(text: str) -> str:
    """Case, width and spacing never make a forgotten claim new again."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(folded.split()).rstrip(" .!;")


def content_hash(summary: str, details: str) -> str:
    return sha256(normalise_content(summary) + "\n" + normalise_content(details))


@dataclass(frozen=True)
class Link:
    type: str
    target: str


@dataclass(frozen=True)
class Memory:
    """One memory. Field comments live with the columns in `schema.py`."""

    id: str
    created_at: str
    updated_at: str
    summary: str
    event_type: str
    project: str | None = None
    agent_profile: str | None = None
    workflow_id: str | None = None
    session_id: str | None = None
    operation_id: str | None = None
    scope: str = "project"
    ring: str = "cambium"
    details: str = ""
    source_type: str = "manual"
    source_ref: str = ""
    source_quote: str = ""
    tags: tuple[str, ...] = ()
    salience: float = 0.5
    confidence: float = 0.5
    sensitivity: str = "normal"
    retention: str = "normal"
    expires_at: str | None = None
    supersedes: tuple[str, ...] = ()
    superseded_by: str | None = None
    links: tuple[Link, ...] = ()
    trust: str = "accepted"
    review_reason: str | None = None
    reviewed_at: str | None = None
    reviewed_by: str | None = None
    valid_from: str = ""
    valid_to: str | None = None
    retired_at: str | None = None
    redacted_at: str | None = None
    origin: str = "person"
    origin_session: str | None = None
    content_hash: str = field(default="")

    def replace(self, **changes: Any) -> Memory:
        """A copy with `changes`, equal to what `dataclasses.replace` makes.

        The copy takes this memory's field values as they are, which is all
        the generated `__init__` would do with them (a Memory has no
        `__post_init__`), at a tenth of its cost: every write copies its
        memory at least once, and a bulk import writes millions.
        """
        unknown = changes.keys() - _FIELD_NAMES
        if unknown:
            raise TypeError(f"Memory has no field {min(unknown)!r}")
        copy = object.__new__(Memory)
        values = copy.__dict__
        values.update(self.__dict__)
        values.update(changes)
        return copy

    def with_hash(self) -> Memory:
        return self.replace(content_hash=content_hash(self.summary, self.details))

    def text_fields(self) -> dict[str, str]:
        """Every free-text field, in the order the guard reports them."""
        fields = {
            "summary": self.summary,
            "details": self.details,
            "source_ref": self.source_ref,
            "source_quote": self.source_quote,
            "tags": " ".join(self.tags),
            "event_type": self.event_type,
        }
        # Spelled out, not a getattr loop: the guard asks for these on every write.
        if self.project:
            fields["project"] = self.project
        if self.agent_profile:
            fields["agent_profile"] = self.agent_profile
        if self.workflow_id:
            fields["workflow_id"] = self.workflow_id
        if self.session_id:
            fields["session_id"] = self.session_id
        if self.operation_id:
            fields["operation_id"] = self.operation_id
        # Fields a caller or an imported file can fill that are not the claim:
        # guarded all the same, since any of them is stored, exported and shown.
        if self.source_type:
            fields["source_type"] = self.source_type
        if self.review_reason:
            fields["review_reason"] = self.review_reason
        if self.reviewed_by:
            fields["reviewed_by"] = self.reviewed_by
        if self.origin_session:
            fields["origin_session"] = self.origin_session
        if self.supersedes:
            fields["supersedes"] = " ".join(self.supersedes)
        if self.superseded_by:
            fields["superseded_by"] = self.superseded_by
        if self.links:
            fields["links"] = " ".join(f"{link.type} {link.target}" for link in self.links)
        return fields

    def to_dict(self) -> dict[str, Any]:
        """The export form: the original's JSONL shape plus Tree Ring's fields."""
        return {
            "id": self.id,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "project": self.project,
            "agent_profile": self.agent_profile,
            "workflow_id": self.workflow_id,
            "session_id": self.session_id,
            "operation_id": self.operation_id,
            "scope": self.scope,
            "ring": self.ring,
            "event_type": self.event_type,
            "summary": self.summary,
            "details": self.details,
            "source": {
                "type": self.source_type,
                "ref": self.source_ref,
                "quote": self.source_quote,
            },
            "tags": list(self.tags),
            "salience": self.salience,
            "confidence": self.confidence,
            "sensitivity": self.sensitivity,
            "retention": self.retention,
            "expires_at": self.expires_at,
            "supersedes": list(self.supersedes),
            "superseded_by": self.superseded_by,
            "links": [{"type": link.type, "target": link.target} for link in self.links],
            "review": {
                "needs_review": self.trust == "pending",
                "review_reason": self.review_reason,
                "reviewed_at": self.reviewed_at,
                "reviewed_by": self.reviewed_by,
            },
            "trust": self.trust,
            "valid_from": self.valid_from,
            "valid_to": self.valid_to,
            "retired_at": self.retired_at,
            "redacted_at": self.redacted_at,
            "origin": self.origin,
            "origin_session": self.origin_session,
            "content_hash": self.content_hash,
        }


_FIELD_NAMES = frozenset(item.name for item in dataclasses.fields(Memory))

_IDENTIFIER_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_REQUIRED_FOR_SCOPE = {"agent": "agent_profile", "workflow": "workflow_id", "session": "session_id"}


def _check_text(name: str, value: str, limit: int, plain: bool, *, multiline: bool = False) -> None:
    if len(value) > limit:
        raise UsageError(f"{name} is {len(value):,} characters; the limit is {limit:,}")
    pattern = _CONTROL if multiline else _CONTROL_LINE
    if not plain and pattern.search(value):
        raise UsageError(f"{name} contains control characters; remove them and retry")


def _check_identifier(name: str, value: str | None, plain: bool) -> None:
    if value is None:
        return
    if not value.strip():
        raise UsageError(f"{name} must not be blank; omit it or give a value")
    if len(value) > MAX_IDENTIFIER:
        raise UsageError(f"{name} must be at most {MAX_IDENTIFIER} characters")
    if not plain and _IDENTIFIER_CONTROL.search(value):
        raise UsageError(f"{name} contains control characters; remove them and retry")


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
    for name, value in {**memory.text_fields(), "source type": memory.source_type}.items():
        if _SURROGATE.search(value):
            raise UsageError(
                f"{name.replace('_', ' ')} is not valid UTF-8 text; re-encode it as UTF-8 and retry"
            )


def validate(memory: Memory) -> None:
    """Raise UsageError naming the first field that a store must not accept."""
    plain = _plain(memory)
    if not plain:
        _check_encoding(memory)
    if not _MEMORY_ID.match(memory.id):
        raise UsageError(f"memory id {memory.id[:40]!r} must look like mem_YYYYmmdd_HHMMSS_<hex>")
    if not memory.summary.strip():
        raise UsageError("summary must not be blank; say in one sentence what to remember")
    _check_text("summary", memory.summary, MAX_SUMMARY, plain)
    _check_text("details", memory.details, MAX_DETAILS, plain, multiline=True)
    _check_text("source ref", memory.source_ref, MAX_REF, plain)
    _check_text("source quote", memory.source_quote, MAX_QUOTE, plain, multiline=True)
    if not _EVENT_TYPE.match(memory.event_type):
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
        if not _MEMORY_ID.match(other):
            raise UsageError(f"supersedes and superseded_by name memory ids, not {other[:40]!r}")
    for link in memory.links:
        if not _EVENT_TYPE.match(link.type) or not _MEMORY_ID.match(link.target):
            raise UsageError("each link is a lowercase type and a memory id (mem_...)")
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
            raise UsageError("valid-to must be later than valid-from")


def from_mapping(row: Mapping[str, Any]) -> Memory:
    """Build a Memory from an export row (Tree Ring's or the original's).

    Its content hash is left for the write path (`pipeline.prepare`) to set.
    """
    source = _mapping(row.get("source"), "source must be an object with type, ref and quote")
    review = _mapping(row.get("review"), "review must be an object")
    trust = row.get("trust") or ("pending" if review.get("needs_review") else "accepted")
    created = _time_or_none(row.get("created_at"), "created_at") or now_iso()
    links: list[Link] = []
    for item in _list(row.get("links"), "links"):
        link = _mapping(item, "each link needs a type and a target")
        if not isinstance(link.get("target"), str):
            raise UsageError("each link needs a type and a target")
        links.append(Link(type=str(link.get("type") or "related"), target=str(link["target"])))
    raw_supersedes = row.get("supersedes")
    if isinstance(raw_supersedes, str):
        raw_supersedes = [raw_supersedes]
    supersedes = [str(s) for s in _list(raw_supersedes, "supersedes")]
    tags = [str(t) for t in _list(row.get("tags"), "tags")]
    return Memory(
        id=_text(row, "id") or new_memory_id(),
        created_at=created,
        updated_at=_time_or_none(row.get("updated_at"), "updated_at") or created,
        summary=_text(row, "summary"),
        event_type=_text(row, "event_type") or "note",
        project=_opt(row, "project"),
        agent_profile=_opt(row, "agent_profile"),
        workflow_id=_opt(row, "workflow_id"),
        session_id=_opt(row, "session_id"),
        operation_id=_opt(row, "operation_id"),
        scope=_text(row, "scope") or "global",
        ring=_text(row, "ring") or "cambium",
        details=_text(row, "details"),
        source_type=str(source.get("type") or "manual"),
        source_ref=str(source.get("ref") or ""),
        source_quote=str(source.get("quote") or ""),
        tags=tuple(tags),
        salience=_score(row, "salience"),
        confidence=_score(row, "confidence"),
        sensitivity=_text(row, "sensitivity") or "normal",
        retention=_text(row, "retention") or "normal",
        expires_at=_time_or_none(row.get("expires_at"), "expires_at"),
        supersedes=tuple(supersedes),
        superseded_by=_opt(row, "superseded_by"),
        links=tuple(links),
        trust=str(trust),
        review_reason=_opt_any(review.get("review_reason")),
        reviewed_at=_time_or_none(review.get("reviewed_at"), "reviewed_at"),
        reviewed_by=_opt_any(review.get("reviewed_by")),
        valid_from=_time_or_none(row.get("valid_from"), "valid_from") or created,
        valid_to=_time_or_none(row.get("valid_to"), "valid_to"),
        retired_at=_time_or_none(row.get("retired_at"), "retired_at"),
        redacted_at=_time_or_none(row.get("redacted_at"), "redacted_at"),
        origin=_text(row, "origin") or "import",
        origin_session=_opt(row, "origin_session"),
    )


def _mapping(value: Any, problem: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise UsageError(problem)
    return {str(k): v for k, v in cast(Mapping[Any, Any], value).items()}


def _list(value: Any, what: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise UsageError(f"{what} must be a list")
    return cast(list[Any], value)


def _text(row: Mapping[str, Any], key: str) -> str:
    value = row.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise UsageError(f"{key} must be a string")
    return value


def _opt(row: Mapping[str, Any], key: str) -> str | None:
    value = _text(row, key)
    return value or None


def _opt_any(value: Any) -> str | None:
    return str(value) if value else None


def _score(row: Mapping[str, Any], key: str) -> float:
    value = row.get(key, 0.5)
    if value is None:
        return 0.5
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UsageError(f"{key} must be a number between 0 and 1")
    return float(value)


def _time_or_none(value: Any, what: str) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise UsageError(f"{what} must be an ISO-8601 string")
    return parse_time(value, what)
