"""A word's base forms by WordNet's detachment rules (its `morphy`): how the
derived data files (read/relations.dat, model/vectors.dat) look up a word
they do not list, so "throttled" finds "throttle" and "brokers" "broker"."""

from __future__ import annotations

# Suffix -> replacement, tried in order.
DETACH = (
    ("ies", "y"),
    ("ses", "s"),
    ("xes", "x"),
    ("zes", "z"),
    ("ches", "ch"),
    ("shes", "sh"),
    ("men", "man"),
    ("es", "e"),
    ("es", ""),
    ("s", ""),
    ("ed", "e"),
    ("ed", ""),
    ("ing", "e"),
    ("ing", ""),
)


def bases(word: str) -> list[str]:
    """The forms the rules detach from `word`, in order (not `word` itself):
    a suffix is detached only from a word at least three letters longer, and
    a doubled last letter left by a bare detachment is undoubled too
    ("stopped" -> "stopp" -> "stop")."""
    found: list[str] = []
    for suffix, replacement in DETACH:
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            stem = word[: -len(suffix)] + replacement
            found.append(stem)
            if not replacement and len(stem) > 3 and stem[-1] == stem[-2]:
                found.append(stem[:-1])
    return found
