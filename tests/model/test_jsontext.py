"""JSON without the json package: the same text and the same errors as json, byte for byte."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from typing import Any

import pytest
from helpers import REPO
from hypothesis import given, settings
from hypothesis import strategies as st

from tree_ring.model import jsontext

TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=20)
SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | TEXT
VALUES = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(TEXT, children, max_size=4),
    max_leaves=20,
)


def _same(a: Any, b: Any) -> bool:
    """Equal, counting NaN as equal to itself (json decodes it as a new float)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, list) and isinstance(b, list):
        left: list[Any] = a
        right: list[Any] = b
        return len(left) == len(right) and all(map(_same, left, right))
    if isinstance(a, dict) and isinstance(b, dict):
        first: dict[str, Any] = a
        second: dict[str, Any] = b
        return first.keys() == second.keys() and all(_same(first[k], second[k]) for k in first)
    return type(a) is type(b) and a == b


@settings(max_examples=150, deadline=None, database=None)
@given(value=VALUES, sort_keys=st.booleans(), ensure_ascii=st.booleans())
def test_dumps_writes_what_json_writes(value: Any, sort_keys: bool, ensure_ascii: bool) -> None:
    options: dict[str, Any] = {"sort_keys": sort_keys, "ensure_ascii": ensure_ascii}
    assert jsontext.dumps(value, **options) == json.dumps(value, **options)
    compact = json.dumps(value, separators=(",", ":"), **options)
    assert jsontext.dumps(value, compact=True, **options) == compact
    indented = json.dumps(value, indent=1, **options)
    assert jsontext.dumps(value, indent=1, **options) == indented
    assert jsontext.canonical(value) == json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )


@settings(max_examples=150, deadline=None, database=None)
@given(value=VALUES, pad=st.sampled_from(["", " ", "\n\t ", "\r\n"]))
def test_loads_reads_what_json_reads(value: Any, pad: str) -> None:
    text = pad + json.dumps(value) + pad
    assert _same(jsontext.loads(text), json.loads(text))


@pytest.mark.parametrize(
    "text",
    ["", " ", "{", "[1,]", '{"a": 01}', "[1] x", "\ufeff[]", '"\x01"', "nul"],
)
def test_malformed_documents_fail_as_json_fails(text: str) -> None:
    try:
        json.loads(text)
    except (ValueError, RecursionError) as expected:
        with pytest.raises(type(expected)) as raised:
            jsontext.loads(text)
        assert str(raised.value) == str(expected)
    else:
        raise AssertionError(f"json accepted {text[:20]!r}")


@pytest.mark.parametrize("text", ["[" * 100_000, "[" * 5000 + "]" * 5000, '{"a":' * 5000])
def test_a_document_too_deep_to_parse_is_a_value_error(text: str) -> None:
    # Where json raises RecursionError, which a caller's `except ValueError`
    # (the hook's payload, the audit's detail) would let through.
    with pytest.raises(ValueError, match="nested too deeply"):
        jsontext.loads(text)


def test_what_json_cannot_write_is_refused_as_json_refuses_it() -> None:
    with pytest.raises(TypeError, match="not JSON serializable"):
        jsontext.dumps({"a": object()})
    assert jsontext.dumps({1: "a", None: "b"}, indent=1) == json.dumps(
        {1: "a", None: "b"}, indent=1
    )


def test_as_object_keeps_only_objects() -> None:
    assert jsontext.as_object(jsontext.loads('{"a": 1}')) == {"a": 1}
    assert jsontext.as_object(jsontext.loads("[1]")) is None
    assert jsontext.as_object("x") is None


def test_reading_and_writing_imports_neither_json_nor_re() -> None:
    script = (
        "import sys\n"
        f"sys.path.insert(0, {str(REPO)!r})\n"
        "from tree_ring.model import jsontext\n"
        'jsontext.dumps(jsontext.loads(\'{"a": [1, 2.5, null, "x"]}\'), sort_keys=True, indent=1)\n'
        "print(sorted({'json', 're', 'enum'} & set(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"
