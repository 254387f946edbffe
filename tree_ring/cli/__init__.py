"""The `tree-ring` command: argparse in, library calls out, one place for errors."""

import sys


def english(message: str) -> str:
    """gettext as argparse gets it: the message as written (see below and app.run)."""
    return message


def english_plural(singular: str, plural: str, n: int) -> str:
    """ngettext as argparse gets it: English's two forms."""
    return singular if n == 1 else plural


if "argparse" not in sys.modules and "gettext" not in sys.modules:
    # argparse imports gettext for two functions which, with no catalog
    # installed for its messages (Python ships none), return their text as it
    # is; gettext costs every command about 2 ms of its start-up. argparse
    # binds the two when it is imported, so it is given plain ones, and
    # gettext itself stays importable as ever.
    import types

    plain = types.ModuleType("gettext")
    plain.__dict__.update(gettext=english, ngettext=english_plural)
    sys.modules["gettext"] = plain
    try:
        __import__("argparse")
    except ImportError:
        pass  # an argparse that asks gettext for more: imported as ever, later
    finally:
        del sys.modules["gettext"]
