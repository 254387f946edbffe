"""The brief's `[history]` line passes the guard like every other line.

The root summary's text was sealed from memories that were clean then; a
newer secret rule can find a secret in it now. Then the line is left out, and
the rest of the brief stands. Its sensitivity is that of its sources, as a
memory line's is the stored one: the tree seals only normal-sensitivity rows,
and a redaction rebuilds the nodes over the row.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from tree_support import remember, sentence, tune

from tree_ring.model import project
from tree_ring.model.identity import Identity
from tree_ring.read import brief, tree_recall
from tree_ring.store.db import Store

SECRET = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


@pytest.fixture
def rooted(store: Store, identity: Identity) -> str:
    """A project whose history has sealed a root summary the brief shows a line of."""
    tune(store, input_token_budget=16, summary_fanout=2)
    for i in range(12):
        remember(store, identity.project, sentence(i))
    root = tree_recall.root_node(store.db, identity.project)
    assert root is not None and "[history] " in brief.build_brief(store, identity).text
    return root.id


def test_a_root_holding_a_secret_gives_no_history_line(
    store: Store, identity: Identity, rooted: str, project_root: Path
) -> None:
    added = f"the deploy token is {SECRET}"
    # As a node sealed before a newer rule reads now (or one edited by hand).
    conn = sqlite3.connect(project.store_path(project_root))
    with conn:
        conn.execute("DROP TRIGGER tree_nodes_sealed")
        conn.execute(
            "UPDATE tree_nodes SET content = content || ? WHERE id = ?", (f"\n— {added}", rooted)
        )
    conn.close()
    text = brief.build_brief(store, identity).text
    assert "[history]" not in text and added not in text and SECRET[:12] not in text
    assert "Tree Ring memory for project" in text and len(brief.select(store, identity)) > 0


def _node_text(project_root: Path, root: str, text: str) -> None:
    """The root node's content set to one entry of `text`, as a node sealed
    before a newer rule reads now (or one edited by hand)."""
    conn = sqlite3.connect(project.store_path(project_root))
    with conn:
        conn.execute("DROP TRIGGER tree_nodes_sealed")
        conn.execute("UPDATE tree_nodes SET content = ? WHERE id = ?", (f"— {text}", root))
    conn.close()


# In what the line shows, across its cut (it shows about 560 bytes of text),
# and just past it.
@pytest.mark.parametrize("at", [0, brief.LINE_BYTES - 110, brief.LINE_BYTES - 20])
def test_a_secret_in_what_the_line_shows_or_near_its_cut_gives_no_line(
    store: Store, identity: Identity, rooted: str, project_root: Path, at: int
) -> None:
    filler = ("lorem " * 400)[:at]
    _node_text(project_root, rooted, f"{filler} {SECRET} and the rest of the summary")
    text = brief.build_brief(store, identity).text
    assert "[history]" not in text and SECRET[:8] not in text


def test_a_secret_past_the_cut_is_never_read_nor_shown(
    store: Store, identity: Identity, rooted: str, project_root: Path
) -> None:
    """The guard reads what the line shows and a token's length past its cut;
    the rest of a long node is never injected."""
    filler = ("lorem " * 400)[: brief.LINE_BYTES + brief.CUT_MARGIN + 10]
    _node_text(project_root, rooted, f"{filler} {SECRET}")
    text = brief.build_brief(store, identity).text
    [line] = [line for line in text.splitlines() if line.startswith("[history] ")]
    assert line.startswith('[history] "lorem lorem') and "ghp_" not in text
