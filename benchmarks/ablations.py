"""Each technique recall uses, switched off on its own in this process, so a
benchmark's run shows what each one adds (`--without NAME` in locomo.py and
paraphrase.py; a CLI run always uses recall whole)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tree_ring.read import beside, dates, lexicon, meaning, query, ranking, recall, relations


def _one_tier(score: ranking.Score) -> tuple[bool, float]:
    """Ranking by the score alone, as before literal first."""
    return (True, score.total)


def _no_related(_word: str) -> tuple[()]:
    return ()


def _no_meaning(_text: str) -> None:
    return None


def _no_dates(text: str, _today: int | None = None) -> dates.Named:
    return dates.Named(rest=text)


ABLATIONS: dict[str, Callable[[], None]] = {
    "pool": lambda: setattr(recall, "POOL", 0),
    "lexicon": lambda: setattr(query, "related", _no_related),
    "hand": lambda: setattr(lexicon, "related", _no_related),
    "relations": lambda: setattr(relations, "related", _no_related),
    "meaning": lambda: setattr(meaning, "question", _no_meaning),
    "phrases": lambda: setattr(query, "PHRASE_WORDS", ()),
    "literal_first": lambda: setattr(ranking.Score, "key", property(_one_tier)),
    "grammar_words": lambda: setattr(query, "QUESTION_WORDS", frozenset()),
    "kind": lambda: ranking.WEIGHTS.__setitem__("kind", 0.0),
    "subject": lambda: ranking.WEIGHTS.__setitem__("subject", 0.0),
    "context": lambda: ranking.WEIGHTS.__setitem__("context", 0.0),
    "asking": lambda: ranking.WEIGHTS.__setitem__("asking", 0.0),
    "answered": lambda: ranking.WEIGHTS.__setitem__("answered", 0.0),
    "replies": lambda: setattr(beside, "REPLY_SOURCES", 0),
    "neighbours": lambda: setattr(beside, "NEIGHBOUR_SOURCES", 0),
    "dates": lambda: setattr(dates, "named", _no_dates),
}
