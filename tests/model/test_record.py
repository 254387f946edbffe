"""validation.validate and Memory.text_fields.

`validate` skips its control-character and encoding searches when one test
shows every text field is printable ASCII. These tests check that the skip
never changes an outcome: the same memory gets the same error, or none, with
the fast test forced off.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest
from conftest import REPO, make_memory
from hypothesis import given, settings
from hypothesis import strategies as st

from tree_ring.model import imported, record, validation
from tree_ring.model.errors import UsageError
from tree_ring.model.frozen import fields
from tree_ring.model.record import Memory, format_time
from tree_ring.upkeep import quality
from tree_ring.write import verbs

# Characters on both sides of every check: plain ASCII, the whitespace only
# multi-line fields may hold, controls, invisible format characters, a lone
# surrogate, and ordinary non-ASCII text.
_CHARS = ["a", "Z", "0", " ", "-", "\t", "\n", "\r", "\x00", "\x1f", "\x7f", "\x85"]
_CHARS += ["\u200b", "\u2028", "\u202e", "\u2066", "é", "☕", "\udcff"]
TEXT = st.text(alphabet=st.sampled_from(_CHARS), max_size=10)
PLAIN = st.text(alphabet=st.sampled_from(["a", "Z", "0", " ", "-"]), min_size=1, max_size=10)


def _outcome(memory: Memory) -> str | None:
    try:
        validation.validate(memory)
    except UsageError as error:
        return str(error)
    return None


def _full_checks(memory: Memory) -> str | None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(validation, "_plain", lambda memory: False)
        return _outcome(memory)


@settings(max_examples=500, deadline=None, database=None)
@given(
    summary=PLAIN | TEXT,
    details=TEXT,
    source_ref=TEXT,
    source_quote=TEXT,
    tags=st.lists(PLAIN | TEXT, max_size=3),
    event_type=st.sampled_from(["note", "decision"]) | TEXT,
    source_type=st.sampled_from(["manual"]) | TEXT,
    identifiers=st.lists(st.none() | PLAIN | TEXT, min_size=5, max_size=5),
)
def test_validate_agrees_with_its_full_checks(
    summary: str,
    details: str,
    source_ref: str,
    source_quote: str,
    tags: list[str],
    event_type: str,
    source_type: str,
    identifiers: list[str | None],
) -> None:
    project, agent_profile, workflow_id, session_id, operation_id = identifiers
    memory = make_memory("proj-x", "A plain summary").replace(
        summary=summary,
        details=details,
        source_ref=source_ref,
        source_quote=source_quote,
        tags=tuple(tags),
        event_type=event_type,
        source_type=source_type,
        project=project,
        agent_profile=agent_profile,
        workflow_id=workflow_id,
        session_id=session_id,
        operation_id=operation_id,
    )
    assert _outcome(memory) == _full_checks(memory)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({}, None),
        ({"details": "line one\n\tline two"}, None),
        ({"summary": "one\tline"}, "summary contains control characters"),
        ({"details": "bell\x07"}, "details contains control characters"),
        ({"source_quote": "bidi \u202e"}, "source quote contains control characters"),
        ({"tags": ("ok", "t\x00g")}, "tag contains control characters"),
        ({"session_id": "s\x85"}, "session id contains control characters"),
        ({"tags": ("ok", "t\udcffg")}, "tags is not valid UTF-8 text"),
        # Encoding is checked first, in text_fields order, whatever else is wrong.
        ({"summary": "tab\t", "details": "\udcff"}, "details is not valid UTF-8 text"),
        ({"source_type": "m\udcff"}, "source type is not valid UTF-8 text"),
    ],
)
def test_validate_refuses_what_it_always_refused(
    fields: dict[str, object], message: str | None
) -> None:
    memory = make_memory("proj-x", "A plain summary").replace(**fields)
    outcome = _outcome(memory)
    assert (outcome if message is None else (outcome or "")[: len(message)]) == message
    assert outcome == _full_checks(memory)


def test_plain_memories_take_the_fast_path() -> None:
    assert validation._plain(make_memory("proj-x", "A plain summary", details="two\nlines"))
    assert not validation._plain(make_memory("proj-x", "Café"))
    assert not validation._plain(make_memory("proj-x", "bell", details="\x07"))


def test_text_fields_in_guard_order() -> None:
    memory = make_memory(
        "proj-x",
        "Summary",
        details="Details",
        tags=("a", "b"),
        session_id="sess-1",
        operation_id="op-1",
    )
    assert memory.text_fields() == {
        "summary": "Summary",
        "details": "Details",
        "source_ref": "",
        "source_quote": "",
        "tags": "a b",
        "event_type": "note",
        "project": "proj-x",
        "session_id": "sess-1",
        "operation_id": "op-1",
        "source_type": "manual",
    }
    # The guard names the first field holding a secret, so the order matters.
    assert list(memory.text_fields()) == [
        "summary",
        "details",
        "source_ref",
        "source_quote",
        "tags",
        "event_type",
        "project",
        "session_id",
        "operation_id",
        "source_type",
    ]


@settings(max_examples=200, deadline=None, database=None)
@given(
    changes=st.fixed_dictionaries(
        {},
        optional={
            "summary": PLAIN,
            "trust": st.sampled_from(record.TRUST_STATES),
            "tags": st.tuples(PLAIN),
            "salience": st.floats(0, 1),
            "expires_at": st.none() | PLAIN,
            "content_hash": PLAIN,
        },
    )
)
def test_memory_replace_is_a_new_memory_of_the_same_fields(changes: dict[str, object]) -> None:
    """What `dataclasses.replace` did: every field through the constructor."""
    memory = make_memory("proj-x", "A plain summary", tags=("a",), operation_id="op-1")
    before = dict(vars(memory))
    copy = memory.replace(**changes)
    made = Memory(**{**vars(memory), **changes})
    assert copy == made
    assert type(copy) is Memory and copy is not memory
    assert vars(copy) == vars(made)
    # The original is untouched.
    assert vars(memory) == before


def test_memory_replace_refuses_unknown_fields() -> None:
    memory = make_memory("proj-x", "A plain summary")
    with pytest.raises(TypeError, match="'colour'"):
        memory.replace(summary="fine", colour="blue")
    with pytest.raises(TypeError):
        Memory(**vars(memory), colour="blue")  # pyright: ignore[reportCallIssue] - no such field


def _slow_parse_time(text: str) -> str | None:
    """parse_time without its shortcut for times already in the stored form."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(record.compiled_patterns(), "stored_time", re.compile(r"(?!)"))
        try:
            return record.parse_time(text)
        except UsageError:
            return None


@settings(max_examples=300, deadline=None, database=None)
@given(
    moment=st.datetimes(min_value=datetime(1000, 1, 1)),
    text=st.text(alphabet=st.sampled_from(list("0123456789-T:.Z z+")), max_size=30),
)
def test_parse_time_shortcut_changes_no_outcome(moment: datetime, text: str) -> None:
    stored = moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    for candidate in (stored, f" {stored} ", stored.replace("T", " "), text):
        try:
            fast: str | None = record.parse_time(candidate)
        except UsageError:
            fast = None
        assert fast == _slow_parse_time(candidate)
    assert record.parse_time(stored) == stored


@pytest.mark.parametrize(
    "text",
    ["2025-13-07T14:19:22.000000Z", "2025-02-30T00:00:00.000000Z", "2025-01-07T24:00:00.000000Z"],
)
def test_parse_time_checks_stored_form_fields(text: str) -> None:
    with pytest.raises(UsageError, match="ISO-8601"):
        record.parse_time(text)


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        ("11111111", "1111-11-11T00:00:00.000000Z"),  # a basic-format date, no more
        ("20261129T1300", "2026-11-29T13:00:00.000000Z"),
        ("2026-11-29 13:00", "2026-11-29T13:00:00.000000Z"),
        ("2026-11-29t13:00z", "2026-11-29T13:00:00.000000Z"),
        ("2026-11-29T13Z", "2026-11-29T13:00:00.000000Z"),
        ("2026-W48-1", "2026-11-23T00:00:00.000000Z"),
        ("2026W481", "2026-11-23T00:00:00.000000Z"),
        ("2026-11-29T13:00:00,5", "2026-11-29T13:00:00.500000Z"),
        ("2026-11-29T13:00:00.123456789Z", "2026-11-29T13:00:00.123456Z"),
        ("2026-11-29T13:00:00.123+0530", "2026-11-29T07:30:00.123000Z"),
    ],
)
def test_parse_time_reads_the_iso_forms(text: str, stored: str) -> None:
    assert record.parse_time(text) == stored


@pytest.mark.parametrize(
    "text",
    [
        "1" * 15,  # fromisoformat: 1111-11-11, "1" between date and time, 11:11:11
        "1" * 30,  # ... and a fraction run straight on from the seconds
        "1" * 5000,
        "2026-11-29X13:00",  # any character between date and time
        "2026-11-29113:00",
        "2026-11-29T13:00:00." + "1" * 5000,
    ],
)
def test_parse_time_refuses_what_only_fromisoformat_reads(text: str) -> None:
    with pytest.raises(UsageError, match="is not an ISO-8601 time"):
        record.parse_time(text)


# ------------------------------------------------- one declared field list

ORIGINAL_EXPORT = REPO / "tests" / "fixtures" / "original" / "export.jsonl"


def _full_memory() -> record.Memory:
    """A memory with every field set to something other than its default."""
    return record.Memory(
        id="mem_20261201_000000_0000000000b1",
        created_at="2026-12-01T00:00:00.000000Z",
        updated_at="2026-12-02T00:00:00.000000Z",
        project="p",
        agent_profile="codex",
        workflow_id="w",
        session_id="s",
        operation_id="op",
        scope="agent",
        ring="scar",
        event_type="lesson",
        summary="Every field set",
        details="details",
        source_type="evidence",
        source_ref="run-1",
        source_quote="quoted",
        tags=("a", "b"),
        salience=0.9,
        confidence=0.8,
        sensitivity="private",
        retention="durable",
        expires_at="2027-01-01T00:00:00.000000Z",
        supersedes=("mem_20261201_000000_0000000000b0",),
        superseded_by="mem_20261201_000000_0000000000b2",
        links=(record.Link("contradicts", "mem_20261201_000000_0000000000b3"),),
        trust="pending",
        review_reason="why",
        reviewed_at="2026-12-03T00:00:00.000000Z",
        reviewed_by="reviewer",
        valid_from="2026-11-01T00:00:00.000000Z",
        valid_to="2026-12-31T00:00:00.000000Z",
        retired_at="2026-12-04T00:00:00.000000Z",
        redacted_at="2026-12-05T00:00:00.000000Z",
        origin="codex",
        origin_session="sess",
        content_hash="sha256:abc",
    )


def test_the_export_row_holds_every_field_and_reads_back_the_same() -> None:
    memory = _full_memory()
    row = memory.to_dict()
    assert row["source"] == {"type": "evidence", "ref": "run-1", "quote": "quoted"}
    assert row["review"] == {
        "needs_review": True,
        "review_reason": "why",
        "reviewed_at": "2026-12-03T00:00:00.000000Z",
        "reviewed_by": "reviewer",
    }
    assert row["tags"] == ["a", "b"] and row["links"] == [
        {"type": "contradicts", "target": "mem_20261201_000000_0000000000b3"}
    ]
    # The content hash is the write path's to set; everything else comes back.
    assert imported.from_mapping(row) == memory.replace(content_hash="")


def test_the_export_row_keeps_the_original_tree_rings_shape() -> None:
    """Its keys in the original's order, then Tree Ring's own."""
    original = json.loads(ORIGINAL_EXPORT.read_text(encoding="utf-8").splitlines()[0])
    keys = list(_full_memory().to_dict())
    assert keys[: len(original)] == list(original)
    assert keys[len(original) :] == [
        "trust",
        "valid_from",
        "valid_to",
        "retired_at",
        "redacted_at",
        "origin",
        "origin_session",
        "content_hash",
    ]


def test_an_original_row_reads_with_the_originals_defaults() -> None:
    row = {"summary": "Bare", "review": {"needs_review": True}, "supersedes": ["mem_x1"]}
    memory = imported.from_mapping(row)
    assert (memory.scope, memory.event_type, memory.origin) == ("global", "note", "import")
    assert (memory.trust, memory.supersedes) == ("pending", ("mem_x1",))
    assert memory.valid_from == memory.updated_at == memory.created_at
    assert memory.id.startswith("mem_")


def test_a_seed_may_carry_what_a_write_carries_and_nothing_the_store_sets() -> None:
    written_by_the_store = {"retired_at", "redacted_at", "origin", "origin_session", "content_hash"}
    assert set(_full_memory().to_dict()) - written_by_the_store == quality.SEED_KEYS


def test_a_draft_holds_the_fields_a_caller_may_set() -> None:
    caller = [spec.name for spec in fields(verbs.Draft)]
    assert caller[0] == "summary"
    said = {spec.name for spec in fields(record.Memory) if spec.get("caller")}
    # Beside the row's fields, the files a memory is about (stored as its anchors).
    assert set(caller) == said | set(verbs.ANCHOR_FIELDS)
    assert not said & set(verbs.ANCHOR_FIELDS)
    draft = verbs.Draft("Said", ring="scar")
    assert (draft.summary, draft.ring, draft.event_type, draft.scope) == (
        "Said",
        "scar",
        "note",
        None,
    )
    with pytest.raises(TypeError):
        verbs.Draft("Said", id="mem_x")


@given(st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59)))
def test_epoch_seconds_agrees_with_datetime_for_every_stored_time(moment: datetime) -> None:
    from tree_ring.model.record import epoch_seconds

    stamp = format_time(moment.replace(tzinfo=UTC))
    expected = moment.replace(tzinfo=UTC).timestamp()
    found = epoch_seconds(stamp)
    assert found is not None and abs(found - expected) < 1e-3, (stamp, found, expected)


@pytest.mark.parametrize(
    "text",
    [
        "2026-02-29T00:00:00.000000Z",  # not a leap year
        "2026-13-01T00:00:00.000000Z",
        "2026-04-31T00:00:00.000000Z",
        "2026-01-01T24:00:00.000000Z",
        "2026-01-01T00:60:00.000000Z",
        "2026-01-01T00:00:60.000000Z",
        "0000-01-01T00:00:00.000000Z",
        "2026-01-01 00:00:00.000000Z",
        "2026-01-01T00:00:00.000000",
        "2026-01-01T00:00:00Z",
        "2026-01-01T00:00:00.000000+00:00",
        "2026-0١-01T00:00:00.000000Z",  # a digit, but not an ASCII one
        "+026-01-01T00:00:00.000000Z",
        "",
    ],
)
def test_epoch_seconds_refuses_what_is_not_a_stored_time(text: str) -> None:
    from tree_ring.model.record import epoch_seconds

    assert epoch_seconds(text) is None


def test_epoch_seconds_reads_a_leap_day_and_the_epoch() -> None:
    from tree_ring.model.record import epoch_seconds

    assert epoch_seconds("1970-01-01T00:00:00.000000Z") == 0
    assert epoch_seconds("2024-02-29T12:00:00.500000Z") == 1_709_208_000.5
    assert epoch_seconds("1969-12-31T23:59:59.000000Z") == -1
