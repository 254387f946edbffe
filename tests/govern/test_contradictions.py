"""A write that contradicts a live memory is linked to it and queued for review."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import AGENT, PERSON, CliRunner, make_memory
from governance_support import (
    CLAUDE,
    CODEX,
    audit_rows,
    checked_detail,
    live_ids,
    remember,
    show,
    write,
)

from tree_ring.govern import claims
from tree_ring.store.db import Store
from tree_ring.write import pipeline

# A write into the shared project scope by an agent: what waits when it contradicts.
BY_AGENT = ("--scope", "project")

FLAGGED = [
    ("The request timeout is 30s", "The request timeout is 60s", "value"),
    ("Use tabs in Makefiles", "Do not use tabs in Makefiles", "negation"),
    ("Use tabs in Makefiles", "Never use tabs in Makefiles", "negation"),
    ("Use tabs in Makefiles", "Don\u2019t use tabs in Makefiles", "negation"),
    ("Always rebase feature branches", "Never rebase feature branches", "negation"),
    ("Enable the build cache on CI", "Disable the build cache on CI", "negation"),
    ("Telemetry is enabled", "Telemetry is disabled", "negation"),
    ("Set the retry limit to 3", "Set the retry limit to 5", "value"),
    ("Use Python 3.11 for CI", "Use Python 3.12 for CI", "value"),
    ("max_connections=100", "max_connections = 250", "value"),
    ("The API port is 8080", "the api PORT is 9090.", "value"),
    # One word set after "is" at the end, of a subject of two words or more: a value.
    ("The default branch is master", "The default branch is main", "value"),
    # A day of the week is when: another day for the same thing is another value.
    ("Staging is reset every Sunday night", "Staging is reset every Saturday night", "value"),
    ("We ship releases on Tuesdays", "We ship releases on Thursdays", "value"),
    ("The backup runs on sunday", "The backup runs on monday", "value"),
    # A number after a name inside the sentence is its version.
    ("We run Postgres 16 in every environment", "We run Postgres 17 in every environment", "value"),
]

NOT_FLAGGED = [
    ("Use tabs in Makefiles", "Use spaces in Python files"),
    ("Run the tests before committing", "Run the linter before pushing"),
    ("Run the tests before committing", "Run the linter before committing"),
    ("The API timeout is 30s", "The database timeout is 60s"),
    ("Fix for issue 12 was pinning urllib3", "Fix for issue 13 was pinning urllib3"),
    ("Do not commit secrets", "Commit the lockfile"),
    ("Use tabs in Makefiles", "Use tabs in Makefiles."),  # a duplicate, not a dispute
    ("Never deploy on Fridays", "Do not deploy on Fridays"),  # the same claim twice
    ("The cache is not shared between workers", "The cache TTL is 30s"),
    ("Tests are flaky", "Tests are slow"),  # a subject of one word: too little to say
    ("The default branch is master", "The release branch is main"),
    ("The default branch is main", "The default branch is main."),
    # A capitalised first word names no product: "Issue 12" is still an issue.
    ("Issue 12 was fixed by pinning urllib3", "Issue 13 was fixed by pinning urllib3"),
    ("Staging is reset every Sunday night", "Staging is reset every Sunday night."),
    ("The backup runs on Sunday", "The restore drill runs on Sunday"),
    # A day before a noun names a thing; so does a number after a naming word.
    ("The Sunday backup runs at 02:00", "The Saturday backup runs at 02:00"),
    ("Run Step 3 before the deploy", "Run Step 2 before the deploy"),
]


@pytest.mark.parametrize(("old", "new", "kind"), FLAGGED)
def test_these_pairs_contradict(old: str, new: str, kind: str) -> None:
    assert claims.compare(new, old) == kind
    assert claims.compare(old, new) == kind


@pytest.mark.parametrize(("old", "new"), NOT_FLAGGED)
def test_these_pairs_do_not(old: str, new: str) -> None:
    assert claims.compare(new, old) is None
    assert claims.compare(old, new) is None


def test_a_contradicting_write_is_linked_both_ways_and_disputed(
    run_cli: CliRunner, project_root: Path
) -> None:
    old = remember(run_cli, "The request timeout is 30s")
    # An agent's write: a person's own contradicting fact is accepted (test_person_corrections).
    data = write(run_cli, "remember", "The request timeout is 60s", *BY_AGENT, environ=CLAUDE)
    new = data["id"]
    assert data["trust"] == "disputed"
    assert f"contradicts live memory {old} (a changed value)" in data["review_reason"]
    assert {"type": "contradicts", "target": old} in show(run_cli, new)["links"]
    assert {"type": "contradicts", "target": new} in show(run_cli, old)["links"]
    # The store keeps believing the older claim until a person decides.
    assert show(run_cli, old)["trust"] == "accepted"
    assert live_ids(run_cli) == {old}
    listed = run_cli("--json", "review", "list").json()["items"]
    assert [(w["id"], [c["id"] for c in w["contradicts"]]) for w in listed] == [(new, [old])]
    text = run_cli("review", "list").out
    assert f"contradicts {old} [accepted]: The request timeout is 30s" in text
    found = run_cli("--json", "audit", "--audit-type", "contradictions").json()["items"]
    assert [(f["type"], {f["id"], f["reason"].split()[1]}) for f in found] == [
        ("contradictions", {old, new})
    ]
    entry = [r for r in audit_rows(project_root, "contradiction") if r["target"] == new]
    assert [checked_detail(project_root, r) for r in entry] == [
        {"contradicts": [old], "trust": "disputed"}
    ]


def test_the_queue_says_when_what_a_row_contradicts_was_retired(run_cli: CliRunner) -> None:
    old = remember(run_cli, "The request timeout is 30s")
    waiting = write(run_cli, "remember", "The request timeout is 60s", *BY_AGENT, environ=CLAUDE)
    newer = remember(run_cli, "Requests give up after a minute")
    run_cli("supersede", old, newer, "--reason", "a minute now")
    [item] = run_cli("--json", "review", "list").json()["items"]
    assert item["id"] == waiting["id"]
    [said] = item["contradicts"]
    assert (said["id"], said["superseded_by"], said["retired_at"] is not None) == (
        old,
        newer,
        True,
    )
    text = run_cli("review", "list").out
    assert f"contradicts {old} [superseded by {newer}]: The request timeout is 30s" in text
    assert "[accepted]" not in text


def test_an_agents_changed_word_against_a_persons_fact_is_disputed_when_written(
    run_cli: CliRunner,
) -> None:
    old = remember(run_cli, "The default branch is master")
    data = write(run_cli, "remember", "The default branch is main", *BY_AGENT, environ=CLAUDE)
    assert data["trust"] == "disputed"
    assert f"contradicts live memory {old} (a changed value)" in data["review_reason"]
    assert {"type": "contradicts", "target": old} in show(run_cli, data["id"])["links"]


def test_an_agent_contradiction_is_disputed_too(run_cli: CliRunner) -> None:
    old = remember(
        run_cli,
        "Enable the build cache on CI",
        "--scope",
        "agent",
        "--agent-profile",
        "claude-code",
    )
    data = write(run_cli, "remember", "Disable the build cache on CI", environ=CLAUDE)
    assert data["trust"] == "disputed"
    assert f"{old} (the opposite)" in data["review_reason"]


@pytest.mark.parametrize(("old_text", "new_text"), NOT_FLAGGED[:6])
def test_unrelated_writes_are_not_flagged(run_cli: CliRunner, old_text: str, new_text: str) -> None:
    old = remember(run_cli, old_text)
    data = write(run_cli, "remember", new_text)
    assert data["trust"] == "accepted"
    assert show(run_cli, old)["links"] == [] and show(run_cli, data["id"])["links"] == []


@pytest.mark.parametrize(
    ("old_text", "new_text"),
    [
        (
            "Run the full test suite before merging",
            "Never run the full test suite before merging to main",
        ),
        (
            "Never run the full test suite before merging to main",
            "Run the full test suite before merging",
        ),
        (
            "Workers retry failed uploads with exponential backoff and jitter up to 5 times",
            "Workers retry failed uploads with exponential backoff up to 8 times",
        ),
    ],
)
def test_a_word_more_or_less_is_still_found(
    run_cli: CliRunner, old_text: str, new_text: str
) -> None:
    old = remember(run_cli, old_text)
    data = write(run_cli, "remember", new_text, *BY_AGENT, environ=CLAUDE)
    assert data["trust"] == "disputed" and old in data["review_reason"]


def test_only_the_same_scope_and_partition_are_compared(run_cli: CliRunner) -> None:
    other_partition = remember(run_cli, "Use tabs in Makefiles", "--scope", "agent", environ=CLAUDE)
    # Another agent's partition holds no such claim: nothing to contradict there.
    data = write(
        run_cli, "remember", "Never use tabs in Makefiles", "--scope", "agent", environ=CODEX
    )
    assert data["trust"] == "accepted"
    same = write(
        run_cli, "remember", "Never use tabs in Makefiles", "--scope", "agent", environ=CLAUDE
    )
    assert same["trust"] == "disputed" and other_partition in same["review_reason"]


@pytest.mark.parametrize("scope", ["agent", "session"])
def test_an_agents_own_note_against_the_projects_memory_is_disputed(
    run_cli: CliRunner, scope: str
) -> None:
    """What the project shares holds in every partition: an agent's note that
    contradicts it waits, and the shared row is left exactly as it was."""
    shared = remember(run_cli, "The request timeout is 30s")
    other_project_row = remember(run_cli, "The request timeout of the worker queue is 5s")
    before = show(run_cli, shared)
    data = write(
        run_cli, "remember", "The request timeout is 90s", "--scope", scope, environ=CLAUDE
    )
    assert data["trust"] == "disputed"
    assert f"contradicts live memory {shared} (a changed value)" in data["review_reason"]
    links = show(run_cli, data["id"])["links"]
    assert links == [{"type": "contradicts", "target": shared}]
    assert show(run_cli, shared) == before
    assert show(run_cli, other_project_row)["links"] == []
    # The agent's session believes the project's value, not its own note.
    believed = {m["id"] for m in run_cli("--json", "list", environ=CLAUDE).json()["items"]}
    assert shared in believed and data["id"] not in believed
    # A person settles it as any dispute: approving the note retires the project's row.
    write(run_cli, "review", "approve", data["id"], "--supersede-contradicted", "--reason", "ok")
    assert show(run_cli, shared)["superseded_by"] == data["id"]
    assert show(run_cli, data["id"])["scope"] == "project"  # read where the old value was


def test_an_agents_refutation_does_not_switch_the_rule_off(run_cli: CliRunner) -> None:
    """A refutation waits for a person: until one decides, the project's row
    still holds, and an agent's note changing its value is disputed."""
    shared = remember(run_cli, "The request timeout is 30s")
    write(run_cli, "refute", shared, "--reason", "client config differs", environ=CLAUDE)
    data = write(run_cli, "remember", "The request timeout is 90s", environ=CLAUDE)
    assert data["trust"] == "disputed"
    assert f"contradicts live memory {shared} (a changed value)" in data["review_reason"]


def test_a_persons_note_or_an_agreeing_one_is_not_disputed(run_cli: CliRunner) -> None:
    remember(run_cli, "The request timeout is 30s")
    mine = write(
        run_cli,
        "remember",
        "The request timeout is 90s",
        "--scope",
        "agent",
        "--agent-profile",
        "claude-code",
    )
    assert mine["trust"] == "accepted"
    same = write(
        run_cli, "remember", "The request timeout is 30s.", "--scope", "agent", environ=CODEX
    )
    assert same["trust"] == "accepted"


def test_only_live_accepted_rows_are_contradicted(run_cli: CliRunner) -> None:
    pending = remember(
        run_cli, "Cache TTL is 10m", "--scope", "project", "--event-type", "rule", environ=CLAUDE
    )
    retired = remember(run_cli, "Retry budget is 3")
    write(run_cli, "forget", retired, "--mode", "redact", "--reason", "stale")
    assert show(run_cli, pending)["trust"] == "pending"
    assert write(run_cli, "remember", "Cache TTL is 20m")["trust"] == "accepted"
    assert write(run_cli, "remember", "Retry budget is 5")["trust"] == "accepted"


def test_a_replacement_is_not_a_contradiction(run_cli: CliRunner) -> None:
    old = remember(run_cli, "The request timeout is 30s")
    new = write(run_cli, "remember", "The request timeout is 60s", "--supersedes", old)
    assert new["trust"] == "accepted"
    assert show(run_cli, new["id"])["links"] == []


def test_policy_can_link_without_queueing(run_cli: CliRunner) -> None:
    write(run_cli, "review", "policy", "--set", "contradictions=false")
    old = remember(run_cli, "The request timeout is 30s")
    data = write(run_cli, "remember", "The request timeout is 60s")
    assert data["trust"] == "accepted"
    assert {"type": "contradicts", "target": old} in show(run_cli, data["id"])["links"]
    found = run_cli("--json", "audit", "--audit-type", "contradictions").json()["items"]
    assert len(found) == 1


def test_approving_can_supersede_what_it_contradicts(run_cli: CliRunner) -> None:
    old = remember(run_cli, "The request timeout is 30s")
    new = remember(run_cli, "The request timeout is 60s", *BY_AGENT, environ=CLAUDE)
    done = write(
        run_cli, "review", "approve", new, "--supersede-contradicted", "--reason", "raised"
    )
    assert done["superseded"] == [old]
    assert live_ids(run_cli) == {new}
    assert run_cli("--json", "audit", "--audit-type", "contradictions").json()["items"] == []


def test_approving_both_settles_the_finding(run_cli: CliRunner) -> None:
    old = remember(run_cli, "Use tabs in Makefiles")
    new = remember(run_cli, "Never use tabs in Makefiles", *BY_AGENT, environ=CLAUDE)
    assert len(run_cli("--json", "audit", "--audit-type", "contradictions").json()["items"]) == 1
    write(run_cli, "review", "approve", new, "--reason", "different Makefile dialects")
    assert live_ids(run_cli) == {old, new}
    assert run_cli("--json", "audit", "--audit-type", "contradictions").json()["items"] == []
    assert {"type": "contradicts", "target": old} in show(run_cli, new)["links"]


def test_rejecting_the_newer_claim_keeps_the_older(run_cli: CliRunner) -> None:
    old = remember(run_cli, "The request timeout is 30s")
    new = remember(run_cli, "The request timeout is 60s")
    write(run_cli, "review", "reject", new, "--reason", "config still says 30s")
    assert live_ids(run_cli) == {old}
    again = run_cli("remember", "The request timeout is 60s")
    assert again.code == 1 and "rejected in review" in again.err


@pytest.mark.parametrize(
    "hostile",
    [
        'timeout" OR "x',
        "NEAR(timeout is 60s)",
        "timeout* AND -is 60s",
        "timeout: {summary} ^60s",
        '"""',
    ],
)
def test_hostile_text_never_reaches_match_raw(store: Store, project_id: str, hostile: str) -> None:
    with store.write() as conn:
        pipeline.insert_prepared(conn, make_memory(project_id, "timeout is 30s"), PERSON)
        result = pipeline.insert_prepared(conn, make_memory(project_id, hostile), PERSON)
    assert result.trust in ("accepted", "disputed")


def test_contradictions_are_found_among_many_distractors(store: Store, project_id: str) -> None:
    with store.write() as conn:
        for i in range(300):
            pipeline.insert_prepared(
                conn,
                make_memory(project_id, f"The worker {i} timeout setting is documented"),
                PERSON,
            )
        target = pipeline.insert_prepared(
            conn, make_memory(project_id, "The worker timeout setting is 30s"), PERSON
        )
        result = pipeline.insert_prepared(
            conn, make_memory(project_id, "The worker timeout setting is 45s"), AGENT
        )
    assert result.trust == "disputed"
    assert result.review_reason is not None and target.id in result.review_reason
    assert result.review_reason.count("mem_") == 1


@pytest.mark.parametrize(("scope", "environ"), [("agent", CLAUDE), ("session", CODEX)])
def test_a_persons_fact_for_the_project_disputes_an_agents_earlier_note(
    run_cli: CliRunner, scope: str, environ: dict[str, str]
) -> None:
    """Whichever is written first: an agent's note that the project's new
    value contradicts waits, disputed, and the agent's session believes the
    project; the person's row is left as written, and told."""
    note = remember(
        run_cli, "The ingest worker count is 4 per node", "--scope", scope, environ=environ
    )
    agreeing = remember(run_cli, "The ingest batch size is 64", "--scope", scope, environ=environ)
    mine = remember(
        run_cli,
        "The ingest worker count is 2 per node",
        "--scope",
        "agent",
        "--agent-profile",
        "reviewer",
    )
    data = write(run_cli, "remember", "The ingest worker count is 6 per node")
    assert data["trust"] == "accepted"
    assert data["disputes"] == [note]
    assert data["contradicts"] == []
    disputed = show(run_cli, note)
    assert disputed["trust"] == "disputed"
    assert f"contradicts {data['id']} (a changed value)" in disputed["review"]["review_reason"]
    assert disputed["links"] == [{"type": "contradicts", "target": data["id"]}]
    assert show(run_cli, data["id"])["links"] == []
    assert show(run_cli, agreeing)["trust"] == "accepted"
    assert show(run_cli, mine)["trust"] == "accepted"  # a person's own note is their word
    believed = {m["id"] for m in run_cli("--json", "list", environ=environ).json()["items"]}
    assert data["id"] in believed and note not in believed and agreeing in believed
    waiting = {m["id"] for m in run_cli("--json", "review", "list").json()["items"]}
    assert waiting == {note}
    assert run_cli("--json", "audit", "verify").json()["ok"] is True
    said = run_cli("remember", "The ingest worker count is 8 per node").out
    assert "disputes" not in said  # the note already waits: nothing disputed twice


def test_a_persons_fact_leaves_agents_notes_alone_when_the_policy_says_so(
    run_cli: CliRunner,
) -> None:
    write(run_cli, "review", "policy", "--set", "contradictions=false")
    note = remember(run_cli, "The ingest worker count is 4 per node", environ=CLAUDE)
    data = write(run_cli, "remember", "The ingest worker count is 6 per node")
    assert data["disputes"] == []
    assert show(run_cli, note)["trust"] == "accepted"


@pytest.mark.parametrize("shared", ["tool", "eval", "manual", "dox", "revolve"])
def test_every_scope_the_project_shares_holds_in_every_partition(
    run_cli: CliRunner, shared: str
) -> None:
    """Not only the project scope: a memory in any scope every session reads
    disputes an agent's contradicting note, in either write order."""
    rule = remember(run_cli, "The queue depth is 10", "--scope", shared)
    later = write(run_cli, "remember", "The queue depth is 20", environ=CLAUDE)
    assert later["trust"] == "disputed" and later["contradicts"] == [rule]
    earlier = remember(run_cli, "The lint level is 20", environ=CLAUDE)
    data = write(run_cli, "remember", "The lint level is 10", "--scope", shared)
    assert data["disputes"] == [earlier]
    assert show(run_cli, earlier)["trust"] == "disputed"
    believed = {m["id"] for m in run_cli("--json", "list", environ=CLAUDE).json()["items"]}
    assert believed == {rule, data["id"]}


def test_a_shared_capture_that_contradicts_a_rule_in_another_shared_scope_stays_put(
    run_cli: CliRunner, project_id: str
) -> None:
    write(run_cli, "review", "policy", "--set", "share_captures=true")
    rule = remember(run_cli, "The queue depth is 10", "--scope", "dox", "--ring", "heartwood")
    captured = write(
        run_cli, "capture", "The queue depth is 20", "--event-type", "lesson",
        "--ring", "cambium", "--agent-profile", "claude-code", "--session-id", "s1",
        "--operation-id", "auto-0123456789ab-1", "--project", project_id, environ=CLAUDE,
    )  # fmt: skip
    assert captured["trust"] == "disputed" and captured["contradicts"] == [rule]
    assert show(run_cli, captured["id"])["scope"] == "agent"  # not shared


def test_an_agents_earlier_note_is_disputed_however_the_value_becomes_the_projects(
    run_cli: CliRunner, tmp_path: Path
) -> None:
    """A person's import, promotion of another harness's note, approval of
    its proposal: each makes a value the project's, as a person's remember
    does, and an agent's earlier note contradicting it waits."""
    imported_note = remember(run_cli, "The batch size is 100", environ=CLAUDE)
    lines = tmp_path / "rows.jsonl"
    lines.write_text('{"summary": "The batch size is 50", "scope": "project"}\n')
    assert write(run_cli, "import", str(lines))["disputes"] == [imported_note]
    promoted_note = remember(run_cli, "The api port is 8080", environ=CLAUDE)
    theirs = remember(run_cli, "The api port is 9090", environ=CODEX)
    promoted = write(run_cli, "promote", theirs, "--reason", "the port moved")
    assert promoted["items"][0]["disputes"] == [promoted_note]
    approved_note = remember(run_cli, "The worker pool size is 4", environ=CLAUDE)
    proposal = remember(run_cli, "The worker pool size is 16", "--scope", "project", environ=CODEX)
    said = run_cli("review", "approve", proposal, "--reason", "sized for the batch jobs").out
    assert f"disputes {approved_note}, an agent's note in its own partition" in said
    notes = (imported_note, promoted_note, approved_note)
    assert {show(run_cli, n)["trust"] for n in notes} == {"disputed"}
    believed = {m["id"] for m in run_cli("--json", "list", environ=CLAUDE).json()["items"]}
    assert believed.isdisjoint(notes) and {theirs, proposal} <= believed
    assert run_cli("--json", "audit", "verify").json()["ok"] is True


def test_a_note_waiting_for_its_weight_waits_disputed_once_the_project_says_otherwise(
    run_cli: CliRunner,
) -> None:
    """A note an agent gave weight, still waiting for a person, is disputed
    by the project's contradicting value, so its review entry names the
    conflict beside the weight."""
    note = remember(run_cli, "The gc pause target is 50ms", "--salience", "0.85", environ=CLAUDE)
    assert show(run_cli, note)["trust"] == "pending"
    data = write(run_cli, "remember", "The gc pause target is 10ms")
    assert data["disputes"] == [note]
    why = show(run_cli, note)["review"]["review_reason"]
    assert why.startswith(f"contradicts {data['id']} (a changed value)") and "salience 0.85" in why


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("staging is reset every Sunday", "staging is reset every Saturday"),
        ("We deploy to production every Tuesday", "We deploy to production every Thursday"),
        ("We run Postgres 15 in production", "We run Postgres 16 in production"),
    ],
)
def test_a_changed_day_or_version_is_found_in_the_store(
    run_cli: CliRunner, old: str, new: str
) -> None:
    """The stored claim is found though the day or the version, the value
    that changed, is the word the two do not share."""
    first = remember(run_cli, old)
    data = write(run_cli, "remember", new, *BY_AGENT, environ=CLAUDE)
    assert data["trust"] == "disputed" and data["contradicts"] == [first]


def test_a_note_valid_only_from_later_is_disputed_as_one_valid_now(run_cli: CliRunner) -> None:
    """An agent's note written to hold from a later time contradicts the
    person's value as much as one that holds now: the person's write
    disputes it, and it waits for review when its time comes."""
    later = write(
        run_cli, "remember", "The request timeout is 60s", "--valid-from", "2099-01-01T00:00:00Z",
        environ=CLAUDE,
    )["id"]  # fmt: skip
    data = write(run_cli, "remember", "The request timeout is 30s")
    assert data["disputes"] == [later]
    assert show(run_cli, later)["trust"] == "disputed"
