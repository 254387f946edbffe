"""Where a value sits in a sentence of a language that is not English, and
what is no value at all.

- A key named by the English words and linked by a Chinese or Japanese
  particle standing alone ("AccessKey Secret 是 X"); a key word in Chinese,
  Japanese or Korean linked by its particle instead of a colon ("API 密钥是
  X", "APIキーは X", "API 키는 X").
- The word for password as an object or with a possessive ending, its value
  next and the verb after it: Turkish "parolası X olarak değiştirildi",
  Japanese "パスワードを X に変更", Korean "비밀번호를 X로 변경"; the value
  must look generated there.
- No value: a statement glued to a particle ("暗証番号は4桁から6桁に"),
  an empty key's neighbour in a list of empty keys ("KEY= OTHER_KEY="), and a
  sentence in another script after a placeholder's close ("<your-api-key>
  を...").

Each refused case is stored by the rules without these readings, and most
cases with no value were refused by them, so the tests can fail.
"""

from __future__ import annotations

import pytest

from tree_ring.guard import find_secret

ALIYUN_SECRET = "vumz4tw7tNAV4Mc2Sbco33VJbyEbjP"
KEY_30 = "a8f3k2m9q4x7z1p6r5t0w3y8u2i4o6e9"
PASSWORD = "Kx9#mP2qLz"

KEYS = [
    f"阿里云 AccessKey Secret 是 {ALIYUN_SECRET}，AccessKey ID 见 1Password",
    f"AccessKey Secret是{ALIYUN_SECRET}",
    f"client secret 为 {ALIYUN_SECRET}",
    f"access key は {ALIYUN_SECRET} です",
    f"API 密钥是 {KEY_30}",
    f"APIキーは {KEY_30} です",
    f"API 키는 {KEY_30} 입니다",
    f"토큰이 {KEY_30}",
]


@pytest.mark.parametrize("text", KEYS, ids=list(range(len(KEYS))))
def test_a_key_after_a_particle_is_refused(text: str) -> None:
    assert find_secret(text) == "key-other-language"


PASSWORDS = [
    "Veritabanı parolası Sunflower278?nbl olarak değiştirildi",
    f"Sunucu şifresini {PASSWORD} olarak güncelledim",
    f"Yeni şifreyi {PASSWORD} yaptım",
    f"Yeni parolanız: {PASSWORD}",
    f"DBのパスワードを {PASSWORD} に変更しました",
    f"パスワードを{PASSWORD}に変更しました",
    f"관리자 비밀번호를 {PASSWORD}로 변경했습니다",
    f"비밀번호을 {PASSWORD}으로 바꿨어요",
]


@pytest.mark.parametrize("text", PASSWORDS, ids=list(range(len(PASSWORDS))))
def test_a_password_before_its_verb_is_refused(text: str) -> None:
    assert find_secret(text) == "password-other-language"


NO_VALUE = [
    # A statement about the value, glued to the particle.
    "暗証番号は4桁から6桁にしてください",
    "パスワードは8文字以上にしてください",
    "密码是必填项，长度至少8位",
    "비밀번호는8자이상입니다",
    # Keys left empty: the next key is no value.
    ".env.example: DATABASE_URL= REDIS_URL= STRIPE_SECRET_KEY= OPENAI_API_KEY=",
    "api_key= secret_key= auth_token= client_secret=",
    "SECRET_KEY: API_KEY: ACCESS_TOKEN:",
    # A placeholder, then a sentence in another script.
    "<your-api-key> を自分のキーに置き換えてください",
    "<your-api-key>を自分のキーに置き換えてください",
    "<api-token>替换为你自己的令牌",
    "<your-secret-key> 를 실제 키로 바꾸세요",
]


@pytest.mark.parametrize("text", NO_VALUE, ids=list(range(len(NO_VALUE))))
def test_no_value_is_stored(text: str) -> None:
    assert find_secret(text) is None


NEAR = [
    # The shapes above with a word, not a generated value.
    "Veritabanı parolası yarın olarak değiştirilecek",
    "parolası değiştirildi",
    "Şifreyi unuttum, sıfırlama bağlantısı gönderildi",
    "parolanız en az 8 karakter olmalı",
    "パスワードを変更してください",
    "パスワードを password に変更",
    "비밀번호를 변경하세요",
    "AccessKey Secret 是 在控制台查看",
    "secret 是 必填项",
    "API 密钥是 在环境变量里",
]


@pytest.mark.parametrize("text", NEAR, ids=list(range(len(NEAR))))
def test_a_word_in_the_same_place_is_stored(text: str) -> None:
    assert find_secret(text) is None


REFUSED_STILL = {
    # A key given a value after the empty ones, and XML's element values.
    "STRIPE_SECRET_KEY= OPENAI_API_KEY=x8Kd92jfLq0Zp3RtAbQw": "api-key-assignment",
    "API_KEY= SECRET_KEY=x8Kd92jfLq0Zp3Rt": "api-key-assignment",
    "<api_key>x8Kd92jfLq0Zp3RtAb</api_key>": "api-key-assignment",
    "<apiKey>鍵x8Kd92jfLq0Zp3RtAb</apiKey>": "api-key-assignment",
    "<password>Sunflower278?nbl</password>": "password-assignment",
    "パスワードは Kx9#mP2qLz です": "password-other-language",
}


@pytest.mark.parametrize(
    ("text", "rule"), REFUSED_STILL.items(), ids=list(range(len(REFUSED_STILL)))
)
def test_a_value_next_to_those_is_still_refused(text: str, rule: str) -> None:
    assert find_secret(text) == rule
