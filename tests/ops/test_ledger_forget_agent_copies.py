"""A teammate's forget, taken by a sync, takes the copies agents wrote of the
forgotten claim in this clone, as the same forget run here does: a note in an
agent's partition, a project note an agent proposed that waits for review,
and those retired or rejected, which stay on record. None travels, so no
other clone can take them; left, the agent's brief and recall would go on
quoting what the team forgot, a person's approval would bring it back, and
the clone's own export would not import."""

from __future__ import annotations

from pathlib import Path

from governance_support import CLAUDE
from team_support import cli, clone, first_repo, hub, ok, publish, pull, remember

NIGHTLY = "The search index is rebuilt every night by the ops cron"
WEBHOOKS = "The payments service retries webhooks five times before giving up"
KEPT = "The staging cluster runs in eu-west-2"


def _agent_ids(root: Path, *argv: str) -> set[str]:
    done = cli(root, "--json", *argv, environ=CLAUDE)
    assert done.code == 0, done.err
    return {str(item["id"]) for item in done.json()["items"]}


def _agent_writes(root: Path, text: str, *flags: str) -> str:
    done = cli(root, "--json", "remember", text, *flags, environ=CLAUDE)
    assert done.code == 0, done.err
    return str(done.json()["id"])


def test_a_teammates_forget_takes_the_agents_copies_here(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    shared = hub(tmp_path, alice)
    nightly, webhooks = remember(alice, NIGHTLY), remember(alice, WEBHOOKS)
    publish(alice, "two memories")
    bob = clone(shared, tmp_path, "bob")
    own = _agent_writes(bob, NIGHTLY)  # the agent's own partition
    proposed = _agent_writes(bob, WEBHOOKS, "--scope", "project")  # waits for a person
    kept = _agent_writes(bob, KEPT)
    waiting = ok(bob, "--json", "review", "list").json()["items"]
    assert proposed in {str(item["id"]) for item in waiting}
    assert own in _agent_ids(bob, "recall", "search index rebuilt")
    ok(alice, "forget", nightly, "--mode", "delete", "--reason", "moved to the indexer")
    ok(alice, "forget", webhooks, "--mode", "redact", "--reason", "wrong count")
    publish(alice, "forgotten")
    pull(bob)
    ok(bob, "sync")
    assert _agent_ids(bob, "recall", "search index rebuilt") == set()
    assert _agent_ids(bob, "list") == {kept}
    assert "search index" not in cli(bob, "brief", environ=CLAUDE).out
    assert ok(bob, "--json", "review", "list").json()["items"] == []
    assert cli(bob, "show", own).code == 1  # deleted, as the teammate's was
    shown = cli(bob, "show", proposed)  # redacted: its placeholder, without the words
    assert shown.code == 0 and "redacted" in shown.out and "webhooks" not in shown.out


def test_a_teammates_forget_takes_the_agents_retired_copies_here(tmp_path: Path) -> None:
    alice = first_repo(tmp_path)
    shared = hub(tmp_path, alice)
    nightly = remember(alice, NIGHTLY)
    publish(alice, "a memory")
    bob = clone(shared, tmp_path, "bob")
    older = _agent_writes(bob, NIGHTLY)
    newer = _agent_writes(bob, "The search index is rebuilt by the indexer service")
    done = cli(bob, "supersede", older, newer, "--reason", "moved", environ=CLAUDE)
    assert done.code == 0, done.err
    proposal = _agent_writes(bob, NIGHTLY, "--scope", "project")
    ok(bob, "review", "reject", proposal, "--reason", "the team holds it")
    ok(alice, "forget", nightly, "--mode", "delete", "--reason", "moved to the indexer")
    publish(alice, "forgotten")
    pull(bob)
    ok(bob, "sync")
    assert cli(bob, "show", older).code == 1 and cli(bob, "show", proposal).code == 1
    exported = ok(bob, "export", "--include-unreviewed", "--include-superseded").out
    assert "every night" not in exported
    path = tmp_path / "bob.jsonl"
    path.write_text(exported, encoding="utf-8")
    ok(first_repo(tmp_path, "fresh"), "import", str(path), "--restore")
