"""install.sh, run for real under `sh`: the shim it writes, re-runs, refusals, the demo.

Every run points HOME, TREE_RING_BIN_DIR and TMPDIR into tmp_path, so no test
writes to /usr/local/bin or a real home directory.
"""

from __future__ import annotations

import os
import shlex
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

# Heavy: CI runs it; the inner loop (`-m "not slow"`) skips it.
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent
INSTALL = REPO / "install.sh"
DEMO_SCAR = "a failed migration once lost the ledger"


class Sandbox:
    def __init__(self, tmp_path: Path) -> None:
        self.root = tmp_path
        self.home = tmp_path / "home"
        self.bindir = tmp_path / "bin"
        self.tmpdir = tmp_path / "tmp"
        self.shim = self.bindir / "tree-ring"
        # exist_ok: conftest's autouse fixture may already have made HOME here.
        self.home.mkdir(exist_ok=True)
        self.tmpdir.mkdir()
        # A stray TREE_RING_ROOT from the developer's shell must not steer
        # the shim or the demo at a real store.
        env = {k: v for k, v in os.environ.items() if not k.startswith("TREE_RING_")}
        env.update(
            HOME=str(self.home),
            TREE_RING_BIN_DIR=str(self.bindir),
            TMPDIR=str(self.tmpdir),
        )
        self.env = env

    def install(self, *args: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
        env = dict(self.env)
        if path is not None:
            env["PATH"] = path
        return subprocess.run(
            ["sh", str(INSTALL), *args],
            cwd=self.root,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
        )


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    return Sandbox(tmp_path)


def test_writes_an_executable_shim_naming_this_plugin(sandbox: Sandbox) -> None:
    result = sandbox.install()

    assert result.returncode == 0, result.stderr
    mode = sandbox.shim.stat().st_mode
    assert mode & stat.S_IXUSR and mode & stat.S_IXOTH
    text = sandbox.shim.read_text()
    assert text.startswith("#!/bin/sh\n")
    assert f"\nentry='{REPO / 'bin' / 'tree-ring'}'\n" in text
    assert text.endswith('\nexec python3 -I -S "$entry" "$@"\n')
    assert str(sandbox.shim) in result.stdout


def test_running_twice_leaves_one_identical_shim(sandbox: Sandbox) -> None:
    first = sandbox.install()
    before = sandbox.shim.read_bytes()
    second = sandbox.install()

    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr
    assert sandbox.shim.read_bytes() == before
    assert sorted(p.name for p in sandbox.bindir.iterdir()) == ["tree-ring"]


def test_refuses_to_overwrite_a_foreign_tree_ring(sandbox: Sandbox) -> None:
    sandbox.bindir.mkdir()
    foreign = "#!/bin/sh\n# someone else's tree-ring\necho mine\n"
    sandbox.shim.write_text(foreign)

    result = sandbox.install()

    assert result.returncode != 0
    assert sandbox.shim.read_text() == foreign
    assert str(sandbox.shim) in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert sorted(p.name for p in sandbox.bindir.iterdir()) == ["tree-ring"]


def test_says_how_to_put_the_bin_dir_on_path(sandbox: Sandbox) -> None:
    result = sandbox.install()

    assert result.returncode == 0, result.stderr
    assert f'export PATH="{sandbox.bindir}:$PATH"' in result.stdout


def test_installed_shim_runs_help_from_an_unrelated_directory(sandbox: Sandbox) -> None:
    assert sandbox.install().returncode == 0
    elsewhere = sandbox.root / "elsewhere"
    elsewhere.mkdir()

    result = subprocess.run(
        [str(sandbox.shim), "--help"],
        cwd=elsewhere,
        env=sandbox.env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert result.returncode == 0, result.stderr
    for verb in ("init", "remember", "recall", "brief"):
        assert verb in result.stdout


def test_a_shim_whose_clone_moved_says_so_in_one_line(sandbox: Sandbox) -> None:
    """A clone with an awkward name ($, backquotes, a quote), installed, then
    moved: the shim names the entry that is gone and what to do, and runs
    nothing the name holds."""
    clone = sandbox.root / "we$(touch pwned)ird `touch pwned2` it's"
    (clone / "bin").mkdir(parents=True)
    shutil.copy(INSTALL, clone / "install.sh")
    shutil.copy(REPO / "bin" / "tree-ring", clone / "bin" / "tree-ring")
    (clone / "tree_ring").mkdir()
    done = subprocess.run(
        ["sh", str(clone / "install.sh")],
        cwd=sandbox.root,
        env=sandbox.env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    clone.rename(sandbox.root / "moved")
    result = subprocess.run(
        [str(sandbox.shim), "--version"],
        cwd=sandbox.root,
        env=sandbox.env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 127
    assert result.stderr == (
        f"tree-ring: {clone / 'bin' / 'tree-ring'} is gone (the clone moved or was deleted); "
        "run sh install.sh from its new place\n"
    )
    assert not list(sandbox.root.rglob("pwned*"))


def test_demo_shows_the_remembered_text_coming_back_from_recall(sandbox: Sandbox) -> None:
    result = sandbox.install("--demo")

    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "$ tree-ring init" in out
    # Only the recall command's output counts: the remember line that wrote
    # the text also echoes it.
    after_recall = out.split("$ tree-ring recall", 1)[1]
    recall_output = after_recall.split("$ tree-ring brief", 1)[0]
    assert DEMO_SCAR in recall_output.split("\n", 1)[1], out
    assert "$ tree-ring brief" in out
    assert list(sandbox.tmpdir.iterdir()) == [], "the demo left its directory behind"


def test_help_explains_the_flags(sandbox: Sandbox) -> None:
    result = sandbox.install("--help")

    assert result.returncode == 0
    for flag in ("--demo", "TREE_RING_BIN_DIR", "--help"):
        assert flag in result.stdout
    assert not sandbox.bindir.exists(), "--help must not install anything"


def test_unknown_option_fails_without_installing(sandbox: Sandbox) -> None:
    result = sandbox.install("--bogus")

    assert result.returncode != 0
    assert "--bogus" in result.stderr
    assert not sandbox.bindir.exists()


def _fake_python(sandbox: Sandbox, prelude: str) -> str:
    """A PATH whose python3 is the real interpreter with `prelude` run first."""
    fake = sandbox.root / "fakebin"
    fake.mkdir()
    script = fake / "python3"
    # install.sh feeds its check to `python3 -` on stdin; run that after the
    # prelude has altered what the check sees.
    code = f"{prelude}\nimport sys\nexec(compile(sys.stdin.read(), '<stdin>', 'exec'))"
    script.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -c {shlex.quote(code)}\n")
    script.chmod(0o755)
    return f"{fake}{os.pathsep}{sandbox.env['PATH']}"


@pytest.mark.parametrize(
    ("prelude", "message"),
    [
        ("import sys; sys.version_info = (3, 10, 14, 'final', 0)", "3.10"),
        (
            "import sqlite3\n"
            "class NoFts:\n"
            "    def execute(self, *a):\n"
            '        raise sqlite3.OperationalError("no such module: fts5")\n'
            "sqlite3.connect = lambda *a, **k: NoFts()",
            "FTS5",
        ),
    ],
    ids=["python-3.10", "no-fts5"],
)
def test_refuses_an_unfit_python(sandbox: Sandbox, prelude: str, message: str) -> None:
    result = sandbox.install(path=_fake_python(sandbox, prelude))

    assert result.returncode != 0
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert not sandbox.shim.exists()


def test_refuses_without_python3(sandbox: Sandbox) -> None:
    # A PATH holding only what install.sh needs before its python3 check.
    tools = sandbox.root / "tools"
    tools.mkdir()
    for name in ("dirname",):
        found = shutil.which(name)
        assert found is not None
        (tools / name).symlink_to(found)
    sh = shutil.which("sh")
    assert sh is not None

    result = subprocess.run(
        [sh, str(INSTALL)],
        cwd=sandbox.root,
        env={**sandbox.env, "PATH": str(tools)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert result.returncode != 0
    assert "python3 not found" in result.stderr
    assert not sandbox.shim.exists()
