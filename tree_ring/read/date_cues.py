"""Whether a question may name a date: what recall asks before it loads
`dates.py` (its shapes and their patterns), which most questions never need."""

from __future__ import annotations

import re

# Words without which a question, holding no digit either, names no date.
# Every text a date's shape matches holds one (tests/read/test_dates.py).
DATE_CUES = frozenset(
    ["january", "jan", "february", "feb", "march", "mar", "april", "apr", "may", "june", "jun",
     "july", "jul", "august", "aug", "september", "sep", "sept", "october", "oct", "november",
     "nov", "december", "dec", "monday", "tuesday", "wednesday", "thursday", "friday",
     "saturday", "sunday", "spring", "summer", "fall", "autumn", "winter", "today",
     "yesterday", "ago", "week", "weekend", "month", "year", "q1", "q2", "q3", "q4",
     "years", "christmas", "halloween", "eve", "valentine", "valentines"]
)  # fmt: skip


# Words as a date's shapes read them (their `\b` is ASCII's): "christmasé"
# holds "christmas".
_ASCII_WORD = re.compile(r"[a-z0-9_]+", re.ASCII)


def may_name_a_date(text: str) -> bool:
    """Whether `text` (folded and casefolded) may name a date: it holds a
    digit or one of `DATE_CUES`."""
    return any(c.isdigit() for c in text) or not DATE_CUES.isdisjoint(_ASCII_WORD.findall(text))
