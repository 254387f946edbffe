"""How a screen or a page words where a team ledger line came from (`provenance.said`)."""

from __future__ import annotations

from typing import Any

import pytest

from tree_ring.team import provenance

REF = "refs/remotes/origin/main"
COMMIT = "1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d"


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        ({"source": "working tree"}, "a claim from the working tree"),
        ({"source": "local commit"}, "a claim from a local commit"),
        (
            {"source": "upstream", "commit": COMMIT, "author": "Ana <ana@x>", "ref": REF},
            "commit 1a2b3c4 by Ana <ana@x> (upstream origin/main)",
        ),
        ({"source": "upstream", "commit": COMMIT, "ref": None}, "commit 1a2b3c4 (upstream)"),
        ({"source": "upstream", "author": "Ana <ana@x>", "ref": REF},
         "a commit by Ana <ana@x> (upstream origin/main)"),
        ({"source": "upstream", "ref": REF}, "the upstream origin/main"),
    ],
)  # fmt: skip
def test_each_source_is_worded_for_a_person(entry: dict[str, Any], said: str) -> None:
    assert provenance.said(entry) == said
