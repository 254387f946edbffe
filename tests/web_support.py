"""A `tree-ring view` server in this process, and a small HTTP client for it.

The client speaks to the server as a browser would: it exchanges the run's
token for the session cookie once, sends the Host, Origin and Referer a page
of this server would send, and reads the CSRF value out of a page's form.
Each can be left out or replaced, to see the server refuse.
"""

from __future__ import annotations

import http.client
import re
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

from tree_ring.model.record import Memory
from tree_ring.store import rows
from tree_ring.store.db import Store
from tree_ring.web.server import ViewServer
from tree_ring.web.site import Site


@dataclass
class Reply:
    status: int
    body: str
    headers: dict[str, str]


class Client:
    def __init__(self, server: ViewServer) -> None:
        self.server = server
        self.port = server.site.port
        self.cookie = ""
        self.origin = f"http://127.0.0.1:{self.port}"

    def request(
        self,
        method: str,
        path: str,
        *,
        body: str | None = None,
        headers: Mapping[str, str] | None = None,
        cookie: bool = True,
    ) -> Reply:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        sent = {"Host": f"127.0.0.1:{self.port}"}
        if cookie and self.cookie:
            sent["Cookie"] = self.cookie
        if body is not None:
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        sent.update(headers or {})
        try:
            conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            for key, value in sent.items():
                conn.putheader(key, value)
            data = body.encode("utf-8") if body is not None else None
            if data is not None:
                conn.putheader("Content-Length", str(len(data)))
            conn.endheaders(data)
            reply = conn.getresponse()
            text = reply.read().decode("utf-8")
            return Reply(reply.status, text, {k.lower(): v for k, v in reply.getheaders()})
        finally:
            conn.close()

    def login(self) -> Reply:
        reply = self.request("GET", f"/?token={self.server.site.token}", cookie=False)
        assert reply.status == 303, reply
        self.cookie = reply.headers["set-cookie"].split(";")[0]
        return reply

    def get(self, path: str, **kwargs: object) -> Reply:
        return self.request("GET", path, **kwargs)  # type: ignore[arg-type] - request's keywords

    def csrf(self, path: str = "/review") -> str:
        page = self.get(path)
        found = re.search(r'name="csrf" value="([^"]+)"', page.body)
        assert found, page.body[:500]
        return found.group(1)

    def post(
        self,
        path: str,
        form: Mapping[str, str],
        *,
        csrf: str | None = None,
        origin: str | None = "same",
        headers: Mapping[str, str] | None = None,
    ) -> Reply:
        fields = dict(form)
        if csrf != "":
            fields["csrf"] = csrf or self.csrf()
        sent: dict[str, str] = {}
        if origin == "same":
            sent["Origin"] = self.origin
        elif origin is not None:
            sent["Origin"] = origin
        sent.update(headers or {})
        return self.request("POST", path, body=urlencode(fields), headers=sent)


@contextmanager
def serving(root: Path, environ: Mapping[str, str] | None = None) -> Iterator[Client]:
    site = Site.open(str(root), environ or {})
    server = ViewServer(site, 0)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield Client(server)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def insert(root: Path, memories: list[Memory]) -> None:
    """Rows as a hand-edited or imported store holds them, past the write path's checks."""
    with Store.open(root) as store, store.write() as db:
        rows.insert_many(db, memories)
