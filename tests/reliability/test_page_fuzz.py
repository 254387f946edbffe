"""Random page damage never gives a traceback.

A populated store is folded into its file; each seed damages one page of it
(the header page, an FTS page, a row page: bytes flipped, a run overwritten,
or text bytes turned into invalid UTF-8), and every command runs against it
in-process: reads, writes, doctor, the audit, and both hooks through their
entry point. Each must exit 0 or with a defined error code, print no
traceback, and say what went wrong in one `error:` line; the hooks exit 0
and print nothing or one JSON document.
"""

from __future__ import annotations

import io
import json
import random
import sqlite3
from contextlib import closing, redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from helpers import REPO

from tree_ring.cli import app
from tree_ring.harness import guidance
from tree_ring.hook import adapter
from tree_ring.store.db import Store

pytestmark = pytest.mark.slow

SEEDS = 60
# Exit codes a command may end with: success, a TreeRingError's, a usage
# error, and the one for a failure no check foresaw (still one line).
DEFINED = {0, 1, 2, 70}  # 70: EX_SOFTWARE, an internal error
COMMANDS: list[tuple[str, ...]] = [
    ("brief",),
    ("recall", "toolchain"),
    ("list",),
    ("show", "MEMORY"),
    ("export",),
    ("doctor",),
    ("audit", "verify"),
    ("remember", "A fact written to a damaged store"),
    ("forget", "MEMORY", "--mode", "delete", "--reason", "obsolete"),
    ("status",),
    ("review", "list"),
]
HOOKS = ("claude-code-session-start", "claude-code-stop")


def run(root: Path, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = app.main(["--root", str(root), *args], {})
        except SystemExit as exit_:
            code = int(exit_.code or 0)
    return code, out.getvalue(), err.getvalue()


def hook(root: Path, name: str) -> tuple[bytes, str]:
    payload = json.loads((REPO / "tests" / "fixtures" / "hooks" / f"{name}.json").read_text())
    payload["cwd"] = str(root)
    out, err = io.BytesIO(), io.StringIO()
    with redirect_stderr(err):
        code = adapter.main("claude-code", io.BytesIO(json.dumps(payload).encode()), {}, out)
    assert code == 0
    return out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes, str, list[int]]:
    """(project, the store file's bytes, one memory id, the pages of the FTS index)."""
    root = tmp_path_factory.mktemp("fuzz") / "proj"
    root.mkdir()
    guidance.init_project(root)
    ids = []
    for n in range(40):
        words = " ".join(f"detail{n}word{k}" for k in range(n * 3))
        code, out, err = run(
            root,
            "--json",
            "remember",
            f"Fact {n}: the build uses toolchain {n}",
            "--details",
            words,
        )
        assert code == 0, err
        ids.append(json.loads(out)["id"])
    with Store.open(root) as store:
        path = store.path
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        fts = [
            int(row[0])
            for row in conn.execute(
                "SELECT pageno FROM dbstat WHERE name LIKE 'memory_fts%'"
            ).fetchall()
        ]
    return root, path.read_bytes(), ids[7], fts


def damage(data: bytes, seed: int, fts_pages: list[int]) -> bytes:
    rng = random.Random(seed)
    out = bytearray(data)
    size = int.from_bytes(data[16:18], "big")
    pages = len(data) // size
    # Every fifth seed hits the header page, every fifth the FTS index.
    if seed % 5 == 0:
        page = 0
    elif seed % 5 == 1 and fts_pages:
        page = rng.choice(fts_pages) - 1
    else:
        page = rng.randrange(pages)
    start = page * size
    mode = seed % 3
    if mode == 0:  # scattered bytes
        for _ in range(rng.randint(1, 40)):
            out[start + rng.randrange(size)] = rng.randrange(256)
    elif mode == 1:  # a run overwritten
        at = start + rng.randrange(size)
        length = min(rng.randint(1, 400), len(out) - at)
        out[at : at + length] = rng.randbytes(length)
    else:  # text bytes turned into bytes that are not UTF-8
        for at in range(start, start + size):
            if out[at] >= 0x20 and rng.random() < 0.1:
                out[at] = 0x80 | rng.randrange(128)
    return bytes(out)


def assert_clean(what: str, code: int, err: str) -> None:
    assert code in DEFINED, (what, code, err)
    assert "Traceback" not in err, (what, err)
    # Bad bytes are the damage this test makes: the store layer names them,
    # never the last-resort net of cli.app.
    assert "UnicodeDecodeError" not in err, (what, err)
    # doctor and `audit verify` report a finding on stdout with exit 1;
    # anything else that fails says so in one line on stderr.
    lines = err.splitlines()
    assert len(lines) <= 1, (what, err)
    assert all(line.startswith("error: ") for line in lines), (what, err)
    if code != 0 and what not in ("doctor", "audit verify"):
        assert lines, (what, code)


@pytest.mark.parametrize("seed", range(SEEDS))
def test_no_command_gives_a_traceback_on_a_damaged_page(
    pristine: tuple[Path, bytes, str, list[int]], seed: int
) -> None:
    root, data, memory_id, fts_pages = pristine
    path = root / ".tree-ring" / "memory.sqlite"
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    path.write_bytes(damage(data, seed, fts_pages))
    for command in COMMANDS:
        argv = tuple(memory_id if word == "MEMORY" else word for word in command)
        code, _, err = run(root, *argv)
        assert_clean(" ".join(argv), code, err)
    for name in HOOKS:
        out, err = hook(root, name)
        assert "Traceback" not in err and err.count("\n") <= 1, (name, err)
        assert out == b"" or (out.count(b"\n") == 1 and isinstance(json.loads(out), dict))
