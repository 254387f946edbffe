"""Judges for passwords that come before, or in a shape instead of, the word
that would name them in a sentence (the prose rules in `credentials` use
them):

- "Kx7!mQ2#zp is the pw", "hunter2pw was the password for staging": the
  word before a link and "the" (or "my", "our", ...) and the word for
  password, unless a noun follows it ("... is the password manager" names
  a product).
- An app password as Google and Apple show one, four groups of four
  letters ("abcd efgh ijkl mnop", "abcd-efgh-ijkl-mnop"), after "app
  password": not when the groups are words of a sentence.
"""

from __future__ import annotations

from tree_ring.guard.rule import text_pattern
from tree_ring.guard.values import chosen_password, password_looking

# What links the value to the word: "X is the password", "X was our pw",
# "X = the password"; up to two words saying which ("the staging db pw").
_VALUE_BEFORE = (
    r"(?:^|[\s(\[{\"'`])(?P<value>[^\s\x00]{4,64})\s+(?:is|was|=)\s+"
    r"(?:(?:the|my|our|your|his|her|their|its)\s+)?(?:[a-z0-9_-]{1,20}\s+){0,2}$"
)
# Words that may follow the word for password when a weaker password
# names the value before it: a preposition saying whose, or a conjunction.
_AFTER_WORDS = frozenset(
    {"for", "of", "on", "to", "in", "at", "here", "now", "again", "today", "btw", "and",
     "but", "so", "there", "too", "also", "everywhere"}
)  # fmt: skip
# Words that make the word for password part of a compound noun: "X is the
# password manager" names a product, not a password.
_COMPOUNDS = frozenset(
    {"manager", "managers", "store", "vault", "policy", "policies", "reset", "resets", "hash",
     "hashes", "hashing", "field", "fields", "prompt", "rule", "rules", "change", "changes",
     "expiry", "length", "requirement", "requirements", "flow", "form", "page", "screen",
     "dialog", "file", "generator", "list", "column", "strength", "history", "reuse",
     "rotation", "protected", "less", "check", "checker", "validation", "provider", "grant",
     "auth", "authentication", "login", "entry", "input", "salt", "algorithm", "format"}
)  # fmt: skip
_WRAPPERS = "'\"`([{"
_TRAILING = ".,;:)]}'\"`!?"


def value_before(window: str) -> bool:
    """The window is the text before the word for password, a NUL, and the
    rest of its line: the password is the word before "is the"."""
    lead, _, tail = window.partition("\x00")
    found = text_pattern(_VALUE_BEFORE).search(lead.lower())
    if found is None:
        return False
    following = "".join(tail.split()[:1])
    if following.lower().rstrip(_TRAILING).removesuffix("'s") in _COMPOUNDS:
        return False  # "X is the password manager"
    start, end = found.span("value")
    value = lead[start:end].lstrip(_WRAPPERS).rstrip(_TRAILING)
    if password_looking(value):
        return True
    # A weaker password only where the sentence plainly ends on the word or
    # goes on to say whose it is: "OAuth2 is the password replacement" is
    # no password.
    ends = not following or following[:1] in ".,;:!?)" or following.lower() in _AFTER_WORDS
    return ends and chosen_password(value, prose=True)


# Four-letter words common in English: groups of them are a sentence
# ("make sure that only"), not letters drawn at random.
_COMMON_FOUR = frozenset(
    {"also", "back", "been", "best", "both", "call", "came", "case", "come", "code", "data",
     "does", "done", "down", "each", "even", "ever", "fail", "file", "find", "fine", "form",
     "free", "from", "full", "gave", "give", "goes", "gone", "good", "have", "here", "high",
     "hold", "home", "into", "just", "keep", "kept", "kind", "know", "last", "left", "less",
     "like", "line", "link", "list", "live", "long", "look", "made", "mail", "main", "make",
     "many", "more", "most", "move", "much", "must", "name", "need", "next", "none", "note",
     "once", "only", "open", "over", "page", "part", "pass", "read", "real", "same", "save",
     "says", "seen", "self", "send", "sent", "show", "side", "sign", "some", "soon", "step",
     "stop", "such", "sure", "take", "team", "tell", "test", "than", "that", "them", "then",
     "they", "this", "time", "told", "took", "turn", "type", "used", "user", "uses", "very",
     "want", "well", "went", "were", "what", "when", "will", "with", "word", "work", "year",
     "your", "apps", "auth", "smtp", "imap"}
)  # fmt: skip


def app_password(span: str) -> bool:
    """Four groups of four letters, at most one of them a common word, with
    eight or more different letters ("xxxx xxxx xxxx xxxx" shows the shape)."""
    groups = text_pattern(r"[a-z]{4}").findall(span.lower())
    return (
        len(groups) == 4
        and len(set("".join(groups))) >= 8
        and sum(group in _COMMON_FOUR for group in groups) <= 1
    )
