"""What a rule is and how the tables build one.

Each rule is a named detector over one byte view of the text (see `engine`
for the views and the scanner). Validators judge a candidate match, so a
pattern can stay cheap and linear while the decision (entropy, a checksum, a
placeholder) stays readable.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence

from tree_ring.model.frozen import Frozen

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

NORMAL = "normal"
SECRET = "secret"

# Most severe first; `classify` reports the first of these that any rule finds.
# Personal identifiers lead because they point at one person directly; health
# comes next as the most harmful to expose about them, then money, then legal
# matters, then things someone merely asked to keep private.
SEVERITY_ORDER: tuple[str, ...] = (
    "personal_identifier",
    "health",
    "financial",
    "legal",
    "private",
)

VIEWS: tuple[str, ...] = ("raw", "lower", "words", "shape", "token")


class Rule(Frozen):
    """One named detector, or one pattern of a family of detectors that share a
    name (each pattern starts with a single literal, which an alternation of
    different first bytes cannot).

    `source` is a bytes regex over the view named by `view` (see the engine's
    docstring), compiled into `pattern` on first use: compiling every rule
    costs tens of milliseconds, which the SessionStart hook (it only needs
    the secret rules, for the brief) would otherwise pay on every start.
    When it has a group named ``v`` that group is the value the `validator`
    judges; otherwise the whole match is. The validator receives the
    original text of that span, widened by `context` bytes on each side for
    rules that anchor on a keyword and judge its surroundings; when `before`
    is set, preceded by up to that many bytes before the match and a NUL
    (which no field holds), for rules that judge the word before their
    keyword ("primary key", "next_token") in Python rather than with a
    look-behind per word, which would make their patterns slow to compile. `terms` is set
    for ``words`` rules only: the alternatives the shared keyword scanner is
    built from. `heads`, when set, are the literal strings one of which
    starts every match (the constructor that built the pattern knows them);
    otherwise the engine reads them from `source`. `run` is a number of
    token characters (letters, digits, "_" and "-") that every match holds
    in a row, or 0. The prefilter uses both (see `prefilter`), and tests
    hold them to what its reader finds in `source`: reading every pattern
    when a process starts would cost the SessionStart hook milliseconds.
    """

    name: str
    category: str
    view: str
    source: bytes
    validator: Callable[[str], bool] | None = None
    terms: tuple[bytes, ...] = ()
    context: int = 0
    heads: tuple[bytes, ...] = ()
    run: int = 0
    before: int = 0

    def __init__(
        self,
        name: str,
        category: str,
        view: str,
        source: bytes,
        validator: Callable[[str], bool] | None = None,
        terms: tuple[bytes, ...] = (),
        context: int = 0,
        heads: tuple[bytes, ...] = (),
        run: int = 0,
        before: int = 0,
    ) -> None:
        # Written out: the tables make over a hundred rules at import, which
        # every hook call pays for, and `Frozen`'s generic `__init__` (and,
        # past its first records, compiling one) costs that import a
        # millisecond.
        self.__dict__.update(
            name=name,
            category=category,
            view=view,
            source=source,
            validator=validator,
            terms=terms,
            context=context,
            heads=heads,
            run=run,
            before=before,
        )

    @property
    def pattern(self) -> re.Pattern[bytes]:
        return compiled(self.source)


@functools.cache
def compiled(source: bytes) -> re.Pattern[bytes]:
    """Every pattern of the guard (rules, prefilter anchors), compiled on first
    use: reading memories back (the brief) compiles none, and does not even
    import `re`."""
    import re

    return re.compile(source)


@functools.cache
def text_pattern(source: str) -> re.Pattern[str]:
    """A validator's pattern, compiled on first use: most processes never run one."""
    import re

    return re.compile(source)


# The bytes `re.escape` escapes, escaped the same way without importing `re`:
# the tables build their patterns at import, which every hook call pays for.
_SPECIAL_BYTES = b"()[]{}?*+-|^$\\.&~# \t\n\r\v\f"
_SPECIAL = frozenset(_SPECIAL_BYTES)
_ESCAPED = tuple(
    b"\\" + bytes((byte,)) if byte in _SPECIAL else bytes((byte,)) for byte in range(256)
)


def escape(literal: bytes) -> bytes:
    """`literal` as a pattern that matches it, as `re.escape` writes it."""
    if len(literal.translate(None, _SPECIAL_BYTES)) == len(literal):
        return literal  # most prefixes: letters, digits and "_"
    return b"".join([_ESCAPED[byte] for byte in literal])


def rule(
    name: str,
    category: str,
    view: str,
    pattern: bytes,
    validator: Callable[[str], bool] | None = None,
    *,
    context: int = 0,
    heads: Sequence[bytes] = (),
    run: int = 0,
    before: int = 0,
) -> Rule:
    return Rule(name, category, view, pattern, validator, (), context, tuple(heads), run, before)


def _structure(term: bytes) -> Iterator[tuple[int, str, int]]:
    """(index, character, group depth) of each regex character that is not
    escaped and not inside a character class: read, not compiled (compiling
    every term cost more than the rest of the import)."""
    depth = 0
    in_class = False
    escaped = False
    for index, byte in enumerate(term):
        char = chr(byte)
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        else:
            if char == ")":
                depth -= 1
            yield index, char, depth
            if char == "(":
                depth += 1


def _top_level_alternation(term: bytes) -> bool:
    if b"|" not in term:
        return False  # most terms; the walk costs the import milliseconds
    return any(char == "|" and depth == 0 for _, char, depth in _structure(term))


def _captures(term: bytes) -> bool:
    """Whether the term opens a capturing group (not `(?:`, `(?=`, ...)."""
    if b"(" not in term:
        return False
    for index, char, _ in _structure(term):
        after = term[index + 1 : index + 4]
        if char == "(" and (not after.startswith(b"?") or after.startswith(b"?P<")):
            return True
    return False


def term_problem(term: bytes) -> str | None:
    """Why a words-rule term cannot be spliced into the shared keyword scanner:
    it must start with a lowercase letter that is not quantified, so the
    scanner can dispatch on it, and be one alternative without capture groups."""
    first, second = term[:1], term[1:2]
    if not (b"a" <= first <= b"z") or second in (b"?", b"*", b"+", b"{"):
        return "must start with a plain letter"
    if _top_level_alternation(term) or _captures(term):
        return "must be one group-free alternative"
    return None


def each(heads: Sequence[bytes], tail: bytes) -> list[bytes]:
    """One term per head word, so the keyword scanner can dispatch on its letter."""
    return [head + tail for head in heads]


def words_rule(
    name: str,
    category: str,
    terms: Sequence[bytes],
    validator: Callable[[str], bool] | None = None,
    context: int = 0,
) -> Rule:
    """A keyword rule over the ``words`` view; words in a term are joined by " +".

    Each term must be one the shared scanner can take (`term_problem`); the
    rule table is checked by a test, not on every import, which every hook
    call pays for.
    """
    body = b"|".join(term + rb"\b" for term in terms)
    return Rule(name, category, "words", rb" (?:" + body + rb")", validator, tuple(terms), context)


def table(*entries: Rule | tuple[Rule, ...]) -> tuple[Rule, ...]:
    """Rules in order, a family of several rules (one name, several patterns)
    in place."""
    rules: list[Rule] = []
    for entry in entries:
        rules.extend(entry if isinstance(entry, tuple) else (entry,))
    return tuple(rules)


def shared_prefix(items: Sequence[bytes]) -> bytes:
    """The longest start every item shares."""
    first = min(items)
    last = max(items)
    for index, byte in enumerate(first):
        if byte != last[index]:
            return first[:index]
    return first
