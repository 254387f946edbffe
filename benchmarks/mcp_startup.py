"""MCP server start-up against the SessionStart hook's, as processes, in one run.

    python3 benchmarks/mcp_startup.py                 # 1,000 memories, 30 runs each
    python3 benchmarks/mcp_startup.py --runs 60 --memories 10000
    python3 benchmarks/mcp_startup.py --quick --json-only

Interleaved, in one project with the same store:

- hook: the SessionStart hook exactly as `hooks/hooks.json` wires it, a
  Claude Code payload on stdin, until it exits;
- mcp: `tree-ring mcp` exactly as `.mcp.json` wires it (the `${CLAUDE_PLUGIN_ROOT}`
  it names, Claude Code's environment variables), sent `initialize`,
  `notifications/initialized` and `tools/list` (what a harness does before
  the tools are usable), timed to the `tools/list` answer and to its exit
  once stdin closes;
- pass: `python3 <the same flags> -c pass`, the interpreter's own floor.

Both wall-clock and CPU time (user + system of the child, from
`resource.getrusage`), medians; the machine is shared, so CPU time is the
figure to read when they disagree. Target, reported and never asserted:
the server's start-up within 2x the hook's.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
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

import corpus  # noqa: E402
from latency import clean_env, hook_payload, real_python3  # noqa: E402
from wired import hook_command, interpreter_flags  # noqa: E402

from tree_ring.harness import guidance  # noqa: E402
from tree_ring.model import project  # noqa: E402
from tree_ring.store.db import Store  # noqa: E402

TARGET_RATIO = 2.0
SESSION = "0b6f3c1e-bench-4d2a-9f0e-5a7c2b1d8e90"
HANDSHAKE = b"".join(
    json.dumps(m).encode() + b"\n"
    for m in (
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    )
)


def server_command(python: str) -> list[str]:
    """The server command as `.mcp.json` wires it, with `python` for python3."""
    entry = json.loads((REPO / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]["tree-ring"]
    if entry["command"] != "python3":
        raise SystemExit(f".mcp.json runs {entry['command']!r}, not python3")
    return [python, *(a.replace("${CLAUDE_PLUGIN_ROOT}", str(REPO)) for a in entry["args"])]


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_plain(
    cmd: list[str], stdin: bytes | None, cwd: Path, env: dict[str, str]
) -> dict[str, float]:
    cpu, started = child_cpu(), time.perf_counter()
    subprocess.run(cmd, input=stdin, capture_output=True, cwd=cwd, env=env, check=False)
    return {"wall_ms": (time.perf_counter() - started) * 1000, "cpu_ms": (child_cpu() - cpu) * 1000}


def run_server(cmd: list[str], cwd: Path, env: dict[str, str]) -> dict[str, float]:
    cpu, started = child_cpu(), time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=cwd,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(HANDSHAKE)
    proc.stdin.flush()
    replies = [json.loads(proc.stdout.readline()) for _ in range(2)]
    ready = time.perf_counter()
    proc.stdin.close()
    proc.wait()
    done = time.perf_counter()
    if replies[1].get("id") != 2 or not replies[1].get("result", {}).get("tools"):
        raise SystemExit(f"the server did not list its tools: {replies}")
    return {
        "ready_ms": (ready - started) * 1000,
        "wall_ms": (done - started) * 1000,
        "cpu_ms": (child_cpu() - cpu) * 1000,
    }


def medians(runs: list[dict[str, float]]) -> dict[str, float]:
    return {key: round(statistics.median(r[key] for r in runs), 2) for key in runs[0]}


def measure(memories: int, runs: int) -> dict[str, Any]:
    python = real_python3()
    env = clean_env()
    # Up-to-date bytecode, as after the plugin's first run.
    subprocess.run(
        [python, "-m", "compileall", "-q", str(REPO / "tree_ring")], env=env, check=False
    )
    with tempfile.TemporaryDirectory(prefix="tree-ring-mcp-start-") as tmp:
        root = Path(tmp) / "app"
        root.mkdir()
        guidance.init_project(root)
        project_id = project.load_project_id(root)
        with Store.open(root) as store:
            corpus.seed(store, corpus.build(memories, 10, project=project_id).memories)
        server_env = {
            **env,
            "CLAUDECODE": "1",
            "CLAUDE_CODE_SESSION_ID": SESSION,
            "CLAUDE_PROJECT_DIR": str(root),
            "CLAUDE_PLUGIN_ROOT": str(REPO),
        }
        hook_cmd, mcp_cmd = hook_command(python), server_command(python)
        pass_cmd = [python, *interpreter_flags(python), "-c", "pass"]
        payload = hook_payload(root)
        results: dict[str, list[dict[str, float]]] = {"hook": [], "mcp": [], "pass": []}
        for _ in range(runs):  # interleaved, so load changes hit all alike
            results["hook"].append(run_plain(hook_cmd, payload, root, env))
            results["mcp"].append(run_server(mcp_cmd, root, server_env))
            results["pass"].append(run_plain(pass_cmd, None, root, env))
    hook, mcp, floor = (medians(results[k]) for k in ("hook", "mcp", "pass"))
    ratios = {
        "cpu": round(mcp["cpu_ms"] / hook["cpu_ms"], 2),
        "wall_to_exit": round(mcp["wall_ms"] / hook["wall_ms"], 2),
        "wall_to_ready": round(mcp["ready_ms"] / hook["wall_ms"], 2),
    }
    return {
        "benchmark": "mcp_startup",
        "python": python,
        "memories": memories,
        "runs": runs,
        "hook_command": shlex.join(hook_cmd[1:]),
        "mcp_command": shlex.join(mcp_cmd[1:]),
        "median_ms": {"hook": hook, "mcp": mcp, "python_pass": floor},
        "mcp_over_hook": ratios,
        "target": {"mcp_over_hook_at_most": TARGET_RATIO},
        "within_target": ratios["cpu"] <= TARGET_RATIO,
        "os_cpus": os.cpu_count(),
    }


def table(result: dict[str, Any]) -> str:
    m = result["median_ms"]
    r = result["mcp_over_hook"]
    return "\n".join(
        [
            f"{'':12}{'wall ms':>10}{'cpu ms':>10}",
            f"{'hook':12}{m['hook']['wall_ms']:>10.1f}{m['hook']['cpu_ms']:>10.1f}",
            f"{'mcp ready':12}{m['mcp']['ready_ms']:>10.1f}{'':>10}",
            f"{'mcp exit':12}{m['mcp']['wall_ms']:>10.1f}{m['mcp']['cpu_ms']:>10.1f}",
            f"{'python pass':12}{m['python_pass']['wall_ms']:>10.1f}"
            f"{m['python_pass']['cpu_ms']:>10.1f}",
            f"mcp / hook: cpu {r['cpu']:.2f}x, wall to exit {r['wall_to_exit']:.2f}x, "
            f"wall to tools/list {r['wall_to_ready']:.2f}x (target <= {TARGET_RATIO:.1f}x)",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=30, help="runs of each, interleaved")
    parser.add_argument("--memories", type=int, default=1_000, help="memories in the store")
    parser.add_argument("--quick", action="store_true", help="5 runs over 200 memories")
    parser.add_argument("--json-only", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        args.runs, args.memories = 5, 200
    result = measure(args.memories, args.runs)
    print(json.dumps(result, indent=2, sort_keys=True))
    if not args.json_only:
        print(table(result), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
