"""The guard's figures the README and docs/DESIGN.md state are today's: the
number of rules every field passes, and the size of the corpus the rule
families are held to."""

from __future__ import annotations

import re
from pathlib import Path

from tree_ring.guard import RULES

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "fixtures" / "guard"


def _lines(name: str) -> int:
    return sum(1 for line in (CORPUS / name).read_text("utf-8").splitlines() if line.strip())


def test_the_rule_count_is_todays() -> None:
    readme = (REPO / "README.md").read_text("utf-8")
    design = " ".join((REPO / "docs" / "DESIGN.md").read_text("utf-8").split())
    assert re.findall(r"a guard of (\d+) rules", readme) == [str(len(RULES))]
    assert re.findall(r"every field against (\d+) rules", design) == [str(len(RULES))]


def test_the_corpus_size_is_todays() -> None:
    design = " ".join((REPO / "docs" / "DESIGN.md").read_text("utf-8").split())
    found = re.findall(r"\((\d+) secret lines by family, (\d+) clean lines\)", design)
    assert found == [(str(_lines("secrets.txt")), str(_lines("clean.txt")))]
