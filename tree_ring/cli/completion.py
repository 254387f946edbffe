"""`tree-ring completion bash|zsh|fish`: a completion script generated from the parser.

The script holds the verbs, their actions and their flags as the parser
declares them when it is printed; print it again after an upgrade.
"""

from __future__ import annotations

from tree_ring.cli import reference
from tree_ring.cli.context import Arguments, Context, Handler

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

SHELLS = ("bash", "zsh", "fish")


def _flags(command: reference.Command) -> list[str]:
    return [flag for option in command.options for flag in option.flags if flag.startswith("--")]


def bash(root: reference.Command) -> str:
    verbs = " ".join(verb.name for verb in root.actions)
    top = " ".join([verbs, *_flags(root)])
    cases: list[str] = []
    for verb in root.actions:
        if verb.actions:
            inner = [
                f'        "") words="{" ".join(a.name.split()[-1] for a in verb.actions)} '
                f'{" ".join(_flags(verb))}" ;;'
            ]
            inner += [
                f'        {a.name.split()[-1]}) words="{" ".join(_flags(a))}" ;;'
                for a in verb.actions
            ]
            cases.append(
                f'    {verb.name})\n      case "$action" in\n'
                + "\n".join(inner)
                + "\n      esac ;;"
            )
        else:
            cases.append(f'    {verb.name}) words="{" ".join(_flags(verb))}" ;;')
    return (
        '# tree-ring completion for bash: eval "$(tree-ring completion bash)"\n'
        "_tree_ring() {\n"
        '  local cur="${COMP_WORDS[COMP_CWORD]}" verb="" action="" words="" i w\n'
        "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
        '    w="${COMP_WORDS[i]}"\n'
        '    case "$w" in\n'
        "      -*) ;;\n"
        '      *) if [[ -z "$verb" ]]; then verb="$w"\n'
        '         elif [[ -z "$action" ]]; then action="$w"; fi ;;\n'
        "    esac\n"
        "  done\n"
        '  case "$verb" in\n'
        f'    "") words="{top}" ;;\n' + "\n".join(cases) + "\n  esac\n"
        '  COMPREPLY=($(compgen -W "$words" -- "$cur"))\n'
        "}\n"
        "complete -F _tree_ring tree-ring\n"
    )


def zsh(root: reference.Command) -> str:
    return (
        '# tree-ring completion for zsh: eval "$(tree-ring completion zsh)"\n'
        "autoload -U +X bashcompinit && bashcompinit\n" + bash(root).split("\n", 1)[1]
    )


def _quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def fish(root: reference.Command) -> str:
    lines = ["# tree-ring completion for fish: tree-ring completion fish | source"]
    for verb in root.actions:
        lines.append(
            f"complete -c tree-ring -f -n __fish_use_subcommand -a {verb.name} "
            f"-d {_quote(verb.help[:80])}"
        )
    for verb in root.actions:
        seen = f"__fish_seen_subcommand_from {verb.name}"
        names = [action.name.split()[-1] for action in verb.actions]
        none_yet = f"{seen}; and not __fish_seen_subcommand_from {' '.join(names)}"
        for action in verb.actions:
            short = action.name.split()[-1]
            lines.append(
                f"complete -c tree-ring -f -n {_quote(none_yet)} "
                f"-a {short} -d {_quote(action.help[:80])}"
            )
            for option in action.options:
                lines += _fish_option(f"{seen}; and __fish_seen_subcommand_from {short}", option)
        for option in verb.options:
            lines += _fish_option(seen, option)
    return "\n".join(lines) + "\n"


def _fish_option(condition: str, option: reference.Option) -> list[str]:
    out: list[str] = []
    for flag in option.flags:
        if not flag.startswith("--"):
            continue
        line = f"complete -c tree-ring -n {_quote(condition)} -l {flag[2:]}"
        if option.choices:
            line += f" -x -a {_quote(' '.join(option.choices))}"
        elif option.takes_value:
            line += " -r"
        out.append(line + f" -d {_quote(option.help[:80])}")
    return out


def cmd_completion(ctx: Context) -> int:
    from tree_ring.cli import argparsing  # the whole parser, built only for this verb

    root = reference.walk(argparsing.build_parser())
    script = {"bash": bash, "zsh": zsh, "fish": fish}[ctx.args.shell](root)
    ctx.emit({"shell": ctx.args.shell, "script": script}, script)
    return 0


def _completion_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("shell", choices=SHELLS, help="the shell to print a script for")


EXAMPLES: dict[str, tuple[str, ...]] = {
    "completion": (
        'eval "$(tree-ring completion bash)"',
        'eval "$(tree-ring completion zsh)"',
        "tree-ring completion fish > ~/.config/fish/completions/tree-ring.fish",
    ),
}

VERBS: dict[str, tuple[Handler, Arguments]] = {
    "completion": (cmd_completion, _completion_arguments),
}
