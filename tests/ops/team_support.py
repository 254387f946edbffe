"""Real git repositories and Tree Ring's CLI in them, for the team ledger's tests."""

from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

from helpers import REPO, Run

from tree_ring.cli import app
from tree_ring.model import project
from tree_ring.store.db import Store

LEDGER = ".tree-ring/ledger.jsonl"
HOOK = REPO / "hooks" / "tree_ring_hook.py"


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)}: {done.stdout}{done.stderr}")
    return done


def identify(root: Path, name: str) -> None:
    git(root, "config", "user.name", name)
    git(root, "config", "user.email", f"{name.lower()}@example.com")
    git(root, "config", "commit.gpgsign", "false")


def cli(root: Path, *args: str, environ: dict[str, str] | None = None) -> Run:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = app.main(["--root", str(root), *args], environ or {})
        except SystemExit as exit_:
            code = int(exit_.code or 0)
    return Run(code, out.getvalue(), err.getvalue())


def ok(root: Path, *args: str) -> Run:
    done = cli(root, *args)
    assert done.code == 0, done.err
    return done


def remember(root: Path, text: str) -> str:
    return ok(root, "--json", "remember", text).json()["id"]


def first_repo(tmp: Path, name: str = "alice") -> Path:
    """A repository with Tree Ring initialised and committed."""
    root = tmp / name
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    identify(root, name.capitalize())
    (root / "README").write_text("app\n", encoding="utf-8")
    ok(root, "init")
    commit(root, "start")
    return root


def clone(source: Path, tmp: Path, name: str, *, init: bool = True) -> Path:
    root = tmp / name
    git(tmp, "clone", "-q", str(source), name)
    identify(root, name.capitalize())
    if init:
        ok(root, "init")
    return root


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message, "--allow-empty")


def hub(tmp: Path, root: Path) -> Path:
    """A bare repository made `root`'s upstream ("origin"), its main pushed there:
    the remote a team pulls from, whose ledger lines a clone trusts."""
    bare = tmp / f"{root.name}-hub.git"
    git(tmp, "init", "-q", "--bare", "-b", "main", str(bare))
    git(root, "remote", "add", "origin", str(bare))
    git(root, "push", "-q", "-u", "origin", "main")
    return bare


def publish(root: Path, message: str) -> None:
    """Commit everything and push it to the upstream."""
    commit(root, message)
    git(root, "push", "-q")


def pull(root: Path) -> None:
    """Take the upstream's commits (a merge by the driver when both moved)."""
    git(root, "pull", "-q", "--no-rebase", "--no-edit")


def settled(*roots: Path, rounds: int = 1) -> None:
    """The ledger settles among `roots`: after `rounds` in which each clone in
    turn pulls, syncs and publishes what changed (its audit anchor, once),
    a round changes nothing in any of them."""
    for _ in range(rounds):
        for root in roots:
            pull(root)
            ok(root, "sync")
            publish(root, "synced")
    for root in roots:
        pull(root)
        ok(root, "sync")
        assert git(root, "status", "--porcelain").stdout == "", root.name


def shared_ids(root: Path) -> set[str]:
    with Store.open(root) as store:
        return {
            str(row[0])
            for row in store.conn.execute(
                "SELECT id FROM memories WHERE project = ? AND retired_at IS NULL",
                (project.load_project_id(root),),
            )
        }


def trust_of(root: Path) -> dict[str, str]:
    """Memory id -> trust state, of every row still on record."""
    with Store.open(root) as store:
        found = store.conn.execute("SELECT id, trust FROM memories WHERE retired_at IS NULL")
        return {str(row[0]): str(row[1]) for row in found}


def summaries(root: Path) -> set[str]:
    with Store.open(root) as store:
        return {str(row[0]) for row in store.conn.execute("SELECT summary FROM memories")}


def listed(root: Path) -> set[str]:
    """The summaries `list` shows a person: what the clone believes now."""
    return {item["summary"] for item in ok(root, "--json", "list").json()["items"]}


def ledger_entries(root: Path) -> list[dict[str, Any]]:
    lines = (root / LEDGER).read_text(encoding="utf-8").splitlines()
    return [data for data in map(json.loads, lines) if data["record"] not in ("ledger", "anchor")]


def ledger_check(root: Path) -> dict[str, object]:
    """`doctor`'s check of the team ledger, as `--json doctor` reports it."""
    checks = {c["name"]: c for c in json.loads(cli(root, "--json", "doctor").out)["items"]}
    return checks["ledger"]


def expire(root: Path, memory_id: str) -> None:
    """Move a memory's expiry into the past, as time would (a write refuses
    an expiry already past)."""
    conn = sqlite3.connect(project.store_path(root))
    try:
        with conn:
            conn.execute(
                "UPDATE memories SET expires_at = '2020-01-01T00:00:00.000000Z' WHERE id = ?",
                (memory_id,),
            )
    finally:
        conn.close()


def forget_line(tmp: Path, text: str) -> dict[str, Any]:
    """The tombstone line a forget of `text` writes, from a scratch
    repository of its own."""
    scratch = first_repo(tmp, "scratch")
    spare = remember(scratch, text)
    ok(scratch, "forget", spare, "--mode", "delete", "--reason", "only its hashes")
    return next(e for e in ledger_entries(scratch) if e["id"] == spare)


def forget_hashes(tmp: Path, text: str) -> list[str]:
    """The hashes a forget of `text` writes on its tombstone line."""
    return forget_line(tmp, text)["hashes"]


def widen_tombstone(root: Path, memory_id: str, hashes: list[str]) -> None:
    """Add `hashes` to `memory_id`'s tombstone line in the working tree, as
    an agent's edit of the file would."""
    path = root / LEDGER
    edited = []
    for text in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(text)
        if entry.get("record") == "tombstone" and entry["id"] == memory_id:
            entry["hashes"] = sorted({*entry["hashes"], *hashes})
            text = json.dumps(entry, sort_keys=True, separators=(",", ":"))
        edited.append(text)
    path.write_text("\n".join(edited) + "\n", encoding="utf-8")


def run_session_start(
    root: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """The real SessionStart hook, as Claude Code runs it, in `root` (with
    `env` over this process's environment)."""
    payload = {
        "hook_event_name": "SessionStart",
        "session_id": "team-session-1",
        "cwd": str(root),
        "source": "startup",
    }
    return subprocess.run(
        [sys.executable, "-I", "-S", str(HOOK), "claude-code"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=120,
        check=True,
        env=None if env is None else {**os.environ, **env},
    )


def session_start(root: Path) -> str:
    """The brief the SessionStart hook injects, the hook saying nothing on stderr."""
    done = run_session_start(root)
    assert done.stderr == b"", done.stderr.decode()
    return json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]


def raw_bytes(root: Path) -> bytes:
    path = project.store_path(root)
    data = b""
    for suffix in ("", "-wal", "-shm"):
        candidate = Path(str(path) + suffix)
        if candidate.exists():
            data += candidate.read_bytes()
    return data


# The hook's own steps in a fresh `python3 -I -S`, then the modules it left loaded.
PROBE = """\
import io, sys
sys.path.insert(0, sys.argv[1])
from tree_ring.hook.adapter import main
out = io.BytesIO()
main("claude-code", stdin=io.BytesIO(sys.stdin.buffer.read()), stdout=out)
sys.stdout.write(out.getvalue().decode() + "\\n".join(sorted(sys.modules)))
"""


def session_start_modules(root: Path) -> tuple[str, set[str]]:
    """The brief and the modules a SessionStart hook call loaded."""
    payload = {"hook_event_name": "SessionStart", "session_id": "team-session-2", "cwd": str(root)}
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", PROBE, str(REPO)],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert done.stderr == b"", done.stderr.decode()
    output, *modules = done.stdout.decode().splitlines()
    return json.loads(output)["hookSpecificOutput"]["additionalContext"], set(modules)


def cut_audit(root: Path, entries: int = 1) -> None:
    """The audit log of `root`'s store cut short by its last `entries`, as
    someone writing the store's file would: its guarding triggers dropped."""
    conn = sqlite3.connect(project.store_path(root))
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='trigger'").fetchall():
        if "audit" in name:
            conn.execute(f'DROP TRIGGER "{name}"')
    top = conn.execute("SELECT max(seq) FROM audit_log").fetchone()[0]
    conn.execute("DELETE FROM audit_log WHERE seq > ?", (top - entries,))
    conn.commit()
    conn.close()
