"""The `tree-ring` command: argparse in, library calls out, one place for errors."""

import sys


def _message(message: str) -> str:
    return message


def _plural(singular: str, plural: str, n: int) -> str:
    return singular if n == 1 else plural


if "argparse" not in sys.modules and "gettext" not in sys.modules:
    # argparse imports gettext for two functions which, with no catalog
    # installed for its messages (Python ships none), return their text as it
    # is; gettext costs every command about 2 ms of its start-up. argparse
    # binds the two when it is imported, so it is given plain ones, and
    # gettext itself stays importable as ever.
    import types

    english = types.ModuleType("gettext")
    english.__dict__.update(gettext=_message, ngettext=_plural)
    sys.modules["gettext"] = english
    try:
        __import__("argparse")
    except ImportError:
        pass  # an argparse that asks gettext for more: imported as ever, later
    finally:
        del sys.modules["gettext"]
