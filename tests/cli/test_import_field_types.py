"""A value of the wrong JSON type in an import file is refused, naming the
field and the type it takes, never stored as its Python spelling (`str()` of
a list or an object): the line is named, the exit is 2, nothing is imported."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import CliRunner

from tree_ring.store.db import Store

GOOD_ID = "mem_20260901_100000_0123456789ab"
BAD_ID = "mem_20260901_100000_ba9876543210"
HASH = "sha256:" + "0" * 64
STONE = {
    "record": "content_tombstone",
    "content_hash": HASH,
    "kind": "forgotten",
    "reason": "no longer true",
    "memory_id": "mem_20260901_090000_00aa11bb22cc",
    "created_at": "2026-09-01T09:00:00Z",
}
READMITTED = {"at": "2026-09-01T09:30:00Z", "by": "person", "reason": "true again"}


def _memory(**fields: Any) -> dict[str, Any]:
    return {"id": BAD_ID, "summary": "A row of the wrong types", "event_type": "note", **fields}


def _readmitted(**fields: Any) -> dict[str, Any]:
    return _memory(readmitted={**READMITTED, "overrides": [HASH], **fields})


def _legacy(**fields: Any) -> dict[str, Any]:
    """The original's agent row of before its version 0.12, without its profile."""
    return _memory(scope="agent", **fields)


TAGS = "tags must be a list of strings"
SUPERSEDES = "supersedes must be a list of strings"
SOURCE_TYPE = "source.type must be a string"
SOURCE_REF = "source.ref must be a string"
SOURCE_QUOTE = "source.quote must be a string"
REVIEWED_BY = "review.reviewed_by must be a string"
REVIEW_REASON = "review.review_reason must be a string"
NEEDS_REVIEW = "review.needs_review must be true or false"
TRUST = "trust must be a string"
LINK_TYPE = "each link's type must be a string"
REVIEW = "review must be an object"
ACTOR = "a content tombstone's actor must be a string"

# (the bad line, the error it gets), for every field an import reads.
CASES: list[tuple[dict[str, Any], str]] = [
    # The row found reading the original's rows: its first wrong field is named.
    (
        {
            "type": "memory_event",
            "memory": _memory(
                tags=[{"a": 1}, 7, None],
                source={"type": 5, "ref": ["x"], "quote": {"q": 1}},
                review={"reviewed_by": {"a": 1}},
            ),
        },
        SOURCE_TYPE,
    ),
    ({"type": "memory_event", "memory": _memory(tags=[{"a": 1}, 7, None])}, TAGS),
    *((_memory(tags=bad), TAGS) for bad in ([7], [None], [["x"]], "x", {"a": 1}, 7)),
    *((_memory(supersedes=bad), SUPERSEDES) for bad in ("mem_x", [7], [{"a": 1}], 7)),
    *((_memory(source={"type": bad}), SOURCE_TYPE) for bad in (5, ["x"], {"a": 1}, True, [])),
    *((_memory(source={"ref": bad}), SOURCE_REF) for bad in (["x"], 5, 0, False)),
    *((_memory(source={"quote": bad}), SOURCE_QUOTE) for bad in ({"q": 1}, 1.5, [])),
    *((_memory(review={"reviewed_by": bad}), REVIEWED_BY) for bad in ({"a": 1}, 7, ["x"])),
    *((_memory(review={"review_reason": bad}), REVIEW_REASON) for bad in (7, ["x"], {})),
    *(
        (_memory(review={"needs_review": bad}), NEEDS_REVIEW)
        for bad in ("no", "true", 1, 0, [], {"a": 1})
    ),
    *((_memory(trust=bad), TRUST) for bad in (["accepted"], 5, {"a": 1})),
    *(
        (_memory(links=[{"type": bad, "target": GOOD_ID}]), LINK_TYPE)
        for bad in (5, ["related"], {"a": 1})
    ),
    *((_memory(review=bad), REVIEW) for bad in (5, "ab", ["x"])),
    *((_legacy(review=bad), REVIEW) for bad in (5, "ab", ["x"])),
    *((_legacy(review={"review_reason": bad}), REVIEW_REASON) for bad in (7, ["x"])),
    *((_legacy(agent_profile=bad), "agent_profile must be a string") for bad in (5, ["w"])),
    *(({**STONE, "actor": bad}, ACTOR) for bad in ({"a": 1}, 7, ["x"], True)),
    (
        {"type": "tree_ring_memory_export", "schema_version": 1, "content_tombstones": 0},
        "the header's content_tombstones must be a list",
    ),
    (
        {
            "type": "tree_ring_memory_export",
            "schema_version": 1,
            "content_tombstones": [{**STONE, "actor": {"a": 1}}],
        },
        ACTOR,
    ),
    *((_readmitted(at=bad), "readmitted.at must be a string") for bad in (5, ["x"])),
    *((_readmitted(by=bad), "readmitted.by must be a string") for bad in ({"a": 1}, 7)),
    *((_readmitted(reason=bad), "readmitted.reason must be a string") for bad in (7, ["x"])),
    # A re-admission without its keys is named as one, not as keys of the wrong shape.
    (
        _memory(readmitted={"at": 5, "reason": [1]}),
        "readmitted has no overrides: it lists the tombstone keys it re-admits "
        "(sha256:<hex>, 1 to 1,000)",
    ),
    *(
        (
            _readmitted(overrides=bad),
            "readmitted.overrides lists the tombstone keys (sha256:<hex>, 1 to 1,000)",
        )
        for bad in ([], "sha256:0", None, 7)
    ),
]


def _ids(project_root: Path) -> set[str]:
    with Store.open(project_root) as store:
        return {row[0] for row in store.db.query("SELECT id FROM memories")}


@pytest.mark.parametrize(
    ("bad", "error"), CASES, ids=[f"{n}-{error.split()[0]}" for n, (_, error) in enumerate(CASES)]
)
def test_a_value_of_the_wrong_type_refuses_the_import(
    run_cli: CliRunner, project_root: Path, tmp_path: Path, bad: dict[str, Any], error: str
) -> None:
    for summary in ("The deploy runs migrations first", "Builds use the locked toolchain"):
        assert run_cli("remember", summary).code == 0
    held = _ids(project_root)
    assert len(held) == 2
    good = {"id": GOOD_ID, "summary": "A row of the right types", "event_type": "note"}
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    for mode in ((), ("--dry-run",)):
        result = run_cli("import", str(path), *mode)
        assert (result.code, result.out) == (2, "")
        assert result.err == f"error: line 2: {error}; nothing imported\n"
        as_json = run_cli("--json", "import", str(path), *mode)
        assert (as_json.code, as_json.out) == (2, "")
        assert json.loads(as_json.err)["error"] == {
            "code": "usage",
            "exit": 2,
            "message": f"line 2: {error}; nothing imported",
        }
    assert _ids(project_root) == held


def test_null_still_stands_for_a_value_left_out(run_cli: CliRunner, tmp_path: Path) -> None:
    row = _memory(
        tags=None,
        supersedes=None,
        source={"type": None, "ref": None, "quote": None},
        review={"needs_review": None, "reviewed_by": None, "review_reason": None},
        links=[{"type": None, "target": GOOD_ID}],
    )
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    result = run_cli("import", str(path))
    assert result.code == 0, result.err
    shown = run_cli("--json", "show", BAD_ID).json()["memory"]
    assert (shown["tags"], shown["supersedes"], shown["trust"]) == ([], [], "accepted")
    assert shown["source"] == {"type": "manual", "ref": "", "quote": ""}
    assert shown["links"] == [{"type": "related", "target": GOOD_ID}]
    assert (shown["review"]["reviewed_by"], shown["review"]["review_reason"]) == (None, None)
