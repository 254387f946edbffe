"""What the two mock model servers share: scripted turns, a JSONL request log,
and a stdlib HTTP server on 127.0.0.1 (port 0) run on a daemon thread.

A script is a list of `Turn`s, consumed in order by the agent loop's model
requests, which are the ones that offer tools; side requests (titles,
summaries) get `side_text` and never consume a turn. A turn with `expect` waits
for a request whose raw body contains that text; until then requests get
`fallback_text` and the turn stays queued, which keeps the script in step when
a CLI makes extra calls. A turn's `shell` may be a function of the request
body, so a scripted model can run a command it read in that request (the
capture command a stop hook wrote into its reason).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

Body = dict[str, Any]
MAX_WAITS = 10
ToolCall = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class Turn:
    """One scripted model reply: optional text, then optional tool calls."""

    text: str = ""
    # A shell command, or a function that reads it from the request body and
    # raises ValueError when it cannot.
    shell: str | Callable[[Body], str] | None = None
    # Any other tool call: (tool name, arguments), or a function that builds
    # it from the request body.
    tool: ToolCall | Callable[[Body], ToolCall] | None = None
    expect: str | None = None
    # While `expect` is unmet, answer with this shell command instead of the
    # fallback text, so the agent loop goes on (a fallback answer ends the
    # turn); at most MAX_WAITS times.
    wait_shell: str | None = None

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Turn:
        tool = obj.get("tool")
        return cls(
            text=obj.get("text", ""),
            shell=obj.get("shell", obj.get("bash")),
            tool=(tool["name"], tool.get("input", {})) if tool else None,
            expect=obj.get("expect"),
        )


@dataclass(frozen=True)
class Reply:
    """A resolved turn: what the dialect turns into its wire format."""

    text: str = ""
    shell: str | None = None
    tool: ToolCall | None = None
    source: str = "script"


@dataclass
class Script:
    turns: list[Turn]
    fallback_text: str = "Done."
    side_text: str = "Mock side reply."
    waits: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next_reply(self, raw: str, body: Body, is_main: bool) -> Reply:
        with self.lock:
            if not is_main:
                return Reply(text=self.side_text, source="side")
            if not self.turns:
                return Reply(text=self.fallback_text, source="fallback-exhausted")
            turn = self.turns[0]
            if turn.expect is not None and turn.expect not in raw:
                if turn.wait_shell is not None and self.waits < MAX_WAITS:
                    self.waits += 1
                    return Reply(shell=turn.wait_shell, source="wait")
                return Reply(text=self.fallback_text, source="fallback-expect-unmet")
            self.turns.pop(0)
        shell, tool = turn.shell, turn.tool
        try:
            if callable(shell):
                shell = shell(body)
            if callable(tool):
                tool = tool(body)
        except ValueError as exc:
            # Reported in the log and in the reply, so the test fails with
            # the reason instead of a silent timeout.
            return Reply(text=f"MOCK ERROR: {exc}", source=f"error: {exc}")
        return Reply(text=turn.text, shell=shell, tool=tool)


class MockServer:
    """Serve one dialect's handler on 127.0.0.1, logging each request."""

    def __init__(
        self,
        handler: type[BaseHTTPRequestHandler],
        turns: list[Turn],
        log_path: Path,
        *,
        fallback_text: str = "Done.",
    ) -> None:
        self.script = Script(list(turns), fallback_text=fallback_text)
        self.log_path = log_path
        self._lock = threading.Lock()
        self._seq = 0
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._httpd.mock = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> MockServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(5)

    def log(self, record: dict[str, Any]) -> None:
        with self._lock:
            self._seq += 1
            record = {"seq": self._seq, "ts": time.time(), **record}
            with self.log_path.open("a", encoding="utf-8") as f:
                f.write(json.dumps(record) + "\n")

    def requests(self) -> list[dict[str, Any]]:
        if not self.log_path.exists():
            return []
        with self.log_path.open(encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]

    def model_requests(self) -> list[Body]:
        """Bodies of the agent loop's model requests, in order."""
        return [
            r["body"]
            for r in self.requests()
            if isinstance(r.get("body"), dict) and r["body"].get("tools")
        ]


class BaseHandler(BaseHTTPRequestHandler):
    """Request plumbing both dialects share."""

    protocol_version = "HTTP/1.1"

    @property
    def mock(self) -> MockServer:
        return self.server.mock  # type: ignore[attr-defined,no-any-return]

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the JSONL log is the record

    def read_body(self) -> bytes:
        if self.headers.get("transfer-encoding", "").lower() == "chunked":
            raw = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    self.rfile.readline()
                    return raw
                raw += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length else b""

    def send(self, code: int, payload: bytes | Any, ctype: str = "application/json") -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def record(self, body: Any, raw: bytes = b"", **extra: Any) -> None:
        rec: dict[str, Any] = {"method": self.command, "path": self.path}
        if body is not None:
            rec["body"] = body
        elif raw:
            rec["raw"] = raw[:2000].decode("utf-8", "replace")
        rec.update(extra)
        self.mock.log(rec)

    def do_DELETE(self) -> None:
        self.record(None)
        self.send(200, {})


def sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def parse_json(raw: bytes) -> Any:
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return None


def serve_forever(handler: type[BaseHTTPRequestHandler], argv: list[str] | None) -> None:
    """Standalone use, from the repository root:
    `python3 -m tests.e2e.mock_openai --script turns.json --log requests.jsonl`."""
    import argparse

    ap = argparse.ArgumentParser(description="scripted mock model server on 127.0.0.1")
    ap.add_argument("--script", help="JSON list of turns: text, shell, tool, expect")
    ap.add_argument("--log", default="requests.jsonl", help="JSONL request log")
    ap.add_argument("--port-file", help="write the bound port here once listening")
    args = ap.parse_args(argv)
    turns: list[Turn] = []
    if args.script:
        turns = [Turn.from_json(t) for t in json.loads(Path(args.script).read_text())]
    with MockServer(handler, turns, Path(args.log)) as server:
        if args.port_file:
            Path(args.port_file).write_text(str(server.port))
        print(f"listening on {server.base_url}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
