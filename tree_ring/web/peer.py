"""Whose socket is at the other end of a connection to the view, read from /proc/net/tcp.

A browser sends the view's cookie to every port on 127.0.0.1, and any local
user can reach the port, so neither the cookie nor the token says who is
asking. The kernel does: the client's end of a loopback connection is a row
of /proc/net/tcp (or /proc/net/tcp6, for a client that dialled the
IPv4-mapped address) whose local address is the peer's and whose remote
address is ours, and its `uid` column is the user who opened that socket.
The view serves only connections whose row names its own user.

Where /proc/net/tcp does not exist (macOS, the BSDs) nothing can be checked
and every connection is let through; where it exists but the row is not
found or cannot be read, the connection is refused.
"""

from __future__ import annotations

import ipaddress
import os
import struct

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

# The IPv4 table first: the view listens on 127.0.0.1, so that is where a
# client's row almost always is; the IPv6 one only when it is not.
TABLES = ("/proc/net/tcp", "/proc/net/tcp6")
# The one state whose row names who opened the socket: once the client has
# closed its end (FIN_WAIT, TIME_WAIT, CLOSE ...) the kernel may keep no
# owner for it and print uid 0, which would pass for root's. A request from
# a client already gone is not served.
ESTABLISHED = 0x01

Endpoint = tuple[str, int]


def hex_endpoint(host: str, port: int, *, six: bool = False) -> str:
    """`host:port` as the kernel prints it: each 32-bit word of the address in
    host byte order (127.0.0.1 is `0100007F` on a little-endian machine), the
    port in big-endian hex. With `six`, an IPv4 address as its IPv4-mapped
    IPv6 form, as the tcp6 table holds it."""
    address = ipaddress.ip_address(host)
    if six and isinstance(address, ipaddress.IPv4Address):
        address = ipaddress.IPv6Address(f"::ffff:{address}")
    raw = address.packed
    words = struct.unpack(f"={len(raw) // 4}I", raw)
    return "".join(f"{word:08X}" for word in words) + f":{port:04X}"


def owners(table: str, peer: Endpoint, ours: Endpoint, *, six: bool = False) -> set[int]:
    """The uids of every live row of `table` (the text of /proc/net/tcp or
    tcp6) that is the peer's end of a connection to us."""
    local, remote = hex_endpoint(*peer, six=six), hex_endpoint(*ours, six=six)
    # A machine can hold thousands of rows: find the pair in the whole text
    # first and split only the lines that hold it.
    text, pair = table.upper(), f" {local} {remote} "
    found: set[int] = set()
    at = text.find(pair)
    while at >= 0:
        start, end = text.rfind("\n", 0, at) + 1, text.find("\n", at)
        end = len(text) if end < 0 else end
        at = text.find(pair, end)
        # sl, local, remote, st, tx:rx, tr:when, retrnsmt, uid, ...
        fields = text[start:end].split()
        if len(fields) < 8 or fields[1] != local or fields[2] != remote:
            continue
        try:
            state, uid = int(fields[3], 16), int(fields[7])
        except ValueError:
            return {-1}  # a row we cannot read is no owner we can trust
        if state == ESTABLISHED:
            found.add(uid)
    return found


def _read(path: str) -> str | None:
    """The table's text; None when the file does not exist."""
    try:
        with open(path, encoding="ascii", errors="replace") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


# What the tables say of a connection; only OURS is served.
OURS = "ours"  # one live row, of the wanted uid (or no table to check)
ANOTHER = "another"  # a live row of another uid, or rows of two
NO_ROW = "no-row"  # no live row: the client has closed its end, or the row was missed
UNREADABLE = "unreadable"  # a table or a row that cannot be read


def verdict(
    peer: Endpoint, ours: Endpoint, uid: int | None = None, tables: Sequence[str] = TABLES
) -> str:
    """What the tables say of the connection from `peer` to `ours` against
    the user `uid` (this process's by default): OURS when its one owner is
    that uid, or where the first table does not exist; else why it is not."""
    want = os.getuid() if uid is None else uid
    try:
        first = _read(tables[0])
        if first is None:
            return OURS
        found = owners(first, peer, ours)
        if not found:
            for path in tables[1:]:
                found |= owners(_read(path) or "", peer, ours, six=True)
    except OSError:  # present but unreadable: fail closed
        return UNREADABLE
    if found == {want}:
        return OURS
    if -1 in found:
        return UNREADABLE
    return ANOTHER if found else NO_ROW


def allowed(
    peer: Endpoint, ours: Endpoint, uid: int | None = None, tables: Sequence[str] = TABLES
) -> bool:
    """Whether the connection from `peer` to `ours` is the user `uid`'s: True
    without a check where the first table does not exist; False when it
    exists and no single owner is found, or a table cannot be read."""
    return verdict(peer, ours, uid, tables) == OURS
