"""A consolidation retires with a source retired after it was written.

Superseding a consolidated source, a person's refutation of it or a rejection
in review retires every live summary citing it, in the same transaction and
audited with the source's id, so no brief keeps stating the retired fact as a
live memory; `consolidate` then summarises what is live. An agent's
refutation is a claim: the summary stays. A source retired into its summary
(`--retire-sources`) leaves the summary as it is.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import AGENT, PERSON
from team_support import clone, first_repo, hub, ledger_entries, ok, publish, pull
from team_support import remember as remember_in
from tree_support import remember

from tree_ring.model.identity import Identity
from tree_ring.read import brief
from tree_ring.review import queue, refute
from tree_ring.store import audit, rows
from tree_ring.store.db import Store
from tree_ring.upkeep import consolidate
from tree_ring.write import correct

MASTER = "The default branch for releases is master"
FREEZE = "Deploys freeze on Fridays after the release branch is cut"
MAIN = "The default branch for releases is main"


def consolidated(store: Store, project: str) -> tuple[str, str, str]:
    """Two sources and their accepted summary: (the old fact, the other, the summary)."""
    old = remember(store, project, MASTER, salience=0.9)
    other = remember(store, project, FREEZE, salience=0.9)
    report = consolidate.consolidate(store, project, "manual", actor=PERSON)
    (summary,) = report.to_dict()["written"]
    assert MASTER in rows.get(store.db, summary).summary
    return old, other, summary


def retirements(store: Store, summary: str) -> list[dict[str, object]]:
    return [
        json.loads(str(r[0]))
        for r in store.query(
            "SELECT detail FROM audit_log WHERE action = 'retire' AND target = ?", (summary,)
        )
    ]


def test_superseding_a_source_retires_its_summary(store: Store, identity: Identity) -> None:
    old, other, summary = consolidated(store, identity.project)
    new = remember(store, identity.project, MAIN, salience=0.9)
    assert correct.supersede(store, old, new, reason="changed", actor=PERSON)
    gone = rows.get(store.db, summary)
    assert gone.retired_at is not None and gone.valid_to is not None
    (entry,) = retirements(store, summary)
    assert entry["source"] == old
    assert entry["reason"] == f"its source {old} was superseded by {new}"
    assert audit.verify(store.db).ok
    shown = brief.build_brief(store, identity)
    assert MASTER not in shown.text
    assert set(shown.ids) == {other, new}
    # A later run summarises what is live.
    report = consolidate.consolidate(store, identity.project, "manual", actor=PERSON)
    (again,) = report.to_dict()["written"]
    text = rows.get(store.db, again).summary
    assert MAIN in text and MASTER not in text
    assert set(brief.build_brief(store, identity).ids) == {again}


def test_a_persons_refutation_retires_the_summary(store: Store, identity: Identity) -> None:
    old, other, summary = consolidated(store, identity.project)
    refute.refute(store, old, reason="the branch was renamed", actor=PERSON)
    assert rows.get(store.db, summary).retired_at is not None
    assert [e["source"] for e in retirements(store, summary)] == [old]
    assert set(brief.build_brief(store, identity).ids) == {other}


def test_a_rejection_in_review_retires_the_summary(store: Store, identity: Identity) -> None:
    old, _, summary = consolidated(store, identity.project)
    queue.reject(store, old, actor=PERSON, reason="never true")
    assert rows.get(store.db, summary).retired_at is not None
    assert retirements(store, summary)[0]["reason"] == f"its source {old} was rejected in review"


def test_an_agents_refutation_leaves_the_summary(store: Store, identity: Identity) -> None:
    old, _, summary = consolidated(store, identity.project)
    refute.refute(store, old, reason="the branch was renamed", actor=AGENT)
    assert rows.get(store.db, old).trust == "disputed"
    kept = rows.get(store.db, summary)
    assert (kept.retired_at, kept.valid_to, kept.trust) == (None, None, "accepted")
    assert retirements(store, summary) == []
    assert summary in brief.build_brief(store, identity).ids


def test_sources_retired_into_their_summary_leave_it(store: Store, identity: Identity) -> None:
    remember(store, identity.project, MASTER, salience=0.9)
    remember(store, identity.project, FREEZE, salience=0.9)
    report = consolidate.consolidate(
        store, identity.project, "manual", actor=PERSON, retire_sources=True
    )
    (summary,) = report.to_dict()["written"]
    assert len(report.to_dict()["retired"]) == 2
    assert rows.get(store.db, summary).retired_at is None
    assert brief.build_brief(store, identity).ids == (summary,)


def test_a_summary_retired_already_is_left(store: Store, identity: Identity) -> None:
    old, other, summary = consolidated(store, identity.project)
    correct.supersede(store, old, remember(store, identity.project, MAIN), reason="x", actor=PERSON)
    before = rows.get(store.db, summary)
    refute.refute(store, other, reason="no freeze any more", actor=PERSON)
    assert rows.get(store.db, summary) == before
    assert len(retirements(store, summary)) == 1


def test_a_teammate_takes_the_retired_summary_and_forgets_nothing(tmp_path: Path) -> None:
    """Through real git: the source's and the summary's retired lines arrive
    together; the clone retires both and tombstones nothing, so its ledger
    says no forget back to the team."""
    alice = first_repo(tmp_path)
    hub(tmp_path, alice)
    old = remember_in(alice, MASTER)
    remember_in(alice, FREEZE)
    made = ok(alice, "--json", "consolidate", "--period-type", "manual").json()
    summary = made["items"][0]["summary_id"]
    publish(alice, "summary")
    bob = clone(tmp_path / "alice-hub.git", tmp_path, "bob")
    new = remember_in(alice, MAIN)
    ok(alice, "supersede", old, new, "--reason", "changed")
    publish(alice, "superseded")
    pull(bob)
    report = ok(bob, "--json", "sync").json()
    assert (report["skipped"], report["forgotten"], report["replaced"]) == (0, 0, 2)
    assert {e["id"]: e["retired_at"] is not None for e in ledger_entries(bob)} == {
        e["id"]: e["retired_at"] is not None for e in ledger_entries(alice)
    }
    assert all(e["record"] == "memory" for e in ledger_entries(bob))
    assert summary not in ok(bob, "--json", "brief").out
    with Store.open(bob) as opened:
        assert opened.query("SELECT memory_id FROM content_tombstones") == []
