"""Forgotten content does not come back in another spelling or another field:
look-alike letters, invisible characters, marks, split between summary and
details, in a source quote or a tag; through `remember` and through `import`.
And other content that merely shares words is still stored."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from governance_support import db, query, remember, write
from helpers import CliRunner, make_memory

from tree_ring.model import claims
from tree_ring.model.fold import canonical
from tree_ring.model.record import sha256
from tree_ring.store import tombstones

CLAIM = "Deploys go out on Fridays after the freeze"
CYRILLIC = str.maketrans("eoaEOA", "еоаЕОА")
GREEK = str.maketrans("OIAEZ", "ΟΙΑΕΖ")

# (summary, extra remember flags) for each way the claim comes back.
SPELLINGS: dict[str, tuple[str, tuple[str, ...]]] = {
    "cyrillic look-alikes": (CLAIM.translate(CYRILLIC), ()),
    "greek look-alikes": (CLAIM.upper().translate(GREEK), ()),
    "zero-width joiner and variation selector": (
        "Dep\u200dloys go out on Fri\ufe0fdays after the fr\u200deeze",
        (),
    ),
    "hangul fillers for spaces": (
        "Deploys\u3164go\u3164out on\u115fFridays\uffa0after the freeze",
        (),
    ),
    "braille blanks for spaces": ("Deploys\u2800go\u2800out\u2800on Fridays after the freeze", ()),
    "combining marks": ("De\u0308ploys go\u0301 out on Fri\u0323days after the freeze", ()),
    "composed accents": ("Déploys gò out on Fridâys after the freeze", ()),
    "decomposed accents": (unicodedata.normalize("NFD", "Déploys gò out on Fridâys"), ()),
    "dotted capital I": ("DEPLOYS GO OUT ON FRİDAYS AFTER THE FREEZE", ()),
    "split between summary and details": (
        "Deploys go out on Fridays",
        ("--details", "after the freeze. Ask the release lead first."),
    ),
    "split the other way round": (
        "after the freeze",
        ("--details", "The calendar moved. Deploys go out on Fridays"),
    ),
    "in the source quote": ("Release cadence", ("--source-quote", CLAIM.translate(CYRILLIC))),
    "in a tag": ("Release cadence", ("--tag", "deploys go out on fridays after the frееze")),
    "one sentence of longer details": (
        "Release cadence",
        ("--details", f"The calendar moved. {CLAIM.translate(CYRILLIC)}. Ask the lead."),
    ),
}
# The decomposed-accent spelling is a prefix: finish the sentence.
SPELLINGS["decomposed accents"] = (SPELLINGS["decomposed accents"][0] + " after the freeze", ())


def _forget_claim(run_cli: CliRunner) -> str:
    memory_id = remember(run_cli, CLAIM, "--details", "Agreed in the release meeting")
    write(run_cli, "forget", memory_id, "--mode", "delete", "--reason", "no longer true")
    return memory_id


def _brief_text(run_cli: CliRunner) -> str:
    done = run_cli("brief")
    assert done.code == 0, done.err
    return canonical(done.out)


@pytest.mark.parametrize("how", sorted(SPELLINGS))
def test_remember_refuses_a_forgotten_claim_in_any_spelling(run_cli: CliRunner, how: str) -> None:
    summary, flags = SPELLINGS[how]
    memory_id = _forget_claim(run_cli)
    again = run_cli("remember", summary, *flags)
    assert again.code == 1, (how, again.out)
    assert "forgotten on" in again.err and memory_id in again.err
    assert "fridays" not in _brief_text(run_cli)


def _row(memory_id: str, summary: str, flags: tuple[str, ...]) -> dict[str, Any]:
    """An export row carrying what `remember summary *flags` would store."""
    options = dict(zip(flags[::2], flags[1::2], strict=True))
    return {
        "id": memory_id,
        "summary": summary,
        "details": options.get("--details", ""),
        "event_type": "note",
        "source": {"type": "manual", "ref": "", "quote": options.get("--source-quote", "")},
        "tags": [options["--tag"]] if "--tag" in options else [],
    }


@pytest.mark.parametrize("how", sorted(SPELLINGS))
def test_import_refuses_a_forgotten_claim_in_any_spelling(
    run_cli: CliRunner, project_root: Path, tmp_path: Path, how: str
) -> None:
    summary, flags = SPELLINGS[how]
    memory_id = _forget_claim(run_cli)
    path = tmp_path / "back.jsonl"
    path.write_text(json.dumps(_row("mem_20260101_000000_aaaaaaaaaaaa", summary, flags)) + "\n")
    done = run_cli("import", str(path))
    assert done.code == 1, (how, done.out)
    assert "forgotten on" in done.err and memory_id in done.err
    assert query(project_root, "SELECT count(*) FROM memories")[0][0] == 0
    assert "fridays" not in _brief_text(run_cli)


def test_the_import_row_shape_is_accepted_when_nothing_was_forgotten(
    run_cli: CliRunner, project_root: Path, tmp_path: Path
) -> None:
    # The refusals above are the tombstone's, not a malformed row's.
    summary, flags = SPELLINGS["in the source quote"]
    path = tmp_path / "fresh.jsonl"
    path.write_text(json.dumps(_row("mem_20260101_000000_aaaaaaaaaaaa", summary, flags)) + "\n")
    done = run_cli("import", str(path))
    assert done.code == 0, done.err
    [row] = query(project_root, "SELECT source_quote FROM memories")
    assert row[0] == CLAIM.translate(CYRILLIC)


@pytest.mark.parametrize(
    ("summary", "flags"),
    [
        ("Deploys go out on Mondays after the freeze", ()),
        ("Fridays after the freeze are quiet", ()),
        ("Deploys go out on Fridays", ("--details", "before the freeze")),
        ("Release cadence", ("--source-quote", "Deploys go out on Thursdays")),
        ("Release cadence", ("--tag", "fridays", "--tag", "freeze")),
        ("Деплои идут по пятницам после заморозки", ()),  # the same claim translated
        ("Déploys go out on Mondays after the freeze", ()),
        ("Deploys go out on Fridays after the thaw", ("--details", "after the freeze")),
    ],
)
def test_other_claims_that_share_words_are_still_stored(
    run_cli: CliRunner, summary: str, flags: tuple[str, ...]
) -> None:
    _forget_claim(run_cli)
    assert remember(run_cli, summary, *flags).startswith("mem_")


def _old_claim_text(text: str) -> str:
    """`claim_text` as Tree Ring wrote tombstone keys before the canonical fold."""
    folded = unicodedata.normalize("NFKC", text)
    while True:
        trimmed = claims._TRAILING.sub("", claims._LEADING.sub("", folded.strip()))  # pyright: ignore[reportPrivateUsage]
        if trimmed == folded.strip():
            break
        folded = trimmed
    return " ".join(claims._NOT_WORD.sub(" ", folded.casefold()).split())  # pyright: ignore[reportPrivateUsage]


ACCENTED = "Café orders close after the freeze on Fridays"


def test_a_tombstone_written_by_the_old_fold_still_refuses(
    run_cli: CliRunner, project_root: Path
) -> None:
    old_key = sha256("claim\n" + _old_claim_text(ACCENTED))
    assert tombstones.whole_key(ACCENTED) != old_key  # the new fold alone would miss it
    forgotten = "mem_20250101_000000_bbbbbbbbbbbb"
    remember(run_cli, "Release notes go to the wiki")  # the project's id, as rows hold it
    [(project_id,)] = query(project_root, "SELECT DISTINCT project FROM memories")
    conn = db(project_root)
    with conn:
        conn.execute(
            "INSERT INTO content_tombstones"
            "(project, content_hash, kind, reason, memory_id, actor, created_at)"
            " VALUES (?, ?, 'forgotten', 'old', ?, 'me', '2025-01-01T00:00:00.000000Z')",
            (project_id, old_key, forgotten),
        )
    conn.close()
    for flags in (
        (ACCENTED,),
        (unicodedata.normalize("NFD", ACCENTED),),
        (f"Note: {ACCENTED} (confirmed)",),
        ("Release cadence", "--source-quote", ACCENTED),
        ("Release cadence", "--details", f"The calendar moved. {ACCENTED}."),
    ):
        again = run_cli("remember", *flags)
        assert again.code == 1 and forgotten in again.err, flags


def test_forgetting_writes_the_old_keys_too(run_cli: CliRunner, project_root: Path) -> None:
    memory_id = remember(run_cli, ACCENTED)
    write(run_cli, "forget", memory_id, "--mode", "delete", "--reason", "wrong")
    stones = {r[0] for r in query(project_root, "SELECT content_hash FROM content_tombstones")}
    assert sha256("claim\n" + _old_claim_text(ACCENTED)) in stones
    assert sha256("claim\n" + canonical(ACCENTED).replace(",", "")) in stones


def test_forgetting_a_consolidation_leaves_its_sources_writable(
    run_cli: CliRunner, project_root: Path
) -> None:
    sources = (CLAIM, "Hotfixes skip the staging soak on weekends")
    for text in sources:
        remember(run_cli, text, "--event-type", "decision", "--salience", "0.9")
    write(run_cli, "consolidate", "--period-type", "manual")
    sql = "SELECT id, summary FROM memories WHERE source_type = 'consolidation'"
    [(summary_id, summary)] = query(project_root, sql)
    assert all(text in summary for text in sources)
    write(run_cli, "forget", summary_id, "--mode", "delete", "--reason", "a bad summary")
    assert run_cli("remember", summary).code == 1  # the consolidation itself stays forgotten
    for text in sources:
        assert remember(run_cli, text, "--details", "Written again").startswith("mem_"), text


def test_claim_text_folds_spellings_and_leaves_punctuation_out() -> None:
    plain = tombstones.claim_text("Deploy - now, after the freeze")
    assert plain == "deploy now after the freeze"
    # An em dash is drawn like a katakana mark; it still only parts words.
    assert tombstones.claim_text("Dеploy — now, aftеr the frееze") == plain
    assert (
        tombstones.claim_text("Note: ＤＥＰＬＯＹ now after the fr\u200beeze (confirmed)") == plain
    )
    # Number words and hyphenation are not folded.
    assert tombstones.claim_text("retry three times") != tombstones.claim_text("retry 3 times")
    assert tombstones.claim_text("re-try it") != tombstones.claim_text("retry it")


def test_forgetting_a_memory_leaves_the_boilerplate_its_details_share(run_cli: CliRunner) -> None:
    # A template's sentence that many memories carry in their details: one
    # forgotten must not make every other memory with it unwritable.
    boilerplate = "Filed from the incident template, see the runbook for the escalation steps."
    first = remember(
        run_cli,
        "The cache node ran out of disk on Monday",
        "--details",
        f"Node cache-3 filled its disk at two in the morning. {boilerplate}",
    )
    assert run_cli("forget", first, "--mode", "delete", "--reason", "wrong node").code == 0
    again = remember(
        run_cli,
        "The queue consumer stalled after the broker upgrade",
        "--details",
        f"Consumer lag reached two hours before the restart. {boilerplate}",
    )
    assert again.startswith("mem_")
    # The forgotten claim itself stays forgotten, in the details of another memory too.
    refused = run_cli(
        "remember", "Disk alert", "--details", "The cache node ran out of disk on Monday."
    )
    assert refused.code != 0 and "forgotten" in refused.err


# A claim in another script, and the same words in capitals without their
# accents (how Greek capitals are written), or in small letters with them.
OTHER_SCRIPTS = [
    (
        "Η βάση δεδομένων κλειδώνει κάθε βράδυ στις δύο",
        "Η ΒΑΣΗ ΔΕΔΟΜΕΝΩΝ ΚΛΕΙΔΩΝΕΙ ΚΑΘΕ ΒΡΑΔΥ ΣΤΙΣ ΔΥΟ",
    ),
    ("Всё готово к выпуску сегодня вечером", "ВСЕ ГОТОВО К ВЫПУСКУ СЕГОДНЯ ВЕЧЕРОМ"),
]


@pytest.mark.parametrize("who", ["person", "agent"])
@pytest.mark.parametrize("which", [0, 1], ids=["small-then-capitals", "capitals-then-small"])
@pytest.mark.parametrize("pair", OTHER_SCRIPTS, ids=["greek", "cyrillic"])
def test_a_claim_of_another_script_is_refused_in_the_other_case(
    run_cli: CliRunner, pair: tuple[str, str], which: int, who: str
) -> None:
    forgotten, again = pair[which], pair[1 - which]
    gone = remember(run_cli, forgotten)
    assert run_cli("forget", gone, "--mode", "delete", "--reason", "wrong").code == 0
    environ = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "7f3c2a91"} if who == "agent" else None
    for text in (again, f"FYI: {again}, as before"):
        done = run_cli("remember", text, environ=environ)
        assert done.code != 0 and "this content was forgotten" in done.err, (text, done.err)


def test_a_persons_forget_takes_an_agents_copy_in_capitals(run_cli: CliRunner) -> None:
    small, capitals = OTHER_SCRIPTS[0]
    mine = remember(run_cli, small)
    agent = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "7f3c2a91"}
    theirs = write(run_cli, "remember", capitals, "--scope", "agent", environ=agent)["id"]
    done = write(run_cli, "forget", mine, "--mode", "delete", "--reason", "wrong")
    assert done["twins"] == [theirs]


# The claim in the spellings a forget refuses beside its exact words.
AROUND = [
    ("FYI " + CLAIM,),
    ("Note: " + CLAIM,),
    ("Release calendar", "--details", CLAIM),
    ("Release calendar", "--tag", CLAIM),
    ("DeploysGoOutOnFridaysAfterTheFreeze",),
]


@pytest.mark.parametrize("mode", ["delete", "redact"])
def test_a_summary_citing_a_memory_does_not_keep_its_claim_writable(
    run_cli: CliRunner, project_root: Path, mode: str
) -> None:
    # The summary holds the claim only because the memory does, and the
    # forget rewrites it without it: the forget refuses what it refuses
    # with no summary at all, and its tombstones are every key of the claim.
    gone = remember(run_cli, CLAIM)
    remember(run_cli, "Hotfixes skip the staging soak on weekends")
    write(run_cli, "consolidate", "--period-type", "manual")
    sql = "SELECT summary FROM memories WHERE source_type = 'consolidation' AND retired_at IS NULL"
    assert any(CLAIM in summary for (summary,) in query(project_root, sql))
    write(run_cli, "forget", gone, "--mode", mode, "--reason", "lifted")
    for args in AROUND:
        assert run_cli("remember", *args).code == 1, args
    keyed = query(
        project_root, f"SELECT count(*) FROM content_tombstones WHERE memory_id = '{gone}'"
    )
    expected = tombstones.forget_keys(make_memory(None, CLAIM))
    assert int(keyed[0][0]) == len(expected) > 1
    assert all("Fridays" not in summary for (summary,) in query(project_root, sql))
