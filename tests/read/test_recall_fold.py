"""Recall reads compatibility forms as their plain letters, in the rows and the question alike.

The index holds each row's text folded (`fold.searchable`: NFKC, default
ignorables removed, case folded) and recall folds the question the same
way; the rows themselves keep their text as written.
"""

from __future__ import annotations

import pytest
from helpers import PERSON, CliRunner, make_memory

from tree_ring.model.identity import Identity
from tree_ring.read.recall import Hit, recall
from tree_ring.store.db import Store
from tree_ring.write import correct, pipeline

# Each stored spelling beside a question in another spelling of its words.
PAIRS = [
    ("The ｂｉｌｌｉｎｇ service retries twice", "billing"),  # full-width Latin
    ("The billing service retries twice", "ｂｉｌｌｉｎｇ"),  # the question full-width
    ("ＢＩＬＬＩＮＧ runs on port ８０８０", "billing 8080"),  # full-width capitals and digits
    ("Port 8080 serves billing", "８０８０"),
    ("The con\ufb01g \ufb01le lives in etc", "config file"),  # the ligature fi
    ("The config file lives in etc", "con\ufb01g"),
    ("The billing queue drains nightly", "bil\u200bling"),  # a zero-width space
]


def ids(hits: list[Hit]) -> set[str]:
    return {h.memory.id for h in hits}


@pytest.mark.parametrize(("stored", "question"), PAIRS)
def test_a_compatibility_spelling_finds_the_plain_one(
    store: Store, identity: Identity, stored: str, question: str
) -> None:
    kept = pipeline.store_memory(store, make_memory(identity.project, stored), PERSON).id
    pipeline.store_memory(store, make_memory(identity.project, "Unrelated note on caching"), PERSON)
    assert ids(recall(store, identity, question)) == {kept}


@pytest.mark.parametrize("mode", ["redact", "delete"])
def test_a_forgotten_folded_row_leaves_the_index(
    store: Store, identity: Identity, mode: str
) -> None:
    gone = pipeline.store_memory(
        store, make_memory(identity.project, "ｂｉｌｌｉｎｇ uses the ﬁle ledger"), PERSON
    ).id
    kept = pipeline.store_memory(
        store, make_memory(identity.project, "ｐａｙｒｏｌｌ uses the ledger"), PERSON
    ).id
    correct.forget(store, gone, mode=mode, reason="wrong", actor=PERSON)
    # The kept row may be found near "billing" in meaning (payroll); the
    # forgotten one is found by nothing.
    assert ids(recall(store, identity, "billing")) <= {kept}
    assert ids(recall(store, identity, "file")) <= {kept}
    assert ids(recall(store, identity, "ledger")) == {kept}
    # The index matches its rows: FTS5 compares it with their folded text.
    store.conn.execute("INSERT INTO memory_fts(memory_fts, rank) VALUES ('integrity-check', 1)")


def test_json_output_keeps_the_stored_text_as_written(run_cli: CliRunner) -> None:
    written = "The ｂｉｌｌｉｎｇ \ufb01le holds ２０２４ totals"
    assert run_cli("remember", written).code == 0
    out = run_cli("--json", "recall", "billing file 2024").json()
    assert [item["summary"] for item in out["items"]] == [written]
    assert out["query"] == "billing file 2024"
