"""The stop checkpoint's cadence, through the hook's own entry point
(`adapter.main`, in process, with a scripted clock) and payloads recorded from
both harnesses, over transcripts shaped as each harness writes them."""

from __future__ import annotations

import io
import json
import os
import shlex
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO, CliRunner
from transcript_support import CHAT, WORK, Step, claude_lines, write_transcript

from tree_ring.harness import checkpoint
from tree_ring.hook import adapter, cadence, transcript
from tree_ring.store import settings

FIXTURES = REPO / "tests" / "fixtures" / "hooks"
HARNESSES = ("claude-code", "codex")
MINUTE = 60 * 10**9


def event(harness: str, name: str, root: Path, **changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / f"{harness}-{name}.json").read_text())
    data["cwd"] = str(root)
    data.update(changes)
    return data


class Session:
    """One harness session against one project, its stops driven in process."""

    def __init__(self, harness: str, root: Path, tmp: Path) -> None:
        self.harness, self.root, self.tmp = harness, root, tmp
        self.turns: list[list[Step]] = []
        self.clock = 0
        self.path = tmp / f"{harness}.jsonl"

    def hook(self, data: dict[str, Any]) -> dict[str, Any]:
        out = io.BytesIO()
        stdin = io.BytesIO(json.dumps(data).encode())
        assert adapter.main(self.harness, stdin, {}, out, clock=lambda: self.clock) == 0
        return json.loads(out.getvalue()) if out.getvalue() else {}

    def turn(self, steps: list[Step], turn_id: str, minutes: float = 0) -> dict[str, Any]:
        """The turn's steps land in the transcript, then its Stop fires."""
        self.clock += int(minutes * MINUTE)
        self.turns.append(steps)
        write_transcript(self.path, self.harness, self.turns)
        return self.stop(turn_id)

    def stop(self, turn_id: str, **changes: Any) -> dict[str, Any]:
        key = "prompt_id" if self.harness == "claude-code" else "turn_id"
        data = event(self.harness, "stop", self.root, transcript_path=str(self.path))
        data.update({key: turn_id, **changes})
        return self.hook(data)

    def subagent(self, steps: list[Step], turn_id: str) -> dict[str, Any]:
        path = self.tmp / f"agent-{turn_id}.jsonl"
        write_transcript(path, self.harness, [steps], subagent=True)
        key = "prompt_id" if self.harness == "claude-code" else "turn_id"
        data = event(self.harness, "subagent-stop", self.root, agent_transcript_path=str(path))
        data[key] = turn_id
        return self.hook(data)


def blocked(out: dict[str, Any]) -> bool:
    if out == {}:
        return False
    assert out["decision"] == "block", out
    return True


def configure(root: Path, run_cli: CliRunner, *pairs: str) -> None:
    done = run_cli("config", "set", *pairs)
    assert done.code == 0, done.err


def turn(prompt: str, *steps: Step) -> list[Step]:
    return [("prompt", prompt), *steps, ("say", "Done.")]


# ---------------------------------------------------------------- after-work


@pytest.mark.parametrize("harness", HARNESSES)
def test_after_work_asks_after_work_and_not_after_chat(
    harness: str, project_root: Path, tmp_path: Path
) -> None:
    s = Session(harness, project_root, tmp_path)
    assert not blocked(s.turn(CHAT[0], "t1"))
    assert blocked(s.turn(WORK[0], "t2"))


@pytest.mark.parametrize("harness", HARNESSES)
@pytest.mark.parametrize(
    ("steps", "work"),
    [
        ([("tool", "Edit")], True),
        ([("tool", "apply_patch")], True),
        ([("tool", "mcp__github__create_issue")], True),
        ([("shell", "pytest -q")], True),
        ([("tool", "Read"), ("tool", "Grep"), ("tool", "update_plan")], False),
        ([("tool", "Agent"), ("tool", "spawn_agent"), ("tool", "wait_agent")], False),
        ([("tool", "mcp__plugin_tree-ring_tree-ring__remember")], False),
        ([("shell", 'python3 -I -S "/p/bin/tree-ring" --root "/r" capture "x"')], False),
        ([("shell", "tree-ring remember 'use uv'")], False),
    ],
)
def test_what_counts_as_work(harness: str, steps: list[Step], work: bool, tmp_path: Path) -> None:
    path = write_transcript(tmp_path / "t.jsonl", harness, [turn("go", *steps)])
    assert transcript.did_work(str(path)) is work


def test_a_subagents_own_file_counts_its_work_and_an_inline_prompt_ends_no_turn(
    tmp_path: Path,
) -> None:
    """Claude Code marks every line of a subagent's file `isSidechain`."""
    path = write_transcript(tmp_path / "agent.jsonl", "claude-code", WORK, subagent=True)
    assert transcript.did_work(str(path)) is True
    main = claude_lines([turn("go", ("shell", "make"))])
    inline = claude_lines(CHAT, sidechain=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in main + inline))
    assert transcript.did_work(str(path)) is True


@pytest.mark.parametrize("harness", HARNESSES)
def test_only_the_turn_since_the_last_prompt_counts(harness: str, tmp_path: Path) -> None:
    """Work in an earlier turn is that turn's; the hook's own feedback coming
    back as a user message does not start a turn."""
    earlier = turn("build it", ("shell", "make"))
    path = write_transcript(tmp_path / "t.jsonl", harness, [earlier, CHAT[0]])
    assert transcript.did_work(str(path)) is False
    answered = [*earlier, ("feedback", "Tree Ring checkpoint 0123")]
    path = write_transcript(tmp_path / "t.jsonl", harness, [answered])
    assert transcript.did_work(str(path)) is True


@pytest.mark.parametrize(
    "content",
    [None, b"", b"\x00\xff garbage\n", b"{not json\n", b'{"type": "user"}\n' * 3, b"[1, 2]\n"],
)
def test_a_missing_or_odd_transcript_never_blocks(
    content: bytes | None, project_root: Path, tmp_path: Path
) -> None:
    path = tmp_path / "odd.jsonl"
    if content is not None:
        path.write_bytes(content)
    s = Session("claude-code", project_root, tmp_path)
    s.path = path
    assert not blocked(s.stop("t1"))
    assert not blocked(s.stop("t2", transcript_path=None))


def test_the_transcript_is_read_from_its_tail_only(tmp_path: Path) -> None:
    """A turn longer than the window is judged by what the window holds: the
    command at its start is out of reach, however large the file."""
    steps = [turn("go", ("shell", "make"))]
    path = write_transcript(tmp_path / "t.jsonl", "claude-code", steps)
    noise = json.dumps({"type": "progress", "data": "x" * 1000}) + "\n"
    with path.open("a") as f:
        f.write(noise * (transcript.TAIL_BYTES // len(noise) + 10))
    assert transcript.did_work(str(path)) is False
    assert transcript.did_work(str(path), limit=os.path.getsize(path)) is True


@pytest.mark.parametrize("harness", HARNESSES)
@pytest.mark.parametrize("interval", ["30", "0"])
def test_one_checkpoint_per_turn(
    harness: str, interval: str, project_root: Path, tmp_path: Path, run_cli: CliRunner
) -> None:
    configure(project_root, run_cli, f"checkpoint.interval={interval}")
    s = Session(harness, project_root, tmp_path)
    assert blocked(s.turn(WORK[0], "t1"))
    # The agent answers the block: the harness says so.
    assert not blocked(s.stop("t1", stop_hook_active=True))
    # A background subagent's return wakes the same turn: no second checkpoint.
    assert not blocked(s.subagent(turn("check", ("shell", "make test")), "t1"))
    assert not blocked(s.stop("t1"))


def test_at_most_once_per_interval_and_work_inside_it_is_not_lost(
    project_root: Path, tmp_path: Path
) -> None:
    s = Session("claude-code", project_root, tmp_path)
    assert blocked(s.turn(WORK[0], "t1"))
    assert not blocked(s.turn(WORK[0], "t2", minutes=10))
    assert not blocked(s.turn(CHAT[0], "t3", minutes=10))
    # Past the 30 minutes, the work of t2 is still waiting: even a chat turn asks.
    assert blocked(s.turn(CHAT[0], "t4", minutes=11))
    assert not blocked(s.turn(CHAT[0], "t5", minutes=40))


def test_interval_zero_asks_after_every_turn_with_work(
    project_root: Path, tmp_path: Path, run_cli: CliRunner
) -> None:
    configure(project_root, run_cli, "checkpoint.interval=0")
    s = Session("codex", project_root, tmp_path)
    assert [blocked(s.turn(t[0], f"t{i}")) for i, t in enumerate((WORK, WORK, CHAT, WORK))] == [
        True,
        True,
        False,
        True,
    ]


@pytest.mark.parametrize("harness", HARNESSES)
def test_a_subagents_work_earns_the_sessions_next_stop(
    harness: str, project_root: Path, tmp_path: Path
) -> None:
    s = Session(harness, project_root, tmp_path)
    assert not blocked(s.subagent(turn("Check the build.", ("shell", "make")), "t1"))
    assert blocked(s.turn(turn("delegate", ("tool", "Agent")), "t1"))


@pytest.mark.parametrize("harness", HARNESSES)
@pytest.mark.parametrize("written", ["nothing", "its prompt"])
def test_a_subagents_work_written_after_its_stop_earns_the_sessions_next_stop(
    harness: str, written: str, project_root: Path, tmp_path: Path
) -> None:
    """Claude Code can fire SubagentStop before the subagent's lines reach its
    file (or name a file not written yet): the session's stop reads it again."""
    s = Session(harness, project_root, tmp_path)
    path = tmp_path / "agent-late.jsonl"
    if written == "its prompt":
        write_transcript(path, harness, [[("prompt", "Check the build.")]], subagent=True)
    key = "prompt_id" if harness == "claude-code" else "turn_id"
    data = event(harness, "subagent-stop", project_root, agent_transcript_path=str(path))
    assert not blocked(s.hook({**data, key: "t1"}))
    state = cadence.load(cadence.state_path(str(project_root), harness, data["session_id"]))
    assert cadence.unread(state) == [str(path)] and "pending" not in state
    write_transcript(path, harness, [turn("Check the build.", ("shell", "make"))], subagent=True)
    assert blocked(s.turn(turn("delegate", ("tool", "Agent")), "t1"))
    state = cadence.load(cadence.state_path(str(project_root), harness, data["session_id"]))
    assert cadence.UNREAD not in state


@pytest.mark.parametrize("harness", HARNESSES)
def test_a_subagent_read_again_that_only_read_earns_nothing_and_is_read_once(
    harness: str, project_root: Path, tmp_path: Path
) -> None:
    s = Session(harness, project_root, tmp_path)
    paths = [tmp_path / f"agent-{n}.jsonl" for n in range(cadence.MAX_UNREAD + 2)]
    key = "prompt_id" if harness == "claude-code" else "turn_id"
    data = event(harness, "subagent-stop", project_root)
    for path in paths:
        assert not blocked(s.hook({**data, key: "t1", "agent_transcript_path": str(path)}))
    state_path = cadence.state_path(str(project_root), harness, data["session_id"])
    # The newest few are kept, each once.
    assert cadence.unread(cadence.load(state_path)) == [
        str(p) for p in paths[-cadence.MAX_UNREAD :]
    ]
    for path in paths:
        write_transcript(path, harness, [turn("Look around.", ("tool", "Read"))], subagent=True)
    assert not blocked(s.turn(turn("delegate", ("tool", "Agent")), "t1"))
    assert cadence.UNREAD not in cadence.load(state_path)
    # Work written later still is the subagent's, not the next turn's.
    write_transcript(paths[-1], harness, [turn("Check.", ("shell", "make"))], subagent=True)
    assert not blocked(s.turn(CHAT[0], "t2"))


def test_a_subagent_stop_keeps_no_path_too_long_to_read_again(
    project_root: Path, tmp_path: Path
) -> None:
    state = cadence.note_unread({}, "/" + "x" * cadence.MAX_UNREAD_PATH)
    assert state is None
    assert cadence.note_unread({"pending": True}, "/t/a.jsonl") is None
    assert cadence.note_unread({}, "/t/a.jsonl") == {cadence.UNREAD: ["/t/a.jsonl"]}
    assert cadence.note_unread({cadence.UNREAD: ["/t/a.jsonl"]}, "/t/a.jsonl") is None
    assert cadence.unread({cadence.UNREAD: "/t/a.jsonl"}) == []
    assert cadence.unread({cadence.UNREAD: [3, "", "/t/b.jsonl"]}) == ["/t/b.jsonl"]


def test_a_subagent_that_only_read_earns_nothing(project_root: Path, tmp_path: Path) -> None:
    s = Session("claude-code", project_root, tmp_path)
    assert not blocked(s.subagent(turn("Look around.", ("tool", "Read")), "t1"))
    assert not blocked(s.turn(turn("delegate", ("tool", "Agent")), "t1"))


# ------------------------------------------------------------ other cadences


def test_every_stop_asks_each_turn_once(
    project_root: Path, tmp_path: Path, run_cli: CliRunner
) -> None:
    configure(project_root, run_cli, "checkpoint=every-stop")
    s = Session("claude-code", project_root, tmp_path)
    assert blocked(s.turn(CHAT[0], "t1"))
    assert not blocked(s.stop("t1"))
    assert blocked(s.turn(CHAT[0], "t2", minutes=1))
    assert not blocked(s.subagent(WORK[0], "t2"))


def test_session_end_asks_once_per_session(
    project_root: Path, tmp_path: Path, run_cli: CliRunner
) -> None:
    configure(project_root, run_cli, "checkpoint=session-end")
    s = Session("codex", project_root, tmp_path)
    assert not blocked(s.turn(CHAT[0], "t1"))
    assert blocked(s.turn(WORK[0], "t2"))
    assert not blocked(s.turn(WORK[0], "t3", minutes=120))
    other = Session("codex", project_root, tmp_path / "other")
    (tmp_path / "other").mkdir()
    data = event("codex", "stop", project_root, session_id="another-session")
    other.path = write_transcript(tmp_path / "other" / "t.jsonl", "codex", WORK)
    data["transcript_path"] = str(other.path)
    assert blocked(other.hook(data))


def test_off_never_asks_and_the_brief_stays(
    project_root: Path, tmp_path: Path, run_cli: CliRunner
) -> None:
    configure(project_root, run_cli, "checkpoint=off")
    s = Session("claude-code", project_root, tmp_path)
    assert not blocked(s.turn(WORK[0], "t1"))
    brief = s.hook(event("claude-code", "session-start", project_root))
    assert "Tree Ring memory for project" in brief["hookSpecificOutput"]["additionalContext"]


def test_an_unreadable_store_reads_as_the_default(project_root: Path, tmp_path: Path) -> None:
    (project_root / ".tree-ring" / "memory.sqlite").write_bytes(b"not a database at all" * 100)
    assert checkpoint.stored(str(project_root)) == checkpoint.from_values({})
    s = Session("claude-code", project_root, tmp_path)
    assert blocked(s.turn(WORK[0], "t1"))


def test_a_stored_value_no_version_wrote_reads_as_the_default() -> None:
    odd = checkpoint.from_values({"checkpoint": "sometimes", "checkpoint.interval": -5})
    assert odd == checkpoint.Cadence(settings.default("checkpoint"), 30)
    assert checkpoint.from_values({"checkpoint.interval": True}).interval_minutes == 30


def test_old_session_state_is_pruned(project_root: Path) -> None:
    folder = project_root / ".tree-ring" / "receipts"
    folder.mkdir(exist_ok=True)
    stale = folder / "codex.old-session.checkpoint"
    stale.write_text("{}")
    os.utime(stale, (1, 1))
    cadence.save(cadence.state_path(str(project_root), "codex", "new"), {"at": 5.0})
    assert not stale.exists()
    assert cadence.load(cadence.state_path(str(project_root), "codex", "new")) == {"at": 5.0}


# -------------------------------------------------------------------- reason


@pytest.mark.parametrize("harness", HARNESSES)
def test_the_reason_is_short_and_its_command_intact(
    harness: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the plugin where each harness installs it and a usual project path."""
    home = "/home/alice"
    installed = {
        "claude-code": f"{home}/.claude/plugins/cache/tree-ring/tree-ring/0.1.0",
        "codex": f"{home}/.codex/plugins/cache/tree-ring/tree-ring/0.1.0",
    }[harness]
    monkeypatch.setattr(adapter, "PLUGIN_ROOT", installed)
    root = f"{home}/src/github.com/acme-corp/payments-service"
    data = event(harness, "stop", Path(root))
    hook_event = adapter.parse_payload(harness, json.dumps(data).encode())
    ck = adapter.checkpoint_id(hook_event, 0)
    reason = adapter.stop_reason(root, hook_event, ck)
    assert len(reason) <= 600, len(reason)
    # The instructions, the refute line among them, stay short beside the command.
    assert len(reason) - len(adapter.capture_command(root, hook_event, ck)) < 180
    assert "refute ID --reason WHY" in reason
    command = adapter.capture_command(root, hook_event, ck)
    assert command in reason.splitlines()
    argv = shlex.split(command)
    assert argv[:8] == [
        "python3",
        "-I",
        "-S",
        f"{installed}/bin/tree-ring",
        "--root",
        root,
        "capture",
        "ONE_SENTENCE_SUMMARY",
    ]
    flags = dict(zip(argv[8::2], argv[9::2], strict=True))
    assert flags["--operation-id"] == f"auto-{ck}-1"
    assert flags["--session-id"] == data["session_id"]
    # Said once: capture takes the session as the workflow and the source too.
    assert reason.count(data["session_id"]) == 1 and "--workflow-id" not in flags


@pytest.mark.parametrize("pairs", [("checkpoint=every-stop",), ("checkpoint.interval=0",)])
def test_a_stop_that_names_no_turn_is_told_by_its_transcripts_prompt(
    pairs: tuple[str, ...], project_root: Path, tmp_path: Path, run_cli: CliRunner
) -> None:
    configure(project_root, run_cli, *pairs)
    s = Session("claude-code", project_root, tmp_path)
    path = tmp_path / "named-by-uuid.jsonl"

    def prompt(uuid: str, text: str) -> None:
        lines = [
            {"type": "user", "uuid": uuid, "message": {"role": "user", "content": text}},
            *claude_lines([WORK[0][1:]]),
        ]
        with path.open("a", encoding="utf-8") as handle:
            handle.writelines(json.dumps(line) + "\n" for line in lines)

    def stop(**changes: Any) -> dict[str, Any]:
        data = event("claude-code", "stop", project_root, transcript_path=str(path))
        del data["prompt_id"]  # a harness that names no turn
        return s.hook({**data, **changes})

    prompt("u-1", "fix the build")
    assert blocked(stop())
    assert not blocked(stop(stop_hook_active=True))
    # The turn goes on (the hook's feedback, a subagent's return): no second checkpoint.
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(claude_lines([[("feedback", "Stop hook feedback")]])[0]) + "\n")
    assert not blocked(stop())
    # The person's next prompt, in the same words, is a new turn.
    s.clock += MINUTE
    prompt("u-2", "fix the build")
    assert blocked(stop())


def test_a_turns_mark_is_its_prompts_uuid_or_its_line(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    write_transcript(path, "claude-code", [CHAT[0], WORK[0]])
    by_line = transcript.turn_mark(str(path))
    assert by_line is not None and by_line.startswith("line:")
    # The turn's later lines leave it as it was; a new prompt moves it.
    write_transcript(path, "claude-code", [CHAT[0], WORK[0] + [("say", "and more")]])
    assert transcript.turn_mark(str(path)) == by_line
    write_transcript(path, "claude-code", [CHAT[0], WORK[0], CHAT[0]])
    assert transcript.turn_mark(str(path)) not in (None, by_line)
    assert transcript.turn_mark(str(tmp_path / "missing.jsonl")) is None
    assert transcript.turn_mark(None) is None
