"""Who is calling, as the environment says: a harness variable's presence makes an agent."""

from __future__ import annotations

import pytest

from tree_ring.model.identity import Origin, harness_origin


@pytest.mark.parametrize(
    ("environ", "origin"),
    [
        ({}, Origin("person")),
        ({"AI_AGENT": "x", "PATH": "/bin"}, Origin("person")),  # not a variable Tree Ring reads
        ({"CLAUDECODE": "1"}, Origin("claude-code")),
        # Any value, and none: an empty value is how a command line blanks a
        # variable, and must not be a way to speak as the person.
        ({"CLAUDECODE": "true"}, Origin("claude-code")),
        ({"CLAUDECODE": "0"}, Origin("claude-code")),
        ({"CLAUDECODE": ""}, Origin("claude-code")),
        ({"CLAUDE_CODE_SESSION_ID": ""}, Origin("claude-code")),
        ({"CLAUDECODE": "", "CLAUDE_CODE_SESSION_ID": "s1"}, Origin("claude-code", "s1")),
        ({"CODEX_SESSION_ID": ""}, Origin("codex")),
        ({"CODEX_THREAD_ID": ""}, Origin("codex")),
        ({"CODEX_THREAD_ID": "t1"}, Origin("codex", "t1")),
        ({"CODEX_SESSION_ID": "", "CODEX_THREAD_ID": "t1"}, Origin("codex", "t1")),
        ({"CODEX_SESSION_ID": "c1", "CODEX_THREAD_ID": "t1"}, Origin("codex", "c1")),
    ],
)
def test_a_harness_variable_present_makes_an_agent(environ: dict[str, str], origin: Origin) -> None:
    assert harness_origin(environ) == origin
