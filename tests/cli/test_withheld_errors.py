"""No error line shows a secret, whichever command wrote it and however it
quotes the value: quoted, bare (a path), or cut short to fit the line. The
CLI's one error place withholds it, so no command needs to take care."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import CliRunner, Run

from tree_ring.guard import withhold
from tree_ring.guard.messages import BARE, WHOLE

# A GitHub token's shape (not a live token).
G = "ghp_YJfEODd6zcz7DrwZ19xTaTQlHGkPJoQr3ega"


def withheld(result: Run, code: int) -> str:
    assert result.code == code, (result.code, result.err)
    lines = result.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(("error: ", "{")), result.err
    # Not the value, nor any stretch of it long enough to matter.
    for start in range(0, len(G) - 10):
        assert G[start : start + 10] not in result.err, result.err
    assert "withheld" in lines[0] or "the value is not shown" in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["usage", "--since", G], 2),
        (["usage", f"--since={G}"], 2),
        (["import", f"/tmp/{G}.jsonl"], 2),
        (["quality", G], 2),
        (["recall-quality", G], 2),
        (["dox", "sync", "--source-root", G], 2),
        (["export", "--output", f"/nonexistent/{G}"], 2),
        (["import", "--global-to", G, "x.jsonl"], 2),
    ],
)
def test_a_secret_given_as_a_value_is_not_shown(
    run_cli: CliRunner, argv: list[str], code: int
) -> None:
    withheld(run_cli(*argv), code)
    line = withheld(run_cli("--json", *argv), code)
    assert json.loads(line)["error"]["exit"] == code


def test_a_secret_in_the_root_is_not_shown(run_cli: CliRunner, tmp_path: Path) -> None:
    root = str(tmp_path / G)
    line = withheld(run_cli("--root", root, "list", root=False), 1)
    assert "no Tree Ring store" in line
    withheld(run_cli("list", root=False, environ={"TREE_RING_ROOT": root}), 1)


def test_withhold_takes_out_each_way_a_message_can_show_a_secret() -> None:
    assert withhold(f"not {G[:30]!r}", [G]) == f"not '{BARE}'"
    assert withhold(f"at {G[:20]}...; retry", [f"--since={G}"]) == f"at {BARE}...; retry"
    assert withhold(f"cannot read /tmp/{G}.jsonl: gone") == f"cannot read {BARE}: gone"
    assert withhold(f"no file at {G}.") == f"no file at {BARE}."
    assert withhold(f"password: {G[4:]} and more") in (f"password: {BARE} and more", WHOLE)


def test_withhold_leaves_ordinary_messages_and_words_alone() -> None:
    plain = "refused: summary looks like a secret (rule password-assignment); remove it"
    assert withhold(plain, ["password=hunter2hunter2XYZ", G]) == plain
    assert withhold("no memory mem_20261129_134645_2d7a81bd6071", [G]) == (
        "no memory mem_20261129_134645_2d7a81bd6071"
    )


@pytest.mark.parametrize(
    ("environ", "field"),
    [
        ({"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": G}, "session_id"),
        ({"CODEX_SESSION_ID": G}, "session_id"),
        ({"TREE_RING_WORKFLOW_ID": G}, "workflow_id"),
    ],
)
def test_a_harness_session_that_reads_as_a_secret_is_named_as_the_session(
    run_cli: CliRunner, environ: dict[str, str], field: str
) -> None:
    # The harness's session is the agent's workflow too unless it names one:
    # the refusal names the field the value came from, and never the value.
    done = run_cli("remember", "A note on the release train", environ=environ)
    assert done.code == 2 and len(done.err.splitlines()) == 1, done.err
    assert done.err.startswith(f"error: refused: {field} looks like a secret"), done.err
    assert G[4:14] not in done.err
    assert int(run_cli("--json", "list").json()["total"]) == 0


def test_a_harness_session_holding_a_control_character_is_named_as_the_session(
    run_cli: CliRunner,
) -> None:
    environ = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "abc\u202edef"}
    done = run_cli("remember", "A note on the release train", environ=environ)
    assert done.code == 2 and done.err.startswith("error: the session id "), done.err
