"""A `Memory` read from an export row: Tree Ring's own, or the original's.

Each field is read as `Memory` declares it (`tree_ring.model.record`): its
export key (nested under `source` or `review` where the key says so), the
default an import row without it gets (``imported``), and whether the write
path recomputes it (``recomputed``, never read). The row is checked only for
its shape here; `record.validate` and the guard judge the values on the
write path.

A value of the wrong JSON type is refused, naming the field and the type it
takes (`text`, `texts`, `group`), never turned into text: `str()` of a list
or an object would store its Python spelling. The other parts of an import
file (a content tombstone line, a carried re-admission, the original's
legacy rows) read their values through the same functions.
"""

from __future__ import annotations

from tree_ring.model.errors import UsageError
from tree_ring.model.frozen import MISSING, Field, fields
from tree_ring.model.record import Link, Memory, new_memory_id, now_iso, parse_time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

# How an import's batch id begins (`import-<UTC time>-<8 hex>`, transfer/jsonl.py):
# the session its rows name when their file names none.
BATCH_PREFIX = "import-"


def from_mapping(row: Mapping[str, Any]) -> Memory:
    """Build a Memory from an export row (Tree Ring's or the original's).

    Each field is read as `Memory` declares it (see the module docstring).
    Its content hash is left for the write path (`pipeline.prepare`) to set.
    """
    groups = {name: group(row, name) for name in _GROUP_PROBLEMS}
    values: dict[str, Any] = {}
    for spec in _IMPORTED:
        nest, _, key = spec.get("export", spec.name).rpartition(".")
        if nest:
            values[spec.name] = _nested(groups[nest], key, spec)
        else:
            values[spec.name] = _top_level(row, key, spec)
    for spec in _PENDING_FLAGS:
        flag_name = spec.get("pending_flag")
        nest, _, key = flag_name.rpartition(".")
        flag = groups[nest].get(key)
        if flag is not None and not isinstance(flag, bool):
            raise UsageError(f"{flag_name} must be true or false")
        if not values[spec.name]:
            values[spec.name] = "pending" if flag else "accepted"
    # Times that default to another field's: a row's first moment is its creation.
    created = values["created_at"] = values["created_at"] or now_iso()
    values["updated_at"] = values["updated_at"] or created
    values["valid_from"] = values["valid_from"] or created
    values["id"] = values["id"] or new_memory_id()
    return Memory(**values)


# Where an export row nests fields, and what to say when the nest is not an object.
_GROUP_PROBLEMS = {
    "source": "source must be an object with type, ref and quote",
    "review": "review must be an object",
}
_IMPORTED = [spec for spec in fields(Memory) if not spec.get("recomputed")]
_PENDING_FLAGS = [spec for spec in fields(Memory) if spec.get("pending_flag")]


def _imported_default(spec: Field) -> Any:
    return spec.meta.get("imported", spec.default)


def _top_level(row: Mapping[str, Any], key: str, spec: Field) -> Any:
    annotation = spec.annotation
    if spec.get("time"):
        return _time_or_none(row.get(key), key)
    if annotation == "float":
        return _score(row, key, spec.default)
    if annotation == "tuple[Link, ...]":
        return _links(row.get(key))
    if annotation == "tuple[str, ...]":
        return texts(row.get(key), key)
    if annotation == "str | None" or spec.get("pending_flag"):
        # A pending flag's field left out is decided by the flag.
        return text(row.get(key), key) or None
    default = _imported_default(spec)
    return text(row.get(key), key) or ("" if default is MISSING else default)


def _nested(nest: Mapping[str, Any], key: str, spec: Field) -> Any:
    """A value inside the original's `source` and `review` objects, named by
    its export key (``source.type``) when it is refused."""
    value = nest.get(key)
    if spec.get("time"):
        return _time_or_none(value, key)
    said = text(value, spec.get("export"))
    if spec.annotation == "str | None":
        return said or None
    return said or _imported_default(spec)


def _links(raw: Any) -> tuple[Link, ...]:
    links: list[Link] = []
    for item in _list(raw, "links"):
        link = _mapping(item, "each link needs a type and a target")
        if not isinstance(link.get("target"), str):
            raise UsageError("each link needs a type and a target")
        kind = text(link.get("type"), "each link's type") or "related"
        links.append(Link(type=kind, target=link["target"]))
    return tuple(links)


def text(value: Any, what: str) -> str:
    """The string an import file gives for `what`, or "" when it gives none
    (null, or the key left out); a value of another type is refused."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise UsageError(f"{what} must be a string")
    return value


def texts(value: Any, what: str) -> tuple[str, ...]:
    """The list of strings an import file gives for `what` (none when null or
    left out); anything else, a bare string or a list holding a number, is
    refused."""
    if value is None:
        return ()
    if not _is_list(value) or not all(isinstance(item, str) for item in value):
        raise UsageError(f"{what} must be a list of strings")
    return tuple(value)


def group(row: Mapping[str, Any], name: str) -> dict[str, Any]:
    """The nested object `name` (``source``, ``review``) of an export row, {}
    when left out; anything but an object is refused."""
    return _mapping(row.get(name), _GROUP_PROBLEMS[name])


def _mapping(value: Any, problem: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not _is_mapping(value):
        raise UsageError(problem)
    return {str(k): v for k, v in value.items()}


def _is_mapping(value: object) -> bool:
    if isinstance(value, dict):
        return True
    from collections.abc import Mapping  # only for a row that is not a plain dict

    return isinstance(value, Mapping)


def _list(value: Any, what: str) -> list[Any]:
    if value is None:
        return []
    if not _is_list(value):
        raise UsageError(f"{what} must be a list")
    return value


def _is_list(value: object) -> bool:
    return isinstance(value, list)


def _score(row: Mapping[str, Any], key: str, default: float) -> float:
    value = row.get(key, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UsageError(f"{key} must be a number between 0 and 1")
    return float(value)


def _time_or_none(value: Any, what: str) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise UsageError(f"{what} must be an ISO-8601 string")
    return parse_time(value, what)
