"""The keyword scanner of a process's first texts: only the terms a text can match.

A `remember` classifies one text; compiling every keyword term for it costs
more than the rest of the call. These tests hold the scanner built from a
text's own terms to the whole scanner's answers, and show what each compiles.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest
from helpers import FIXTURES, REPO

from tree_ring.guard import classify, engine

CORPUS = FIXTURES / "guard"
TEXTS = [
    line.partition("\t")[2] or line
    for name in ("sensitive.txt", "clean.txt", "secrets.txt")
    for line in (CORPUS / name).read_text("utf-8").splitlines()
    if line.strip()
]


@pytest.fixture
def fresh_subsets(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A guard that has classified nothing yet, and has no whole scanner."""
    monkeypatch.setattr(engine, "_subset_state", {"texts": 0})
    monkeypatch.setattr(engine, "_subset_scanners", {})
    engine._keyword_scanner.cache_clear()  # pyright: ignore[reportPrivateUsage]
    yield
    engine._keyword_scanner.cache_clear()  # pyright: ignore[reportPrivateUsage]


@pytest.mark.usefixtures("fresh_subsets")
def test_each_texts_own_terms_find_what_every_term_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as patch:
        patch.setattr(engine, "_SUBSET_TEXTS", 0)  # straight to the whole scanner
        whole = [classify(text) for text in TEXTS]
    engine._keyword_scanner.cache_clear()  # pyright: ignore[reportPrivateUsage]
    alone: list[str] = []
    for text in TEXTS:
        engine._subset_state["texts"] = 0  # pyright: ignore[reportPrivateUsage]
        alone.append(classify(text))
    assert engine._keyword_scanner.cache_info().currsize == 0  # pyright: ignore[reportPrivateUsage]
    assert alone == whole
    # Some texts of the corpus do need keyword terms, so the comparison means something.
    assert set(whole) - {"normal"}


@pytest.mark.usefixtures("fresh_subsets")
def test_a_text_compiles_only_the_terms_whose_heads_it_holds() -> None:
    assert classify("Deploys freeze on Fridays after the release branch is cut") == "normal"
    assert engine.compiled_keyword_terms() == 0
    assert classify("My doctor said the diagnosis is anxiety, keep it between us") != "normal"
    some = engine.compiled_keyword_terms()
    all_terms = sum(len(rule.terms) for rule in engine.RULES)
    assert 0 < some < all_terms / 4
    assert engine._keyword_scanner.cache_info().currsize == 0  # pyright: ignore[reportPrivateUsage]


@pytest.mark.usefixtures("fresh_subsets")
def test_a_bulk_write_builds_the_whole_scanner_once() -> None:
    for n in range(engine._SUBSET_TEXTS + 5):  # pyright: ignore[reportPrivateUsage]
        classify(f"Ordinary note {n} about the release train")
    assert engine._keyword_scanner.cache_info().currsize == 1  # pyright: ignore[reportPrivateUsage]
    assert engine.compiled_keyword_terms() == sum(len(rule.terms) for rule in engine.RULES)


def test_one_remember_compiles_no_rule_its_text_cannot_match(tmp_path: object) -> None:
    """A fresh process, as the CLI runs one write: no keyword term, no rule
    pattern for a plain sentence."""
    script = (
        "import sys\n"
        f"sys.path.insert(0, {str(REPO)!r})\n"
        "from tree_ring.guard import check_fields, engine, rule\n"
        "check_fields({'summary': 'Deploys freeze on Fridays', 'details': 'after the cut'})\n"
        "print(engine.compiled_keyword_terms(), rule.compiled.cache_info().currsize)\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["0", "0"]
