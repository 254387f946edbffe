"""Opening the person's browser on the view without the token on a command line.

A browser keeps its command line for as long as it runs, and every local
user can read it (`ps`, /proc/PID/cmdline), so the URL with the token never
goes there. `view` writes a small page that refreshes to that URL into a
folder of its own (mode 0700, the page 0600, under $XDG_RUNTIME_DIR when that
is the user's private folder, else the temporary folder) and opens the page's
`file://` address instead, which names no secret. The page goes when the
server stops. The URL printed on the terminal is the same as ever.
"""

from __future__ import annotations

import contextlib
import html
import os
import stat
import tempfile
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

PAGE = "open.html"


def _runtime_dir(env: Mapping[str, str]) -> str | None:
    """$XDG_RUNTIME_DIR when it is a folder of this user's that no one else can write to."""
    folder = env.get("XDG_RUNTIME_DIR")
    if not folder or not os.path.isabs(folder):
        return None
    try:
        info = os.stat(folder)
    except OSError:
        return None
    mine = info.st_uid == os.getuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    return folder if stat.S_ISDIR(info.st_mode) and mine else None


def redirect_page(url: str) -> str:
    """A page that goes on to `url` at once, with a link for a browser that does not."""
    quoted = html.escape(url, quote=True)
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f'<meta http-equiv="refresh" content="0; url={quoted}">\n'
        "<title>Tree Ring view</title></head>\n"
        f'<body><p><a href="{quoted}">Open the Tree Ring view</a></p></body></html>\n'
    )


def write_redirect(url: str, env: Mapping[str, str]) -> Path:
    """The redirect page to `url`, written into a new private folder."""
    folder = tempfile.mkdtemp(prefix="tree-ring-view-", dir=_runtime_dir(env))  # mode 0700
    path = Path(folder) / PAGE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            os.fchmod(handle.fileno(), 0o600)  # whatever the umask
            handle.write(redirect_page(url))
    except OSError:
        remove(path)
        raise
    return path


def remove(path: Path) -> None:
    """The redirect page and its folder, gone; whatever is gone already is fine."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    with contextlib.suppress(OSError):
        path.parent.rmdir()


def open_page(path: Path) -> None:
    """Open the page's file:// address in the browser, when there is one (the URL is printed)."""
    import threading
    import webbrowser

    address = path.as_uri()

    def run() -> None:
        with contextlib.suppress(Exception):  # no browser is fine: the URL is printed
            webbrowser.open(address)

    threading.Thread(target=run, daemon=True).start()
