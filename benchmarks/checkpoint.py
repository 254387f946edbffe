"""Checkpoint benchmark: the model turns the Stop checkpoint adds to a scripted session.

    python3 benchmarks/checkpoint.py                 # JSON report, then a table
    python3 benchmarks/checkpoint.py --json-out benchmarks/out/checkpoint.json

One scripted 20-turn session (`SCRIPT`: chat, file edits, commands, reads,
a subagent that edits, one that only reads, and a background subagent that
returns after its turn stopped, waking it again), four minutes apart, run
for every cadence and both harnesses through the hook's real entry point
(`tree_ring.hook.adapter.main`, in process, with a scripted clock) against
a fresh project, with transcripts written as each harness writes them.

When a stop blocks, the scripted agent answers as the reason asks: when
work was done since its last checkpoint it runs the capture command (a tool
call and a final answer: two model turns), otherwise it writes nothing (one),
and its next stop carries `stop_hook_active` as the harnesses send it. Each stop the
hook sees is counted; the figures are counts, never times.

Reported per cadence and harness: checkpoints (blocks), model turns added,
characters of reason the model read, the turns that got a checkpoint, and
work turns no checkpoint followed. Beside them, for scale, the rule before
cadences (every Stop and SubagentStop blocked once, `stop_hook_active`
passed), modelled from the same script, not run. The verdicts are computed
from these numbers only.
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tree_ring.harness import checkpoint, guidance  # noqa: E402
from tree_ring.hook import adapter  # noqa: E402
from tree_ring.model.actor import Actor  # noqa: E402
from tree_ring.store.db import Store  # noqa: E402

CADENCES = tuple(checkpoint.CADENCES)
HARNESSES = ("claude-code", "codex")
MINUTES_APART = 4
SESSION = "5b0c6a1e-0d4e-4f57-9a43-2f1c1e7d9b10"
# One turn: what the main agent did, and its subagents ("work" or "read").
# "late" marks a background subagent that returns after the turn's first stop.
SCRIPT: tuple[dict[str, Any], ...] = (
    {"main": "chat"},
    {"main": "edit"},
    {"main": "chat"},
    {"main": "read"},
    {"main": "command"},
    {"main": "chat"},
    {"main": "delegate", "subagents": ["work"]},
    {"main": "chat"},
    {"main": "edit"},
    {"main": "chat"},
    {"main": "chat"},
    {"main": "command"},
    {"main": "read"},
    {"main": "delegate", "subagents": ["read"], "late": "work"},
    {"main": "chat"},
    {"main": "edit"},
    {"main": "chat"},
    {"main": "chat"},
    {"main": "command"},
    {"main": "chat"},
)
WORK_KINDS = ("edit", "command")


def did_work(turn: dict[str, Any]) -> bool:
    return (
        turn["main"] in WORK_KINDS
        or "work" in turn.get("subagents", [])
        or turn.get("late") == "work"
    )


# ------------------------------------------------------------- transcripts


class Transcript:
    """A session file in one harness's format, appended as the session goes."""

    def __init__(self, path: Path, harness: str) -> None:
        self.path, self.harness = path, harness
        self.lines: list[dict[str, Any]] = []

    def prompt(self, text: str) -> None:
        if self.harness == "claude-code":
            self._add({"type": "user", "message": {"role": "user", "content": text}})
        else:
            self._add({"type": "event_msg", "payload": {"type": "task_started"}})
            self._message("user", text)

    def tool(self, name: str, args: dict[str, Any]) -> None:
        if self.harness == "claude-code":
            block = {"type": "tool_use", "id": "t", "name": name, "input": args}
            self._add({"type": "assistant", "message": {"role": "assistant", "content": [block]}})
            result = {"type": "tool_result", "tool_use_id": "t", "content": "ok"}
            self._add({"type": "user", "message": {"role": "user", "content": [result]}})
        else:
            call = {"type": "function_call", "name": name, "arguments": json.dumps(args)}
            self._add({"type": "response_item", "payload": call})
            self._add(
                {
                    "type": "response_item",
                    "payload": {"type": "function_call_output", "output": "ok"},
                }
            )

    def shell(self, command: str) -> None:
        if self.harness == "claude-code":
            self.tool("Bash", {"command": command})
        else:
            self.tool("exec_command", {"cmd": command})

    def say(self, text: str) -> None:
        if self.harness == "claude-code":
            block = {"type": "text", "text": text}
            self._add({"type": "assistant", "message": {"role": "assistant", "content": [block]}})
        else:
            self._message("assistant", text)

    def feedback(self, reason: str) -> None:
        """The hook's reason, back in the conversation as the harness puts it."""
        if self.harness == "claude-code":
            text = f"Stop hook feedback:\n{reason}"
            self._add(
                {"type": "user", "isMeta": True, "message": {"role": "user", "content": text}}
            )
        else:
            self._message("user", f'<hook_prompt hook_run_id="stop:1">{reason}</hook_prompt>')

    def _message(self, role: str, text: str) -> None:
        kind = "input_text" if role == "user" else "output_text"
        item = {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}
        self._add({"type": "response_item", "payload": item})

    def _add(self, entry: dict[str, Any]) -> None:
        self.lines.append(entry)
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")


def act(transcript: Transcript, kind: str) -> None:
    """What a main agent or a subagent does in a turn of `kind`."""
    if kind == "edit":
        name = "Edit" if transcript.harness == "claude-code" else "apply_patch"
        transcript.tool(name, {"file_path": "src/app.py", "patch": "..."})
    elif kind in ("command", "work"):
        transcript.shell("pytest -q tests/test_app.py")
    elif kind == "read":
        transcript.tool("Read" if transcript.harness == "claude-code" else "view_image", {})
    elif kind == "delegate":
        name = "Agent" if transcript.harness == "claude-code" else "spawn_agent"
        transcript.tool(name, {"prompt": "Check the build."})
    transcript.say("Done.")


# ----------------------------------------------------------------- session


class Run:
    """One cadence, one harness: the session played through the hook."""

    def __init__(self, root: Path, harness: str) -> None:
        self.root, self.harness = root, harness
        self.clock_ns = 0
        self.main = Transcript(root.parent / f"{harness}-main.jsonl", harness)
        self.turn_key = "prompt_id" if harness == "claude-code" else "turn_id"
        self.checkpoints: list[int] = []
        self.added_turns = 0
        self.reason_chars = 0
        self.stops = 0
        self.uncaptured = False  # work done since the last checkpoint

    def hook(self, payload: dict[str, Any]) -> dict[str, Any]:
        out = io.BytesIO()
        stdin = io.BytesIO(
            json.dumps({"session_id": SESSION, "cwd": str(self.root), **payload}).encode()
        )
        adapter.main(self.harness, stdin, {}, out, clock=lambda: self.clock_ns)
        text = out.getvalue()
        return json.loads(text) if text else {}

    def stop(self, number: int, turn: dict[str, Any]) -> None:
        payload = {
            "hook_event_name": "Stop",
            "transcript_path": str(self.main.path),
            self.turn_key: f"turn-{number}",
            "stop_hook_active": False,
        }
        self.stops += 1
        out = self.hook(payload)
        if out.get("decision") != "block":
            return
        reason: str = out["reason"]
        self.checkpoints.append(number)
        self.reason_chars += len(reason)
        self.main.feedback(reason)
        if self.uncaptured:
            self.uncaptured = False
            command = next(line for line in reason.splitlines() if " capture " in line)
            self.main.shell(command.replace("ONE_SENTENCE_SUMMARY", "A durable outcome."))
            self.added_turns += 2
        else:
            self.added_turns += 1
        self.main.say("Checkpoint answered.")
        self.stops += 1
        again = self.hook({**payload, "stop_hook_active": True})
        if again.get("decision") == "block":
            raise RuntimeError(f"turn {number}: the stop answering a checkpoint was blocked")

    def subagent(self, number: int, index: int, kind: str) -> None:
        agent = f"agent-{number}-{index}"
        path = self.root.parent / f"{self.harness}-{agent}.jsonl"
        sub = Transcript(path, self.harness)
        sub.prompt("Check the build and report.")
        act(sub, kind)
        payload = {
            "hook_event_name": "SubagentStop",
            "transcript_path": str(self.main.path),
            "agent_transcript_path": str(path),
            "agent_id": agent,
            "agent_type": "general-purpose",
            self.turn_key: f"turn-{number}",
            "stop_hook_active": False,
        }
        self.stops += 1
        if self.hook(payload).get("decision") == "block":
            self.checkpoints.append(number)
            self.added_turns += 1

    def play(self) -> None:
        self.hook({"hook_event_name": "SessionStart", "source": "startup"})
        for number, turn in enumerate(SCRIPT, start=1):
            self.clock_ns += MINUTES_APART * 60 * 10**9
            self.main.prompt(f"Turn {number}.")
            for index, kind in enumerate(turn.get("subagents", [])):
                self.subagent(number, index, kind)
            act(self.main, turn["main"])
            self.uncaptured = self.uncaptured or did_work(turn)
            self.stop(number, turn)
            if "late" in turn:
                # A background subagent returns; the harness wakes the same turn.
                self.subagent(number, 9, turn["late"])
                self.uncaptured = self.uncaptured or turn["late"] == "work"
                self.main.say("The background check is back.")
                self.stop(number, turn)


def play(cadence: str, harness: str, work: Path) -> dict[str, Any]:
    root = work / f"{cadence}-{harness}" / "project"
    root.mkdir(parents=True)
    guidance.init_project(root)
    with Store.open(root, create=True) as store, store.write() as db:
        checkpoint.set_value(db, checkpoint.MODE, cadence, Actor.person())
    run = Run(root, harness)
    run.play()
    work_turns = [n for n, turn in enumerate(SCRIPT, start=1) if did_work(turn)]
    last = max(run.checkpoints, default=0)
    return {
        "checkpoints": len(run.checkpoints),
        "added_model_turns": run.added_turns,
        "reason_chars": run.reason_chars,
        "stops_seen": run.stops,
        "checkpoint_turns": run.checkpoints,
        "max_per_turn": max((run.checkpoints.count(n) for n in run.checkpoints), default=0),
        "work_turns_after_last_checkpoint": [n for n in work_turns if n > last],
    }


def previous_rule() -> dict[str, int]:
    """Every Stop and SubagentStop blocked once: counted from the script, not run.
    An answer costs two model turns when there is work to capture, else one."""
    blocks = added = 0

    def block(work: bool) -> None:
        nonlocal blocks, added
        blocks += 1
        added += 2 if work else 1

    for turn in SCRIPT:
        for kind in turn.get("subagents", []):
            block(kind == "work")
        block(turn["main"] in WORK_KINDS or "work" in turn.get("subagents", []))
        if "late" in turn:
            block(turn["late"] == "work")  # the late subagent's own stop
            block(turn["late"] == "work")  # the turn woken again
    return {"checkpoints": blocks, "added_model_turns": added}


def verdicts(
    results: dict[str, dict[str, dict[str, Any]]], work_turns: list[int]
) -> dict[str, bool]:
    def each(cadence: str, key: str) -> list[Any]:
        return [results[cadence][h][key] for h in HARNESSES]

    after, every = results["after-work"], results["every-stop"]
    return {
        "one_checkpoint_per_turn_at_most": all(
            results[c][h]["max_per_turn"] <= 1 for c in CADENCES for h in HARNESSES
        ),
        "off_adds_no_model_turn": each("off", "added_model_turns") == [0, 0],
        "after_work_adds_fewer_turns_than_every_stop": all(
            after[h]["added_model_turns"] < every[h]["added_model_turns"] for h in HARNESSES
        ),
        "every_stop_asks_once_per_turn": each("every-stop", "checkpoints") == [len(SCRIPT)] * 2,
        "after_work_first_asks_at_the_first_work": all(
            after[h]["checkpoint_turns"][:1] == work_turns[:1] for h in HARNESSES
        ),
        "session_end_asks_once": each("session-end", "checkpoints") == [1, 1],
    }


def run(work: Path) -> dict[str, Any]:
    results = {c: {h: play(c, h, work) for h in HARNESSES} for c in CADENCES}
    work_turns = [n for n, turn in enumerate(SCRIPT, start=1) if did_work(turn)]
    return {
        "turns": len(SCRIPT),
        "minutes_apart": MINUTES_APART,
        "work_turns": work_turns,
        "interval_minutes": checkpoint.from_values({}).interval_minutes,
        "results": results,
        "previous_rule_modelled": previous_rule(),
        "verdicts": verdicts(results, work_turns),
    }


def table(report: dict[str, Any]) -> str:
    head = (
        f"{report['turns']} turns, {report['minutes_apart']} minutes apart, "
        f"{len(report['work_turns'])} with work; after-work interval "
        f"{report['interval_minutes']} min"
    )
    rows = [head, f"{'cadence':<12} {'harness':<12} {'checkpoints':>11} {'added turns':>11} "
            f"{'reason chars':>12}  asked at turns"]  # fmt: skip
    for cadence, by_harness in report["results"].items():
        for harness, r in by_harness.items():
            rows.append(
                f"{cadence:<12} {harness:<12} {r['checkpoints']:>11} {r['added_model_turns']:>11} "
                f"{r['reason_chars']:>12}  {', '.join(map(str, r['checkpoint_turns'])) or '-'}"
            )
    old = report["previous_rule_modelled"]
    rows.append(
        f"{'before':<12} {'(modelled)':<12} {old['checkpoints']:>11} {old['added_model_turns']:>11}"
    )
    rows += [f"{name}: {'yes' if ok else 'NO'}" for name, ok in report["verdicts"].items()]
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json-out", type=Path, help="also write the JSON report here")
    parser.add_argument("--work-dir", type=Path, help="where the projects go (default: a temp dir)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tree-ring-checkpoint-", dir=args.work_dir))
    try:
        report = run(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    document = json.dumps(report, indent=1, sort_keys=True)
    if args.json_out:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(document + "\n", encoding="utf-8")
    print(document)
    print(table(report))
    return 0 if all(report["verdicts"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
