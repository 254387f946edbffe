"""Team ledger benchmark: what the ledger costs the SessionStart hook, and a sync.

    python3 benchmarks/ledger.py                 # 10,000 shared memories
    python3 benchmarks/ledger.py --full          # and a sync of 100,000
    python3 benchmarks/ledger.py --runs 31 --json-out benchmarks/out/ledger.json

SessionStart, run as `hooks/hooks.json` wires it, on copies of one store of
N shared memories: one with a ledger the last sync saw (unchanged since), one
without a ledger, and a git clone with its upstream whose ledger changed
before every run (the upstream's lines plus one line not from upstream, a
claim, and plus another, in turn; three untimed runs first take three claims,
so every timed run finds a change of one claim line read before): the hook
compares the file with the bytes kept beside the store a block at a time,
reads only the lines that changed, and reads from `.git` whether the upstream
is at the commit the store recorded (no git process when it is). Each run starts
`python3 -I -S -c pass`, then the hooks, in an order rotated from run to run;
every figure is the child's CPU time (user + system), the medians over the
runs, and the ratios are of two medians of this one run, printed beside the
target (SessionStart <= 3 x `python3 -I -S -c pass`). The unchanged ledger
must cost the hook one `stat` and one settings row: its ratio should sit on
the no-ledger ratio.

Sync, in process, CPU time: the first sync of a store of N memories (writes
the ledger), a second sync with nothing changed, and a fresh `git clone`'s
first sync (an empty store built from the upstream's ledger, every line
checked, guarded and written through the write path, the upstream's history
read for tombstones and blamed for provenance). Prints one JSON document and a table.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from startup import build_store, child_cpu_ms, clean_env, payload  # noqa: E402
from wired import hook_command, interpreter_flags  # noqa: E402

from tree_ring.model.actor import Actor  # noqa: E402
from tree_ring.store.db import Store  # noqa: E402
from tree_ring.team import sync  # noqa: E402
from tree_ring.team.ledger_report import SyncReport  # noqa: E402

SIZE = 10_000
FULL = 100_000
TARGET = 3.0  # the hooks' start-up target: SessionStart <= 3 x `python3 -I -S -c pass`


def timed_sync(root: Path, project_id: str) -> tuple[float, float, SyncReport]:
    """(CPU s, wall s, report) of one sync in this process."""
    cpu, wall = time.process_time(), time.perf_counter()
    with Store.open(root, create=True) as store:
        report = sync.sync(store, root, project_id, Actor.person())
    return time.process_time() - cpu, time.perf_counter() - wall, report


GIT_ENV = {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
}


def git(cwd: Path, *args: str) -> None:
    env = {**clean_env(cwd), **GIT_ENV}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def publish(root: Path, work: Path, name: str) -> Path:
    """Commit the project and push it to a bare upstream; the upstream's path."""
    hub = work / f"{name}-hub.git"
    git(work, "init", "-q", "--bare", "-b", "main", str(hub))
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "memory")
    git(root, "remote", "add", "origin", str(hub))
    git(root, "push", "-q", "-u", "origin", "main")
    return hub


def sync_figures(work: Path, size: int, name: str) -> tuple[dict[str, Any], Path, str]:
    root = work / name
    project_id = build_store(root, size)
    (root / ".git").mkdir()  # a git repository: the sync writes the ledger
    first_cpu, first_wall, first = timed_sync(root, project_id)
    again_cpu, again_wall, again = timed_sync(root, project_id)
    assert not again.written and not again.imported, "a second sync changed something"
    (root / ".git").rmdir()
    hub = publish(root, work, name)
    clone = work / f"{name}-clone"
    git(work, "clone", "-q", str(hub), clone.name)
    clone_cpu, clone_wall, cloned = timed_sync(clone, project_id)
    assert len(cloned.imported) == first.lines - 2, (len(cloned.imported), first.lines)
    assert not cloned.claimed and cloned.upstream == "refs/remotes/origin/main"
    return (
        {
            "memories": size,
            "ledger_lines": first.lines,
            "ledger_bytes": sync.path_of(root).stat().st_size,
            "first_sync_cpu_s": first_cpu,
            "first_sync_wall_s": first_wall,
            "unchanged_sync_cpu_s": again_cpu,
            "unchanged_sync_wall_s": again_wall,
            "fresh_clone_sync_cpu_s": clone_cpu,
            "fresh_clone_sync_wall_s": clone_wall,
            "fresh_clone_memories_per_s": len(cloned.imported) / clone_wall,
        },
        clone,
        project_id,
    )


def claim_line(ledger: bytes, n: int) -> bytes:
    """One memory line of `ledger` under a new id: a line not from upstream."""
    for piece in ledger.split(b"\n"):
        if b'"record":"memory"' in piece:
            data = json.loads(piece)
            data["id"] = f"mem_20990101_000000_c1a1c1a1c1a{n}"
            data["summary"] = f"A claim written into the working tree, number {n}"
            return json.dumps(data).encode()
    raise AssertionError("no memory line in the ledger")


def measure(work: Path, size: int, runs: int, full: bool) -> dict[str, Any]:
    python = sys.executable
    interpreter = work / "python"
    interpreter.mkdir()
    (interpreter / "python3").symlink_to(python)
    env = clean_env(interpreter)
    figures, cloned, _ = sync_figures(work, size, "shared")
    # Copies of the clone's store, as its sync left it (the clone itself stays as is).
    with_ledger = work / "with-ledger"
    shutil.copytree(cloned, with_ledger, ignore=shutil.ignore_patterns(".git"))
    changing = work / "changing"
    shutil.copytree(cloned, changing)
    without = work / "no-ledger"
    shutil.copytree(with_ledger, without)
    sync.path_of(without).unlink()
    upstream_ledger = sync.path_of(changing).read_bytes()
    # Three versions, each with a line not from upstream. Before the timed runs the
    # hook takes all three claims (the bytes it keeps are then the third version's);
    # the timed runs alternate the first two, so every run finds a change of one
    # claim line it read before.
    versions = [upstream_ledger + claim_line(upstream_ledger, n) + b"\n" for n in (1, 2, 3)]
    for version in versions:
        sync.path_of(changing).write_bytes(version)
        argv, stdin, cwd = (
            hook_command(python, "SessionStart"),
            payload("SessionStart", changing),
            changing,
        )
        child_cpu_ms(argv, stdin=stdin, cwd=cwd, env=env)
    flags = interpreter_flags(python)
    hook = hook_command(python, "SessionStart")
    commands: dict[str, tuple[list[str], bytes, Path]] = {
        "bare": ([python, *flags, "-c", "pass"], b"", with_ledger),
        "start_unchanged_ledger": (hook, payload("SessionStart", with_ledger), with_ledger),
        "start_no_ledger": (hook, payload("SessionStart", without), without),
        "start_changed_ledger": (hook, payload("SessionStart", changing), changing),
    }
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    names = list(commands)
    stamp = sync.fingerprint(sync.path_of(with_ledger))
    changes = 0
    for index in range(runs):
        shift = index % len(names)
        for name in names[shift:] + names[:shift]:
            argv, stdin, cwd = commands[name]
            if name == "start_changed_ledger":
                # A pull or an edit since the last session: the hook must look again.
                changes += 1
                sync.path_of(changing).write_bytes(versions[changes % 2])
            used, _, out = child_cpu_ms(argv, stdin=stdin, cwd=cwd, env=env)
            cpu[name].append(used)
            if name != "bare":
                assert b"recalled" in out, out[:200]
    # The hook only read: the ledger is as the sync left it.
    assert sync.fingerprint(sync.path_of(with_ledger)) == stamp
    median = {name: statistics.median(values) for name, values in cpu.items()}
    report: dict[str, Any] = {
        "runs": runs,
        "python": sys.version.split()[0],
        "sync": figures,
        "cpu_median_ms": median,
        "ratios": {
            "start_unchanged_ledger_vs_bare": median["start_unchanged_ledger"] / median["bare"],
            "start_no_ledger_vs_bare": median["start_no_ledger"] / median["bare"],
            "start_changed_ledger_vs_bare": median["start_changed_ledger"] / median["bare"],
            "unchanged_ledger_vs_no_ledger": median["start_unchanged_ledger"]
            / median["start_no_ledger"],
        },
    }
    if full:
        report["sync_full"], _, _ = sync_figures(work, FULL, "full")
    return report


def table(report: dict[str, Any]) -> str:
    lines = [f"SessionStart, CPU ms (median of {report['runs']} interleaved runs):"]
    lines += [f"  {name:<26} {ms:8.1f}" for name, ms in report["cpu_median_ms"].items()]
    for name, value in report["ratios"].items():
        target = f"  (target <= {TARGET:g}x)" if name.endswith("_vs_bare") else ""
        lines.append(f"  {name:<34} {value:6.2f}x{target}")
    for key in ("sync", "sync_full"):
        if key in report:
            s = report[key]
            lines.append(
                f"sync of {s['memories']:,} shared memories ({s['ledger_lines']:,} lines, "
                f"{s['ledger_bytes']:,} bytes), CPU s:"
            )
            lines += [
                f"  first sync (writes the ledger)  {s['first_sync_cpu_s']:8.2f}",
                f"  unchanged sync                  {s['unchanged_sync_cpu_s']:8.2f}",
                f"  fresh clone (builds the store)  {s['fresh_clone_sync_cpu_s']:8.2f}"
                f"  ({s['fresh_clone_memories_per_s']:,.0f} memories/s wall)",
            ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=SIZE)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--full", action="store_true", help=f"also sync {FULL:,} memories")
    parser.add_argument("--json-out", type=Path)
    parser.add_argument("--work-dir", type=Path)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="tree-ring-ledger-", dir=args.work_dir))
    try:
        report = measure(work, args.size, args.runs, args.full)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    text = json.dumps(report, indent=2)
    if args.json_out:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(text + "\n", encoding="utf-8")
    print(text)
    print(table(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
