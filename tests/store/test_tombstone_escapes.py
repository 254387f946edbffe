"""A forgotten claim does not come back spelled with escapes.

`Deploys&nbsp;freeze`, `&#68;eploys freeze`, `Deploys%20freeze` and
`Deploys\\u0020freeze` read as `Deploys freeze` to a person and to a model;
the tombstone keys read a text's escapes decoded and its markup tags taken
out (`model/escapes.py`) beside the text as written, so each spelling is
refused once the plain claim is forgotten, and the plain claim once a
spelling is. A tombstone written before
escapes were decoded holds the key of the text as written, which is still
checked. Text that only looks like an escape (`AT&T`, `50%`, `C:\\path`) is
keyed as before.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import CliRunner
from helpers import cli_runner, make_memory

from tree_ring.model.escapes import decoded
from tree_ring.store import tombstones

CLAIM = "Deploys freeze on Fridays after the release branch is cut"
SPELLINGS = [
    "Deploys&nbsp;freeze on Fridays after the release branch is cut",
    "&#68;eploys freeze on Fridays after the release branch is cut",
    "&#x44;eploys freeze on Fridays after the release branch is cut",
    "Deploys&#32;freeze on Fridays after the release branch is cut",
    "Deploys%20freeze%20on%20Fridays%20after%20the%20release%20branch%20is%20cut",
    "Deploys%2520freeze on Fridays after the release branch is cut",
    "Deploys\\u0020freeze on Fridays after the release branch is cut",
    "Deploys\\x20freeze on Fridays\\nafter the release branch is cut",
    "Deploys freeze on Fridays &amp; after the release branch is cut",
    "Deploys <b>freeze</b> on Fridays after the <em>release</em> branch is cut",
    '<a href="https://wiki">Deploys</a> freeze on Fridays after the release branch is cut',
    "\\u{44}eploys freeze on Fridays after the release branch is cut",
    "\\104eploys\\040freeze on Fridays after the release branch is cut",
    "\\N{LATIN CAPITAL LETTER D}eploys freeze on Fridays after the release branch is cut",
    "\\ud835\\udc03eploys freeze on Fridays after the release branch is cut",
]


def _remember(run: CliRunner, text: str) -> tuple[int, str]:
    done = run("--json", "remember", text)
    return done.code, done.out if done.code == 0 else done.err


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_a_spelling_of_a_forgotten_claim_is_refused(project_root: Path, spelling: str) -> None:
    run = cli_runner(project_root)
    code, out = _remember(run, CLAIM)
    assert code == 0, out
    forgot = run("forget", json.loads(out)["id"], "--mode", "delete", "--reason", "lifted")
    assert forgot.code == 0, forgot.err

    code, said = _remember(run, spelling)

    assert code != 0
    assert "forgotten" in said and said.count("\n") == 1


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_the_plain_claim_of_a_forgotten_spelling_is_refused(
    project_root: Path, spelling: str
) -> None:
    run = cli_runner(project_root)
    code, out = _remember(run, spelling)
    assert code == 0, out
    forgot = run("forget", json.loads(out)["id"], "--mode", "delete", "--reason", "lifted")
    assert forgot.code == 0, forgot.err

    assert _remember(run, CLAIM)[0] != 0


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_a_key_written_before_escapes_were_decoded_still_binds(spelling: str) -> None:
    """What an earlier version tombstoned for the spelling (its text as
    written) is among the keys a write of that spelling is checked by."""
    before = tombstones.claim_key(tombstones.written_claim_text(spelling))
    assert before != tombstones.claim_key(tombstones.claim_text(spelling))
    assert before in tombstones.keys(spelling, "")
    assert tombstones.claim_key(tombstones.claim_text(CLAIM)) in tombstones.keys(spelling, "")


@pytest.mark.parametrize(
    "text",
    [
        "AT&T deploys on Fridays; R&D runs the checks",
        "Coverage is at 50% and 100%",
        "Use && between the steps, not ;",
        "Percent-encoded URLs use %-escapes",
    ],
)
def test_text_that_only_looks_escaped_is_keyed_as_written(text: str) -> None:
    assert decoded(text) == text
    assert tombstones.claim_text(text) == tombstones.written_claim_text(text)


def test_a_path_with_backslashes_keeps_its_key_as_written() -> None:
    """`C:\\new\\tools` reads `\\n` and `\\t` as escapes too; the text as
    written is keyed beside it, so forgetting or writing it misses nothing."""
    path = "The config lives in C:\\new\\tools\\app on the build box"
    written = tombstones.claim_key(tombstones.written_claim_text(path))
    assert written in tombstones.keys(path, "")
    assert written in tombstones.forget_keys(make_memory("p-1", path))


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("a&nbsp;b", "a\u00a0b"),
        ("&#68;&#x45;", "DE"),
        ("caf%C3%A9", "café"),
        ("%2541", "A"),  # twice over: %25 is "%", then %41 is "A"
        ("%252541", "%41"),  # no third round
        ("\\u00e9\\U0001F600\\x41\\n", "é\U0001f600A\n"),
        ("\\ud800 stays", "\\ud800 stays"),  # a surrogate spells no character
        ("%FF", "\ufffd"),
        ("\\u{44}\\U00000045\\106\\N{LATIN SMALL LETTER G}", "DEFg"),
        ("\\ud835\\udc03", "\U0001d403"),  # a JSON surrogate pair: one character
        ("\\N{NO SUCH CHARACTER}", "\\N{NO SUCH CHARACTER}"),
        ('a <b>bold</b> <a href="x">link</a><br/>', "a bold link"),
        ("a < b and c > d", "a < b and c > d"),  # comparisons are no tags
    ],
)
def test_decoded(written: str, read: str) -> None:
    assert decoded(written) == read
