"""The memory record: its one declaration of fields, validation, ids and hashes.

A `Memory` carries every field of the original Tree Ring `MemoryEvent` plus
what the original lacks: a trust state, bitemporal validity, the time a row
stopped being current (`retired_at`), where the write came from, and a hash of
its normalised content for content tombstones.

`Memory`'s class body is the one list of a memory's fields, in the order of
the `memories` table's columns (a test holds the shipped schema to it). What
other modules need to know of each field is declared there, as `field(...)`
metadata, and they derive from it: the store's columns and conversions
(`store.rows`), the export row and its import (`to_dict`, `imported.from_mapping`),
what a write's caller may say (`write.verbs.Draft`) and its CLI flags
(`cli.context.memory_flags`), what a quality scenario's seed may carry, and
what a retry under one operation id must repeat. The metadata:

- ``help``: what the field holds, as the CLI says it.
- ``caller``: a write's caller may set it (a `Draft` carries it); ``draft``:
  the draft's default when not the field's own (None: `compose` decides).
- ``flag``: the CLI flag that sets it (``"summary"`` is the positional);
  ``choices``: its value set.
- ``time``: an ISO-8601 time, stored as `format_time` writes it.
- ``export``: where the export row holds it, ``"group.key"`` for the original
  Tree Ring's nested ``source`` and ``review`` objects; ``pending_flag``: the
  original's boolean for "this is pending" (``review.needs_review``).
- ``imported``: the value an import row without it gets, when not the
  field's default; ``recomputed``: never read from an import row (the write
  path sets it).
- ``store``: only the store sets it; a scenario's seed may not.
- ``intent``: an exact retry under the same operation id repeats it.

The value sets live here too, with the fixed pairs the write verbs allow:
the stop hook names the capture pairs without loading the write path.
"""

from __future__ import annotations

import math
import os
import time

from tree_ring.model import jsontext
from tree_ring.model.errors import TimeOutOfRange, UsageError
from tree_ring.model.frozen import Field, Frozen, field, fields

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from datetime import datetime
    from typing import Any

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

# outcome -> (ring, retention, salience, default confidence), for `evidence`.
EVIDENCE_OUTCOMES: dict[str, tuple[str, str, float, float]] = {
    "promoted": ("heartwood", "durable", 0.9, 0.8),
    "rejected": ("scar", "durable", 0.8, 0.7),
    "deferred": ("seed", "normal", 0.5, 0.5),
    "observed": ("outer", "normal", 0.4, 0.6),
}

# event type -> ring: the only pairs `capture` (the stop hook's verb) writes.
CAPTURE_PAIRS: dict[str, str] = {
    "preference": "cambium",
    "decision": "cambium",
    "lesson": "cambium",
    "correction": "cambium",
    "warning": "scar",
    "seed": "seed",
}
CAPTURE_PLACEHOLDER = "ONE_SENTENCE_SUMMARY"  # the stop hook's command, as given: refused

MAX_IDENTIFIER = 256
MAX_SUMMARY = 8_000
MAX_DETAILS = 32_000
MAX_REF = 1_024
MAX_QUOTE = 4_000
MAX_TAGS = 32
MAX_TAG = 64
REDACTED = "[REDACTED]"


class _Patterns:
    """The record's regular expressions, compiled on first use: a hook that
    only reads memories back never compiles (or imports) one."""

    def __init__(self) -> None:
        import re

        self.event_type = re.compile(r"[a-z][a-z0-9_-]{0,63}\Z")
        # New ids are mem_YYYYmmdd_HHMMSS_<12 hex>; imported ids keep their own suffix.
        self.memory_id = re.compile(r"mem_[A-Za-z0-9_.-]{1,120}\Z")
        # A content hash as stored and as ledger lines and tombstones name it.
        self.content_hash = re.compile(r"sha256:[0-9a-f]{64}\Z")
        # Lone surrogates: what Python makes of bytes that are not UTF-8 (argv, stdin).
        self.surrogate = re.compile("[\ud800-\udfff]")
        self.stored_time = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z\Z", re.ASCII)
        self.date = re.compile(r"\d{4}-\d{2}-\d{2}\Z", re.ASCII)
        # What `parse_time` lets `datetime.fromisoformat` judge: a date (extended,
        # basic or week), then optionally T or a space, a time, a fraction after
        # its decimal sign and an offset. fromisoformat alone takes any character
        # between date and time and runs a fraction of any length straight on
        # from the seconds: fifteen 1s or 5,000 read as 1111-11-11T11:11:11.
        self.iso_time = re.compile(
            r"\d{4}(?:-\d\d-\d\d|\d{4}|-?W\d\d(?:-?\d)?)"
            r"(?:[Tt ]\d\d(?::?\d\d(?::?\d\d(?:[.,]\d{1,9})?)?)?"
            r"(?:[Zz]|[+-]\d\d(?::?\d\d(?::?\d\d(?:[.,]\d{1,6})?)?)?)?)?\Z",
            re.ASCII,
        )


_compiled: list[_Patterns] = []


def compiled_patterns() -> _Patterns:
    if not _compiled:
        _compiled.append(_Patterns())
    return _compiled[0]


_TIME_FORMAT = "%Y-%m-%dT%H:%M:%S"


def now_iso() -> str:
    """Record time as stored: UTC, microseconds, `Z`, so text order is time order."""
    # The time module, not datetime: the stop hook stamps its receipt and
    # needs nothing else of datetime.
    seconds, nanoseconds = divmod(time.time_ns(), 1_000_000_000)
    return f"{time.strftime(_TIME_FORMAT, time.gmtime(seconds))}.{nanoseconds // 1000:06d}Z"


def format_time(moment: datetime) -> str:
    from datetime import UTC

    # isoformat, not strftime: the C library's %Y gives year 1 as "1", not
    # "0001", and a stored time must keep its width for text order.
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


_DIGITS = frozenset("0123456789")
# Where a stored time ("2026-11-29T13:00:00.000000Z") has its separators.
_STAMP_MARKS = {4: "-", 7: "-", 10: "T", 13: ":", 16: ":", 19: ".", 26: "Z"}


def epoch_seconds(stamp: str) -> float | None:
    """Seconds since 1970-01-01 of a time in the stored form, or None when
    the text is not a valid one. Arithmetic on the text: recall reads a time
    for every candidate, and importing datetime for it would cost every CLI
    call more than all those reads."""
    if len(stamp) != 27 or any(stamp[i] != mark for i, mark in _STAMP_MARKS.items()):
        return None
    if not _DIGITS.issuperset(stamp[:4] + stamp[5:7] + stamp[8:10] + stamp[11:13] + stamp[14:16]):
        return None
    if not _DIGITS.issuperset(stamp[17:19] + stamp[20:26]):
        return None
    year, month, day = int(stamp[:4]), int(stamp[5:7]), int(stamp[8:10])
    hour, minute, second = int(stamp[11:13]), int(stamp[14:16]), int(stamp[17:19])
    days = epoch_days(year, month, day)
    if days is None or hour > 23 or minute > 59 or second > 59:
        return None
    return days * 86_400 + hour * 3_600 + minute * 60 + second + int(stamp[20:26]) / 1e6


def seconds_of(stamp: str) -> float | None:
    """Seconds since 1970 of a stored time, or of any ISO-8601 time (taken as
    UTC without an offset); None for text that is no time. Every time Tree
    Ring writes is in the stored form, read without importing datetime."""
    seconds = epoch_seconds(stamp)
    if seconds is not None:
        return seconds
    from datetime import UTC, datetime  # a hand-edited row's time

    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def month_days(year: int, month: int) -> int:
    """How many days `month` (1-12) of `year` has."""
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def civil_date(days: int) -> tuple[int, int, int]:
    """The (year, month, day) of a day counted since 1970-01-01 (`epoch_days`'s inverse)."""
    shifted = days + 719_468
    era, day_of_era = divmod(shifted, 146_097)
    year_of_era = (
        day_of_era - day_of_era // 1_460 + day_of_era // 36_524 - day_of_era // 146_096
    ) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    march_month = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * march_month + 2) // 5 + 1
    month = march_month + 3 if march_month < 10 else march_month - 9
    return year_of_era + era * 400 + (month <= 2), month, day


def epoch_days(year: int, month: int, day: int) -> int | None:
    """Days since 1970-01-01 of a date of the proleptic Gregorian calendar,
    or None when there is no such date (year 0 included)."""
    if not (year and 1 <= month <= 12 and 1 <= day <= month_days(year, month)):
        return None
    # Counted from a year that starts in March, so that the leap day comes last.
    shifted = year - (month <= 2)
    era, year_of_era = divmod(shifted, 400)
    day_of_year = (153 * (month + (9 if month <= 2 else -3)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146_097 + day_of_era - 719_468


# What an ISO-8601 time or date is written with.
_TIME_CHARACTERS = "0123456789-:.+TZtz "


def parse_time(text: str, what: str = "time") -> str:
    """Normalise an ISO-8601 time (or a date) to the stored form."""
    from datetime import UTC, datetime

    patterns = compiled_patterns()
    raw = text.strip()
    stored = patterns.stored_time.match(raw) is not None
    if patterns.date.match(raw):
        raw += "T00:00:00"
    try:
        if not stored and patterns.iso_time.match(raw) is None:
            raise ValueError(raw)
        # A time already in the stored form (every row of an export) only
        # needs its fields checked; formatting it again would give it back.
        moment = datetime.fromisoformat(
            raw[:-1] if stored else raw.replace("Z", "+00:00").replace("z", "+00:00")
        )
    except ValueError:
        # Quoted only when it could be a time mistyped: any other text (a
        # token pasted into the wrong flag) is not shown.
        timelike = not text.strip(_TIME_CHARACTERS)
        said, unsaid = (f" {text[:40]!r}", "") if timelike else ("", " (the value is not shown)")
        raise UsageError(
            f"{what}{said} is not an ISO-8601 time{unsaid}; use e.g. 2026-11-29T13:00:00Z"
        ) from None
    if stored:
        return raw
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        return format_time(moment)
    except OverflowError:
        # An offset can carry a time at the edge of year 1 or 9999 past it in
        # UTC, where no stored time (and no datetime) can follow.
        raise TimeOutOfRange(
            f"{what} {text[:40]!r} falls outside the years 0001-9999 in UTC; use a time within them"
        ) from None


def option_time(text: str | None, flag: str) -> str | None:
    """A time option's value (`--as-of`, `--since`, `--expires-at` ...) in the
    stored form; None when the option was not given. An empty value is
    refused: a script whose variable came out empty asked for a time, and
    must not be answered for now."""
    if text is None:
        return None
    if not text.strip():
        raise UsageError(f"{flag} is empty; use e.g. 2026-11-29T13:00:00Z, or leave {flag} out")
    return parse_time(text, flag)


def new_memory_id(moment: datetime | None = None) -> str:
    if moment is None:
        stamp = time.strftime("%Y%m%d_%H%M%S", time.gmtime())
    else:
        stamp = moment.strftime("%Y%m%d_%H%M%S")
    # os.urandom is what secrets.token_hex reads; importing secrets (hmac,
    # random, base64) would cost every hook run more than the brief itself.
    return f"mem_{stamp}_{os.urandom(6).hex()}"


_HEX = frozenset("0123456789abcdef")


def generated_id(memory_id: str) -> bool:
    """Whether `memory_id` has the shape `new_memory_id` gives (a time and 12
    hex digits), so it names nothing; any other id is a name a file chose."""
    parts = memory_id.split("_")
    return (
        len(parts) == 4
        and parts[0] == "mem"
        and len(parts[1]) == 8
        and len(parts[2]) == 6
        and (parts[1] + parts[2]).isascii()
        and (parts[1] + parts[2]).isdigit()
        and len(parts[3]) == 12
        and _HEX.issuperset(parts[3])
    )


def canonical_json(value: Any) -> str:
    """The one serialisation used for anything that is hashed."""
    return jsontext.canonical(value)


# Pieces of canonical JSON, for the hashes a bulk write makes millions of
# (audit entries, write intents): those write a fixed set of keys field by
# field, since the general encoder costs more than the row being hashed, and
# tests hold them to the same bytes as canonical_json.
json_string = jsontext.string  # how the encoder writes a str (ensure_ascii=False)


def json_text(value: str | None) -> str:
    return "null" if value is None else json_string(value)


def json_number(value: float) -> str:
    """A number as the encoder writes it: a finite float by its repr, anything
    else (an int, a bool, NaN) as the encoder itself does."""
    if type(value) is float and math.isfinite(value):
        return float.__repr__(value)
    return jsontext.dumps(value)


def json_texts(values: tuple[str, ...]) -> str:
    return "[" + ",".join(map(json_string, values)) + "]" if values else "[]"


def _sha256_constructor() -> Callable[[bytes], Any]:
    """The interpreter's built-in sha256, without hashlib: importing hashlib
    loads OpenSSL, which costs a hook more than the hashing it does. Loaded on
    first use: a recall hashes nothing."""
    if _sha256:
        return _sha256[0]
    for name in ("_sha2", "_sha256"):  # the module's name from Python 3.12, and before
        try:
            _sha256.append(__import__(name).sha256)
            return _sha256[0]
        except (ImportError, AttributeError):
            continue
    from hashlib import sha256 as constructor  # pragma: no cover - a build without them

    _sha256.append(constructor)  # pragma: no cover
    return constructor  # pragma: no cover


_sha256: list[Callable[[bytes], Any]] = []


def hex_digest(text: str) -> str:
    """The sha256 of `text` (UTF-8), in hex."""
    constructor = _sha256[0] if _sha256 else _sha256_constructor()
    return constructor(text.encode("utf-8")).hexdigest()


def sha256(text: str) -> str:
    return "sha256:" + hex_digest(text)


_normalize: list[Callable[..., str]] = []


def normalise_content(text: str) -> str:
    """Case, width and spacing never make a forgotten claim new again."""
    if not _normalize:
        from unicodedata import normalize

        _normalize.append(normalize)
    folded = _normalize[0]("NFKC", text).casefold()
    return " ".join(folded.split()).rstrip(" .!;")


def content_hash(summary: str, details: str) -> str:
    return sha256(normalise_content(summary) + "\n" + normalise_content(details))


class Link(Frozen):
    type: str
    target: str


class Memory(Frozen, kw_only=True):
    """One memory, field by field in the order of the `memories` table.

    The columns' comments live with the DDL in `schema.py`; the metadata of
    each field is described in this module's docstring.
    """

    id: str = field(help="mem_YYYYmmdd_HHMMSS_<12 hex>")
    created_at: str = field(time=True)
    updated_at: str = field(time=True)
    project: str | None = None
    agent_profile: str | None = None
    workflow_id: str | None = None
    session_id: str | None = field(default=None, intent=True)
    operation_id: str | None = field(
        default=None,
        caller=True,
        flag="--operation-id",
        help="idempotency key: a retry returns the same id",
    )
    scope: str = field(
        default="project",
        caller=True,
        draft=None,
        flag="--scope",
        choices=SCOPES,
        imported="global",
        intent=True,
        help="default: project (agents: their own partition)",
    )
    ring: str = field(
        default="cambium",
        caller=True,
        flag="--ring",
        choices=RINGS,
        intent=True,
        help="the memory's genre",
    )
    event_type: str = field(
        caller=True,
        draft="note",
        flag="--event-type",
        imported="note",
        intent=True,
        help="decision, lesson, preference, warning, ...",
    )
    summary: str = field(
        caller=True,
        flag="summary",
        intent=True,
        help="one sentence to remember ('-' reads it from stdin)",
    )
    details: str = field(default="", caller=True, flag="--details", intent=True, help="longer text")
    source_type: str = field(default="manual", caller=True, export="source.type", intent=True)
    source_ref: str = field(
        default="",
        caller=True,
        flag="--source-ref",
        export="source.ref",
        intent=True,
        help="where this can be checked: a file, URL, run",
    )
    source_quote: str = field(
        default="",
        caller=True,
        flag="--source-quote",
        export="source.quote",
        intent=True,
        help="the words at the source",
    )
    tags: tuple[str, ...] = field(
        default=(), caller=True, flag="--tag", intent=True, help="a tag (repeatable)"
    )
    salience: float = field(
        default=0.5, caller=True, flag="--salience", intent=True, help="how much it matters, 0..1"
    )
    confidence: float = field(
        default=0.5, caller=True, flag="--confidence", intent=True, help="how sure, 0..1"
    )
    sensitivity: str = field(
        default="normal",
        caller=True,
        flag="--sensitivity",
        choices=SENSITIVITIES,
        help="anything but normal is hidden unless a read asks for it",
    )
    retention: str = field(
        default="normal",
        caller=True,
        flag="--retention",
        choices=RETENTIONS,
        intent=True,
        help="what maintain may do once it expires",
    )
    expires_at: str | None = field(
        default=None,
        caller=True,
        flag="--expires-at",
        time=True,
        intent=True,
        help=(
            "after TIME, which must lie ahead, it leaves the brief, recall, list and export "
            "(`show ID` and --as-of still read it until `maintain --apply-expired` deletes it)"
        ),
    )
    # A draft names the one memory it replaces; the row lists every one.
    supersedes: tuple[str, ...] = field(default=(), caller=True, draft=None, intent=True)
    superseded_by: str | None = None
    links: tuple[Link, ...] = ()
    trust: str = field(default="accepted", choices=TRUST_STATES, pending_flag="review.needs_review")
    review_reason: str | None = field(default=None, export="review.review_reason")
    reviewed_at: str | None = field(default=None, export="review.reviewed_at", time=True)
    reviewed_by: str | None = field(default=None, export="review.reviewed_by")
    valid_from: str = field(
        default="",
        caller=True,
        draft=None,
        flag="--valid-from",
        time=True,
        help="when the fact starts to hold",
    )
    valid_to: str | None = field(
        default=None,
        caller=True,
        flag="--valid-to",
        time=True,
        help="when the fact stops holding (a past time needs --valid-from: a fact that held then)",
    )
    retired_at: str | None = field(default=None, time=True, store=True)
    redacted_at: str | None = field(default=None, time=True, store=True)
    origin: str = field(default="person", choices=ORIGINS, imported="import", store=True)
    origin_session: str | None = field(default=None, store=True)
    content_hash: str = field(default="", store=True, recomputed=True)

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
        # The session first: an agent's workflow is its harness's session
        # unless it names one, and a refusal names where the value came from.
        if self.session_id:
            fields["session_id"] = self.session_id
        if self.workflow_id:
            fields["workflow_id"] = self.workflow_id
        if self.operation_id:
            fields["operation_id"] = self.operation_id
        # An imported file or a ledger line names its own ids: a name like any other.
        if self.id and not generated_id(self.id):
            fields["id"] = self.id.removeprefix("mem_")  # the rest stands alone
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
        values = self.__dict__
        out: dict[str, Any] = {}
        for key, group, name, convert in _EXPORT:
            value = values[name]
            if convert is not None:
                value = convert(value)
            if group is None:
                out[key] = value
            else:
                nested = out.get(group)
                if nested is None:
                    nested = out[group] = {}
                nested[key] = value
        return out


def _link_objects(links: tuple[Link, ...]) -> list[dict[str, str]]:
    return [{"type": link.type, "target": link.target} for link in links]


def _is_pending(trust: str) -> bool:
    return trust == "pending"


def _export_plan() -> list[tuple[str, str | None, str, Callable[[Any], Any] | None]]:
    """(key, group or None, field, conversion) in the order the export row lists them."""
    plan: list[tuple[str, str | None, str, Callable[[Any], Any] | None]] = []
    for spec in fields(Memory):
        flag = spec.get("pending_flag")
        if flag:
            group, key = flag.split(".")
            plan.append((key, group, spec.name, _is_pending))
        group, _, key = spec.get("export", spec.name).rpartition(".")
        if spec.annotation == "tuple[Link, ...]":
            convert: Callable[[Any], Any] | None = _link_objects
        elif spec.annotation.startswith("tuple["):
            convert = list
        else:
            convert = None
        plan.append((key, group or None, spec.name, convert))
    return plan


_EXPORT = _export_plan()


def export_keys(*, writable: bool = False) -> tuple[str, ...]:
    """The top-level keys of an export row, in order; `writable`: only those a
    write may carry (not the fields only the store sets)."""
    keys: dict[str, None] = {}
    for spec in fields(Memory):
        if writable and spec.get("store"):
            continue
        flag = spec.get("pending_flag")
        if flag:
            keys[flag.split(".")[0]] = None
        keys[spec.get("export", spec.name).split(".")[0]] = None
    return tuple(keys)


_intent: list[Callable[[Memory], str]] = []


def intent_json(memory: Memory) -> str:
    """`canonical_json` of what an exact retry under one operation id must
    repeat: the fields `Memory` declares with ``intent``, by name.

    Written field by field by a function made from the declaration (a bulk
    write hashes millions of these, and the general encoder costs more than
    the row); a test holds it to `canonical_json`, byte for byte.
    """
    if not _intent:
        _intent.append(_compile_intent())
    return _intent[0](memory)


def _compile_intent() -> Callable[[Memory], str]:
    writers = {
        "float": "json_number",
        "str": "json_string",
        "str | None": "json_text",
        "tuple[str, ...]": "json_texts",
    }
    specs = sorted((spec for spec in fields(Memory) if spec.get("intent")), key=lambda s: s.name)
    template = "{" + ",".join(f'"{spec.name}":%s' for spec in specs) + "}"
    values = ", ".join(f"{writers[spec.annotation]}(m.{spec.name})" for spec in specs)
    namespace: dict[str, Any] = {
        "json_number": json_number,
        "json_string": json_string,
        "json_text": json_text,
        "json_texts": json_texts,
    }
    exec(f"def intent_json(m):\n    return {template!r} % ({values},)\n", namespace)
    return namespace["intent_json"]


def caller_fields() -> list[Field]:
    """The fields a write's caller may set, with a draft's defaults: the
    summary first (by position or name), the rest by name only."""
    out: list[Field] = []
    for spec in fields(Memory):
        if not spec.get("caller"):
            continue
        default = spec.meta.get("draft", spec.default)
        copy = Field(default, spec.factory, kw_only=spec.name != "summary", meta=dict(spec.meta))
        copy.name = spec.name
        copy.annotation = spec.annotation
        out.append(copy)
    out.sort(key=lambda spec: spec.name != "summary")
    return out
