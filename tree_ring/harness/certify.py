"""Certification reports: `integrations certify` and `recall-quality`.

Each writes one JSON document and one Markdown summary under an output
folder (by default `target/tree-ring-certification/` in the project, where
the original Tree Ring writes its evidence), and passes or fails as a whole.

`integrations certify` adds to `integrations status` a live round trip per
harness: the hooks are run as the harness runs them (the command its hooks
file wires, through a shell, with the plugin root filled in and a payload on
stdin) against this project's store. SessionStart must print exactly
`{"hookSpecificOutput": {"hookEventName", "additionalContext"}}` with a fenced
brief within its budget and leave a receipt whose count matches it; Stop
must block with exactly `{"decision": "block", "reason"}` naming the capture
command; a Stop with `stop_hook_active` must not block again. Codex refuses
output with any other field, so these are exact. The receipts the round
trip writes are put back as they were, so it does not count as a session.
A marker alone never passes: a harness with the plugin installed must have
it enabled, its hooks wired and (Codex) trusted. Nor does nothing: with Tree
Ring installed in no harness, the round trip proves only this plugin
directory, so the certification fails and says how to install it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from tree_ring.harness import checkpoint, integrations
from tree_ring.harness.receipts import read_receipt
from tree_ring.model import outputs, project
from tree_ring.model.record import now_iso
from tree_ring.read import brief
from tree_ring.upkeep import quality

DEFAULT_OUT = Path("target") / "tree-ring-certification"
NAMES = {"claude-code": "Claude Code", "codex": "Codex"}
HOOK_TIMEOUT_S = 15.0


def nothing_installed(harnesses: list[dict[str, Any]]) -> str:
    """Why a certification with the plugin in no harness fails, and how to
    install it: in the harnesses here that lack it, or else in either."""
    here = [h["id"] for h in harnesses if h["installed"]]
    lacking = (
        f" ({' and '.join(NAMES[i] for i in here)} {'is' if len(here) == 1 else 'are'} "
        "here without the plugin)"
        if here
        else ""
    )
    where = " or ".join(
        f"{NAMES[i]} ({integrations.install_commands(i)})" for i in here or list(NAMES)
    )
    return (
        f"no harness has Tree Ring installed{lacking}, so nothing was certified: install it "
        f"in {where}, then run `tree-ring integrations certify` again"
    )


def write_files(
    folder: Path,
    names: tuple[str, str],
    data: dict[str, Any],
    markdown: str,
    environ: Mapping[str, str],
) -> list[str]:
    """The JSON document and the Markdown summary in `folder`, each replaced
    whole (`outputs`: never inside Tree Ring's own folders)."""
    outputs.make_folder(folder, environ)
    written: list[str] = []
    texts = (json.dumps(data, indent=2, sort_keys=True) + "\n", markdown)
    for name, text in zip(names, texts, strict=True):
        path = folder / name
        outputs.write_text(path, text, environ)
        written.append(str(path))
    return written


# -- the live hook round trip --------------------------------------------------


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


def hook_command(harness: str, plugin_root: Path, event: str) -> tuple[str, float]:
    """The command (and timeout) the plugin's hooks file wires for `event`."""
    name = "hooks.json" if harness == "claude-code" else "codex-hooks.json"
    table = integrations.load_hooks(plugin_root / "hooks" / name)
    for group in cast(list[Any], table.get(event) or []):
        for hook in cast(list[Any], integrations.as_table(group).get("hooks") or []):
            entry = integrations.as_table(hook)
            command = entry.get("command")
            if isinstance(command, str):
                timeout = entry.get("timeout")
                seconds = float(timeout) if isinstance(timeout, int | float) else HOOK_TIMEOUT_S
                return command.replace("${CLAUDE_PLUGIN_ROOT}", str(plugin_root)), seconds
    raise LookupError(f"{name} wires no {event} hook")


def _run_hook(
    command: str, timeout: float, payload: dict[str, Any], plugin_root: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    shell = shutil.which("sh", path=env.get("PATH")) or "/bin/sh"
    return subprocess.run(
        [shell, "-c", command],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**env, "CLAUDE_PLUGIN_ROOT": str(plugin_root)},
        check=False,
    )


def _output(proc: subprocess.CompletedProcess[str]) -> dict[str, Any] | None:
    if proc.returncode != 0 or not proc.stdout.strip():
        return None
    try:
        value = json.loads(proc.stdout)
    except ValueError:
        return None
    return integrations.as_table(value) if isinstance(value, dict) else None


# A turn that ran a command, as a transcript line: the Stop hook's default
# cadence (after-work) asks only after one. The hook reads this shape from
# either harness's transcript.
WORK_TURN = (
    '{"type": "user", "message": {"role": "user", "content": "Run the tests."}}\n'
    '{"type": "assistant", "message": {"role": "assistant", "content": '
    '[{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "make test"}}]}}\n'
)


def round_trip(harness: str, root: Path, plugin_root: Path, env: dict[str, str]) -> list[Check]:
    """Run SessionStart, Stop after a turn with work, and Stop again with
    stop_hook_active, and check each output."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="tree-ring-certify-") as folder:
        transcript = Path(folder) / "transcript.jsonl"
        transcript.write_text(WORK_TURN, encoding="utf-8")
        return _round_trip(harness, root, plugin_root, env, transcript)


def _round_trip(
    harness: str, root: Path, plugin_root: Path, env: dict[str, str], transcript: Path
) -> list[Check]:
    checks: list[Check] = []
    session = f"certify-{os.urandom(6).hex()}"
    base = {"session_id": session, "cwd": str(root), "transcript_path": str(transcript)}
    receipt = project.receipts_dir(root) / f"{harness}.json"
    try:
        command, timeout = hook_command(harness, plugin_root, "SessionStart")
        start = _run_hook(
            command,
            timeout,
            base | {"hook_event_name": "SessionStart", "source": "startup"},
            plugin_root,
            env,
        )
        out = _output(start)
        context = integrations.as_table((out or {}).get("hookSpecificOutput"))
        text = context.get("additionalContext")
        exact = (
            out is not None
            and set(out) == {"hookSpecificOutput"}
            and set(context) == {"hookEventName", "additionalContext"}
            and context.get("hookEventName") == "SessionStart"
            and isinstance(text, str)
        )
        detail = f"exit {start.returncode}, {len(start.stdout.encode())} bytes"
        checks.append(Check("SessionStart output matches the schema", exact, detail))
        if exact and isinstance(text, str):
            inside = text.partition(brief.BEGIN)[2].partition(brief.END)[0]
            fenced = bool(inside) or "no memories to recall" in text
            size = len(text.encode("utf-8"))
            checks.append(
                Check(
                    "SessionStart brief is fenced and within budget",
                    fenced and size <= brief.MAX_BYTES,
                    f"{size} bytes",
                )
            )
            lines = [ln for ln in inside.splitlines() if ln and not ln.startswith("[history]")]
            kept = read_receipt(receipt) if _real_folder(receipt.parent) else {}
            count = integrations.as_table(kept.get("last_brief")).get("count")
            checks.append(
                Check(
                    "SessionStart left a receipt matching the brief",
                    count == len(lines),
                    f"receipt count {count}, brief lines {len(lines)}",
                )
            )
        command, timeout = hook_command(harness, plugin_root, "Stop")
        stop = _run_hook(
            command, timeout, base | {"hook_event_name": "Stop", "stop_hook_active": False},
            plugin_root, env,
        )  # fmt: skip
        out = _output(stop)
        reason = (out or {}).get("reason")
        detail = f"exit {stop.returncode}, {len(stop.stdout.encode())} bytes"
        if checkpoint.stored(root).mode == "off":
            # The project turned the checkpoint off: the Stop hook must say nothing.
            passed = stop.returncode == 0 and out is not None and "decision" not in out
            checks.append(Check("Stop passes (checkpoint: off)", passed, detail))
        else:
            exact = (
                out is not None
                and set(out) == {"decision", "reason"}
                and out.get("decision") == "block"
                and isinstance(reason, str)
                and " capture " in reason
            )
            checks.append(Check("Stop blocks once with the capture command", exact, detail))
        again = _run_hook(
            command, timeout, base | {"hook_event_name": "Stop", "stop_hook_active": True},
            plugin_root, env,
        )  # fmt: skip
        passes = again.returncode == 0 and (_output(again) or {}).get("decision") != "block"
        checks.append(Check("a second Stop passes", passes, f"exit {again.returncode}"))
    except (OSError, LookupError, subprocess.TimeoutExpired) as exc:
        checks.append(Check("the hooks ran", False, f"{type(exc).__name__}: {exc}"))
    return checks


def _real_folder(folder: Path) -> bool:
    """A directory, not a link to one (`project.receipts_problem`)."""
    return folder.is_dir() and not folder.is_symlink()


def _snapshot(folder: Path) -> dict[str, bytes] | None:
    if not _real_folder(folder):
        return None
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


def _restore(folder: Path, saved: dict[str, bytes] | None) -> None:
    """Put the receipts back as they were: the round trip was not a session."""
    if not _real_folder(folder):
        return  # a link there is never followed, to read or to remove
    for path in folder.iterdir():
        if path.is_file() and (saved is None or path.name not in saved):
            path.unlink()
    for name, data in (saved or {}).items():
        tmp = folder / f".restore-{name}"
        tmp.write_bytes(data)
        os.replace(tmp, folder / name)
    if saved is None:
        folder.rmdir()


def certify(root: Path, environ: Mapping[str, str], out_dir: Path) -> dict[str, Any]:
    """Status, the live round trip for each harness, and the report files."""
    folder_out = out_dir / "integrations"
    outputs.make_folder(folder_out, environ)  # before the round trips: a bad folder costs nothing
    harnesses = integrations.status(root, environ)
    env = {k: v for k, v in environ.items() if k != "TREE_RING_HOOKS"}
    results: list[dict[str, Any]] = []
    folder = project.receipts_dir(root)
    for harness in harnesses:
        installed = Path(harness.plugin_path) if harness.plugin_path else None
        plugin_root = (
            installed if installed and harness.hooks == "wired" else integrations.PLUGIN_ROOT
        )
        saved = _snapshot(folder)
        try:
            checks = round_trip(harness.id, root, plugin_root, env)
        finally:
            _restore(folder, saved)
        plugin_ok = harness.plugin == "missing" or not any(
            gap for gap, _ in harness.gaps if "plugin" in gap or "trusted" in gap
        )
        results.append(
            harness.to_dict()
            | {
                "round_trip_plugin": str(plugin_root),
                "checks": [c.__dict__ for c in checks],
                "passed": plugin_ok and all(c.ok for c in checks),
            }
        )
    # Installed means the plugin is there (enabled or not): a harness alone
    # runs no Tree Ring hook, and the round trip then proves only this folder.
    installed = any(r["plugin"] != "missing" for r in results)
    data: dict[str, Any] = {
        "schema_version": 1,
        "generated_at": now_iso(),
        "project_root": str(root),
        "project": project.load_project_id(root),
        "passed": installed and all(r["passed"] for r in results),
        "next": "" if installed else nothing_installed(results),
        "harnesses": results,
        "scan": [d.to_dict() for d in integrations.scan(root, environ)],
    }
    names = ("certification.json", "certification.md")
    data["files"] = write_files(folder_out, names, data, _markdown(data), environ)
    return data


def _markdown(data: dict[str, Any]) -> str:
    lines = [
        "# Tree Ring integration certification",
        "",
        f"Project `{data['project']}` at `{data['project_root']}`, {data['generated_at']}: "
        f"**{'passed' if data['passed'] else 'FAILED'}**.",
        "",
    ]
    if data["next"]:
        lines += [data["next"], ""]
    for h in data["harnesses"]:
        lines += [
            f"## {h['name']}: {h['state']} ({'passed' if h['passed'] else 'FAILED'})",
            "",
            f"- plugin: {h['plugin']} ({h['plugin_path'] or 'not installed'})",
            f"- hooks: {h['hooks']}; trust: {h['trust']}",
            f"- last brief: {h['last_brief'] or 'never'}; last stop: {h['last_stop'] or 'never'}",
            f"- live round trip with `{h['round_trip_plugin']}`:",
        ]
        lines += [
            f"  - {'ok' if c['ok'] else 'FAIL'}: {c['name']} ({c['detail']})" for c in h["checks"]
        ]
        lines += [f"- gap: {g['gap']}; fix: {g['fix']}" for g in h["gaps"]]
        lines.append("")
    detected = [d for d in data["scan"] if d["status"] == "detected"]
    lines.append("## Other markers")
    lines += [
        f"- {d['name']}: " + ", ".join(f"{m['origin']}:{m['path']}" for m in d["markers"])
        for d in detected
    ] or ["- none"]
    return "\n".join(lines) + "\n"


# -- recall quality -------------------------------------------------------------


def recall_quality(paths: list[Path], out_dir: Path, environ: Mapping[str, str]) -> dict[str, Any]:
    """Run the quality scenarios and write their certification report."""
    outputs.make_folder(out_dir / "quality", environ)  # before the scenarios run
    report = quality.run(paths)
    data: dict[str, Any] = {
        "schema_version": 1,
        "generated_at": now_iso(),
        "scenario_paths": [str(p) for p in paths],
        "status": "pass" if report.passed else "fail",
    } | report.to_dict()
    lines = [
        "# Tree Ring recall quality",
        "",
        f"{data['generated_at']}: **{data['status']}**. {quality.summary_line(data)}.",
        "",
        "| scenario | category | expected found | forbidden recalled | result |",
        "|---|---|---|---|---|",
    ]
    for s in report.scenarios:
        found = f"{len(s.expected) - len(s.missed)}/{len(s.expected)}"
        leaked = f"{len(s.forbidden_recalled)}/{len(s.forbidden)}"
        result = "pass" if s.passed else f"FAIL{': ' + s.error if s.error else ''}"
        lines.append(f"| {s.name} | {s.category} | {found} | {leaked} | {result} |")
    names = ("quality-report.json", "quality-summary.md")
    markdown = "\n".join(lines) + "\n"
    data["files"] = write_files(out_dir / "quality", names, data, markdown, environ)
    return data
