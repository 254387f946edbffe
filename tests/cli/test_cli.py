"""The CLI surface: every verb has help, is documented, and speaks JSON."""

from __future__ import annotations

import argparse

import pytest
from helpers import REPO, CliRunner

from tree_ring.cli import argparsing


def verbs() -> dict[str, argparse.ArgumentParser]:
    parser = argparsing.build_parser()
    for action in parser._actions:  # pyright: ignore[reportPrivateUsage]
        if isinstance(action, argparse._SubParsersAction):  # pyright: ignore[reportPrivateUsage]
            return dict(action.choices)  # pyright: ignore[reportUnknownArgumentType, reportUnknownMemberType]
    raise AssertionError("no subcommands")


def test_there_are_verbs() -> None:
    assert {"init", "remember", "recall", "brief", "forget", "capture", "status"} <= set(verbs())


# Every verb is named as `tree-ring VERB` in the README or a page of docs/
# (besides docs/CLI.md, which the parser generates), so each is explained in
# prose somewhere a person reads.
def prose() -> str:
    pages = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    return "\n".join(p.read_text(encoding="utf-8") for p in pages if p.name != "CLI.md")


@pytest.mark.parametrize("name", sorted(verbs()))
def test_every_verb_has_help_and_is_in_the_docs(name: str) -> None:
    parser = verbs()[name]
    assert parser.description and len(parser.description) > 10
    assert "--json" in parser.format_help() and "--root" in parser.format_help()
    reference = (REPO / "docs" / "CLI.md").read_text(encoding="utf-8")
    assert f"## tree-ring {name}\n" in reference, f"docs/CLI.md does not describe {name}"
    assert f"tree-ring {name}" in prose(), f"neither README.md nor docs/ mention `tree-ring {name}`"


def test_json_flag_works_before_and_after_the_verb(run_cli: CliRunner) -> None:
    run_cli("remember", "Either flag position works")
    before = run_cli("--json", "list").json()
    after = run_cli("list", "--json").json()
    assert before == after and len(before["items"]) == 1


def test_version(run_cli: CliRunner) -> None:
    result = run_cli("--version", root=False)
    assert result.code == 0 and result.out.startswith("tree-ring ")
