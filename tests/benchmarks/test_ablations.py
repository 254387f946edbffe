"""Each of the benchmarks' ablations (`--without NAME`) switches its technique
off and leaves recall working: one process each, since they patch modules."""

from __future__ import annotations

import subprocess
import sys

import pytest
from helpers import REPO


def _names() -> list[str]:
    """The ablations' names, read in a child: importing them here would put
    the benchmarks on this process's path."""
    code = f"import sys; sys.path[:0] = [{str(REPO)!r}, {str(REPO / 'benchmarks')!r}]; "
    code += "from ablations import ABLATIONS; print(' '.join(sorted(ABLATIONS)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.split()


NAMES = _names()

PROBE = """
import sys, tempfile
sys.path[:0] = [{repo!r}, {bench!r}]
from ablations import ABLATIONS
ABLATIONS[{name!r}]()
from tree_ring.harness import guidance
from tree_ring.model import project
from tree_ring.model.identity import Identity
from tree_ring.read.recall import recall
from tree_ring.store.db import Store
from tree_ring.write import pipeline
sys.path.insert(0, {tests!r})
from helpers import PERSON, make_memory
root = tempfile.mkdtemp()
guidance.init_project(root)
pid = project.load_project_id(root)
with Store.open(root) as store:
    memory = make_memory(pid, "The request timeout is 60s")
    pipeline.store_memory(store, memory, PERSON)
    for question in ("request timeout", "what was the timeout on 3 March 2025?"):
        hits = recall(store, Identity(pid, None, None, None), question)
        assert [h.memory.id for h in hits] == [memory.id], (question, hits)
print("ok")
"""


@pytest.mark.parametrize("name", NAMES)
def test_an_ablation_leaves_recall_working(name: str) -> None:
    assert {"meaning", "dates", "relations"} <= set(NAMES)
    code = PROBE.format(
        repo=str(REPO), bench=str(REPO / "benchmarks"), tests=str(REPO / "tests"), name=name
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
