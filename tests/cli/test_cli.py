"""The CLI surface: every verb has help, is documented, and speaks JSON."""

from __future__ import annotations

import argparse

import pytest
from helpers import REPO, CliRunner

from tree_ring.cli import app


def verbs() -> dict[str, argparse.ArgumentParser]:
    parser = app.build_parser()
    for action in parser._actions:  # pyright: ignore[reportPrivateUsage]
        if isinstance(action, argparse._SubParsersAction):  # pyright: ignore[reportPrivateUsage]
            return dict(action.choices)  # pyright: ignore[reportUnknownArgumentType, reportUnknownMemberType]
    raise AssertionError("no subcommands")


def test_there_are_verbs() -> None:
    assert {"init", "remember", "recall", "brief", "forget", "capture", "status"} <= set(verbs())


# Described in docs/CLI.md (generated from the parser); the README's reference
# section names it once its text there is written. `usage` and `refute` are
# described in docs/USAGE.md meanwhile (a test below holds it to them).
README_PENDING = {"completion", "usage", "refute"}


@pytest.mark.parametrize("name", sorted(verbs()))
def test_every_verb_has_help_and_is_in_the_readme(name: str) -> None:
    parser = verbs()[name]
    assert parser.description and len(parser.description) > 10
    assert "--json" in parser.format_help() and "--root" in parser.format_help()
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    reference = (REPO / "docs" / "CLI.md").read_text(encoding="utf-8")
    assert f"## tree-ring {name}\n" in reference, f"docs/CLI.md does not describe {name}"
    if name not in README_PENDING:
        assert f"tree-ring {name}" in readme, f"README does not mention `tree-ring {name}`"


@pytest.mark.parametrize("name", sorted(README_PENDING - {"completion"}))
def test_verbs_the_readme_does_not_name_yet_are_in_their_own_page(name: str) -> None:
    assert f"tree-ring {name}" in (REPO / "docs" / "USAGE.md").read_text(encoding="utf-8")


def test_json_flag_works_before_and_after_the_verb(run_cli: CliRunner) -> None:
    run_cli("remember", "Either flag position works")
    before = run_cli("--json", "list").json()
    after = run_cli("list", "--json").json()
    assert before == after and len(before["items"]) == 1


def test_version(run_cli: CliRunner) -> None:
    result = run_cli("--version", root=False)
    assert result.code == 0 and result.out.startswith("tree-ring ")
