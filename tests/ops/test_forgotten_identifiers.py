"""A forgotten claim does not come back as a camelCase identifier, nor a
forgotten identifier as its words: recall reads `UseTabsInTheMakefile` as
"use tabs in the makefile" (docs/RECALL-RANKING.md, section 8), and so
does the check of what was forgotten, by a person's write, an agent's,
and a field an import carries beside the claim. Notes that only share an
identifier's words, or name the identifier in another claim, are stored.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from forgetting_support import forgotten, listed
from helpers import CliRunner, parenthesized

AGENT = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "7f3c2a91"}


CLAIM = "Deploys freeze on Fridays after the release branch is cut"
# The claim in identifiers' spellings, whole or in part, in every field.
SPELLINGS = [
    ("DeploysFreezeOnFridaysAfterTheReleaseBranchIsCut",),
    ("deploysFreezeOnFridays after the releaseBranchIsCut",),
    ("Note: DeploysFreezeOnFridaysAfterTheReleaseBranchIsCut (confirmed)",),
    ("A note on deploys", "--details", "DeploysFreezeOnFridaysAfterTheReleaseBranchIsCut"),
    ("A note on deploys", "--source-quote", "DeploysFreezeOnFridays after the releaseBranchIsCut"),
    ("A note on deploys", "--tag", "DeploysFreezeOnFridaysAfterTheReleaseBranchIsCut"),
    ("Deploys freeze on Fridays", "--source-ref", "AfterTheReleaseBranchIsCut"),
    # Letters of other scripts, and a one-letter word, are words of it too.
    ("DéploysFreezeOnFridaysAfterTheReleaseBranchIsCut",),
    # Compatibility forms are the letters they stand for: mathematical bold,
    # circled, bold capitals alone, full-width.
    ("𝐃𝐞𝐩𝐥𝐨𝐲𝐬𝐅𝐫𝐞𝐞𝐳𝐞𝐎𝐧𝐅𝐫𝐢𝐝𝐚𝐲𝐬𝐀𝐟𝐭𝐞𝐫𝐓𝐡𝐞𝐑𝐞𝐥𝐞𝐚𝐬𝐞𝐁𝐫𝐚𝐧𝐜𝐡𝐈𝐬𝐂𝐮𝐭",),
    ("ⒹⓔⓟⓛⓞⓨⓢⒻⓡⓔⓔⓩⓔⓄⓝⒻⓡⓘⓓⓐⓨⓢⒶⓕⓣⓔⓡⓉⓗⓔⓇⓔⓛⓔⓐⓢⓔⒷⓡⓐⓝⓒⓗⒾⓢⒸⓤⓣ",),
    ("𝐃eploys𝐅reeze𝐎n𝐅ridays𝐀fter𝐓he𝐑elease𝐁ranch𝐈s𝐂ut",),
    (
        "ＤｅｐｌｏｙｓＦｒｅｅｚｅＯｎＦｒｉｄａｙｓＡｆｔｅｒＴｈｅＲｅｌｅａｓｅＢｒａｎｃｈＩｓＣｕｔ",
    ),
    ("A note on deploys", "--tag", "𝐃eploys𝐅reeze𝐎n𝐅ridays𝐀fter𝐓he𝐑elease𝐁ranch𝐈s𝐂ut"),
    # Enclosed forms NFKC writes in brackets: parenthesized small letters.
    (parenthesized("Deploys freeze on Fridays after the release branch is cut"),),
    (parenthesized("DeploysFreezeOnFridaysAfterTheReleaseBranchIsCut"),),
]
IDENTIFIER_CLAIM = "Set maxUnavailable to 0 for the checkout deploys"
# The forgotten identifier written as its words, or as another identifier.
WORDINGS = [
    "Set max unavailable to 0 for the checkout deploys",
    "Set max-unavailable to 0 for the checkout deploys",
    "Set MaxUnavailable to 0 for the checkout deploys",
]
# Notes that share the identifiers' words or name them in another claim.
KEPT = [
    "The maxUnavailable setting is read by the deploy controller",
    "DeploysFreezeOnFridays is the calendar's name for the release freeze",
    "Release branches are cut on Thursdays",
    "UseTabsInTheMakefile is a lint rule name",
]


@pytest.mark.parametrize("who", ["person", "agent"])
@pytest.mark.parametrize("args", SPELLINGS, ids=lambda a: " ".join(a)[:40])
def test_a_forgotten_claim_written_as_an_identifier_is_refused(
    run_cli: CliRunner, who: str, args: tuple[str, ...]
) -> None:
    forgotten(run_cli, CLAIM)
    done = run_cli("remember", *args, environ=AGENT if who == "agent" else None)
    assert done.code != 0, args
    assert "this content was forgotten" in done.err
    assert listed(run_cli) == 0


@pytest.mark.parametrize("who", ["person", "agent"])
@pytest.mark.parametrize("wording", WORDINGS)
def test_a_forgotten_identifier_written_as_its_words_is_refused(
    run_cli: CliRunner, who: str, wording: str
) -> None:
    forgotten(run_cli, IDENTIFIER_CLAIM)
    done = run_cli("remember", wording, environ=AGENT if who == "agent" else None)
    assert done.code != 0, wording
    assert "this content was forgotten" in done.err
    assert listed(run_cli) == 0


def test_notes_sharing_an_identifier_s_words_are_stored(run_cli: CliRunner) -> None:
    forgotten(run_cli, CLAIM)
    forgotten(run_cli, IDENTIFIER_CLAIM)
    for note in KEPT:
        done = run_cli("remember", note)
        assert done.code == 0, (note, done.err)
    assert listed(run_cli) == len(KEPT)


@pytest.mark.parametrize(
    ("claim", "reason"),
    [
        (CLAIM, "ok: DeploysFreezeOnFridaysAfterTheReleaseBranchIsCut"),
        # Its digits glued to its letters too.
        ("maxUnavailable is 1 for the checkout pods", "ok: MaxUnavailableIs1ForTheCheckoutPods"),
    ],
)
def test_an_imported_row_s_reason_may_not_say_it_as_an_identifier(
    run_cli: CliRunner, project_root: Path, claim: str, reason: str
) -> None:
    forgotten(run_cli, claim)
    project = json.loads((project_root / ".tree-ring" / "project.json").read_text())
    row = {
        "id": "mem_20261206_110000_00000000abcd",
        "project": project["project_id"],
        "summary": "Release calendar owners rotate quarterly",
        "review": {"review_reason": reason},
    }
    rows = project_root / "rows.jsonl"
    rows.write_text(json.dumps(row) + "\n", encoding="utf-8")
    done = run_cli("import", str(rows))
    assert done.code != 0
    assert "review.review_reason holds content that was forgotten" in done.err
    assert listed(run_cli) == 0


# A field that is the forgotten claim as one identifier, and nothing else.
TOKEN = "DeploysFreezeOnFridaysAfterTheReleaseBranchIsCut"


@pytest.mark.parametrize(
    "fields",
    [
        {"review": {"review_reason": TOKEN}},
        {"origin_session": TOKEN},
        {"source": {"type": TOKEN, "ref": "", "quote": ""}},
        {"agent_profile": TOKEN, "scope": "agent"},
        {"operation_id": TOKEN},
    ],
    ids=lambda f: next(iter(f)),
)
def test_an_imported_field_that_is_only_the_identifier_is_refused(
    run_cli: CliRunner, project_root: Path, fields: dict[str, object]
) -> None:
    forgotten(run_cli, CLAIM)
    project = json.loads((project_root / ".tree-ring" / "project.json").read_text())
    row = {"project": project["project_id"], "summary": "Release owners rotate", **fields}
    rows = project_root / "rows.jsonl"
    rows.write_text(json.dumps(row) + "\n", encoding="utf-8")
    done = run_cli("import", str(rows))
    assert done.code != 0, done.out
    assert "forgotten" in done.err
    assert listed(run_cli) == 0


@pytest.mark.parametrize(
    ("args", "environ"),
    [
        (("remember", "A note on releases", "--scope", "agent", "--agent-profile", TOKEN), None),
        (("remember", "A note on releases"), {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": TOKEN}),
        (("remember", "A note on releases", "--workflow-id", TOKEN), None),
    ],
    ids=["agent-profile", "session", "workflow"],
)
def test_an_id_that_is_only_the_identifier_is_refused(
    run_cli: CliRunner, args: tuple[str, ...], environ: dict[str, str] | None
) -> None:
    forgotten(run_cli, CLAIM)
    done = run_cli(*args, environ=environ)
    assert done.code != 0 and "this content was forgotten" in done.err, done.err
    assert listed(run_cli) == 0


@pytest.mark.parametrize("verb", ["refute", "forget"])
def test_a_reason_that_is_only_the_identifier_is_refused(run_cli: CliRunner, verb: str) -> None:
    forgotten(run_cli, CLAIM)
    other = run_cli("--json", "remember", "Release owners rotate every quarter").json()["id"]
    extra = ("--mode", "delete") if verb == "forget" else ()
    done = run_cli(verb, other, "--reason", TOKEN, *extra)
    assert done.code != 0 and "holds content this project forgot" in done.err, done.err
    assert listed(run_cli) == 1


# Digits glued to letters: what a forgotten claim with numbers reads as.
GLUED = [
    ("Run 2fa check on v2Api before every deploy", "Run2faCheckOnV2ApiBeforeEveryDeploy"),
    ("Run 2fa check on v2Api before every deploy", "run 2 fa check on v 2 api before every deploy"),
    ("maxUnavailable is 1 for the checkout pods", "MaxUnavailableIs1ForTheCheckoutPods"),
    ("Set replicas to 3 for the checkout pods", "SetReplicasTo3ForTheCheckoutPods"),
    # A superscript, subscript or circled digit is the digit.
    ("Set replicas to 3 for the checkout pods", "SetReplicasTo³ForTheCheckoutPods"),
    ("Set replicas to 3 for the checkout pods", "SetReplicasTo₃ForTheCheckoutPods"),
    ("Set replicas to 3 for the checkout pods", "SetReplicasTo③ForTheCheckoutPods"),
    ("Set replicas to 3 for the checkout pods", "Set replicas to³ for the checkout pods"),
    ("Set replicas to 3 for the checkout pods", parenthesized("SetReplicasTo3ForTheCheckoutPods")),
    (
        "Run 2fa check on v2Api before every deploy",
        parenthesized("Run2faCheckOnV2ApiBeforeEveryDeploy"),
    ),
    ("Set replicas to 3 for the checkout pods", "SetReplicasTo\u248aForTheCheckoutPods"),
]
# The same claims with another number are other claims.
GLUED_KEPT = [
    "Run 3fa check on v2Api before every deploy",
    "MaxUnavailableIs2ForTheCheckoutPods",
    "SetReplicasTo30ForTheCheckoutPods",
]


@pytest.mark.parametrize("who", ["person", "agent"])
@pytest.mark.parametrize(("claim", "spelling"), GLUED)
def test_a_forgotten_claim_with_digits_is_refused_with_them_glued_or_apart(
    run_cli: CliRunner, who: str, claim: str, spelling: str
) -> None:
    forgotten(run_cli, claim)
    done = run_cli("remember", spelling, environ=AGENT if who == "agent" else None)
    assert done.code != 0, spelling
    assert "this content was forgotten" in done.err
    assert listed(run_cli) == 0


def test_the_same_claims_with_other_numbers_are_stored(run_cli: CliRunner) -> None:
    for claim in dict.fromkeys(claim for claim, _ in GLUED):
        forgotten(run_cli, claim)
    for note in GLUED_KEPT:
        done = run_cli("remember", note)
        assert done.code == 0, (note, done.err)
    assert listed(run_cli) == len(GLUED_KEPT)


# An agent's copy written before the forget, in the spellings the tombstone
# refuses as a write (GLUED, either way round, and glued in part): the
# forget takes it, or the brief would go on showing the forgotten claim.
COPIES = [
    *GLUED,
    *((spelling, claim) for claim, spelling in GLUED),
    ("maxUnavailable is 1 for the checkout pods", "Max unavailable is1 for the checkout pods"),
    (CLAIM, "𝐃𝐞𝐩𝐥𝐨𝐲𝐬𝐅𝐫𝐞𝐞𝐳𝐞𝐎𝐧𝐅𝐫𝐢𝐝𝐚𝐲𝐬𝐀𝐟𝐭𝐞𝐫𝐓𝐡𝐞𝐑𝐞𝐥𝐞𝐚𝐬𝐞𝐁𝐫𝐚𝐧𝐜𝐡𝐈𝐬𝐂𝐮𝐭"),
    (CLAIM, "ⒹⓔⓟⓛⓞⓨⓢⒻⓡⓔⓔⓩⓔⓄⓝⒻⓡⓘⓓⓐⓨⓢⒶⓕⓣⓔⓡⓉⓗⓔⓇⓔⓛⓔⓐⓢⓔⒷⓡⓐⓝⓒⓗⒾⓢⒸⓤⓣ"),
]


@pytest.mark.parametrize(("claim", "copy"), COPIES)
def test_a_forget_takes_an_agents_copy_with_digits_glued_or_apart(
    run_cli: CliRunner, claim: str, copy: str
) -> None:
    theirs = run_cli("--json", "remember", copy, environ=AGENT).json()["id"]
    kept = run_cli("--json", "remember", "The checkout pods run in eu-west-1", environ=AGENT)
    mine = run_cli("--json", "remember", claim).json()["id"]
    done = run_cli("forget", mine, "--mode", "delete", "--reason", "changed")
    assert done.code == 0, done.err
    assert f"also forgot 1 memory holding the same claim: {theirs}" in done.out
    brief = run_cli("--json", "brief", environ=AGENT).json()["items"]
    assert set(brief) == {kept.json()["id"]}
