"""Secret rules for what opens an account without being a password or an API
token: a session cookie, a wallet's seed phrase or extended private key,
two-factor recovery codes, a BitLocker recovery key.

- A session cookie: `PHPSESSID=...`, `connect.sid=s%3A...`, `JSESSIONID=...`,
  `sessionid=...`, `user_session=...`, `laravel_session=...`, `Cookie:
  session=...`, a value glued to its "=" as a cookie header or a browser's
  storage writes it, or after "the sessionid cookie is", random enough to be
  a live session's (`literal_secret`): whoever holds it is logged in.
- A seed phrase after "seed", "mnemonic", "recovery phrase", "backup
  words", "BIP39", "12 words" and the like, or the same words in French,
  Spanish, Portuguese, Italian, German, Russian, Ukrainian, Chinese,
  Japanese, Korean, Polish or Turkish: twelve or more short words in a row
  (spaced, comma-, dash- or underscore-separated, numbered, quoted as a code
  array, in any case), few of them the words prose is made of, on the
  keyword's line or the line below it; after an English keyword, BIP-39's
  English words, all or all but one (a 12-word list of colours is none);
  with no keyword, a quoted array of 12 to 24 of BIP-39's English words
  whose checksum holds.
- A wallet's extended private key (BIP32's `xprv...`, `tprv...` and the
  `yprv`/`zprv` family): 111 base58 characters whose checksum holds.
- Recovery codes after "recovery codes" or "backup codes" (or the same
  words in German, the Scandinavian languages, Italian, Spanish,
  Portuguese, French, Polish, Turkish, Russian, Japanese, Chinese or
  Korean): two or more codes
  of letters and digits in a row, right after the words or after a link, or
  one to a line below the line naming them.
- A BitLocker recovery key after "BitLocker" or "recovery key": eight groups
  of six digits joined by dashes; alone, when every group is a multiple of 11
  below 720896, as BitLocker writes them.
- An appliance's or a directory's login written as `user / password` without
  the word password, on a line naming where it logs in ("iDRAC", "iLO",
  "IPMI", "BMC", "basic auth", "htaccess", "router admin", "LDAP bind",
  "admin page"): a password that looks generated (both cases, and a digit or
  a symbol); and `sqlplus user/password@database`.
"""

from __future__ import annotations

import functools
import os

from tree_ring.guard.rule import SECRET, Rule, escape, rule, text_pattern
from tree_ring.guard.values import literal_secret, password_looking

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

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

# A seed phrase's words as people copy them: separated by spaces, by commas,
# by dashes or by underscores (one of these throughout: "create tables, load
# users" is a list of steps), numbered or not ("1. army 2. van", "1) army"),
# in any case.
_SEED_WORD = r"(?:[0-9]{1,2}[.):]?[ \t]*)?[a-z]{3,8}"
_SEED_RUN = (
    r"(?<![a-z0-9])(?:"
    + "|".join(
        _SEED_WORD + r"(?:" + separator + _SEED_WORD + r"){11,}"
        for separator in (r"[ \t]+", r"[ \t]*,[ \t]*", r"[ \t]*-[ \t]*", r"_")
    )
    + r")(?![a-z0-9])"
)
# Quotes and brackets around the words, as code writes a phrase
# (`["army","van",...]`): read as the comma-separated words they hold.
_CODE_ARRAY = str.maketrans("", "", "\"'[]")


def _seed_words(window: str) -> list[str] | None:
    """Twelve or more short words in a row after the keyword, few of them
    words of prose, most of them different (BIP-39's own test phrases
    repeat three words of twelve) and few of them plurals ("users, orders,
    ..." is a list of names, which a seed phrase, of words drawn at random,
    almost never is); None when there are none such."""
    line, _, below = window.lower().translate(_CODE_ARRAY).partition("\n")
    found = text_pattern(_SEED_RUN).search(line)
    if found is None and line.rstrip().endswith(_LINK_END):
        found = text_pattern(_SEED_RUN).search(below)  # on the line below "seed phrase:"
    if found is None:
        return None
    words: list[str] = text_pattern(r"[a-z]+").findall(found.group())
    prose = sum(word in _PROSE_WORDS for word in words)
    plurals = sum(word.endswith("s") for word in words)
    if (
        len(words) >= _SEED_WORDS
        and prose <= 1
        and 4 * len(set(words)) >= 3 * len(words)
        and 3 * plurals <= len(words)
    ):
        return words
    return None


def _seed_phrase(window: str) -> bool:
    """After a keyword in another language: the words alone decide, since a
    wallet may have drawn them from that language's list."""
    return _seed_words(window) is not None


def _english_seed_phrase(window: str) -> bool:
    """After an English keyword ("seed", "12 words"): the words are BIP-39's
    English ones, all of them or all but one (a typo), so "a 12-word list of
    colors: red, orange, ..." is a list, not a phrase."""
    words = _seed_words(window)
    if words is None:
        return False
    known = _bip39_words()
    return sum(word not in known for word in words) <= 1


# BIP-39's English words (`bip39_english.txt`, written by
# scripts/build_bip39.py), read on first use: only a text holding a quoted
# array opens the rule that needs them.
_BIP39_COUNTS = frozenset({12, 15, 18, 21, 24})
# A code array of quoted words, as a wallet's seed phrase is pasted into a
# test or a config: `["army", "van", ...]`, `['army','van', ...]`.
_QUOTED_ARRAY = (
    r"\[[ \t]*((?:([\"'])[a-z]{3,8}\2[ \t]*,[ \t]*){11,23}([\"'])[a-z]{3,8}\3)[ \t]*,?[ \t]*\]"
)
# Bytes before the first separator read for the array's "[" and first word.
_ARRAY_LEAD = 16


@functools.cache
def _bip39_words() -> dict[str, int]:
    path = os.path.join(os.path.dirname(__file__), "bip39_english.txt")
    with open(path, encoding="ascii") as listed:
        return {word: index for index, word in enumerate(listed.read().split())}


def _bip39_phrase(window: str) -> bool:
    """A quoted array of 12 to 24 words, every one of them BIP-39's, whose
    last bits are the checksum BIP-39 puts there (the first bits of the
    SHA-256 of the rest): a list of common words that happen all to be on
    the list holds it once in 16 at best."""
    lead, _, span = window.partition("\x00")
    found = text_pattern(_QUOTED_ARRAY).search(lead.rpartition("\n")[2] + span)
    if found is None:
        return False
    return _bip39_checked(text_pattern(r"[a-z]+").findall(found.group(1)))


def _bip39_checked(words: list[str]) -> bool:
    """12 to 24 words, every one of them BIP-39's, most of them different,
    and the checksum holds."""
    import hashlib

    known = _bip39_words()
    if len(words) not in _BIP39_COUNTS or not all(word in known for word in words):
        return False
    if 4 * len(set(words)) < 3 * len(words):
        return False  # BIP-39's published test vectors ("abandon" eleven times)
    number = 0
    for word in words:
        number = number << 11 | known[word]
    checksum = len(words) // 3
    entropy = (number >> checksum).to_bytes(len(words) * 11 // 8 // 4 * 4, "big")
    digest = hashlib.sha256(entropy).digest()[0]
    return digest >> (8 - checksum) == number & ((1 << checksum) - 1)


# A recovery code as the services write them: two groups of hex digits
# ("4ca01-82f0f") or of letters and digits ("8f2kx-9q4mz"), or digits alone
# ("83721846", "8372 1846"); a digit in it.
_CODE = r"(?=[a-z0-9 -]*[0-9])(?:[0-9a-z]{4,6}-[0-9a-z]{4,6}|[0-9]{6,10}|[0-9]{4} [0-9]{4})"
# Between two codes on a line: spaces, a comma or ";", or "and" before the last.
_CODE_SEPARATOR = r"(?:[ \t]*(?:[,;&]|\band\b)[ \t]*|[ \t]+)"
# A code on each line, below the line that names them: bulleted or numbered.
_CODE_LINE = r"[ \t]*(?:[-*][ \t]+|[0-9]{1,2}[.)][ \t]+)?`?(?:" + _CODE + r")`?[ \t,;]*"


# "Wiederherstellungscodes", "Backup-Codes", "återställningskoder",
# "gjenopprettingskoder", "gendannelseskoder", Italian, Spanish, Portuguese,
# French, Polish, Turkish, Russian, Japanese, Chinese and Korean, as the
# lower view writes them (it lowers ASCII letters only), with and without
# their accents.
_CODES_ELSEWHERE = tuple(
    word.encode()
    for word in (
        "wiederherstellungscode", "återställningskod", "Återställningskod",
        "aterstallningskod", "gjenopprettingskode", "gendannelseskode",
        "codici di recupero", "codici di backup", "codici di riserva",
        "códigos de respaldo", "codigos de respaldo", "códigos de recuperación",
        "codigos de recuperacion", "códigos de backup", "codigos de backup",
        "códigos de recuperação", "codigos de recuperacao",
        "codes de récupération", "codes de recuperation", "codes de secours",
        "kody zapasowe", "kody odzyskiwania", "kurtarma kodlar", "yedek kodlar",
        "коды восстановления", "Коды восстановления", "резервные коды", "Резервные коды",
        "リカバリーコード", "バックアップコード", "復旧コード", "恢复代码", "备用代码",
        "복구 코드", "백업 코드",
    )
)  # fmt: skip


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


# Base58, as Bitcoin writes it: no 0, O, I or l.
_BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
# An extended key's version bytes, as base58 writes them: BIP32's xprv and
# tprv, and the prefixes later wallets gave the same 78 bytes (BIP49's yprv,
# BIP84's zprv, their multisig Yprv and Zprv, testnet uprv and vprv).
_EXTENDED_PRIVATE = (
    b"xprv", b"tprv", b"yprv", b"zprv", b"Yprv", b"Zprv", b"uprv", b"vprv", b"Uprv", b"Vprv",
)  # fmt: skip


def _extended_private_key(span: str) -> bool:
    """78 bytes and a 4-byte checksum (the first four of the double SHA-256 of
    the rest), as base58 writes them: a string that only has the shape is a
    made-up example."""
    import hashlib

    number = 0
    for char in span:
        number = number * 58 + _BASE58.index(char)
    if number >= 1 << (82 * 8):
        return False
    data = number.to_bytes(82, "big")
    digest = hashlib.sha256(hashlib.sha256(data[:78]).digest()).digest()
    return digest[:4] == data[78:]


# A BitLocker recovery password: eight groups of six digits.
_BITLOCKER_KEY = rb"(?P<v>[0-9]{6}(?:-[0-9]{6}){7})(?![0-9-])"


def _bitlocker_key(span: str) -> bool:
    # Eight copies of one group ("000000-000000-...") stand for a key.
    return len(set(span.split("-"))) > 1


# BitLocker writes each 16-bit block of the key times 11, so every group is
# a multiple of 11 below 720896 (11 * 65536): eight groups of six digits
# hold that by chance once in some 200 million, so a key is one alone.
_BITLOCKER_GROUP_LIMIT = 11 * 65536
# In the shape view a key reads as eight groups of "000000", the run test
# first (`prefilter`): a text without 20 token characters in a row is not
# searched.
_BITLOCKER_SHAPE = b"-".join([b"000000"] * 8)


def _bare_bitlocker_key(span: str) -> bool:
    groups = [int(group) for group in span.split("-")]
    return len(set(groups)) > 1 and all(
        group % 11 == 0 and group < _BITLOCKER_GROUP_LIMIT for group in groups
    )


# After the keyword: a few words saying whose, then a link, then the value.
_AFTER_KEYWORD = rb"(?P<v>[^\n\x00]{0,80}?(?::|=|\bis\b|\bare\b)[^\n\x00]{1,400})"
# A seed phrase may also follow its keyword directly ("mnemonic army, van,
# ...", "Seed-Phrase lautet army van ..."), or stand on the next line.
_AFTER_SEED_KEYWORD = rb"(?P<v>[^\n\x00]{1,480}(?:\r?\n[^\n\x00]{1,480})?)"
# Recovery codes may also be listed one to a line below the line naming them,
# or follow the words directly ("backup codes 48291736, 55209183").
_AFTER_CODES_KEYWORD = (
    rb"(?P<v>[^\n\x00]{0,80}?(?::|=|\bis\b|\bare\b)"
    rb"(?:[^\n\x00]{1,400}|[ \t]{0,4}\r?\n[^\x00]{1,400})"
    rb"|[ \t]{1,4}(?=[0-9a-f]{4})[^\n\x00]{1,400})"
)

# A session cookie named in a sentence: "the sessionid cookie is 8f14...",
# "admin's session id: ...".
_SESSION_WORDS = (b"sessionid", b"session_id", b"session id", b"session cookie", b"sessid")
_SESSION_LINK = rb"(?:[ \t]{1,4}cookie)?(?:[ \t]{0,4}[:=]|[ \t]{1,4}(?:is|was))[ \t]{1,4}"

# Words for a seed phrase in other languages: French, Spanish, Portuguese,
# Italian, German, Chinese, Japanese, Korean, Polish and Turkish (with and without their accents,
# which the folded spelling the guard also scans drops).
_SEED_WORDS_ELSEWHERE = tuple(
    word.encode()
    for word in (
        "phrase de récupération", "phrase de recuperation", "phrase secrète",
        "phrase secrete", "phrase mnémonique", "phrase mnemonique",
        "mots de récupération", "mots de recuperation", "phrase de sauvegarde",
        "frase semilla", "frase de recuperación", "frase de recuperacion",
        "frase secreta", "frase mnemotécnica", "frase mnemotecnica",
        "palabras de recuperación", "palabras de recuperacion",
        "frase de recuperação", "frase de recuperacao", "frase semente",
        "frase di recupero", "frase mnemonica",
        "wiederherstellungsphrase", "wiederherstellungswörter",
        "wiederherstellungsworter", "wiederherstellungssatz",
        "助记词", "助記詞", "种子短语", "恢复短语",
        "ニーモニック", "シードフレーズ", "復元フレーズ", "リカバリーフレーズ",
        "복구 문구", "시드 문구", "fraza odzyskiwania", "fraza seed", "kurtarma ifade",
        "kurtarma cümle", "kurtarma cumle",
    )
)  # fmt: skip
# Ukrainian and Russian ("seed-фраза" is the English rule's), in the two
# cases a label or a sentence puts them in, as written, capitalised and in
# capitals (the "lower" view lowers ASCII letters only); in two rules, since
# the prefilter's reader of a pattern's heads (`reader`) gives up on one
# alternation of them all.
_SEED_WORDS_CYRILLIC = tuple(
    cased.encode()
    for word in (
        "сід-фраза", "сід-фразу", "сід фраза", "сід фразу", "сид-фраза", "сид-фразу",
        "сид фраза", "сид фразу",
        "мнемонічна фраза", "мнемонічну фразу", "мнемоническая фраза", "мнемоническую фразу",
    )
    for cased in (word, word[:1].upper() + word[1:], word.upper())
)  # fmt: skip
# A phrase's length named as its label ("12 words:", "24-word phrase"), or
# its standard ("BIP39:").
_SEED_COUNTS = (
    *(
        count + sep + b"word"
        for count in (b"12", b"15", b"18", b"21", b"24")
        for sep in (b" ", b"-")
    ),
    b"bip39",
    b"bip-39",
    b"bip 39",
)

# Words that name a one-time-password generator's shared secret: "TOTP
# seed", "2FA secret", "authenticator key", Hindi's "गुप्त कुंजी" (secret key).
_TOTP_WORDS = tuple(
    word.encode()
    for word in (
        "totp", "otp seed", "otp secret", "2fa secret", "2fa seed", "2fa key", "mfa secret",
        "mfa seed", "mfa key", "authenticator key", "authenticator secret", "गुप्त कुंजी",
    )
)  # fmt: skip
# The secret as authenticator apps show it: base32, whole or in groups of four.
_TOTP_SECRET = (
    r"(?:[:=\uff1a]|\bis\b)[ \t]*[\"'`]?"
    r"([a-z2-7]{16,64}|[a-z2-7]{4}(?: [a-z2-7]{4}){3,15})(?![a-z0-9])"
)


def _totp_secret(window: str) -> bool:
    """Base32 of 16 to 64 characters after the keyword's link, with a digit
    and a letter in it, so a word ("TOTP secret: rotated") is none."""
    found = text_pattern(_TOTP_SECRET).search(window.lower())
    if found is None:
        return False
    value = found.group(1).replace(" ", "")
    return any(c.isdigit() for c in value) and sum(c.isalpha() for c in value) >= 8


# Where a login is written as a bare pair: a server's management controller,
# a web server's or a router's admin login, a directory's bind account.
_LOGIN_PLACES = (
    b"idrac", b"ilo", b"ipmi", b"bmc", b"basic auth", b"htaccess", b"router admin",
    b"ldap bind", b"admin page",
)  # fmt: skip
# "user / password" or "user/password": the user right after a space, a colon
# or a comma (not a path's inner part), the password up to a space or the end.
_PAIR = r"(?:^|[\s:,(])[^\s/:]{1,128} ?/ ?([^\s/]{8,64})(?=[\s,;)]|$)"


def _generated_login(value: str) -> bool:
    """Both cases and a digit or a symbol, and not a product's name: a
    password symbol ("!", "@", "#", ...) or a short run of small letters
    ("Xk29vmQp", "R0ut3r"), where names are made of words ("OAuth2Bearer",
    "FreeIPMI2", "PowerEdge2024")."""
    has = (any(c.islower() for c in value), any(c.isupper() for c in value))
    if not (all(has) and any(c.isdigit() or not c.isalnum() for c in value)):
        return False
    symbol = any(not c.isalnum() and c not in "-._" for c in value)
    short = any(len(run) <= 2 for run in text_pattern(r"[a-z]+").findall(value[1:]))
    return (symbol or short) and password_looking(value)


def _login_pair(span: str) -> bool:
    """A `user / password` pair on the line after the place it logs in to."""
    return any(
        _generated_login(found.group(1).rstrip(".,;"))
        for found in text_pattern(_PAIR).finditer(span)
    )


def _sqlplus_login(span: str) -> bool:
    return password_looking(span.partition("/")[2])


def _seed_rule(words: tuple[bytes, ...], judge: Callable[[str], bool]) -> Rule:
    """A seed phrase after one of `words`, judged by `judge`."""
    return rule(
        "seed-phrase",
        SECRET,
        "lower",
        rb"(?:" + b"|".join(map(escape, words)) + rb")" + _AFTER_SEED_KEYWORD,
        judge,
        heads=words,
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
        "session-cookie",
        SECRET,
        "lower",
        rb"(?:" + b"|".join(_SESSION_WORDS) + rb")" + _SESSION_LINK + _COOKIE_VALUE,
        _session,
        heads=_SESSION_WORDS,
    ),
    rule(
        "extended-private-key",
        SECRET,
        "raw",
        rb"(?:" + b"|".join(_EXTENDED_PRIVATE) + rb")(?<![A-Za-z0-9]....)"
        rb"[1-9A-HJ-NP-Za-km-z]{107,108}(?![A-Za-z0-9])",
        _extended_private_key,
        heads=_EXTENDED_PRIVATE,
        run=111,
    ),
    rule(
        "seed-phrase",
        SECRET,
        "lower",
        rb"(?:(?:seed|mnemonic)(?:[ _-]?(?:phrase|words))?"
        rb"|(?:recovery|backup|wallet|secret)[ _-]?(?:phrase|words))" + _AFTER_SEED_KEYWORD,
        _english_seed_phrase,
        heads=(b"seed", b"mnemonic", b"recovery", b"backup", b"wallet", b"secret"),
    ),
    _seed_rule(_SEED_COUNTS, _english_seed_phrase),
    _seed_rule(_SEED_WORDS_ELSEWHERE, _seed_phrase),
    _seed_rule(_SEED_WORDS_CYRILLIC[::2], _seed_phrase),
    _seed_rule(_SEED_WORDS_CYRILLIC[1::2], _seed_phrase),
    # A seed phrase with no word naming it, as a quoted array of BIP-39 words:
    # from the first separator between two quoted words.
    *(
        rule(
            "seed-phrase",
            SECRET,
            "lower",
            quote + rb",[ \t]{0,4}" + quote + rb"[^\n\x00]{1,400}",
            _bip39_phrase,
            heads=(quote + b",",),
            before=_ARRAY_LEAD,
        )
        for quote in (b'"', b"'")
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
    # The same codes named in German and the Scandinavian languages.
    rule(
        "recovery-codes",
        SECRET,
        "lower",
        rb"(?:" + b"|".join(map(escape, _CODES_ELSEWHERE)) + rb")[a-z]{0,3}" + _AFTER_CODES_KEYWORD,
        _recovery_codes,
        heads=_CODES_ELSEWHERE,
    ),
    rule(
        "totp-secret",
        SECRET,
        "lower",
        rb"(?:" + b"|".join(map(escape, _TOTP_WORDS)) + rb")(?P<v>[^\n\x00]{1,160})",
        _totp_secret,
        heads=_TOTP_WORDS,
    ),
    rule(
        "bitlocker-recovery-key",
        SECRET,
        "lower",
        rb"(?:bitlocker|recovery[ _-]?(?:key|password))[^\n\x00]{0,80}?(?<![0-9-])"
        + _BITLOCKER_KEY,
        _bitlocker_key,
        heads=(
            b"bitlocker",
            b"recovery key",
            b"recovery_key",
            b"recovery-key",
            b"recoverykey",
            b"recovery password",
            b"recovery_password",
            b"recovery-password",
            b"recoverypassword",
        ),
    ),
    rule(
        "bitlocker-recovery-key",
        SECRET,
        "shape",
        # Not inside a longer run of groups, digits or letters.
        _BITLOCKER_SHAPE + rb"(?<![0Aa.-]" + _BITLOCKER_SHAPE + rb")(?![0Aa-])",
        _bare_bitlocker_key,
        heads=(_BITLOCKER_SHAPE,),
        run=len(_BITLOCKER_SHAPE),
    ),
    rule(
        "login-pair",
        SECRET,
        "lower",
        rb"(?:" + b"|".join(map(escape, _LOGIN_PLACES)) + rb")(?![a-z])(?P<v>[^\n\x00]{1,200})",
        _login_pair,
        heads=_LOGIN_PLACES,
    ),
    rule(
        "login-pair",
        SECRET,
        "lower",
        rb"sqlplus[ \t]{1,8}(?:-[a-z]{1,8}[ \t]{1,8}){0,3}"
        rb"(?P<v>[^\s/@\"'\x00]{1,64}/[^\s@\x00]{1,128})@",
        _sqlplus_login,
        heads=(b"sqlplus",),
    ),
)
