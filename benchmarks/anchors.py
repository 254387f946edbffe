"""Anchors benchmark: the SessionStart hook with anchored memories.

    python3 benchmarks/anchors.py                 # 500 anchored memories, 21 runs
    python3 benchmarks/anchors.py --runs 41 --json-out benchmarks/out/anchors.json

A project of `SIZE` memories, each anchored to one of `FILES` source files
(the files a real project's memories name), the eight the brief shows
anchored too. Three commands, each started once per run in an order rotated
from run to run, CPU time (user + system) of the child process from
`getrusage(RUSAGE_CHILDREN)`, medians over the runs:

- `bare`: `python3 -I -S -c pass`;
- `session_start`: the SessionStart hook as hooks.json runs it, every
  anchored file as it was written (a `stat` each, no hash);
- `session_start_changed`: the same, with one of the brief's files changed
  in place to the same size (its time moved, so it is read and hashed, and
  its line is marked stale).

Targets: each hook at most 3x `bare`. Prints one JSON document, then a table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from startup import child_cpu_ms, clean_env, payload  # noqa: E402
from wired import hook_command, interpreter_flags  # noqa: E402

from tree_ring.harness import guidance  # noqa: E402
from tree_ring.model import anchor, project  # noqa: E402
from tree_ring.model.actor import Actor  # noqa: E402
from tree_ring.model.record import now_iso  # noqa: E402
from tree_ring.store import anchors as stored  # noqa: E402
from tree_ring.store.db import Store  # noqa: E402
from tree_ring.write import verbs  # noqa: E402

SIZE = 500
FILES = 50
TARGET = 3.0
# A source file of a usual size: hashing it is the changed run's extra work.
SOURCE = ("def retry(n):\n    return min(2 ** n, 30)\n" * 200).encode()


def build(root: Path) -> Path:
    """The project; returns the file of the brief's first line."""
    root.mkdir()
    guidance.init_project(root)
    project_id = project.load_project_id(root)
    folder = root / "src"
    folder.mkdir()
    for n in range(FILES):
        (folder / f"module_{n:03d}.py").write_bytes(SOURCE)
    person = Actor.person()
    identity = verbs.Identity(project_id, None, None, None)
    at = now_iso()
    with Store.open(root) as store:
        for n in range(SIZE):
            # The last eight written are the most salient: the brief's lines.
            salience = 0.9 if n >= SIZE - 8 else 0.4
            draft = verbs.Draft(f"Module {n} retries back off to 30 s", salience=salience)
            result = verbs.remember(store, draft, identity, person)
            rel = f"src/module_{n % FILES:03d}.py"
            with store.write() as db:
                stored.insert(db, result.id, [anchor.measure(str(root), rel, None, at)])
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return folder / f"module_{(SIZE - 1) % FILES:03d}.py"


def change_in_place(path: Path) -> None:
    """Same size, other bytes, a later time: the check must read and hash it."""
    data = bytearray(path.read_bytes())
    data[0:3] = b"DEF"
    path.write_bytes(bytes(data))


def measure(work: Path, runs: int) -> dict[str, Any]:
    python = sys.executable
    interpreter = work / "python"
    interpreter.mkdir()
    (interpreter / "python3").symlink_to(python)
    env = clean_env(interpreter)
    env["TREE_RING_USER_HOME"] = str(work / "no-user-store")
    fresh_root = work / "fresh"
    build(fresh_root)
    changed_root = work / "changed"
    change_in_place(build(changed_root))
    os.sync()
    flags = interpreter_flags(python)
    commands: dict[str, tuple[list[str], bytes, Path]] = {
        "bare": ([python, *flags, "-c", "pass"], b"", work),
        "session_start": (
            hook_command(python, "SessionStart"),
            payload("SessionStart", fresh_root),
            fresh_root,
        ),
        "session_start_changed": (
            hook_command(python, "SessionStart"),
            payload("SessionStart", changed_root),
            changed_root,
        ),
    }
    outputs: dict[str, bytes] = {}
    for name, (argv, stdin, cwd) in commands.items():  # warm the page cache
        outputs[name] = child_cpu_ms(argv, stdin=stdin, cwd=cwd, env=env)[2]
    fresh_brief = json.loads(outputs["session_start"])["hookSpecificOutput"]["additionalContext"]
    changed_brief = json.loads(outputs["session_start_changed"])["hookSpecificOutput"][
        "additionalContext"
    ]
    assert fresh_brief.count("Module") == 8 and "stale:" not in fresh_brief, fresh_brief
    assert changed_brief.count("(stale: src/") >= 1, changed_brief
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    names = list(commands)
    for run in range(runs):
        for name in names[run % len(names) :] + names[: run % len(names)]:
            argv, stdin, cwd = commands[name]
            cpu[name].append(child_cpu_ms(argv, stdin=stdin, cwd=cwd, env=env)[0])
    medians = {name: statistics.median(values) for name, values in cpu.items()}
    ratios = {
        f"{name}_vs_bare": medians[name] / medians["bare"]
        for name in ("session_start", "session_start_changed")
    }
    return {
        "memories": SIZE,
        "files": FILES,
        "runs": runs,
        "cpu_ms": medians,
        "ratios": ratios,
        "targets": {key: TARGET for key in ratios},
        "stale_lines_in_changed_brief": changed_brief.count("(stale: "),
    }


def table(report: dict[str, Any]) -> str:
    rows = [f"{'figure':<32} {'value':>8} {'target':>8}"]
    for name, value in report["cpu_ms"].items():
        rows.append(f"{name + ' (CPU ms)':<32} {value:>8.1f} {'':>8}")
    for name, ratio in report["ratios"].items():
        ok = "ok" if ratio <= report["targets"][name] else "OVER"
        rows.append(f"{name:<32} {ratio:>7.2f}x {report['targets'][name]:>7.1f}x {ok}")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tree-ring-anchors-") as folder:
        report = measure(Path(folder), args.runs)
    text = json.dumps(report, indent=2, sort_keys=True)
    print(text)
    print(table(report))
    if args.json_out:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(text + "\n", encoding="utf-8")
    return 0 if all(r <= TARGET for r in report["ratios"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
