"""A brief without repeats after consolidation, and `consolidate --retire-sources`."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import AGENT, PERSON, CliRunner
from tree_support import remember, sentence, tune

from tree_ring.model.identity import Identity
from tree_ring.model.record import now_iso
from tree_ring.read import brief, recall
from tree_ring.store import audit, rows
from tree_ring.store.db import Store
from tree_ring.store.live import View
from tree_ring.upkeep import consolidate

# A budget that seals an L0 node (and so a root) over four short memories.
FOUR = 30


def four_and_summary(store: Store, project: str, **kw: Any) -> tuple[list[str], consolidate.Report]:
    tune(store, input_token_budget=FOUR)
    sources = [remember(store, project, sentence(i), salience=0.9) for i in range(4)]
    report = consolidate.consolidate(store, project, "manual", actor=PERSON, **kw)
    return sources, report


def fenced(text: str) -> list[str]:
    return text.split(brief.BEGIN)[1].split(brief.END)[0].strip().splitlines()


def test_the_brief_shows_the_summary_once_and_none_of_its_sources(
    store: Store, identity: Identity
) -> None:
    sources, report = four_and_summary(store, identity.project)
    (summary_id,) = report.to_dict()["written"]
    # The history the brief would add covers exactly these four.
    root = store.query(brief.ROOT_SQL, (identity.project,))
    assert root, "the tree sealed a root over the four sources"
    leaves = {r[0] for r in store.query(brief.LEAVES_SQL, (root[0][0],))}
    assert leaves and leaves <= {*sources, summary_id}
    result = brief.build_brief(store, identity)
    lines = fenced(result.text)
    assert result.ids == (summary_id,)
    assert len(lines) == 1 and summary_id in lines[0]
    assert not any(source in result.text for source in sources)
    assert "[history]" not in result.text
    assert "1 recalled memory" in result.text


def test_sources_ranked_above_their_summary_give_way_too(store: Store, identity: Identity) -> None:
    """Hundreds of rows ahead do not matter: the summary drops its sources from
    wherever they stand, and other memories keep their lines."""
    sources, report = four_and_summary(store, identity.project)
    (summary_id,) = report.to_dict()["written"]
    with store.write() as db:
        for source in sources:
            rows.update(db, source, ring="scar")  # scars lead the brief
    other = remember(store, identity.project, sentence(50), ring="scar")
    result = brief.build_brief(store, identity)
    assert set(result.ids) == {summary_id, other}


def test_a_summary_not_shown_hides_nothing(store: Store, identity: Identity) -> None:
    """Sources of a summary the brief does not show keep their lines."""
    sources, report = four_and_summary(store, identity.project)
    (summary_id,) = report.to_dict()["written"]
    with store.write() as db:
        rows.update(db, summary_id, trust="pending")
    result = brief.build_brief(store, identity)
    assert set(sources) <= set(result.ids) and summary_id not in result.ids


def test_the_history_line_stays_when_it_covers_more_than_is_shown(
    store: Store, identity: Identity
) -> None:
    sources, _ = four_and_summary(store, identity.project)
    with store.write() as db:
        rows.update(db, sources[0], sensitivity="private")  # not in the brief, still a leaf
    with store.write() as db:
        # The summary no longer consolidates the hidden source: the root's line
        # is the only place it is summarised.
        summary = next(m for m in brief.select(store, identity) if brief.consolidated(m))
        links = [
            {"type": link.type, "target": link.target}
            for link in summary.links
            if link.target != sources[0]
        ]
        db.execute("UPDATE memories SET links = ? WHERE id = ?", (json.dumps(links), summary.id))
    assert "[history]" in brief.build_brief(store, identity).text


# ----------------------------------------------------------- retire sources


def test_retire_sources_retires_each_source_audited_and_keeps_its_text(
    store: Store, identity: Identity, run_cli: CliRunner
) -> None:
    tune(store, input_token_budget=FOUR)
    sources = [remember(store, identity.project, sentence(i), salience=0.9) for i in range(4)]
    before = now_iso()
    done = run_cli("--json", "consolidate", "--retire-sources")
    assert done.code == 0, done.err
    doc = done.json()
    (summary_id,) = [group["summary_id"] for group in doc["items"] if group["summary_id"]]
    assert sorted(doc["retired"]) == sorted(sources)
    for source in sources:
        row = rows.get(store.db, source)
        assert row.retired_at is not None and row.summary.startswith(
            sentence(sources.index(source))[:5]
        )
    retired = [e for e in audit.entries(store.db) if e["action"] == "retire"]
    assert {e["target"] for e in retired} == set(sources)
    assert all(
        json.loads(e["detail"])["reason"] == f"consolidated into {summary_id}" for e in retired
    )
    # Out of brief and recall as retired rows are; on record for --as-of.
    assert brief.build_brief(store, identity).ids == (summary_id,)
    for i in range(4):
        found = [hit.memory.id for hit in recall.recall(store, identity, sentence(i))]
        assert found == [summary_id]
    past = recall.recall(store, identity, sentence(0), view=View(as_of=before))
    assert sources[0] in [hit.memory.id for hit in past]


def test_without_the_flag_and_in_a_dry_run_nothing_is_retired(
    store: Store, identity: Identity, run_cli: CliRunner
) -> None:
    tune(store, input_token_budget=FOUR)
    sources = [remember(store, identity.project, sentence(i), salience=0.9) for i in range(4)]
    plan = run_cli("--json", "consolidate", "--retire-sources", "--dry-run").json()
    assert sorted(plan["retired"]) == sorted(sources) and plan["consolidated"] == 0
    assert "would retire 4 sources" in run_cli("consolidate", "--retire-sources", "--dry-run").out
    done = run_cli("--json", "consolidate").json()
    assert done["retired"] == [] and done["consolidated"] == 1
    assert all(rows.get(store.db, s).retired_at is None for s in sources)


def test_a_summary_waiting_for_review_keeps_its_sources(store: Store, identity: Identity) -> None:
    tune(store, input_token_budget=FOUR)
    sources = [
        remember(store, identity.project, sentence(i), salience=0.9, sensitivity="private")
        for i in range(4)
    ]
    report = consolidate.consolidate(
        store, identity.project, "manual", actor=PERSON, retire_sources=True
    )
    assert [g.trust for g in report.groups if g.written] == ["pending"]
    assert report.to_dict()["retired"] == []
    assert all(rows.get(store.db, s).retired_at is None for s in sources)


@pytest.mark.parametrize("flag", [True, False])
def test_an_agent_may_not_retire_what_it_did_not_write(
    flag: bool, store: Store, identity: Identity
) -> None:
    from tree_ring.model.errors import Denied

    tune(store, input_token_budget=FOUR)
    # A person's notes in the agent's own partition: its summary is accepted
    # (one of shared rows would wait, and retire nothing), yet not the agent's to retire.
    sources = [
        remember(store, identity.project, sentence(i), scope="agent", agent_profile=AGENT.name)
        for i in range(4)
    ]
    if flag:
        with pytest.raises(Denied):
            consolidate.consolidate(
                store, identity.project, "manual", actor=AGENT, retire_sources=True
            )
        # All or nothing: no summary either.
        assert not store.query("SELECT id FROM memories WHERE source_type = 'consolidation'")
    else:
        consolidate.consolidate(store, identity.project, "manual", actor=AGENT)
    assert all(rows.get(store.db, s).retired_at is None for s in sources)
