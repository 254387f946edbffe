"""JSON for the start-up paths, without importing the `json` package.

`import json` imports `re` and `enum` for its pure-Python parts, which costs a
hook a fifth of its run. What the hooks and the store need is what the C
accelerator `_json` behind the package does: scan a document, encode one.
This module drives `_json` as `json.loads` and `json.dumps` do, with the
package's defaults, so the text is the same byte for byte (a test holds the
two to it). What `_json` cannot do here is handed to the `json` package,
imported then: the error for a malformed document (the package writes its
message), or an interpreter whose `_json` is missing or different.
"""

from __future__ import annotations

import math

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

_WHITESPACE = " \t\n\r"


class _Defaults:
    """What `json.JSONDecoder()` gives its scanner."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    array_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}.__getitem__


def _not_serializable(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


try:
    import _json
except ImportError:  # pragma: no cover - every CPython has it
    _json = None

_scan: Callable[[str, int], tuple[Any, int]] | None = None
if _json is not None:
    try:
        # The scanner reads its options from the context's attributes.
        _scan = _json.make_scanner(_Defaults())  # pyright: ignore[reportArgumentType]
    except (TypeError, AttributeError):  # pragma: no cover - a _json that wants more
        _scan = None


def loads(text: str) -> Any:
    """`json.loads(text)` for a str, except that a document nested too deep to
    parse is a ValueError like any other malformed one, not a RecursionError
    that a caller's `except ValueError` would let through."""
    try:
        return _loads(text)
    except RecursionError:
        raise ValueError("JSON nested too deeply to read") from None


def _loads(text: str) -> Any:
    if _scan is not None:
        start = len(text) - len(text.lstrip(_WHITESPACE))
        try:
            value, end = _scan(text, start)
        except (StopIteration, SystemError, RecursionError):
            # No document there, or a malformed one: the package says which.
            # (Python 3.11's scanner cannot raise that error itself unless the
            # package is imported, and raises SystemError instead.)
            pass
        else:
            if not text[end:].strip(_WHITESPACE):
                return value
    import json

    return json.loads(text)


class LoneSurrogate(ValueError):
    """A JSON document whose strings (keys or values) hold a lone surrogate."""


def loads_utf8(text: str) -> Any:
    """`loads(text)`, refusing (LoneSurrogate, a ValueError) a document that
    holds a lone surrogate anywhere, a key or a value at any depth: valid
    JSON (a `\\ud800` escape, or the halves of a pair apart), but no text
    UTF-8 can hold, so nothing read from it could be written back, stored or
    printed. Every reader of a team ledger line parses it so."""
    value = loads(text)
    if lone_surrogate(text, value):
        raise LoneSurrogate("a \\u escape of a lone surrogate")
    return value


def gives_a_key_twice(text: str) -> bool:
    """Whether the JSON document `text` gives an object one key twice: read,
    only the last value counts, so a check of the parsed value never reads
    the first, while a line carried as written keeps it. Only for the few
    lines carried so (a record this version does not know)."""
    import json

    def pairs(found: list[tuple[str, Any]]) -> dict[str, Any]:
        made = dict(found)
        if len(made) != len(found):
            raise _TwiceGiven
        return made

    try:
        json.loads(text, object_pairs_hook=pairs)
    except _TwiceGiven:
        return True
    except (ValueError, RecursionError):
        return False
    return False


class _TwiceGiven(Exception):
    pass


def lone_surrogate(text: str, value: Any) -> bool:
    """Whether `value`, decoded from `text`, holds a lone surrogate: only an
    escape of one (`\\uD800` to `\\uDFFF`, either case of hex) spells one
    in text that is UTF-8, so most lines cost a substring search."""
    if "\\ud" not in text and "\\uD" not in text:
        return False
    try:
        dumps(value).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


_encoders: dict[tuple[bool, bool, bool], Callable[[Any], str]] = {}


def dumps(
    value: Any,
    *,
    sort_keys: bool = False,
    compact: bool = False,
    ensure_ascii: bool = False,
    indent: int | None = None,
) -> str:
    """`json.dumps(value, sort_keys=..., ensure_ascii=..., indent=...)`, with
    `separators=(",", ":")` when `compact`."""
    if indent is not None:
        return _indented(value, indent, 0, sort_keys, ensure_ascii)
    options = (sort_keys, compact, ensure_ascii)
    encode = _encoders.get(options)
    if encode is None:
        encode = _encoders[options] = _encoder(*options)
    return encode(value)


def _indented(value: Any, indent: int, depth: int, sort_keys: bool, ensure_ascii: bool) -> str:
    """What json writes with `indent`, which its C encoder cannot do: the
    objects and lists laid out here, their scalars encoded as above."""
    pad = "\n" + " " * (indent * (depth + 1))
    close = "\n" + " " * (indent * depth)
    if _is_array(value) and value:
        body = [_indented(item, indent, depth + 1, sort_keys, ensure_ascii) for item in value]
        return "[" + ",".join(pad + item for item in body) + close + "]"
    if _is_dict(value) and value:
        if not all(_is_str(key) for key in value):
            import json  # keys json would convert first (numbers, None)

            return json.dumps(value, sort_keys=sort_keys, ensure_ascii=ensure_ascii, indent=indent)
        pairs = sorted(value.items()) if sort_keys else value.items()
        body = [
            dumps(key, ensure_ascii=ensure_ascii)
            + ": "
            + _indented(item, indent, depth + 1, sort_keys, ensure_ascii)
            for key, item in pairs
        ]
        return "{" + ",".join(pad + item for item in body) + close + "}"
    return dumps(value, sort_keys=sort_keys, ensure_ascii=ensure_ascii)


def canonical(value: Any) -> str:
    """The one serialisation used for anything hashed: sorted keys, compact, UTF-8."""
    return dumps(value, sort_keys=True, compact=True)


def _python_string(text: str) -> str:  # pragma: no cover - only without _json
    import json.encoder

    return json.encoder.py_encode_basestring(text)


# A str as the encoder writes it (ensure_ascii=False), quotes included.
string: Callable[[str], str] = _json.encode_basestring if _json is not None else _python_string


def _encoder(sort_keys: bool, compact: bool, ensure_ascii: bool) -> Callable[[Any], str]:
    key_separator, item_separator = (":", ",") if compact else (": ", ", ")
    if _json is not None:
        quote = _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring
        try:
            chunks = _json.make_encoder(
                # No markers: the encoder would keep them between calls (and
                # threads), and nothing Tree Ring writes refers to itself; a
                # structure that did would end in RecursionError.
                None,
                _not_serializable,
                quote,
                None,  # indent
                key_separator,
                item_separator,
                sort_keys,
                False,  # skipkeys
                True,  # allow_nan
            )
        except TypeError:  # pragma: no cover - a _json with another signature
            pass
        else:

            def encode(value: Any) -> str:
                if isinstance(value, str):
                    return quote(value)
                return "".join(chunks(value, 0))

            return encode
    import json  # pragma: no cover - only without a usable _json

    return json.JSONEncoder(  # pragma: no cover
        sort_keys=sort_keys,
        separators=(item_separator, key_separator),
        ensure_ascii=ensure_ascii,
    ).encode


def as_object(value: Any) -> dict[str, Any] | None:
    """A decoded document if it is a JSON object, else None."""
    return value if _is_dict(value) else None


def strings(value: Any) -> list[str]:
    """The strings of a decoded JSON array, in order; [] for anything else."""
    return [item for item in value if _is_str(item)] if _is_array(value) else []


def every_string(data: Any, *, keys: bool = True) -> Iterator[str]:
    """Every string in a decoded JSON value (`keys`: its objects' keys too),
    in the order the document writes them, without recursion."""
    stack: list[Any] = [data]
    while stack:
        value = stack.pop()
        if _is_str(value):
            yield value
        elif _is_dict(value):
            items: list[Any] = list(value.items())
            parts = [part for key, item in items for part in ((key, item) if keys else (item,))]
            stack.extend(reversed(parts))
        elif _is_array(value):
            stack.extend(reversed(value))


# Tests apart, so the checker keeps a value as the Any it was decoded as.


def _is_dict(value: object) -> bool:
    return isinstance(value, dict)


def _is_array(value: object) -> bool:
    return isinstance(value, list | tuple)


def _is_str(value: object) -> bool:
    return isinstance(value, str)
