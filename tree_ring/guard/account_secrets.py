"""Secret rules for what opens an account without being a password or an API
token: a session cookie, a wallet's seed phrase, two-factor recovery codes.

- A session cookie: `PHPSESSID=...`, `connect.sid=s%3A...`, `JSESSIONID=...`,
  `sessionid=...`, `user_session=...`, `laravel_session=...`, `Cookie:
  session=...`, a value glued to its "=" as a cookie header or a browser's
  storage writes it, random enough to be a live session's (`literal_secret`):
  whoever holds it is logged in.
- A seed phrase after "seed", "mnemonic", "recovery phrase", "backup
  words" and the like: twelve or more short words in a row (spaced, comma-
  or dash-separated, numbered, in any case), few of them the words prose is
  made of, on the keyword's line or the line below it.
- Recovery codes after "recovery codes" or "backup codes": two or more codes
  of letters and digits in a row, or one to a line below the line naming them.
"""

from __future__ import annotations

from tree_ring.guard.rule import SECRET, Rule, rule, text_pattern
from tree_ring.guard.values import literal_secret

# A cookie's value: what RFC 6265 allows, percent-encoded bytes included.
_COOKIE_VALUE = rb"(?P<v>[A-Za-z0-9%._~+/=:!*$-]{16,512}+)"


def _session(span: str) -> bool:
    value = span.rstrip(".;,")
    # Express signs its cookie: "s:" (percent-encoded "s%3A"), the id, "." and a signature.
    for prefix in ("s%3A", "s%3a", "s:"):
        value = value.removeprefix(prefix)
    return literal_secret(value)


# A session cookie's name as the frameworks write it, and its "=", longest first.
_SESSION_NAMES = tuple(
    name + b"="
    for name in (
        b"session_token", b"session_key", b"sessiontoken", b"sessionkey", b"session_id",
        b"sessionid", b"session", b"sess_id", b"sessid", b"sess",
    )
)  # fmt: skip

# Common words of prose: a run of short words holding more than one of them
# is a sentence, not a seed phrase (whose words are all listed in BIP-39,
# where none of these is).
_PROSE_WORDS = frozenset(
    {"the", "and", "for", "with", "that", "this", "from", "into", "each", "are", "were", "have",
     "has", "not", "but", "your", "our", "will", "should", "when", "then", "them", "they",
     "its", "which", "there", "their", "what", "use", "used", "uses", "can", "you", "was",
     "been", "being", "how", "why", "who", "where", "than", "also", "only", "any", "some"}
)  # fmt: skip
_SEED_WORDS = 12
# How a line that names a secret and leaves it for the lines below ends.
_LINK_END = (":", "=", " is", " are")

# A seed phrase's words as people copy them: separated by spaces, by commas
# or by dashes (one of these throughout: "create tables, load users" is a
# list of steps), numbered or not ("1. army 2. van", "1) army"), in any case.
_SEED_WORD = r"(?:[0-9]{1,2}[.):]?[ \t]*)?[a-z]{3,8}"
_SEED_RUN = (
    r"(?<![a-z0-9])(?:"
    + "|".join(
        _SEED_WORD + r"(?:" + separator + _SEED_WORD + r"){11,}"
        for separator in (r"[ \t]+", r"[ \t]*,[ \t]*", r"[ \t]*-[ \t]*")
    )
    + r")(?![a-z0-9])"
)


def _seed_phrase(window: str) -> bool:
    """Twelve or more short words in a row after the keyword, few of them
    words of prose, most of them different (BIP-39's own test phrases
    repeat three words of twelve) and few of them plurals ("users, orders,
    ..." is a list of names, which a seed phrase, of words drawn at random,
    almost never is)."""
    line, _, below = window.lower().partition("\n")
    found = text_pattern(_SEED_RUN).search(line)
    if found is None and line.rstrip().endswith(_LINK_END):
        found = text_pattern(_SEED_RUN).search(below)  # on the line below "seed phrase:"
    if found is None:
        return False
    words = text_pattern(r"[a-z]+").findall(found.group())
    prose = sum(word in _PROSE_WORDS for word in words)
    plurals = sum(word.endswith("s") for word in words)
    return (
        len(words) >= _SEED_WORDS
        and prose <= 1
        and 4 * len(set(words)) >= 3 * len(words)
        and 3 * plurals <= len(words)
    )


# A recovery code as the services write them: two groups of hex digits
# ("4ca01-82f0f"), or digits alone ("83721846", "8372 1846"); a digit in it.
_CODE = r"(?=[a-f0-9 -]*[0-9])(?:[0-9a-f]{4,6}-[0-9a-f]{4,6}|[0-9]{6,10}|[0-9]{4} [0-9]{4})"
# Between two codes on a line: spaces, a comma or ";", or "and" before the last.
_CODE_SEPARATOR = r"(?:[ \t]*(?:[,;&]|\band\b)[ \t]*|[ \t]+)"
# A code on each line, below the line that names them: bulleted or numbered.
_CODE_LINE = r"[ \t]*(?:[-*][ \t]+|[0-9]{1,2}[.)][ \t]+)?`?(?:" + _CODE + r")`?[ \t,;]*"


def _recovery_codes(window: str) -> bool:
    """Two or more codes in a row after the keyword's link, on its line or
    one to a line right below it."""
    line, newline, below = window.lower().partition("\n")
    if (
        text_pattern(
            r"(?:^|[\s:=,])(?:" + _CODE + r")(?:" + _CODE_SEPARATOR + _CODE + r")+(?![a-z0-9-])"
        ).search(line)
        is not None
    ):
        return True
    return (
        bool(newline)
        and line.rstrip().endswith(_LINK_END)
        and text_pattern(r"(?:" + _CODE_LINE + r"\r?\n){1,}" + _CODE_LINE + r"(?:\r?\n|$)").match(
            below
        )
        is not None
    )


# After the keyword: a few words saying whose, then a link, then the value.
_AFTER_KEYWORD = rb"(?P<v>[^\n\x00]{0,80}?(?::|=|\bis\b|\bare\b)[^\n\x00]{1,400})"
# A seed phrase may also follow its keyword directly ("mnemonic army, van,
# ...", "Seed-Phrase lautet army van ..."), or stand on the next line.
_AFTER_SEED_KEYWORD = rb"(?P<v>[^\n\x00]{1,480}(?:\r?\n[^\n\x00]{1,480})?)"
# Recovery codes may also be listed one to a line below the line naming them.
_AFTER_CODES_KEYWORD = (
    rb"(?P<v>[^\n\x00]{0,80}?(?::|=|\bis\b|\bare\b)"
    rb"(?:[^\n\x00]{1,400}|[ \t]{0,4}\r?\n[^\x00]{1,400}))"
)

ACCOUNT_RULES: tuple[Rule, ...] = (
    rule(
        "session-cookie",
        SECRET,
        "lower",
        # Inside a longer name too: PHPSESSID, JSESSIONID, user_session, _gh_sess.
        rb"(?:" + b"|".join(_SESSION_NAMES) + rb")" + _COOKIE_VALUE,
        _session,
        # With its "=": "session" alone is a common word, the name and "=" are not.
        heads=_SESSION_NAMES,
    ),
    rule(
        "session-cookie",
        SECRET,
        "lower",
        rb"connect\.sid=" + _COOKIE_VALUE,
        _session,
        heads=(b"connect.sid=",),
    ),
    rule(
        "seed-phrase",
        SECRET,
        "lower",
        rb"(?:(?:seed|mnemonic)(?:[ _-]?(?:phrase|words))?"
        rb"|(?:recovery|backup|wallet|secret)[ _-]?(?:phrase|words))" + _AFTER_SEED_KEYWORD,
        _seed_phrase,
        heads=(b"seed", b"mnemonic", b"recovery", b"backup", b"wallet", b"secret"),
    ),
    rule(
        "recovery-codes",
        SECRET,
        "lower",
        rb"(?:recovery|backup|2fa|mfa|otp)[ _-]codes?" + _AFTER_CODES_KEYWORD,
        _recovery_codes,
        # The whole keyword: "2fa" alone is as likely inside a hex id.
        heads=tuple(
            word + sep + b"code"
            for word in (b"recovery", b"backup", b"2fa", b"mfa", b"otp")
            for sep in (b" ", b"_", b"-")
        ),
    ),
)
