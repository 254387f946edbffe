"""Who may talk to the viewer, and which requests may change anything.

- The server listens on 127.0.0.1 only, and every request's `Host` must name
  that address (or `localhost`) and the run's port: a page on another site
  whose name an attacker re-points at 127.0.0.1 (DNS rebinding) sends its own
  name and is refused.
- The run's random token comes once, in the URL `view` prints. The server
  answers it with a session cookie (HttpOnly, SameSite=Strict, named for the
  port so two runs do not clobber each other) and a redirect to the same page
  without the token, so it stays out of the address bar, the history of later
  pages, and every Referer. Every other request needs the cookie. When the
  browser says another site or a file led it there (`Sec-Fetch-Site`), the
  answer is a page that goes on by itself instead of a redirect: the browser
  holds a SameSite=Strict cookie back from the whole of such a navigation.
- A change is a POST with the session's CSRF value in the form and an
  `Origin` (or, lacking one, a `Referer`) of this very server; GET never
  changes anything.

Comparisons of secrets are constant-time.
"""

from __future__ import annotations

import hmac
from urllib.parse import urlsplit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

LOOPBACK = "127.0.0.1"
HOST_NAMES = (LOOPBACK, "localhost")
# A form posts a few short fields; anything bigger is not one of ours.
MAX_BODY = 64 * 1024


def cookie_name(port: int) -> str:
    return f"tree_ring_{port}"


def host_ok(host: str | None, port: int) -> bool:
    """The Host header names this server: the loopback address (or localhost) and its port."""
    if not host:
        return False
    return host.strip().lower() in {f"{name}:{port}" for name in HOST_NAMES}


def origins(port: int) -> set[str]:
    return {f"http://{name}:{port}" for name in HOST_NAMES}


def same_origin(origin: str | None, referer: str | None, port: int) -> bool:
    """The request came from one of this server's pages: its Origin, else its Referer."""
    allowed = origins(port)
    if origin is not None:
        return origin.strip().lower() in allowed
    if not referer:
        return False
    parts = urlsplit(referer.strip())
    return f"{parts.scheme}://{parts.netloc}".lower() in allowed


def cross_site(fetch_site: str | None) -> bool:
    """A browser's `Sec-Fetch-Site` says another site (or a file) started this request."""
    return fetch_site is not None and fetch_site.strip().lower() not in {"none", "same-origin"}


def same(given: str | None, expected: str) -> bool:
    """`given` equals the secret `expected`, compared in constant time."""
    if not given:
        return False
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


def session_id(cookie_header: str | None, port: int) -> str | None:
    """The session cookie's value for this port, from a Cookie header."""
    if not cookie_header:
        return None
    name = cookie_name(port)
    for part in cookie_header.split(";"):
        key, sep, value = part.strip().partition("=")
        if sep and key == name:
            return value
    return None


def set_cookie(port: int, sid: str) -> str:
    return f"{cookie_name(port)}={sid}; HttpOnly; SameSite=Strict; Path=/"


def safe_back(path: str | None, default: str = "/") -> str:
    """A redirect target that stays on this server: a path, never another host."""
    if not path or not path.startswith("/") or path.startswith("//") or "\\" in path:
        return default
    if any(ord(c) < 0x21 or ord(c) == 0x7F for c in path):
        return default
    return path


def headers(csp: str) -> Mapping[str, str]:
    """The headers every page carries."""
    return {
        "Content-Security-Policy": csp,
        "X-Content-Type-Options": "nosniff",
        "X-Frame-Options": "DENY",
        # Same-origin: forms still send Origin and Referer here, nothing leaks elsewhere.
        "Referrer-Policy": "same-origin",
        "Cache-Control": "no-store",
        "Cross-Origin-Opener-Policy": "same-origin",
        "Cross-Origin-Resource-Policy": "same-origin",
    }
