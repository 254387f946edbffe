"""The dates a question names, and how near a memory's time is to them.

"What did we decide on 3 March 2025?", "what broke in October?", "which
flag changed on 2025-03-03?", "what happened yesterday?": a question that
names a time asks about what was written then. Recall weighs each candidate
by how near its record time lies to the named dates (`ranking`: `time`),
and a named day brings the memories written that day.

Read, without a model:
- calendar dates, whose words are not searched (a note written that day
  rarely says its own date): a day as `3 March 2025`, `3rd of March, 2025`,
  `March 3, 2025`, `March 3`, `2025-03-03`, `3/20/2025`, `20.03.2025`, or
  `on 3/20` (a slash date without its year only after "on", "from",
  "since" and the like: "24/7" is no date); a month as `March 2025`,
  `2025-03`, `in March` or `early March`; a year as `in 2025`. "may" and
  "march" are months only beside a day or a year, or after "in". A slash
  date is month first unless its first number cannot be a month;
- times of year, whose words stay searched ("Q4 planning", "spring
  cleanup" are also what notes say): `Q3`, `Q3 2025`, `in the spring`,
  `over the summer 2025` (northern seasons), `Christmas`, `Halloween`,
  `New Year's Eve`, `Valentine's Day`. "Spring" before "Boot", "Cloud" and
  the framework's other parts is no season;
- given the day recall looks from (its view's record time), times counted
  back from it, whose words stay searched too (a note written the day
  after says "yesterday" of the day before, as the question does):
  `today`, `yesterday`, `3 days ago`, `a couple of weeks ago`, `8 months
  ago`, `2 years ago`, `this week` (the seven days to today), `last week`
  (the seven before), `this month`, `last month`, `this year`, `last year`,
  `last Tuesday` or `on Tuesday` (the latest before today), `over the
  weekend`, `this summer`, `last fall`, and a day or a month of this year
  or last (`in March last year`: its words are not searched).
A date without a year names that day or month of every year; the latest of
them up to today is the day whose memories join.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache, lru_cache

from tree_ring.model.frozen import Frozen
from tree_ring.model.record import civil_date, epoch_days, month_days
from tree_ring.read.date_cues import may_name_a_date

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
_PART = r"(?:(?:early|late|mid)[-\s]+)"
_AFTER = rf"(?:(?:in|during|of)\s+{_PART}?|{_PART})"
_BEFORE_SLASH = r"(?:on|from|since|of|before|after|by|until|for)\s+"
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# A season or a quarter: its middle month and the days either side of it.
SEASONS = {"spring": (4, 31), "summer": (7, 30), "fall": (10, 30), "autumn": (10, 30),
           "winter": (1, 31)}  # fmt: skip
QUARTERS = {"1": (2, 31), "2": (5, 30), "3": (8, 31), "4": (11, 31)}
HOLIDAYS = {"christmas eve": (12, 24), "christmas": (12, 25), "halloween": (10, 31),
            "new years eve": (12, 31), "new years day": (1, 1),
            "valentines day": (2, 14)}  # fmt: skip
COUNTS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "couple": 2, "few": 3,
}  # fmt: skip
_COUNT = r"(\d{1,3}|(?:a\s+)?(?:couple|few)(?:\s+of)?|" + "|".join(COUNTS) + ")"
# "Spring" the framework is no season.
_NOT_FRAMEWORK = (
    r"(?!\s+(?:boot|framework|cloud|security|data|batch|mvc|webflux|integration|config"
    r"|beans?|context|application|profiles?)\b)"
)
_SEASON = "(" + "|".join(SEASONS) + ")" + _NOT_FRAMEWORK
_HOLIDAY = r"(christmas\s+eve|christmas|halloween|new\s+year'?s\s+(?:eve|day)|valentine'?s\s+day)"
# Most specific first: a stretch of the text read by one is not read again.
# CALENDAR shapes' words are not searched; the others' are.
_THIS_YEAR = r",?\s+(this|last)\s+year\b"
_SHAPES = (
    # A day or a month of this year or last ("in March last year"), read
    # before the same day or month of every year.
    ("dm_year", rf"\b{_DAY}(?:\s+of)?\s+{_MONTH}{_THIS_YEAR}"),
    ("md_year", rf"\b{_MONTH}\s+{_DAY}{_THIS_YEAR}"),
    ("m_year", rf"\b{_AFTER}?{_MONTH}{_THIS_YEAR}"),
    ("ymd", rf"\b{_YEAR}-(\d{{1,2}})-(\d{{1,2}})\b"),
    ("ym", rf"\b{_YEAR}-(\d{{1,2}})\b(?!-\d)"),
    ("slash", r"\b(\d{1,2})/(\d{1,2})/(\d{4}|\d{2})\b"),
    ("dots", rf"\b(\d{{1,2}})\.(\d{{1,2}})\.{_YEAR}\b"),
    ("dmy", rf"\b{_DAY}(?:\s+of)?\s+{_MONTH},?\s+{_YEAR}\b"),
    ("mdy", rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b"),
    ("dm", rf"\b{_DAY}(?:\s+of)?\s+{_MONTH}(?![\w-])"),
    ("md", rf"\b{_MONTH}\s+{_DAY}\b(?!:)"),
    ("my", rf"\b{_MONTH},?\s+{_YEAR}\b"),
    ("on_slash", rf"\b{_BEFORE_SLASH}(\d{{1,2}})/(\d{{1,2}})\b(?![/\d])"),
    ("quarter", rf"\bq([1-4])(?:,?\s+(?:of\s+)?{_YEAR})?\b"),
    ("season", rf"\b(?:in|during|over)\s+(?:the\s+)?{_SEASON}(?:,?\s+(?:of\s+)?{_YEAR})?\b"),
    ("holiday", rf"\b{_HOLIDAY}(?:,?\s+(?:of\s+)?{_YEAR})?(?!\w)"),
    ("m", rf"\b{_AFTER}{_MONTH}(?![\w-])"),
    ("y", rf"\b(?:in|during|of)\s+{_YEAR}\b"),
    # Counted back from the day recall looks from.
    ("today", r"\btoday\b"),
    ("yesterday", r"\byesterday\b"),
    ("ago", rf"\b{_COUNT}\s+(day|week|month|year)s?\s+ago\b"),
    ("this", r"\b(this|last|past)\s+(week|month|year)\b(?!\s+of\b)"),
    ("weekday", rf"\b(last|on|this|past)\s+({'|'.join(WEEKDAYS)})\b"),
    ("weekend", r"\b(?:(this|last|past)|over\s+the|on\s+the)\s+weekend\b"),
    ("this_season", rf"\b(this|last)\s+{_SEASON}\b"),
)
_OF_YEAR = frozenset({"dm_year", "md_year", "m_year"})
CALENDAR = (
    frozenset({"ymd", "ym", "slash", "dots", "dmy", "mdy", "dm", "md", "my", "on_slash", "m", "y"})
    | _OF_YEAR
)
# The shapes that count back from today, read only when recall gives one.
COUNTED = (
    frozenset({"today", "yesterday", "ago", "this", "weekday", "weekend", "this_season"}) | _OF_YEAR
)


class Span(Frozen):
    """A named date: `year` 0 for every year, `month` 0 for a whole year,
    `day` 0 for a whole month; `reach` days either side of that day or
    month too (a week or a weekend: a day; a season or a quarter: its
    middle month)."""

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


class Named(Frozen):
    """The dates a question names, the words it names them with that are
    not to be searched, the days (`YYYY-MM-DD`) whose memories join, and
    the question without its calendar dates, whose meaning recall weighs."""

    spans: tuple[Span, ...] = ()
    words: frozenset[str] = frozenset()
    days: tuple[str, ...] = ()
    rest: str = ""  # the text without its calendar dates: what it is about


# What a text must hold for each shape to match in it: a word of each set
# (`_ASCII_WORD`'s words, as the shapes' own `\b` reads them), `DIGIT`
# standing for any word that begins with an ASCII digit. A shape whose needs
# the text lacks cannot match, and is neither compiled nor run: a question
# that says "last week" compiles one pattern, not all of them (together they
# cost a CLI recall about 4 ms).
DIGIT = "<digit>"
_MONTHS = frozenset(MONTHS)
_NEEDS: dict[str, tuple[frozenset[str], ...]] = {
    **dict.fromkeys(("dm_year", "md_year"), (frozenset({DIGIT}), _MONTHS, frozenset({"year"}))),
    "m_year": (_MONTHS, frozenset({"year"})),
    **dict.fromkeys(("ymd", "ym", "slash", "dots", "on_slash", "y"), (frozenset({DIGIT}),)),
    **dict.fromkeys(("dmy", "mdy", "dm", "md", "my"), (frozenset({DIGIT}), _MONTHS)),
    "quarter": (frozenset({"q1", "q2", "q3", "q4"}),),
    **dict.fromkeys(("season", "this_season"), (frozenset(SEASONS),)),
    "holiday": (frozenset({"christmas", "halloween", "new", "valentine", "valentines"}),),
    "m": (_MONTHS,),
    "today": (frozenset({"today"}),),
    "yesterday": (frozenset({"yesterday"}),),
    "ago": (frozenset({"ago"}),),
    "this": (frozenset({"week", "month", "year"}),),
    "weekday": (frozenset(WEEKDAYS),),
    "weekend": (frozenset({"weekend"}),),
}
_ASCII_WORD = re.compile(r"[a-z0-9_]+", re.ASCII)


@cache
def _pattern(shape: str) -> re.Pattern[str]:
    # ASCII digits only: int() would read other scripts' digits, the year's
    # pattern would not, and a date half read is no date.
    return re.compile(_SOURCES[shape], re.ASCII)


_SOURCES = dict(_SHAPES)


def named(text: str, today: int | None = None) -> Named:
    """The dates `text` names, the first MAX_DATES of them (casefolded and
    folded as a question's words are); with `today` (days since 1970), the
    times counted back from it too. Only its first OPENING_CHARS are read."""
    original, text = text, text[:OPENING_CHARS]
    if not may_name_a_date(text):
        return Named(rest=original)
    calendar: list[tuple[int, int]] = []
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
        span = _span(shape, match.groups(), today)
        if span is None:
            continue
        if shape in CALENDAR:
            words.update(_WORD.findall(match.group(0)))
            calendar.append((start, end))
        if span not in spans:
            spans.append(span)
            if len(spans) == MAX_DATES:
                break
    days = (day for span in spans for day in _day_texts(span, today))
    rest = (
        "".join(text[start:end] for start, end in _between(sorted(calendar), len(text)))
        + original[OPENING_CHARS:]
    )
    return Named(tuple(spans), frozenset(words), tuple(dict.fromkeys(days)), rest)


def _between(stretches: list[tuple[int, int]], length: int) -> Iterator[tuple[int, int]]:
    """The stretches of a text of `length` outside `stretches` (in order)."""
    at = 0
    for start, end in stretches:
        yield at, start
        at = end
    yield at, length


def _matches(text: str, counted: bool) -> Iterator[tuple[str, re.Match[str]]]:
    """Each shape's matches in `text`, most specific shape first; a shape
    whose needs `text` lacks (`_NEEDS`) is passed over."""
    held = _held(text)
    for shape, _source in _SHAPES:
        if (counted or shape not in COUNTED) and all(not held.isdisjoint(n) for n in _NEEDS[shape]):
            for match in _pattern(shape).finditer(text):
                yield shape, match


def _held(text: str) -> set[str]:
    """The words of `text` a shape may need (`_NEEDS`)."""
    held = set(_ASCII_WORD.findall(text))
    if any(word[0] in "0123456789" for word in held):
        held.add(DIGIT)
    return held


def _day_texts(span: Span, today: int | None) -> tuple[str, ...]:
    """`YYYY-MM-DD` of each day `span` names when it names at most three (a
    day, a weekend): in its own year, or without a year the latest up to
    `today`; none for a longer span."""
    if not span.day or span.reach > 1:
        return ()
    year = span.year
    if not year:
        if today is None:
            return ()
        year, month, day = civil_date(today)
        year -= (span.month, span.day) > (month, day)
    bounds = span.days(year)
    if bounds is None:
        return ()
    return tuple(_text(*civil_date(d)) for d in range(bounds[0], bounds[1] + 1))


def _text(year: int, month: int, day: int) -> str:
    return f"{year:04d}-{month:02d}-{day:02d}"


def _span(shape: str, groups: tuple[str, ...], today: int | None) -> Span | None:
    """The date a shape's match names, or None when there is no such date."""
    if shape in COUNTED:
        return None if today is None else _counted(shape, groups, today)
    if shape in ("quarter", "season"):
        middle, reach = (QUARTERS if shape == "quarter" else SEASONS)[groups[0]]
        return Span(int(groups[1] or 0), middle, 0, reach)
    if shape == "holiday":
        month, day = HOLIDAYS[" ".join(groups[0].replace("'", "").split())]
        return _checked(int(groups[1] or 0), month, day)
    if shape in ("slash", "on_slash"):
        first, second = int(groups[0]), int(groups[1])
        month, day = (first, second) if first <= 12 else (second, first)
        year = int(groups[2]) if shape == "slash" else 0
        return _checked(year + 2000 if 0 < year < 100 else year, month, day)
    if shape == "dots":
        return _checked(int(groups[2]), int(groups[1]), int(groups[0]))
    values = dict(zip(shape, groups, strict=True))
    month_word = values.get("m", "")
    month = MONTHS.get(month_word, 0) if not month_word.isdigit() else int(month_word)
    year = int(values.get("y", 0) or 0)
    if shape == "y":
        return Span(year)
    if "d" not in shape:
        return Span(year, month) if 1 <= month <= 12 else None
    return _checked(year, month, int(values["d"]))


def _checked(year: int, month: int, day: int) -> Span | None:
    """The day, if there is one ("31 february 2024" and "00 march" are none)."""
    if not (1 <= month <= 12 and 1 <= day <= month_days(year or 2000, month)):
        return None
    return Span(year, month, day)


def _counted(shape: str, groups: tuple[str, ...], today: int) -> Span | None:
    """A day, a week, a weekend, a month, a season or a year counted back
    from `today`; None for a day that is none ("31 february last year")."""
    year, month, _ = civil_date(today)
    if shape in _OF_YEAR:
        *parts, which = groups
        values = dict(zip(shape.removesuffix("_year"), parts, strict=True))
        of_year = year - 1 if which == "last" else year
        if "d" not in values:
            return Span(of_year, MONTHS[values["m"]])
        return _checked(of_year, MONTHS[values["m"]], int(values["d"]))
    if shape in ("today", "yesterday"):
        return Span(*civil_date(today - (shape == "yesterday")))
    if shape == "weekday":
        # The latest such day before today ("on monday" asked on a monday: a week ago).
        back = (today + 3 - WEEKDAYS.index(groups[1])) % 7 or 7
        return Span(*civil_date(today - back))
    if shape == "weekend":
        # The latest Saturday and Sunday that have begun, as Friday to Sunday.
        saturday = today - (today + 3 - 5) % 7
        return Span(*civil_date(saturday), reach=1)
    if shape == "this_season":
        # "this summer": the latest begun by today; "last summer": the latest ended before it.
        middle, reach = SEASONS[groups[1]]
        season = Span(0, middle, 0, reach)
        for back in (0, 1, 2):
            bounds = season.days(year - back)
            if bounds and (bounds[0] <= today if groups[0] == "this" else bounds[1] < today):
                return Span(year - back, middle, 0, reach)
        return Span(year - 1, middle, 0, reach)
    if shape == "ago":
        count, unit = _count(groups[0]), groups[1]
    else:
        count, unit = (1 if groups[0] == "last" else 0), groups[1]
    if unit == "day":
        return Span(*civil_date(today - count))
    if unit == "week":
        # The seven days ending today ("this week"), the seven before ("last
        # week"), or the seven around the day `count` weeks back.
        middle = today - 3 - 7 * count if shape == "this" else today - 7 * count
        return Span(*civil_date(middle), reach=3)
    if unit == "month":
        months = year * 12 + month - 1 - count
        return Span(months // 12, months % 12 + 1)
    return Span(year - count)


def _count(word: str) -> int:
    if word.isdigit():
        return int(word)
    if "couple" in word:
        return 2
    return 3 if "few" in word else COUNTS.get(word, 1)


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
    year = civil_date(day)[0]
    return _days(span, year - 1) + _days(span, year) + _days(span, year + 1)


@lru_cache(maxsize=256)
def _days(span: Span, year: int) -> tuple[tuple[int, int], ...]:
    bounds = span.days(year)
    return () if bounds is None else (bounds,)
