#!/usr/bin/env python3
"""Mutation check: plant one-line bugs in tree_ring/ and see whether a test fails.

Not part of CI; run it by hand after changing tests or decision points:

    .venv/bin/python scripts/mutation.py --limit 300 --seed 1 --json out.json

Each mutant changes one decision point of one module: a comparison flipped
(`<` to `<=`, `==` to `!=`, `in` to `not in`), an `if` negated, `and`
swapped with `or`, a `not` dropped, an integer constant moved by one, a
`return X` made `return None` (or the opposite boolean), `min` swapped with
`max`, or a statement skipped. One mutant at a time is written into a copy
of the repository (the working tree is never touched) and the fast tests
(`pytest -x -m "not slow"`) run against it: a failing run kills the mutant,
a passing run lets it survive, a run past its timeout counts as killed, and
so does a mutant that stops the package importing (pytest cannot start, and
its traceback runs through the mutated module); any other run that pytest
cannot start is an error, left out of the score and listed.

Which tests run: first the whole fast suite runs once with a tracer that
records, per test, which functions of tree_ring/ it called (in the pytest
process and in the CLI and hook processes it starts; kept in .cache/mutation/
until the package or the tests change, and when only test files changed, only
they run again); a mutant then runs only the tests
that called the function it sits in, its room's tests first, then fastest
first. Module-level code, cached functions and functions that module-level
code calls run once per process, so whichever test came first is credited:
those mutants run every test that touched the module. `--select room` runs
the mutated room's tests instead, `--select all` the whole fast suite.

Standard library only; pytest comes from the interpreter that runs it.
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures
import hashlib
import json
import os
import queue
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
PACKAGE = "tree_ring"
SKIP_DIRS = {
    ".git",
    ".venv",
    ".cache",
    ".hypothesis",
    ".ruff_cache",
    ".pytest_cache",
    "__pycache__",
}

FLIPS: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
SYMBOL = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
}


@dataclass(frozen=True)
class Mutant:
    path: str  # tree_ring/store/db.py
    line: int
    node: int  # the node's index in ast.walk order of the file
    kind: str  # compare if boolop not const return minmax skip
    change: str  # what the mutant does, in words
    scope: int  # first line of the enclosing function's code object; 0: module level
    widen: bool = False  # the function runs at import or under a cache: test its whole module
    outer: int = 0  # first line of the outermost enclosing function (what the server patches)

    @property
    def id(self) -> str:
        return f"{self.path}:{self.line}:{self.node}:{self.kind}:{self.change}"


# ------------------------------------------------------------------ finding sites


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _excluded(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """Inside an annotation, an f-string (messages), a docstring, TYPE_CHECKING or
    __main__; or the `if TYPE_CHECKING:` itself, whose body holds imports for the
    type checker only (negated, it imports them at run time: nothing else changes)."""
    if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
        return True
    child, parent = node, parents.get(node)
    while parent is not None:
        if isinstance(parent, ast.JoinedStr):
            return True
        if isinstance(parent, ast.arg | ast.AnnAssign) and child is parent.annotation:
            return True
        if isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef) and child is parent.returns:
            return True
        if isinstance(parent, ast.If) and child is not parent.test:
            test = ast.unparse(parent.test)
            if test in ("TYPE_CHECKING", "__name__ == '__main__'"):
                return True
        child, parent = parent, parents.get(parent)
    return False


def _function(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> ast.FunctionDef | None:
    parent = parents.get(node)
    while parent is not None:
        if isinstance(parent, ast.FunctionDef):
            return parent
        parent = parents.get(parent)
    return None


def _first_line(function: ast.FunctionDef | None) -> int:
    """The function's co_firstlineno (its first decorator's line), or 0."""
    if function is None:
        return 0
    return min([function.lineno, *(d.lineno for d in function.decorator_list)])


def _scope(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> int:
    """The co_firstlineno of the innermost enclosing function."""
    return _first_line(_function(node, parents))


def _outermost(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> int:
    """The co_firstlineno of the outermost enclosing function: its code holds
    every nested function's code, so replacing it replaces them too."""
    found = _function(node, parents)
    while found is not None and _function(found, parents) is not None:
        found = _function(found, parents)
    return _first_line(found)


def _runs_once(tree: ast.Module) -> set[str]:
    """Functions whose calls the tracer pins on one test: cached ones, and those
    module-level code calls at import (whichever test imports the module first)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            if any("cache" in ast.unparse(d) for d in node.decorator_list):
                names.add(node.name)
    outer = [n for n in tree.body if not isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    for statement in outer:
        for node in ast.walk(statement):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                names.add(node.func.id)
    return names


def _is_docstring(node: ast.stmt, parents: dict[ast.AST, ast.AST]) -> bool:
    parent = parents.get(node)
    body = getattr(parent, "body", None)
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(body, list)
        and bool(body)
        and body[0] is node
    )


def _rebinds(node: ast.Assign, parents: dict[ast.AST, ast.AST]) -> bool:
    """`x = ...` where x already has a value: skipping it keeps the old one."""
    if len(node.targets) != 1:
        return False
    target = node.targets[0]
    if isinstance(target, ast.Attribute | ast.Subscript):
        return True
    if not isinstance(target, ast.Name):
        return False
    scope: ast.AST | None = parents.get(node)
    while scope is not None and not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
        scope = parents.get(scope)
    if scope is None:
        return False
    for other in ast.walk(scope):
        if other is node or getattr(other, "lineno", node.lineno) >= node.lineno:
            continue
        if isinstance(other, ast.Name) and other.id == target.id:
            if isinstance(other.ctx, ast.Store):
                return True
        if isinstance(other, ast.arg) and other.arg == target.id:
            return True
    return False


def _boolish(value: ast.expr) -> bool:
    return (
        isinstance(value, ast.Compare | ast.BoolOp)
        or (isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not))
        or (isinstance(value, ast.Constant) and isinstance(value.value, bool))
    )


def sites(path: str, source: str) -> Iterator[Mutant]:
    """Every mutant of one module, in source order."""
    tree = ast.parse(source)
    parents = _parents(tree)
    once = _runs_once(tree)
    for index, node in enumerate(ast.walk(tree)):
        if _excluded(node, parents):
            continue
        line = getattr(node, "lineno", 0)
        scope = _scope(node, parents)
        function = _function(node, parents)
        widen = function is None or function.name in once
        outer = _outermost(node, parents)

        def mutant(
            kind: str,
            change: str,
            line: int = line,
            index: int = index,
            scope: int = scope,
            widen: bool = widen,
            outer: int = outer,
        ) -> Mutant:
            return Mutant(path, line, index, kind, change, scope, widen, outer)

        if isinstance(node, ast.Compare):
            for at, op in enumerate(node.ops):
                if type(op) in FLIPS:
                    new = FLIPS[type(op)]
                    yield mutant("compare", f"op{at}: `{SYMBOL[type(op)]}` -> `{SYMBOL[new]}`")
        elif isinstance(node, ast.If | ast.IfExp | ast.While):
            yield mutant("if", "negate the condition")
        elif isinstance(node, ast.comprehension):
            for at, _ in enumerate(node.ifs):
                yield mutant("if", f"negate comprehension filter {at}", line=node.iter.lineno)
        elif isinstance(node, ast.BoolOp):
            yield mutant(
                "boolop", "`and` -> `or`" if isinstance(node.op, ast.And) else "`or` -> `and`"
            )
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            yield mutant("not", "drop `not`")
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            parent = parents.get(node)
            if isinstance(parent, ast.Expr):
                continue
            yield mutant("const", f"{node.value} -> {node.value + 1}")
            yield mutant("const", f"{node.value} -> {node.value - 1}")
        elif isinstance(node, ast.Return) and node.value is not None:
            if isinstance(node.value, ast.Constant) and node.value.value is None:
                continue
            if _boolish(node.value):
                yield mutant("return", "return the opposite boolean")
            else:
                yield mutant("return", "return None")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("min", "max")
        ):
            other = "max" if node.func.id == "min" else "min"
            yield mutant("minmax", f"`{node.func.id}` -> `{other}`")
        elif isinstance(node, ast.stmt) and _scope(node, parents):
            skippable = (
                (isinstance(node, ast.Expr) and not _is_docstring(node, parents))
                or isinstance(node, ast.AugAssign | ast.Raise | ast.Continue | ast.Break)
                or (isinstance(node, ast.Assign) and _rebinds(node, parents))
            )
            if skippable:
                yield mutant("skip", f"skip `{ast.unparse(node).splitlines()[0][:60]}`")


def apply(source: str, mutant: Mutant) -> str:
    """The module's source with the one mutation applied."""
    tree = ast.parse(source)
    node = list(ast.walk(tree))[mutant.node]
    parents = _parents(tree)
    if mutant.kind == "compare":
        assert isinstance(node, ast.Compare)
        at = int(mutant.change[2 : mutant.change.index(":")])
        node.ops[at] = FLIPS[type(node.ops[at])]()
    elif mutant.kind == "if" and isinstance(node, ast.comprehension):
        at = int(mutant.change.rsplit(" ", 1)[1])
        node.ifs[at] = ast.UnaryOp(ast.Not(), node.ifs[at])
    elif mutant.kind == "if":
        assert isinstance(node, ast.If | ast.IfExp | ast.While)
        node.test = ast.UnaryOp(ast.Not(), node.test)
    elif mutant.kind == "boolop":
        assert isinstance(node, ast.BoolOp)
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif mutant.kind == "not":
        assert isinstance(node, ast.UnaryOp)
        _replace(parents, node, node.operand)
    elif mutant.kind == "const":
        assert isinstance(node, ast.Constant)
        node.value = int(mutant.change.split(" -> ")[1])
    elif mutant.kind == "return":
        assert isinstance(node, ast.Return) and node.value is not None
        if mutant.change == "return None":
            node.value = ast.Constant(None)
        else:
            node.value = ast.UnaryOp(ast.Not(), node.value)
    elif mutant.kind == "minmax":
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        node.func = ast.Name("max" if node.func.id == "min" else "min", ast.Load())
    elif mutant.kind == "skip":
        _replace(parents, node, ast.Pass())
    else:
        raise ValueError(mutant.kind)
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def _replace(parents: dict[ast.AST, ast.AST], old: ast.AST, new: ast.AST) -> None:
    parent = parents[old]
    for name, value in ast.iter_fields(parent):
        if value is old:
            setattr(parent, name, new)
            return
        if isinstance(value, list):
            for at, item in enumerate(value):  # type: ignore[arg-type]
                if item is old:
                    value[at] = new
                    return
    raise ValueError("node not found under its parent")


def all_mutants(repo: Path, modules: list[str]) -> list[Mutant]:
    found: list[Mutant] = []
    for path in sorted((repo / PACKAGE).rglob("*.py")):
        rel = path.relative_to(repo).as_posix()
        if modules and not any(rel == m or rel.startswith(m.rstrip("/") + "/") for m in modules):
            continue
        found.extend(sites(rel, path.read_text(encoding="utf-8")))
    return found


# ------------------------------------------------------------------ running tests

# Loaded into pytest with -p: records which tree_ring functions each test
# calls (a call-only tracer: no line events), or keeps only the chosen tests.
PLUGIN = r"""
import json, os, sys, threading, time

import pytest

ROOT = os.environ["MUTATION_ROOT"]
_current = [set()]
_collected = _current[0]
_tests = {}


def _tracer(frame, event, arg):
    _current[0].add(frame.f_code)


def _owned(codes):
    while True:  # a thread the test left running may still add to the set
        try:
            codes = tuple(codes)
            break
        except RuntimeError:
            continue
    return sorted({(c.co_filename[len(ROOT) + 1:], c.co_firstlineno)
                   for c in codes if c.co_filename.startswith(ROOT + os.sep)})


def pytest_configure(config):
    if os.environ.get("MUTATION_COVER_OUT"):
        sys.settrace(_tracer)
        threading.settrace(_tracer)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if not os.environ.get("MUTATION_COVER_OUT"):
        yield
        return
    _current[0] = set()
    os.environ["MUTATION_TEST_ID"] = item.nodeid
    began = time.perf_counter()
    yield
    codes, _current[0] = _current[0], set()
    _tests[item.nodeid] = {"seconds": time.perf_counter() - began, "codes": _owned(codes)}


def pytest_collection_modifyitems(session, config, items):
    wanted = os.environ.get("MUTATION_SELECT")
    if not wanted:
        return
    order = {nodeid: at for at, nodeid in enumerate(open(wanted).read().split("\n")) if nodeid}
    kept = sorted((i for i in items if i.nodeid in order), key=lambda i: order[i.nodeid])
    dropped = [i for i in items if i.nodeid not in order]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = kept


def pytest_sessionfinish(session, exitstatus):
    out = os.environ.get("MUTATION_COVER_OUT")
    if out:
        sys.settrace(None)
        with open(out, "w") as handle:
            json.dump({"collection": _owned(_collected), "tests": _tests}, handle)
"""

# Put on PYTHONPATH as sitecustomize.py: the CLI and hook processes a test
# starts record what they call, under the test's id.
SITECUSTOMIZE = r"""
import os

if os.environ.get("MUTATION_SUBPROCESS_DIR") and os.environ.get("MUTATION_TEST_ID"):
    import atexit, json, sys

    _dir, _root = os.environ["MUTATION_SUBPROCESS_DIR"], os.environ["MUTATION_ROOT"]
    _codes = set()

    def _tracer(frame, event, arg):
        _codes.add(frame.f_code)

    def _dump():
        sys.settrace(None)
        owned = sorted({(c.co_filename[len(_root) + 1:], c.co_firstlineno)
                        for c in _codes if c.co_filename.startswith(_root + os.sep)})
        path = os.path.join(_dir, f"{os.getpid()}-{id(_codes)}.json")
        with open(path, "w") as handle:
            json.dump({"test": os.environ["MUTATION_TEST_ID"], "codes": owned}, handle)

    sys.settrace(_tracer)
    atexit.register(_dump)
"""


# The fast path, one per copy of the repository: a process that has imported
# pytest and all of tree_ring once, and forks a child per mutant. The child
# swaps the mutated function's code object into the live function (so every
# reference to it, however imported, runs the mutant) and runs pytest. The
# mutated file is on disk too, for the CLI and hook processes tests start.
SERVER = r"""
import importlib, json, os, pkgutil, signal, sys, time, traceback, types

sys.path.insert(0, os.getcwd())
import pytest
try:
    import hypothesis  # its pytest plugin loads in every child
except ImportError:
    pass
import tree_ring

MODULES = {}
for info in pkgutil.walk_packages(tree_ring.__path__, "tree_ring."):
    if not info.name.endswith("__main__"):
        MODULES[info.name] = importlib.import_module(info.name)


def functions(module):
    found, seen = [], set()

    def visit(obj, depth):
        if id(obj) in seen:
            return
        seen.add(id(obj))
        if isinstance(obj, types.FunctionType):
            found.append(obj)
        elif isinstance(obj, (staticmethod, classmethod)):
            visit(obj.__func__, depth)
        elif isinstance(obj, property):
            for part in (obj.fget, obj.fset, obj.fdel):
                if part is not None:
                    visit(part, depth)
        elif isinstance(obj, type) and obj.__module__ == module.__name__ and depth < 4:
            for value in list(vars(obj).values()):
                visit(value, depth + 1)
        wrapped = getattr(obj, "__wrapped__", None)
        if wrapped is not None and not isinstance(obj, type):
            visit(wrapped, depth)

    for value in list(vars(module).values()):
        visit(value, 0)
    return [f for f in found if f.__code__.co_filename == module.__file__]


def codes(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from codes(const)


def patch(job):
    module = MODULES[job["module"]]
    line = job["outer"]
    targets = [f for f in functions(module) if f.__code__.co_firstlineno == line]
    if not targets:
        return "no live function starts at that line"
    original = list(codes(compile(job["original"], module.__file__, "exec")))
    mutated = list(codes(compile(job["source"], module.__file__, "exec")))
    for target in targets:
        name = target.__code__.co_qualname
        before = [c for c in original if c.co_qualname == name]
        after = [c for c in mutated if c.co_qualname == name]
        at = [i for i, c in enumerate(before) if c.co_firstlineno == line]
        if len(before) != len(after) or len(at) != 1:
            return "the mutant's functions do not line up with the module's"
        target.__code__ = after[at[0]]
    return None


for request in sys.stdin:
    job = json.loads(request)
    with open(job["log"], "w") as log:
        pid = os.fork()
        if pid == 0:
            code = 98
            try:
                os.setpgid(0, 0)
                null = os.open(os.devnull, os.O_RDONLY)
                os.dup2(null, 0)
                os.dup2(log.fileno(), 1)
                os.dup2(log.fileno(), 2)
                problem = patch(job) if job.get("module") else None
                if problem:
                    print("patch: " + problem)
                    code = 99
                else:
                    os.environ.update(job["env"])
                    code = int(pytest.main(job["args"]))
            except BaseException:
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
    deadline = time.monotonic() + job["timeout"]
    status = None
    while True:
        done, raw = os.waitpid(pid, os.WNOHANG)
        if done:
            status = os.waitstatus_to_exitcode(raw)
            break
        if time.monotonic() > deadline:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
            break
        time.sleep(0.02)
    print(json.dumps({"rc": status}), flush=True)
"""


class Server:
    """The fork server of one copy of the repository."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.proc = subprocess.Popen(
            [sys.executable, str(repo.parent / "plugin" / "mutation_server.py")],
            cwd=repo,
            env=pytest_env(repo, {}),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def run(self, job: dict[str, Any]) -> int | None:
        """pytest's exit code, 99 if the mutant could not be patched in, None on timeout."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        if not answer:
            raise RuntimeError("the mutation server stopped")
        rc: int | None = json.loads(answer)["rc"]
        return rc

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)


def copy_repo(into: Path) -> Path:
    def ignore(folder: str, names: list[str]) -> set[str]:
        return {n for n in names if n in SKIP_DIRS or n.endswith(".pyc")}

    target = into / "repo"
    shutil.copytree(REPO, target, ignore=ignore, symlinks=True)
    (into / "plugin").mkdir()
    (into / "plugin" / "mutation_plugin.py").write_text(PLUGIN, encoding="utf-8")
    (into / "plugin" / "mutation_server.py").write_text(SERVER, encoding="utf-8")
    (into / "site").mkdir()
    (into / "site" / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    return target


def pytest_env(repo: Path, extra: dict[str, str], *, site: bool = False) -> dict[str, str]:
    """The plugin on the path; sitecustomize only while measuring coverage."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MUTATION_")}
    paths = [repo.parent / "plugin", *([repo.parent / "site"] if site else [])]
    env.update(
        PYTHONPATH=os.pathsep.join(map(str, paths)),
        PYTHONDONTWRITEBYTECODE="1",
        MUTATION_ROOT=str(repo / PACKAGE),
        **extra,
    )
    return env


def pytest_cmd(args: list[str]) -> list[str]:
    base = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider"]
    return [*base, "-p", "mutation_plugin", "-m", "not slow", *args]


@dataclass
class Coverage:
    seconds: dict[str, float]  # test -> duration under the tracer
    by_code: dict[str, set[str]]  # "path:firstline" -> tests that called it
    by_module: dict[str, set[str]]  # path -> tests that called anything in it
    at_import: set[str]  # "path:firstline" run while tests were collected


def _sources(repo: Path) -> Iterator[Path]:
    for folder in (PACKAGE, "tests", "fixtures", "bin"):
        for path in sorted((repo / folder).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                yield path


def fingerprint(repo: Path) -> str:
    """What the coverage depends on: the package, the tests and their fixtures."""
    digest = hashlib.sha256()
    for path in _sources(repo):
        digest.update(path.relative_to(repo).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def manifest(repo: Path) -> dict[str, str]:
    """Each file the coverage depends on, by its content's hash."""
    return {
        path.relative_to(repo).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        for path in _sources(repo)
    }


def _changed_test_files(old: dict[str, str], new: dict[str, str]) -> list[str] | None:
    """The test files added, changed or removed since `old`, when nothing else
    changed but new files under tests/ (which no unchanged test can name; a new
    conftest.py applies to all, so it counts as a change); else None."""
    changed = sorted(p for p in old.keys() | new.keys() if old.get(p) != new.get(p))
    tests = [p for p in changed if p.startswith("tests/") and Path(p).name.startswith("test_")]
    added = [
        p
        for p in changed
        if p not in old and p.startswith("tests/") and Path(p).name != "conftest.py"
    ]
    if set(tests) | set(added) != set(changed):
        return None
    return [p for p in tests if p.endswith(".py")]


def measure(repo: Path, tests: list[str], *, stale: bool = False) -> Coverage:
    """Run the fast suite once under the tracer; kept in .cache/mutation/ until
    the package or the tests change (when only test files changed, only they
    run again). `stale`: the newest kept one will do (new
    tests are then never chosen, so a mutant only they kill shows as a survivor)."""
    folder = REPO / ".cache" / "mutation"
    cache = folder / f"coverage-{fingerprint(repo)}.json"
    kept = sorted(folder.glob("coverage-*.json"), key=lambda p: p.stat().st_mtime)
    if stale and kept and not cache.exists():
        cache = kept[-1]
    files = manifest(repo)
    if cache.exists():
        print(f"coverage from {cache.relative_to(REPO)}", file=sys.stderr)
        data = json.loads(cache.read_text())
        if "files" not in data:  # kept by an older version of this script
            data["files"] = files
            cache.write_text(json.dumps(data))
        return _coverage(data)
    # Only test files changed since a kept measurement: measure just those and
    # keep the rest (the package is the same, so the other tests call the same code).
    for older in reversed(kept):
        data = json.loads(older.read_text())
        changed = _changed_test_files(data.get("files", {}), files) if "files" in data else None
        if changed is None:
            continue
        print(f"coverage from {older.relative_to(REPO)}", file=sys.stderr)
        present = [p for p in changed if p in files]
        fresh = _trace(repo, present) if present else {"collection": [], "tests": {}}
        gone = set(changed)
        data["tests"] = {
            t: info for t, info in data["tests"].items() if t.split("::", 1)[0] not in gone
        } | fresh["tests"]
        data["subprocesses"] = [
            s for s in data["subprocesses"] if s["test"].split("::", 1)[0] not in gone
        ] + fresh["subprocesses"]
        data["collection"] = sorted({tuple(c) for c in data["collection"] + fresh["collection"]})
        break
    else:
        data = _trace(repo, tests)
    data["files"] = files
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(data))
    return _coverage(data)


def _trace(repo: Path, tests: list[str]) -> dict[str, Any]:
    """Run `tests` once under the tracer: what each test calls."""
    work = repo.parent
    out, sub = work / "coverage.json", work / "subprocess"
    shutil.rmtree(sub, ignore_errors=True)
    sub.mkdir()
    extra = {"MUTATION_COVER_OUT": str(out), "MUTATION_SUBPROCESS_DIR": str(sub)}
    env = pytest_env(repo, extra, site=True)
    cmd = [c for c in pytest_cmd(tests) if c != "-x"]
    print(f"measuring coverage: {' '.join(cmd[2:])}", file=sys.stderr, flush=True)
    began = time.monotonic()
    done = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, check=False)
    print(f"  {time.monotonic() - began:.0f} s, exit {done.returncode}", file=sys.stderr)
    if done.returncode != 0:
        sys.exit("the unmutated tests do not pass:\n" + done.stdout[-3000:])
    data: dict[str, Any] = json.loads(out.read_text())
    data["subprocesses"] = [json.loads(path.read_text()) for path in sorted(sub.glob("*.json"))]
    return data


def _coverage(data: dict[str, Any]) -> Coverage:
    cov = Coverage({}, {}, {}, {f"{PACKAGE}/{p}:{n}" for p, n in data["collection"]})
    calls: dict[str, list[tuple[str, int]]] = {}
    for test, info in data["tests"].items():
        cov.seconds[test] = info["seconds"]
        calls[test] = [tuple(c) for c in info["codes"]]
    for found in data["subprocesses"]:
        calls.setdefault(found["test"], []).extend(tuple(c) for c in found["codes"])
    for test, codes in calls.items():
        for file, first in codes:
            path = f"{PACKAGE}/{file}"
            cov.by_code.setdefault(f"{path}:{first}", set()).add(test)
            cov.by_module.setdefault(path, set()).add(test)
    return cov


_NAMING: dict[str, set[str]] = {}


def _naming_tests(path: str, cov: Coverage) -> set[str]:
    """The tests in files that import the module at `path` by name."""
    if path not in _NAMING:
        dotted = path.removesuffix(".py").replace("/", ".")
        package, _, name = dotted.rpartition(".")
        pattern = re.compile(
            rf"\b{re.escape(dotted)}\b|from {re.escape(package)} import [^\n]*\b{name}\b"
        )
        files = {test.split("::", 1)[0] for test in cov.seconds}
        named = {
            file
            for file in files
            if (REPO / file).is_file() and pattern.search((REPO / file).read_text("utf-8"))
        }
        _NAMING[path] = {t for t in cov.seconds if t.split("::", 1)[0] in named}
    return _NAMING[path]


def chosen_tests(mutant: Mutant, select: str, cov: Coverage | None) -> list[str] | None:
    """Node ids to run, fastest first; None: the whole fast suite."""
    if select == "all" or cov is None:
        return None
    if select == "room":
        room = mutant.path.split("/")[1]
        tests = {t for t in cov.seconds if t.startswith(f"tests/{room}/")}
    else:
        key = f"{mutant.path}:{mutant.scope}"
        tests = set(cov.by_code.get(key, ())) if mutant.scope else set()
        if mutant.widen or key in cov.at_import:
            tests |= cov.by_module.get(mutant.path, set())
        if not mutant.scope:
            # Module-level data (a table, a constant) is read, not called, and
            # the tracer sees calls only: add the tests of every file naming it.
            tests |= _naming_tests(mutant.path, cov)
    # The mutated room's own tests first, then fastest first: a kill ends the run.
    room = f"tests/{mutant.path.split('/')[1]}/"
    return sorted(tests, key=lambda t: (not t.startswith(room), cov.seconds.get(t, 0.0), t))


@dataclass
class Result:
    mutant: Mutant
    outcome: str  # killed | timeout | survived | untested | error (pytest could not run)
    seconds: float
    tests: int
    detail: str


def run_mutant(
    repo: Path,
    server: Server | None,
    mutant: Mutant,
    tests: list[str] | None,
    cov: Coverage | None,
    budget: float,
    confirm: bool = False,
) -> Result:
    """Run the tests against one mutant: in a forked child of the server when
    the mutant sits in a function, else (and with `confirm`, for a survivor
    too) in a new pytest process."""
    if tests is not None and not tests:
        return Result(mutant, "untested", 0.0, 0, "no test calls this code")
    target = repo / mutant.path
    original = target.read_text(encoding="utf-8")
    mutated = apply(original, mutant)
    work = repo.parent
    env: dict[str, str] = {}
    args = ["tests"]
    if tests is not None:
        (work / "select.txt").write_text("\n".join(tests), encoding="utf-8")
        env["MUTATION_SELECT"] = str(work / "select.txt")
        args = sorted({t.split("::", 1)[0] for t in tests})
    expected = sum(cov.seconds.get(t, 1.0) for t in tests) if (cov and tests) else budget
    timeout = max(60.0, 3 * expected + 30)
    count = len(tests) if tests is not None else 0
    log = work / "pytest.log"
    target.write_text(mutated, encoding="utf-8")
    began = time.monotonic()
    try:
        rc: int | None = 99
        if server is not None and not mutant.widen and mutant.outer:
            module = mutant.path.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
            job = {
                "module": module,
                "outer": mutant.outer,
                "original": original,
                "source": mutated,
                "args": pytest_cmd(args)[3:],
                "env": env,
                "log": str(log),
                "timeout": timeout,
            }
            rc = server.run(job)
        # Not patched in (or, with --confirm, survived in the child): a new process decides.
        if rc == 99 or (rc == 0 and confirm):
            try:
                done = subprocess.run(
                    pytest_cmd(args),
                    cwd=repo,
                    env=pytest_env(repo, env),
                    stdout=log.open("w"),
                    stderr=subprocess.STDOUT,
                    timeout=timeout,
                    check=False,
                )
                rc = done.returncode
            except subprocess.TimeoutExpired:
                rc = None
    finally:
        target.write_text(original, encoding="utf-8")
    seconds = time.monotonic() - began
    output = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
    if rc is None:
        return Result(mutant, "timeout", seconds, count, f"over {timeout:.0f} s")
    if rc == 0:
        return Result(mutant, "survived", seconds, count, "")
    if rc == 5:
        return Result(mutant, "untested", seconds, count, "no tests ran")
    if rc not in (1, 2):
        # pytest could not start: a usage error (4) or its own failure (3, or 98
        # from the fork server's child). When the traceback runs through the
        # mutated module, the mutant broke importing the package (conftest
        # imports it): every test would fail, so it is caught. Otherwise the
        # runner failed and the mutant is left out of the score.
        if rc in (3, 4, 98) and f"{mutant.path}:" in output:
            return Result(
                mutant, "killed", seconds, count, f"exit {rc}: the package fails to import"
            )
        return Result(mutant, "error", seconds, count, output[-600:])
    failed = [line for line in output.splitlines() if line.startswith(("FAILED", "ERROR"))]
    return Result(mutant, "killed", seconds, count, failed[0][:160] if failed else f"exit {rc}")


# ------------------------------------------------------------------ the command


def source_line(mutant: Mutant) -> str:
    lines = (REPO / mutant.path).read_text(encoding="utf-8").splitlines()
    return lines[mutant.line - 1].strip() if 0 < mutant.line <= len(lines) else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--seed", type=int, default=0, help="which mutants --limit picks (default 0)"
    )
    parser.add_argument("--limit", type=int, default=0, help="at most N mutants, sampled by --seed")
    parser.add_argument(
        "--module",
        action="append",
        default=[],
        metavar="PATH",
        help="only this module or folder (tree_ring/store/db.py); repeatable",
    )
    parser.add_argument("--kind", action="append", default=[], help="only this kind of mutation")
    parser.add_argument(
        "--select",
        choices=("coverage", "room", "all"),
        default="coverage",
        help="which tests a mutant runs (default: those that call its code)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="mutants run at once (default 1)")
    parser.add_argument(
        "--no-fork", action="store_true", help="a new pytest process for every mutant (slower)"
    )
    parser.add_argument(
        "--confirm", action="store_true", help="rerun each survivor in a new pytest process"
    )
    parser.add_argument(
        "--stale-coverage",
        action="store_true",
        help="reuse the newest coverage measured, even for older tests (quick, rough)",
    )
    parser.add_argument(
        "--only", metavar="FILE", help="rerun the mutants of a --json report's survivors"
    )
    parser.add_argument("--json", metavar="FILE", help="write every result here")
    parser.add_argument("--list", action="store_true", help="print the mutants and stop")
    parser.add_argument(
        "--budget",
        type=float,
        default=120.0,
        help="expected seconds of an unselected run, for its timeout",
    )
    args = parser.parse_args(argv)

    mutants = all_mutants(REPO, args.module)
    if args.kind:
        mutants = [m for m in mutants if m.kind in args.kind]
    if args.only:
        previous = json.loads(Path(args.only).read_text())
        wanted = {r["id"] for r in previous["results"] if r["outcome"] in ("survived", "untested")}
        mutants = [m for m in mutants if m.id in wanted]
    total = len(mutants)
    if args.limit and args.limit < len(mutants):
        mutants = sorted(random.Random(args.seed).sample(mutants, args.limit), key=lambda m: m.id)
    if args.list:
        for m in mutants:
            print(f"{m.path}:{m.line}  {m.kind:7} {m.change}")
        print(f"{len(mutants)} of {total} mutants")
        return 0

    # A stopped run still removes its copies (and so its servers' working trees).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    work = Path(tempfile.mkdtemp(prefix="tree-ring-mutation-"))
    try:
        return _run(args, mutants, total, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _run(args: argparse.Namespace, mutants: list[Mutant], total: int, work: Path) -> int:
    copies: queue.Queue[Path] = queue.Queue()
    first = copy_repo(work / "0")
    copies.put(first)
    for n in range(1, max(1, args.jobs)):
        copies.put(copy_repo(work / str(n)))
    # Every copy is identical, so the first one's coverage serves them all.
    cov = measure(first, ["tests"], stale=args.stale_coverage) if args.select != "all" else None
    print(
        f"{len(mutants)} of {total} mutants, select={args.select}, jobs={args.jobs}",
        file=sys.stderr,
    )
    results: list[Result] = []
    began = time.monotonic()

    servers = {} if args.no_fork else {repo: Server(repo) for repo in list(copies.queue)}
    if servers:
        check(first, servers[first])

    def one(mutant: Mutant) -> Result:
        repo = copies.get()
        try:
            tests = chosen_tests(mutant, args.select, cov)
            server = servers.get(repo)
            return run_mutant(repo, server, mutant, tests, cov, args.budget, args.confirm)
        finally:
            copies.put(repo)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for done, result in enumerate(pool.map(one, mutants), 1):
            results.append(result)
            m = result.mutant
            mark = {
                "killed": "killed  ",
                "timeout": "timeout ",
                "survived": "SURVIVED",
                "untested": "UNTESTED",
                "error": "ERROR   ",
            }
            print(
                f"[{done}/{len(mutants)}] {mark[result.outcome]} "
                f"{m.path}:{m.line} {m.kind}: {m.change}"
                f"  ({result.tests} tests, {result.seconds:.1f} s)",
                flush=True,
            )
    for server in servers.values():
        server.close()
    return report(args, results, time.monotonic() - began)


def check(repo: Path, server: Server) -> None:
    """The fork server runs unmutated tests green, and a planted failure red."""
    args = pytest_cmd(["tests/read/test_recall.py"])[3:]
    log = str(repo.parent / "pytest.log")
    job: dict[str, Any] = {"args": args, "env": {}, "log": log, "timeout": 300}
    if server.run(job) != 0:
        sys.exit("the fork server cannot run the tests:\n" + Path(log).read_text()[-2000:])
    path = "tree_ring/store/fts.py"
    original = (repo / path).read_text(encoding="utf-8")
    [planted] = [m for m in sites(path, original) if m.kind == "return"]
    job |= {
        "module": "tree_ring.store.fts",
        "outer": planted.outer,
        "original": original,
        "source": apply(original, planted),
    }
    if server.run(job) != 1:
        sys.exit("the fork server does not run the mutant:\n" + Path(log).read_text()[-2000:])


def report(args: argparse.Namespace, results: list[Result], seconds: float) -> int:
    killed = sum(r.outcome in ("killed", "timeout") for r in results)
    errors = [r for r in results if r.outcome == "error"]
    left = [r for r in results if r.outcome in ("survived", "untested")]
    scored = len(results) - len(errors)
    score = killed / scored if scored else 0.0
    for r in errors:
        print(f"error: {r.mutant.id}: {r.detail}", file=sys.stderr)
    print(f"\nsurvivors ({len(left)}):")
    for r in sorted(left, key=lambda r: (r.mutant.path, r.mutant.line)):
        m = r.mutant
        print(f"  {m.path}:{m.line}  {m.kind}: {m.change}  [{r.outcome}]\n      {source_line(m)}")
    print(f"\nscore: {killed}/{scored} killed = {score:.1%} in {seconds / 60:.1f} min")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "seed": args.seed,
                    "limit": args.limit,
                    "select": args.select,
                    "killed": killed,
                    "total": scored,
                    "errors": len(errors),
                    "score": round(score, 4),
                    "results": [
                        {
                            **asdict(r.mutant),
                            "id": r.mutant.id,
                            "outcome": r.outcome,
                            "seconds": round(r.seconds, 1),
                            "tests": r.tests,
                            "detail": r.detail,
                            "source": source_line(r.mutant),
                        }
                        for r in results
                    ],
                },
                indent=1,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
