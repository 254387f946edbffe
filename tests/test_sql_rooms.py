"""Which rooms of the package hold SQL text.

SQL lives in `store/`, as named operations the other rooms call; the search
engines of `read/`, `govern/` and `tree/` build their own queries. Every
module of `tree_ring/` is read with ast (nothing imported) for string
constants that hold a statement: a plain string, the constant parts of an
f-string, and strings written side by side (the parser joins them). A
statement is an upper-case keyword of one (`SELECT`, `INSERT`, `UPDATE t
SET`, `DELETE FROM`, `CREATE TABLE`, `PRAGMA name(`...), or a string that is
a bare statement (`VACUUM`, `COMMIT`, `ROLLBACK TO x`). Docstrings are
prose and skipped; lower-case prose ("select the rows") is not SQL.

The clients (cli/, mcp/, tui/, web/, hook/) hold none: they parse and render
over the library's front (`api/`), which holds none either.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "tree_ring"

# Rooms whose modules may hold SQL.
SQL_ROOMS = frozenset({"store", "read", "govern", "tree"})
CLIENTS = frozenset({"cli", "mcp", "tui", "web", "hook"})

# A statement's keyword anywhere in the text (a query, a fragment with a subquery).
STATEMENT = re.compile(
    r"\b(?:SELECT|INSERT|UPDATE\s+\w+\s+SET|DELETE\s+FROM"
    r"|CREATE\s+(?:TABLE|INDEX|TRIGGER|VIRTUAL)|DROP\s+(?:TABLE|INDEX|TRIGGER|VIEW)"
    r"|ALTER\s+TABLE|PRAGMA\s+\w+\s*(?:[(=]|$))"
)
# A bare statement as the whole text: a message may name `VACUUM` or `REINDEX`.
WHOLE = re.compile(
    r"\s*(?:BEGIN(?:\s+(?:IMMEDIATE|EXCLUSIVE|DEFERRED|TRANSACTION))?|COMMIT|ROLLBACK"
    r"|SAVEPOINT|RELEASE|REINDEX|VACUUM|ANALYZE|ATTACH\s+DATABASE)\b"
)


def docstrings(tree: ast.AST) -> set[int]:
    """The ids of the constant nodes that are docstrings."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                found.add(id(first.value))
    return found


def is_sql(text: str) -> bool:
    return STATEMENT.search(text) is not None or WHOLE.match(text) is not None


def sql_in(source: str) -> list[tuple[int, str]]:
    """(line, text) of each string constant of `source` that holds SQL."""
    tree = ast.parse(source)
    skip = docstrings(tree)
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in skip
        and is_sql(node.value)
    ]


@cache
def holding_sql() -> dict[str, list[tuple[int, str]]]:
    """Module path under tree_ring/ -> its SQL, for every module that holds some."""
    found: dict[str, list[tuple[int, str]]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        hits = sql_in(path.read_text(encoding="utf-8"))
        if hits:
            found[path.relative_to(PACKAGE).as_posix()] = hits
    return found


def room(module: str) -> str:
    return module.split("/")[0] if "/" in module else ""


def test_sql_lives_in_the_store_and_the_search_engines() -> None:
    found = holding_sql()
    astray = {module: hits[0] for module, hits in found.items() if room(module) not in SQL_ROOMS}
    assert astray == {}, "SQL outside store/: move it into a named store operation"


def test_no_client_holds_sql() -> None:
    clients = {module for module in holding_sql() if room(module) in CLIENTS | {"api"}}
    assert clients == set()


def test_the_store_holds_sql() -> None:
    # The scan reads the package at all: the store's own modules are found.
    found = holding_sql()
    assert {"store/rows.py", "store/schema.py", "store/tombstones.py"} <= set(found)


def test_what_counts_as_sql() -> None:
    source = '''
"""SELECT * FROM memories: a module's docstring is prose."""
PLAIN = "SELECT id FROM memories WHERE id = ?"
JOINED = ("DELETE " "FROM memories WHERE id = ?")
def f(table, n):
    """INSERT INTO t: a function's docstring too."""
    a = f"{n} = 1"
    b = f"UPDATE memories SET {n} = 1"
    c = f"{table} WHERE id IN (SELECT value FROM json_each(?))"
    d = "PRAGMA wal_checkpoint(TRUNCATE)"
    e = "VACUUM"
    g = f"ROLLBACK TO {table}"
    prose = "select the rows, then insert them; delete from the list"
    message = "PRAGMA integrity_check: ok"
    named = "merge the FTS indexes and VACUUM"
    upper = "rebuilt every index from the rows (REINDEX)"
'''
    assert {line for line, _ in sql_in(source)} == {3, 4, 8, 9, 10, 11, 12}
