"""An agent's claims about a person's memory change nothing that travels.

Through real git: an agent's refutation leaves the person's accepted memory
disputed in this store, waiting for a person, while the team ledger keeps its
line byte for byte, so a teammate's fresh clone still gets the memory. An
agent's supersede of it waits for review and leaves the line as well. A
person's decisions travel: a refutation retires the memory there too, a
rejection forgets it, and a person's dispute takes it out of what the ledger
shares (docs/TEAM.md).
"""

from __future__ import annotations

import json
from pathlib import Path

from team_support import LEDGER, cli, clone, first_repo, hub, ok, publish, remember, trust_of

AGENT_ENV = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "agent-session-1"}
RULE = "Never deploy the billing service during business hours"
OTHER = "Deploys freeze on Fridays after the release branch is cut"


def line_of(root: Path, memory_id: str) -> str | None:
    for text in (root / LEDGER).read_text(encoding="utf-8").splitlines():
        if json.loads(text).get("id") == memory_id:
            return text
    return None


def shared_rule(tmp: Path) -> tuple[Path, str, str]:
    """Alice's repository with its upstream, her rule committed and pushed; the rule's line."""
    alice = first_repo(tmp)
    hub(tmp, alice)
    rule = remember(alice, RULE)
    publish(alice, "the billing rule")
    line = line_of(alice, rule)
    assert line is not None and json.loads(line)["trust"] == "accepted"
    return alice, rule, line


def test_an_agents_refutation_keeps_the_persons_line_for_every_clone(tmp_path: Path) -> None:
    alice, rule, line = shared_rule(tmp_path)
    done = cli(
        alice, "--json", "refute", rule, "--reason", "deploys are fine any time", environ=AGENT_ENV
    )
    assert done.code == 0, done.err
    assert done.json()["trust"] == "disputed"
    # Here it waits for a person: disputed, in the review queue.
    assert trust_of(alice)[rule] == "disputed"
    listed = ok(alice, "--json", "review", "list").json()
    assert {item["id"] for item in listed["items"]} == {rule}
    # The next write and a sync rewrite the ledger: the rule's line is as it was.
    remember(alice, OTHER)
    assert line_of(alice, rule) == line
    ok(alice, "sync")
    assert line_of(alice, rule) == line
    assert "deploys are fine" not in (alice / LEDGER).read_text(encoding="utf-8")
    publish(alice, "another memory")

    bob = clone(tmp_path / "alice-hub.git", tmp_path, "bob")
    assert trust_of(bob)[rule] == "accepted"
    assert RULE in ok(bob, "brief").out
    assert line_of(bob, rule) == line


def test_a_sync_of_the_upstream_leaves_the_refuted_row_waiting(tmp_path: Path) -> None:
    """The upstream's line (the rule as it was) is the store's own: nothing replaces the row."""
    alice, rule, _ = shared_rule(tmp_path)
    assert cli(alice, "refute", rule, "--reason", "wrong now", environ=AGENT_ENV).code == 0
    report = ok(alice, "--json", "sync").json()
    assert (report["imported"], report["replaced"], report["claimed"]) == (0, 0, [])
    assert trust_of(alice)[rule] == "disputed"
    assert '(disputed by claude-code: "wrong now")' in ok(alice, "brief").out


def test_an_agents_supersede_of_the_persons_memory_leaves_its_line(tmp_path: Path) -> None:
    alice, rule, line = shared_rule(tmp_path)
    newer = cli(
        alice,
        "--json",
        "remember",
        "Deploy billing any time",
        "--scope",
        "project",
        environ=AGENT_ENV,
    ).json()["id"]
    done = cli(alice, "supersede", rule, newer, "--reason", "changed", environ=AGENT_ENV)
    assert done.code == 0, done.err
    assert "when" in done.out and "is approved" in done.out
    again = cli(
        alice,
        "remember",
        "Deploy billing whenever",
        "--scope",
        "project",
        "--supersedes",
        rule,
        environ=AGENT_ENV,
    )
    assert again.code == 0, again.err
    remember(alice, OTHER)
    assert line_of(alice, rule) == line
    assert trust_of(alice)[rule] == "accepted"


def test_a_persons_decisions_on_the_refuted_row_travel(tmp_path: Path) -> None:
    alice, rule, line = shared_rule(tmp_path)
    assert cli(alice, "refute", rule, "--reason", "wrong now", environ=AGENT_ENV).code == 0
    # The person approves it again: believed, with the person's review.
    ok(alice, "review", "approve", rule, "--reason", "still right")
    approved = line_of(alice, rule)
    assert approved is not None and approved != line
    assert json.loads(approved)["review"]["review_reason"] == "still right"
    # The person's own refutation retires it, for the team too.
    ok(alice, "refute", rule, "--reason", "billing deploys moved to the night window")
    retired = line_of(alice, rule)
    assert retired is not None and json.loads(retired)["retired_at"] is not None


def test_a_persons_dispute_takes_the_row_out_of_the_ledger(tmp_path: Path) -> None:
    alice, rule, _ = shared_rule(tmp_path)
    ok(alice, "review", "dispute", rule, "--reason", "not sure any more")
    remember(alice, OTHER)
    assert line_of(alice, rule) is None


def test_a_persons_refutation_of_the_disputed_row_travels_retired(tmp_path: Path) -> None:
    """The person refutes the row an agent's refutation left waiting: it is
    retired as it was believed, and the team ledger says so, so a teammate's
    clone retires it too and neither clone's next sync changes the file."""
    alice, rule, line = shared_rule(tmp_path)
    assert cli(alice, "refute", rule, "--reason", "wrong now", environ=AGENT_ENV).code == 0
    ok(alice, "refute", rule, "--reason", "billing deploys moved to the night window")
    retired = line_of(alice, rule)
    assert retired is not None
    said = json.loads(retired)
    assert said["retired_at"] is not None and said["trust"] == "accepted"
    assert said["review"] == json.loads(line)["review"]  # the agent's words stay here
    assert ok(alice, "--json", "audit", "verify").json()["ok"] is True
    publish(alice, "the rule refuted")
    bob = clone(tmp_path / "alice-hub.git", tmp_path, "bob")
    assert line_of(bob, rule) == retired
    assert rule not in {m["id"] for m in ok(bob, "--json", "list").json()["items"]}
    before = (alice / LEDGER).read_text(encoding="utf-8")
    ok(alice, "sync")
    assert (alice / LEDGER).read_text(encoding="utf-8") == before
