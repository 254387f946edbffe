"""The view serves only its own user's connections: the owner read from /proc/net/tcp."""

from __future__ import annotations

import os
import pwd
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_support import Client, serving

from tree_ring.web import peer

LITTLE = sys.byteorder == "little"
LOOP = "0100007F" if LITTLE else "7F000001"  # 127.0.0.1
LOOP6 = "0000000000000000FFFF0000" + LOOP if LITTLE else "00000000000000000000FFFF7F000001"
HEAD = (
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt"
    "   uid  timeout inode\n"
)


def row(n: int, local: str, remote: str, state: str, uid: int) -> str:
    return (
        f"  {n:2d}: {local} {remote} {state} 00000000:00000000 00:00000000 00000000"
        f"  {uid:4d}        0 {1000 + n} 1 0000000000000000 20 4 30 10 -1\n"
    )


# The view at 127.0.0.1:8791 (0x2257); a client at 127.0.0.1:40000 (0x9C40).
VIEW, CLIENT = ("127.0.0.1", 8791), ("127.0.0.1", 40000)
TABLE = (
    HEAD
    + row(0, f"{LOOP}:2257", "00000000:0000", "0A", 0)  # the view listening
    + row(1, f"{LOOP}:2257", f"{LOOP}:9C40", "01", 0)  # the view's end of it
    + row(2, f"{LOOP}:9C40", f"{LOOP}:2257", "01", 1000)  # the client's end: its owner
    + row(3, f"{LOOP}:9C41", f"{LOOP}:2257", "01", 1001)  # another client
    + row(4, f"{LOOP}:9C40", f"{LOOP}:2258", "01", 1002)  # the same port, to elsewhere
    + row(5, f"{LOOP}:9C40", f"{LOOP}:2257", "06", 0)  # an old one waiting: no owner
)


def test_addresses_are_written_as_the_kernel_writes_them() -> None:
    assert peer.hex_endpoint("127.0.0.1", 8791) == f"{LOOP}:2257"
    assert peer.hex_endpoint("127.0.0.1", 80) == f"{LOOP}:0050"
    assert peer.hex_endpoint("127.0.0.1", 8791, six=True) == f"{LOOP6}:2257"
    assert peer.hex_endpoint("10.1.2.3", 65535) == ("0302010A" if LITTLE else "0A010203") + ":FFFF"


def test_the_owner_is_the_row_from_the_client_to_the_view() -> None:
    assert peer.owners(TABLE, CLIENT, VIEW) == {1000}
    assert peer.owners(TABLE, ("127.0.0.1", 40001), VIEW) == {1001}
    # The view's own end (local and remote swapped) is never taken for the client's.
    assert peer.owners(TABLE, VIEW, CLIENT) == {0}
    assert peer.owners(TABLE, ("127.0.0.1", 40002), VIEW) == set()
    assert peer.owners(TABLE.lower(), CLIENT, VIEW) == {1000}  # hex in either case


def test_a_client_of_the_mapped_address_is_found_in_tcp6() -> None:
    table6 = HEAD + row(0, f"{LOOP6}:9C40", f"{LOOP6}:2257", "01", 1000)
    assert peer.owners(table6, CLIENT, VIEW, six=True) == {1000}
    assert peer.owners(table6, CLIENT, VIEW) == set()


def test_a_row_that_does_not_parse_is_no_owner() -> None:
    broken = HEAD + f"   0: {LOOP}:9C40 {LOOP}:2257 01 00000000:00000000 00:00000000 0 uid 0 1\n"
    assert peer.owners(broken, CLIENT, VIEW) == {-1}


@pytest.fixture
def tables(tmp_path: Path) -> tuple[str, str]:
    return str(tmp_path / "tcp"), str(tmp_path / "tcp6")


def _write(path: str, text: str) -> None:
    Path(path).write_text(text, encoding="ascii")


def test_only_the_one_owner_uid_is_allowed(tables: tuple[str, str]) -> None:
    four, _ = tables
    _write(four, TABLE)
    assert peer.allowed(CLIENT, VIEW, 1000, tables)
    assert not peer.allowed(CLIENT, VIEW, 1001, tables)
    assert not peer.allowed(CLIENT, VIEW, 0, tables)
    assert not peer.allowed(("127.0.0.1", 40002), VIEW, 1000, tables)  # no row: closed
    _write(four, TABLE + row(9, f"{LOOP}:9C40", f"{LOOP}:2257", "01", 1001))
    assert not peer.allowed(CLIENT, VIEW, 1000, tables)  # two owners: closed


def test_the_verdict_says_why_a_connection_is_not_served(tables: tuple[str, str]) -> None:
    four, _ = tables
    _write(four, TABLE)
    assert peer.verdict(CLIENT, VIEW, 1000, tables) == peer.OURS
    assert peer.verdict(CLIENT, VIEW, 1001, tables) == peer.ANOTHER
    assert peer.verdict(("127.0.0.1", 40002), VIEW, 1000, tables) == peer.NO_ROW
    closing = HEAD + row(0, f"{LOOP}:9C40", f"{LOOP}:2257", "05", 0)  # FIN_WAIT2
    _write(four, closing)
    assert peer.verdict(CLIENT, VIEW, 0, tables) == peer.NO_ROW
    _write(four, TABLE + row(9, f"{LOOP}:9C40", f"{LOOP}:2257", "01", 1001))
    assert peer.verdict(CLIENT, VIEW, 1000, tables) == peer.ANOTHER  # two owners
    broken = HEAD + f"   0: {LOOP}:9C40 {LOOP}:2257 01 00000000:00000000 00:00000000 0 uid 0 1\n"
    _write(four, broken)
    assert peer.verdict(CLIENT, VIEW, 1000, tables) == peer.UNREADABLE
    os.unlink(four)
    os.mkdir(four)
    assert peer.verdict(CLIENT, VIEW, 1000, tables) == peer.UNREADABLE


def test_the_mapped_table_is_read_when_the_ipv4_one_has_no_row(tables: tuple[str, str]) -> None:
    four, six = tables
    _write(four, HEAD)
    _write(six, HEAD + row(0, f"{LOOP6}:9C40", f"{LOOP6}:2257", "01", 1000))
    assert peer.allowed(CLIENT, VIEW, 1000, tables)
    assert not peer.allowed(CLIENT, VIEW, 1001, tables)
    os.unlink(six)
    assert not peer.allowed(CLIENT, VIEW, 1000, tables)


def test_without_the_table_nothing_is_checked_but_an_unreadable_one_refuses(
    tables: tuple[str, str],
) -> None:
    four, _ = tables
    assert peer.allowed(CLIENT, VIEW, 1000, tables)  # no /proc/net/tcp (macOS, BSD)
    os.mkdir(four)  # there, but not a file that reads
    assert not peer.allowed(CLIENT, VIEW, 1000, tables)


def test_a_real_connection_is_found_with_its_owner() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        with socket.create_connection(listener.getsockname()) as client:
            accepted, _ = listener.accept()
            with accepted:
                ours, theirs = accepted.getsockname(), accepted.getpeername()
                assert theirs == client.getsockname()
                assert peer.allowed(theirs, ours)
                # Where there is no table (macOS, BSD) nothing is checked.
                checked = os.path.exists("/proc/net/tcp")
                assert peer.allowed(theirs, ours, os.getuid() + 1) is not checked


# ------------------------------------------------------------ through the server


@pytest.fixture
def client(project_root: Path) -> Iterator[Client]:
    with serving(project_root) as c:
        yield c


def test_a_connection_of_this_uid_is_served(client: Client) -> None:
    assert client.server.tables == peer.TABLES and client.server.owner == os.getuid()
    client.login()
    assert client.get("/memories").status == 200


def _raw(port: int, request: bytes, sock: socket.socket | None = None) -> bytes:
    """The whole answer to `request`, sent from `sock` (bound already) or a new socket."""
    with sock or socket.socket() as s:
        s.settimeout(30)
        s.connect(("127.0.0.1", port))
        s.sendall(request)
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
        return answer


def _assert_refused(answer: bytes, token: str) -> None:
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.split(b"\r\n")[0] == b"HTTP/1.1 403 Forbidden", answer[:200]
    assert b"Content-Type: text/plain; charset=utf-8" in head
    assert b"set-cookie" not in head.lower()
    assert body == b"Refused: this view answers only the user who started it.\n"
    assert token.encode() not in answer


def _login_request(client: Client) -> bytes:
    token = client.server.site.token
    return f"GET /?token={token} HTTP/1.1\r\nHost: 127.0.0.1:{client.port}\r\n\r\n".encode()


def test_a_connection_another_uid_owns_in_the_table_is_refused(
    client: Client, tmp_path: Path
) -> None:
    table = tmp_path / "tcp"
    client.server.tables = (str(table),)
    view = peer.hex_endpoint("127.0.0.1", client.port)
    for uid, served in ((os.getuid() + 1, False), (os.getuid(), True)):
        # The client's port is bound first, so the table can name it before it connects.
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        mine = peer.hex_endpoint(*sock.getsockname())
        table.write_text(HEAD + row(0, view, mine, "01", 0) + row(1, mine, view, "01", uid))
        answer = _raw(client.port, _login_request(client), sock)
        if served:
            assert answer.startswith(b"HTTP/1.0 303 "), answer[:200]
            assert len(client.server.site.sessions) == 1
        else:
            _assert_refused(answer, client.server.site.token)
            assert client.server.site.sessions == {}


def test_a_connection_of_another_uid_is_refused(client: Client) -> None:
    """As root, a client that is really `nobody`; otherwise the server is told
    to serve another uid than this one, and this uid's real connection is the
    stranger's. Either way the real /proc/net/tcp is read."""
    token = client.server.site.token
    request = _login_request(client)
    if os.getuid() != 0:
        client.server.owner = os.getuid() + 1
        _assert_refused(_raw(client.port, request), token)
    else:
        _assert_refused(_as_nobody(client.port, request), token)
    assert client.server.site.sessions == {}
    client.server.owner = os.getuid()
    assert _raw(client.port, request).startswith(b"HTTP/1.0 303 ")


def _as_nobody(port: int, request: bytes) -> bytes:
    """`_raw` run by the user nobody, in a forked child that hands back the answer."""
    try:
        uid = pwd.getpwnam("nobody").pw_uid
    except KeyError:
        uid = 65534
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # the child: drop to nobody, ask, write the answer, leave at once
        code = 0
        try:
            os.close(read)
            os.setgid(uid)
            os.setuid(uid)
            os.write(write, _raw(port, request))
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        answer = pipe.read()
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    return answer


def _state(mine: tuple[str, int], view: tuple[str, int]) -> set[int]:
    """The states of the rows of the client's end of its connection to the view."""
    local, remote = peer.hex_endpoint(*mine), peer.hex_endpoint(*view)
    rows = [line.split() for line in Path("/proc/net/tcp").read_text().splitlines()[1:]]
    return {int(r[3], 16) for r in rows if r[1:3] == [local, remote]}


def test_a_connection_its_client_closed_before_it_was_read_is_not_another_users(
    client: Client, capsys: pytest.CaptureFixture[str]
) -> None:
    """Many idle connections of the view's own user, closed before a thread
    got to them: each was logged as another user's."""
    server = client.server
    server.log = True
    closed, done = threading.Event(), threading.Event()
    real = server.finish_request

    def late(request: Any, client_address: Any) -> None:
        # The thread gets to the connection only once its client has hung up.
        closed.wait(10)
        try:
            real(request, client_address)
        finally:
            done.set()

    server.finish_request = late
    capsys.readouterr()
    sock = socket.create_connection(("127.0.0.1", client.port), timeout=10)
    mine = sock.getsockname()
    sock.close()
    # The view's end has had the client's FIN once the client's end waits
    # for the view's (FIN_WAIT2): the row's owner is gone, the socket is not.
    for _ in range(500):
        if peer.ESTABLISHED not in _state(mine, ("127.0.0.1", client.port)):
            break
        time.sleep(0.01)
    closed.set()
    assert done.wait(10)
    assert capsys.readouterr().err == (
        "tree-ring view: a connection closed by its client before it was read\n"
    )
    server.finish_request = real
    # A live connection of another owner is still refused and logged as such.
    assert _raw(client.port, _login_request(client)).startswith(b"HTTP/1.0 303 ")
    server.owner = os.getuid() + 1
    _assert_refused(_raw(client.port, _login_request(client)), server.site.token)
    assert capsys.readouterr().err == (
        "tree-ring view: GET / 303\ntree-ring view: a connection of another user refused 403\n"
    )


def test_without_the_table_the_view_still_serves(client: Client, tmp_path: Path) -> None:
    client.server.tables = (str(tmp_path / "no-such-table"),)
    client.login()
    assert client.get("/status").status == 200


@pytest.mark.parametrize("state", ["02", "04", "05", "06", "07", "08", "09", "0B"])
def test_a_client_that_closed_its_end_is_no_owner_even_for_root(
    tables: tuple[str, str], state: str
) -> None:
    """Once the client closes its socket the kernel may print uid 0 for the
    row; a view run as root must not take that for its own user."""
    four, _ = tables
    _write(four, HEAD + row(0, f"{LOOP}:9C40", f"{LOOP}:2257", state, 0))
    assert (
        peer.owners((HEAD + row(0, f"{LOOP}:9C40", f"{LOOP}:2257", state, 0)), CLIENT, VIEW)
        == set()
    )
    assert not peer.allowed(CLIENT, VIEW, 0, tables)
    _write(four, HEAD + row(0, f"{LOOP}:9C40", f"{LOOP}:2257", "01", 0))
    assert peer.allowed(CLIENT, VIEW, 0, tables)


def test_a_client_that_hangs_up_costs_the_terminal_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The base class prints a traceback for every failed request: a client
    hanging up mid-answer, which any local user can repeat, says nothing."""
    from typing import Any, cast

    from tree_ring.web.server import ViewServer

    view = cast(Any, None)  # handle_error reads only the error being handled
    for error in (BrokenPipeError(32, "Broken pipe"), ConnectionResetError(104, "reset")):
        try:
            raise error
        except OSError:
            ViewServer.handle_error(view, None, ("127.0.0.1", 40000))
    assert capsys.readouterr().err == ""
    try:
        raise ValueError("a page that failed")
    except ValueError:
        ViewServer.handle_error(view, None, ("127.0.0.1", 40000))
    assert capsys.readouterr().err == (
        "tree-ring view: a request failed: ValueError: a page that failed\n"
    )
