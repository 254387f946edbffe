"""Secret rules for credentials written out in a sentence: "the staging
password is X", "password for prod: X", "use key X", "X is the pw", "Password server
produksi: X" (a generated value after a label's colon), a PIN or a door code
with its keyword (linked in another language, "El PIN de mi tarjeta es
0751", or right after a card's or a SIM's "PIN"; "ПИН-код: X"), a SIM's PUK,
a safe's combination.

Every pattern starts at a keyword in the view it is written for; the
validator then reads the words after it (`TAIL`) and takes a value only
where a link ("is", ":", "=") or an opener ("for prod") leads to one that
looks like a credential, not a word, a placeholder or a path (the reading
is `prose_values`', which the other languages' password rules share).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tree_ring.guard.credentials import BEFORE, NOT_CREDENTIAL_TOKENS, after_names
from tree_ring.guard.prose_values import (
    ENGLISH_LOOKALIKES,
    MAX_QUALIFIERS,
    OTHER_LINKS,
    candidate,
    clean,
    linked,
    said_value,
)
from tree_ring.guard.rule import SECRET, Rule, rule, text_pattern
from tree_ring.guard.value_first import app_password, token_before, value_before
from tree_ring.guard.values import (
    chosen_password,
    chosen_pin,
    password_looking,
    spoken_passphrase,
    token_looking,
)


def _pair(tail: str, value: str) -> str | None:
    """The password of "user / password" when `value` is the user."""
    after = tail.split(value, 1)[1].split() if value in tail else []
    if len(after) >= 2 and after[0] == "/":
        return said_value(after[1], after_colon=False)
    return None


def _user_password(tail: str, value: str) -> bool:
    """`value` is "user:password" or "user/password", or the user of "user /
    password". Glued to a slash, the password must hold a symbol: "login
    flow/OAuth2" names a path, "login admin/Spring#2025" a password."""
    user, colon, password = value.partition(":")
    if colon and user and password != user and password_looking(password, min_len=6):
        return True
    user, slash, password = value.partition("/")
    if (
        slash
        and user.isalnum()
        and "/" not in password
        and not password.isalnum()
        and password_looking(password, min_len=6)
    ):
        return True
    password = _pair(tail, value)
    return password is not None and password != value and password_looking(password, min_len=6)


def _prose_password(tail: str) -> bool:
    value = candidate(tail)
    if value is None:
        return False
    return password_looking(value) or _user_password(tail, value)


# Words before "secret" that say the value is none: "(not a secret): X",
# "no secret here: X".
_DENIALS = ("not a", "not", "no", "isn't a", "never a", "nothing")


def _undenied(window: str) -> bool:
    lead, _, tail = window.partition("\x00")
    words = lead.lower().replace("(", " ").split()
    denied = any(words[-len(d.split()) :] == d.split() for d in _DENIALS)
    return not denied and _prose_password(tail)


# A quoted phrase right after a link: "the passphrase for the key is "...""
_QUOTED_AFTER_LINK = (
    r"^(?:\s+[^\s\"“]+){0,8}?(?:\s+(?:is|was|are)|:|=)\s*[\"“']([^\"”'\n]{8,120})[\"”']"
)


# Words naming what a label after "password" gives that is no password:
# "password hash: $2b$...", "password policy: ...".
_NOT_PASSWORD_LABELS = frozenset(
    {"hash", "hashes", "hashed", "digest", "salt", "length", "policy", "rule", "rules", "hint",
     "example", "format", "pattern", "regex", "field", "column", "prompt", "manager"}
)  # fmt: skip
# How many words may name which password before its label's colon.
_LABEL_WORDS = 3


def _labelled_password(tail: str) -> bool:
    """ "Password server produksi: X": a few words naming which password,
    then a colon and a value that looks generated (a sentence's words after
    the keyword, "password rotation happens monthly: ...", are judged by the
    value alone, so only a generated one counts)."""
    words = tail.split()
    for index, word in enumerate(words[: _LABEL_WORDS + 1]):
        name = word.rstrip(":").lower()
        if not name.isalpha() or name in _NOT_PASSWORD_LABELS:
            return False
        if word.endswith(":"):
            value = clean(words[index + 1]) if index + 1 < len(words) else ""
            return "/" not in value and not value.startswith("$") and password_looking(value)
    return False


def _prose_chosen_password(tail: str) -> bool:
    """After "password" or "passphrase": any password someone chose, weak or a
    passphrase, not only a random one (`chosen_password`)."""
    if _labelled_password(tail):
        return True
    value = candidate(tail)
    if value is None:
        return False
    quoted = text_pattern(_QUOTED_AFTER_LINK).match(tail)
    if quoted is not None and spoken_passphrase(quoted.group(1)):
        return True
    return (
        password_looking(value) or _user_password(tail, value) or chosen_password(value, prose=True)
    )


# A directory, which "pwd" prints: "/home/ci", "~/src", "C:\\Users\\ci".
_DIRECTORY = r"[~.]{0,2}/|\$\{?(?:home|pwd|user)\b|[a-z]:[\\/]"


def _prose_pw(tail: str) -> bool:
    """After "pw" or "pwd", the word for password ("the admin pw is X", "the
    prod db pwd is X", "pw for staging: X"): judged as after "password", but
    only after a link, since "pw" also names Playwright's CLI ("pw test2")
    and other things, and not for a directory ("pwd is /home/ci" names the
    shell's working directory)."""
    value = candidate(tail)
    return (
        value is not None
        and linked(tail, value)
        and not text_pattern(_DIRECTORY).match(value.lower())
        and _prose_chosen_password(tail)
    )


# Links a PIN may follow in another language's sentence ("El PIN de mi
# tarjeta es 0751", "PIN za karticu je 6511", "Meine PIN für die EC-Karte
# ist 3068").
_PIN_LINKS = OTHER_LINKS - ENGLISH_LOOKALIKES
# Words right before "PIN" that name what it unlocks: then the digits may
# follow it directly ("SIM PIN 1431", "card PIN 4829").
_PIN_OWNERS = frozenset(
    {"sim", "card", "debit", "credit", "bank", "atm", "phone", "visa", "mastercard", "amex",
     "karte", "ec-karte", "tarjeta", "carte", "kaart", "carta", "cartão", "kartu", "karty"}
)  # fmt: skip


def year_like(value: str) -> bool:
    """Four digits read as a year ("PIN 2024 rollout", "Passwort geändert: 2024")."""
    return len(value) == 4 and value.startswith(("19", "20"))


def _pin_in_a_sentence(tail: str) -> bool:
    """Digits after another language's link, a few words after the keyword:
    the words between say whose PIN (none holds a digit: "PIN 3 on the
    header" numbers a pin)."""
    words = tail.split()
    for index, word in enumerate(words[: MAX_QUALIFIERS + 1]):
        if any(c.isdigit() for c in word) or word.endswith((".", ";", "!", "?")):
            return False
        if word.lower() in _PIN_LINKS and index + 1 < len(words):
            value = clean(words[index + 1])
            if chosen_pin(value) and not year_like(value):
                return True
    return False


def _prose_pin(window: str) -> bool:
    """ "the vault PIN is 482913": four to twelve digits after a link, so
    "pin 2048 pages" or "pin to 3118" (the verb) is no PIN; right after the
    keyword when a word before it names a card or a SIM."""
    lead, _, tail = window.partition("\x00")
    value = candidate(tail)
    if value is not None and chosen_pin(value) and linked(tail, value):
        return True
    if _pin_in_a_sentence(tail):
        return True
    owner = lead.lower().split()[-1:]
    return (
        bool(owner)
        and owner[0] in _PIN_OWNERS
        and value is not None
        and tail.split()[0].rstrip(",;") == value
        and chosen_pin(value)
        and not year_like(value)
    )


def _prose_puk(tail: str) -> bool:
    """A SIM's PUK: eight digits right after the word or after a link."""
    value = candidate(tail)
    return value is not None and len(value) == 8 and chosen_pin(value)


# Words before a passcode that make it a meeting's: an invitation's, shared
# with everyone invited, not a credential kept for one person or team.
_MEETING_WORDS = ("meeting", "zoom", "webex", "webinar", "conference", "dial", "teams")
_CODE_LEAD = 48


def _prose_code(window: str) -> bool:
    """ "the alarm passcode is 482913", "pin code 4829 for the safe": a PIN
    after a word that names one, linked or right after it (a year there,
    "passcode 2024 rollout", is read as a year)."""
    lead, _, tail = window.partition("\x00")
    if any(word in lead.lower() for word in _MEETING_WORDS):
        return False
    value = candidate(tail)
    if value is None or not chosen_pin(value):
        # A label in another language; a year after a label ("door code
        # review: 2024 plan") is the label's.
        value = _labelled(tail)
        if value is not None and len(value) == 4 and value.startswith(("19", "20")):
            return False
    if value is None or not chosen_pin(value):
        return False
    if linked(tail, value):
        return True
    year = len(value) == 4 and value.startswith(("19", "20"))
    return tail.split()[0] == value and not year


def _labelled(tail: str) -> str | None:
    """The word after a colon or "=" within a few words of the keyword, in
    any language ("Code PIN de la carte SIM : 7392", "Pincode van de
    creditcard: 5817"); None past a sentence's end."""
    words = tail.split()
    for index, word in enumerate(words[: MAX_QUALIFIERS + 1]):
        if word.endswith((":", "=", "：")) and index + 1 < len(words):
            return clean(words[index + 1])
        if word.endswith((".", ";", "!", "?")):
            return None
    return None


# Words before "combination" that make it a lock's.
_LOCK_WORDS = ("safe", "lock", "padlock", "locker", "vault", "tresor", "kassaskåp", "caja fuerte")
# A lock's combination: two to five numbers of one to three digits.
_COMBINATION = r"\d{1,3}(?:[-–/.]\d{1,3}){2,4}|\d{1,3}(?: \d{1,3}){2,4}(?![\d.,])"


def _prose_combination(window: str) -> bool:
    """ "Safe in the office, combination 24-11-37": a lock's numbers right
    after "combination" or after a link, when a word before names a lock."""
    lead, _, tail = window.partition("\x00")
    if not any(word in lead.lower() for word in _LOCK_WORDS) and not any(
        word in tail.lower()[:40] for word in _LOCK_WORDS
    ):
        return False
    if tail.split()[:1] == ["of"]:
        return False  # "a safe combination of settings"
    value = candidate(tail) or _labelled(tail)
    if value is None:
        return False
    start = tail.find(value)
    return text_pattern(_COMBINATION).match(tail[start:]) is not None


def _prose_passcode(window: str) -> bool:
    """`_prose_code`, but not after "Passcode:", an invitation's label: its
    meeting may be lines above, past what a field's seam shows."""
    return not window.partition("\x00")[2].startswith(":") and _prose_code(window)


def _prose_pair(tail: str) -> bool:
    value = candidate(tail)
    return value is not None and _user_password(tail, value)


def _prose_token(tail: str) -> bool:
    value = candidate(tail)
    return value is not None and token_looking(value)


# The rest of the line after a keyword: the validator reads it. A look-ahead,
# so each keyword on a line is judged on its own.
TAIL = rb"(?=(?P<v>[^\n\x00]{1,160}))"

# "page token", "primary key": compounds that are no credential.
_NOT_CREDENTIAL_KEYS = (
    b"primary", b"foreign", b"public", b"publishable", b"cache", b"sort", b"partition",
    b"idempotency", b"dedup", b"dedupe", b"hash", b"range", b"shard", b"sharding",
    b"lookup", b"object", b"s3", b"row", b"composite", b"unique", b"natural",
    b"surrogate", b"site", b"map", b"dict", b"group", b"message", b"translation", b"i18n",
    b"sequence", b"index", b"join", b"cluster", b"clustering", b"distribution", b"dist",
    b"hot", b"order", b"ordering", b"record", b"event", b"redis", b"kafka", b"react",
    b"registry", b"config", b"json", b"yaml", b"dictionary", b"host", b"gpg", b"pgp",
    b"trusted",
)  # fmt: skip
_PROSE_SEPARATORS = (b" ", b"_", b"-", b".")


# A word between two ":" after another word is a segment of an ARN
# ("arn:aws:secretsmanager:...:secret:prod/api"), not a keyword in a sentence.
# After "/" or one ":" it is the keyword still: "cfg/password is X" and
# "prod:secret is X" give a value as "the password is X" does (the validator
# reads it: "cfg/password is read from vault" gives none).
def _not_a_path_segment(*words: bytes) -> bytes:
    return b"".join(rb"(?!(?<=\S:" + word + rb"):)" for word in words)


# The words before "key", "token" or "secret" a generated value before them
# may be read across: the value (up to 256), a link and five words.
_TOKEN_LEAD = 400
# The words before "password" a password before them may be read across:
# the value (up to 64), a link, "that's" and a few words.
_PASSWORD_LEAD = 128


# Words glued before the word for key, token or secret that still name a
# credential ("apikey X", "accesstoken X", "clientsecret X"); any other
# letter before it makes another word ("monkey", "hotkey").
_GLUED = {
    b"key": (b"api", b"access", b"secret", b"auth", b"private", b"signing", b"license"),
    b"token": (b"access", b"auth", b"api", b"bearer", b"refresh", b"session", b"bot"),
    b"secret": (b"client", b"app", b"api", b"webhook", b"signing", b"shared"),
}


def _word(keyword: bytes) -> bytes:
    """`keyword` alone, or glued after one of its `_GLUED` words."""
    glued = b"".join(
        rb"|(?<=[^a-z0-9]" + first + keyword + rb")" for first in _GLUED.get(keyword, ())
    )
    return keyword + rb"(?:(?<![a-z]" + keyword + rb")" + glued + rb")"


def _value_first(name: str, keyword: bytes, head: bytes, names: Sequence[bytes]) -> Rule:
    """ "Zq8v...nVcK is our AWS secret access key": the value before the word."""
    source = _word(keyword) + rb"(?![a-z0-9_-])(?=(?P<v>[^\n\x00]{0,160}))"
    judge = token_before(names)
    return rule(name, SECRET, "lower", source, judge, heads=(head,), before=_TOKEN_LEAD)


# For the token and key rules, whose values are 16 characters or more: the line
# must hold such a word, looked for word by word (each skip is possessive, so
# the look-ahead is linear) among the next dozen.
_LONG_WORD_AHEAD = rb"(?=(?>(?:[^\s\x00]{0,15}+[ \t]++){0,12})[^\s\x00]{16})"


def _two_words(firsts: Sequence[bytes], second: bytes) -> bytes:
    """A two-word keyword, its first word not glued to a word before it
    ("barcode pin"). Only with a space between: heads written with "-" or "_"
    as well would share the first word as the prefilter's stem, and a text
    with "gateway" would build the rules."""
    words = b"|".join(first + b" " + second for first in firsts)
    glued = b"".join(rb"(?<![a-z]" + first + b" " + second + b")" for first in firsts)
    return rb"(?:" + words + rb")" + glued


def _two_word_heads(firsts: Sequence[bytes], second: bytes) -> tuple[bytes, ...]:
    return tuple(first + b" " + second for first in firsts)


# French and Italian put the word for code first: "code PIN", "codice PIN".
_CODE_PIN = ((b"code", b"codice"), b"pin")
_LOCK_CODES = ((b"alarm", b"door", b"gate", b"keypad"), b"code")


# "ПИН-код", "пин-код", "Пин код", "ПІН-код", ..., longest first, as the
# lower view writes them (it lowers ASCII letters only).
_CYRILLIC_PINS = tuple(
    sorted(
        {
            (pin + code).encode()
            for stem in ("пин", "пін")
            for pin in (stem, stem.capitalize(), stem.upper())
            for code in ("-код", " код", "-КОД", " КОД", "код", "")
        },
        key=len,
        reverse=True,
    )
)


def _prose(
    name: str,
    keyword: bytes,
    head: bytes | tuple[bytes, ...],
    validator: Callable[[str], bool],
    ahead: bytes = b"",
    *,
    before: int = 0,
) -> Rule:
    # The cheap tests first: most keywords in prose fail them.
    source = keyword + rb"(?![a-z0-9_-])" + ahead + TAIL
    heads = head if isinstance(head, tuple) else (head,)
    return rule(name, SECRET, "lower", source, validator, heads=heads, before=before)


PROSE_RULES: tuple[Rule, ...] = (
    _prose(
        "password-in-prose",
        rb"pass(?:w(?:or)?d|phrase)" + _not_a_path_segment(b"passwd", b"password", b"passphrase"),
        b"pass",
        _prose_chosen_password,
    ),
    # "pw" or "pwd"; not a URL's "?pwd=", a meeting link's passcode.
    _prose(
        "password-in-prose",
        rb"pw(?<![a-z0-9_$]pw)d?(?<![?&]pwd)" + _not_a_path_segment(b"pw", b"pwd"),
        b"pw",
        _prose_pw,
    ),
    _prose(
        "password-in-prose",
        rb"pass(?:code|(?<![a-z]pass))" + _not_a_path_segment(b"pass", b"passcode"),
        b"pass",
        _prose_password,
    ),
    _prose(
        "password-in-prose",
        rb"pin(?<![a-z]pin)" + _not_a_path_segment(b"pin"),
        b"pin",
        _prose_pin,
        before=_CODE_LEAD,
    ),
    _prose(
        "password-in-prose",
        rb"puk(?<![a-z]puk)",
        b"puk",
        _prose_puk,
    ),
    # Russian and Ukrainian: "ПИН-код карты: 1733", "пін-код: 4829".
    rule(
        "password-in-prose",
        SECRET,
        "lower",
        rb"(?:" + b"|".join(_CYRILLIC_PINS) + rb")(?![a-z0-9_-]|\xd0|\xd1)" + TAIL,
        _prose_code,
        heads=_CYRILLIC_PINS,
        before=_CODE_LEAD,
    ),
    # A PIN after "passcode", "pin code" or "unlock code".
    _prose(
        "password-in-prose",
        rb"passcode" + _not_a_path_segment(b"passcode"),
        b"pass",
        _prose_passcode,
        before=_CODE_LEAD,
    ),
    _prose(
        "password-in-prose",
        rb"pin(?<![a-z]pin)[ _-]?(?:code|koodi|kode|kod|k\xc3\xb3d)",
        b"pin",
        _prose_code,
        before=_CODE_LEAD,
    ),
    # French and Italian put the word for code first: "code PIN", "codice PIN".
    _prose(
        "password-in-prose",
        _two_words(*_CODE_PIN),
        _two_word_heads(*_CODE_PIN),
        _prose_code,
        before=_CODE_LEAD,
    ),
    # The code of an alarm, a door, a gate or a keypad.
    _prose(
        "password-in-prose",
        _two_words(*_LOCK_CODES),
        _two_word_heads(*_LOCK_CODES),
        _prose_code,
        before=_CODE_LEAD,
    ),
    _prose(
        "password-in-prose",
        rb"combination(?<![a-z]combination)",
        b"combination",
        _prose_combination,
        before=_CODE_LEAD,
    ),
    _prose(
        "password-in-prose",
        rb"unlock(?<![a-z]unlock)[ _-]code",
        b"unlock",
        _prose_code,
        before=_CODE_LEAD,
    ),
    # "login: admin / X": only with a user and a password after it.
    _prose(
        "password-in-prose",
        rb"login(?<![a-z]login)",
        b"login",
        _prose_pair,
    ),
    # "Kx7!mQ2#zp is the pw": the password before the word.
    rule(
        "password-in-prose",
        SECRET,
        "lower",
        # The rest of the line, which may be empty: the word ends the sentence.
        rb"(?:pass(?:w(?:or)?d|phrase)|pwd?)(?![a-z0-9_-])(?=(?P<v>[^\n\x00]{0,160}))",
        value_before,
        heads=(b"pass", b"pw"),
        before=_PASSWORD_LEAD,
    ),
    # An app password, four groups of four letters: "abcd efgh ijkl mnop".
    rule(
        "password-in-prose",
        SECRET,
        "lower",
        rb"app(?:[ _-]?specific)?[ _-]?passwords?(?![a-z])[^\n\x00]{0,60}?(?<![a-z])"
        rb"(?P<v>[a-z]{4}(?:[ -][a-z]{4}){3})(?![a-z0-9])",
        app_password,
        heads=(b"app",),
    ),
    _prose(
        "secret-in-prose",
        _word(b"secret") + _not_a_path_segment(b"secret"),
        b"secret",
        _undenied,
        before=BEFORE,
    ),
    _prose(
        "secret-in-prose",
        rb"cred(?:entials?|s)" + _not_a_path_segment(b"creds", b"credential", b"credentials"),
        b"cred",
        _undenied,
        before=BEFORE,
    ),
    _value_first("secret-in-prose", b"secret", b"secret", ()),
    _prose(
        "token-in-prose",
        _word(b"token") + _not_a_path_segment(b"token"),
        b"token",
        after_names(NOT_CREDENTIAL_TOKENS, _PROSE_SEPARATORS, _prose_token, required=False),
        _LONG_WORD_AHEAD,
        before=BEFORE,
    ),
    _value_first("token-in-prose", b"token", b"token", NOT_CREDENTIAL_TOKENS),
    _prose(
        "key-in-prose",
        _word(b"key") + _not_a_path_segment(b"key"),
        b"key",
        after_names(_NOT_CREDENTIAL_KEYS, _PROSE_SEPARATORS, _prose_token, required=False),
        _LONG_WORD_AHEAD,
        before=BEFORE,
    ),
    _value_first("key-in-prose", b"key", b"key", _NOT_CREDENTIAL_KEYS),
)
