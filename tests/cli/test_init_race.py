"""`init` run several times at once in a fresh project (two sessions opening a
new checkout): every run succeeds, or says another init is in progress;
none calls the store being made empty, and the project comes out whole."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from helpers import LAUNCHER

RUNS = 6
ROUNDS = 3
IN_PROGRESS = "another `tree-ring init` is in progress in"


def test_inits_started_together_take_turns(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TREE_RING_")}
    for round_ in range(ROUNDS):
        folder = tmp_path / f"fresh{round_}"
        folder.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=folder, check=True, timeout=30)
        runs = [
            subprocess.Popen(
                [sys.executable, str(LAUNCHER), "init"],
                cwd=folder,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            for _ in range(RUNS)
        ]
        results = [(run.communicate(timeout=120), run.returncode) for run in runs]
        for (out, err), code in results:
            said = err.decode()
            assert "restore it from a backup" not in said and "delete" not in said, said
            assert code == 0 or (
                said.startswith(f"error: {IN_PROGRESS}") and said.count("\n") == 1
            ), said
            if code == 0:
                assert out.decode().startswith("Tree Ring project "), out
        # One run made the store (another may have made the folder first, and
        # says so); the rest found it.
        made = [
            out
            for (out, _), code in results
            if code == 0 and b"  created .tree-ring/memory.sqlite" in out
        ]
        assert len(made) == 1, results
        doctor = subprocess.run(
            [sys.executable, str(LAUNCHER), "doctor"],
            cwd=folder,
            env=env,
            capture_output=True,
            timeout=120,
            check=False,
        )
        assert doctor.returncode == 0, doctor.stdout + doctor.stderr
