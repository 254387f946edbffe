"""Input at the edges: times whose UTC instant leaves years 0001-9999, and
bytes that are not UTF-8 on stdin, which are judged as argv's are.

Each is refused with one `error:` line and a usage exit code, and writes
nothing; the same input within bounds is taken.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from helpers import CliRunner, Run

from tree_ring.model.errors import UsageError
from tree_ring.model.record import parse_time

# The UTC instants of these lie before 0001-01-01 and after 9999-12-31.
BEFORE = "0001-01-01T00:00:00+14:00"
AFTER = "9999-12-31T23:59:59-12:00"


def one_line_refusal(result: Run, *fragments: str) -> None:
    code, out, err = result.code, result.out, result.err
    assert code == 2, (code, out, err)
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def live_ids(run_cli: CliRunner) -> set[str]:
    return {m["id"] for m in run_cli("--json", "list").json()["items"]}


def test_parse_time_refuses_instants_outside_the_years_and_keeps_their_width() -> None:
    for text in (BEFORE, AFTER):
        with pytest.raises(UsageError, match="outside the years 0001-9999"):
            parse_time(text, "--valid-from")
    # The edges themselves are times, stored four digits wide.
    assert parse_time("0001-01-01") == "0001-01-01T00:00:00.000000Z"
    assert parse_time("0001-01-01T10:00:00+10:00") == "0001-01-01T00:00:00.000000Z"
    assert parse_time("9999-12-31T23:59:59-00:00") == "9999-12-31T23:59:59.000000Z"


@pytest.mark.parametrize("moment", [BEFORE, AFTER])
@pytest.mark.parametrize("flag", ["--valid-from", "--expires-at"])
def test_remember_refuses_an_edge_time(run_cli: CliRunner, flag: str, moment: str) -> None:
    one_line_refusal(
        run_cli("remember", "An edge case", flag, moment), flag.lstrip("-"), "0001-9999"
    )
    assert live_ids(run_cli) == set()


@pytest.mark.parametrize("moment", [BEFORE, AFTER])
@pytest.mark.parametrize("verb", [("recall", "edge"), ("list",), ("brief",)])
def test_as_of_refuses_an_edge_time(run_cli: CliRunner, verb: tuple[str, ...], moment: str) -> None:
    one_line_refusal(run_cli(*verb, "--as-of", moment), "--as-of", "0001-9999")


def test_as_of_at_year_one_reads_nothing_and_fails_nothing(run_cli: CliRunner) -> None:
    assert run_cli("remember", "Present day fact").code == 0
    for verb in (("recall", "fact"), ("list",)):
        result = run_cli("--json", *verb, "--as-of", "0001-01-01")
        assert result.code == 0 and result.err == "", result.err


@pytest.mark.parametrize("moment", [BEFORE, AFTER])
@pytest.mark.parametrize("key", ["created_at", "valid_from", "expires_at"])
def test_import_refuses_an_edge_time(
    run_cli: CliRunner, tmp_path: Path, key: str, moment: str
) -> None:
    good = {"summary": "Imported before the edge", "event_type": "note"}
    edge = {"summary": "Imported at the edge", "event_type": "note", key: moment}
    batch = tmp_path / "batch.jsonl"
    batch.write_text(json.dumps(good) + "\n" + json.dumps(edge) + "\n", encoding="utf-8")
    one_line_refusal(run_cli("import", str(batch)), "line 2", key, "0001-9999")
    assert live_ids(run_cli) == set()


def with_stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    # The text layer a C locale gives: bad bytes arrive as surrogates.
    stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="surrogateescape")
    monkeypatch.setattr("sys.stdin", stdin)


def test_remember_refuses_stdin_that_is_not_utf8_as_argv_is(
    run_cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = b"caf\xe9 is the cache"
    one_line_refusal(run_cli("remember", bad.decode("utf-8", "surrogateescape")), "UTF-8")
    with_stdin(monkeypatch, bad + b"\n")
    one_line_refusal(run_cli("remember", "-"), "stdin", "UTF-8")
    assert live_ids(run_cli) == set()
    with_stdin(monkeypatch, "café is the cache\n".encode())
    stored = run_cli("--json", "remember", "-")
    assert stored.code == 0, stored.err
    assert (
        run_cli("--json", "show", stored.json()["id"]).json()["memory"]["summary"]
        == "café is the cache"
    )


def test_import_refuses_stdin_that_is_not_utf8(
    run_cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = json.dumps({"summary": "First line is fine", "event_type": "note"}).encode()
    with_stdin(monkeypatch, good + b'\n{"summary": "caf\xe9", "event_type": "note"}\n')
    one_line_refusal(run_cli("import", "-"), "stdin", "line 2", "UTF-8")
    assert live_ids(run_cli) == set()


def test_import_refuses_a_file_that_is_not_utf8(run_cli: CliRunner, tmp_path: Path) -> None:
    batch = tmp_path / "batch.jsonl"
    batch.write_bytes(b'{"summary": "caf\xe9", "event_type": "note"}\n')
    one_line_refusal(run_cli("import", str(batch)), "batch.jsonl", "line 1", "UTF-8")
    assert live_ids(run_cli) == set()


def test_a_failure_no_check_foresaw_is_one_line(
    run_cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tree_ring.api import found

    def broken(*args: object, **kwargs: object) -> None:
        raise TypeError("first argument must be a string, not NoneType")

    monkeypatch.setattr(found, "recall", broken)
    result = run_cli("recall", "anything")
    assert result.code == 70  # EX_SOFTWARE
    lines = result.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: unexpected TypeError: first argument")
    assert "tree-ring doctor" in lines[0] and "Traceback" not in result.err
    with pytest.raises(TypeError):
        run_cli("recall", "anything", environ={"TREE_RING_DEBUG": "1"})
