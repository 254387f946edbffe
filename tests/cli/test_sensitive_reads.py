"""Sensitive text is shown only when a read asks for it, on every surface.

recall and list leave a sensitive row out unless `--include-sensitive`; the
reads that name rows of their own (`show ID`, the review queue, a
consolidation's preview, audit findings, `stale`, the usage reports, an MCP
client's `show`) go by the same rule: a list leaves the row out and counts
it, `show` prints the row with its text withheld. Agent or person alike, the
text comes only with `--include-sensitive`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from governance_support import CLAUDE, write
from helpers import CliRunner

from tree_ring.store.db import Store
from tree_ring.store.usage_rows import summaries

DIAGNOSIS = "Alice was diagnosed with diabetes last month"
INSULIN = "Bob takes insulin for his diabetes every day"
SSN = "536-22-8141"
PAYROLL = f"Contact SSN {SSN} for payroll"
PLAIN = "The cache backend is Redis in staging"
SECRET_WORDS = ("diabetes", "insulin", SSN)

# Who reads: an agent (the harness's variables) and the person at the terminal.
READERS = [pytest.param(CLAUDE, id="agent"), pytest.param(None, id="person")]


def clean(text: str) -> None:
    for word in SECRET_WORDS:
        assert word not in text, word


@pytest.fixture
def rows(run_cli: CliRunner) -> dict[str, dict[str, Any]]:
    made = {
        "diagnosis": write(run_cli, "remember", DIAGNOSIS),
        "insulin": write(run_cli, "remember", INSULIN),
        "payroll": write(run_cli, "remember", PAYROLL),
        "plain": write(run_cli, "remember", PLAIN),
    }
    assert [made[k]["sensitivity"] for k in ("diagnosis", "insulin", "payroll", "plain")] == [
        "health",
        "health",
        "personal_identifier",
        "normal",
    ]
    return made


@pytest.mark.parametrize("environ", READERS)
def test_show_withholds_a_sensitive_rows_text_unless_asked(
    run_cli: CliRunner, rows: dict[str, dict[str, Any]], environ: dict[str, str] | None
) -> None:
    memory_id = rows["diagnosis"]["id"]
    done = run_cli("show", memory_id, environ=environ)
    assert done.code == 0, done.err
    clean(done.out)
    assert "id:" in done.out and memory_id in done.out
    assert "sensitivity:         health" in done.out
    assert "summary:             [health]" in done.out
    assert "text withheld (sensitivity health): --include-sensitive shows it" in done.out

    document = run_cli("--json", "show", memory_id, environ=environ)
    clean(document.out)
    data = document.json()
    assert data["withheld"] is True
    assert data["memory"]["summary"] == "[health]" and data["memory"]["details"] == ""

    asked = run_cli("show", memory_id, "--include-sensitive", environ=environ)
    assert asked.code == 0 and DIAGNOSIS in asked.out and "withheld" not in asked.out
    assert run_cli("--json", "show", memory_id, "--include-sensitive").json()["withheld"] is False


def test_show_of_a_normal_row_is_as_it_was(
    run_cli: CliRunner, rows: dict[str, dict[str, Any]]
) -> None:
    done = run_cli("show", rows["plain"]["id"], environ=CLAUDE)
    assert done.code == 0 and PLAIN in done.out and "withheld" not in done.out
    assert run_cli("--json", "show", rows["plain"]["id"]).json()["withheld"] is False


def test_a_refutations_reason_is_withheld_with_the_rows_text(
    run_cli: CliRunner, rows: dict[str, dict[str, Any]]
) -> None:
    memory_id = rows["diagnosis"]["id"]
    # An agent refutes a row its reads show it: a sensitive one only when it asks.
    unasked = run_cli("refute", memory_id, "--reason", "not diabetes", environ=CLAUDE)
    assert unasked.code == 2 and "--include-sensitive" in unasked.err
    assert "disputed" not in run_cli("show", memory_id, environ=CLAUDE).out
    said = run_cli(
        "refute", memory_id, "--reason", "not diabetes but asthma", "--include-sensitive",
        environ=CLAUDE,
    )  # fmt: skip
    assert said.code == 0, said.err
    done = run_cli("show", memory_id, environ=CLAUDE)
    clean(done.out)
    assert "asthma" not in done.out and "disputed_by:" in done.out
    assert "asthma" in run_cli("show", memory_id, "--include-sensitive").out
    # `maintain --suggest` names the disputed row, not what was said of it.
    suggested = run_cli("maintain", "--suggest", environ=CLAUDE)
    assert suggested.code == 0, suggested.err
    assert memory_id in suggested.out and "[health]" in suggested.out
    clean(suggested.out)
    assert "asthma" not in suggested.out


@pytest.mark.parametrize("environ", READERS)
def test_consolidate_dry_run_withholds_a_sensitive_summary(
    run_cli: CliRunner, rows: dict[str, dict[str, Any]], environ: dict[str, str] | None
) -> None:
    done = run_cli("consolidate", "--dry-run", environ=environ)
    assert done.code == 0, done.err
    clean(done.out)
    # A summary is as sensitive as the most sensitive of its sources.
    assert "            [personal_identifier]\n" in done.out
    assert "text withheld (sensitivity personal_identifier): --include-sensitive shows it" in (
        done.out
    )

    document = run_cli("--json", "consolidate", "--dry-run", environ=environ)
    clean(document.out)
    [group] = [g for g in document.json()["items"] if g["sensitivity"] not in ("normal", None)]
    assert (group["summary"], group["withheld"]) == ("[personal_identifier]", True)

    asked = run_cli("consolidate", "--dry-run", "--include-sensitive", environ=environ).out
    assert "Alice was diagnosed" in asked and "withheld" not in asked


@pytest.mark.parametrize("environ", READERS)
def test_review_list_leaves_sensitive_rows_out_and_counts_them(
    run_cli: CliRunner, rows: dict[str, dict[str, Any]], environ: dict[str, str] | None
) -> None:
    assert run_cli("consolidate").code == 0  # a pending summary over the sensitive rows
    waiting = write(run_cli, "remember", "Vendor the SDK", "--ring", "heartwood", environ=CLAUDE)
    assert waiting["trust"] == "pending"

    done = run_cli("review", "list", environ=environ)
    assert done.code == 0, done.err
    clean(done.out)
    assert "review queue: 2 waiting (oldest first)" in done.out
    assert "1 of them sensitive, withheld: --include-sensitive lists them" in done.out
    assert "Vendor the SDK" in done.out

    data = run_cli("--json", "review", "list", environ=environ).json()
    clean(str(data))
    assert (data["waiting"], data["withheld"]) == (2, 1)
    assert [i["id"] for i in data["items"]] == [waiting["id"]]

    asked = run_cli("review", "list", "--include-sensitive", environ=environ).out
    assert DIAGNOSIS in asked and SSN in asked and "withheld" not in asked


@pytest.mark.parametrize("environ", READERS)
def test_audit_findings_leave_sensitive_rows_out_and_count_them(
    run_cli: CliRunner, rows: dict[str, dict[str, Any]], environ: dict[str, str] | None
) -> None:
    sensitive_ids = {rows[k]["id"] for k in ("diagnosis", "insulin", "payroll")}
    done = run_cli("audit", "findings", "--audit-type", "sensitive", environ=environ)
    assert done.code == 0, done.err
    for memory_id in sensitive_ids:
        assert memory_id not in done.out
    assert done.out == ("3 about sensitive memories withheld: --include-sensitive lists them\n")
    data = run_cli("--json", "audit", "--audit-type", "sensitive", environ=environ).json()
    assert (data["items"], data["withheld"]) == ([], 3)

    asked = run_cli(
        "--json", "audit", "findings", "--audit-type", "sensitive", "--include-sensitive",
        environ=environ,
    )  # fmt: skip
    listed = asked.json()["items"]
    assert {f["id"] for f in listed} == sensitive_ids
    clean(asked.out)  # listed, a finding's summary is still its sensitivity


def test_stale_leaves_sensitive_rows_out_unless_asked(
    run_cli: CliRunner, project_root: Path
) -> None:
    source = project_root / "clinic.txt"
    source.write_text("v1\n")
    plain = write(run_cli, "remember", PLAIN, "--file", str(source))["id"]
    hidden = write(run_cli, "remember", DIAGNOSIS, "--file", str(source))["id"]
    source.write_text("v2, longer\n")

    done = run_cli("stale", environ=CLAUDE)
    assert done.code == 0, done.err
    clean(done.out)
    assert plain in done.out and hidden not in done.out
    assert "1 sensitive withheld: --include-sensitive lists them" in done.out
    data = run_cli("--json", "stale").json()
    assert ([i["id"] for i in data["items"]], data["withheld"]) == ([plain], 1)
    assert DIAGNOSIS in run_cli("stale", "--include-sensitive").out


def test_the_usage_reports_print_a_sensitive_rows_sensitivity_not_its_text(
    store: Store, run_cli: CliRunner, rows: dict[str, dict[str, Any]]
) -> None:
    ids = [rows["diagnosis"]["id"], rows["plain"]["id"]]
    assert summaries(store.db, ids) == {ids[0]: "[health]", ids[1]: PLAIN}


def test_what_recall_and_list_hide_stays_hidden(
    run_cli: CliRunner, rows: dict[str, dict[str, Any]]
) -> None:
    """The rule the other reads follow, held here beside them."""
    for argv in (("recall", "diabetes payroll redis"), ("list",), ("export",)):
        done = run_cli(*argv, environ=CLAUDE)
        assert done.code == 0, done.err
        clean(done.out)
    assert PLAIN in run_cli("list", environ=CLAUDE).out
    assert DIAGNOSIS in run_cli("list", "--include-sensitive", environ=CLAUDE).out
