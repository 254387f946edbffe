"""A command line read by the verb's own declaration, without argparse.

Each verb declares its arguments as argparse's calls (`arguments(p)`). Made
on a `Declared` instead of a parser, those calls are recorded, and `read`
takes a command line by them as argparse would: the global `--root` and
`--json` before the verb, then the verb's words, each option by its exact
name (`--limit 3`, `--limit=3`), each other word a positional in turn.

It reads only the plain lines, where argparse's reading is not in doubt,
and leaves every other to argparse (it returns None), which reads it as it
always has and names what is wrong: help, a word that starts with a dash and
is not an option's exact name (argparse takes abbreviations, negative
numbers and `--`), a value a type or the choices refuse, an option or a
positional missing, too many words, two options of a group that excludes
them, and any verb declared with nested actions (`review approve`), an
action other than storing a value, `store_true` or `append`, or a variable
number of words. A line it reads, argparse reads to the same names and
values: the test suite reads every line it runs both ways.

Nothing here imports argparse, which costs a command about 2 ms to load and
build; `tree_ring.cli.argparsing` loads it for the lines left to it.
"""

from __future__ import annotations

from types import SimpleNamespace

from tree_ring.cli.context import SUPPRESS
from tree_ring.cli.verbs import verb_at

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

# The kinds of option this reader reads; any other makes the verb argparse's.
_STORE, _TRUE, _FALSE, _APPEND = "store", "store_true", "store_false", "append"
_KINDS = {None: _STORE, _STORE: _STORE, _TRUE: _TRUE, _FALSE: _FALSE, _APPEND: _APPEND}
_TAKES_VALUE = (_STORE, _APPEND)


class _Argument:
    __slots__ = ("choices", "default", "dest", "exclusive", "kind", "required", "type")

    def __init__(self, dest: str, kind: str, settings: dict[str, Any], exclusive: int) -> None:
        self.dest = dest
        self.kind = kind
        self.type: Callable[[str], Any] | None = settings.get("type")
        self.choices = settings.get("choices")
        self.required = bool(settings.get("required", False))
        if "default" in settings:
            self.default = settings["default"]
        else:
            self.default = {_TRUE: False, _FALSE: True}.get(kind)
        self.exclusive = exclusive  # its mutually exclusive group's number, or -1

    def value(self, word: str, *, choices: bool = True) -> Any:
        """`word` as the argument's value; raises what its type raises, or
        ValueError for a value the choices do not hold."""
        value = word if self.type is None else self.type(word)
        if choices and self.choices is not None and value not in self.choices:
            raise ValueError("not one of the choices")
        return value


class Declared:
    """A verb's arguments as its declaration makes them: argparse's calls
    recorded. A call this reader does not follow marks the verb `unread`."""

    formatter_class = None  # asked for by nested actions, which are unread

    def __init__(self) -> None:
        self.options: dict[str, _Argument] = {}
        self.positionals: list[_Argument] = []
        self.arguments: list[_Argument] = []
        self.defaults: dict[str, Any] = {}
        self.required_groups: list[int] = []
        self.groups = 0
        self.unread = False

    def add_argument(self, *names: str, exclusive: int = -1, **settings: Any) -> None:
        kind = _KINDS.get(settings.get("action"))
        if kind is None or settings.get("nargs") is not None or "const" in settings:
            self.unread = True
            return
        if names and names[0].startswith("-"):
            long = [name for name in names if name.startswith("--")]
            dest = settings.get("dest") or (long or names)[0].lstrip("-").replace("-", "_")
            argument = _Argument(dest, kind, settings, exclusive)
            for name in names:
                self.options[name] = argument
        elif len(names) == 1 and kind == _STORE and "dest" not in settings:
            argument = _Argument(names[0], kind, settings, exclusive)
            self.positionals.append(argument)
        else:
            self.unread = True
            return
        if argument.dest in self.defaults:
            self.unread = True  # argparse would take the parser's default for it
        self.arguments.append(argument)

    def add_argument_group(self, *_: Any, **__: Any) -> Declared:
        return self  # a group is for the help's layout only

    def add_mutually_exclusive_group(self, *, required: bool = False) -> _Exclusive:
        self.groups += 1
        if required:
            self.required_groups.append(self.groups)
        return _Exclusive(self, self.groups)

    def set_defaults(self, **defaults: Any) -> None:
        if any(argument.dest in defaults for argument in self.arguments):
            self.unread = True  # argparse would change that argument's default
        self.defaults.update(defaults)

    def add_subparsers(self, *_: Any, **__: Any) -> _Unread:
        self.unread = True
        return _Unread()


class _Exclusive:
    def __init__(self, declared: Declared, number: int) -> None:
        self.declared = declared
        self.number = number

    def add_argument(self, *names: str, **settings: Any) -> None:
        self.declared.add_argument(*names, exclusive=self.number, **settings)


class _Unread:
    """What a nested declaration is made on: a verb with actions is argparse's."""

    def add_parser(self, *_: Any, **__: Any) -> Declared:
        return Declared()


class _Unreadable(Exception):
    """The line is argparse's to read."""


_GLOBAL = Declared()
_GLOBAL.add_argument("--root")
_GLOBAL.add_argument("--json", action=_TRUE)


def declared(arguments: Callable[[Any], None]) -> Declared:
    """A verb's declaration, with the `--root` and `--json` every verb takes after it too."""
    verb = Declared()
    verb.add_argument("--root", default=SUPPRESS)
    verb.add_argument("--json", action=_TRUE, default=SUPPRESS)
    arguments(verb)
    return verb


def read(
    words: Sequence[str], verb: str, handler: Callable[..., int], arguments: Callable[[Any], None]
) -> SimpleNamespace | None:
    """The line `words` (the global options, `verb`, its words) as argparse
    reads it, or None when it is argparse's to read (see above)."""
    at = verb_at(words)
    if at is None or words[at] != verb:
        return None
    declaration = declared(arguments)
    if declaration.unread:
        return None
    try:
        top = _defaults(_GLOBAL) | _values(_GLOBAL, words[:at], positionals=False)
        own = _defaults(declaration) | {"handler": handler, "command_name": verb}
        own |= declaration.defaults | _values(declaration, words[at + 1 :], positionals=True)
    except _Unreadable:
        return None
    return SimpleNamespace(**(top | {"command": verb} | own))


def _defaults(declaration: Declared) -> dict[str, Any]:
    """Each argument's value when the line does not name it; a text default
    is read by the argument's type, as argparse does."""
    found: dict[str, Any] = {}
    for argument in declaration.arguments:
        default = argument.default
        if isinstance(default, str) and default == SUPPRESS:
            continue
        found[argument.dest] = (
            _checked(argument, default, choices=False)
            if (isinstance(default, str) and argument.type is not None)
            else default
        )
    return found


def _values(declaration: Declared, words: Sequence[str], *, positionals: bool) -> dict[str, Any]:
    """What `words` give each argument they name; raises `_Unreadable` for a
    line argparse may read otherwise, or refuse."""
    found: dict[str, Any] = {}
    given: dict[_Argument, Any] = {}
    loose: list[str] = []
    position = 0
    while position < len(words):
        word = words[position]
        position += 1
        if not word.startswith("-"):
            loose.append(word)
            continue
        explicit: str | None = None
        argument = declaration.options.get(word)
        if argument is None:
            name, equals, explicit = word.partition("=")
            argument = declaration.options.get(name) if equals else None
            if argument is None:
                raise _Unreadable
        if argument.kind in _TAKES_VALUE:
            if explicit is None:
                if position == len(words) or words[position].startswith("-"):
                    raise _Unreadable
                explicit = words[position]
                position += 1
            elif explicit in ("", "--"):
                raise _Unreadable  # argparse reads neither as the value
            value = _checked(argument, explicit)
            if argument.kind == _APPEND:
                earlier = found.get(argument.dest, argument.default)
                value = [*(() if earlier is None or earlier == SUPPRESS else earlier), value]
        elif explicit is not None:
            raise _Unreadable  # `--json=...`: argparse refuses it
        else:
            value = argument.kind == _TRUE
        found[argument.dest] = given[argument] = value
    if len(loose) != (len(declaration.positionals) if positionals else 0):
        raise _Unreadable
    for argument, word in zip(declaration.positionals, loose, strict=True):
        found[argument.dest] = _checked(argument, word)
    _complete(declaration, given)
    return found


def _checked(argument: _Argument, word: str, *, choices: bool = True) -> Any:
    try:
        return argument.value(word, choices=choices)
    except Exception:  # argparse names it, or raises it again, in its own way
        raise _Unreadable from None


def _complete(declaration: Declared, given: dict[_Argument, Any]) -> None:
    """Raises `_Unreadable` unless every required option was given, and one
    of each required group (by a value other than its default, as argparse
    counts it), and no two options of one group."""
    options = set(declaration.options.values())
    if any(argument.required and argument not in given for argument in options):
        raise _Unreadable
    groups = [argument.exclusive for argument in given if argument.exclusive >= 0]
    if len(groups) != len(set(groups)):
        raise _Unreadable
    changed = {a.exclusive for a, value in given.items() if value is not a.default}
    if any(number not in changed for number in declaration.required_groups):
        raise _Unreadable
