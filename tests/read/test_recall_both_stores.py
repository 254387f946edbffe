"""A recall over the project and the person's user store ranks both on one
scale of meaning (`recall.Scale`): a store whose memories hold none of the
question's words does not weigh its nearest one as if meaning were all there
was to go on, whichever store that is."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import CliRunner

from tree_ring.api.project import Project

PROJECT = (
    "Password hashing uses argon2id; bcrypt hashes are rehashed on next login",
    "Emails go through Postmark; SendGrid was dropped in 2025",
    "Releases are cut on Thursdays after the freeze",
    "The billing service publishes invoices to the ledger queue",
)
PERSONAL = (
    "The user likes emoji-free commit messages",
    "Never force-push to a shared branch",
    "I prefer tabs over spaces in my own scripts",
)
# Each question holds words of one project memory, and none of a personal note.
ASKED = {
    "how are passwords stored": PROJECT[0],
    "which service sends our transactional mail": PROJECT[1],
    "who delivers outgoing email": PROJECT[1],
    "what day do we release": PROJECT[2],
    "which queue does billing publish invoices to": PROJECT[3],
}


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    return {"TREE_RING_USER_HOME": str(tmp_path / "me")}


def _remember(run_cli: CliRunner, home: dict[str, str], text: str, *args: str) -> None:
    done = run_cli("remember", text, *args, environ=home)
    assert done.code == 0, done.err


def _stores(run_cli: CliRunner, home: dict[str, str], personal: tuple[str, ...]) -> None:
    """The project's memories, and `personal` in the person's user store."""
    for text in PROJECT:
        _remember(run_cli, home, text)
    for text in personal:
        _remember(run_cli, home, text, "--scope", "global")


def _first(root: Path, home: dict[str, str], query: str) -> tuple[str, str]:
    with Project.open(str(root), home) as here:
        best = here.recall(query, limit=5)[0]
    return best.store, best.memory.summary


@pytest.mark.parametrize("query", sorted(ASKED))
def test_a_personal_note_does_not_outrank_the_project_memory_that_holds_the_words(
    project_root: Path, run_cli: CliRunner, home: dict[str, str], query: str
) -> None:
    _stores(run_cli, home, PERSONAL)
    assert _first(project_root, home, query) == ("project", ASKED[query])


def test_a_personal_note_that_holds_the_words_ranks_first_over_project_strangers(
    project_root: Path, run_cli: CliRunner, home: dict[str, str]
) -> None:
    """The other way round: the project's memories hold none of the words,
    the user store's note does; the project's are ranked again on the scale
    of both, so its nearest stranger is not weighed by meaning alone."""
    _stores(run_cli, home, PERSONAL)
    for query, note in (
        ("should I force-push to shared branches", PERSONAL[1]),
        ("tabs or spaces in scripts", PERSONAL[2]),
        ("emoji in commit messages", PERSONAL[0]),
    ):
        assert _first(project_root, home, query) == ("user", note), query


def test_the_same_project_alone_ranks_as_before(
    project_root: Path, run_cli: CliRunner, home: dict[str, str]
) -> None:
    """Without a user store the scale is the project's own: the same first hits."""
    _stores(run_cli, home, ())
    for query, expected in ASKED.items():
        assert _first(project_root, home, query) == ("project", expected), query


def test_plain_recall_marks_a_hit_found_by_meaning_alone(
    project_root: Path, run_cli: CliRunner, home: dict[str, str]
) -> None:
    _stores(run_cli, home, PERSONAL[:1])
    done = run_cli("--json", "recall", "who delivers outgoing email", environ=home)
    plain = run_cli("recall", "who delivers outgoing email", environ=home).out.splitlines()
    marked = {
        item["summary"] for item in done.json()["items"] if item["match"] == "near in meaning"
    }
    assert marked and len(marked) < len(plain)
    for line in plain:
        summary = line.split('"')[1]
        assert line.endswith("; near in meaning)") is (summary in marked), line
