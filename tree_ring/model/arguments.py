"""Command-line errors that never echo a value the user typed.

argparse names what it refuses: a word left over, a choice it does not know,
a value that is not a number, an option with a value it takes none of. On a
command line those words are whatever was pasted there, a token included,
and the error goes to a terminal, a log or a model's context. So an error
names a word only when it has the shape of an option (`--bogus`) or of a
name (`recal`); any other word is counted, never shown, whatever it holds:
a secret need not look like one to be one.

`model.parsers` holds argparse's parser with every error path held to that;
`shown` and `unrecognized` serve the readers that are not argparse's too (the
CLI's own reader, `tree-ring mcp`). argparse is not imported here: a command
line the CLI's reader takes never loads it.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

# Lower-case words joined by hyphens (an option) or hyphens and underscores (a
# name): the shape of every option and choice Tree Ring declares. Short, and
# with few digits, so a random key in lower case does not pass for one.
# Compiled on first use (`re` caches them): only an error quotes a word.
_OPTION = r"--?[a-z][a-z0-9]*(?:-[a-z0-9]+)*"
_NAME = r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*"
_LONGEST = 32
_MOST_DIGITS = 3
# Words shorter than this are too short to hold a secret; the safety net in
# `QuietParser.error` (model.parsers) leaves them, so it cannot blank a word of the message.
_SHORTEST_SECRET = 6
HIDDEN = "…"


def _plain(word: str, shape: str) -> bool:
    return (
        len(word) <= _LONGEST
        and sum(c.isdigit() for c in word) <= _MOST_DIGITS
        and re.fullmatch(shape, word) is not None
    )


def option_shaped(word: str) -> bool:
    """Whether `word` looks like an option name (`--include-sensitive`, `-h`)."""
    return _plain(word, _OPTION)


def name_shaped(word: str) -> bool:
    """Whether `word` looks like a verb, a choice or a key (`recall`, `claude-code`)."""
    return _plain(word, _NAME)


def shown(word: str) -> str | None:
    """What an error may say of `word`: the option (its `=value` as `=…`),
    or None when it may say nothing."""
    option, equals, _ = word.partition("=") if word.startswith("-") else (word, "", "")
    if not option_shaped(option):
        return None
    return option + (f"={HIDDEN}" if equals else "")


def unrecognized(words: Sequence[str]) -> str:
    """The error for words no parser took: the options named, the rest counted."""
    options = [name for name in map(shown, words) if name is not None]
    hidden = len(words) - len(options)
    parts = [", ".join(options)] if options else []
    if hidden:
        noun = "word" if hidden == 1 else "words"
        parts.append(f"{hidden} {'more ' if options else ''}{noun} (not shown)")
    return "unrecognized arguments: " + " and ".join(parts)


def scrubbed(message: str, words: Sequence[str]) -> str:
    """`message` with every word of `words` (and every `=value` in one) that
    is not an option or a name taken out: the net under the paths below, for
    any message argparse writes that quotes what it was given."""
    if "ignored explicit argument" in message:
        # `--json=VALUE`: argparse quotes VALUE; what matters is the flag's rule.
        return message.partition("ignored explicit argument")[0] + "takes no value"
    hide: dict[str, str] = {}
    for word in words:
        option, equals, value = word.partition("=")
        if word.startswith("-") and equals:
            # `--s=VALUE` (argparse quotes it whole in "ambiguous option").
            hide[word] = (option if option_shaped(option) else HIDDEN) + "=" + HIDDEN
            hide[value] = HIDDEN
        else:
            hide[word] = HIDDEN
    for value in sorted(hide, key=len, reverse=True):
        if len(value) < _SHORTEST_SECRET or option_shaped(value) or name_shaped(value):
            continue
        message = message.replace(repr(value), repr(hide[value])).replace(value, hide[value])
    return message


# What a value must be, by its type's name: the error for a value it refuses.
KINDS = {
    "int": "a whole number",
    "count": "a whole number",  # cli.context.at_least
    "float": "a number",
    "project_id_value": "a project id (a letter or digit, then up to 63 letters, digits, "
    "'.', '_' or '-')",
}
