"""`list --trust pending` shows waiting rows, and still hides sensitive ones
unless --include-sensitive asks for them."""

from __future__ import annotations

from conftest import CliRunner
from governance_support import CLAUDE, write

SHARED_HEARTWOOD = ("--ring", "heartwood", "--scope", "project")


def listed(run_cli: CliRunner, *flags: str) -> set[str]:
    result = run_cli("--json", "list", *flags)
    assert result.code == 0, result.err
    return {m["id"] for m in result.json()["items"]}


def test_list_trust_pending_hides_sensitive_rows_unless_asked(run_cli: CliRunner) -> None:
    plain = write(run_cli, "remember", "Vendor the SDK", *SHARED_HEARTWOOD, environ=CLAUDE)
    sensitive = write(
        run_cli,
        "remember",
        "Maria was diagnosed with celiac disease; order gluten-free food for the offsite",
        *SHARED_HEARTWOOD,
        environ=CLAUDE,
    )
    accepted = write(run_cli, "remember", "The offsite is in March")
    assert (plain["trust"], sensitive["trust"], accepted["trust"]) == (
        "pending",
        "pending",
        "accepted",
    )
    assert sensitive["sensitivity"] == "health"

    assert listed(run_cli, "--trust", "pending") == {plain["id"]}
    assert listed(run_cli, "--trust", "pending", "--include-sensitive") == {
        plain["id"],
        sensitive["id"],
    }
    # The default listing shows accepted rows only, sensitive or not.
    assert listed(run_cli) == {accepted["id"]}
    assert listed(run_cli, "--include-sensitive") == {accepted["id"]}
