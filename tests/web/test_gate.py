"""The viewer refuses every request that does not come from its own pages in one browser."""

from __future__ import annotations

import io
import re
import socket
import time
from collections.abc import Iterator
from contextlib import redirect_stderr
from pathlib import Path

import pytest
from helpers import CliRunner
from web_support import Client, serving

from tree_ring.web import gate


@pytest.fixture
def client(project_root: Path, run_cli: CliRunner) -> Iterator[Client]:
    with serving(project_root) as c:
        yield c


def test_no_token_no_page(client: Client) -> None:
    for path in ("/", "/memories", "/review", "/status", "/memory?id=x"):
        reply = client.get(path)
        assert reply.status == 403, path
        assert 'id="refused"' in reply.body
        assert client.server.site.token not in reply.body


def test_a_wrong_token_is_refused_and_gets_no_cookie(client: Client) -> None:
    reply = client.get("/?token=" + "A" * 43, cookie=False)
    assert reply.status == 403
    assert "set-cookie" not in reply.headers


def test_the_token_becomes_a_cookie_and_leaves_the_address(client: Client) -> None:
    reply = client.request("GET", f"/memories?token={client.server.site.token}&ring=scar")
    assert reply.status == 303
    assert reply.headers["location"] == "/memories?ring=scar"
    cookie = reply.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert client.server.site.token not in cookie
    client.cookie = cookie.split(";")[0]
    page = client.get("/memories?ring=scar")
    assert page.status == 200
    assert client.server.site.token not in page.body


@pytest.mark.parametrize("fetch_site", ["cross-site", "same-site", "CROSS-SITE"])
def test_a_token_followed_from_elsewhere_goes_on_from_a_page_of_the_view(
    client: Client, fetch_site: str
) -> None:
    # The browser holds a SameSite=Strict cookie back from every request of a
    # navigation another site or a file started, so a redirect would land refused.
    token = client.server.site.token
    reply = client.request(
        "GET", f"/memories?token={token}&ring=scar", headers={"Sec-Fetch-Site": fetch_site}
    )
    assert reply.status == 200 and "location" not in reply.headers
    assert '<meta http-equiv="refresh" content="0; url=/memories?ring=scar">' in reply.body
    assert '<a href="/memories?ring=scar" id="onward">' in reply.body
    assert token not in reply.body
    client.cookie = reply.headers["set-cookie"].split(";")[0]
    assert client.get("/memories?ring=scar").status == 200


@pytest.mark.parametrize("fetch_site", ["none", "same-origin"])
def test_a_token_the_person_typed_or_followed_here_is_a_redirect(
    client: Client, fetch_site: str
) -> None:
    reply = client.request(
        "GET", f"/?token={client.server.site.token}", headers={"Sec-Fetch-Site": fetch_site}
    )
    assert reply.status == 303 and reply.headers["location"] == "/"
    assert reply.headers["set-cookie"].startswith(f"tree_ring_{client.port}=")


def test_a_made_up_cookie_is_refused(client: Client) -> None:
    client.cookie = f"tree_ring_{client.port}=" + "B" * 43
    assert client.get("/").status == 403


@pytest.mark.parametrize(
    "host",
    [
        "evil.example",
        "evil.example:{port}",
        "127.0.0.1:1",
        "127.0.0.2:{port}",
        "",
        "0.0.0.0:{port}",
    ],
)
def test_a_foreign_host_is_refused_even_with_the_session(client: Client, host: str) -> None:
    client.login()
    assert client.get("/").status == 200
    reply = client.get("/", headers={"Host": host.format(port=client.port)})
    assert reply.status == 403
    assert "its own address" in reply.body


def test_a_foreign_host_cannot_log_in_either(client: Client) -> None:
    token = client.server.site.token
    reply = client.get(f"/?token={token}", headers={"Host": "rebound.example"}, cookie=False)
    assert reply.status == 403 and "set-cookie" not in reply.headers


def _pending(run_cli: CliRunner) -> str:
    agent = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s1"}
    out = run_cli(
        "--json", "remember", "Heartwood from an agent", "--ring", "heartwood", environ=agent
    )
    assert '"trust": "pending"' in out.out
    return re.search(r'"id": "([^"]+)"', out.out).group(1)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("origin", "referer"),
    [
        ("http://evil.example", None),
        ("null", None),
        ("http://127.0.0.1:1", None),
        (None, "http://evil.example/review"),
        (None, None),
    ],
)
def test_a_cross_origin_post_changes_nothing(
    client: Client, run_cli: CliRunner, origin: str | None, referer: str | None
) -> None:
    memory_id = _pending(run_cli)
    client.login()
    headers = {"Referer": referer} if referer else {}
    reply = client.post(
        "/act", {"action": "approve", "id": memory_id}, origin=origin, headers=headers
    )
    assert reply.status == 403
    assert memory_id in client.get("/review").body
    assert '"trust": "pending"' in run_cli("--json", "show", memory_id).out


def test_a_same_origin_referer_alone_is_enough(client: Client, run_cli: CliRunner) -> None:
    memory_id = _pending(run_cli)
    client.login()
    referer = f"http://127.0.0.1:{client.port}/review"
    reply = client.post(
        "/act", {"action": "approve", "id": memory_id}, origin=None, headers={"Referer": referer}
    )
    assert reply.status == 303
    assert '"trust": "accepted"' in run_cli("--json", "show", memory_id).out


@pytest.mark.parametrize("csrf", ["", "wrong-value"])
def test_a_post_without_the_sessions_csrf_changes_nothing(
    client: Client, run_cli: CliRunner, csrf: str
) -> None:
    memory_id = _pending(run_cli)
    client.login()
    reply = client.post("/act", {"action": "approve", "id": memory_id}, csrf=csrf)
    assert reply.status == 403
    assert '"trust": "pending"' in run_cli("--json", "show", memory_id).out


def test_another_sessions_csrf_does_not_pass(client: Client, run_cli: CliRunner) -> None:
    memory_id = _pending(run_cli)
    other = Client(client.server)
    other.login()
    theirs = other.csrf()
    client.login()
    reply = client.post("/act", {"action": "approve", "id": memory_id}, csrf=theirs)
    assert reply.status == 403


def test_get_never_changes_anything(client: Client, run_cli: CliRunner) -> None:
    memory_id = _pending(run_cli)
    client.login()
    reply = client.get(f"/act?action=approve&id={memory_id}")
    assert reply.status == 404
    assert '"trust": "pending"' in run_cli("--json", "show", memory_id).out


def test_every_page_carries_the_strict_policy(client: Client) -> None:
    client.login()
    for path in ("/", "/memories", "/review", "/tree", "/status"):
        reply = client.get(path)
        assert reply.status == 200, path
        csp = reply.headers["content-security-policy"]
        assert csp.startswith("default-src 'none';")
        assert "script-src" not in csp and "unsafe-inline" not in csp
        assert reply.headers["x-frame-options"] == "DENY"
        assert "<script" not in reply.body


def test_the_log_holds_no_token_query_or_cookie(project_root: Path) -> None:
    err = io.StringIO()
    with redirect_stderr(err), serving(project_root) as c:
        c.server.log = True
        c.login()
        c.get("/memories?q=secret-search-words")
        c.post("/act", {"action": "approve", "id": "mem_x", "reason": "private words"})
        token, cookie = c.server.site.token, c.cookie.split("=")[1]
    log = err.getvalue()
    assert "GET /memories 200" in log and "POST /act 303" in log
    for leaked in (token, cookie, "secret-search-words", "private words", "csrf"):
        assert leaked not in log


def _raw_answer(port: int, request: bytes) -> bytes:
    """The whole answer to `request`, sent as these bytes and read until the server closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def test_the_log_escapes_what_a_request_line_holds_and_cuts_the_token(
    project_root: Path,
) -> None:
    """A request line is sent as raw bytes: its path reaches the log only
    escaped, and the token, wherever it stands in the path and however the
    view would read it, never reaches it at all."""
    err = io.StringIO()
    with redirect_stderr(err), serving(project_root) as c:
        c.server.log = True
        token, port = c.server.site.token, c.port
        host = f"Host: 127.0.0.1:{port}\r\n\r\n".encode()
        # The token's first character percent-encoded in upper- and lower-case
        # hex, and the whole of it in the other case of its letters.
        first = f"%{ord(token[0]):02X}"
        paths = [
            b"/\x1b]0;pwned\x07?x=1",
            "/\u202eevil\u2066\u2028x\u200b".encode(),
            b"/bad\xff",
            f"/x/{token}/y".encode(),
            f"/{first}{token[1:]}".encode(),
            f"/{first.lower()}{token[1:]}".encode(),
            f"/a{token.swapcase()}b".encode(),
            b"/a\rb",
        ]
        for path in paths:
            _raw_answer(port, b"GET " + path + b" HTTP/1.1\r\n" + host)
        _raw_answer(port, b"G\x1b[2JT / HTTP/1.1\r\n" + host)
    assert err.getvalue().splitlines() == [
        "tree-ring view: GET /\\x1b]0;pwned\\x07 403",
        "tree-ring view: GET /\\u202eevil\\u2066\\u2028x\\u200b 403",
        "tree-ring view: GET /bad\\xff 403",
        "tree-ring view: GET /x/[token]/y 403",
        "tree-ring view: GET /[token] 403",
        "tree-ring view: GET /[token] 403",
        "tree-ring view: GET /a[token]b 403",
        # A carriage return splits the request line: it does not parse, and
        # nothing of it is logged.
        "tree-ring view: - - 400",
        "tree-ring view: G\\x1b[2JT / 501",
    ]


@pytest.mark.parametrize(
    ("back", "expected"),
    [
        ("/review", "/review"),
        ("//evil.example/", "/"),
        ("http://evil.example/", "/"),
        ("/\\evil.example", "/"),
        ("/ok\r\nSet-Cookie: x=1", "/"),
        (None, "/"),
    ],
)
def test_a_redirect_stays_on_this_server(back: str | None, expected: str) -> None:
    assert gate.safe_back(back) == expected


def test_a_page_that_breaks_answers_500_and_the_server_goes_on(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tree_ring.web import server

    def broken(*_: object) -> str:
        raise RuntimeError("disk went away")

    monkeypatch.setitem(server.ROUTES, "/status", broken)
    client.login()
    errors = io.StringIO()
    with redirect_stderr(errors):
        reply = client.get("/status")
    assert reply.status == 500
    assert "tree-ring doctor" in reply.body and "disk went away" not in reply.body
    assert "GET /status failed: RuntimeError: disk went away" in errors.getvalue()
    assert client.get("/memories").status == 200


def test_a_form_that_breaks_answers_500_and_the_server_goes_on(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The same boundary for a POST: an unexpected error is a 500 page, never a
    # redirect that would pass the failure off as done.
    from tree_ring.web import actions

    def broken(*_: object) -> tuple[str, bool]:
        raise RuntimeError("disk went away")

    monkeypatch.setattr(actions, "act", broken)
    client.login()
    errors = io.StringIO()
    with redirect_stderr(errors):
        reply = client.post("/act", {"action": "approve", "id": "mem_x", "back": "/review"})
    assert reply.status == 500 and "location" not in reply.headers
    assert "tree-ring doctor" in reply.body and "disk went away" not in reply.body
    assert "POST /act failed: RuntimeError: disk went away" in errors.getvalue()
    assert client.get("/review").status == 200


def test_too_many_fields_are_refused_quietly_and_the_server_goes_on(client: Client) -> None:
    # parse_qsl raises past 64 fields; before login and after, on GET and on
    # POST, that is a 400 page, with nothing on stderr.
    many = "&".join(f"a{i}=1" for i in range(65))
    errors = io.StringIO()
    with redirect_stderr(errors):
        before = client.get(f"/?{many}", cookie=False)
        client.login()
        after = client.get(f"/memories?{many}")
        form = client.request("POST", "/act", body=many, headers={"Origin": client.origin})
    assert (before.status, after.status, form.status) == (400, 400, 400)
    assert "too many fields" in before.body and "too many fields" in form.body
    assert errors.getvalue() == ""
    assert client.get(f"/memories?{'&'.join(f'a{i}=1' for i in range(64))}").status == 200


def test_a_request_never_finished_is_let_go(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A request line with no end must not hold its thread for good.
    from tree_ring.web.server import Handler

    assert Handler.timeout is not None and 0 < Handler.timeout <= 60
    monkeypatch.setattr(Handler, "timeout", 1)
    with socket.create_connection(("127.0.0.1", client.port), timeout=30) as s:
        s.sendall(b"GET / HTTP/1.1\r\n")
        started = time.monotonic()
        assert s.recv(1024) == b""  # closed by the server, not by our timeout
        assert time.monotonic() - started < 15
