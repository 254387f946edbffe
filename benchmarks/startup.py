"""Start-up benchmark: the hooks and the CLI as the processes a harness or a person starts.

    python3 benchmarks/startup.py                  # a store of 100,000 memories
    python3 benchmarks/startup.py --quick          # 1,000 memories
    python3 benchmarks/startup.py --runs 31 --json-out benchmarks/out/startup.json

Every figure is the CPU time (user + system) of one child process, read from
`resource.getrusage(RUSAGE_CHILDREN)` before and after it: other people's load
on a shared machine stretches wall time, hardly CPU time. Each run starts every
command once, in an order rotated from run to run, so each command meets the
same conditions as its baseline; the figures are medians over the runs, and
every target is a ratio of two medians of this one run:

- the SessionStart hook, run as `hooks/hooks.json` wires it (`python3 -I -S
  hooks/tree_ring_hook.py claude-code`, a SessionStart payload on stdin, the
  project as cwd), against `python3 -I -S -c pass` (target: at most 3x), and
  beside a minimal standard-library "hook" that imports json and sqlite3,
  opens the store, selects 8 rows and prints them as JSON;
- the same SessionStart hook with a user store (`USER_SIZE` of the person's
  global memories in `TREE_RING_USER_HOME`), whose brief carries two of
  them (target: at most 3x too); every other command runs without one;
- the same SessionStart hook, with a user store, in a project whose store
  and user store each forgot something: a copy of the project that forgot a
  claim a global note written from elsewhere holds (the brief hides it), with
  a user store that forgot a note (the project's rows are read against it):
  every row the brief reads is keyed against the other store's tombstones
  the first time, and the answers kept then serve the runs after
  (`read/brief_checks.py`; target: at most 3x too);
- the same SessionStart hook as the first session after a capture: each run,
  outside the clock, writes a scar the brief shows first and has not read
  before (the write keeps the guard's answer for it, `store/guard_answers.py`;
  target: at most 3x too);
- the same SessionStart hook in a git repository whose index lists
  `REPOSITORY_FILES` other paths, as a large checkout's does (the hook reads
  the index to refuse a store git tracks), beside the one above;
- the Stop hook, the same way with a Stop payload (target: at most 3.5x),
  on its longest path: the payload names a transcript of `TRANSCRIPT_BYTES`
  whose last turn ran a command, and carries no turn id, and the store's
  `checkpoint.interval` is 0, so every run reads the cadence from the store,
  reads the transcript's tail, writes the session's state and blocks;
- `tree-ring recall QUERY` through the shim `install.sh` writes, run in the
  project, against a `python3 -I -S -c` that imports sqlite3, opens the
  store and runs one FTS5 MATCH of the same words, ranked, first 10 rows
  (target: at most 2x);
- `tree-ring remember TEXT` through the shim, and the guard's share of it:
  a probe process runs the same CLI call in-process and reports the CPU spent
  importing the guard and in `check_fields`, and how many patterns (rules'
  and prefilter anchors') and keyword terms it compiled (target: none beyond those the text's
  prefilter admits, and the guard under a tenth of the call).

The store is built outside the clock with `tree_ring.write.bulk.insert_many`
from `scale.py`'s corpus. Prints one JSON document, then a table of each
figure beside its target.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from itertools import islice
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from scale import SEED, Corpus  # noqa: E402
from wired import hook_command, interpreter_flags  # noqa: E402

from tree_ring.harness import guidance  # noqa: E402
from tree_ring.model import project, user_home  # noqa: E402
from tree_ring.model.actor import Actor  # noqa: E402
from tree_ring.store import schema, settings  # noqa: E402
from tree_ring.store.db import Store  # noqa: E402
from tree_ring.store.user import USER_PROJECT  # noqa: E402
from tree_ring.write import bulk  # noqa: E402

FULL_SIZE = 100_000
QUICK_SIZE = 1_000
BATCH = 10_000
# The paths the large repository's index lists besides the project's own.
REPOSITORY_FILES = 100_000
USER_SIZE = 200  # a person's global notes: far more than anyone writes by hand
FIXTURES = REPO / "tests" / "fixtures" / "hooks"
# The scar written before each run of the first SessionStart after a capture.
CAPTURED = "Migrations on the primary took the site down; run them on a replica first"

TARGETS = {
    "session_start_vs_bare": 3.0,
    "session_start_user_vs_bare": 3.0,
    "session_start_forgot_vs_bare": 3.0,
    "session_start_after_capture_vs_bare": 3.0,
    "stop_vs_bare": 3.5,
    "recall_vs_fts_query": 2.0,
    "remember_guard_share": 0.10,
}

# The tightest honest baseline for a start hook: the standard library doing
# the hook's visible work (read the project's best rows through the brief's
# index, print JSON) and nothing else: no payload, no identity, no liveness,
# no guard, no receipt.
STDLIB_HOOK = """\
import json, sqlite3, sys
conn = sqlite3.connect(sys.argv[1])
rows = conn.execute(
    "SELECT id, ring, summary, source_ref FROM memories INDEXED BY memories_brief"
    " WHERE project = ? AND retired_at IS NULL ORDER BY " + sys.argv[3] + " LIMIT 8",
    (sys.argv[2],),
).fetchall()
print(json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart",
    "additionalContext": "\\n".join(" ".join(map(str, row)) for row in rows)}}))
"""
# The recall baseline: SQLite's own full-text search of the same words. The
# summaries are read from the rows: the index reads its own text through a
# function only Tree Ring's connections register (schema.MEMORY_TEXT).
FTS_QUERY = """\
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1])
conn.execute(
    "SELECT m.rowid, m.summary FROM memory_fts JOIN memories m ON m.rowid = memory_fts.rowid"
    " WHERE memory_fts MATCH ? ORDER BY rank LIMIT 10",
    (sys.argv[2],),
).fetchall()
"""
# Runs one `remember` in-process, as bin/tree-ring would, and reports what the
# guard cost it. What the CLI imports anyway (re, json, sqlite3, argparse) is
# imported first, so the guard's import is only its own modules.
GUARD_PROBE = """\
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
import argparse, re, sqlite3
start = time.process_time()
import tree_ring.guard as guard
from tree_ring.guard import engine, rule, table
imported = time.process_time() - start
from tree_ring.cli.app import main
spent = [0.0]
check = guard.check_fields
def timed(fields):
    begin = time.process_time()
    try:
        return check(fields)
    finally:
        spent[0] += time.process_time() - begin
guard.check_fields = timed
engine.check_fields = timed
code = main(["remember", sys.argv[2]])
usage = resource.getrusage(resource.RUSAGE_SELF)
def count(name, module):
    cached = getattr(module, name, None)
    info = getattr(cached, "cache_info", None)
    return info().currsize if info else None
def terms():
    built = getattr(engine, "compiled_keyword_terms", None)
    if built is not None:
        return built()
    return sum(len(rule.terms) for rule in table.RULES) if count("_keyword_scanner", engine) else 0
print(json.dumps({
    "exit": code,
    "total_ms": (usage.ru_utime + usage.ru_stime) * 1000,
    "guard_import_ms": imported * 1000,
    "guard_check_ms": spent[0] * 1000,
    "patterns_compiled": count("compiled", rule),
    "rules": len(table.RULES),
    "keyword_terms_compiled": terms(),
    "keyword_terms": sum(len(rule.terms) for rule in table.RULES),
}))
"""


def clean_env(path_first: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("TREE_RING_", "CLAUDE", "CODEX_", "PYTHON"))
    }
    # `python3` in the shim and in the hook command is this interpreter.
    env["PATH"] = f"{path_first}{os.pathsep}{env.get('PATH', '')}"
    return env


def child_cpu_ms(
    argv: list[str], *, stdin: bytes, cwd: Path, env: dict[str, str]
) -> tuple[float, float, bytes]:
    """(CPU ms, wall ms, stdout) of one child process; fails loudly on an error."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, input=stdin, capture_output=True, cwd=cwd, env=env, check=False)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0 or proc.stderr:
        raise RuntimeError(f"{argv[:4]} exited {proc.returncode}: {proc.stderr.decode()[-400:]}")
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return cpu, wall, proc.stdout


def build_store(root: Path, size: int) -> str:
    root.mkdir()
    guidance.init_project(root)
    project_id = project.load_project_id(root)
    memories = Corpus(SEED).memories(size, project_id)
    person = Actor.person()
    with Store.open(root) as store:
        while chunk := list(islice(memories, BATCH)):
            bulk.insert_many(store, chunk, person, action="import", admit=False, batch=BATCH)
        with store.write() as db:
            settings.write(db, "checkpoint.interval", 0)  # every Stop run blocks
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return project_id


def build_user_store(path: Path, size: int) -> None:
    """A person's user store: `size` global notes, as `remember --scope global` writes them."""
    person = Actor.person()
    notes = [
        memory.replace(project=USER_PROJECT, scope="global")
        for memory in Corpus(SEED + 1).memories(size, USER_PROJECT)
    ]
    with Store.open_file(str(path), create=True) as store:
        bulk.insert_many(store, notes, person, action="import", admit=False, batch=BATCH)
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


# The claim the copy forgets, which a global note written from the first project holds.
FORGOTTEN = "Deploys freeze on Fridays after the release branch is cut"


def build_forgetting(source: Path, work: Path, env: dict[str, str]) -> tuple[Path, dict[str, str]]:
    """A copy of the project at `source` whose store forgot FORGOTTEN, and a
    user store (of its own) holding a note of it written from `source`, which
    forgot nothing, and that forgot another note itself: the copy's brief
    hides that note, and reads its own rows against the user store's forgets."""
    target = work / "forgot"
    shutil.copytree(source, target)
    mine = {**env, "TREE_RING_USER_HOME": str(work / "forgot-user")}
    shutil.copytree(work / "user", work / "forgot-user")

    def cli(root: Path, *args: str) -> str:
        done = subprocess.run(
            [sys.executable, str(REPO / "bin" / "tree-ring"), "--root", str(root), *args],
            env=mine, capture_output=True, text=True, check=True,
        )  # fmt: skip
        return done.stdout

    written = json.loads(cli(target, "--json", "remember", FORGOTTEN))["id"]
    cli(target, "forget", written, "--mode", "delete", "--reason", "the freeze was lifted")
    cli(source, "remember", FORGOTTEN, "--scope", "global")
    note = json.loads(
        cli(source, "--json", "remember", "I review my own diffs", "--scope", "global")
    )
    cli(target, "forget", note["id"], "--user", "--mode", "delete", "--reason", "no longer")
    return target, mine


def build_repository(source: Path, target: Path, files: int) -> None:
    """A copy of the project at `source` as a git repository whose index lists
    `files` other paths. No file is written for them: the entries go into the
    index directly, as git would have written them for a large checkout."""
    shutil.copytree(source, target)
    subprocess.run(["git", "init", "-q", str(target)], check=True, capture_output=True)
    blob = (
        subprocess.run(
            ["git", "hash-object", "-w", "--stdin"],
            input=b"",
            cwd=target,
            check=True,
            capture_output=True,
        )
        .stdout.decode()
        .strip()
    )
    entries = "".join(
        f"100644 {blob}\tsrc/package{n // 250}/module{n % 250}.py\n" for n in range(files)
    )
    subprocess.run(
        ["git", "update-index", "--index-info"],
        input=entries.encode(),
        cwd=target,
        check=True,
        capture_output=True,
    )


def install_shim(work: Path, env: dict[str, str]) -> Path:
    """The `tree-ring` a person runs: the shim install.sh writes."""
    bindir = work / "bin"
    env = {**env, "TREE_RING_BIN_DIR": str(bindir), "HOME": str(work)}
    subprocess.run(
        ["sh", str(REPO / "install.sh")], env=env, check=True, capture_output=True, cwd=work
    )
    return bindir / "tree-ring"


def payload(event: str, root: Path) -> bytes:
    name = "claude-code-session-start.json" if event == "SessionStart" else "claude-code-stop.json"
    data = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    data["cwd"] = str(root)
    if event == "Stop":
        data["transcript_path"] = str(write_transcript(root.parent / "transcript.jsonl"))
    return json.dumps(data).encode()


def next_turn(stdin: bytes, run_index: int) -> bytes:
    """The Stop payload of the run's own turn (its `prompt_id`), so every run
    is a new turn's stop and blocks, as a stop after each prompt does."""
    data = json.loads(stdin)
    data["prompt_id"] = f"{data['prompt_id'][:-8]}{run_index:08d}"
    return json.dumps(data).encode()


# As large as the window the Stop hook reads, so it reads a full one.
TRANSCRIPT_BYTES = 256 * 1024


def write_transcript(path: Path) -> Path:
    """A Claude Code transcript: turns of reads and long tool output, the last
    one running a command after its prompt."""

    def line(entry: dict[str, Any]) -> str:
        return json.dumps(entry) + "\n"

    def tool(name: str, args: dict[str, Any]) -> str:
        block = {"type": "tool_use", "id": "t", "name": name, "input": args}
        use = line({"type": "assistant", "message": {"role": "assistant", "content": [block]}})
        result = {"type": "tool_result", "tool_use_id": "t", "content": "x" * 2000}
        return use + line({"type": "user", "message": {"role": "user", "content": [result]}})

    prompt = line({"type": "user", "message": {"role": "user", "content": "Fix the flaky test."}})
    reading = tool("Read", {"file_path": "/src/app.py"})
    body = prompt + reading * (TRANSCRIPT_BYTES // len(reading))
    path.write_text(body + prompt + reading * 20 + tool("Bash", {"command": "pytest -q"}))
    return path


def run(args: argparse.Namespace) -> dict[str, Any]:
    size = QUICK_SIZE if args.quick else args.size
    work = Path(tempfile.mkdtemp(prefix="tree-ring-startup-", dir=args.work_dir))
    try:
        return measure(work, size, args.runs)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def measure(work: Path, size: int, runs: int) -> dict[str, Any]:
    python = sys.executable
    interpreter = work / "python"
    interpreter.mkdir()
    (interpreter / "python3").symlink_to(python)
    env = clean_env(interpreter)
    # No user store for the usual commands (an empty folder), and one for
    # the SessionStart hook that reads it too.
    env["TREE_RING_USER_HOME"] = str(work / "no-user-store")
    user_env = {**env, "TREE_RING_USER_HOME": str(work / "user")}
    build_user_store(work / "user" / user_home.USER_STORE, USER_SIZE)
    root = work / "project"
    started = time.perf_counter()
    project_id = build_store(root, size)
    build_s = time.perf_counter() - started
    repository = work / "repository"
    build_repository(root, repository, REPOSITORY_FILES)
    forgot, forgot_env = build_forgetting(root, work, {**env, "HOME": str(work)})
    os.sync()  # the store's pages, flushed now, are not written back during the timings
    shim = install_shim(work, env)
    store_file = str(project.store_path(root))
    words = Corpus(SEED).queries(2)[1].split()
    query = " ".join(words)
    match = " ".join(f'"{word}"' for word in words)
    flags = interpreter_flags(python)
    guard_text = "Deploys freeze on Fridays after the release branch is cut"

    commands: dict[str, tuple[list[str], bytes]] = {
        "bare": ([python, *flags, "-c", "pass"], b""),
        "stdlib_hook": (
            [python, *flags, "-c", STDLIB_HOOK, store_file, project_id, schema.BRIEF_ORDER],
            b"",
        ),
        "session_start": (hook_command(python, "SessionStart"), payload("SessionStart", root)),
        "session_start_user": (
            hook_command(python, "SessionStart"),
            payload("SessionStart", root),
        ),
        "session_start_repository": (
            hook_command(python, "SessionStart"),
            payload("SessionStart", repository),
        ),
        "session_start_forgot": (
            hook_command(python, "SessionStart"),
            payload("SessionStart", forgot),
        ),
        "session_start_after_capture": (
            hook_command(python, "SessionStart"),
            payload("SessionStart", root),
        ),
        "stop": (hook_command(python, "Stop"), payload("Stop", root)),
        "fts_query": ([python, *flags, "-c", FTS_QUERY, store_file, match], b""),
        "recall": ([str(shim), "recall", query], b""),
        "remember": ([str(shim), "remember", ""], b""),
    }
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    wall: dict[str, list[float]] = {name: [] for name in commands}
    probes: list[dict[str, Any]] = []
    outputs: dict[str, bytes] = {}
    names = list(commands)
    for run_index in range(runs):
        shift = run_index % len(names)
        for name in names[shift:] + names[:shift]:
            argv, stdin = commands[name]
            if name == "remember":
                argv = [*argv[:-1], f"{guard_text} (run {run_index})"]
            if name == "stop":
                stdin = next_turn(stdin, run_index)
            if name == "session_start_after_capture":
                # Outside the clock: a scar written just now, which the brief
                # shows first and has not read before (the stop hook's
                # capture writes the same way).
                scar = [str(shim), "remember", f"{CAPTURED} (run {run_index})", "--ring", "scar"]
                scar += ["--salience", "1", "--confidence", "1"]
                subprocess.run(scar, cwd=root, env=env, check=True, capture_output=True)
            run_env = {"session_start_user": user_env, "session_start_forgot": forgot_env}.get(
                name, env
            )
            cwd = {"session_start_repository": repository, "session_start_forgot": forgot}.get(
                name, root
            )
            used, elapsed, out = child_cpu_ms(argv, stdin=stdin, cwd=cwd, env=run_env)
            cpu[name].append(used)
            wall[name].append(elapsed)
            outputs[name] = out
        _, _, out = child_cpu_ms(
            [python, *flags, "-c", GUARD_PROBE, str(REPO), f"{guard_text} (probe {run_index})"],
            stdin=b"",
            cwd=root,
            env=env,
        )
        probes.append(json.loads(out.decode().splitlines()[-1]))

    check_outputs(outputs)
    median = {name: statistics.median(values) for name, values in cpu.items()}
    probe = {key: statistics.median(p[key] for p in probes) for key in probes[0] if key != "exit"}
    for key in ("patterns_compiled", "rules", "keyword_terms_compiled", "keyword_terms"):
        probe[key] = probes[-1][key]
    guard_ms = probe["guard_import_ms"] + probe["guard_check_ms"]
    ratios = {
        "session_start_vs_bare": median["session_start"] / median["bare"],
        "session_start_vs_stdlib_hook": median["session_start"] / median["stdlib_hook"],
        "session_start_user_vs_bare": median["session_start_user"] / median["bare"],
        "session_start_user_vs_session_start": median["session_start_user"]
        / median["session_start"],
        "session_start_repository_vs_session_start": median["session_start_repository"]
        / median["session_start"],
        "session_start_forgot_vs_bare": median["session_start_forgot"] / median["bare"],
        "session_start_forgot_vs_session_start_user": median["session_start_forgot"]
        / median["session_start_user"],
        "session_start_after_capture_vs_bare": median["session_start_after_capture"]
        / median["bare"],
        "stdlib_hook_vs_bare": median["stdlib_hook"] / median["bare"],
        "stop_vs_bare": median["stop"] / median["bare"],
        "recall_vs_fts_query": median["recall"] / median["fts_query"],
        "fts_query_vs_bare": median["fts_query"] / median["bare"],
        "remember_vs_bare": median["remember"] / median["bare"],
        "remember_guard_share": guard_ms / probe["total_ms"],
    }
    return {
        "memories": size,
        "runs": runs,
        "build_s": build_s,
        "python": sys.version.split()[0],
        "cpu_median_ms": median,
        "wall_median_ms": {name: statistics.median(values) for name, values in wall.items()},
        "guard_probe": probe,
        "ratios": ratios,
        "targets": {
            name: {"ratio": ratios[name], "at_most": limit, "met": ratios[name] <= limit}
            for name, limit in TARGETS.items()
        },
    }


def check_outputs(outputs: dict[str, bytes]) -> None:
    """Each measured command did its job; a benchmark of failures means nothing."""
    mine = json.loads(outputs["session_start_user"])["hookSpecificOutput"]["additionalContext"]
    if mine.count("[you] ") != 2:
        raise RuntimeError("the SessionStart hook with a user store did not brief two of its rows")
    hidden = json.loads(outputs["session_start_forgot"])["hookSpecificOutput"]
    if FORGOTTEN in hidden["additionalContext"] or "[you] " not in hidden["additionalContext"]:
        raise RuntimeError("the SessionStart hook that forgot did not hide what it forgot")
    for name in ("session_start", "session_start_repository"):
        said = json.loads(outputs[name])["hookSpecificOutput"]["additionalContext"]
        if "BEGIN TREE RING RECALLED DATA" not in said:
            raise RuntimeError(f"the SessionStart hook ({name}) printed no brief")
    after = json.loads(outputs["session_start_after_capture"])["hookSpecificOutput"]
    if CAPTURED not in after["additionalContext"]:
        raise RuntimeError("the SessionStart hook after a capture did not brief it")
    if json.loads(outputs["stop"]).get("decision") != "block":
        raise RuntimeError("the Stop hook did not block")
    if not outputs["recall"].strip() or outputs["recall"].startswith(b"no memories"):
        raise RuntimeError("recall found nothing; the benchmark query must match")
    if not outputs["remember"].startswith(b"stored mem_"):
        raise RuntimeError(f"remember did not store: {outputs['remember'][:200]!r}")


ROWS = (
    ("SessionStart hook / python3 -I -S -c pass", "session_start", "bare", "session_start_vs_bare"),
    ("SessionStart hook / stdlib hook", "session_start", "stdlib_hook", None),
    (
        "SessionStart + user store / python3 -c pass",
        "session_start_user",
        "bare",
        "session_start_user_vs_bare",
    ),
    ("SessionStart + user store / SessionStart", "session_start_user", "session_start", None),
    (
        "SessionStart, both forgot / python3 -c pass",
        "session_start_forgot",
        "bare",
        "session_start_forgot_vs_bare",
    ),
    (
        "SessionStart, both forgot / + user store",
        "session_start_forgot",
        "session_start_user",
        None,
    ),
    (
        "SessionStart, 100,000-file repo / SessionStart",
        "session_start_repository",
        "session_start",
        None,
    ),
    (
        "SessionStart after a capture / python3 -c pass",
        "session_start_after_capture",
        "bare",
        "session_start_after_capture_vs_bare",
    ),
    ("stdlib hook / python3 -I -S -c pass", "stdlib_hook", "bare", None),
    ("Stop hook / python3 -I -S -c pass", "stop", "bare", "stop_vs_bare"),
    ("recall (shim) / sqlite3 FTS5 MATCH", "recall", "fts_query", "recall_vs_fts_query"),
    ("remember (shim) / python3 -I -S -c pass", "remember", "bare", None),
)


def table(report: dict[str, Any]) -> str:
    cpu = report["cpu_median_ms"]
    lines = [
        f"{report['memories']:,} memories, {report['runs']} interleaved runs, "
        "median CPU ms of each child (user+sys)",
        f"{'ratio':44} {'CPU ms':>15} {'ratio':>6} {'target':>7}  met",
    ]
    for label, top, bottom, target in ROWS:
        ratio = cpu[top] / cpu[bottom]
        limit = f"<= {TARGETS[target]:g}" if target else ""
        met = ("yes" if ratio <= TARGETS[target] else "NO") if target else ""
        figures = f"{cpu[top]:.1f} / {cpu[bottom]:.1f}"
        lines.append(f"{label:44} {figures:>15} {ratio:6.2f} {limit:>7}  {met}")
    probe = report["guard_probe"]
    share = report["ratios"]["remember_guard_share"]
    met = "yes" if share <= TARGETS["remember_guard_share"] else "NO"
    lines.append(
        f"{'guard share of a remember':44} "
        f"{probe['guard_import_ms'] + probe['guard_check_ms']:6.1f} / {probe['total_ms']:6.1f} "
        f"{share:6.2f} {'<= 0.1':>7}  {met}"
    )
    lines.append(
        f"  guard: import {probe['guard_import_ms']:.1f} ms,"
        f" check {probe['guard_check_ms']:.1f} ms;"
        f" compiled {probe['patterns_compiled']} patterns ({probe['rules']} rules),"
        f" {probe['keyword_terms_compiled']} of {probe['keyword_terms']} keyword terms"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_SIZE:,} memories")
    parser.add_argument("--size", type=int, default=FULL_SIZE, help="memories in the store")
    parser.add_argument("--runs", type=int, default=21, help="interleaved runs (at least 15)")
    parser.add_argument("--json-out", help="also write the JSON document here")
    parser.add_argument("--work-dir", help="where to build the store (default: temp)")
    parser.add_argument("--keep", action="store_true", help="keep the store afterwards")
    args = parser.parse_args(argv)
    if args.runs < 15:
        parser.error("--runs must be at least 15: a median of fewer runs is noise")
    report = run(args)
    document = json.dumps(report, indent=1, sort_keys=True)
    if args.json_out:
        Path(args.json_out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json_out).write_text(document + "\n", encoding="utf-8")
    print(document)
    print(table(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
