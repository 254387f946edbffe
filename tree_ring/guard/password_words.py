"""The word for "password" in other languages, as a config key or a label:
`Passwort: X`, `contraseña = X`, `пароль: X`, `密码：X` (a full-width colon
is read as ":" in the folded spelling the guard also scans).

The credential rules (`credentials`) build one rule for each way a word is
written in the guard's "lower" view, which lowers ASCII letters only: a
word with other letters is listed as written in lower case, capitalised and
in capitals ("пароль", "Пароль", "ПАРОЛЬ"), and as the folded spelling
writes it too: without its marks ("contrasena"), look-alike letters read as
the letters they imitate.
"""

from __future__ import annotations

# By language: German, Dutch, Swedish, Norwegian and Danish, Finnish,
# French, Spanish, Portuguese, Polish, Czech and Slovak, Hungarian, Turkish,
# Romanian, Russian, Ukrainian and Bulgarian, Greek, Chinese, Japanese,
# Korean, Arabic, Hebrew, Indonesian and Malay, Vietnamese, Hindi, Thai.
# Words that also mean something else as a key ("clave", a key; "code")
# are left out.
WORDS = (
    "passwort", "kennwort",
    "wachtwoord",
    "lösenord", "passord", "adgangskode",
    "salasana",
    "mot de passe", "mot_de_passe", "motdepasse",
    "contraseña",
    "senha", "palavra-passe",
    "hasło",
    "heslo",
    "jelszó",
    "şifre", "parola",
    "parolă",
    "пароль", "парола",
    "κωδικός πρόσβασης", "συνθηματικό",
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
    "passwort", "kennwort", "wachtwoord", "lösenord", "losenord",
    "lÖsenord", "passord", "adgangskode", "salasana",
    "mot de passe", "mot_de_passe", "motdepasse", "contraseña",
    "contrasena", "contraseÑa", "senha", "palavra-passe", "hasło",
    "haslo", "hasŁo", "heslo", "jelszó", "jelszo", "jelszÓ",
    "şifre", "sifre", "Şifre", "parola", "parolă", "parolĂ",
    "пароль", "πapoлƅ", "Пароль", "Πapoлƅ", "ПАРОЛЬ", "ΠapoɅb",
    "парола", "πapoлa", "Парола", "Πapoлa", "ПАРОЛА", "ΠapoɅa",
    "κωδικός πρόσβασης", "κωδικος προσβασης", "ĸωẟiĸoς πpooßaonς",
    "Κωδικός πρόσβασης", "Κωδικος προσβασης", "kωẟiĸoς πpooßaonς",
    "Κωδικός Πρόσβασης", "Κωδικος Προσβασης", "kωẟiĸoς Πpooßaonς",
    "ΚΩΔΙΚΌΣ ΠΡΌΣΒΑΣΗΣ", "ΚΩΔΙΚΟΣ ΠΡΟΣΒΑΣΗΣ", "kΩΔikoƩ ΠpoƩbaƩhƩ",
    "συνθηματικό", "συνθηματικο", "ouvonμaᴛiĸo", "Συνθηματικό",
    "Συνθηματικο", "Ʃuvonμaᴛiĸo", "ΣΥΝΘΗΜΑΤΙΚΌ", "ΣΥΝΘΗΜΑΤΙΚΟ",
    "Ʃynohmatiko", "密码", "密碼", "口令", "パスワード", "ハスワート", "八スワー卜",
    "暗証番号", "비밀번호", "패스워드", "كلمة المرور", "كلمة lلمرور",
    "كلمة السر", "كلمة lلسر", "סיסמה", "o'oמה", "סיסמא", "o'oמא",
    "kata sandi", "kata laluan", "mật khẩu", "mat khau",
    "mẬt khẨu", "पासवर्ड", "पासवरड", "รหัสผ่าน", "รหสผาน",
)  # fmt: skip


def derived() -> tuple[str, ...]:
    """The forms of `WORDS` in the "lower" view, each once, in order."""
    from tree_ring.model.fold import skeleton, unmarked

    seen: dict[str, None] = {}
    for word in WORDS:
        for cased in (word, word[:1].upper() + word[1:], word.title(), word.upper()):
            for form in (cased, unmarked(cased), skeleton(unmarked(cased))):
                seen.setdefault(form.encode().lower().decode(), None)
    return tuple(seen)
