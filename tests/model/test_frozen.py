"""The frozen record base: what a frozen dataclass gives, without importing dataclasses."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from typing import Any

import pytest
from helpers import REPO

from tree_ring.model.frozen import MISSING, Frozen, FrozenError, field, fields


class Point(Frozen):
    x: int
    y: int = 0
    tags: tuple[str, ...] = field(default_factory=tuple, help="labels")
    secret: str | None = field(default=None, repr=False, compare=False)


@dataclasses.dataclass(frozen=True)
class DataPoint:
    """The same declaration as a frozen dataclass, to hold `Point` to it."""

    x: int
    y: int = 0
    tags: tuple[str, ...] = dataclasses.field(default_factory=tuple)
    secret: str | None = dataclasses.field(default=None, repr=False, compare=False)


class Named(Frozen, kw_only=True):
    created: str = ""
    name: str  # required, after a default: allowed when every field is by name


CALLS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    ((1,), {}),
    ((1, 2), {}),
    ((), {"x": 1, "y": 2}),
    ((1,), {"tags": ("a",)}),
    ((1, 2, ("b",), "s"), {}),
    ((1,), {"secret": "hidden"}),
]
BAD_CALLS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    ((), {}),
    ((1, 2, (), None, 5), {}),
    ((1,), {"z": 3}),
    ((1,), {"x": 2}),
]


def _made(cls: type[Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    try:
        return cls(*args, **kwargs)
    except TypeError:
        return TypeError


def test_records_behave_as_frozen_dataclasses() -> None:
    for args, kwargs in CALLS:
        mine, theirs = Point(*args, **kwargs), DataPoint(*args, **kwargs)
        assert vars(mine) == vars(theirs)
        assert repr(mine) == repr(theirs).replace("DataPoint", "Point")
        assert mine == Point(*args, **kwargs) and hash(mine) == hash(Point(*args, **kwargs))
    # compare=False: a field left out of equality and the hash.
    assert Point(1, secret="a") == Point(1, secret="b")
    assert hash(Point(1, secret="a")) == hash(Point(1, secret="b"))
    assert Point(1) != Point(2) and Point(1) != DataPoint(1)
    for args, kwargs in BAD_CALLS:
        assert _made(Point, args, kwargs) is TypeError
        assert _made(DataPoint, args, kwargs) is TypeError


def test_every_instance_gets_its_own_default_from_a_factory() -> None:
    class Bag(Frozen):
        items: dict[str, int] = field(default_factory=lambda: {})

    first, second = Bag(), Bag()
    first.items["a"] = 1
    assert second.items == {}


def test_the_compiled_init_makes_what_the_generic_one_made() -> None:
    class Late(Frozen):
        x: int
        y: int = 0
        tags: tuple[str, ...] = field(default_factory=tuple)

    early = [vars(Late(*args, **kwargs)) for args, kwargs in CALLS[:4]]
    early_errors = [_made(Late, args, kwargs) for args, kwargs in BAD_CALLS]
    for _ in range(64):  # a class compiles its own __init__ after 64 instances
        Late(0)
    assert Late.__init__.__qualname__.endswith("Late.__init__")  # compiled by now
    assert [vars(Late(*args, **kwargs)) for args, kwargs in CALLS[:4]] == early
    assert [_made(Late, args, kwargs) for args, kwargs in BAD_CALLS] == early_errors


def test_assignment_and_deletion_are_refused() -> None:
    point = Point(1)
    with pytest.raises(FrozenError):
        point.x = 2  # pyright: ignore[reportAttributeAccessIssue] - the refusal is the test
    with pytest.raises(FrozenError):
        del point.x  # pyright: ignore[reportAttributeAccessIssue]
    assert isinstance(FrozenError(), AttributeError)
    assert point.x == 1


def test_replace_copies_with_changes_and_refuses_unknown_fields() -> None:
    point = Point(1, 2, ("a",))
    moved = point.replace(y=5)
    assert (moved.x, moved.y, moved.tags) == (1, 5, ("a",)) and point.y == 2
    assert type(moved) is Point
    with pytest.raises(TypeError, match="'z'"):
        point.replace(z=1)


def test_from_values_takes_the_values_as_they_are() -> None:
    made = Point.from_values({"x": 1, "y": 2, "tags": (), "secret": None})
    assert made == Point(1, 2) and vars(made) == vars(Point(1, 2))


def test_keyword_only_records_take_required_fields_anywhere() -> None:
    assert Named(name="n").name == "n"
    with pytest.raises(TypeError):
        Named("c", "n")  # pyright: ignore[reportCallIssue] - by name only, on purpose
    with pytest.raises(TypeError, match="has no default"):

        class Unordered(Frozen):  # pyright: ignore[reportUnusedClass]
            a: int = 0
            b: int  # pyright: ignore[reportGeneralTypeIssues] - the refusal is the test


def test_fields_carry_their_metadata_in_order() -> None:
    specs = fields(Point)
    assert [spec.name for spec in specs] == ["x", "y", "tags", "secret"]
    assert specs[0].required and specs[0].default is MISSING
    assert specs[2].get("help") == "labels" and specs[2].get("absent", "dflt") == "dflt"
    assert fields(Point(1)) == specs


def test_a_record_can_be_declared_from_another_records_fields() -> None:
    class Copy(Frozen, declared=[spec for spec in fields(Point) if spec.name != "secret"]):
        pass

    assert [spec.name for spec in fields(Copy)] == ["x", "y", "tags"]
    made = Copy(3)  # pyright: ignore[reportCallIssue] - fields the checker cannot see
    assert vars(made) == {"x": 3, "y": 0, "tags": ()}


def test_importing_the_base_imports_no_dataclasses_or_typing() -> None:
    script = (
        "import sys\n"
        f"sys.path.insert(0, {str(REPO)!r})\n"
        "from tree_ring.model.frozen import Frozen, field\n"
        "class P(Frozen):\n"
        "    x: int = field(default=1, help='h')\n"
        "P(); P(x=2).replace(x=3)\n"
        "print(sorted({'dataclasses', 'typing', 'inspect'} & set(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"
