"""`tree-ring view` and `tree-ring report`: their arguments, and errors as one line.

`tree_ring.__main__` sends these two verbs here before the CLI loads, since
the rooms of the top floor do not import one another; the flags, the JSON
convention and the error lines are the CLI's.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import re
import sys

from tree_ring.model import outputs, project
from tree_ring.model.errors import TreeRingError, UsageError
from tree_ring.model.parsers import UsageParser
from tree_ring.model.text import error_safe

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Generator, Mapping, Sequence
    from pathlib import Path

VIEW_HELP = "serve this project's memory to your browser on 127.0.0.1 (Ctrl-C stops it)"
REPORT_HELP = "write the project's memory as one self-contained HTML file"


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--root", help="project directory (TREE_RING_ROOT)")
    p.add_argument("--json", action="store_true", help="print one JSON document")


def parser(verb: str) -> argparse.ArgumentParser:
    if verb == "view":
        p = UsageParser(prog="tree-ring view", description=VIEW_HELP)
        p.add_argument(
            "--port", type=int, default=0, help="port to listen on (default: a free one)"
        )
        p.add_argument(
            "--no-open", action="store_true", help="print the URL; do not open a browser"
        )
        p.add_argument(
            "--log", action="store_true", help="log each request's method, path and status"
        )
    else:
        p = UsageParser(prog="tree-ring report", description=REPORT_HELP)
        p.add_argument("--html", required=True, metavar="FILE", help="the file to write")
        p.add_argument(
            "--now", metavar="TIME", help="read the store as of TIME (default: now); same bytes"
        )
    _common(p)
    return p


def _code(exc: TreeRingError) -> str:
    name = type(exc).__name__.removesuffix("Error") or "internal"
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def main(words: Sequence[str], environ: Mapping[str, str] | None = None) -> int:
    """Run `view` or `report` (the first word) and return the exit code."""
    # The launcher holds off garbage collection for a short command; a server runs for hours.
    gc.enable()
    env = os.environ if environ is None else environ
    verb, rest = words[0], list(words[1:])
    as_json = "--json" in rest
    try:
        args = parser(verb).parse_args(rest)
        as_json = bool(args.json)
        root = project.locate_str(args.root, env)
        if verb == "report":
            return _report(args, root, env)
        return _view(args, root, env)
    except TreeRingError as exc:
        from tree_ring.guard import withhold

        message = error_safe(withhold(str(exc)))  # one line, whatever a value it quotes holds
        if as_json:
            error = {"code": _code(exc), "message": message, "exit": exc.exit_code}
            print(json.dumps({"error": error}, sort_keys=True), file=sys.stderr)
        else:
            print(f"error: {message}", file=sys.stderr)
        return exc.exit_code


def _emit(args: argparse.Namespace, data: dict[str, object], text: str) -> None:
    if args.json:
        sys.stdout.write(json.dumps(data, sort_keys=True) + "\n")
    else:
        sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _report(args: argparse.Namespace, root: str, env: Mapping[str, str]) -> int:
    from tree_ring.api.project import Project
    from tree_ring.model.record import now_iso, option_time
    from tree_ring.web import report

    now = option_time(args.now, "--now") or now_iso()
    outputs.check_file(args.html, env)  # before any work: a mistyped path costs nothing
    with Project.open(root, env) as opened:
        project_id = opened.project_id
        # An agent's report covers what its recall reads; a person's, every partition.
        html = report.build(
            opened.store,
            project_id,
            now,
            reader=opened.reader,
            elsewhere=opened.forgotten_elsewhere(),
        )
    size = outputs.write_text(args.html, html, env)
    _emit(
        args,
        {
            "command": "report",
            "project": project_id,
            "written": [args.html],
            "bytes": size,
            "now": now,
        },
        f"wrote {args.html} ({size:,} bytes, as of {now})",
    )
    return 0


def _view(args: argparse.Namespace, root: str, env: Mapping[str, str]) -> int:
    from tree_ring.web import browser
    from tree_ring.web.server import ViewServer
    from tree_ring.web.site import Site

    if not 0 <= args.port <= 65535:
        raise UsageError("--port takes 0 (a free port) to 65535")
    site = Site.open(root, env)
    try:
        server = ViewServer(site, args.port, log=args.log)
    except OSError as exc:
        raise UsageError(
            f"cannot listen on 127.0.0.1:{args.port} ({exc.strerror or exc}); "
            "choose another --port or leave it out"
        ) from None
    url = f"{server.url}?token={site.token}"
    page = None
    try:
        with server:
            _emit(
                args,
                {"command": "view", "project": site.project, "url": url},
                f"Tree Ring view of {site.project}: {url}\n(Ctrl-C stops it)",
            )
            if not args.no_open:
                page = _page(url, env)
            with contextlib.suppress(KeyboardInterrupt), _stopped_by_term():
                if page is not None:
                    browser.open_page(page)
                server.serve_forever()
    finally:
        if page is not None:
            browser.remove(page)
    return 0


def _page(url: str, env: Mapping[str, str]) -> Path | None:
    """The page that sends the browser on to `url`; None, with a line on
    stderr, when it cannot be written (the printed URL still works)."""
    from tree_ring.web import browser

    try:
        return browser.write_redirect(url, env)
    except OSError as exc:
        print(
            f"tree-ring view: cannot write the page that opens the browser "
            f"({exc.strerror or exc}); open the URL above",
            file=sys.stderr,
        )
        return None


@contextlib.contextmanager
def _stopped_by_term() -> Generator[None]:
    """SIGTERM stops the server as Ctrl-C does, so the browser's page is removed."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)
