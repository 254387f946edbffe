"""Secret rules for credentials without a provider's format: passwords and
keys assigned in code and config, carried in headers, URLs and connection
strings (a sentence's are `prose_credentials`'s, a command line's
`command_lines`'s; `table` puts them in order).

Every pattern here starts at a keyword ("password", "token", "mysql",
"bearer", "://") in the view it is written for; the validator then reads the
value. A value counts only when it looks like a credential: random enough,
and not a variable, template, placeholder, identifier, path or a vendor's
documented example (`values`). So "the password is stored in vault" and
"password = os.environ[...]" stay ordinary, while "the staging admin password
is I9Tt9en2U6l5vM4j" and "mysql -pS3cr3t!x" do not.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tree_ring.guard.config_values import (
    CSV_RULES,
    assigned_password,
    yaml_password_rule,
)
from tree_ring.guard.rule import SECRET, Rule, escape, rule, table, text_pattern
from tree_ring.guard.values import (
    chosen_pin,
    literal_secret,
    random_opaque,
    stand_in,
    url_password,
)

# --------------------------------------------------------------------------
# Assignments: `key = value` in code, .env, YAML, JSON, TOML, INI, XML.

# Separator between a key name and its value: an optional closing quote of the
# key, an optional type annotation (`password: str = "..."`), then `=`, `:`,
# `:=`, `==`, `=>` or `>` (`<password>...`: an element's value, which starts
# with an ASCII character or runs to its closing tag, where after a
# placeholder's close, "<your-api-key>", a sentence in another script goes
# on); or, after a quoted key, a comma (`define('DB_PASSWORD', '...')`,
# `config.get("api_key", "...")`) or an XML value attribute
# (`<add key="Password" value="..."/>`).
ASSIGN = (
    rb"(?:[\"'`]?\]?[ \t]{0,16}"
    rb"(?::[ \t]{0,16}[a-z_&][a-z0-9_.\[\]|, <>&']{0,64}+[ \t]{0,16}(?==))?"
    rb"(?:=>|:=|==|=|:|>(?=[ \t]{0,16}[!-~]|[^<\n\x00]{1,256}+</))"
    rb"|[\"'`][ \t]{0,16},|[\"'][ \t]{1,16}value[ \t]{0,4}=)[ \t]{0,16}"
    # The value inside a list or a nested object: `{"password": ["..."]}`,
    # `{"secret": {"value": "..."}}`, two levels at most.
    rb"(?:(?:\[|\{[ \t]{0,16}[\"']?[a-z_]{1,32}[\"']?[ \t]{0,16}:)[ \t]{0,16}){0,2}"
)
# The value: a quoted literal (opening quote kept so the validator knows it is
# quoted; up to 256 characters) or a bare run that stops where code or a
# query string would continue. Values shorter than the minimum secret length
# never match, so "token: str" lines in a large YAML dump cost nothing.
_MIN = 8


def _value_of(least: int) -> bytes:
    return (
        rb"(?P<v>\"[^\"\n\x00]{%d,256}+|'[^'\n\x00]{%d,256}+|`[^`\n\x00]{%d,256}+"
        rb"|[^\s\"'`,;&)\]}<\x00]{%d,256}+)"
    ) % ((least,) * 4)


_VALUE = _value_of(_MIN)
# After a key that names a password, the rest of the line: the validator
# reads the value from its start and whether words follow it (see
# `assigned_password`). Four characters at least, as `chosen_password`.
LINE_VALUE = rb"(?P<v>[^\n\x00]{4,256}+)"

# A cheap look-ahead for the separator, checked before a rule's look-behinds:
# "token" and "key" are common words, and most occurrences have no separator.
_SEPARATOR_NEXT = rb"(?=[\"'`]?\]?[ \t]{0,16}[:=>]|[\"'`][ \t]{0,16}[,v])"


# Bytes before a keyword that a validator reads for the word before it.
BEFORE = 32


def after_names(
    names: Sequence[bytes],
    seps: Sequence[bytes],
    validator: Callable[[str], bool],
    *,
    required: bool,
) -> Callable[[str], bool]:
    """`validator` on the value, given the text before the keyword (see
    `Rule.before`): only if one of `names` and a separator end that text
    (`required`), or only if none does. One look-behind per name and separator
    in the pattern would make it slow to compile; here it is one search."""
    source = (
        r"(?:" + "|".join(name.decode() for name in names) + r")"
        r"(?:" + "|".join(escape(sep).decode() for sep in seps) + r")$"
    )

    def judge(window: str) -> bool:
        before, _, value = window.partition("\x00")
        named = text_pattern(source).search(before.lower()) is not None
        return named == required and validator(value)

    return judge


# Keys ending in "token" that hold no credential: pagination cursors
# (NextToken, pageToken) and idempotency or sync markers (ClientToken).
NOT_CREDENTIAL_TOKENS = (
    b"next", b"page", b"pagination", b"continuation", b"cursor", b"client", b"idempotency",
    b"sync", b"resume", b"request", b"lock", b"forward", b"backward", b"export", b"import",
    b"public", b"publishable",
)  # fmt: skip

# Key names ending in "key" that name a credential. Others (primary_key,
# cache_key, public_key) are left to the stricter key-in-prose rule.
_SECRET_KEY_NAMES = (
    b"api", b"access", b"secret", b"private", b"app", b"application", b"license",
    b"licence", b"master", b"encryption", b"signing", b"auth", b"client", b"consumer",
    b"account", b"service", b"admin", b"subscription", b"storage", b"webhook",
    b"integration", b"deploy", b"ingest", b"management", b"root", b"server", b"hmac",
    b"jwt", b"shared", b"tenant", b"partner", b"merchant", b"bot", b"session", b"cipher",
)  # fmt: skip
_KEY_SEPARATORS = (b"", b"_", b"-", b".", b" ")

# Keys that name a password outright: "password", "passwd", "passphrase",
# "pwd" as a whole word (not "?pwd=" in a meeting link). A value they are
# given is a password whatever its entropy (`chosen_password`).
_NAMED_PASSWORD_KEY = (
    rb"p(?:assw(?:or)?d(?!(?<=\S:passwd):)(?!(?<=\S:password):)|assphrase|wd(?<![a-z0-9?&]pwd))"
)
# Keys that may name one: "passcode" (a meeting's, as often as not); "pass"
# and "pw" as whole words ("DB_PASS", not "bypass"); "SSHPASS". Their values
# count when random enough (`literal_secret`).
_OTHER_PASSWORD_KEY = (
    rb"p(?:asscode|ass(?<![a-z0-9]pass)|ass(?<=sshpass)(?<![a-z0-9]sshpass)|w(?<![a-z0-9]pw))"
)
# "PIN", "pin_code", "SIM_PIN" ("spin" and "ping" are no key).
_PIN_KEY = rb"pin(?<![a-z0-9]pin)(?:_?code)?"


def _assigned_pin(span: str) -> bool:
    value = span.strip()
    if value[:1] in ("'", '"', "`"):
        value = value[1:].partition(value[0])[0]
    return chosen_pin(value)


ASSIGNMENT_RULES: tuple[Rule, ...] = table(
    # The key only has to END with the word (DB_PASSWORD, clientSecret,
    # accessToken); the validator decides whether the value is a literal
    # secret or code that fetches one (`os.environ[...]`, `get_token()`,
    # `${TOKEN}`). A word glued to a ":" after another word and followed by
    # another ":" is an ARN segment ("arn:...:secret:name"), not a key; given
    # a value by "=" it is one ("prod:password=..."), and so it is after a
    # space (Ruby's `:password => "..."`). After "/" or "\" it is one too, as after "-" or
    # ".": "cfg/token=..." assigns a value, while a path ("/etc/passwd",
    # "cfg/token.txt") has no separator and value after the word.
    rule(
        "password-assignment",
        SECRET,
        "lower",
        _NAMED_PASSWORD_KEY + ASSIGN + LINE_VALUE,
        assigned_password,
        heads=(b"pass", b"pw"),
    ),
    # YAML's block scalars, tags, anchors and values on the next line.
    yaml_password_rule(_NAMED_PASSWORD_KEY, (b"pass", b"pw")),
    # A CSV's rows under a header that names a password column.
    CSV_RULES,
    rule(
        "password-assignment",
        SECRET,
        "lower",
        _OTHER_PASSWORD_KEY + ASSIGN + _VALUE,
        literal_secret,
        heads=(b"pass", b"pw"),
    ),
    rule(
        "password-assignment",
        SECRET,
        "lower",
        _PIN_KEY + ASSIGN + _value_of(4),
        _assigned_pin,
        heads=(b"pin",),
    ),
    rule(
        "secret-assignment",
        SECRET,
        "lower",
        rb"secret(?!(?<=\S:secret):)" + ASSIGN + _VALUE,
        literal_secret,
        heads=(b"secret",),
    ),
    rule(
        "secret-assignment",
        SECRET,
        "lower",
        rb"cred(?:entials?|s)" + ASSIGN + _VALUE,
        literal_secret,
        heads=(b"cred",),
    ),
    rule(
        "token-assignment",
        SECRET,
        "lower",
        rb"token" + _SEPARATOR_NEXT + rb"(?!(?<=\S:token):)" + ASSIGN + _VALUE,
        after_names(NOT_CREDENTIAL_TOKENS, (b"", b"_", b"-"), literal_secret, required=False),
        heads=(b"token",),
        before=BEFORE,
    ),
    rule(
        "api-key-assignment",
        SECRET,
        "lower",
        rb"key(?:_base)?" + _SEPARATOR_NEXT + ASSIGN + _VALUE,
        after_names(_SECRET_KEY_NAMES, _KEY_SEPARATORS, literal_secret, required=True),
        heads=(b"key",),
        before=BEFORE,
    ),
)


# --------------------------------------------------------------------------
# Credentials in headers and URLs


# An opaque token after "Bearer"; base64 after "Basic".
_OPAQUE = rb"(?P<v>[a-z0-9._~+/-]{20,4096}+=*)"
_BASE64 = rb"(?P<v>[a-z0-9+/]{8,400}+={0,2})(?![a-z0-9+/=])"


def _basic_credentials(span: str) -> bool:
    """Base64 of "user:password" (HTTP Basic, Docker's config.json, .npmrc)."""
    import base64  # here, not at import: it imports `re`, which the brief never needs

    value = span.strip("\"' ")
    try:
        text = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode("ascii")
    except ValueError:  # binascii.Error is one: not base64, or not ASCII
        return False
    user, colon, password = text.partition(":")
    if not colon or not text.isprintable() or len(password) < 4:
        return False
    return password != user and not stand_in(password, quoted=True)


# How far back a DSN's "user:password" may start before its "@tcp(".
_DSN_LEAD = 160


def _go_dsn(window: str) -> bool:
    """The "user:password" right before "@tcp(": the last word of the text
    before it, after a quote, a space or an "="."""
    lead = window.partition("\x00")[0]
    credentials = text_pattern(r"[^\s\"'`=]*$").search(lead)
    return (
        credentials is not None and ":" in credentials.group() and url_password(credentials.group())
    )


HEADER_RULES: tuple[Rule, ...] = table(
    # "Authorization: Bearer <opaque token>" copied out of a curl command, and
    # the GitHub ("token"), Discord ("Bot") and Okta ("SSWS") spellings of it.
    rule(
        "bearer-token",
        SECRET,
        "lower",
        rb"bearer[ \t]{1,16}" + _OPAQUE,
        random_opaque,
        heads=(b"bearer",),
    ),
    rule(
        "bearer-token",
        SECRET,
        "lower",
        rb"authorization:[ \t]{0,8}(?:token|bot)[ \t]{1,16}" + _OPAQUE,
        random_opaque,
        heads=(b"authorization:",),
    ),
    rule(
        "bearer-token",
        SECRET,
        "lower",
        rb"ssws[ \t]{1,16}" + _OPAQUE,
        random_opaque,
        heads=(b"ssws",),
    ),
    # Base64 "user:password": HTTP Basic, Docker's config.json, .npmrc `_auth`.
    rule(
        "basic-auth",
        SECRET,
        "lower",
        rb"basic[ \t]{1,8}" + _BASE64,
        _basic_credentials,
        heads=(b"basic",),
    ),
    rule(
        "basic-auth",
        SECRET,
        "lower",
        rb"auth(?:(?<=\"auth)\"[ \t]{0,4}:[ \t]{0,4}\"|(?<=_auth)[ \t]{0,4}=[ \t]{0,4})" + _BASE64,
        _basic_credentials,
        heads=(b"auth",),
    ),
    # scheme://user:password@host: connection strings carry live passwords.
    rule(
        "url-password",
        SECRET,
        "raw",
        rb"://(?<=[A-Za-z0-9.+-]://)(?P<v>[^\s:/@?#\x00]{0,128}+(?::[^\s/\x00]{1,256})?)@"
        rb"(?=[A-Za-z0-9\[_])",
        url_password,
        heads=(b"://",),
    ),
    # Go's MySQL DSN, which has no scheme: user:password@tcp(host:3306)/db.
    rule(
        "url-password",
        SECRET,
        "lower",
        rb"@(?:tcp|unix|udp)\(",
        _go_dsn,
        heads=(b"@tcp(", b"@unix(", b"@udp("),
        before=_DSN_LEAD,
    ),
)
