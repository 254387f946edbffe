"""The package's rooms and the one direction imports may run between them.

Every module of `tree_ring/` is read (ast, nothing imported) for every import
it makes, at module level or inside a function, since a lazy import is still
a dependency. A room may import its own modules and those of any room on a
lower floor; the rooms of the top floor are clients of the library and do not
import one another. No module may reach itself through its imports.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "tree_ring"

# Lowest floor first. A room not listed here fails the test: a new room needs a floor.
FLOORS: tuple[tuple[str, ...], ...] = (
    ("model",),
    ("store",),
    ("guard",),
    ("govern",),
    ("tree",),
    ("write",),
    ("read",),
    # The families of the library's upkeep, each a room: the team ledger, the
    # files a project keeps, import and export, a person's decisions; upkeep
    # reads the ledger; the harness setup reads both.
    ("team", "sources", "transfer", "review"),
    ("upkeep",),
    ("harness",),
    # The library's one front: a project opened for its clients.
    ("api",),
    ("hook", "cli", "mcp", "tui", "web"),
)
FLOOR = {room: level for level, rooms in enumerate(FLOORS) for room in rooms}
TOP = len(FLOORS) - 1
# The package's own entry points, above every room.
ENTRY = ("tree_ring", "tree_ring.__main__")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The package modules `path` imports (a `from package import name` that
    names a module counts as that module)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in known:
            found.add(node.module)
            found.update(
                f"{node.module}.{alias.name}"
                for alias in node.names
                if f"{node.module}.{alias.name}" in known
            )
    return found


def room(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in FLOOR) else None


def graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    return {name: imports_of(path, known) - {name} for name, path in found.items()}


def test_every_module_sits_in_a_room_with_a_floor() -> None:
    homeless = {name for name in modules() if name not in ENTRY and room(name) not in FLOOR}
    assert homeless == set()


def test_no_import_runs_to_a_higher_floor_or_across_the_top() -> None:
    wrong: set[str] = set()
    for name, targets in graph().items():
        here = room(name)
        for target in targets:
            there = room(target)
            if name in ENTRY or there is None or here == there:
                continue
            if here is None or FLOOR[there] > FLOOR[here]:
                wrong.add(f"{name} -> {target} (up)")
            elif FLOOR[there] == FLOOR[here] == TOP:
                wrong.add(f"{name} -> {target} (across the top floor)")
            elif FLOOR[there] == FLOOR[here]:
                wrong.add(f"{name} -> {target} (across one floor)")
    assert wrong == set()


def test_no_module_reaches_itself() -> None:
    edges = graph()
    cycles: set[tuple[str, ...]] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        for target in edges.get(name, ()):
            if target in path:
                loop = path[path.index(target) :]
                start = loop.index(min(loop))
                cycles.add(loop[start:] + loop[:start])
            elif target not in done:
                visit(target, (*path, target))
        done.add(name)

    done: set[str] = set()
    for name in edges:
        visit(name, (name,))
    # A package face (`tree_ring.guard`) imports its own modules; those never import it.
    assert cycles == set()


@pytest.mark.parametrize(
    ("source", "target", "allowed"),
    [
        ("tree_ring.write.pipeline", "tree_ring.store.rows", True),
        ("tree_ring.store.rows", "tree_ring.write.pipeline", False),
        ("tree_ring.cli.app", "tree_ring.hook.adapter", False),
        ("tree_ring.model.record", "tree_ring.guard", False),
    ],
)
def test_the_rule_itself(source: str, target: str, allowed: bool) -> None:
    """The floors say what the other tests enforce, so a wrong FLOORS table shows here."""
    here, there = room(source), room(target)
    assert here is not None and there is not None
    ok = here == there or (FLOOR[there] < FLOOR[here] and not FLOOR[here] == FLOOR[there] == TOP)
    assert ok is allowed
