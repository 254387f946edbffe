"""Every pattern Tree Ring compiles matches alike on every Python it runs on.

Python 3.11 before 3.11.5 matched a possessive repeat of a subpattern that
can backtrack (`(?:a[ \\t]++){0,12}+`) wrongly (CPython gh-106052): under
Debian 12's python3 (3.11.2) the guard found none of the keys its prose
rules look for. An atomic group (`(?>(?:...){0,12})`) says the same and
matches alike everywhere, so the package compiles no such repeat; a
possessive repeat of one character class (`[a-z]{1,12}+`) is kept.
"""

from __future__ import annotations

import subprocess
import sys

from helpers import REPO

# Imports every module of the package with `re.compile` watched, builds every
# guard rule, and prints each pattern holding a possessive repeat of more
# than one character class or literal.
PROBE = """\
import importlib, pkgutil, re, sys
from re import _constants as c, _parser
sys.path.insert(0, sys.argv[1])
seen = []
compile_ = re.compile
def watched(pattern, flags=0):
    seen.append((pattern, flags))
    return compile_(pattern, flags)
re.compile = watched
import tree_ring
for found in pkgutil.walk_packages(tree_ring.__path__, "tree_ring."):
    try:
        importlib.import_module(found.name)
    except Exception:
        pass
from tree_ring.guard import table
for rule in table.RULES:
    rule.pattern  # compiled on first use
ONE = (c.IN, c.LITERAL, c.NOT_LITERAL, c.ANY, c.CATEGORY)
def offenders(parsed):
    for op, av in parsed:
        if op is c.POSSESSIVE_REPEAT and not (len(av[2]) == 1 and av[2][0][0] in ONE):
            yield av[2]
        if op in (c.POSSESSIVE_REPEAT, c.MAX_REPEAT, c.MIN_REPEAT):
            yield from offenders(av[2])
        elif op is c.SUBPATTERN:
            yield from offenders(av[-1])
        elif op is c.BRANCH:
            for branch in av[1]:
                yield from offenders(branch)
        elif op in (c.ASSERT, c.ASSERT_NOT):
            yield from offenders(av[1])
        elif op is c.ATOMIC_GROUP:
            yield from offenders(av)
print(len(seen))
for pattern, flags in seen:
    if isinstance(pattern, (str, bytes)) and any(offenders(_parser.parse(pattern, flags))):
        print(repr(pattern))
"""


def test_no_pattern_repeats_a_subpattern_possessively() -> None:
    done = subprocess.run(
        [sys.executable, "-I", "-c", PROBE, str(REPO)],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    count, *offending = done.stdout.splitlines()
    assert int(count) > 300  # the guard's rules were built and watched
    assert offending == []
