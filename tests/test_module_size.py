"""Every module of the package stays small enough to read whole: at most
MAX_LINES lines. A module that grows past it is split by what it holds."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "tree_ring"
MAX_LINES = 700


def test_every_module_is_at_most_max_lines() -> None:
    sizes = {
        str(path.relative_to(PACKAGE)): len(path.read_text(encoding="utf-8").splitlines())
        for path in PACKAGE.rglob("*.py")
    }
    assert len(sizes) > 100
    assert {name: n for name, n in sizes.items() if n > MAX_LINES} == {}
