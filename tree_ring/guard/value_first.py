"""Judges for passwords that come before, or in a shape instead of, the word
that would name them in a sentence (the prose rules in `credentials` use
them):

- "Kx7!mQ2#zp is the pw", "hunter2pw was the password for staging": the
  word before a link and "the" (or "my", "our", ...) and the word for
  password, unless a noun follows it ("... is the password manager" names
  a product).
- "Zq8v...nVcK is our AWS secret access key", "use 9f8e...b1a0 as the
  Datadog API key": a generated value before a link ("is", "=") or after
  "use ... as", and the word for key, token or secret (`token_before`).
- "Zq8v...nVcK (the Datadog API key)", "Zq8v...nVcK // prod api key",
  "Zq8v...nVcK: api key", "Zq8v...nVcK -- that's the staging password": a
  generated value, then a label set off after it by a bracket, a comment's
  marker, an arrow, a colon, a dash or a comma, that names it with the
  word (`set_off`): only a label the word ends (perhaps saying whose,
  "for Datadog"), with no verb in it ("3f2a...: fix api key" is a commit).
- An app password as Google and Apple show one, four groups of four
  letters ("abcd efgh ijkl mnop", "abcd-efgh-ijkl-mnop"), after "app
  password": not when the groups are words of a sentence.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tree_ring.guard.prose_values import a_name
from tree_ring.guard.rule import text_pattern
from tree_ring.guard.values import chosen_password, password_looking, token_looking

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

_DETERMINER = r"(?:(?:the|my|our|your|his|her|their|its|this|that)\s+)?"
# What puts a value to use as the thing named after it: "use X as the password".
_PUT = r"(?:use|using|set|put|paste|enter|try|with)\s+"


# What links a value to the words naming it after it: "X is the", "X = our",
# "X -- the", "X belongs to the", "X is what we use for the"; "as" and
# "for" only after a use ("use X as the", "use X for the").
_LINKS = (
    r"is|was|=|as|for|--|\u2014|\u2013|belongs\s+to"
    r"|is\s+what\s+(?:we|you|they|i)\s+use\s+(?:as|for)"
)


# What sets a label off after a value: a comment's marker, an arrow, a dash,
# a table's column.
_MARKS = r"//|/\*|#|<--?|\u2190|\u27f5|\u21d0|--?>|\u2192|\u27f6|\u279c|\u2794|=>|\u21d2|-|\|"
# What may open the label: "X -- that's the prod db password".
_SAYS = r"(?:that's|that\u2019s|that\s+is|it's|it\u2019s|it\s+is|this\s+is|which\s+is|i\.e\.)"


def _before(length: str, qualifiers: int, *, glued: bool = False) -> str:
    """The value, a link (`_LINKS`), a comma ("X, the prod db password,"),
    an opening bracket after a space ("X (the prod db password)"; glued to
    the value it is a call's or an index's), a colon or a mark
    (`_MARKS`: "X // datadog api key"), perhaps "that's" (`_SAYS`), then up
    to `qualifiers` words saying which ("the staging db", "the GitHub
    bot's"), the last of them perhaps glued to the word
    ("secret-access-key", and when `glued` with nothing between,
    "apikey")."""
    start = r"(?:^|[\s(\[{\"'`=])"
    value = r"(?P<put>" + _PUT + r")?(?P<value>[^\s\x00," + r"]" + length + r")"
    link = (
        r"(?:\s+(?P<link>" + _LINKS + r")\s+|(?P<comma>,)\s+|\s+(?P<open>[(\[{])\s*"
        r"|(?P<mark>:|\s:|\s+(?:" + _MARKS + r"))\s+)(?:(?P<says>" + _SAYS + r")\s+)?"
    )
    word = r"[a-z0-9_.'\u2019-]{1,24}"
    which = _DETERMINER + r"(?:" + word + r"\s+){0," + str(qualifiers) + r"}"
    return rf"{start}{value}{link}{which}(?:{word}[-_]{'?' if glued else ''})?$"


def _linked(found: re.Match[str] | None) -> bool:
    """Whether the value found is linked to the word: "as" and "for" only after a use."""
    return found is not None and (
        found.group("link") not in ("as", "for") or found.group("put") is not None
    )


# Words that make a label set off after a value no name for it: a verb (a
# commit's or a change's subject, "3f2a...: fix api key"), a clause's start,
# a conjunction (", and a private key" goes on with a list), or a word
# saying the value is a stand-in or public ("X (example api key)", "X # ssh
# key" is a public key's line).
_NOT_LABEL = frozenset(
    {"fix", "fixes", "fixed", "add", "adds", "added", "remove", "removes", "removed", "rm",
     "delete", "deletes", "deleted", "drop", "drops", "dropped", "rotate", "rotates", "bump",
     "bumps", "bumped", "update", "updates", "revert", "reverts", "reverted", "use", "uses",
     "move", "moves", "moved", "rename", "renames", "renamed", "refactor", "handle", "handles",
     "support", "supports", "validate", "validates", "check", "checks", "store", "stores",
     "read", "reads", "load", "loads", "pass", "passes", "set", "sets", "get", "gets", "make",
     "makes", "allow", "allows", "mask", "masks", "redact", "redacts", "redacted", "hide",
     "hides", "log", "logs", "logged", "print", "prints", "show", "shows", "test", "tests",
     "document", "documents", "docs", "see", "per", "re", "about", "regarding", "wip", "chore",
     "feat", "fetch", "fetches", "inject", "injects", "require", "requires", "need", "needs",
     "no", "not", "without", "missing", "example", "sample", "dummy", "fake", "placeholder",
     "mock", "ssh", "fingerprint", "revoked", "invalid", "old", "former", "deprecated",
     "that", "which", "who", "we", "you", "they", "i", "is", "was", "are", "were", "has", "had",
     "and", "or", "but", "nor", "then", "so", "also", "plus", "while"}
)  # fmt: skip
# A label set off after a value ends with the word, or goes on only to say
# whose or where ("X (the api key for Datadog)", "X # api key for prod")
# before a bracket's close, a sentence's end or the line's.
_WHOSE = r"(?:\s+(?:for|of|in|on|at|from)(?:\s+[^\s.,;:!?()\[\]]+){1,3})?"
# Or says which after a comma or a dash ("X (api key, prod)").
_ASIDE = r"(?:\s*(?:,|\s-|\s\u2013|\s\u2014)(?:\s+[^\s()\[\]{}]+){1,3})?"
_CLOSED = _WHOSE + _ASIDE + r"\s*[)\]}]"
_LABEL_ENDS = _WHOSE + r"\s*(?:$|[.;,!?)|]|\*/|\s--?\s|\s[\u2013\u2014]\s)"


def set_off(found: re.Match[str], lead: str, tail: str) -> bool | None:
    """For a value set off before the label that names it (a bracket, a
    colon, a mark, or a comma not closed by another): whether the label
    names the value (`_NOT_LABEL`, `_CLOSED`, `_LABEL_ENDS`) and the value
    is no name (an ARN, a path, a digest, a URL). None for the other links,
    judged as before."""
    if found.group("open"):
        ends = _CLOSED
    elif found.group("mark") or (found.group("comma") and not tail.lstrip().startswith(",")):
        ends = _LABEL_ENDS
    else:
        return None
    ended = text_pattern(ends).match(tail)
    if ended is None:
        return False
    label = lead.lower()[found.end("says" if found.group("says") else "value") :] + ended[0]
    if _NOT_LABEL.intersection(word.strip(_WRAPPERS + _TRAILING) for word in label.split()):
        return False
    value = _found(lead, found.span("value"))
    return "://" not in value and not a_name(value)


# "X is the password", "X was our pw", "X = the password", "use X as the
# password"; up to two words saying which ("the staging db pw").
_VALUE_BEFORE = _before("{4,64}", 2)
# "X is our AWS secret access key": a token is long, and more words may say which.
# The rule for it finds the word glued only after a word that names a
# credential with it ("X is our apikey").
_TOKEN_BEFORE = _before("{16,256}", 5, glued=True)
# Words that may follow the word for password when a weaker password
# names the value before it: a preposition saying whose, or a conjunction.
_AFTER_WORDS = frozenset(
    {"for", "of", "on", "to", "in", "at", "here", "now", "again", "today", "btw", "and",
     "but", "so", "there", "too", "also", "everywhere"}
)  # fmt: skip
# Words that open a clause: between the value and the word they say what
# the value is ("a commit that rotated the key"), not that it is the key.
_CLAUSE = frozenset(
    {"that", "which", "who", "whom", "whose", "we", "you", "they", "i", "is", "was", "are",
     "were", "has", "had", "not", "no"}
)  # fmt: skip
# Words that may follow the word for key, token or secret after a value
# before it: a preposition, a conjunction or a clause's start.
_ENDS = _AFTER_WORDS | frozenset(
    {"we", "you", "they", "that", "which", "who", "is", "was", "must", "should", "will",
     "expires", "lives", "goes", "from", "with", "when", "until", "if", "--", "\u2014"}
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
    if found is None or not _linked(found):
        return False
    following = "".join(tail.split()[:1])
    if following.lower().rstrip(_TRAILING).removesuffix("'s") in _COMPOUNDS:
        return False  # "X is the password manager"
    value = _found(lead, found.span("value"))
    off = None if found.group("comma") else set_off(found, lead, tail)
    if off is not None:
        return off and (password_looking(value) or token_looking(value))
    if password_looking(value):
        return True
    # A weaker password only where the sentence plainly ends on the word or
    # goes on to say whose it is: "OAuth2 is the password replacement" is
    # no password.
    ends = not following or following[:1] in ".,;:!?)" or following.lower() in _AFTER_WORDS
    return ends and chosen_password(value, prose=True)


def token_before(names: Sequence[bytes]) -> Callable[[str], bool]:
    """A judge of the window before "key", "token" or "secret" (as
    `value_before`'s): a generated value (`token_looking`) is the word
    before the link, unless one of `names` says which key it is ("X is
    the partition key") or a noun makes the word part of another ("X is
    the API key manager")."""
    not_credential = frozenset(name.decode() for name in names)

    def judge(window: str) -> bool:
        lead, _, tail = window.partition("\x00")
        found = text_pattern(_TOKEN_BEFORE).search(lead.lower())
        if found is None or not _linked(found):
            return False
        said = lead.lower()[found.end("value") :].split()
        if said and said[-1].strip(_WRAPPERS + _TRAILING) in not_credential:
            return False
        off = set_off(found, lead, tail)
        if off is not None:
            return off and token_looking(_found(lead, found.span("value")))
        said_at = next(
            found.end(group) for group in ("says", "link", "comma") if found.group(group)
        )
        if _CLAUSE.intersection(lead.lower()[said_at:].split()):
            return False  # "X, the commit that rotated the API key, ...": a clause names X
        following = "".join(tail.split()[:1]).lower()
        # The word ends its noun: the sentence goes on with a preposition or
        # a clause ("X is the API key for prod", "... key, rotated monthly"),
        # not with a noun it qualifies ("X is the API key fix commit").
        ends = not following or following[:1] in ",.;:!?)" or following in _ENDS
        if not ends or (found.group("comma") is not None and following[:1] != ","):
            return False
        value = _found(lead, found.span("value"))
        return not value.lower().startswith("arn:") and token_looking(value)

    return judge


def _found(lead: str, span: tuple[int, int]) -> str:
    """The value found, without its wrapping, nor a name assigned it
    ("DD=X # the Datadog api key"): base64's padding stays."""
    value = lead[span[0] : span[1]].lstrip(_WRAPPERS).rstrip(_TRAILING)
    name, assigned, _ = value.rstrip("=").rpartition("=")
    return value[len(name) + 1 :] if assigned else value


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
