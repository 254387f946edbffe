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

Given the day recall looks from (its view's record time), the days around
it too: `today`, `yesterday`, `3 days ago`, `this week` (the seven days to
today), `last week` (the seven before), `2 weeks ago` (the seven days
around that day), `this month`, `last month`, `this year`, `last year`.
Their words are still searched: a note written the day after says
"yesterday" of the day before, as the question does.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from tree_ring.model.frozen import Frozen
from tree_ring.model.record import civil_date, epoch_days, month_days

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
# A question's first this many dates are read: every candidate is weighed
# against each, so a question of a hundred dates costs no more than four.
MAX_DATES = 4
# Only a question's opening is read for dates: its length then bounds the work.
OPENING_CHARS = 512

_WORD = re.compile(r"\w+")
_MONTH = "(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:1[89]|2\d)\d\d)"
_AFTER = r"(?:in|during|of)\s+(?:early\s+|late\s+|mid-?)?"
COUNTS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}  # fmt: skip
_COUNT = r"(\d{1,3}|" + "|".join(COUNTS) + ")"
# Relative to the day recall looks from, read after the dates above ("the
# last week of june" is june's).
_RELATIVE = (
    ("today", r"\btoday\b"),
    ("yesterday", r"\byesterday\b"),
    ("days", rf"\b{_COUNT}\s+days?\s+ago\b"),
    ("weeks", rf"\b{_COUNT}\s+weeks?\s+ago\b"),
    ("week", r"\b(this|last|past)\s+week\b(?!\s+of\b)"),
    ("month", r"\b(this|last)\s+month\b(?!\s+of\b)"),
    ("year", r"\b(this|last)\s+year\b(?!\s+of\b)"),
)
_RELATIVE_SHAPES = frozenset(shape for shape, _ in _RELATIVE)
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
    `day` 0 for a whole month; `reach` days either side of the day too
    (a week named from today)."""

    year: int
    month: int = 0
    day: int = 0
    reach: int = 0

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
        if first is None or last is None:
            return None
        return first - self.reach, last + self.reach

    def day_text(self) -> str:
        """`YYYY-MM-DD` when it names one day of one year, else ""."""
        if not (self.year and self.day) or self.reach:
            return ""
        return f"{self.year:04d}-{self.month:02d}-{self.day:02d}"


class Named(Frozen):
    """The dates a question names, and the words it names them with."""

    spans: tuple[Span, ...] = ()
    words: frozenset[str] = frozenset()


# Words without which a text names no date: most questions hold none, and
# their patterns are then never compiled.
_CUES = frozenset(MONTHS) | {"today", "yesterday", "ago", "week", "month", "year"}


@lru_cache(maxsize=1)
def _shapes() -> tuple[tuple[str, re.Pattern[str]], ...]:
    # ASCII digits only: int() would read other scripts' digits, the year's
    # pattern would not, and a date half read is no date.
    return tuple((shape, re.compile(source, re.ASCII)) for shape, source in (*_SHAPES, *_RELATIVE))


def named(text: str, today: int | None = None) -> Named:
    """The dates `text` names, the first MAX_DATES of them (casefolded and
    folded as a question's words are); with `today` (days since 1970), the
    days named from it too. Only its first OPENING_CHARS are read."""
    text = text[:OPENING_CHARS]
    if not any(c.isdigit() for c in text) and _CUES.isdisjoint(_WORD.findall(text)):
        return Named()
    taken: list[tuple[int, int]] = []
    spans: list[Span] = []
    words: set[str] = set()
    for shape, match in _matches(text, today is not None):
        start, end = match.span()
        if any(start < e and s < end for s, e in taken):
            continue
        # A shape read is taken even when it is no date ("31 february
        # 2024"): a shorter shape inside it names nothing either.
        taken.append((start, end))
        if shape not in _RELATIVE_SHAPES:
            span = _span(shape, match.groups())
        elif today is not None:
            span = _relative(shape, match.groups(), today)
        else:
            continue
        if span is None:
            continue
        if shape not in _RELATIVE_SHAPES:
            # "yesterday" stays searched: a note written the day after
            # says it of the day before, as the question does.
            words.update(_WORD.findall(match.group(0)))
        if span not in spans:
            spans.append(span)
            if len(spans) == MAX_DATES:
                break
    return Named(tuple(spans), frozenset(words))


def _matches(text: str, relative: bool) -> Iterator[tuple[str, re.Match[str]]]:
    """Each shape's matches in `text`, most specific shape first."""
    for shape, pattern in _shapes():
        if relative or shape not in _RELATIVE_SHAPES:
            for match in pattern.finditer(text):
                yield shape, match


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


def _relative(shape: str, groups: tuple[str, ...], today: int) -> Span:
    """A day, a week, a month or a year counted back from `today`."""
    word = groups[0] if groups else ""
    count = COUNTS.get(word, 0) if not word.isdigit() else int(word)
    back = {"today": 0, "yesterday": 1, "days": count}.get(shape)
    if back is not None:
        return Span(*civil_date(today - back))
    if shape in ("weeks", "week"):
        # The seven days ending today ("this week"), those before ("last
        # week"), or those around the day `count` weeks back.
        middle = today - 7 * count if shape == "weeks" else today - (10 if word == "last" else 3)
        return Span(*civil_date(middle), reach=3)
    year, month, _ = civil_date(today)
    if shape == "month":
        if word == "last":
            year, month = (year, month - 1) if month > 1 else (year - 1, 12)
        return Span(year, month)
    return Span(year - 1 if word == "last" else year)


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


def _year_of(day: int) -> int:
    """The year that day `day` (since 1970) falls in."""
    return civil_date(day)[0]
