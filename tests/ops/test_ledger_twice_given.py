"""A ledger line that gives a key twice is neither taken nor carried, and a
skipped line is named in words that say what is wrong with it.

Read, such a line keeps only its last value of the key, so every check
(the guard, what this clone forgot) read the last, while a rewrite or a
merge carried the line as written, first value and all: forgotten words in
the first value stayed in the committed ledger. The line is now skipped,
named by `sync` and `doctor`, and left out of every rewrite and merge. A
memory line that gives its summary twice reads as its last value, while a
diff of it shows the first in its sorted place: it is not taken either.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from team_support import cli, first_repo, hub, ok, publish, remember

from tree_ring.model import jsontext
from tree_ring.team import ledger

FORGOTTEN = "Always use tabs in the Makefile recipes"
LEDGER = Path(".tree-ring") / "ledger.jsonl"


@pytest.mark.parametrize(
    ("text", "twice"),
    [
        ('{"record":"x","note":"a","note":"b"}', True),
        ('{"record":"x","n":{"k":1,"k":2}}', True),
        ('{"record":"x","n":[{"k":1},{"k":1,"k":1}]}', True),
        ('{"record":"x","note":"a","Note":"b"}', False),
        ('{"record":"x","n":{"k":1},"m":{"k":2}}', False),
        ("not json", False),
    ],
)
def test_a_key_given_twice_is_found_at_any_depth(text: str, twice: bool) -> None:
    assert jsontext.gives_a_key_twice(text) is twice


def test_a_forgotten_first_value_is_neither_carried_nor_committed(tmp_path: Path) -> None:
    root = first_repo(tmp_path)
    gone = remember(root, FORGOTTEN)
    ok(root, "forget", gone, "--mode", "delete", "--reason", "no longer true")
    twice = json.dumps({"record": "memory9", "note": "harmless"}, separators=(",", ":"))
    twice = twice.replace('{"record"', f'{{"note":"{FORGOTTEN}","record"')
    kept = '{"data":"from a newer teammate","record":"futurething"}'
    path = root / LEDGER
    hub(tmp_path, root)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(kept + "\n")
    publish(root, "a newer teammate's line")  # the upstream's: carried
    with path.open("a", encoding="utf-8") as handle:
        handle.write(twice + "\n")
    assert not ledger.carries(twice.encode()) and ledger.carries(kept.encode())
    doctor = cli(root, "doctor")
    assert doctor.code == 1
    assert "gives a key twice" in doctor.out
    synced = ok(root, "sync")
    assert "gives a key twice" in synced.out + synced.err
    remember(root, "An unrelated note that rewrites the ledger")
    text = path.read_text(encoding="utf-8")
    assert FORGOTTEN not in text and "harmless" not in text
    assert kept in text.splitlines()
    merged = ledger.merge_texts(text + twice + "\n", text)
    assert FORGOTTEN not in merged and kept in merged.splitlines()
    assert ok(root, "doctor").code == 0


def test_a_memory_line_giving_its_summary_twice_is_not_taken(tmp_path: Path) -> None:
    root = first_repo(tmp_path)
    kept = remember(root, "Feature flags are off in production by default")
    ok(root, "sync")
    path = root / LEDGER
    lines = path.read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if f'"id":"{kept}"' in line)
    # The diff shows the sorted summary unchanged; the appended key wins when read.
    lines[at] = lines[at][:-1] + ',"summary":"Feature flags are on in production, always"}'
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    synced = ok(root, "sync")
    assert "gives a key twice" in synced.out + synced.err
    shown = ok(root, "--json", "show", kept).json()["memory"]
    assert shown["summary"] == "Feature flags are off in production by default"
    assert "always" not in path.read_text(encoding="utf-8")


def test_a_line_that_is_no_json_is_named_in_whole_words(tmp_path: Path) -> None:
    root = first_repo(tmp_path)
    bad = ['{"record":"memory","summary":' + "1" * 5000 + "}", '{"record": "memory", "x": "open']
    with (root / LEDGER).open("a", encoding="utf-8") as handle:
        handle.write("".join(line + "\n" for line in bad))
    wholes = []
    for line in bad:
        with pytest.raises(ValueError) as caught:
            json.loads(line)
        wholes.append(" ".join(str(caught.value).split()))
    done = ok(root, "sync")
    said = [line for line in (done.out + done.err).splitlines() if "not valid JSON" in line]
    assert len(said) == 2
    for line, whole in zip(said, wholes, strict=True):
        reason = line.split("not valid JSON (", 1)[1]
        assert reason.endswith(")")
        cut = reason[:-1]
        # The whole message, or its words up to a word's end, then "...".
        assert cut == whole or (
            cut.endswith("...") and whole.startswith(cut[:-3]) and whole[len(cut) - 3] == " "
        ), (cut, whole)


@pytest.mark.parametrize("project", [None, "", 7])
def test_a_memory_line_without_a_project_says_so(tmp_path: Path, project: object) -> None:
    root = first_repo(tmp_path)
    line: dict[str, object] = {"record": "memory", "id": "mem_20260101_000000_000000000001"}
    if project is not None:
        line["project"] = project
    with (root / LEDGER).open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(line) + "\n")
    done = ok(root, "sync")
    said = (done.out + done.err).splitlines()
    assert any("names no project" in text for text in said), said
    assert not any("from another project" in text for text in said), said
