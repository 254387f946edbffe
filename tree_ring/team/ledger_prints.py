"""Fingerprints of ledger lines and ids, kept in the store's settings.

The SessionStart hook's pass over a changed ledger (`ledger_delta.py`) passes
over a line whose fingerprint the store recorded as the upstream's or as a
claim already read, so a fingerprint must not be forgeable: a line edited to
share one would be passed over unchecked. CRC-32 (an older version's) is
linear, solved for in an instant; blake2b cut to 16 bytes is not (a pair of
lines sharing one costs about 2**64 tries, a line sharing a given one 2**128).

Stored as "blake2b-128:" and the sorted fingerprints in hex. A value without
that prefix (an older version's CRC-32s, or damage) reads as no record at all:
each caller then checks the lines again, never trusts one.

Light on purpose (the hook imports it): `_blake2` is the interpreter's own,
loaded on first use, without `hashlib` (which loads OpenSSL).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

PREFIX = "blake2b-128:"
SIZE = 16  # bytes of a fingerprint

_blake2b: list[Callable[..., Any]] = []


def _constructor() -> Callable[..., Any]:
    if not _blake2b:
        try:
            _blake2b.append(__import__("_blake2").blake2b)
        except (ImportError, AttributeError):  # pragma: no cover - a build without it
            from hashlib import blake2b

            _blake2b.append(blake2b)
    return _blake2b[0]


def fingerprint(data: bytes) -> bytes:
    """The fingerprint of a raw line, or of an id's UTF-8 bytes."""
    return _constructor()(data, digest_size=SIZE).digest()


def fingerprints(items: Iterable[bytes]) -> set[bytes]:
    make = _constructor()
    return {make(item, digest_size=SIZE).digest() for item in items}


def pack(prints: set[bytes]) -> str:
    return PREFIX + b"".join(sorted(prints)).hex()


class Prints:
    """A sorted, packed set of fingerprints, looked up by bisection (no set
    built). `known` is False for a value of another format: no record."""

    def __init__(self, stored: Any) -> None:
        self.known = False
        self.packed = b""
        if isinstance(stored, str) and stored.startswith(PREFIX):
            try:
                packed = bytes.fromhex(stored[len(PREFIX) :])
            except ValueError:
                return
            if len(packed) % SIZE == 0:
                self.packed, self.known = packed, True

    def __contains__(self, key: bytes) -> bool:
        packed = self.packed
        low, high = 0, len(packed) // SIZE
        while low < high:
            middle = (low + high) // 2
            if packed[middle * SIZE : middle * SIZE + SIZE] < key:
                low = middle + 1
            else:
                high = middle
        return packed[low * SIZE : low * SIZE + SIZE] == key

    def all(self) -> set[bytes]:
        packed = self.packed
        return {packed[i : i + SIZE] for i in range(0, len(packed), SIZE)}
