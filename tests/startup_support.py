"""The hook path's import rule, in one place (docs/STARTUP.md explains each entry).

What costs a hook more to import than its whole work: none of these may load
when a hook runs, nor when the SessionStart hook reads the user's store."""

COSTLY = frozenset(
    {
        "dataclasses",
        "typing",
        "pathlib",
        "inspect",
        "json",  # brings re and enum
        "re",
        "enum",
        "hashlib",  # loads OpenSSL
        "shlex",  # brings re
        "contextlib",
        "unicodedata",  # the text policy looks characters up only for unusual text
        "sqlite3",  # its date adapters bring datetime: the store loads _sqlite3 itself
        "datetime",
    }
)
