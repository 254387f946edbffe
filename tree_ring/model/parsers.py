"""argparse's parser, naming only what `model.arguments` lets an error name.

`QuietParser` holds every error path of argparse to that, with one line for
an error instead of the usage block; `UsageParser` raises that line as a
`UsageError`, so a client's one error place prints it (as JSON under
`--json`, secrets withheld).
"""

from __future__ import annotations

import argparse

from tree_ring.model.arguments import KINDS, name_shaped, scrubbed, unrecognized
from tree_ring.model.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, NoReturn


class QuietParser(argparse.ArgumentParser):
    """argparse's parser, naming only what `shown` and `name_shaped` allow.

    `fail` is where an error goes: here one line on stderr and exit 2; the
    CLI's parser raises it as a `UsageError` instead.
    """

    words: Sequence[str] = ()

    def parse_known_args(  # pyright: ignore[reportIncompatibleMethodOverride]
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> tuple[Any, list[str]]:
        import sys

        # Kept for `error`, which argparse calls with a finished message.
        self.words = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(self.words, namespace)

    def parse_args(  # pyright: ignore[reportIncompatibleMethodOverride]
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> Any:
        parsed, extra = self.parse_known_args(args, namespace)
        if extra:
            self.fail(unrecognized(extra))
        return parsed

    def error(self, message: str) -> NoReturn:
        self.fail(scrubbed(message, self.words))

    def fail(self, message: str) -> NoReturn:
        import sys

        from tree_ring.model.text import error_safe

        message = error_safe(message)
        sys.stderr.write(f"error: {self.prog}: {message} (`{self.prog} --help` shows how)\n")
        raise SystemExit(2)

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        choices = action.choices
        if choices is None or value in choices:
            return
        import difflib  # only on a mistake: no command that parses pays for it

        names = [str(choice) for choice in choices]
        close = difflib.get_close_matches(str(value), names, n=1)
        if close:
            hint = f"; did you mean {close[0]!r}?"
        elif len(names) > 8:
            hint = ""  # the help lists them; a wall of names helps nobody here
        else:
            hint = f"; choose from {', '.join(names)}"
        said = f": {str(value)!r}" if name_shaped(str(value)) else " (not shown)"
        raise argparse.ArgumentError(action, f"invalid choice{said}{hint}")

    def _get_value(self, action: argparse.Action, arg_string: str) -> Any:
        try:
            return super()._get_value(action, arg_string)
        except argparse.ArgumentError:
            kind = getattr(action.type, "__name__", "")
            wanted = KINDS.get(kind, "a value it takes")
            raise argparse.ArgumentError(
                action, f"expects {wanted} (the value given is not shown)"
            ) from None


class UsageParser(QuietParser):
    """A `QuietParser` whose error is raised as a `UsageError`: the CLI's
    parser and those of the clients that parse their own arguments (`view`,
    `report`, `tui`), so their mistakes read alike."""

    def fail(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message} (`{self.prog} --help` shows how)")
