"""Forgetting one capture keeps its words out, not the rest of its session.

The stop hook's capture gives each note its session as source ref
(`session:ID`, and `:PROFILE` for a subagent): a place, not a claim, as a
file sync's is. A person's forget of one capture keys its words, never that
ref, so the session's other captures still write, promote and import.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import CliRunner

SESSION = "8493493d-773f-4261-ac78-31930d37ce83"


AGENT = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": SESSION}


def capture(run_cli: CliRunner, text: str, slot: int) -> tuple[int, str, str]:
    done = run_cli(
        "--json", "capture", text, "--event-type", "lesson", "--session-id", SESSION,
        "--operation-id", f"auto-0123456789ab-{slot}", environ=AGENT,
    )  # fmt: skip
    return done.code, done.out, done.err


WRONG = "The staging database resets every Sunday night"
KEPT = "Integration tests need docker compose up first"
LATER = "The payments service logs go to the logs folder"


def test_the_sessions_other_captures_stay_writable(run_cli: CliRunner, project_root: Path) -> None:
    code, out, err = capture(run_cli, WRONG, 1)
    assert code == 0, err
    wrong = json.loads(out)["id"]
    code, out, err = capture(run_cli, KEPT, 2)
    assert code == 0, err
    kept = json.loads(out)["id"]
    shown = run_cli("--json", "show", kept).json()["memory"]
    assert shown["source"]["ref"] == f"session:{SESSION}"

    forgot = run_cli("forget", wrong, "--mode", "delete", "--reason", "it resets on Saturdays")
    assert forgot.code == 0, forgot.err
    # The forgotten words stay out, in any session.
    code, _, err = capture(run_cli, WRONG, 3)
    assert code == 1 and "forgotten" in err
    # The session's other notes do not.
    code, out, err = capture(run_cli, LATER, 3)
    assert code == 0, err
    promoted = run_cli("promote", kept, "--reason", "true for everyone")
    assert promoted.code == 0, promoted.err
    exported = run_cli("export")
    assert exported.code == 0, exported.err
    path = project_root.parent / "export.jsonl"
    path.write_text(exported.out, encoding="utf-8")
    dry = run_cli("import", str(path), "--dry-run")
    assert dry.code == 0, dry.err


@pytest.mark.parametrize(
    "ref",
    ["the staging database resets every Sunday", f"session:{SESSION} staging resets on Sunday"],
)
def test_a_source_ref_that_says_more_than_the_session_is_forgotten(
    run_cli: CliRunner, ref: str
) -> None:
    """Only the ref the capture gives is a place: words a note names as its
    source are forgotten with it, as before."""
    done = run_cli("--json", "remember", "Staging data is wiped weekly", "--source-ref", ref)
    assert done.code == 0, done.err
    memory_id = done.json()["id"]
    assert run_cli("forget", memory_id, "--mode", "delete", "--reason", "no").code == 0
    again = run_cli("remember", "Wiped on the weekend", "--source-ref", ref)
    assert again.code == 1 and "forgotten" in again.err


def test_a_note_whose_words_are_the_session_ref_takes_none_of_its_captures(
    run_cli: CliRunner,
) -> None:
    """An agent's note saying only `session:ID`, forgotten by a person: the
    session's notes are no copies of it, and its next capture stores."""
    code, out, err = capture(run_cli, KEPT, 1)
    assert code == 0, err
    kept = json.loads(out)["id"]
    code, out, err = capture(run_cli, f"session:{SESSION}", 2)
    assert code == 0, err
    junk = json.loads(out)["id"]
    forgot = run_cli("--json", "forget", junk, "--mode", "delete", "--reason", "junk")
    assert forgot.code == 0, forgot.err
    assert kept not in json.dumps(forgot.json())
    assert run_cli("--json", "show", kept).code == 0
    code, _, err = capture(run_cli, LATER, 3)
    assert code == 0, err
