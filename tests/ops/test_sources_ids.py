"""Stable ids of file-backed memories: FNV-1a 64 as the original Tree Ring computes it."""

from __future__ import annotations

import pytest

from tree_ring.sources.files import fnv1a64, stable_id


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("", 0xCBF29CE484222325),  # the offset basis
        ("a", 0xAF63DC4C8601EC8C),  # published FNV-1a test vectors
        ("foobar", 0x85944171F73967E8),
    ],
)
def test_fnv1a64_vectors(text: str, value: int) -> None:
    assert fnv1a64(text) == value


def test_stable_ids_are_sixteen_hex_digits_after_the_adapter() -> None:
    assert stable_id("dox", "") == "mem_dox_cbf29ce484222325"
    assert stable_id("x", "é") == f"mem_x_{fnv1a64('é'):016x}"
    assert all(len(stable_id("a", str(n))) == len("mem_a_") + 16 for n in range(50))
