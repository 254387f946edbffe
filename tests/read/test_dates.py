"""The dates a question names, read without a model, and how near a time lies to them."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO
from hypothesis import given, settings
from hypothesis import strategies as st

from tree_ring.model.record import epoch_days, epoch_seconds
from tree_ring.read import dates
from tree_ring.read.dates import HALF_LIFE_DAYS, MAX_DATES, OPENING_CHARS, Span, named, nearness


@pytest.mark.parametrize(
    ("text", "spans", "words"),
    [
        ("what did we decide on 3 march 2025", {Span(2025, 3, 3)}, {"3", "march", "2025"}),
        ("the 3rd of march, 2025", {Span(2025, 3, 3)}, {"3rd", "of", "march", "2025"}),
        ("what broke on march 3, 2025?", {Span(2025, 3, 3)}, {"march", "3", "2025"}),
        ("which flag changed on 2025-03-03", {Span(2025, 3, 3)}, {"2025", "03"}),
        ("deploys in 2025-03", {Span(2025, 3)}, {"2025", "03"}),
        ("what shipped in october 2024", {Span(2024, 10)}, {"october", "2024"}),
        ("what shipped in mid-oct. 2024", {Span(2024, 10)}, {"oct", "2024"}),
        ("what changed on march 3", {Span(0, 3, 3)}, {"march", "3"}),
        ("who was on call in june", {Span(0, 6)}, {"in", "june"}),
        ("what was decided during 2023", {Span(2023)}, {"during", "2023"}),
        (
            "where was she between august 11 and august 15 2023",
            {Span(0, 8, 11), Span(2023, 8, 15)},
            {"august", "11", "15", "2023"},
        ),
        ("what happened on 2025-03-03 and in 2024", {Span(2025, 3, 3), Span(2024)}, None),
        ("what changed on 3/20/2025", {Span(2025, 3, 20)}, {"3", "20", "2025"}),
        ("what changed on 20/3/2025", {Span(2025, 3, 20)}, None),  # 20 is no month
        ("what changed on 3/20/25", {Span(2025, 3, 20)}, None),
        ("what happened on 23.09.2025", {Span(2025, 9, 23)}, {"23", "09", "2025"}),
        ("any notes from 3/20?", {Span(0, 3, 20)}, {"from", "3", "20"}),
        ("what shipped in early march", {Span(0, 3)}, None),
        ("what shipped mid-january 2025", {Span(2025, 1)}, None),
        ("the q3 plan", {Span(0, 8, 0, 31)}, set()),
        ("what slipped in q4 2025", {Span(2025, 11, 0, 31)}, set()),
        ("what changed in the spring", {Span(0, 4, 0, 31)}, set()),
        ("what broke over the summer of 2025", {Span(2025, 7, 0, 30)}, set()),
        ("what did we freeze for christmas", {Span(0, 12, 25)}, set()),
        ("what did we ship on new year's eve 2025", {Span(2025, 12, 31)}, set()),
        ("what did we write on halloween", {Span(0, 10, 31)}, set()),
        ("what broke at christmas of 2019", {Span(2019, 12, 25)}, set()),
        ("what shipped before valentines day", {Span(0, 2, 14)}, set()),
    ],
)
def test_the_dates_a_question_names(text: str, spans: set[Span], words: set[str] | None) -> None:
    got = named(text)
    assert set(got.spans) == spans
    if words is not None:
        assert got.words == words


@pytest.mark.parametrize(
    "text",
    [
        "what may fail in production",
        "we march on",
        "port 8080 answers at 12:30",
        "bump the version to 2.31",
        "31 february 2024 never was",
        "the 2025-13-01 build",
        "the 2025-02-30 build",
        "june is the name of the bot",
        "in 1066 they landed",
        "on 00 march 2025",
        "on \u0663 march \u0662\u0660\u0662\u0665",
        "",
        "we are on call 24/7",
        "half the nodes, 1/2 of them",
        "how do we configure logging in spring boot",
        "in the spring config",
        "python 3.11.2 broke",
        "the q5 roadmap",
    ],
)
def test_words_that_name_no_date(text: str) -> None:
    assert named(text).spans == ()


def test_a_day_is_one_day_and_a_month_its_days() -> None:
    assert Span(2024, 2, 29).days(1999) == (epoch_days(2024, 2, 29),) * 2
    assert Span(2024, 2).days(1999) == (epoch_days(2024, 2, 1), epoch_days(2024, 2, 29))
    assert Span(0, 2).days(2023) == (epoch_days(2023, 2, 1), epoch_days(2023, 2, 28))
    assert Span(2023).days(1999) == (epoch_days(2023, 1, 1), epoch_days(2023, 12, 31))
    assert Span(0, 2, 29).days(2023) is None
    assert Span(2024, 2, 29, reach=1).days(1999) == (
        (epoch_days(2024, 2, 28) or 0),
        (epoch_days(2024, 3, 1) or 0),
    )


def at(stamp: str) -> float:
    seconds = epoch_seconds(f"{stamp}.000000Z")
    assert seconds is not None
    return seconds


def test_nearness_is_whole_within_and_halves_each_half_life_outside() -> None:
    day = (Span(2023, 11, 16),)
    assert nearness(day, at("2023-11-16T00:00:00")) == 1.0
    assert nearness(day, at("2023-11-16T23:59:59")) == 1.0
    assert nearness(day, at("2023-11-23T12:00:00")) == pytest.approx(0.5)
    assert nearness(day, at("2023-11-09T12:00:00")) == pytest.approx(0.5)
    assert nearness(day, at("2023-11-30T12:00:00")) == pytest.approx(0.25)
    assert HALF_LIFE_DAYS == 7.0
    month = (Span(2023, 6),)
    assert nearness(month, at("2023-06-01T00:00:00")) == nearness(month, at("2023-06-30T23:00:00"))
    assert nearness(month, at("2023-06-30T23:00:00")) == 1.0
    assert nearness(month, at("2023-07-07T00:00:00")) == pytest.approx(0.5)


def test_a_date_without_a_year_is_that_date_in_every_year() -> None:
    june = (Span(0, 6),)
    assert nearness(june, at("1999-06-15T10:00:00")) == 1.0
    assert nearness(june, at("2031-06-15T10:00:00")) == 1.0
    assert nearness(june, at("2031-07-07T00:00:00")) == pytest.approx(0.5)
    # The nearest year counts: early January is a week from last December.
    december = (Span(0, 12, 31),)
    assert nearness(december, at("2024-01-07T10:00:00")) == pytest.approx(0.5)


def test_nearest_of_several_dates_and_no_time_is_far() -> None:
    both = (Span(2023, 1, 1), Span(2023, 6, 1))
    assert nearness(both, at("2023-06-01T10:00:00")) == 1.0
    assert nearness(both, None) == 0.0
    assert nearness((), at("2023-06-01T10:00:00")) == 0.0


TODAY = epoch_days(2026, 12, 4) or 0


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("what broke today", Span(2026, 12, 4)),
        ("what broke yesterday", Span(2026, 12, 3)),
        ("what failed 3 days ago", Span(2026, 12, 1)),
        ("what failed a day ago", Span(2026, 12, 3)),
        ("what failed five days ago", Span(2026, 11, 29)),
        ("what changed this week", Span(2026, 12, 1, reach=3)),
        ("what changed over the past week", Span(2026, 12, 1, reach=3)),
        ("what changed last week", Span(2026, 11, 24, reach=3)),
        ("what changed two weeks ago", Span(2026, 11, 20, reach=3)),
        ("what shipped this month", Span(2026, 12)),
        ("what shipped last month", Span(2026, 11)),
        ("what did we decide this year", Span(2026)),
        ("what did we decide last year", Span(2025)),
        ("what did we ship 8 months ago", Span(2026, 4)),
        ("what did we ship a couple of weeks ago", Span(2026, 11, 20, reach=3)),
        ("what broke a few days ago", Span(2026, 12, 1)),
        ("what did we decide two years ago", Span(2024)),
        # 4 December 2026 is a Friday.
        ("what was decided last tuesday", Span(2026, 12, 1)),
        ("what was decided on friday", Span(2026, 11, 27)),
        ("what happened over the weekend", Span(2026, 11, 28, reach=1)),
        ("what did we ship this summer", Span(2026, 7, 0, 30)),
        ("what did we ship last winter", Span(2026, 1, 0, 31)),
    ],
)
def test_days_named_from_today(text: str, span: Span) -> None:
    got = named(text, TODAY)
    assert got.spans == (span,)
    # Their words stay searched: a note says "yesterday" as the question does.
    assert got.words == frozenset()
    # Without a day to count from they name nothing.
    assert named(text).spans == ()


def test_a_week_named_from_today_is_seven_days() -> None:
    (last_week,) = named("last week", TODAY).spans
    assert last_week.days(2026) == (TODAY - 13, TODAY - 7)
    assert named("last week", TODAY).days == ()
    assert named("yesterday", TODAY).days == ("2026-12-03",)
    # Last month of January is December of the year before.
    assert named("last month", epoch_days(2027, 1, 15)).spans == (Span(2026, 12),)


@pytest.mark.parametrize(
    "text",
    ["the last deploy", "in the last week of june", "a year of work", "weekends", "week 3"],
)
def test_words_that_name_no_day_from_today(text: str) -> None:
    assert all(span.year == 0 for span in named(text, TODAY).spans)


def test_only_the_first_dates_are_read() -> None:
    text = " and ".join(f"on {day} march 2025" for day in range(1, 29))
    got = named(text)
    assert got.spans == tuple(Span(2025, 3, day) for day in range(1, MAX_DATES + 1))
    # The same date twice is one date, and its words are left out both times.
    twice = named("on 3 march 2025, that is 2025-03-03")
    assert twice.spans == (Span(2025, 3, 3),)
    assert twice.words == {"3", "march", "2025", "03"}


def test_only_the_opening_is_read() -> None:
    filler = "x" * (OPENING_CHARS - len("on 3 march 2025"))
    assert named(filler + "on 3 march 2025").spans == (Span(2025, 3, 3),)
    assert named("x" * OPENING_CHARS + " on 3 march 2025").spans == ()


def test_the_day_whose_memories_join_is_the_latest_up_to_today() -> None:
    assert named("on 3 march", TODAY).days == ("2026-03-03",)
    assert named("on 25 december", TODAY).days == ("2025-12-25",)
    assert named("on 4 december", TODAY).days == ("2026-12-04",)
    assert named("on 3 march").days == ()  # no today: no year to take
    assert named("on 3 march 2020", TODAY).days == ("2020-03-03",)
    assert named("in march 2020", TODAY).days == ()
    assert named("on 29 february", TODAY).days == ()  # 2026 has none


def test_a_weekend_brings_its_three_days_and_a_longer_span_none() -> None:
    assert named("what broke over the weekend", TODAY).days == (
        "2026-11-27",
        "2026-11-28",
        "2026-11-29",
    )
    assert named("what broke last week", TODAY).days == ()


def test_what_the_question_is_about_leaves_its_calendar_dates_out() -> None:
    assert named("anything from march 2025?").rest == "anything from ?"
    assert named("what broke yesterday", TODAY).rest == "what broke yesterday"
    assert named("the cache ttl").rest == "the cache ttl"
    long = "x" * OPENING_CHARS + " on 3 march 2025"
    assert named(long).rest == long


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("what did we record on sept 17th last year", Span(2025, 9, 17)),
        ("what broke in early november last year", Span(2025, 11)),
        ("what changed on march 3, this year", Span(2026, 3, 3)),
    ],
)
def test_a_day_or_month_of_this_year_or_last(text: str, span: Span) -> None:
    assert named(text, TODAY).spans == (span,)
    # Without a day to count from: that day or month of every year.
    assert named(text).spans == (Span(0, span.month, span.day),)


def test_a_day_of_last_year_that_is_none_names_nothing() -> None:
    assert named("on 31 february last year", TODAY).spans == ()
    assert named("on 17 september last year", TODAY).words == {
        "17",
        "september",
        "last",
        "year",
    }


# Pieces of dates and of what surrounds them, joined at random: each shape's
# words, digits, the marks between them, and letters the shapes' ASCII `\b`
# does not read as word characters.
PIECES = [
    *dates.MONTHS, *dates.WEEKDAYS, *dates.SEASONS, *dates.COUNTS, "today", "yesterday",
    "ago", "week", "weekend", "month", "year", "this", "last", "past", "on", "in", "of",
    "during", "over", "the", "from", "early", "mid", "q1", "q3", "q4", "q42025", "christmas",
    "eve", "halloween", "new", "years", "year's", "valentine's", "valentines", "day", "boot",
    "3", "3rd", "20", "31", "2024", "2025", "25", "03", "١٢", "é", "ß", "_", "x",
    " ", " ", " ", "-", "/", ".", ",", "'", ":", "?",
]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=14), st.booleans())
def test_a_shape_passed_over_for_its_missing_words_could_not_have_matched(
    pieces: list[str], counted: bool
) -> None:
    """`named` runs only the shapes whose words and digits a text holds: it
    reads every text as running every shape would."""
    text = "".join(pieces)
    today = epoch_days(2025, 6, 18) if counted else None
    lazy = named(text, today)
    every = dict.fromkeys(dates._NEEDS, ())  # pyright: ignore[reportPrivateUsage]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dates, "_NEEDS", every)
        assert named(text, today) == lazy


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=14), st.booleans())
def test_a_text_without_a_cue_or_a_digit_names_no_date(pieces: list[str], counted: bool) -> None:
    """`named` and recall's question (`query.understand`, which does not load
    this module for it) pass over a text holding no digit and none of
    `date_cues.DATE_CUES`: read whole, it names nothing either."""
    text = "".join(pieces)
    today = epoch_days(2025, 6, 18) if counted else None
    read = named(text, today)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dates, "may_name_a_date", lambda _: True)
        assert named(text, today) == read


@pytest.mark.parametrize("shape", [shape for shape, _ in dates._SHAPES])  # pyright: ignore[reportPrivateUsage]
def test_every_text_a_shape_matches_holds_what_it_needs(shape: str) -> None:
    """The needs of each shape, by which `named` passes it over, are words
    every text it matches holds, and so is a digit or a cue word, without
    which no shape is read at all: drawn from the shape's own pattern, with
    anything around it."""
    pattern = re.compile(dates._SOURCES[shape], re.ASCII)  # pyright: ignore[reportPrivateUsage]
    needs = dates._NEEDS[shape]  # pyright: ignore[reportPrivateUsage]

    @settings(max_examples=150, deadline=None)
    @given(st.from_regex(pattern, fullmatch=False))
    def check(text: str) -> None:
        if pattern.search(text):
            held = dates._held(text)  # pyright: ignore[reportPrivateUsage]
            assert all(not held.isdisjoint(need) for need in needs), text
            # Nor does recall's question pass it over (`date_cues.DATE_CUES`).
            assert dates.may_name_a_date(text), text

    check()


@pytest.mark.parametrize(
    ("text", "compiled"),
    [
        ("what broke last week", {"this"}),
        ("who was paged yesterday", {"yesterday"}),
        ("what changed on 3 march 2025", {"ymd", "ym", "slash", "dots", "dmy", "mdy", "dm",
                                          "md", "my", "on_slash", "m", "y"}),
        ("the q3 plan", {"quarter"}),
    ],
)  # fmt: skip
def test_a_question_compiles_only_the_shapes_its_words_allow(
    text: str, compiled: set[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Compiling every shape costs a recall about 4 ms: a question compiles
    the ones whose words it holds."""
    read: set[str] = set()

    class Sources(dict[str, str]):
        def __getitem__(self, shape: str) -> str:
            read.add(shape)
            return super().__getitem__(shape)

    monkeypatch.setattr(dates, "_SOURCES", Sources(dates._SOURCES))  # pyright: ignore[reportPrivateUsage]
    dates._pattern.cache_clear()  # pyright: ignore[reportPrivateUsage]
    try:
        named(text, epoch_days(2025, 6, 18))
    finally:
        dates._pattern.cache_clear()  # pyright: ignore[reportPrivateUsage]
    assert read == compiled


RECALL_PROBE = """\
import sys
sys.path.insert(0, sys.argv[1])
from tree_ring.cli import app
app.main(["--root", sys.argv[2], "recall", sys.argv[3]], {})
print("tree_ring.read.dates" in sys.modules)
"""


@pytest.mark.parametrize(
    ("question", "loaded"),
    [("request timeout", False), ("what broke in march", True), ("the 2024 outage", True)],
)
def test_recall_loads_the_dates_only_for_a_question_that_may_name_one(
    project_root: Path, question: str, loaded: bool
) -> None:
    """A question holding no digit and no cue word (`date_cues.DATE_CUES`) costs
    recall no import of this module."""
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", RECALL_PROBE, str(REPO), str(project_root), question],
        capture_output=True,
        check=True,
        timeout=60,
    )
    assert done.stdout.decode().split()[-1] == str(loaded)
