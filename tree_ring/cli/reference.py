"""The parser as data, for what is generated from it: `docs/CLI.md` and the
shell completion scripts. Both read the same walk, so neither can drift from
what the CLI accepts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tree_ring.cli import argparsing
from tree_ring.cli.argparsing import argparse


@dataclass
class Option:
    flags: tuple[str, ...]
    help: str
    choices: tuple[str, ...] = ()
    takes_value: bool = False


@dataclass
class Command:
    """A verb, or a verb's action, and what it accepts."""

    name: str  # "review approve"
    help: str
    parser: argparse.ArgumentParser
    options: list[Option] = field(default_factory=list[Option])
    positionals: list[Option] = field(default_factory=list[Option])
    actions: list[Command] = field(default_factory=list["Command"])


def _actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    # argparse keeps a parser's arguments in a private list; there is no public one.
    return list(parser._actions)  # pyright: ignore[reportPrivateUsage]


def walk(parser: argparse.ArgumentParser, name: str = "", help_text: str = "") -> Command:
    command = Command(name, help_text or (parser.description or ""), parser)
    for action in _actions(parser):
        if isinstance(action, argparse._SubParsersAction):  # pyright: ignore[reportPrivateUsage]
            helps = {
                choice.dest: choice.help or ""
                for choice in action._choices_actions  # pyright: ignore[reportPrivateUsage]
            }
            subparsers: dict[str, argparse.ArgumentParser] = action.choices  # type: ignore[assignment]
            for sub_name, sub in subparsers.items():
                full = f"{name} {sub_name}".strip()
                command.actions.append(walk(sub, full, helps.get(sub_name, "")))
            continue
        if action.help == argparse.SUPPRESS:
            continue
        choices = tuple(str(c) for c in action.choices) if action.choices else ()
        option = Option(
            tuple(action.option_strings) or (action.dest,),
            action.help or "",
            choices,
            takes_value=action.nargs != 0,
        )
        (command.options if action.option_strings else command.positionals).append(option)
    return command


def leaves(command: Command) -> list[Command]:
    """Every command a person runs (a verb without actions, or each action)."""
    if not command.actions:
        return [command]
    return [leaf for action in command.actions for leaf in leaves(action)]


WIDTH = 100


def help_text(parser: argparse.ArgumentParser) -> str:
    """`--help` as a terminal WIDTH wide shows it, whatever this one is."""
    saved = list(argparsing._width)  # pyright: ignore[reportPrivateUsage]
    argparsing._width[:] = [WIDTH]  # pyright: ignore[reportPrivateUsage]
    try:
        return parser.format_help()
    finally:
        argparsing._width[:] = saved  # pyright: ignore[reportPrivateUsage]


def markdown(root: Command) -> str:
    """docs/CLI.md: every verb's and action's help, as `--help` prints it."""
    lines = [
        "# tree-ring command reference",
        "",
        "Generated from the parser by `python3 scripts/cli_docs.py > docs/CLI.md`;",
        "a test fails when it is stale. Every command takes `--json` (one JSON object on",
        "stdout, see `docs/cli-output.schema.json`) and `--root DIR`.",
        "",
        "```text",
        help_text(root.parser).rstrip(),
        "```",
    ]

    def section(command: Command, depth: int) -> None:
        lines.extend(["", f"{'#' * depth} tree-ring {command.name}", ""])
        if command.help:
            lines.extend([command.help, ""])
        lines.extend(["```text", help_text(command.parser).rstrip(), "```"])
        for action in command.actions:
            section(action, depth + 1)

    for verb in root.actions:
        section(verb, 2)
    return "\n".join(lines) + "\n"
