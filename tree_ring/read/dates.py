"""The dates a question names, and how near a memory's time is to them.

"What did we decide on 3 March 2025?", "what broke in October?", "which
flag changed on 2025-03-03?": a question that names a day, a month or a
year asks about what was written then. Its words for the date are not its
subject (a note written that day rarely says its own date), so recall
searches the rest of the question and weighs each candidate by how near
its record time lies to the named dates (`ranking`: `time`).

Read, without a model: a day as `3 March 2025`, `3rd of March, 2025`,
`March 3, 2025`, `March 3` or `2025-03-03`; a month as `March 2025`,
`2025-03` or `in March`; a year as `in 2025`. A date without a year names
that day or month of every year. "may" and "march" are months only beside
a day or a year ("what may fail in march" names no date), or after "in";
a bare month or year names a time only after "in", "during" or "of".
"""

from __future__ import annotations

import re
from functools import lru_cache

from tree_ring.model.frozen import Frozen
from tree_ring.model.record import epoch_days, month_days

MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
# Days outside a named date at which a memory counts half as near.
HALF_LIFE_DAYS = 7.0

_WORD = re.compile(r"\w+")
_MONTH = "(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:1[89]|2\d)\d\d)"
_AFTER = r"(?:in|during|of)\s+(?:early\s+|late\s+|mid-?)?"
# Most specific first: a span of the text read by one is not read again.
_SHAPES = (
    ("ymd", rf"\b{_YEAR}-(\d{{1,2}})-(\d{{1,2}})\b"),
    ("ym", rf"\b{_YEAR}-(\d{{1,2}})\b(?!-\d)"),
    ("dmy", rf"\b{_DAY}(?:\s+of)?\s+{_MONTH},?\s+{_YEAR}\b"),
    ("mdy", rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b"),
    ("dm", rf"\b{_DAY}(?:\s+of)?\s+{_MONTH}(?![\w-])"),
    ("md", rf"\b{_MONTH}\s+{_DAY}\b(?!:)"),
    ("my", rf"\b{_MONTH},?\s+{_YEAR}\b"),
    ("m", rf"\b{_AFTER}{_MONTH}(?![\w-])"),
    ("y", rf"\b{_AFTER}{_YEAR}\b"),
)


class Span(Frozen):
    """A named date: `year` 0 for every year, `month` 0 for a whole year,
    `day` 0 for a whole month."""

    year: int
    month: int = 0
    day: int = 0

    def days(self, year: int) -> tuple[int, int] | None:
        """Its first and last day (days since 1970) in `year` (its own
        year, when it names one); None where that year has no such day."""
        year = self.year or year
        if not self.month:
            first, last = epoch_days(year, 1, 1), epoch_days(year, 12, 31)
        elif not self.day:
            first = epoch_days(year, self.month, 1)
            last = epoch_days(year, self.month, month_days(year, self.month))
        else:
            first = last = epoch_days(year, self.month, self.day)
        return None if first is None or last is None else (first, last)

    def day_text(self) -> str:
        """`YYYY-MM-DD` when it names one day of one year, else ""."""
        if not (self.year and self.day):
            return ""
        return f"{self.year:04d}-{self.month:02d}-{self.day:02d}"


class Named(Frozen):
    """The dates a question names, and the words it names them with."""

    spans: tuple[Span, ...] = ()
    words: frozenset[str] = frozenset()


@lru_cache(maxsize=1)
def _shapes() -> tuple[tuple[str, re.Pattern[str]], ...]:
    # ASCII digits only: int() would read other scripts' digits, the year's
    # pattern would not, and a date half read is no date.
    return tuple((shape, re.compile(source, re.ASCII)) for shape, source in _SHAPES)


def named(text: str) -> Named:
    """The dates `text` names (casefolded and folded as a question's words are)."""
    if not any(c.isdigit() for c in text) and MONTHS.keys().isdisjoint(_WORD.findall(text)):
        return Named()  # most questions: the shapes are not even compiled
    taken: list[tuple[int, int]] = []
    spans: list[Span] = []
    words: set[str] = set()
    for shape, pattern in _shapes():
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(start < e and s < end for s, e in taken):
                continue
            # A shape read is taken even when it is no date ("31 february
            # 2024"): a shorter shape inside it names nothing either.
            taken.append((start, end))
            span = _span(shape, match.groups())
            if span is None:
                continue
            spans.append(span)
            words.update(_WORD.findall(match.group(0)))
    return Named(tuple(dict.fromkeys(spans)), frozenset(words))


def _span(shape: str, groups: tuple[str, ...]) -> Span | None:
    values = dict(zip(shape, groups, strict=True))
    month_word = values.get("m", "")
    month = MONTHS.get(month_word, 0) if not month_word.isdigit() else int(month_word)
    year = int(values.get("y", 0) or 0)
    day = int(values.get("d", 0) or 0)
    if shape != "y" and not 1 <= month <= 12:
        return None
    if "d" in shape and not day:
        return None  # "00 march 2025"
    if day and day > month_days(year or 2000, month):
        return None
    return Span(year, month, day)


def nearness(spans: tuple[Span, ...], seconds: float | None) -> float:
    """How near a time (seconds since 1970) lies to the nearest of `spans`:
    1 within one, halving every HALF_LIFE_DAYS outside; 0 with no time."""
    if not spans or seconds is None:
        return 0.0
    day = int(seconds // 86_400)
    outside = min(
        (max(first - day, day - last, 0) for span in spans for first, last in _bounds(span, day)),
        default=None,
    )
    return 0.0 if outside is None else 0.5 ** (outside / HALF_LIFE_DAYS)


def _bounds(span: Span, day: int) -> tuple[tuple[int, int], ...]:
    """The first and last days of `span` that may be nearest `day`: its own,
    or, without a year, those of `day`'s year and the years either side."""
    if span.year:
        return _days(span, span.year)
    year = _year_of(day)
    return _days(span, year - 1) + _days(span, year) + _days(span, year + 1)


@lru_cache(maxsize=256)
def _days(span: Span, year: int) -> tuple[tuple[int, int], ...]:
    bounds = span.days(year)
    return () if bounds is None else (bounds,)


@lru_cache(maxsize=256)
def _year_of(day: int) -> int:
    """The year that day `day` (since 1970) falls in."""
    year = 1970 + day // 366
    while (epoch_days(year + 1, 1, 1) or 0) <= day:
        year += 1
    return year
