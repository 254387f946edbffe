"""What a memory may hold, at each limit and one past it (numbers written out:
a changed limit in record.py must fail here)."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import make_memory

from tree_ring.model.errors import UsageError
from tree_ring.model.imported import from_mapping
from tree_ring.model.validation import validate

LIMITS = [
    ("summary", 8_000, "summary is 8,001 characters; the limit is 8,000"),
    ("details", 32_000, "details is 32,001 characters; the limit is 32,000"),
    ("source_ref", 1_024, "source ref is 1,025 characters; the limit is 1,024"),
    ("source_quote", 4_000, "source quote is 4,001 characters; the limit is 4,000"),
    ("agent_profile", 256, "agent profile must be at most 256 characters"),
    ("workflow_id", 256, "workflow id must be at most 256 characters"),
    ("session_id", 256, "session id must be at most 256 characters"),
    ("operation_id", 256, "operation id must be at most 256 characters"),
    ("project", 256, "project must be at most 256 characters"),
]


def memory(**fields: Any) -> Any:
    return make_memory("app-1", "A fact").replace(**fields)


@pytest.mark.parametrize(("field", "limit", "message"), LIMITS)
@pytest.mark.parametrize("text", ["x", "é"], ids=["ascii", "unicode"])
def test_each_text_limit_is_inclusive(field: str, limit: int, message: str, text: str) -> None:
    validate(memory(**{field: text * limit}))
    with pytest.raises(UsageError) as caught:
        validate(memory(**{field: text * (limit + 1)}))
    assert str(caught.value) == message


def test_tags_at_and_past_their_limits() -> None:
    validate(memory(tags=tuple(f"t{n}" for n in range(32))))
    with pytest.raises(UsageError, match=r"^at most 32 tags$"):
        validate(memory(tags=tuple(f"t{n}" for n in range(33))))
    validate(memory(tags=("t" * 64,)))
    with pytest.raises(UsageError, match=r"^tags must be at most 64 characters$"):
        validate(memory(tags=("t" * 65,)))


@pytest.mark.parametrize("value", [0.0, 1.0, 0.5])
def test_scores_at_their_bounds_are_accepted(value: float) -> None:
    validate(memory(salience=value, confidence=value))


@pytest.mark.parametrize("value", [-0.01, 1.01, float("nan"), float("inf")])
@pytest.mark.parametrize("field", ["salience", "confidence"])
def test_scores_outside_are_refused(field: str, value: float) -> None:
    with pytest.raises(UsageError, match=rf"^{field} must be a number between 0 and 1$"):
        validate(memory(**{field: value}))


def test_validity_must_not_end_before_it_starts() -> None:
    start = "2026-01-02T00:00:00.000000Z"
    validate(memory(valid_from=start, valid_to="2026-01-02T00:00:00.000001Z"))
    for end in (start, "2026-01-01T00:00:00.000000Z"):
        with pytest.raises(UsageError, match=r"^valid-to must be later than valid-from$"):
            validate(memory(valid_from=start, valid_to=end))
    # A correction closes a superseded row's validity to nothing: allowed there only.
    validate(memory(valid_from=start, valid_to=start, superseded_by="mem_x"))
    with pytest.raises(UsageError):
        validate(memory(valid_from=start, valid_to="2026-01-01T00:00:00.000000Z",
                        superseded_by="mem_x"))  # fmt: skip


@pytest.mark.parametrize(
    ("scope", "flag"),
    [("agent", "--agent-profile"), ("workflow", "--workflow-id"), ("session", "--session-id")],
)
def test_a_private_scope_needs_its_partition(scope: str, flag: str) -> None:
    with pytest.raises(UsageError) as caught:
        validate(memory(scope=scope))
    assert str(caught.value) == f"scope {scope} needs {flag} (or choose another --scope)"


@pytest.mark.parametrize(
    "field", ["agent_profile", "workflow_id", "session_id", "operation_id", "project"]
)
def test_a_blank_identifier_is_refused(field: str) -> None:
    with pytest.raises(UsageError, match="must not be blank"):
        validate(memory(**{field: "  "}))


def test_blank_summary_and_control_characters() -> None:
    with pytest.raises(UsageError, match=r"^summary must not be blank"):
        validate(memory(summary=" \t "))
    with pytest.raises(UsageError, match=r"^summary contains control characters"):
        validate(memory(summary="one\nline"))
    validate(memory(details="two\nlines\tand a tab", source_quote="quoted\nlines"))
    with pytest.raises(UsageError, match=r"^details contains control characters"):
        validate(memory(details="bell\x07"))
    with pytest.raises(UsageError, match=r"^agent profile contains control characters"):
        validate(memory(agent_profile="a\x85b"))


# -- rows from an export ----------------------------------------------------------


def row(**fields: Any) -> dict[str, Any]:
    return {"summary": "A fact", "event_type": "note", **fields}


def test_links_need_a_string_target() -> None:
    made = from_mapping(row(links=[{"type": "related", "target": "mem_a"}, {"target": "mem_b"}]))
    assert [(link.type, link.target) for link in made.links] == [
        ("related", "mem_a"),
        ("related", "mem_b"),
    ]
    for bad in ([{"type": "related"}], [{"type": "related", "target": 7}], ["mem_a"]):
        with pytest.raises(UsageError, match=r"^each link needs a type and a target$"):
            from_mapping(row(links=bad))


def test_supersedes_is_a_list_of_ids() -> None:
    assert from_mapping(row(supersedes=["mem_a", "mem_b"])).supersedes == ("mem_a", "mem_b")
    assert from_mapping(row()).supersedes == ()
    with pytest.raises(UsageError) as caught:
        from_mapping(row(supersedes="mem_a"))
    assert str(caught.value) == "supersedes must be a list of strings"


def test_trust_comes_from_the_row_or_the_original_review_flag() -> None:
    assert from_mapping(row()).trust == "accepted"
    assert from_mapping(row(review={"needs_review": True})).trust == "pending"
    assert from_mapping(row(review={"needs_review": False})).trust == "accepted"
    assert from_mapping(row(trust="disputed", review={"needs_review": True})).trust == "disputed"


def test_origin_is_the_rows_or_import() -> None:
    assert from_mapping(row()).origin == "import"
    assert from_mapping(row(origin="")).origin == "import"
    assert from_mapping(row(origin="codex")).origin == "codex"


@pytest.mark.parametrize("field", ["summary", "event_type", "origin", "scope", "ring"])
def test_a_text_field_that_is_not_text_is_refused(field: str) -> None:
    with pytest.raises(UsageError) as caught:
        from_mapping(row(**{field: 7}))
    assert str(caught.value) == f"{field} must be a string"


@pytest.mark.parametrize(("field", "what"), [("tags", "tags"), ("supersedes", "supersedes")])
def test_a_list_field_that_is_not_a_list_is_refused(field: str, what: str) -> None:
    with pytest.raises(UsageError) as caught:
        from_mapping(row(**{field: {"a": 1}}))
    assert str(caught.value) == f"{what} must be a list of strings"
