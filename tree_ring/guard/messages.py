"""Error messages with whatever looks like a secret taken out.

Error messages name the value they refuse (an unknown ring, a malformed id,
a path that does not exist) so a person can fix it; when that value is a
credential, printing it would leak it into a terminal, a log or a model's
context. The one place errors reach people in each client (the CLI, the
hook's stderr line, an MCP result, the TUI and the web view) passes them
through `withhold`, so no message needs to be written with care for it.

A message can hold a secret three ways, and each is taken out:
- quoted (`'ghp_…'`): the quoted value is replaced;
- bare (`cannot read /tmp/ghp_….jsonl`): the word is replaced;
- cut short (`not 'ghp_YJfEODd6zcz7Dr'`, a value shortened to fit the
  line, which no longer looks like a secret by itself): the client passes
  what it was given (`supplied`, its command line) and any run of the
  message that begins a secret-shaped part of one of those is replaced.
If something still looks like a secret after that, the whole message is.
"""

from __future__ import annotations

import functools

from tree_ring.guard.engine import find_secret

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Iterable

# A value an error message quotes: 'like this' or "like this".
_QUOTED = r"'[^'\n]{1,400}'|\"[^\"\n]{1,400}\""
# A word of a message: what lies between spaces, quotes and list punctuation,
# but for a colon or full stop that ends it (`cannot read PATH: ...`).
_WORD = r"[^\s'\"`,;()\[\]]*[^\s'\"`,;()\[\]:.]"
# Where a command-line word splits into parts: a path's folders, `key=value`.
_PART = r"[/\\=:,;@\s]+"
BARE = "[withheld: it looks like a secret]"
WITHHELD = f"'{BARE}'"
WHOLE = (
    "the error message is withheld: it would show something that looks like a secret; "
    "check the values given and retry"
)
# The shortest start of a supplied secret that counts as showing it: short
# enough to catch a value cut to fit a line, long enough that ordinary words
# of a message do not match it by chance.
SHORTEST_CUT = 8


def withhold(message: str, supplied: Iterable[str] = ()) -> str:
    """`message` with everything that looks like a secret replaced (see above)."""
    message = _cuts_withheld(message, supplied)
    if find_secret(message) is None:
        return message
    quoted = _pattern(_QUOTED)
    message = quoted.sub(lambda m: WITHHELD if find_secret(m.group()) else m.group(), message)
    if find_secret(message) is None:
        return message
    word = _pattern(_WORD)
    message = word.sub(lambda m: BARE if find_secret(m.group()) else m.group(), message)
    if find_secret(message) is None:
        return message
    return WHOLE  # a secret spread over several words: nothing of it is said


def _cuts_withheld(message: str, supplied: Iterable[str]) -> str:
    for secret in _secret_parts(supplied):
        message = _without_runs_of(message, secret)
    return message


def _secret_parts(supplied: Iterable[str]) -> list[str]:
    """The parts of the supplied words that look like secrets (a path's
    folder, a `key=value`'s value), or the whole word when only it does."""
    found: list[str] = []
    for word in supplied:
        if len(word) < SHORTEST_CUT or find_secret(word) is None:
            continue
        parts = [part for part in _pattern(_PART).split(word) if len(part) >= SHORTEST_CUT]
        flagged = [part for part in parts if find_secret(part) is not None]
        found += flagged or [word]
    return found


def _without_runs_of(message: str, secret: str) -> str:
    """`message` with each run that begins `secret` (at least `SHORTEST_CUT`
    characters of it, then the whole secret or the end of a word) replaced."""
    head = secret[:SHORTEST_CUT]
    start = message.find(head)
    while start >= 0:
        size = SHORTEST_CUT
        while start + size < len(message) and size < len(secret):
            if message[start + size] != secret[size]:
                break
            size += 1
        after = message[start + size : start + size + 1]
        if size < len(secret) and (after.isalnum() or after in ("_", "-")):
            # The message goes on with other letters: a word that only
            # begins like the secret (`password-assignment`), not a cut.
            start = message.find(head, start + 1)
            continue
        message = message[:start] + BARE + message[start + size :]
        start = message.find(head, start + len(BARE))
    return message


@functools.cache
def _pattern(source: str) -> re.Pattern[str]:
    import re  # only once an error holds something that looks like a secret

    return re.compile(source)
