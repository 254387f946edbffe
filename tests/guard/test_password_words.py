"""The word for "password" in other languages, as a key: a password it is
given is refused as an English key's is, in lower case, capitalised and in
capitals, after ":", "=" or a full-width colon; a describing word, a
sentence or a stand-in after it stays stored."""

from __future__ import annotations

import pytest

from tree_ring.guard import check_fields, find_secret
from tree_ring.guard.password_words import (
    CODE_FORMS,
    CODE_WORDS,
    FORMS,
    KEY_FORMS,
    KEY_WORDS,
    WORDS,
    derived,
)
from tree_ring.model.errors import SecretRefused


def test_the_forms_are_those_the_words_give() -> None:
    assert derived() == FORMS


def _cases(word: str) -> list[str]:
    return [word, word[:1].upper() + word[1:], word.upper()]


REFUSED = {
    f"{key}{sep}{value}": "password-other-language"
    for word in WORDS
    for key in _cases(word)
    for sep, value in ((": ", "Geheim123!x"), (" = ", "'Tr0ub4dor&3'"), ("：", "qwerty123"))
}


@pytest.mark.parametrize(("text", "rule"), REFUSED.items(), ids=list(range(len(REFUSED))))
def test_a_password_after_the_word_is_refused(text: str, rule: str) -> None:
    assert find_secret(text) == rule
    with pytest.raises(SecretRefused) as caught:
        check_fields({"summary": "Login notes", "details": f"Staging box. {text}"})
    assert (caught.value.rule, caught.value.field) == (rule, "details")


STORED = [
    f"{key}{sep}{value}"
    for word in WORDS
    for key in _cases(word)[1:2]
    for sep, value in (
        (": ", "geändert"),  # one word of letters: a describing word
        (": ", "siehe Tresor im Wiki"),  # a sentence
        (" = ", "os.environ['DB_PASSWORD']"),  # a reference
        (": ", "${DB_PASSWORD}"),  # a stand-in
        ("：", "见保险库"),
    )
]


@pytest.mark.parametrize("text", STORED, ids=list(range(len(STORED))))
def test_a_description_after_the_word_is_stored(text: str) -> None:
    assert find_secret(text) is None
    assert check_fields({"summary": "Login notes", "details": text}) == "normal"


SENTENCES = {
    "Das Passwort für die Staging-Datenbank lautet Kx7!mQ2pL": "password-other-language",
    "La contraseña del servidor FTP es Welcome1": "password-other-language",
    "Le mot de passe du compte admin est CopperMeadow37!": "password-other-language",
    "A senha do banco de produção é Tr0ub4dor&3": "password-other-language",
    "Het wachtwoord voor de VPN is OtterStaple49#": "password-other-language",
    "Пароль от админки: cxuvot%0305Owwb": "password-other-language",
    "测试服务器的root密码是 h-^q_gv4YE&olHCLNR": "password-other-language",
    "本番DBのパスワードは VelvetMaple80$ です": "password-other-language",
    "관리자 비밀번호는 oFb%_4-bBe@katu8 입니다": "password-other-language",
    "Hasło do serwera to Zielony2024!": "password-other-language",
    # the English word, another language's link
    "La password di Grafana è Dragon1987": "password-other-language",
    "El password es Summer2024!": "password-other-language",
}


@pytest.mark.parametrize(("text", "rule"), SENTENCES.items(), ids=list(range(len(SENTENCES))))
def test_a_password_a_sentence_gives_is_refused(text: str, rule: str) -> None:
    assert find_secret(text) == rule


SENTENCES_STORED = [
    # a describing word, a rule about passwords, where it is kept
    "Das Passwort ist abgelaufen",
    "Das Passwort muss mindestens 12 Zeichen haben.",
    "Passwortmanager ist Pflicht: KeePass2 oder Bitwarden",
    "La contraseña es obligatoria",
    "Le mot de passe est réinitialisé tous les 90 jours",
    "A senha é trocada a cada 90 dias",
    "Het wachtwoord is verlopen",
    "Пароль хранится в Vault",
    "パスワードは保管庫にあります",
    "비밀번호는 금고에 있습니다",
    "密码是必填项",
    "La password è scaduta",
    "El password es el mismo de siempre",
    # English sentences stay the English rule's: no new reading of them
    "password on prod01 expired",
    "password length is 12chars",
    "password reset flow: step2 sends the mail",
    "password to the vault is in 1Password",
]


@pytest.mark.parametrize("text", SENTENCES_STORED)
def test_a_sentence_about_a_password_is_stored(text: str) -> None:
    assert find_secret(text) is None


def test_the_code_words_forms_are_those_they_give() -> None:
    assert derived(CODE_WORDS) == CODE_FORMS


@pytest.mark.parametrize(
    "text",
    [
        "šifra za wifi je Kx7!mQ2pzT",
        "Šifra: Tr0ub4dor&3",
        "sifra za server glasi bR4v0!Xq9",
        "шифра за базу: Zq8#nLw2Rt",
        "ŠIFRA: hT6$wPq91Lm",
        "Unesi šifru: w7Yb3nQx2K",
    ],
)
def test_sifra_before_a_generated_password_is_refused(text: str) -> None:
    assert find_secret(text) == "password-other-language"


@pytest.mark.parametrize(
    "text",
    [
        "šifra proizvoda 12345",
        "šifra artikla: PRD-00123",
        "Šifra artikla je AB12CD34",
        "šifra je AES-256",
        "šifra je ChaCha20-Poly1305",
        "Šifra radnika: Marko1985",
        "šifra kupca je Kupac2024",
        "dešifrator: Kx7!mQ2pzT",
    ],
)
def test_sifra_before_a_code_or_a_cipher_is_not(text: str) -> None:
    assert find_secret(text) is None


def test_the_key_words_forms_are_those_they_give() -> None:
    assert derived(KEY_WORDS) == KEY_FORMS


TOKEN = "Zk3q9XvB7mWp2LdR8sTn4YcH6jFa1Ue5GoQiLm0x"


@pytest.mark.parametrize(
    "text",
    [
        f"مفتاح API هو {TOKEN}",
        f"رمز الوصول: {TOKEN}",
        f"Ключ API: {TOKEN}",
        f"API-ключ — {TOKEN}",
        f"токен доступа: {TOKEN}",
        f"Der API-Schlüssel lautet {TOKEN}",
        f"La clave de la API es {TOKEN}",
        f"La clé API est {TOKEN}",
        f"Il token è {TOKEN}",
        f"El API key es {TOKEN}",
        f"API anahtarı: {TOKEN}",
        f"מפתח API: {TOKEN}",
        f"API कुंजी: {TOKEN}",
    ],
)
def test_a_key_or_token_named_in_another_language_is_refused(text: str) -> None:
    assert find_secret(text) == "key-other-language"


@pytest.mark.parametrize(
    "text",
    [
        "El token es válido por 24 horas",
        "Il token è scaduto ieri",
        "Токен: см. vault/ci-token",
        "Der API-Schlüssel ist in 1Password unter CI_API_KEY abgelegt",
        "Der Primärschlüssel ist 550e8400-e29b-41d4-a716-446655440000",
        "La clé API est dans la variable STRIPE_SECRET_KEY",
        "der token ist ABCDEF0123456789ABCDEF0123456789ABCDEF01",
        f"Il token è {TOKEN[:16]}",  # shorter than a key
        f"the token is to be rotated; {TOKEN[:12]} is its id prefix",
    ],
)
def test_a_key_word_before_no_key_is_not(text: str) -> None:
    assert find_secret(text) is None
