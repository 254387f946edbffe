"""A scripted Anthropic Messages API for driving the real Claude Code CLI offline
(`ANTHROPIC_BASE_URL=http://127.0.0.1:PORT`).

Claude Code 2.1.328 with nonessential traffic disabled sends only
`POST /v1/messages?beta=true`, always streamed; `count_tokens` and the model
list are answered too, and anything else gets `200 {}`. A turn's shell command
becomes a `Bash` tool_use, its other tool call a tool_use of that name.
"""

from __future__ import annotations

import json
import sys
import uuid
from typing import Any

from .mockserver import BaseHandler, Reply, parse_json, serve_forever, sse

MODELS = ("claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5")


def content_blocks(reply: Reply) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if reply.text:
        blocks.append({"type": "text", "text": reply.text})
    calls: list[tuple[str, dict[str, Any]]] = []
    if reply.shell is not None:
        calls.append(("Bash", {"command": reply.shell, "description": "Run scripted command"}))
    if reply.tool is not None:
        calls.append(reply.tool)
    for name, args in calls:
        tool_id = "toolu_" + uuid.uuid4().hex[:24]
        blocks.append({"type": "tool_use", "id": tool_id, "name": name, "input": args})
    return blocks or [{"type": "text", "text": ""}]


def usage() -> dict[str, int]:
    return {
        "input_tokens": 10,
        "output_tokens": 5,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


def stream(model: str, blocks: list[dict[str, Any]], stop_reason: str) -> bytes:
    message = {
        "id": "msg_" + uuid.uuid4().hex[:24],
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage(),
    }
    out = [sse("message_start", {"type": "message_start", "message": message})]
    for i, block in enumerate(blocks):
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            start = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        out.append(
            sse(
                "content_block_start",
                {"type": "content_block_start", "index": i, "content_block": start},
            )
        )
        out.append(
            sse("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta})
        )
        out.append(sse("content_block_stop", {"type": "content_block_stop", "index": i}))
    out.append(
        sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        )
    )
    out.append(sse("message_stop", {"type": "message_stop"}))
    return b"".join(out)


class AnthropicHandler(BaseHandler):
    server_version = "mock-anthropic/1"

    def do_GET(self) -> None:
        self.record(None)
        path = self.path.split("?")[0].rstrip("/")
        now = "2025-01-01T00:00:00Z"
        if path.endswith("/v1/models"):
            data = [
                {"type": "model", "id": m, "display_name": m, "created_at": now} for m in MODELS
            ]
            self.send(
                200,
                {"data": data, "has_more": False, "first_id": MODELS[0], "last_id": MODELS[-1]},
            )
        elif "/v1/models/" in path:
            mid = path.rsplit("/", 1)[-1]
            self.send(200, {"type": "model", "id": mid, "display_name": mid, "created_at": now})
        else:
            self.send(200, {})

    def do_POST(self) -> None:
        raw = self.read_body()
        body = parse_json(raw)
        path = self.path.split("?")[0]
        if path.endswith("/v1/messages/count_tokens"):
            self.record(body, raw)
            self.send(200, {"input_tokens": max(1, len(raw) // 4)})
        elif path.endswith("/v1/messages") and isinstance(body, dict):
            self.messages(raw, body)  # pyright: ignore[reportUnknownArgumentType]
        else:
            self.record(body, raw)
            self.send(200, {})

    def messages(self, raw: bytes, body: dict[str, Any]) -> None:
        reply = self.mock.script.next_reply(
            raw.decode("utf-8", "replace"), body, is_main=bool(body.get("tools"))
        )
        blocks = content_blocks(reply)
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        self.record(body, reply={"source": reply.source, "content": blocks})
        model = str(body.get("model", "claude-mock"))
        if body.get("stream"):
            self.send(200, stream(model, blocks, stop), ctype="text/event-stream")
        else:
            message = {
                "id": "msg_" + uuid.uuid4().hex[:24],
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": blocks,
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": usage(),
            }
            self.send(200, message)


if __name__ == "__main__":
    serve_forever(AnthropicHandler, sys.argv[1:])
