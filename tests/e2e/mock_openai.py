"""A scripted OpenAI Responses API for driving the real Codex CLI offline, as a
custom model provider in `$CODEX_HOME/config.toml`:

    model_provider = "mock"
    [model_providers.mock]
    base_url = "http://127.0.0.1:PORT/v1"
    wire_api = "responses"

Codex 0.169.0 sends `POST /v1/responses` with `stream: true`. A turn's shell
command becomes a `function_call` to the shell tool the request offers
(`exec_command` in 0.169, which takes `{"cmd": ...}`); its other tool call a
`function_call` of that name ("namespace.name" for a namespaced tool), or a
`custom_tool_call` whose `input` is the call's "input" argument when the
request offers that tool as a custom (freeform) one: Codex offers
`apply_patch` that way for a model its catalog gives a freeform patch tool
(e.g. `gpt-5.5`), and no `apply_patch` at all for an unknown one (`gpt-mock`).
"""

from __future__ import annotations

import gzip
import json
import sys
import time
import uuid
import zlib
from typing import Any

from .mockserver import BaseHandler, Reply, parse_json, serve_forever, sse

USAGE = {
    "input_tokens": 10,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens": 5,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": 15,
}


def offered_tools(body: dict[str, Any]) -> list[str]:
    names: list[str] = []
    for tool in body.get("tools") or []:
        names.append(str(tool.get("name") or tool.get("type")))
    return names


def custom_tools(body: dict[str, Any]) -> set[str]:
    """The tools a request offers as custom (freeform) tools, which take raw text."""
    return {str(t.get("name")) for t in body.get("tools") or [] if t.get("type") == "custom"}


def shell_call(cmd: str, offered: list[str]) -> tuple[str, dict[str, Any]]:
    """The offered shell tool and its argument shape."""
    if "exec_command" in offered:
        return "exec_command", {"cmd": cmd}
    if "shell" in offered:
        return "shell", {"command": ["bash", "-lc", cmd]}
    return "shell_command", {"command": cmd}


def output_items(
    reply: Reply, offered: list[str], custom: set[str] | None = None
) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    if reply.text:
        items.append(
            {
                "type": "message",
                "role": "assistant",
                "status": "completed",
                "id": "msg_" + uuid.uuid4().hex[:20],
                "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
            }
        )
    calls: list[tuple[str, dict[str, Any]]] = []
    if reply.shell is not None:
        calls.append(shell_call(reply.shell, offered))
    if reply.tool is not None:
        calls.append(reply.tool)
    for name, args in calls:
        if name in (custom or set()):
            items.append(
                {
                    "type": "custom_tool_call",
                    "status": "completed",
                    "id": "ctc_" + uuid.uuid4().hex[:20],
                    "call_id": "call_" + uuid.uuid4().hex[:20],
                    "name": name,
                    "input": str(args.get("input", "")),
                }
            )
            continue
        item: dict[str, Any] = {
            "type": "function_call",
            "status": "completed",
            "id": "fc_" + uuid.uuid4().hex[:20],
            "call_id": "call_" + uuid.uuid4().hex[:20],
            "name": name,
            "arguments": json.dumps(args),
        }
        namespace, dot, short = name.rpartition(".")
        if dot:
            item.update(name=short, namespace=namespace)
        items.append(item)
    if not items:
        items.append(
            {
                "type": "message",
                "role": "assistant",
                "status": "completed",
                "id": "msg_" + uuid.uuid4().hex[:20],
                "content": [{"type": "output_text", "text": "", "annotations": []}],
            }
        )
    return items


def stream(model: str, items: list[dict[str, Any]]) -> bytes:
    response: dict[str, Any] = {
        "id": "resp_" + uuid.uuid4().hex[:20],
        "object": "response",
        "created_at": int(time.time()),
        "model": model,
        "status": "in_progress",
        "output": [],
    }
    out = [sse("response.created", {"type": "response.created", "response": response})]
    for i, item in enumerate(items):
        out.append(
            sse(
                "response.output_item.added",
                {"type": "response.output_item.added", "output_index": i, "item": item},
            )
        )
        if item["type"] == "message":
            delta = {
                "type": "response.output_text.delta",
                "item_id": item["id"],
                "output_index": i,
                "content_index": 0,
                "delta": item["content"][0]["text"],
            }
            out.append(sse("response.output_text.delta", delta))
        out.append(
            sse(
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": i, "item": item},
            )
        )
    done = {**response, "status": "completed", "output": items, "usage": USAGE}
    out.append(sse("response.completed", {"type": "response.completed", "response": done}))
    return b"".join(out)


class OpenAIHandler(BaseHandler):
    server_version = "mock-openai/1"

    def do_GET(self) -> None:
        self.record(None)
        if self.path.split("?")[0].rstrip("/").endswith("/models"):
            model = {"id": "gpt-mock", "object": "model", "created": 0, "owned_by": "mock"}
            self.send(200, {"object": "list", "data": [model], "models": []})
        else:
            self.send(200, {})

    def do_POST(self) -> None:
        raw = self.read_body()
        encoding = self.headers.get("content-encoding", "").lower()
        if encoding == "gzip":
            raw = gzip.decompress(raw)
        elif encoding == "deflate":
            raw = zlib.decompress(raw)
        body = parse_json(raw)
        if not self.path.split("?")[0].rstrip("/").endswith("/responses"):
            self.record(body, raw)
            self.send(200, {})
            return
        if not isinstance(body, dict):
            self.record(None, raw, error=f"unreadable body (content-encoding {encoding!r})")
            self.send(400, {"error": {"message": "unreadable body", "type": "invalid_request"}})
            return
        body_dict: dict[str, Any] = body  # pyright: ignore[reportUnknownVariableType]
        offered = offered_tools(body_dict)
        reply = self.mock.script.next_reply(
            raw.decode("utf-8", "replace"), body_dict, is_main=bool(offered)
        )
        items = output_items(reply, offered, custom_tools(body_dict))
        self.record(body_dict, reply={"source": reply.source, "items": items})
        model = str(body_dict.get("model", "gpt-mock"))
        if body_dict.get("stream", True):
            self.send(200, stream(model, items), ctype="text/event-stream")
        else:
            done = {
                "id": "resp_" + uuid.uuid4().hex[:20],
                "object": "response",
                "created_at": int(time.time()),
                "model": model,
                "status": "completed",
                "output": items,
                "usage": USAGE,
            }
            self.send(200, done)


if __name__ == "__main__":
    serve_forever(OpenAIHandler, sys.argv[1:])
