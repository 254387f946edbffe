"""Secret rules for the word "password" in other languages.

- As a key or a label: `Passwort: X`, `contraseña = X`, `пароль: X`,
  `密码：X` (a full-width colon is read as ":" in the folded spelling the
  guard also scans). The value is judged as an English password key's is
  (`config_values.assigned_password`), except that a bare single word of
  letters is read as prose: the guard knows no other language's describing
  words ("geändert"), so a word alone is a password only when long, or when
  it holds a digit or a symbol.
- Unlinked: "管理员密码 X", "Benutzer admin, Kennwort X" (a
  generated-looking word right after the word and a space), and Hindi's
  verb-last "पासवर्ड X है".
- A PIN's digits after a link: "카드 비밀번호 4자리: 1236" (not a year).
- In a sentence: "Das Passwort für die Datenbank lautet X", "La contraseña
  del servidor es X", "本番DBのパスワードは X です", "관리자 비밀번호는 X
  입니다", and "La password di Grafana è X" (the English word, another
  language's link): the value after a link word, a colon or a particle
  glued to the word, within a few words of it; a Chinese or Japanese
  particle may stand alone ("密码 是 X").
- Before its verb: the word as an object or with a possessive ending, then
  a value that looks generated ("parolası X olarak değiştirildi",
  "パスワードを X に変更", "비밀번호를 X로 변경").

A value read from a sentence ends where the sentence's Chinese, Japanese or
Korean script starts again: "暗証番号は4桁から6桁に" gives the value "4".

A key, secret or token named in Chinese, Japanese or Korean with a colon or
a particle (`API 密钥：<32 hex>`, `シークレットアクセスキー: X`, `API 키는 X`): a
generated-looking value of 30 characters or more, whatever its vendor's
format. An API key, an access key or a token named in another language
("مفتاح API هو X", "Ключ API: X", "Der API-Schlüssel lautet X"), or with the
English word and another language's link ("Il token è X", "AccessKey Secret
是 X"): a value of 20 characters or more that looks like a token
(`values.token_looking`).

The rules are built for each way a word is written in the guard's "lower"
view, which lowers ASCII letters only: a word with other letters is listed
as written in lower case, capitalised and in capitals ("пароль", "Пароль",
"ПАРОЛЬ"), and as the folded spelling writes it too: without its marks
("contrasena"), look-alike letters read as the letters they imitate.
"""

from __future__ import annotations

from tree_ring.guard.config_values import assigned_password
from tree_ring.guard.credentials import ASSIGN, LINE_VALUE
from tree_ring.guard.prose_credentials import TAIL, year_like
from tree_ring.guard.prose_values import ENGLISH_LOOKALIKES, LINKS, OTHER_LINKS, clean
from tree_ring.guard.rule import SECRET, Rule, escape, rule, text_pattern
from tree_ring.guard.values import (
    chosen_password,
    chosen_pin,
    inside_placeholder,
    password_looking,
    random_opaque,
    token_looking,
)

# By language: German, Dutch, Swedish, Norwegian and Danish (with their
# definite forms, "lösenordet", "passordet", "adgangskoden"), Finnish,
# French (and its abbreviation), Spanish, Portuguese, Polish, Czech and
# Slovak, Hungarian, Turkish, Romanian, Russian, Ukrainian and Bulgarian,
# Croatian, Serbian and Bosnian, Slovenian, Estonian, Lithuanian, Latvian,
# Greek, Chinese, Japanese, Korean, Arabic, Hebrew, Indonesian and Malay,
# Vietnamese, Hindi, Thai. Words that also mean something else as a key
# ("clave", a key; "šifra", a cipher or a product code) are left out
# ("šifra" has a stricter rule of its own, `CODE_WORDS`).
WORDS = (
    "passwort", "passwörter", "kennwort",
    "wachtwoord",
    "lösenordet", "lösenord", "passordet", "passord", "adgangskoden", "adgangskode",
    "salasana",
    "mot de passe", "mot_de_passe", "motdepasse", "mdp",
    "contraseña",
    "senha", "palavra-passe",
    "hasło",
    "heslo",
    "jelszó", "jelszava",
    "şifresi", "şifre", "parola", "parolası", "parolasını", "parolayı", "parolanız", "şifresini",
    "şifreyi", "şifreniz",
    "parolă",
    "пароль", "парола",
    "lozinka", "лозинка",
    "geslo",
    "parool",
    "slaptažodis",
    "parole",
    "κωδικός πρόσβασης", "κωδικός", "συνθηματικό",
    "密码", "密碼", "口令",
    "パスワード", "暗証番号",
    "비밀번호", "패스워드",
    "كلمة المرور", "كلمة السر",
    "סיסמה", "סיסמא",
    "kata sandi", "kata laluan",
    "mật khẩu", "mat khau",
    "पासवर्ड",
    "รหัสผ่าน",
)  # fmt: skip


# Every way the words are written in the "lower" view, each once: what
# `derived` gives, held as a literal so that building the rules reads no
# Unicode tables (tests/guard/test_password_words.py holds the two equal).
FORMS = (
    "passwort", "passwörter", "passworter", "passwÖrter", "kennwort", "wachtwoord", "lösenordet",
    "losenordet", "lÖsenordet", "lösenord", "losenord", "lÖsenord", "passordet", "passord",
    "adgangskoden", "adgangskode", "salasana", "mot de passe", "mot_de_passe", "motdepasse",
    "mdp", "contraseña", "contrasena", "contraseÑa", "senha", "palavra-passe", "hasło", "haslo",
    "hasŁo", "heslo", "jelszó", "jelszo", "jelszÓ", "jelszava", "şifresi", "sifresi", "Şifresi",
    "şifre", "sifre", "Şifre", "parola", "parolası", "parolasi", "parolasını", "parolasini",
    "parolayı", "parolayi", "parolanız", "parolaniz", "şifresini", "sifresini", "Şifresini",
    "şifreyi", "sifreyi", "Şifreyi", "şifreniz", "sifreniz", "Şifreniz", "parolă", "parolĂ",
    "пароль", "πapoлƅ", "Пароль", "Πapoлƅ", "ПАРОЛЬ", "ΠapoɅb", "парола", "πapoлa", "Парола",
    "Πapoлa", "ПАРОЛА", "ΠapoɅa", "lozinka", "лозинка", "лoɜᴎʜĸa", "Лозинка", "Ʌoɜᴎʜĸa",
    "ЛОЗИНКА", "Ʌo3Иhka", "geslo", "parool", "slaptažodis", "slaptazodis", "slaptaŽodis",
    "parole", "κωδικός πρόσβασης", "κωδικος προσβασης", "ĸωẟiĸoς πpooßaonς", "Κωδικός πρόσβασης",
    "Κωδικος προσβασης", "kωẟiĸoς πpooßaonς", "Κωδικός Πρόσβασης", "Κωδικος Προσβασης",
    "kωẟiĸoς Πpooßaonς", "ΚΩΔΙΚΌΣ ΠΡΌΣΒΑΣΗΣ", "ΚΩΔΙΚΟΣ ΠΡΟΣΒΑΣΗΣ", "kΩΔikoƩ ΠpoƩbaƩhƩ", "κωδικός",
    "κωδικος", "ĸωẟiĸoς", "Κωδικός", "Κωδικος", "kωẟiĸoς", "ΚΩΔΙΚΌΣ", "ΚΩΔΙΚΟΣ", "kΩΔikoƩ",
    "συνθηματικό", "συνθηματικο", "ouvonμaᴛiĸo", "Συνθηματικό", "Συνθηματικο", "Ʃuvonμaᴛiĸo",
    "ΣΥΝΘΗΜΑΤΙΚΌ", "ΣΥΝΘΗΜΑΤΙΚΟ", "Ʃynohmatiko", "密码", "密碼", "口令", "パスワード",
    "ハスワート", "八スワー卜", "暗証番号", "비밀번호", "패스워드", "كلمة المرور", "كلمة lلمرور",
    "كلمة السر", "كلمة lلسر", "סיסמה", "o'oמה", "סיסמא", "o'oמא", "kata sandi", "kata laluan",
    "mật khẩu", "mat khau", "mẬt khẨu", "पासवर्ड", "पासवरड", "รหัสผ่าน", "รหสผาน",
)  # fmt: skip


# Croatian, Serbian and Bosnian "šifra" (and its accusative "šifru") means a
# password, a cipher or a product's code ("šifra proizvoda 12345"): a rule of
# its own takes only a value that looks generated and is no code or name.
CODE_WORDS = ("šifra", "šifru", "шифра", "шифру")
# Its forms in the "lower" view, as `FORMS` holds those of `WORDS`.
CODE_FORMS = (
    "šifra", "sifra", "Šifra", "šifru", "sifru", "Šifru", "шифра", "шᴎɸpa", "Шифра",
    "Шᴎɸpa", "ШИФРА", "ШИΦpa", "шифру", "шᴎɸpy", "Шифру", "Шᴎɸpy", "ШИФРУ", "ШИΦpy",
)  # fmt: skip


def derived(words: tuple[str, ...] = WORDS) -> tuple[str, ...]:
    """The forms of `words` in the "lower" view, each once, in order."""
    from tree_ring.model.fold import skeleton, unmarked

    seen: dict[str, None] = {}
    for word in words:
        for cased in (word, word[:1].upper() + word[1:], word.title(), word.upper()):
            for form in (cased, unmarked(cased), skeleton(unmarked(cased))):
                seen.setdefault(form.encode().lower().decode(), None)
    return tuple(seen)


# Words that join the word to its value in other languages (`OTHER_LINKS`),
# less those that are English words too (`ENGLISH_LOOKALIKES`), which an
# English sentence may hold after "password" ("password on prod01 expired").
_LINKS = OTHER_LINKS
_ENGLISH = ENGLISH_LOOKALIKES
# Particles glued to the word in Chinese, Japanese and Korean ("密码是 X",
# "パスワードは X", "비밀번호는 X"), and a full-width colon.
_PARTICLES = ("是", "为", "為", "：", "は", "が", "는", "은", "이", "가")
# Those that stand as a word of their own too ("AccessKey Secret 是 X"):
# Korean's are always glued to the word before.
_SPACED_PARTICLES = frozenset({"是", "为", "為", "は", "が"})
# Particles that make the word an object ("パスワードを X に変更", "비밀번호를
# X로 바꿈"): no link, so the value must look generated (`password_looking`).
_OBJECT_PARTICLES = ("を", "를", "을")


def _cjk(char: str) -> bool:
    """Chinese, Japanese and Korean letters and punctuation, and full-width
    forms: what a value written in one of those sentences is glued to."""
    return (
        "\u2e80" <= char <= "\u9fff"
        or "\uac00" <= char <= "\ud7af"
        or "\uf900" <= char <= "\ufaff"
        or "\uff00" <= char <= "\uffef"
        or "\u1100" <= char <= "\u11ff"
    )


def _word(word: str) -> str:
    """A value read from a sentence: `clean`, and cut where the sentence's
    script starts again ("4桁から6桁に" holds the value "4", and
    "X，AccessKey" the value "X")."""
    for index, char in enumerate(word):
        if _cjk(char):
            word = word[:index]
            break
    return clean(word)


# How many words may say which password it is before the link.
_QUALIFIERS = 8
_SENTENCE_ENDS = (".", "!", "?", ";", "。", "！", "？")


def _value(tail: str, links: frozenset[str], *, colons: bool = True) -> str | None:
    """The word a sentence gives the password, read from the text after the
    word: after one of `links`, or (with `colons`) after a colon or "="."""
    particle = next((p for p in _PARTICLES if tail.startswith(p)), "")
    if particle:
        words = tail[len(particle) :].split()
        return _word(words[0]) if words else None
    if not (tail[:1].isspace() or tail[:1] in ":="):
        return None  # glued to a longer word: "Passwortmanager", "密码学"
    words = tail.split()
    for index, word in enumerate(words[: _QUALIFIERS + 1]):
        if colons and index == 0 and word[:1] in ":=" and len(word) > 1:
            return _word(word[1:])  # "Passwort :X"
        linked = word.lower() in links or word in _SPACED_PARTICLES
        if linked or (colons and word.endswith((":", "：", "="))):
            return _word(words[index + 1]) if index + 1 < len(words) else None
        if word.endswith(_SENTENCE_ENDS):
            return None
    return None


def _said(value: str | None) -> bool:
    if not value:
        return False
    return password_looking(value) or chosen_password(value, prose=True)


def _in_a_sentence(tail: str) -> bool:
    """The value after a link ("Das Passwort lautet X"), a PIN's digits after
    one ("카드 비밀번호 4자리: 1236"), or a generated-looking value right
    after the word ("Benutzer admin, Kennwort X")."""
    object_particle = next((p for p in _OBJECT_PARTICLES if tail.startswith(p)), "")
    if object_particle:
        words = tail[len(object_particle) :].split()
        return bool(words) and password_looking(_word(words[0]))
    value = _value(tail, LINKS | _LINKS)
    if _said(value):
        return True
    if value is not None and chosen_pin(value) and not year_like(value):
        return True
    words = tail.split()
    return tail[:1].isspace() and bool(words) and password_looking(_word(words[0]))


# What a password holds and a product code or a cipher's name does not.
_PASSWORD_SYMBOLS = frozenset("!@#$%^&*+=?~%")


def _generated_code_word(tail: str) -> bool:
    """After "šifra": a value that looks generated, with a small letter (codes
    are capitals and digits: "PRD-00123"), and a password's symbol or few
    letters that make words ("ChaCha20-Poly1305" names a cipher)."""
    value = _value(tail, LINKS | _LINKS)
    if value is None or not password_looking(value) or not any(c.islower() for c in value):
        return False
    if any(c in _PASSWORD_SYMBOLS for c in value):
        return True
    worded = sum(map(len, text_pattern(r"[A-Z]?[a-z]{2,}").findall(value)))
    return 2 * worded < len(value)


# Words written without a link before their value: Hindi puts its verb last
# ("पासवर्ड Kx7mQ2zp9w है"), and Chinese, Japanese and Korean notes often
# leave a space alone between the word and the password ("管理员密码 X").
_UNLINKED = ("पासवर्ड", "पासवरड", "密码", "密碼", "口令", "パスワード", "비밀번호", "패스워드")
_HINDI_VERBS = frozenset({"है", "हैं", "था", "थी"})


def _unlinked(tail: str) -> bool:
    """A generated-looking word right after the word and a space, or a
    password right before Hindi's verb at the sentence's end."""
    if not tail[:1].isspace():
        return False
    words = tail.split()
    if words and password_looking(_word(words[0])):
        return True
    for index, word in enumerate(words[1 : _QUALIFIERS + 1], 1):
        if word.rstrip("।.") in _HINDI_VERBS:
            value = clean(words[index - 1])
            return value.isascii() and _said(value)
    return False


def _english_word_in_a_sentence(tail: str) -> bool:
    # English sentences are the password-in-prose rule's: only another
    # language's link words here ("La password di Grafana è X").
    return _said(_value(tail, _LINKS - _ENGLISH, colons=False))


# Bytes before the word read for a placeholder's opening bracket: a few
# words in any script.
_PLACEHOLDER_LEAD = 48


def _assigned(window: str) -> bool:
    lead, _, span = window.partition("\x00")
    return not inside_placeholder(lead) and assigned_password(span, prose=True)


def _groups() -> list[tuple[bytes, ...]]:
    # Longest first, so "mot de passe" is not read as a shorter word; in
    # groups, since the prefilter's reader of a pattern's heads (`reader`)
    # gives up on one alternation of them all.
    forms = sorted((form.encode() for form in FORMS), key=len, reverse=True)
    return [tuple(forms[start : start + 32]) for start in range(0, len(forms), 32)]


def _either(forms: tuple[bytes, ...]) -> bytes:
    return rb"(?:" + b"|".join(map(escape, forms)) + rb")"


# Words for an API key, a secret or a token in Chinese, Japanese and Korean.
# "キー" and "키" (key) only with a word saying what key ("APIキー", "액세스
# 키"): alone they also name a cache's, a table's or a map's key.
_KEY_WORDS = tuple(
    word.encode()
    for word in (
        "密钥", "密鑰", "秘钥", "秘鑰", "令牌", "シークレット", "トークン", "토큰",
        *(
            qualifier + space + key
            for qualifier, key in (
                *((q, "キー") for q in ("api", "アクセス", "シークレット", "秘密", "認証")),
                *((q, "키") for q in ("api", "액세스", "시크릿", "비밀", "인증")),
            )
            for space in ("", " ")
        ),
    )
)  # fmt: skip
# The colon, ASCII or full-width, or a particle that links the name to its
# value ("API 密钥是 X", "APIキーは X", "API 키는 X"), then a value of letters and
# digits (and a vendor prefix's "_" or "-") of 30 characters or more.
_KEY_LINKS = b"|".join(escape(link.encode()) for link in (":", *_PARTICLES))
_KEY_VALUE = (
    rb"[ \t]{0,4}(?:" + _KEY_LINKS + rb")[ \t]{0,8}[\"'`]?"
    rb"(?P<v>[a-z0-9][a-z0-9_-]{29,255}+)(?![a-z0-9_-])"
)


# Words for an API key, an access key or a token in other languages:
# Arabic, Hebrew, Russian and Ukrainian, German, Spanish, French, Italian,
# Portuguese, Turkish, Polish, Dutch, Swedish, Czech, Indonesian and Hindi.
# A word for "key" only with a word saying which key ("clé API", "ключ
# доступа"): alone it also names a table's, a map's or a door's.
KEY_WORDS = (
    "مفتاح api", "مفتاح الوصول", "رمز الوصول", "الرمز المميز", "رمز مميز", "توكن", "מפתח api",
    "מפתח ה-api", "טוקן", "ключ api", "api-ключ", "api ключ", "ключ доступа", "ключ доступу",
    "токен", "api-schlüssel", "api schlüssel", "zugriffsschlüssel", "zugangsschlüssel",
    "clave de api", "clave de la api", "clave api", "clave de acceso", "clé api", "clé d'api",
    "clé de l'api", "clé d'accès", "jeton", "chiave api", "chiave dell'api",
    "chiave di accesso", "chave de api", "chave da api", "chave api", "chave de acesso",
    "api anahtarı", "erişim anahtarı", "klucz api", "klucz dostępu", "api-sleutel",
    "api sleutel", "toegangssleutel", "api-nyckel", "api-nyckeln", "åtkomstnyckel", "klíč api",
    "api klíč", "kunci api", "kunci akses", "api कुंजी", "एपीआई कुंजी", "टोकन",
)  # fmt: skip
# Their forms in the "lower" view, as `FORMS` holds those of `WORDS`.
KEY_FORMS = (
    "مفتاح api", "مفتlح api", "مفتاح الوصول", "مفتlح lلوصول", "رمز الوصول", "رمز lلوصول",
    "الرمز المميز", "lلرمز lلممىز", "رمز مميز", "رمز ممىز", "توكن", "מפתח api", "מפתח ה-api",
    "טוקן", "vlקl", "ключ api", "ĸлюч api", "Ключ api", "kлюч api", "КЛЮЧ api", "kɅloЧ api",
    "api-ключ", "api-ĸлюч", "api-Ключ", "api-kлюч", "api-КЛЮЧ", "api-kɅloЧ", "api ключ",
    "api ĸлюч", "api Ключ", "api kлюч", "api КЛЮЧ", "api kɅloЧ", "ключ доступа", "ĸлюч дocᴛyπa",
    "Ключ доступа", "kлюч дocᴛyπa", "Ключ Доступа", "kлюч Дocᴛyπa", "КЛЮЧ ДОСТУПА",
    "kɅloЧ ДoctyΠa", "ключ доступу", "ĸлюч дocᴛyπy", "Ключ доступу", "kлюч дocᴛyπy",
    "Ключ Доступу", "kлюч Дocᴛyπy", "КЛЮЧ ДОСТУПУ", "kɅloЧ ДoctyΠy", "токен", "ᴛoĸeʜ", "Токен",
    "toĸeʜ", "ТОКЕН", "tokeh", "api-schlüssel", "api-schlussel", "api-schlÜssel",
    "api schlüssel", "api schlussel", "api schlÜssel", "zugriffsschlüssel", "zugriffsschlussel",
    "zugriffsschlÜssel", "zugangsschlüssel", "zugangsschlussel", "zugangsschlÜssel",
    "clave de api", "clave de la api", "clave api", "clave de acceso", "clé api", "cle api",
    "clÉ api", "clé d'api", "cle d'api", "clÉ d'api", "clé de l'api", "cle de l'api",
    "clÉ de l'api", "clé d'accès", "cle d'acces", "clÉ d'accÈs", "jeton", "chiave api",
    "chiave dell'api", "chiave di accesso", "chave de api", "chave da api", "chave api",
    "chave de acesso", "api anahtarı", "api anahtari", "erişim anahtarı", "erisim anahtarı",
    "erisim anahtari", "eriŞim anahtari", "klucz api", "klucz dostępu", "klucz dostepu",
    "klucz dostĘpu", "api-sleutel", "api sleutel", "toegangssleutel", "api-nyckel",
    "api-nyckeln", "åtkomstnyckel", "atkomstnyckel", "Åtkomstnyckel", "klíč api", "klic api",
    "klÍČ api", "api klíč", "api klic", "api klÍČ", "kunci api", "kunci akses", "api कुंजी",
    "api कजी", "एपीआई कुंजी", "एपीआई कजी", "एपीअारइ कजी", "टोकन",
)  # fmt: skip
# A token or key a sentence gives is this long at least: shorter generated
# strings are ids and hashes' prefixes as often as credentials.
_KEY_LENGTH = 20


def _key_said(value: str | None) -> bool:
    return value is not None and len(value) >= _KEY_LENGTH and token_looking(value)


def _key_in_a_sentence(tail: str) -> bool:
    """ "Der API-Schlüssel lautet X", "مفتاح API هو X", "Токен: X"."""
    return _key_said(_value(tail, LINKS | _LINKS))


def _english_key_in_a_sentence(tail: str) -> bool:
    # "Il token è X", "El API key es X": the English word, another
    # language's link (English sentences are the prose rules').
    return _key_said(_value(tail, _LINKS - _ENGLISH, colons=False))


# The English words for a token or key that another language's sentence may
# hold ("Il token è X", "AccessKey Secret 是 X").
_ENGLISH_KEY_WORDS = (
    b"token", b"api key", b"api-key", b"apikey", b"api_key", b"secret", b"access key",
    b"accesskey", b"access_key", b"access-key",
)  # fmt: skip


def _key_groups() -> list[tuple[bytes, ...]]:
    forms = sorted((form.encode() for form in KEY_FORMS), key=len, reverse=True)
    return [tuple(forms[start : start + 32]) for start in range(0, len(forms), 32)]


OTHER_LANGUAGE_RULES: tuple[Rule, ...] = (
    *(
        rule(
            "password-other-language",
            SECRET,
            "lower",
            _either(forms) + tail,
            judge,
            heads=forms,
            before=before,
        )
        for tail, judge, before in (
            (ASSIGN + LINE_VALUE, _assigned, _PLACEHOLDER_LEAD),
            (TAIL, _in_a_sentence, 0),
        )
        for forms in _groups()
    ),
    rule(
        "password-other-language",
        SECRET,
        "lower",
        _either(tuple(form.encode() for form in CODE_FORMS)) + TAIL,
        _generated_code_word,
        heads=tuple(form.encode() for form in CODE_FORMS),
    ),
    rule(
        "password-other-language",
        SECRET,
        "lower",
        _either(tuple(word.encode() for word in _UNLINKED)) + TAIL,
        _unlinked,
        heads=tuple(word.encode() for word in _UNLINKED),
    ),
    rule(
        "password-other-language",
        SECRET,
        "lower",
        rb"password" + TAIL,
        _english_word_in_a_sentence,
        heads=(b"password",),
    ),
    rule(
        "key-other-language",
        SECRET,
        "lower",
        _either(_KEY_WORDS) + _KEY_VALUE,
        random_opaque,
        heads=_KEY_WORDS,
    ),
    *(
        rule(
            "key-other-language",
            SECRET,
            "lower",
            _either(forms) + TAIL,
            _key_in_a_sentence,
            heads=forms,
        )
        for forms in _key_groups()
    ),
    *(
        rule(
            "key-other-language",
            SECRET,
            "lower",
            word + TAIL,
            _english_key_in_a_sentence,
            heads=(word,),
        )
        for word in _ENGLISH_KEY_WORDS
    ),
)
