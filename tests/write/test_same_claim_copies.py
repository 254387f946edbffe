"""A rejection or a forget takes the copies agents wrote of the same claim in
another spelling, as its tombstone folds it ("load-tests" is "load tests"):
what a write would now be refused for goes from the briefs too. A person's
own row of the claim stays, and a row that only shares words is no copy.
"""

from __future__ import annotations

from pathlib import Path

from governance_support import CLAUDE, query, remember, write
from helpers import CliRunner

HYPHEN = "Use the staging cluster kappa for load-tests"
SPACED = "Use the staging cluster kappa for load tests"
# The claim as one sentence of a longer note: a write of it is refused too.
INSIDE = "Use the staging cluster kappa for load-tests. Ask the platform team first."
# The same words and more, or in another order: other claims.
LONGER = "Use the staging cluster kappa for load tests of the billing service"
REORDERED = "For load tests use the kappa staging cluster"
LATER = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s2"}


def brief_ids(run_cli: CliRunner) -> set[str]:
    return set(run_cli("--json", "brief", environ=LATER).json()["items"])


def trust(root: Path) -> dict[str, str]:
    """Every row's trust state, deleted rows left out."""
    rows = query(root, "SELECT id, trust FROM memories WHERE redacted_at IS NULL")
    return {str(r[0]): str(r[1]) for r in rows}


def refused(run_cli: CliRunner, text: str, *args: str) -> bool:
    done = run_cli("remember", text, *args, environ=CLAUDE)
    assert done.code == 0 or "will not be stored again" in done.err, done.err
    return done.code != 0


def test_a_rejection_takes_the_agents_copies_in_another_spelling(
    run_cli: CliRunner, project_root: Path
) -> None:
    hyphen = remember(run_cli, HYPHEN, environ=CLAUDE)
    inside = remember(run_cli, INSIDE, environ=CLAUDE)
    longer = remember(run_cli, LONGER, environ=CLAUDE)
    reordered = remember(run_cli, REORDERED, environ=CLAUDE)
    proposed = write(run_cli, "remember", SPACED, "--scope", "project", environ=CLAUDE)["id"]
    assert brief_ids(run_cli) == {hyphen, inside, longer, reordered}

    done = write(run_cli, "review", "reject", proposed, "--reason", "there is no cluster kappa")

    assert done["copies"] == [hyphen, inside]
    assert trust(project_root) == {
        hyphen: "rejected",
        inside: "rejected",
        proposed: "rejected",
        longer: "accepted",
        reordered: "accepted",
    }
    assert brief_ids(run_cli) == {longer, reordered}
    assert refused(run_cli, HYPHEN) and refused(run_cli, SPACED, "--scope", "project")
    assert not refused(run_cli, REORDERED + " today")


def test_the_cli_names_the_copies_of_the_same_claim(run_cli: CliRunner) -> None:
    hyphen = remember(run_cli, HYPHEN, environ=CLAUDE)
    proposed = write(run_cli, "remember", SPACED, "--scope", "project", environ=CLAUDE)["id"]
    done = run_cli("review", "reject", proposed, "--reason", "no such cluster")
    assert done.code == 0, done.err
    assert done.out.splitlines()[1:] == [
        f"also rejected 1 copy an agent wrote of the same claim: {hyphen}"
    ]


def test_a_forget_takes_the_agents_copies_in_another_spelling(
    run_cli: CliRunner, project_root: Path
) -> None:
    hyphen = remember(run_cli, HYPHEN, environ=CLAUDE)
    longer = remember(run_cli, LONGER, environ=CLAUDE)
    spaced = remember(run_cli, SPACED, environ=CLAUDE)

    done = write(run_cli, "forget", spaced, "--mode", "delete", "--reason", "no such cluster")

    assert done["twins"] == [hyphen]
    assert trust(project_root) == {longer: "accepted"}
    assert brief_ids(run_cli) == {longer}
    assert refused(run_cli, HYPHEN) and refused(run_cli, SPACED, "--scope", "project")


def test_a_rejection_leaves_a_persons_own_row_in_another_spelling(
    run_cli: CliRunner, project_root: Path
) -> None:
    mine = remember(run_cli, HYPHEN)
    proposed = write(run_cli, "remember", SPACED, "--scope", "project", environ=CLAUDE)["id"]
    done = write(run_cli, "review", "reject", proposed, "--reason", "not as a proposal")
    assert done["copies"] == []
    assert trust(project_root) == {mine: "accepted", proposed: "rejected"}


def test_a_forget_leaves_a_persons_own_row_in_another_spelling(
    run_cli: CliRunner, project_root: Path
) -> None:
    mine = remember(run_cli, HYPHEN, "--scope", "project")
    noted = remember(run_cli, SPACED, environ=CLAUDE)
    forgot = write(run_cli, "forget", noted, "--mode", "delete", "--reason", "a duplicate")
    assert forgot["twins"] == []
    assert trust(project_root) == {mine: "accepted"}


def test_a_persons_forget_of_a_shared_row_leaves_their_other_spelling(
    run_cli: CliRunner, project_root: Path
) -> None:
    # Of a shared row, a person's exact copies go with it, as before; a
    # person's row in another spelling is their own to forget.
    mine = remember(run_cli, HYPHEN, "--scope", "project")
    exact = remember(run_cli, SPACED, "--scope", "project")
    shared = remember(run_cli, SPACED, "--scope", "project", "--tag", "copy")
    agents = remember(run_cli, HYPHEN, environ=CLAUDE)
    forgot = write(run_cli, "forget", shared, "--mode", "delete", "--reason", "wrong")
    assert forgot["twins"] == [exact, agents]
    assert trust(project_root) == {mine: "accepted"}


# Cyrillic a and e for their Latin look-alikes: the tombstone's fold makes
# them one claim, the full-text index does not.
LOOK_ALIKE = "Use the st\u0430ging cluster kappa for load t\u0435sts"


def test_copies_the_index_cannot_name_are_taken_too(run_cli: CliRunner, project_root: Path) -> None:
    """A copy in another script's look-alike letters, and one holding the
    claim only as its source's quote or reference, are refused as writes by
    the tombstone, so they go with the rejection as the others do."""
    alike = remember(run_cli, LOOK_ALIKE, environ=CLAUDE)
    quoted = remember(
        run_cli, "Cluster notes from the platform channel", "--source-quote", SPACED,
        environ=CLAUDE,
    )  # fmt: skip
    cited = remember(run_cli, "More cluster notes", "--source-ref", HYPHEN, environ=CLAUDE)
    other = remember(run_cli, "Cluster notes about the kappa release", environ=CLAUDE)
    proposed = write(run_cli, "remember", SPACED, "--scope", "project", environ=CLAUDE)["id"]
    done = write(run_cli, "review", "reject", proposed, "--reason", "there is no cluster kappa")
    assert set(done["copies"]) == {alike, quoted, cited}
    assert brief_ids(run_cli) == {other}
