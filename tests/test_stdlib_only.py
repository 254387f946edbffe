"""The runtime imports nothing outside the standard library.

Two independent proofs: a static scan of every import in the package, and the
CLI run for real with `python -I` from a virtual environment that has no
packages at all, so an import hidden behind a function call is caught too.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "tree_ring"
LAUNCHER = REPO / "bin" / "tree-ring"
ALLOWED = frozenset(sys.stdlib_module_names) | {"tree_ring"}


def foreign_imports(source: str, filename: str) -> list[str]:
    """`file:line module` for each import whose top-level module is not allowed."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            # Relative imports stay inside tree_ring by construction.
            continue
        found.extend(
            f"{filename}:{node.lineno} {name}"
            for name in names
            if name.split(".")[0] not in ALLOWED
        )
    return found


def test_the_scan_catches_a_third_party_import() -> None:
    source = "import os\nimport yaml\nfrom requests.adapters import HTTPAdapter\nfrom . import x\n"

    assert foreign_imports(source, "m.py") == ["m.py:2 yaml", "m.py:3 requests.adapters"]


def test_package_and_launcher_import_only_the_standard_library() -> None:
    files = sorted(PACKAGE.rglob("*.py"))
    assert files, f"no modules found under {PACKAGE}"
    offenders: list[str] = []
    for path in [*files, LAUNCHER]:
        rel = str(path.relative_to(REPO))
        offenders += foreign_imports(path.read_text(encoding="utf-8"), rel)

    assert offenders == [], "imports outside the standard library:\n" + "\n".join(offenders)


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The interpreter of a venv with no pip, no setuptools, no site-packages."""
    venv = tmp_path_factory.mktemp("bare") / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return venv / "bin" / "python"


def _run(python: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TREE_RING_")}
    # -I already ignores PYTHONPATH; setting it to the repo proves the point.
    env.update(HOME=str(cwd / "home"), PYTHONPATH=str(REPO))
    return subprocess.run(
        [str(python), "-I", str(LAUNCHER), *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_bare_venv_has_nothing_but_the_standard_library(bare_python: Path, tmp_path: Path) -> None:
    # Guards the next tests: if the venv could see the dev tools, a
    # third-party import would slip through them.
    result = subprocess.run(
        [str(bare_python), "-I", "-c", "import pytest"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert result.returncode != 0
    assert "No module named 'pytest'" in result.stderr


def test_cli_help_runs_isolated_from_a_bare_venv(bare_python: Path, tmp_path: Path) -> None:
    result = _run(bare_python, tmp_path, "--help")

    assert result.returncode == 0, result.stderr
    assert "recall" in result.stdout


def test_round_trip_runs_isolated_from_a_bare_venv(bare_python: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    summary = "Bare venv round trip: the store needs only sqlite3 from the standard library"

    steps = [
        ("--root", str(project), "init"),
        ("--root", str(project), "remember", summary),
        ("--root", str(project), "recall", "bare venv round trip"),
    ]
    results = [_run(bare_python, tmp_path, *step) for step in steps]

    for step, result in zip(steps, results, strict=True):
        assert result.returncode == 0, f"{step}: {result.stderr}"
    assert summary in results[-1].stdout
    assert (project / ".tree-ring").is_dir()
