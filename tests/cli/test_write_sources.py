"""Where a remembered claim came from: whatever an agent writes is the agent's
claim; what a person writes, with a source ref or none, is a manual note."""

from __future__ import annotations

import pytest
from conftest import CliRunner
from governance_support import CLAUDE


@pytest.mark.parametrize(
    ("flags", "environ", "source_type"),
    [
        (("--source-ref", "docs/release.md"), None, "manual"),
        (("--source-ref", "docs/release.md"), CLAUDE, "agent"),
        ((), CLAUDE, "agent"),
        ((), None, "manual"),
    ],
)
def test_the_source_type_of_a_remembered_claim(
    run_cli: CliRunner, flags: tuple[str, ...], environ: dict[str, str] | None, source_type: str
) -> None:
    made = run_cli("--json", "remember", "Deploys freeze on Fridays", *flags, environ=environ)
    assert made.code == 0, made.err
    shown = run_cli("--json", "show", made.json()["id"]).json()["memory"]
    assert shown["source"]["type"] == source_type
    assert shown["source"]["ref"] == (flags[1] if flags else "")
