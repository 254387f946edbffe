"""Prefixed token families as secret rules: the prefixes, then the body.

Most providers give their tokens a fixed prefix so leaked ones can be found
(``ghp_``, ``xoxb-``, ``AKIA``). `tokens` turns a family of such prefixes and
the bodies that follow them into rules (`tokens.py` declares them): the
prefixes are the rules' heads, and each rule's run, the token characters in
a row every match holds, is read from its pattern here, by hand, since the
table is built at import.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tree_ring.guard.rule import SECRET, Rule, escape, shared_prefix

_Form = tuple[Sequence[bytes], bytes]

# Letters and digits: a token glued to one of these is part of a longer
# string (a hash, a base64 blob), not a token on its own. An underscore is
# not glue: it separates the words of a name ("GITHUB_TOKEN_ghp_...").
_TOKEN_CHARS = rb"A-Za-z0-9"


def tokens(
    name: str,
    validator: Callable[[str], bool] | None,
    *forms: _Form,
    not_after: bytes = _TOKEN_CHARS,
) -> tuple[Rule, ...]:
    """A token family in the raw view: for each form, one of its prefixes not
    glued to a word before it (no character of `not_after` just before), then
    its body.

    Prefixes that start with the same byte share one rule whose pattern starts
    with the prefixes' common part: `re` skips quickly to a literal but tests
    every position for a set of first bytes. The prefixes are the rules'
    heads, declared so the engine need not read them; the look-behind sits
    after each prefix, where it costs nothing until the prefix matched.
    """
    by_first: dict[int, list[tuple[bytes, bytes]]] = {}
    # Each body is read once, not once per prefix: the table is built at import.
    body_runs = {body: _body_run(body) for _, body in forms}
    for prefixes, body in forms:
        for prefix in prefixes:
            by_first.setdefault(prefix[0], []).append((prefix, body))
    rules: list[Rule] = []
    for group in by_first.values():
        run = min(_tail_run(prefix) + body_runs[body] for prefix, body in group)
        shared = shared_prefix([prefix for prefix, _ in group])
        rests = [
            escape(prefix[len(shared) :])
            + rb"(?<!["
            + not_after
            + rb"]"
            + escape(prefix)
            + rb")"
            + body
            for prefix, body in group
        ]
        source = escape(shared) + rb"(?:" + b"|".join(rests) + rb")"
        heads = tuple(prefix for prefix, _ in group)
        rules.append(Rule(name, SECRET, "raw", source, validator, heads=heads, run=run))
    return tuple(rules)


_TOKEN_BYTES_TEXT = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
_TOKEN_BYTES = frozenset(_TOKEN_BYTES_TEXT)


def _token_class(members: bytes) -> bool:
    """Whether a class body holds token characters only: single ones, and
    ranges whose ends are both digits, both lower or both upper case."""
    if members.translate(None, _TOKEN_BYTES_TEXT):
        return False  # something that is no token character, range or not
    if b"-" not in members[1:-1]:
        return True  # no range: each member stands for itself
    index = 0
    while index < len(members):
        ends = members[index : index + 3 : 2]
        if members[index + 1 : index + 2] == b"-" and len(ends) == 2 and ends.isalnum():
            if not (ends.isdigit() or ends.islower() or ends.isupper()):
                return False
            index += 3
        elif members[index] in _TOKEN_BYTES:
            index += 1
        else:
            return False
    return True


def _element(body: bytes, index: int) -> tuple[bytes | None, int, int] | None:
    """The body's element at `index`: (a class's members, or None for one
    token character, escaped or not; its fewest repetitions; where it ends),
    or None for anything else. Read by hand: the table computes every token
    rule's run at import, which every hook call pays for, and `re` is not
    imported there."""
    if body[index : index + 1] == b"[":
        close = body.find(b"]", index + 1)
        members = body[index + 1 : close]
        if close > index + 1 and b"\\" not in members and b"^" not in members:
            end, fewest = close + 1, 1
            brace = body.find(b"}", end)
            inside = body[end + 1 : brace]
            digits = len(inside) - len(inside.lstrip(b"0123456789"))
            # {m}, {m,}, {m,n}, then an optional possessive "+"
            if (
                body[end : end + 1] == b"{"
                and brace > end
                and digits
                and not inside.strip(b"0123456789,")
            ):
                fewest = int(inside[:digits])
                end = brace + 2 if body[brace + 1 : brace + 2] == b"+" else brace + 1
            return members, fewest, end
    char = index + 1 if body[index : index + 1] == b"\\" else index
    if char < len(body) and body[char] in _TOKEN_BYTES:
        return None, 1, char + 1
    return None


# A form's run, the token characters in a row that every match of a prefix
# and its body holds, is at least those ending the prefix (`_tail_run`) and
# then the body's leading elements, as long as each is a class of token
# characters or a token character (`_body_run`).


def _tail_run(prefix: bytes) -> int:
    return len(prefix) - len(prefix.rstrip(_TOKEN_BYTES_TEXT))


def _body_run(body: bytes) -> int:
    run = index = 0
    while element := _element(body, index):
        members, fewest, index = element
        if members is not None:
            if not _token_class(members):
                break
            run += fewest
        else:
            run += 1
    return run
