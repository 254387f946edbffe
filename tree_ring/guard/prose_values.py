"""The value a sentence gives its keyword: "the staging password is X",
"password for prod: X", "use key X", "the staging password, X, must be
rotated". The prose rules (`prose_credentials`) and the other languages'
password rules (`password_words`) read a value with these: the words that
link and fill (`LINKS`, `FILLERS`), the phrase that says which credential
(`candidate`), and what names a thing rather than holding a secret
(`a_name`).
"""

from __future__ import annotations

import re

from tree_ring.guard.rule import text_pattern
from tree_ring.guard.values import password_looking, token_looking

# Words that join a subject to its value: "is", "was set to", ":", "=", an
# arrow either way ("api key → X", "api key <- X") or a tilde as a note's
# "about" ("api key ~ X").
LINKS = frozenset(
    {"is", "was", "are", "were", "be", "been", "has", "had", "=", ":", "->", "=>", "-", "–", "—",
     "equals", "became", "becomes", "reads", "is:", "was:", "are:", "<-", "←", "→", "⇒", "⟶",
     "~", "<--", "-->", "⟵", "➜", "➔"}
)  # fmt: skip
# Words that join a word to its value in other languages: "ist", "lautet",
# "es", "est", "è", "é", "är", "er", "jest", "je", "это", ...
OTHER_LINKS = frozenset(
    {"ist", "lautet", "war", "es", "era", "est", "était", "è", "é", "är", "var",
     "er", "on", "oli", "jest", "je", "to", "az", "este", "это", "был", "была", "є",
     "είναι", "adalah", "ialah", "là", "הוא", "היא", "هي", "هو", "lautete", "sind",
     "yra", "ir", "је", "है", "था", "थी", "glasi", "гласи"}
)  # fmt: skip
# Those that are English words too ("pin to 3118", "password on prod01").
ENGLISH_LOOKALIKES = frozenset({"on", "to", "war", "era", "var", "er"})
# Words that may sit between the link and the value.
FILLERS = frozenset(
    {"now", "still", "currently", "just", "simply", "literally", "actually", "always",
     "changed", "reset", "rotated", "updated", "set", "to", "the", "string", "value"}
)  # fmt: skip
# Words that start a phrase about which credential it is: "password for prod
# is X", "the token we use on CI is X". Any other word after the keyword
# makes it a compound ("password policy", "token budget"), never a value.
# The English word is written in other languages' sentences too ("Token de
# GitHub para el CI: X", "Token für GitLab: X"): their "of" and "for".
_OPENERS = frozenset(
    {"for", "of", "to", "on", "in", "at", "from", "used", "we", "you", "i", "they", "that",
     "which", "needed", "shared", "provided", "given", "generated", "here", "there", "with",
     "de", "del", "para", "pour", "du", "des", "per", "di", "für", "voor", "van", "do", "da"}
)  # fmt: skip
MAX_QUALIFIERS = 8
# What ends a remark or a template reference the keyword sits in: "(... secret)",
# Helm's and Jinja's "{{ ... password }}", Jinja's "{% ... password %}".
_CLOSES = ("}}", "%}", ")")
# What may follow a template's close and still let a sentence go on to a value
# ("{{ password }}: X"): a link or punctuation, not the rest of a URL or path.
_AFTER_CLOSE = frozenset(":=,;.`'\")")
_WRAPPERS = "'\"`“”‘’([{"
_TRAILING = ".,;:)]}'\"`“”’"


def clean(word: str) -> str:
    """`word` without the quotes, brackets and punctuation around it."""
    return word.lstrip(_WRAPPERS).rstrip(_TRAILING)


# A value set off right after the keyword: "the staging password, X, must
# be rotated", "the AWS secret access key (X) lives in CI", perhaps after a
# phrase that says which ("the Datadog API key we use, X, expires", "the
# Stripe secret in prod, X, was leaked") and in a relative clause ("the API
# key, which is X, expires"). Only a generated value is read so ("password
# (prod): X" goes on to the value after it). A bracket glued to the word is
# a call ("PASSWORD('...')"), judged elsewhere.
_WHICH = (
    r"(?:\s+(?:for|of|in|on|at|from|we|you|they|i|that|used|given|shared)(?:\s+[^\s,()]+){0,3})?"
)
_SAYS = (
    r"(?:(?:which|that)\s+(?:is|was)\s+(?:now\s+)?|i\.e\.,?\s+|namely\s+|aka\s+"
    r"|currently\s+|now\s+)?"
)
_APPOSED = (
    rf"(?:{_WHICH}\s*,\s*{_SAYS}(?P<value>[^\s,()]+)(?=,|\.?$|\.\s|;)"
    rf"|{_WHICH}\s+\(\s*(?P<value2>[^\s()]+)\s*\))"
)


# A value given as the keyword's new one, in the clause after the one that
# says it changed: "the staging password got reset; new one: X", "the API
# key was rotated, the new value is X", "... expired -- it's now X" (not
# "the password policy changed; new one: ...", a compound's).
_SUCCESSOR = (
    r"(?i)\s+(?:(?:got|was|were|has|have|had|been|just|is|are|now|finally)\s+){0,3}"
    r"(?:reset|rotated|changed|regenerated|revoked|expired|updated|leaked|compromised|replaced"
    r"|renewed|reissued|re-issued|cycled|refreshed|rolled)\b"
    r"[^;,.!?]{0,60}?(?:[;,.!?]|\s--?|\s\u2014|\s\u2013)\s*(?:and\s+|so\s+)?"
    r"(?:(?:the\s+)?new\s+(?:one|value)(?:\s+is)?\s*(?::|=|->|\u2192)?|(?:it'?s|it\s+is)\s+now:?)"
    r"\s+(?P<value>\S+)"
)


def candidate(tail: str) -> str | None:
    """The value a sentence gives its keyword, read from the text after it.

    Either the word right after the keyword ("passphrase X", "use key X"),
    the word after a link, itself after an optional phrase that says which
    credential ("password for staging: X", "the token we use is now X"), or
    a value set off after it (`_APPOSED`) or given as its new one in the
    next clause (`_SUCCESSOR`).
    """
    successor = text_pattern(_SUCCESSOR).match(tail)
    if successor is not None:
        value = said_value(successor.group("value"), after_colon=True)
        if value is not None:
            return value
    apposed = text_pattern(_APPOSED).match(tail)
    if apposed is not None:
        value = said_value(apposed.group("value") or apposed.group("value2"), after_colon=False)
        if value is not None and (password_looking(value) or token_looking(value)):
            return value
    if tail.startswith("'s value "):
        tail = tail[2:]  # "the Datadog API key's value is X"
    words = tail.split()
    if not words or not (tail[0].isspace() or tail[0] in ":=(-)"):
        # Glued to the keyword ("token+rotation", "password's"): not a value.
        return None
    close = next((mark for mark in _CLOSES if words[0].startswith(mark)), "")
    if close:
        # "(TOTP secret) for the shared admin: X": the keyword ended a remark.
        # "{{ .Values.redis.password }}@redis-master:6379": it named a template
        # variable, and what is glued to the template's close is the text the
        # template sits in (a URL's host, a path), not a value; nor is what
        # is glued to a remark's close ("secret)\s*[:=]", a pattern's group).
        rest = words[0][len(close) :]
        if rest[:1] not in ("", *_AFTER_CLOSE):
            return None
        words[0] = rest
        if not words[0]:
            words = words[1:]
        if not words:
            return None
    first = words[0]
    if first[:1] in ":=" and first not in LINKS:
        word = first.lstrip(":=>") or (words[1] if len(words) > 1 else "")
        return said_value(word, after_colon=first[0] == ":")
    index = 0
    linked = False
    if first.lower() in _OPENERS or first.startswith("("):
        for index in range(min(len(words), MAX_QUALIFIERS)):
            word = words[index]
            if word.lower() in LINKS:
                break
            if word.endswith((":", "=")):
                linked = True
                break
            if word.endswith((".", ",", ";", "!", "?")):
                return None
        else:
            # No link after all: "password to X", "token as X" read "to" as one.
            if first in ("to", "as") and len(words) > 1:
                return said_value(words[1], after_colon=False)
            return None
        index += 1 if linked else 0
    while index < len(words) and (words[index].lower() in LINKS or words[index].lower() in FILLERS):
        linked = True
        index += 1
    if index >= len(words):
        return None
    if not linked and index != 0:
        return None
    return said_value(words[index], after_colon=index > 0 and words[index - 1].endswith(":"))


# A keyword argument a sentence passes ("pass timeout=30 to requests.get"),
# unless its name is a credential's, which the assignment rules read.
_KEYWORD_ARGUMENT = r"(?!\w*(?:pass|pw|secret|token|key|cred|auth))[A-Za-z_]\w{0,40}=[^=\s]*"


def said_value(word: str, *, after_colon: bool) -> str | None:
    """The candidate without its wrapping; None for YAML syntax after a colon
    (a tag, anchor, alias or comment: "password: !vault ...") and for a
    command-line option ("creds --from-env-file=.env")."""
    if after_colon and word[:1] in "!&*#":
        return None
    if (word.startswith("-") and word[1:2].isalpha()) or word.startswith("--"):
        return None
    value = clean(word)
    if text_pattern(_KEYWORD_ARGUMENT).fullmatch(value.lower()):
        return None  # "pass verify=False to requests": an argument, not a value
    return None if not value or a_name(value) else value


# What names a thing rather than holding a secret: an AWS resource's ARN
# ("the KMS key is arn:aws:kms:...:key/1234abcd-..."), a file's path
# ("the secret is k8s/prod/sealed-secrets.yaml").
_ARN = re.compile(r"arn:[a-z0-9-]+:[a-z0-9-]+:[a-z0-9-]*:\d*:\S+")
_FILE_PATH = re.compile(r"\.{0,2}/?(?:[\w.-]+/)+[\w.-]*\w\.[a-z]{1,5}")
# A content digest, which names what it digests ("sha256:9f8e...").
_DIGEST = re.compile(r"(?:sha(?:1|224|256|384|512)|md5):[0-9a-f]{32,128}", re.IGNORECASE)


def a_name(value: str) -> bool:
    if _ARN.fullmatch(value) or _DIGEST.fullmatch(value):
        return True
    # A path whose every part reads as a name: a generated string with a
    # file's ending after it is still the string.
    parts = value.rsplit(".", 1)[0].split("/")
    return bool(_FILE_PATH.fullmatch(value)) and not any(
        password_looking(part) or token_looking(part) for part in parts
    )


def linked(tail: str, value: str) -> bool:
    """Whether a link ("is", ":", "=") comes between the keyword and `value`."""
    before = tail.split(value, 1)[0]
    return before.rstrip().endswith((":", "=")) or any(
        word.lower() in LINKS or word.endswith((":", "=")) for word in before.split()
    )
