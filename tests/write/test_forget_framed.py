"""A forgotten sentence said again inside a longer one: a write that adds up
to `tombstones.TRIM` words before or after it ("FYI ...", "So ...",
"..., as before") is refused as the sentence itself is, through every write
path an agent has; what adds more says something else and is stored."""

from __future__ import annotations

from pathlib import Path

from governance_support import CLAUDE, remember, write
from helpers import CliRunner

from tree_ring.store import tombstones

TEXT = "Kappa ingest workers shard by tenant hash modulo eight"
FRAMED = (
    f"FYI {TEXT}",
    f"So {TEXT}",
    f"Recall: {TEXT}",
    f"{TEXT}, as before",
    f"We still think {TEXT}",
    f"Per the team, {TEXT}, as agreed.",
    f"{TEXT.upper()} as noted",
    f"Deploys pause on Fridays. FYI {TEXT}.",
)
# More than TRIM words around it, or other words inside it.
STORED = (
    f"An older page of the runbook said {TEXT}",
    f"{TEXT} until the migration to the new partitioner lands",
    "Kappa ingest workers shard by tenant hash modulo sixteen now",
)


def forgotten(run_cli: CliRunner) -> None:
    first = remember(run_cli, TEXT)
    write(run_cli, "forget", first, "--mode", "delete", "--reason", "changed")


def test_a_forgotten_sentence_framed_by_a_few_words_is_refused(
    run_cli: CliRunner, project_root: Path
) -> None:
    assert tombstones.TRIM == 3
    forgotten(run_cli)
    refused = {
        text
        for text in (*FRAMED, *STORED)
        if "will not be stored again" in run_cli("remember", text).err
    }
    assert refused == set(FRAMED)
    agent = run_cli("--json", "remember", f"FYI {TEXT}", "--scope", "agent", environ=CLAUDE)
    assert agent.code != 0 and "will not be stored again" in agent.err, agent.err
    shown = {item["summary"] for item in run_cli("--json", "list").json()["items"]}
    assert shown == set(STORED)


def test_a_persons_framed_note_written_before_holds_the_claim(
    run_cli: CliRunner, project_root: Path
) -> None:
    """A person's note that says the sentence with a word before it holds the
    claim, as a note holding it beside another sentence does: forgetting the
    plain one keeps only that very text out (its content hash), so the note
    is not refused while it stays in every read."""
    kept = remember(run_cli, f"FYI {TEXT}")
    first = remember(run_cli, TEXT)
    write(run_cli, "forget", first, "--mode", "delete", "--reason", "changed")
    assert run_cli("--json", "remember", f"So {TEXT}").code == 0
    assert "will not be stored again" in run_cli("remember", TEXT).err
    listed = {item["id"] for item in run_cli("--json", "list").json()["items"]}
    assert kept in listed and first not in listed


def test_a_framed_sentence_split_between_summary_and_details_is_refused(
    run_cli: CliRunner, project_root: Path
) -> None:
    forgotten(run_cli)
    head, tail = "Kappa ingest workers shard", "by tenant hash modulo eight"
    refused = run_cli("remember", f"FYI {head}", "--details", f"{tail}, as before")
    assert refused.code != 0 and "will not be stored again" in refused.err, refused.err
    other = run_cli("remember", f"FYI {head}", "--details", "by region until the migration")
    assert other.code == 0, other.err
