"""The width help text wraps at: COLUMNS, else the terminal, else 80."""

from __future__ import annotations

import sys

import pytest

from tree_ring.cli import argparsing


@pytest.mark.parametrize(
    ("columns", "width"), [(None, 80), ("", 80), ("abc", 80), ("0", 80), ("120", 120)]
)
def test_columns_without_a_terminal(
    monkeypatch: pytest.MonkeyPatch, columns: str | None, width: int
) -> None:
    monkeypatch.setattr(argparsing, "_width", [])
    monkeypatch.setattr(sys, "__stdout__", None)  # no terminal to ask
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert argparsing._columns() == width  # pyright: ignore[reportPrivateUsage]
    monkeypatch.setenv("COLUMNS", "99")
    assert argparsing._columns() == width  # measured once per process
