"""A light frozen record: the part of `@dataclass(frozen=True)` Tree Ring uses.

The hooks and the CLI start a new Python for every call, and `dataclasses`
brings `inspect`, `ast`, `dis` and `tokenize` with it: importing it costs a
hook more than everything the hook does. A subclass of `Frozen` declares its
fields as annotations, in order, with defaults in the class body, and gets
what a frozen dataclass gets: an `__init__` taking the fields by position or
by name (by name only with `kw_only=True`), `__eq__` and `__hash__` over the
compared fields, a `__repr__`, `replace(**changes)`, and instances that refuse
assignment. `field(...)` adds a default factory, leaves a field out of
`repr` or comparison, and carries metadata (help text, an export key, a CLI
flag) that other modules read through `fields(cls)` to derive what they need
from one declaration.

A class's first records are made by a generic `__init__`; from the
`COMPILE_AFTER`-th on, by one compiled for the class (the code a dataclass
would write). Compiling costs as much as some dozens of generic calls, so a hook
(or the guard's rule table, at import) never pays for it, and a bulk import
pays once. Rows read back from the store skip `__init__` (`from_values`).
Pyright learns the generated `__init__` from `dataclass_transform`, imported
only while type checking, so nothing here imports `typing` at run time.
"""

from __future__ import annotations

from operator import attrgetter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any, Self, TypeVar, dataclass_transform, overload

    T = TypeVar("T")
else:

    def dataclass_transform(**_options: object):
        return lambda decorated: decorated


class _Missing:
    """No default: the field is required."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class FrozenError(AttributeError):
    """An assignment to a field of a frozen record."""


class Field:
    """One declared field: its name, default, and metadata."""

    __slots__ = ("annotation", "compare", "default", "factory", "kw_only", "meta", "name", "repr")

    def __init__(
        self,
        default: Any = MISSING,
        factory: Callable[[], Any] | None = None,
        *,
        repr: bool = True,
        compare: bool = True,
        kw_only: bool | None = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        self.name = ""
        self.annotation = ""
        self.default = default
        self.factory = factory
        self.repr = repr
        self.compare = compare
        self.kw_only = kw_only
        self.meta: dict[str, Any] = meta or {}

    @property
    def required(self) -> bool:
        return self.default is MISSING and self.factory is None

    def get(self, key: str, default: Any = None) -> Any:
        """One item of the field's metadata."""
        return self.meta.get(key, default)

    def __repr__(self) -> str:
        return f"Field({self.name!r}, default={self.default!r}, meta={self.meta!r})"


if TYPE_CHECKING:

    @overload
    def field(
        *,
        default: T,
        repr: bool = True,
        compare: bool = True,
        kw_only: bool | None = None,
        **meta: Any,
    ) -> T: ...

    @overload
    def field(
        *,
        default_factory: Callable[[], T],
        repr: bool = True,
        compare: bool = True,
        kw_only: bool | None = None,
        **meta: Any,
    ) -> T: ...

    @overload
    def field(
        *, repr: bool = True, compare: bool = True, kw_only: bool | None = None, **meta: Any
    ) -> Any: ...


def field(
    *,
    default: Any = MISSING,
    default_factory: Callable[[], Any] | None = None,
    repr: bool = True,
    compare: bool = True,
    kw_only: bool | None = None,
    **meta: Any,
) -> Any:
    """A field with a default factory, left out of repr or comparison, or with metadata."""
    if default is not MISSING and default_factory is not None:
        raise ValueError("a field takes a default or a default_factory, not both")
    return Field(default, default_factory, repr=repr, compare=compare, kw_only=kw_only, meta=meta)


def fields(record: type[Frozen] | Frozen) -> tuple[Field, ...]:
    """The declared fields of a record class (or of a record's class), in order."""
    return record.__fields__


@dataclass_transform(frozen_default=True, field_specifiers=(field, Field))
class Frozen:
    """Base of every frozen record; see the module docstring."""

    __fields__: tuple[Field, ...] = ()
    __field_names__: frozenset[str] = frozenset()
    __compared__: Callable[[Any], Any]
    __shown__: tuple[str, ...]
    __positional__: tuple[Field, ...]
    __names__: tuple[str, ...]

    def __init_subclass__(
        cls,
        *,
        kw_only: bool = False,
        declared: Iterable[Field] | None = None,
        **options: Any,
    ) -> None:
        """Collect the fields: the bases' first, then this class's annotations
        (or `declared`, for a class derived from another's fields)."""
        super().__init_subclass__(**options)
        found = {spec.name: spec for spec in cls.__fields__}
        if declared is not None:
            own = [_copy(spec, kw_only) for spec in declared]
        else:
            # Read from the class dict, not inspect.get_annotations: importing
            # inspect is what this module exists to avoid.
            annotations = cls.__dict__.get("__annotations__", {})  # noqa: RUF063
            own = [
                _declare(cls, name, annotation, kw_only)
                for name, annotation in annotations.items()
                if "ClassVar" not in str(annotation)
            ]
        for spec in own:
            found[spec.name] = spec
        ordered = tuple(found.values())
        if not any(spec.kw_only for spec in ordered):
            _check_order(cls, ordered)
        cls.__fields__ = ordered
        cls.__field_names__ = frozenset(found)
        compared = [spec.name for spec in ordered if spec.compare]
        cls.__compared__ = attrgetter(*compared) if compared else _nothing
        cls.__shown__ = tuple(spec.name for spec in ordered if spec.repr)
        cls.__positional__ = tuple(spec for spec in ordered if not spec.kw_only)
        cls.__names__ = tuple(found)
        if "__init__" not in cls.__dict__:
            cls.__init__ = _adaptive_init

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenError(f"cannot assign to field {name!r} of a frozen {type(self).__name__}")

    def __delattr__(self, name: str) -> None:
        raise FrozenError(f"cannot delete field {name!r} of a frozen {type(self).__name__}")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self.__compared__(self) == self.__compared__(other)

    def __hash__(self) -> int:
        return hash(self.__compared__(self))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__shown__)
        return f"{type(self).__qualname__}({shown})"

    @classmethod
    def from_values(cls, values: dict[str, Any]) -> Self:
        """A record of exactly these field values, trusted as they are (a row
        read back from the store): no defaults, no checks, no `__init__`."""
        record = object.__new__(cls)
        record.__dict__.update(values)
        return record

    def replace(self, **changes: Any) -> Self:
        """A copy with `changes`, as `dataclasses.replace` makes it.

        The copy takes this record's field values as they are, which is all
        a generated `__init__` would do with them (no record has a
        `__post_init__`), at a fraction of its cost: every write copies its
        memory at least once, and a bulk import writes millions.
        """
        unknown = changes.keys() - self.__field_names__
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {min(unknown)!r}")
        copy = object.__new__(self.__class__)
        values = copy.__dict__
        values.update(self.__dict__)
        values.update(changes)
        return copy


def _nothing(_record: object) -> tuple[()]:
    return ()


def _declare(cls: type, name: str, annotation: object, kw_only: bool) -> Field:
    value = cls.__dict__.get(name, MISSING)
    spec = value if isinstance(value, Field) else Field(value)
    spec.name = name
    spec.annotation = str(annotation)
    if spec.kw_only is None:
        spec.kw_only = kw_only
    # As with a dataclass, the class attribute is the default, or nothing.
    if spec.default is MISSING:
        if name in cls.__dict__:
            delattr(cls, name)
    else:
        setattr(cls, name, spec.default)
    return spec


def _copy(spec: Field, kw_only: bool) -> Field:
    copy = Field(
        spec.default,
        spec.factory,
        repr=spec.repr,
        compare=spec.compare,
        kw_only=spec.kw_only if spec.kw_only is not None else kw_only,
        meta=dict(spec.meta),
    )
    copy.name = spec.name
    copy.annotation = spec.annotation
    return copy


def _check_order(cls: type, ordered: tuple[Field, ...]) -> None:
    defaulted = False
    for spec in ordered:
        if not spec.required:
            defaulted = True
        elif defaulted:
            raise TypeError(
                f"{cls.__name__}: field {spec.name!r} has no default but follows one that has"
            )


# Instances made by the generic `__init__` before a class gets a compiled one.
COMPILE_AFTER = 64
# How many each class has made so far: counted here, not on the class, as
# setting a class attribute would void the type's attribute cache each time.
_made: dict[type, int] = {}


def _adaptive_init(self: Frozen, *args: Any, **kwargs: Any) -> None:
    cls = type(self)
    made = _made[cls] = _made.get(cls, 0) + 1
    if made > COMPILE_AFTER:
        init = _compile_init(cls)
        type.__setattr__(cls, "__init__", init)
        init(self, *args, **kwargs)
        return
    names = cls.__names__
    # Every field given, all by position or all by name: what most calls do.
    if not kwargs:
        if len(args) == len(names) == len(cls.__positional__):
            self.__dict__.update(zip(names, args, strict=True))
            return
    elif not args and len(kwargs) == len(names) and kwargs.keys() == cls.__field_names__:
        values = self.__dict__
        for name in names:
            values[name] = kwargs[name]
        return
    values: dict[str, Any] = {}
    positional = cls.__positional__
    if len(args) > len(positional):
        raise TypeError(
            f"{cls.__name__}() takes {len(positional)} positional arguments, {len(args)} given"
        )
    for spec, value in zip(positional, args, strict=False):
        values[spec.name] = value
    for name, value in kwargs.items():
        if name not in cls.__field_names__:
            raise TypeError(f"{cls.__name__}() got an unexpected keyword argument {name!r}")
        if name in values:
            raise TypeError(f"{cls.__name__}() got multiple values for argument {name!r}")
        values[name] = value
    if len(values) < len(cls.__fields__):
        for spec in cls.__fields__:
            if spec.name in values:
                continue
            if spec.factory is not None:
                values[spec.name] = spec.factory()
            elif spec.default is not MISSING:
                values[spec.name] = spec.default
            else:
                raise TypeError(f"{cls.__name__}() missing required argument {spec.name!r}")
    self.__dict__.update(values)


def _compile_init(cls: type[Frozen]) -> Callable[..., None]:
    """The `__init__` a frozen dataclass would have, filling the instance's
    dict directly (`object.__setattr__` per field costs twice as much)."""
    namespace: dict[str, Any] = {"MISSING": MISSING}
    positional: list[str] = []
    keyword: list[str] = []
    body: list[str] = []
    for spec in cls.__fields__:
        name = spec.name
        if spec.factory is not None:
            namespace[f"_factory_{name}"] = spec.factory
            param = f"{name}=MISSING"
            body.append(f"  if {name} is MISSING: {name} = _factory_{name}()")
        elif spec.default is not MISSING:
            namespace[f"_default_{name}"] = spec.default
            param = f"{name}=_default_{name}"
        else:
            param = name
        (keyword if spec.kw_only else positional).append(param)
    params = ", ".join(["self", *positional, *(["*", *keyword] if keyword else [])])
    body.append("  values = self.__dict__")
    body += [f"  values[{spec.name!r}] = {spec.name}" for spec in cls.__fields__]
    source = f"def __init__({params}) -> None:\n" + "\n".join(body) + "\n"
    exec(source, namespace)  # the source names only declared fields
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init
