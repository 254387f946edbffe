"""Supersession: both rows linked, validity closed, and record time vs validity time."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from conftest import PERSON, CliRunner, make_memory
from governance_support import (
    CLAUDE,
    audit_rows,
    brief_ids,
    checked_detail,
    live_ids,
    recall_ids,
    remember,
    show,
    write,
)

from tree_ring.model.errors import Conflict, NotFound, UsageError
from tree_ring.model.record import format_time, parse_time
from tree_ring.store import rows
from tree_ring.store.db import Store
from tree_ring.store.live import View
from tree_ring.transfer import export
from tree_ring.write import correct, pipeline


def between(earlier: str, later: str) -> str:
    a = datetime.fromisoformat(earlier.replace("Z", "+00:00"))
    b = datetime.fromisoformat(later.replace("Z", "+00:00"))
    assert a < b
    return format_time(a + (b - a) / 2)


def exported(store: Store, project_id: str, view: View) -> set[str]:
    return {r["id"] for r in export.export_rows(store, project_id, view) if "record" not in r}


# -- the links ---------------------------------------------------------------------


@pytest.mark.parametrize("how", ["supersede", "remember --supersedes"])
def test_supersession_links_both_rows_and_closes_validity(
    run_cli: CliRunner, project_root: Path, store: Store, project_id: str, how: str
) -> None:
    old = remember(run_cli, "Cache lives in Redis", "--ring", "heartwood")
    if how == "supersede":
        new = remember(run_cli, "Cache lives in SQLite")
        done = write(run_cli, "supersede", old, new, "--reason", "moved to the local store")
        assert done["applied"] is True
        reason = "moved to the local store"
    else:
        new = remember(run_cli, "Cache lives in SQLite", "--supersedes", old)
        reason = "replaced by a newer memory"
    was, now = show(run_cli, old), show(run_cli, new)
    assert was["superseded_by"] == new and now["supersedes"] == [old]
    assert was["valid_to"] == now["valid_from"]
    assert was["retired_at"] is not None and was["retired_at"] >= now["created_at"]
    assert now["retired_at"] is None and now["valid_to"] is None
    entries = [r for r in audit_rows(project_root, "supersede") if r["target"] == old]
    assert len(entries) == 1
    assert checked_detail(project_root, entries[0]) == {
        "superseded_by": new,
        "reason": reason,
        "valid_to": was["valid_to"],
    }
    # The old row leaves every default read.
    assert recall_ids(run_cli, "cache lives") == {new}
    assert brief_ids(run_cli) == {new}
    assert live_ids(run_cli) == {new}
    assert exported(store, project_id, View(include_unreviewed=True)) == {new}
    assert exported(store, project_id, View(include_superseded=True)) == {old, new}


def test_an_exact_retry_of_remember_supersedes_returns_the_same_row(run_cli: CliRunner) -> None:
    old = remember(run_cli, "Builds run on Node 18")
    argv = ("Builds run on Node 20", "--supersedes", old, "--operation-id", "bump-node")
    first = write(run_cli, "remember", *argv)
    again = write(run_cli, "remember", *argv)
    assert (again["id"], again["created"]) == (first["id"], False)
    assert show(run_cli, old)["superseded_by"] == first["id"]


def test_supersede_refuses_what_cannot_be_replaced(
    run_cli: CliRunner, store: Store, project_id: str
) -> None:
    a = remember(run_cli, "Fact A")
    b = remember(run_cli, "Fact B")
    c = remember(run_cli, "Fact C")
    assert run_cli("supersede", a, a, "--reason", "x").code == 2
    assert run_cli("supersede", a, "mem_missing_1", "--reason", "x").code == 1
    assert run_cli("supersede", a, b).code == 2  # --reason is required
    write(run_cli, "supersede", a, b, "--reason", "b replaces a")
    twice = run_cli("supersede", a, c, "--reason", "again")
    assert twice.code == 1 and f"already superseded by {b}" in twice.err
    # A retired row cannot take over from a live one.
    back = run_cli("supersede", b, a, "--reason", "undo")
    assert back.code == 1 and "cannot supersede anything" in back.err
    gone = remember(run_cli, "Fact D")
    write(run_cli, "forget", gone, "--mode", "redact", "--reason", "wrong")
    assert "redacted" in run_cli("supersede", c, gone, "--reason", "x").err
    with store.write() as conn:
        other = pipeline.insert_prepared(conn, make_memory("other-project-1", "Elsewhere"), PERSON)
    with pytest.raises(UsageError, match="another project"), store.write() as conn:
        correct.supersede_in(conn, rows.get(conn, c), other.id, "x", PERSON, "2030-01-01T00:00:00Z")
    with pytest.raises(NotFound):
        correct.supersede(store, "mem_nope_1", c, reason="x", actor=PERSON)
    assert live_ids(run_cli) == {b, c}


# -- agents and review ---------------------------------------------------------------


def test_an_agent_cannot_retire_a_persons_memory(run_cli: CliRunner) -> None:
    mine = remember(run_cli, "Deploy from the release branch")
    theirs = remember(run_cli, "Deploy from main", environ=CLAUDE)
    refused = run_cli("supersede", mine, theirs, "--reason", "I think so", environ=CLAUDE)
    assert refused.code == 1 and "supersede.shared" in refused.err
    assert show(run_cli, mine)["superseded_by"] is None


def test_an_agent_may_replace_its_own_notes(run_cli: CliRunner) -> None:
    # Not a contradiction ("the flaky test is test_async" would be: a changed value).
    first = remember(run_cli, "The flaky test lives in test_sync.py", environ=CLAUDE)
    second = remember(run_cli, "The flaky test lives in test_async.py", environ=CLAUDE)
    write(run_cli, "supersede", first, second, "--reason", "misread the log", environ=CLAUDE)
    assert show(run_cli, first)["superseded_by"] == second


def test_a_persons_supersede_by_an_agents_note_shares_the_note(run_cli: CliRunner) -> None:
    """Replacing what the project shares with a partition note makes the note
    the project's: every other harness reads the new fact, not no fact."""
    old = remember(run_cli, "Ports are assigned in infra/ports.md")
    note = remember(run_cli, "Ports come from the service registry now", environ=CLAUDE)
    assert show(run_cli, note)["scope"] == "agent"
    done = write(run_cli, "supersede", old, note, "--reason", "registry is live")
    assert done["applied"] is True and done["shared"] == "project"
    assert show(run_cli, old)["superseded_by"] == note
    assert show(run_cli, note)["scope"] == "project"
    codex = {"CODEX_THREAD_ID": "019a4e00-0000-7000-8000-000000000002"}
    assert {m["id"] for m in run_cli("--json", "list", environ=codex).json()["items"]} == {note}


def test_an_agents_supersede_of_its_own_note_stays_in_its_partition(run_cli: CliRunner) -> None:
    first = remember(run_cli, "The flaky test lives in test_sync.py", environ=CLAUDE)
    second = remember(run_cli, "The flaky test lives in test_async.py", environ=CLAUDE)
    done = write(run_cli, "supersede", first, second, "--reason", "misread", environ=CLAUDE)
    assert done["shared"] is None and show(run_cli, second)["scope"] == "agent"


def test_an_agents_supersede_with_a_note_that_waits_says_so_in_its_review(
    run_cli: CliRunner,
) -> None:
    """An agent's supersession of a person's memory, with its note waiting
    (disputed here: it changes a value the project holds), waits for a
    person, and the note's review says so: approving the note retires the
    memory, so the person approving it must be told."""
    remember(run_cli, "The nightly job timeout is 40 minutes")
    theirs = remember(run_cli, "Production database migrations require a second reviewer")
    note = write(run_cli, "remember", "The nightly job timeout is 90 minutes", environ=CLAUDE)
    assert note["trust"] == "disputed"
    write(run_cli, "supersede", theirs, note["id"], "--reason", "cleanup", environ=CLAUDE)
    waiting = show(run_cli, note["id"])
    assert waiting["supersedes"] == [theirs]
    why = waiting["review"]["review_reason"]
    assert f"replaces {theirs}, which claude-code did not write" in why
    assert f"    approving it retires {theirs}" in run_cli("review", "list").out.splitlines()
    assert show(run_cli, theirs)["superseded_by"] is None


def test_the_review_queue_names_what_approving_retires(run_cli: CliRunner) -> None:
    old = remember(run_cli, "Ports are assigned in infra/ports.md")
    new = write(run_cli, "remember", "Ports are assigned by the service registry",
                "--scope", "project", "--supersedes", old, environ=CLAUDE)  # fmt: skip
    listed = run_cli("review", "list").out
    assert f"    approving it retires {old}" in listed.splitlines()
    [item] = run_cli("--json", "review", "list").json()["items"]
    assert (item["id"], item["supersedes"]) == (new["id"], [old])


def test_an_agent_replacement_waits_for_a_person(run_cli: CliRunner, project_root: Path) -> None:
    old = remember(run_cli, "Ports are assigned in infra/ports.md")
    data = write(
        run_cli,
        "remember",
        "Ports are assigned by the service registry",
        "--scope",
        "project",
        "--supersedes",
        old,
        environ=CLAUDE,
    )
    new = data["id"]
    assert data["trust"] == "pending" and f"replaces {old}" in data["review_reason"]
    # Until a person decides, the store still believes the old row.
    assert live_ids(run_cli) == {old}
    assert show(run_cli, new)["supersedes"] == [old]
    assert show(run_cli, old)["superseded_by"] is None
    waiting = [r for r in audit_rows(project_root, "supersede") if r["target"] == old]
    assert json.loads(waiting[0]["detail"])["waits_for"] == f"review of {new}"
    done = write(run_cli, "review", "approve", new, "--reason", "registry is live now")
    assert done["superseded"] == [old]
    assert show(run_cli, old)["superseded_by"] == new
    assert live_ids(run_cli) == {new}


def test_a_rejected_replacement_leaves_the_old_row_believed(run_cli: CliRunner) -> None:
    old = remember(run_cli, "Ports are assigned in infra/ports.md")
    new = remember(
        run_cli, "Ports are random", "--scope", "project", "--supersedes", old, environ=CLAUDE
    )
    write(run_cli, "review", "reject", new, "--reason", "they are not")
    assert live_ids(run_cli) == {old}
    assert show(run_cli, old)["superseded_by"] is None


def test_superseding_with_a_pending_row_waits_for_its_approval(run_cli: CliRunner) -> None:
    old = remember(run_cli, "Logs go to stdout")
    new = remember(
        run_cli, "Logs go to journald", "--ring", "heartwood", "--scope", "project", environ=CLAUDE
    )
    done = write(run_cli, "supersede", old, new, "--reason", "systemd migration")
    assert done["applied"] is False
    assert "when" in run_cli("supersede", old, new, "--reason", "systemd migration").out
    assert show(run_cli, old)["superseded_by"] is None
    write(run_cli, "review", "approve", new)
    assert show(run_cli, old)["superseded_by"] == new


# -- record time and validity time -----------------------------------------------------


def test_as_of_shows_what_was_believed_then(run_cli: CliRunner) -> None:
    a = remember(run_cli, "The default branch is master")
    b = remember(run_cli, "The default branch is main", "--supersedes", a)
    t0 = show(run_cli, a)["created_at"]
    t1 = show(run_cli, b)["created_at"]
    mid = between(t0, t1)
    for flags in (("--as-of", t0), ("--as-of", mid)):
        assert live_ids(run_cli, *flags) == {a}
        assert recall_ids(run_cli, "default branch", *flags) == {a}
    for flags in (("--as-of", t1), ()):
        assert live_ids(run_cli, *flags) == {b}
        assert recall_ids(run_cli, "default branch", *flags) == {b}
    # Validity time: what held at `mid`, as we believe now, is still A.
    assert live_ids(run_cli, "--valid-at", mid) == {a}
    assert recall_ids(run_cli, "default branch", "--valid-at", mid) == {a}
    before = format_time(datetime.fromisoformat(t0.replace("Z", "+00:00")) - timedelta(days=1))
    assert live_ids(run_cli, "--as-of", before) == set()


def test_a_fact_recorded_late_holds_in_the_past_only_once_recorded(run_cli: CliRunner) -> None:
    first = remember(run_cli, "Deploys need two approvals")
    t0 = show(run_cli, first)["created_at"]
    began = (datetime.now(UTC) - timedelta(days=60)).date().isoformat()
    late = remember(run_cli, "The code freeze began two months ago", "--valid-from", began)
    recorded = show(run_cli, late)["created_at"]
    assert show(run_cli, late)["valid_from"] == f"{began}T00:00:00.000000Z"
    past = format_time(datetime.now(UTC) - timedelta(days=30))
    # What held a month ago, as believed now: the late fact (the first did not hold yet).
    assert live_ids(run_cli, "--valid-at", past) == {late}
    # ... and as believed before the late fact was recorded: nothing.
    assert live_ids(run_cli, "--valid-at", past, "--as-of", between(t0, recorded)) == set()
    assert live_ids(run_cli, "--valid-at", past, "--as-of", recorded) == {late}
    # Validity defaults to the record time, so a plain as-of sees both now.
    assert live_ids(run_cli, "--as-of", recorded) == {first, late}


def test_bitemporal_scenario_with_fixed_times(store: Store, project_id: str) -> None:
    t0, t1, t2 = "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z"
    a = make_memory(
        project_id, "Timeout is 30s", created_at=parse_time(t0), valid_from=parse_time(t0)
    )
    b = make_memory(
        project_id, "Timeout is 60s", created_at=parse_time(t1), valid_from=parse_time(t1)
    )
    with store.write() as conn:
        pipeline.insert_prepared(conn, a, PERSON)
        rows.insert(conn, b)  # recorded at t1 without the contradiction check
        assert correct.supersede_in(
            conn, rows.get(conn, a.id), b.id, "raised", PERSON, parse_time(t1)
        )

    def seen(as_of: str | None = None, valid_at: str | None = None) -> set[str]:
        view = View(
            as_of=parse_time(as_of) if as_of else None,
            valid_at=parse_time(valid_at) if valid_at else None,
        )
        return exported(store, project_id, view)

    mid = "2026-01-15T00:00:00Z"
    assert seen(as_of=mid) == {a.id}
    assert seen(as_of=t2) == {b.id}
    assert seen() == {b.id}
    assert seen(valid_at=mid) == {a.id}
    assert seen(as_of=t2, valid_at=mid) == {a.id}
    assert seen(as_of=mid, valid_at=t2) == {a.id}  # believed at mid: no end known yet
    assert seen(valid_at="2025-12-01T00:00:00Z") == set()


def test_a_correction_says_the_old_fact_never_held(
    run_cli: CliRunner, tmp_path: Path, project_root: Path
) -> None:
    wrong = remember(run_cli, "The API rate limit is per user")
    t0 = show(run_cli, wrong)["created_at"]
    right = remember(
        run_cli,
        "The API rate limit is per token",
        "--valid-from",
        "2020-01-01",
        "--supersedes",
        wrong,
    )
    t1 = show(run_cli, right)["created_at"]
    was = show(run_cli, wrong)
    assert was["valid_to"] == was["valid_from"]  # an empty interval
    assert live_ids(run_cli, "--valid-at", between(t0, t1)) == {right}
    assert live_ids(run_cli, "--as-of", between(t0, t1)) == {wrong}
    # The empty interval survives export and import.
    dump = run_cli("export", "--include-superseded").out
    other = tmp_path / "other"
    other.mkdir()
    run_cli("init", "--root", str(other), root=False)
    path = tmp_path / "dump.jsonl"
    path.write_text(dump, encoding="utf-8")
    done = run_cli("--json", "import", str(path), "--root", str(other), root=False)
    assert done.code == 0, done.err
    assert set([i["id"] for i in done.json()["items"] if i["result"] == "imported"]) == {
        wrong,
        right,
    }


def test_supersede_in_reports_conflicts_in_the_library(store: Store, project_id: str) -> None:
    with store.write() as conn:
        a = pipeline.insert_prepared(conn, make_memory(project_id, "Alpha"), PERSON)
        b = pipeline.insert_prepared(conn, make_memory(project_id, "Beta"), PERSON)
    correct.supersede(store, a.id, b.id, reason="beta wins", actor=PERSON)
    with pytest.raises(Conflict, match="already superseded"):
        correct.supersede(store, a.id, b.id, reason="again", actor=PERSON)
    with store.write() as conn:
        old = rows.get(conn, a.id)
    assert old.valid_to is not None and old.retired_at is not None
    assert datetime.fromisoformat(old.retired_at.replace("Z", "+00:00")) <= datetime.now(UTC)
