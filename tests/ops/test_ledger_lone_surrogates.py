"""A team ledger line that holds a JSON escape of a lone surrogate
(`"summary":"x \\ud800"`, `"id":"\\ud800"`, a pair's halves apart) is valid
JSON in valid UTF-8 bytes, but Python reads it as a str no UTF-8 text
holds: nothing read from it can be written back, stored or printed. The
merge driver crashed writing it, after it had emptied OURS; `doctor`
crashed (exit 70); the SessionStart hook dropped its whole import, so a
teammate's forget was not applied. Every reader of a ledger line now parses
it with `jsontext.loads_utf8`, and such a line is malformed everywhere:
skipped and named as `sync` names it, and dropped by the merge driver (an
unknown record's line too: no Tree Ring writes one). The merge driver makes
the merged bytes whole before it touches OURS, then writes them beside it
and renames them over it: any error leaves OURS as it was."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import LAUNCHER
from team_support import (
    LEDGER,
    cli,
    clone,
    first_repo,
    hub,
    ok,
    publish,
    pull,
    remember,
    run_session_start,
)

from tree_ring.model import jsontext
from tree_ring.team import ledger

HEADER = '{"project":"p-1","record":"ledger","schema":1}\n'
MEMORY = '{"id":"mem_20260101_000000_000000000001","record":"memory","summary":"a"}\n'
OTHER = '{"id":"mem_20260101_000000_000000000002","record":"memory","summary":"b"}\n'
# Lines holding a lone surrogate, as JSON escapes in ASCII text.
BAD = {
    "in a summary": '{"id":"mem_20260101_000000_000000000003","record":"memory",'
    '"summary":"x \\ud800"}',
    "as the id": '{"id":"\\ud800","record":"memory"}',
    "in a key": '{"id":"mem_20260101_000000_000000000004","record":"memory","\\uDC00":1}',
    "a pair split": '{"id":"mem_20260101_000000_000000000005","record":"tombstone",'
    '"at":"2026-01-01T00:00:00.000000Z","hashes":["\\ud83d","\\ude00"]}',
    "deep in an unknown record": '{"record":"memory2","x":[{"y":["\\udfff"]}]}',
}
REASON = "not valid UTF-8 text (it holds a \\u escape of a lone surrogate)"


@pytest.mark.parametrize("case", sorted(BAD))
def test_every_line_parser_refuses_a_lone_surrogate(case: str) -> None:
    raw = BAD[case]
    with pytest.raises(jsontext.LoneSurrogate):
        jsontext.loads_utf8(raw)
    assert ledger.record_of(raw.encode(), ledger.RECORDS) is None
    assert not ledger.carries(raw.encode())
    assert list(ledger.loose([(1, raw)])) == []


@pytest.mark.parametrize(
    "text", ['{"a":"\\ud83d\\ude00"}', '{"a":"\\\\ud800"}', '{"a":"é \\u00e9"}', '{"a":"\\uD7FF"}']
)
def test_a_pair_whole_or_an_escaped_backslash_is_text(text: str) -> None:
    assert jsontext.loads_utf8(text) == json.loads(text)


def _driver(tmp_path: Path, ours: str, theirs: str) -> subprocess.CompletedProcess[str]:
    for name, text in (("base", HEADER), ("ours", ours), ("theirs", theirs)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-I", "-S", str(LAUNCHER), "merge-driver",
         *(str(tmp_path / n) for n in ("base", "ours", "theirs")), LEDGER],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


@pytest.mark.parametrize("side", ["ours", "theirs"])
@pytest.mark.parametrize("case", sorted(BAD))
def test_the_merge_driver_drops_just_that_line(tmp_path: Path, side: str, case: str) -> None:
    bad = BAD[case] + "\n"
    ours, theirs = HEADER + MEMORY, HEADER + OTHER
    if side == "ours":
        ours += bad
    else:
        theirs += bad
    done = _driver(tmp_path, ours, theirs)
    assert (done.returncode, done.stderr) == (0, "")
    assert (tmp_path / "ours").read_text(encoding="utf-8") == HEADER + MEMORY + OTHER


@pytest.mark.parametrize("failing", ["merge", "write"])
def test_a_merge_that_fails_leaves_ours_as_it_was(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    failing: str,
) -> None:
    """Whatever fails (here: a merged text UTF-8 cannot hold, or the rename),
    OURS keeps its bytes, the exit is 1 and stderr holds one line."""
    tmp_path = tmp_path / "merge"
    tmp_path.mkdir()
    for name, text in (("base", HEADER), ("ours", HEADER + MEMORY), ("theirs", HEADER + OTHER)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    if failing == "merge":
        monkeypatch.setattr(ledger, "merge_texts", lambda *_, **__: HEADER + "\ud800\n")
    else:

        def refuse(*_: object) -> None:
            raise OSError("no room")

        monkeypatch.setattr("os.replace", refuse)
    before = (tmp_path / "ours").read_bytes()
    code = ledger.merge_driver([str(tmp_path / n) for n in ("base", "ours", "theirs")] + [LEDGER])
    assert code == 1
    assert (tmp_path / "ours").read_bytes() == before
    err = capsys.readouterr().err
    assert err.startswith("tree-ring merge driver: ") and err.count("\n") == 1, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["base", "ours", "theirs"]


def test_a_merge_keeps_the_mode_of_ours(tmp_path: Path) -> None:
    done = _driver(tmp_path, HEADER + MEMORY, HEADER + OTHER)
    assert done.returncode == 0, done.stderr
    (tmp_path / "ours").chmod(0o640)
    done = _driver(tmp_path, HEADER + MEMORY, HEADER + OTHER)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "ours").stat().st_mode & 0o777 == 0o640


def _append(root: Path, line: str) -> int:
    """`line` added to the ledger's end; its line number."""
    with (root / LEDGER).open("a", encoding="utf-8") as handle:
        handle.write(line + "\n")
    return len((root / LEDGER).read_bytes().splitlines())


@pytest.mark.parametrize("case", ["in a summary", "as the id", "deep in an unknown record"])
def test_doctor_names_the_line_as_sync_names_it_and_sync_drops_it(
    tmp_path: Path, case: str
) -> None:
    alice = first_repo(tmp_path)
    remember(alice, "Releases are cut from the release branch only")
    number = _append(alice, BAD[case])
    done = cli(alice, "--json", "doctor")
    assert done.code == 1, done.err
    [check] = [c for c in done.json()["items"] if c["name"] == "ledger"]
    assert f"{LEDGER}:{number}: {REASON}" in check["detail"].splitlines()
    assert cli(alice, "doctor").code == 1
    done = ok(alice, "--json", "sync")
    assert [(i["line"], i["reason"]) for i in done.json()["items"]] == [(number, REASON)]
    assert BAD[case] not in (alice / LEDGER).read_text(encoding="utf-8")
    assert cli(alice, "--json", "doctor").code == 0


def _session_start(root: Path) -> tuple[str, list[str]]:
    done = run_session_start(root)
    brief = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    return brief, done.stderr.decode().splitlines()


@pytest.mark.parametrize("case", ["in a summary", "as the id"])
def test_the_hook_applies_a_teammates_forget_and_names_the_line(tmp_path: Path, case: str) -> None:
    alice = first_repo(tmp_path)
    gone = remember(alice, "The billing cron runs at 0300 on weekdays")
    remember(alice, "Staging resets nightly")
    origin = hub(tmp_path, alice)
    publish(alice, "the team's memory")
    bob = clone(origin, tmp_path, "bob")
    brief, said = _session_start(bob)
    assert "billing cron" in brief and said == []
    ok(alice, "forget", gone, "--mode", "delete", "--reason", "wrong")
    number = _append(alice, BAD[case])
    publish(alice, "forget, and a hand-edited line")
    pull(bob)
    assert (bob / LEDGER).read_bytes().splitlines()[number - 1] == BAD[case].encode()
    brief, said = _session_start(bob)
    assert "billing cron" not in brief
    assert "Staging resets nightly" in brief
    assert said == [f"tree-ring hook (claude-code): team ledger: {LEDGER}:{number}: {REASON}"]
