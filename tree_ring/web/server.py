"""The viewer's HTTP server: one handler, the gate before every page, and the routes.

A ThreadingHTTPServer bound to 127.0.0.1, so a slow page never holds up the
next request; each request opens its own store connection (SQLite's WAL
lets it read while hooks and CLI processes write). Before a byte of a
connection is read, its other end must be a socket of the user who started
the view (`peer`); another local user's connection gets a plain 403 and is
closed. Each request then passes the gate in order: the Host header, then the
token or the session cookie, then, for a POST, the same-origin check and the
CSRF value. Only then does a page or an action run.

The log line of a request is its method, its path without the query (which
can hold the token or a search) and its status; never a header, a cookie or
a form value. The path is read as UTF-8, the view's token is cut from it
wherever it stands (in any spelling the view would take it in), and every
value is escaped as an error line quotes it, so a request cannot write
control or bidi characters to the terminal. Logging is off unless asked for.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlencode, urlsplit

from tree_ring.model.errors import TreeRingError
from tree_ring.model.text import error_safe
from tree_ring.web import actions, frame, gate, inbox, markup, pages, peer, queue, status
from tree_ring.web.site import Session, Site

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    Page = Callable[[Site, Session, Mapping[str, str]], str]

ROUTES: dict[str, Page] = {
    "/": pages.rings_page,
    "/rings": pages.rings_page,
    "/memories": pages.memories_page,
    "/memory": pages.memory_page,
    "/review": queue.review_page,
    "/inbox": inbox.inbox_page,
    "/tree": status.tree_page,
    "/status": status.status_page,
}


class ViewServer(ThreadingHTTPServer):
    daemon_threads = True
    # SO_REUSEADDR: a view restarted on its port binds at once, not after the
    # minute its last connections wait out in TIME-WAIT. On Linux and the
    # BSDs it still lets no second socket listen there, so a second view on a
    # port in use fails at start; on Windows it would, so it is not set there.
    allow_reuse_address = sys.platform != "win32"

    def __init__(self, site: Site, port: int, *, log: bool = False) -> None:
        self.site = site
        self.log = log
        # Whose connections are served, and where their owners are read.
        self.owner = os.getuid()
        self.tables: tuple[str, ...] = peer.TABLES
        super().__init__((gate.LOOPBACK, port), Handler)
        site.port = self.server_address[1]

    @property
    def url(self) -> str:
        return f"http://{gate.LOOPBACK}:{self.site.port}/"

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that hung up mid-answer costs nothing on the person's
        terminal (the base class prints a traceback for each, and any local
        user could fill the screen with them); anything else is still said,
        in one line."""
        error = sys.exc_info()[1]
        if isinstance(error, ConnectionError | TimeoutError):
            return
        sys.stderr.write(
            f"tree-ring view: a request failed: {type(error).__name__}: {error_safe(str(error))}\n"
        )


def _query(raw: str) -> dict[str, str] | None:
    """The fields of a query or form, None when it has more than 64."""
    # The last value of a repeated key wins; blank values are kept as "".
    try:
        return dict(parse_qsl(raw, keep_blank_values=True, max_num_fields=64))
    except ValueError:  # parse_qsl's "Max number of fields exceeded"
        return None


class Handler(BaseHTTPRequestHandler):
    server: ViewServer  # pyright: ignore[reportIncompatibleVariableOverride] - it only ever runs in one
    server_version = "TreeRing"
    sys_version = ""
    # Seconds a connection may sit without sending: a request line never
    # finished must not hold its thread for good.
    timeout = 30

    # ------------------------------------------------------------ the peer

    def handle(self) -> None:
        server = self.server
        try:
            ours = self.connection.getsockname()[:2]
        except OSError:  # the client is gone already
            return
        found = peer.verdict(self.client_address[:2], ours, server.owner, server.tables)
        if found == peer.OURS:
            super().handle()
        else:
            self._refuse_peer(found)

    def _refuse_peer(self, found: str) -> None:
        """A plain 403 to a connection not found to be this user's, sent
        before reading its request; with --log, a line saying why."""
        if self.server.log:
            sys.stderr.write(f"tree-ring view: {self._refused_why(found)}\n")
        body = b"Refused: this view answers only the user who started it.\n"
        head = (
            "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        )
        conn = self.connection
        with contextlib.suppress(OSError):
            conn.sendall(head.encode("ascii") + body)
            conn.shutdown(socket.SHUT_WR)
            # Read what the client sent until it hangs up: closing with its
            # request unread would reset the connection, and the client could
            # lose the answer.
            conn.settimeout(2)
            for _ in range(16):
                if not conn.recv(4096):
                    break

    def _refused_why(self, found: str) -> str:
        """The log line's words for a refused connection. With no live row
        for its client, the likeliest cause is a client that hung up before a
        thread got to it (the kernel keeps no owner for a closed end): asked
        of the socket itself, so that one is not taken for another user's."""
        if found == peer.ANOTHER:
            return "a connection of another user refused 403"
        if found == peer.NO_ROW and _hung_up(self.connection):
            return "a connection closed by its client before it was read"
        if found == peer.NO_ROW:
            return "a connection whose owner was not found refused 403"
        return "a connection whose owner could not be read refused 403"

    # ------------------------------------------------------------ logging

    def log_message(self, format: str, *args: object) -> None:
        """Nothing the base class would put together: its lines hold the query."""

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        if self.server.log:
            sys.stderr.write(f"tree-ring view: {self._logged()} {error_safe(str(code))}\n")

    def _logged(self) -> str:
        """The method and path of this request as its log line gives them."""
        # A request line that did not parse leaves no path (and maybe no method).
        path = getattr(self, "path", None)
        return (
            f"{error_safe(self.command or '-')} "
            f"{_logged_path(path, self.server.site.token) if path else '-'}"
        )

    # ------------------------------------------------------------ replies

    def _send(self, code: int, body: str, extra: Mapping[str, str] | None = None) -> None:
        data = body.encode("utf-8")
        self.send_response(code)
        for key, value in gate.headers(markup.CSP).items():
            self.send_header(key, value)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _refuse(self, code: int, why: str) -> None:
        body = markup.page(
            "Refused · Tree Ring",
            f'<h1>Refused</h1><p class="error" id="refused">{markup.text(why)}</p>',
        )
        self._send(code, body)

    def _failed(self, exc: Exception) -> str:
        """The page for a request that broke on something unexpected, with a
        line on stderr naming it; the server goes on serving."""
        from tree_ring.guard import withhold

        sys.stderr.write(
            f"tree-ring view: {self._logged()} failed: "
            f"{type(exc).__name__}: {error_safe(withhold(str(exc))[:300])}\n"
        )
        return markup.page(
            "Error · Tree Ring",
            '<h1>Something went wrong</h1><p class="error" id="error">'
            "This request could not be answered. Reload the page; if it fails again, "
            "run <code>tree-ring doctor</code>.</p>",
        )

    def _redirect(self, location: str, extra: Mapping[str, str] | None = None) -> None:
        self._send(303, "", {"Location": location, **(extra or {})})

    # ------------------------------------------------------------ the gate

    def _session(self) -> Session | None:
        """The session, once the Host and the token or cookie pass; else the refusal is sent."""
        site = self.server.site
        if not gate.host_ok(self.headers.get("Host"), site.port):
            self._refuse(
                403, "This server answers only to its own address (127.0.0.1 and its port)."
            )
            return None
        parts = urlsplit(self.path)
        query = _query(parts.query)
        if query is None:
            self._refuse(400, "That address has too many fields.")
            return None
        if "token" in query:
            if not gate.same(query["token"], site.token):
                self._refuse(
                    403, "That token is not this run's. Open the URL `tree-ring view` printed."
                )
                return None
            sid = site.new_session()
            rest = {k: v for k, v in query.items() if k != "token"}
            target = gate.safe_back(parts.path) + (f"?{urlencode(rest)}" if rest else "")
            cookie = {"Set-Cookie": gate.set_cookie(site.port, sid)}
            if gate.cross_site(self.headers.get("Sec-Fetch-Site")):
                # Followed from elsewhere (the page `view` opens from a file):
                # the browser holds the SameSite=Strict cookie back from every
                # request of that navigation, redirects included, so the page
                # goes on from here, where the next request is this site's own.
                self._send(200, _onward(target), cookie)
            else:
                self._redirect(target, cookie)
            return None
        session = site.session(gate.session_id(self.headers.get("Cookie"), site.port))
        if session is None:
            self._refuse(403, "This page needs the link `tree-ring view` printed (with its token).")
        return session

    # ------------------------------------------------------------ methods

    def do_HEAD(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        session = self._session()
        if session is None:
            return
        parts = urlsplit(self.path)
        page = ROUTES.get(parts.path)
        if page is None:
            self._refuse(404, "No such page.")
            return
        site = self.server.site
        try:
            code, body = 200, page(site, session, _query(parts.query) or {})
        except frame.NotFoundPage as exc:
            code, body = 404, frame.frame(site, session, "", "Not found", _error(str(exc)))
        except TreeRingError as exc:
            code, body = 400, frame.frame(site, session, "", "Error", _error(str(exc)))
        except Exception as exc:  # one broken page must not take the server down
            code, body = 500, self._failed(exc)
        self._send(code, body)

    def do_POST(self) -> None:
        session = self._session()
        if session is None:
            return
        site = self.server.site
        if not gate.same_origin(self.headers.get("Origin"), self.headers.get("Referer"), site.port):
            self._refuse(403, "A change must come from this server's own pages.")
            return
        try:
            length = int(self.headers.get("Content-Length") or "0")
        except ValueError:
            length = -1
        if length < 0 or length > gate.MAX_BODY:
            self._refuse(413, "That form is too large.")
            return
        form = _query(self.rfile.read(length).decode("utf-8", "replace"))
        if form is None:
            self._refuse(400, "That form has too many fields.")
            return
        if not gate.same(form.get("csrf"), session.csrf):
            self._refuse(403, "That form is stale or not from this session; reload the page.")
            return
        path = urlsplit(self.path).path
        back = gate.safe_back(form.get("back"))
        if path == "/sensitive":
            session.show_sensitive = not session.show_sensitive
            self._redirect(back)
        elif path == "/act":
            try:
                session.notice, session.notice_is_error = actions.act(site, form)
            except Exception as exc:  # as in do_GET
                self._send(500, self._failed(exc))
                return
            self._redirect(back)
        else:
            self._refuse(404, "No such action.")


def _logged_path(raw: str, token: str) -> str:
    """The path of the request target `raw` as a log line gives it: without
    its query, read as UTF-8 (the server hands it over as Latin-1), the token
    replaced, at most 200 characters, and escaped like an error line."""
    path = urlsplit(raw.encode("latin-1", "replace").decode("utf-8", "backslashreplace")).path
    return error_safe(_token_in(token).sub("[token]", path)[:200])


def _token_in(token: str) -> re.Pattern[str]:
    """The token as the view would read it from a query: each character as
    itself or percent-encoded (in either case of hex digit), matched without
    regard to case, so no spelling of it reaches the log."""
    return re.compile(
        "".join(f"(?:{re.escape(char)}|%{ord(char):02x})" for char in token), re.IGNORECASE
    )


def _hung_up(conn: socket.socket) -> bool:
    """Whether the client has closed its end: nothing left to read but the
    end of the stream (or a reset). Asked without waiting."""
    timeout = conn.gettimeout()
    try:
        conn.setblocking(False)
        return conn.recv(1, socket.MSG_PEEK) == b""
    except BlockingIOError:  # still there, and has sent nothing yet
        return False
    except OSError:  # reset, or otherwise gone
        return True
    finally:
        with contextlib.suppress(OSError):
            conn.settimeout(timeout)


def _error(message: str) -> str:
    from tree_ring.guard import withhold

    return f'<h1>Not shown</h1><p class="error" id="error">{markup.text(withhold(message))}</p>'


def _onward(target: str) -> str:
    """A page that goes on to `target` (a path of this server) at once."""
    to = markup.text(target)
    return markup.page(
        "Tree Ring",
        f'<p><a href="{to}" id="onward">Open the view</a></p>',
        head=f'<meta http-equiv="refresh" content="0; url={to}">',
    )
