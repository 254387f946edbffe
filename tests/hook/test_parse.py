"""The adapter's reading of a payload, in process: each refusal, each field."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from tree_ring.hook import adapter
from tree_ring.hook.adapter import HookEvent, Refused, parse_payload
from tree_ring.model.identity import Identity
from tree_ring.write import verbs

BASE: dict[str, Any] = {
    "hook_event_name": "SessionStart",
    "session_id": "0b7f3c1e-5a2d-4c8e-9f10-2b3c4d5e6f70",
    "cwd": "/work/project",
}


def parse(**changes: Any) -> HookEvent:
    payload = {**BASE, **changes}
    return parse_payload(
        "claude-code", json.dumps({k: v for k, v in payload.items() if v != ...}).encode()
    )


def test_a_whole_payload() -> None:
    event = parse(
        agent_id="a1", agent_type="Explore", stop_hook_active=True, transcript_path="/t.jsonl",
        prompt_id="p-9",
    )  # fmt: skip
    assert event == HookEvent(
        harness="claude-code",
        event="SessionStart",
        session_id=BASE["session_id"],
        cwd="/work/project",
        agent_id="a1",
        agent_type="Explore",
        stop_hook_active=True,
        transcript_path="/t.jsonl",
        turn_id="p-9",
    )
    assert parse(turn_id="t-1", prompt_id="p-9").turn_id == "t-1"  # Codex's name first
    assert parse().stop_hook_active is False
    assert parse(agent_id="").agent_id is None


@pytest.mark.parametrize(
    ("value", "active"),
    [
        (True, True),
        ("true", True),
        ("TRUE", True),
        ("True", True),
        ("1", True),
        (" true ", False),
        (False, False),
        ("false", False),
        ("0", False),
        ("", False),
        ("yes", False),
        ("truthy", False),
        (1, False),
        (None, False),
        ([True], False),
        ({"true": True}, False),
    ],
)
def test_stop_hook_active_is_json_true_or_the_text_true_or_1(value: Any, active: bool) -> None:
    assert parse(stop_hook_active=value).stop_hook_active is active


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"hook_event_name": ...}, "payload has no hook_event_name"),
        ({"hook_event_name": ""}, "payload has no hook_event_name"),
        ({"hook_event_name": 7}, "payload field hook_event_name is not a string"),
        ({"session_id": ...}, "payload has no usable session_id"),
        ({"session_id": "bad id; rm -rf"}, "payload has no usable session_id"),
        ({"session_id": "x" * 129}, "payload has no usable session_id"),
        ({"cwd": ...}, "payload has no absolute cwd"),
        ({"cwd": "relative/dir"}, "payload has no absolute cwd"),
        # A lone surrogate (JSON's "\ud800") is no text any path or id may hold.
        ({"cwd": "/work/project\ud800"}, "payload field cwd is not valid Unicode text"),
        ({"agent_id": "\ud800"}, "payload field agent_id is not valid Unicode text"),
        ({"agent_transcript_path": "/t\udfff.jsonl"},
         "payload field agent_transcript_path is not valid Unicode text"),
        ({"session_id": "s\ud800"}, "payload field session_id is not valid Unicode text"),
        ({"root": "/elsewhere"}, "payload supplies root; the project and identity come only "
         "from the project directory and the harness"),
        ({"store": "/x", "project": "p"}, "payload supplies store, project; the project and "
         "identity come only from the project directory and the harness"),
    ],
)  # fmt: skip
def test_refusals_name_the_problem(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(Refused) as caught:
        parse(**changes)
    assert str(caught.value) == message


def test_a_session_id_at_its_length_limit_is_usable() -> None:
    assert parse(session_id="x" * 128).session_id == "x" * 128


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"[1]", "payload is not a JSON object"),
        (b"{", "payload is not JSON"),
        (b"[" * 5000, "payload is not JSON"),  # too deep to parse: not a RecursionError
        (b"\xff", "payload is not UTF-8"),
        (b" " * ((1 << 20) + 1), f"payload is over {1 << 20} bytes"),
    ],
)
def test_what_is_not_a_payload(data: bytes, message: str) -> None:
    with pytest.raises(Refused) as caught:
        parse_payload("codex", data)
    assert str(caught.value) == message


def test_a_payload_of_exactly_the_limit_is_read() -> None:
    body = json.dumps(BASE).encode()
    padded = body + b" " * ((1 << 20) - len(body))
    assert parse_payload("codex", padded).session_id == BASE["session_id"]


def test_a_subagent_type_is_cleaned_and_cut_to_64_characters() -> None:
    fingerprint = hashlib.sha256(b"a1").hexdigest()[:16]
    long = HookEvent("codex", "SubagentStart", "s", "/p", "a1", "T" * 80)
    assert adapter.agent_profile(long) == f"codex:{'T' * 64}:{fingerprint}"
    exact = HookEvent("codex", "SubagentStart", "s", "/p", "a1", "T" * 64)
    assert adapter.agent_profile(exact) == f"codex:{'T' * 64}:{fingerprint}"
    with pytest.raises(Refused, match="SubagentStart payload has no agent_id"):
        adapter.agent_profile(HookEvent("codex", "SubagentStart", "s", "/p"))


def test_the_checkpoint_is_stable_within_a_turn_and_new_on_the_next() -> None:
    event = parse(turn_id="t-1")
    first = adapter.checkpoint_id(event, 1)
    assert len(first) == 12 and int(first, 16) >= 0
    assert adapter.checkpoint_id(event, 2) == first
    assert adapter.checkpoint_id(parse(turn_id="t-2"), 1) != first
    assert adapter.checkpoint_id(parse(turn_id="t-1", agent_id="a1"), 1) != first
    untimed = parse()
    assert adapter.checkpoint_id(untimed, 1) != adapter.checkpoint_id(untimed, 2)


def test_capture_takes_the_session_as_workflow_and_source_a_subagent_with_its_profile() -> None:
    session = BASE["session_id"]
    draft = verbs.Draft("The flaky test needed a fixed seed")
    for event in (
        parse(),
        parse(hook_event_name="SubagentStop", agent_id="a1", agent_type="Explore"),
    ):
        profile = adapter.agent_profile(event)
        identity = Identity("p-1", profile, None, session)
        said, filled = verbs.capture_defaults(identity, draft)
        tail = "" if event.agent_id is None else f":{profile}"
        assert (said.workflow_id, filled.source_ref) == (session, f"session:{session}{tail}")
    # What the caller names stands.
    named = Identity("p-1", "codex", "w-9", session)
    said, filled = verbs.capture_defaults(named, draft.replace(source_ref="run:42"))
    assert (said.workflow_id, filled.source_ref) == ("w-9", "run:42")


def test_paths_are_quoted_only_as_much_as_they_need() -> None:
    assert adapter._path("/work/my project") == '"/work/my project"'
    assert adapter._path('/work/say "hi"') == "'/work/say \"hi\"'"
    assert adapter._path("/work/$HOME") == "'/work/$HOME'"
