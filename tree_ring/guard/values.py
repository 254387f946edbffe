"""What a candidate secret value looks like: the checks validators share.

A pattern finds where a secret could be; these decide whether the text
there is one. Three questions recur. Is it random enough to be generated
(entropy, character classes)? Does it stand in for a secret instead of being
one (a variable, a template, a placeholder, an identifier, a path)? Is it a
vendor's documented example key, printed in every tutorial and valid nowhere?
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable

from tree_ring.guard.rule import text_pattern


def shannon_entropy(value: str) -> float:
    """Bits per character of `value`'s own character distribution."""
    if not value:
        return 0.0
    size = len(value)
    return -sum(count / size * math.log2(count / size) for count in Counter(value).values())


def char_classes(value: str) -> int:
    return (
        any(c.islower() for c in value)
        + any(c.isupper() for c in value)
        + any(c.isdigit() for c in value)
        + any(not c.isalnum() for c in value)
    )


# Literal values shorter than this are not treated as secrets: they are too
# weak to be worth stealing and too often `None`, `secret`, `str` or a
# placeholder. Eight is also the usual minimum a password policy accepts.
MIN_SECRET_LEN = 8

# Entropy alone cannot separate short random strings from words: eight distinct
# letters already score log2(8) = 3.0 bits per character. So a literal counts as
# a secret at >= 3.0 bits (what a random alphanumeric string of ten or more
# characters scores, and more than English words or fillers do: "changeme" and
# "password" score 2.75, "xxxxxxxx" 0), or at >= 2.5 bits when it mixes three
# character classes the way generated and policy-compliant passwords do
# ("S3cr3tP4ss" scores 2.92 with upper, lower and digits).
_ENTROPY_BITS = 3.0
_ENTROPY_BITS_MIXED = 2.5

# A random token of twenty or more characters from a base62/base64 alphabet
# scores well above 4 bits; 3.5 leaves room for short ones and rejects the
# repetitive placeholders found in documentation.
TOKEN_ENTROPY_BITS = 3.5


def high_entropy(value: str) -> bool:
    bits = shannon_entropy(value)
    if bits >= _ENTROPY_BITS:
        return True
    return bits >= _ENTROPY_BITS_MIXED and char_classes(value) >= 3


# Whole values that stand for "put the secret here" rather than being one.
_PLACEHOLDERS = frozenset(
    {
        "changeme", "change_me", "change-me", "changeit", "password", "passwd", "secret",
        "token", "none", "null", "nil", "undefined", "true", "false", "redacted",
        "placeholder", "example", "dummy", "default", "notasecret", "pass", "pwd", "test",
        "testing", "todo", "tbd", "tiger", "hunter2", "letmein", "p@ssw0rd", "passw0rd",
        "password1", "password123", "secret123", "admin123", "qwerty123", "12345678",
        "123456789", "1234567890",
    }
)  # fmt: skip

# Words that mark a value as a stand-in when little else is left of it:
# "your_api_key_here", "EXAMPLE_TOKEN_1234567890", "<insert-token>".
_MARKER_WORDS = (
    r"example|sample|dummy|placeholder|your|changeme|change_?me|redacted|fake|insert|replace"
    r"|not[_-]?real|not[_-]?a[_-]?real|here|xxx+|todo|fixme|secret|password|passwd|token|api|key|value"
    r"|access|test|demo|my|the|goes|put|actual|real|some|string|live|prod|dev"
)
_MARKER = r"(?:" + _MARKER_WORDS + r")"


def sequential(value: str) -> bool:
    """Mostly runs like "abcdef" or "123456": typed by hand, never generated."""
    if len(value) < 4:
        return False
    steps = sum(1 for a, b in itertools.pairwise(value) if abs(ord(b) - ord(a)) == 1)
    return steps >= 0.6 * (len(value) - 1)


def is_filler(value: str) -> bool:
    return len(set(value.lower())) <= 2


def placeholder_text(value: str) -> bool:
    """A value made of placeholder words ("your-token-here", "EXAMPLE_KEY_123").

    Only what is left after removing those words decides: a generated key
    that happens to contain "here" or "key" keeps its random remainder and
    stays a secret.
    """
    low = value.lower()
    if not text_pattern(_MARKER_WORDS).search(low):
        return False
    rest = text_pattern(r"[^a-z0-9]+|" + _MARKER).sub("", low)
    return len(rest) <= 4 or sequential(rest) or is_filler(rest)


# Vendors' documented example credentials, printed in their docs and valid
# nowhere. AWS ends every example key id with EXAMPLE and every example
# secret key with EXAMPLEKEY; a generated key does so by chance once in 32^7.
_AWS_EXAMPLE = (
    r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AIDA|AROA|AGPA)[A-Z0-9]{9}EXAMPLE"
    r"|[A-Za-z0-9/+]{30}EXAMPLEKEY"
)
_DOCUMENTED = frozenset(
    {
        # Stripe's API reference and quickstarts.
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        "sk_test_BQokikJOvBiI2HlWgH4olfQ2",
        "sk_test_26PHem9AhJZvU623DfE1x4sd",
        # jwt.io's default token, and its signature alone.
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwi"
        "aWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        # The Azure Storage emulator's published account key (devstoreaccount1).
        "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
    }
)


def documented_example(value: str) -> bool:
    """A vendor's documented example key: its own shape, not the words around it."""
    return value in _DOCUMENTED or text_pattern(_AWS_EXAMPLE).fullmatch(value) is not None


# One segment of an identifier, file path, dotted path or kebab-case word list:
# a lower, upper or capitalised word, optionally followed by camelCase humps of
# three or more letters, an acronym ("PostgreSQL"), and at most three digits;
# or a short number. Random
# tokens fail it because their case changes every letter or two and digits sit
# between letters. The single `+` is followed by a group that must start with
# [A-Z][a-z], so this cannot backtrack exponentially.
_NAME_SEGMENT = (
    r"(?:[a-z]+|[A-Z][a-z]+|[A-Z]+)(?:[A-Z][a-z]{2,})*(?:[A-Z]{2,5})?[0-9]{0,3}|[0-9]{1,4}"
)
_NAME_SEPARATORS = r"[._:/@~+-]+"


def name_parts(value: str) -> list[str]:
    return [part for part in text_pattern(_NAME_SEPARATORS).split(value) if part]


def name_like(value: str) -> bool:
    """True for `settings.API_KEY`, `os.environ`, `/run/secrets/db`, `YOUR_TOKEN`."""
    parts = name_parts(value)
    return bool(parts) and all(text_pattern(_NAME_SEGMENT).fullmatch(part) for part in parts)


def _path(value: str) -> bool:
    """An absolute or relative file path: `/tmp/tmp.Xy7s8K2`, `~/.ssh/id_rsa`."""
    return value.startswith(("/", "~/", "./", "../")) and value.count("/") >= 2


# Grafana's expansions in its provisioning files: $__env{VAR}, $__file{/path},
# $__vault{ref}.
_GRAFANA_EXPANSION = r"\$__(?:env|file|vault)\{"
# A shell variable inside an option list or a path (`src=$HOME/.npmrc`,
# `src=$XDG_CONFIG_HOME/npm/npmrc`): an environment variable's upper-case
# name right after "=", ",", ":" or "/" and ending the value or a part of it.
# A generated password has a "$" there followed by such a run of capitals too
# rarely to weigh against Docker's documented `--secret id=x,src=$HOME/...`.
_SHELL_VARIABLE_INSIDE = r"[=,:/]\$[A-Z_][A-Z0-9_]+(?![^/,:])"


# What opens and closes a placeholder's name ("<your password>"): the angle
# bracket and the characters written for it in other scripts and fonts (the
# single guillemet, full-width, CJK and mathematical angle brackets). The
# double guillemet is left out: French and Russian quote values with it.
PLACEHOLDER_OPENERS = "<\u2039\uff1c\u3008\u300a\u27e8\u276e\ufe64"
PLACEHOLDER_CLOSERS = ">\u203a\uff1e\u3009\u300b\u27e9\u276f\ufe65"


def inside_placeholder(lead: str) -> bool:
    """Whether the text `lead` ends inside an open placeholder's name: a word
    for password there ("DB_PASSWORD=<你的密码>") names what goes in, and what
    follows its close is the rest of the sentence."""
    opened = max(lead.rfind(mark) for mark in PLACEHOLDER_OPENERS)
    closed = max(lead.rfind(mark) for mark in PLACEHOLDER_CLOSERS)
    return opened > closed and "\n" not in lead[opened:]


def _template(value: str, *, quoted: bool) -> bool:
    """A variable or template: $VAR, $(cmd), ${VAR}, $__env{VAR}, <name>,
    {{ var }}, {name}, [redacted], %(name)s, %VAR%, or a value holding a shell
    variable as a part (`src=$HOME/.npmrc`); unquoted, also YAML's comments and
    its tags, anchors and aliases (# ..., !vault, &x, *x), which no unquoted
    YAML value can start with. A generated password may start with "$" or "%",
    so those count only when a name or a template follows."""
    first, rest = value[0], value[1:]
    if first in "{[" + PLACEHOLDER_OPENERS or "${" in value or "{{" in value:
        return True
    if "$" in rest and text_pattern(_SHELL_VARIABLE_INSIDE).search(value):
        return True
    if first == "$":
        return (
            rest[:1] in ("(", "{", "")
            or rest.isdigit()
            or name_like(rest)
            or text_pattern(_GRAFANA_EXPANSION).match(value) is not None
        )
    if first == "%":
        return rest[:1] in ("(", "s", "d") or value.endswith("%")
    if quoted:
        return False
    return first in "#!&*"


# A key name and its separator: in a list of keys left empty (an
# .env.example's "STRIPE_SECRET_KEY= OPENAI_API_KEY="), the next key is what
# follows an empty key's "=", and it is no value.
_NEXT_KEY = r"[A-Za-z_][A-Za-z0-9_.]*[=:]"


def _next_key(value: str) -> bool:
    name = value[:-1]
    return (
        value[-1] in "=:"
        and ("_" in name or name.isupper())
        and text_pattern(_NEXT_KEY).fullmatch(value) is not None
        and name_like(name)
    )


def stand_in(value: str, *, quoted: bool = False) -> bool:
    """A value that names, templates or stands in for a secret rather than being one."""
    if not value:
        return True
    if _template(value, quoted=quoted):
        return True
    if value.lower() in _PLACEHOLDERS or is_filler(value) or "****" in value:
        return True
    if "..." in value or "\u2026" in value:
        # Truncated for display ("sk-...4f2a"): what is left is not the secret.
        return True
    if not quoted and ("(" in value or "[" in value):
        # A call or a subscript: `get_token()`, `os.environ["TOKEN"]`.
        return True
    if not quoted and _next_key(value):
        return True
    return documented_example(value) or placeholder_text(value) or _path(value)


def literal_secret(span: str) -> bool:
    """The value of a `password=` style assignment: a literal with high entropy."""
    quoted = span[:1] in ("'", '"', "`")
    value = (span[1:] if quoted else span).strip()
    if len(value) < MIN_SECRET_LEN:
        return False
    if any(c.isspace() for c in value):
        # Quoted prose ("not configured yet", "Invalid token provided"), not a
        # credential. Passphrases with spaces are missed by this rule.
        return False
    if stand_in(value, quoted=quoted) or sequential(value):
        return False
    if name_like(value):
        # An identifier (`DB_PASSWORD`, `settings.token`, `dbPass`) names a
        # secret; one capitalised word with digits ("Orbit426") is a password.
        return len(name_parts(value)) == 1 and char_classes(value) >= 3 and high_entropy(value)
    return high_entropy(value)


def random_token(span: str) -> bool:
    """A prefixed token whose body is random, not a documentation filler.

    A token in capitals and digits only (AWS, Alibaba) reads as a name to
    `name_like`, so only tokens with lower case are held to it.
    """
    return (
        shannon_entropy(span) >= _ENTROPY_BITS
        and not (name_like(span) and any(c.islower() for c in span))
        and not documented_example(span)
        and not placeholder_text(span)
        and not sequential(span)
    )


def random_opaque(span: str) -> bool:
    """An unprefixed credential (bearer token, AWS secret key) that looks generated."""
    value = span.strip()
    # Hex carries 4 bits a character at most, so random hex scores lower.
    bits = _ENTROPY_BITS if text_pattern(r"[0-9a-f]+").fullmatch(value) else TOKEN_ENTROPY_BITS
    return (
        shannon_entropy(value) >= bits
        and any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
        and not name_like(value)
        and not documented_example(value)
        and not placeholder_text(value)
        and not sequential(value)
    )


def _switches(value: str, kind: Callable[[str], bool]) -> int:
    """How often consecutive characters change between `kind` and not."""
    return sum(1 for a, b in itertools.pairwise(value) if kind(a) != kind(b))


_PASSWORD_SYMBOLS = frozenset("!@#$%^&*?~+")


def password_looking(value: str, *, min_len: int = MIN_SECRET_LEN) -> bool:
    """A value a sentence or a command line calls a password, judged as one.

    Three or more classes ("Summer2024!", "I9Tt9en2U6l5vM4j") count even when
    shaped like a name ("Welcome123"), since the context already said what it
    is; a dotted or dashed name ("SHA256-hashed", "Base64-encoded") does not.
    Two classes count when the value is random enough and they alternate the
    way generated strings do: digits between letters ("x7k2m9q4"), case
    changing every letter or two ("OfkyXOWIESNspvkz"), or a symbol inside
    letters ("tr!ckyp@ss"). Ordinary words, one class, never; nor
    repetitions ("pass=pass=pass").
    """
    if not min_len <= len(value) <= 200 or stand_in(value, quoted=True) or sequential(value):
        return False
    if "(" in value or "[" in value:
        # Code that fetches the password: `keyring.get_password(...)`, `env["PW"]`.
        return False
    if len(name_parts(value)) > 1 and name_like(value):
        return False
    classes = char_classes(value)
    if classes >= 3:
        return high_entropy(value)
    if classes < 2 or name_like(value) or shannon_entropy(value) < _ENTROPY_BITS:
        return False
    if any(c.isdigit() for c in value):
        return _switches(value, str.isdigit) >= 3
    if value.isalpha():
        return _switches(value, str.isupper) >= 3 or len(value) >= 16
    # Only the symbols password rules ask for: "-", ".", "/", "=" and "_" join
    # the parts of names, paths and options instead.
    symbols = [c for c in value.strip("!?.") if not c.isalnum()]
    return bool(symbols) and all(c in _PASSWORD_SYMBOLS for c in symbols)


def token_looking(value: str) -> bool:
    """A value a sentence calls a token or key: long and generated-looking.

    Key fingerprints and ids are public and exempt: "SHA256:..." digests,
    "0x" numbers and upper-case hex (GPG key ids and fingerprints).
    """
    if len(value) < 16 or stand_in(value) or name_like(value):
        return False
    if value.upper().startswith(("SHA256:", "SHA1:", "MD5:")):
        return False
    if value.upper().startswith("0X") and len(value) <= 42:
        # A key id, fingerprint or address; 32 bytes after "0x" is a key.
        return False
    if value.startswith(("pk_", "pk.")):
        return False  # publishable keys are public by design
    if text_pattern(r"[0-9A-F]+").fullmatch(value):
        return False
    if not text_pattern(r"[A-Za-z0-9._~+/:-]+=*").fullmatch(value):
        # Query strings, expressions and prose punctuation: not one token.
        return False
    if value.isalpha():
        # Letters only, as random tokens sometimes are: case changes all along.
        return (
            shannon_entropy(value) >= TOKEN_ENTROPY_BITS
            and _switches(value, str.isupper) >= len(value) // 4
        )
    return random_opaque(value) or (char_classes(value) >= 3 and high_entropy(value))


# Shorter passwords in URLs are documentation samples ("https://abc:xyz@...").
_MIN_URL_PASSWORD_LEN = 6


def url_password(span: str) -> bool:
    user, colon, password = span.partition(":")
    if not colon:
        # "https://<token>@host": a bare credential in the user part.
        return len(user) >= 16 and random_opaque(user)
    if password.lower() in _WEAK_PASSWORDS:
        # Chosen, however weak, as a password key's value is (`chosen_password`).
        return password != user
    if len(password) < _MIN_URL_PASSWORD_LEN or stand_in(password, quoted=True):
        return False
    if text_pattern(r"[0-9]{1,5}[?#]").match(password):
        # "http://localhost:8000?next=a@b.com": a port, then a query or fragment.
        return False
    # user == password is a documented local default (postgres:postgres,
    # guest:guest), not a secret anyone chose.
    return password != user


# --------------------------------------------------------------------------
# Values a password key is given: a password whatever its entropy.
#
# After "DB_PASSWORD=" or "the staging password is", a value is what someone
# typed as the password, and a weak one ("hunter2") or a passphrase
# ("correct-horse-battery-staple") is as live as a generated one. What is
# left out: stand-ins (`stand_in`), the documented defaults of local images
# ("postgres", "root"), references to where the password lives, and words
# that describe it ("required", "hashed", "stored").

# Well-known weak passwords: stand-ins elsewhere (`_PLACEHOLDERS`), but a
# value a password key is given is one someone set.
_WEAK_PASSWORDS = frozenset(
    {"hunter2", "letmein", "p@ssw0rd", "passw0rd", "password1", "password123", "secret123",
     "admin123", "qwerty123"}
)  # fmt: skip
# Defaults that local database and broker images document (POSTGRES_PASSWORD
# in a compose file): a stand-in for a local setup, not a chosen password.
_LOCAL_DEFAULTS = frozenset(
    {"postgres", "root", "admin", "guest", "mysql", "oracle", "vagrant", "docker", "sa"}
)  # fmt: skip
# Words that say something about a password rather than being one: states,
# where it is kept, how it is hashed, its type in a schema, a link word.
_NOT_PASSWORDS = frozenset(
    {"is", "in", "at", "on", "of", "to", "by", "via", "from", "with", "without", "for", "and",
     "or", "not", "no", "yes", "the", "a", "an", "see", "ask", "use", "same", "above",
     "below", "here", "there", "this", "that", "it", "its", "set", "unset", "reset", "stored",
     "kept", "saved", "required", "optional", "mandatory", "needed", "empty", "blank",
     "missing", "absent", "omitted", "hidden", "masked", "redacted", "removed", "elided",
     "encrypted", "hashed", "salted", "plaintext", "cleartext", "hash", "salt", "bcrypt",
     "scrypt", "argon2", "argon2id", "argon2i", "pbkdf2", "sha256", "sha512", "sha1",
     "md5", "base64", "utf8", "rotated", "expired", "expires", "changed", "updated",
     "invalid", "valid", "wrong", "incorrect", "weak", "strong", "long",
     "short", "too", "very", "unknown", "known", "lost", "leaked", "compromised", "shared",
     "unique", "random", "generated", "provided", "given", "sent", "supplied", "managed",
     "disabled", "enabled", "inherited", "prompted", "prompt", "interactive", "manual",
     "automatic", "auto", "temporary", "permanent", "different", "identical", "unchanged",
     "vault", "keychain", "keyring", "1password", "lastpass", "bitwarden", "ssm", "kms",
     "env", "environment", "file", "stdin", "string", "str", "bytes", "text", "varchar",
     "char", "int", "bool", "boolean", "object", "any", "secretstr",
     "field", "column", "input", "type", "length", "policy", "printed", "written",
     "never", "always", "only", "ignored", "accepted", "rejected", "checked", "verified",
     "validated", "logged", "echoed", "shown", "displayed", "visible", "blocked", "locked",
     "pending", "todo", "tbd", "fixme", "n/a",
     # nsswitch.conf's sources ("passwd: files systemd")
     "files", "compat", "systemd", "ldap", "sss", "nis", "winbind"}
)  # fmt: skip
# Words of an identifier that make it a reference to a password (a variable,
# a setting, an environment variable's name), not a password.
_REFERENCE_WORDS = frozenset(
    {"key", "env", "var", "vault", "config", "conf", "cfg", "settings", "setting", "options",
     "option", "opts", "opt", "args", "arg", "params", "param", "self", "this", "form",
     "request", "input", "user", "db"}
)  # fmt: skip
_REFERENCE_STEMS = ("pass", "pwd", "secret", "token", "cred")
# Symbols password policies ask for: any other punctuation joins a name or a path.
_CHOSEN_SYMBOLS = frozenset("!@#$%^&*?~+")
_PART_SEPARATORS = r"[-_.]+"
_SEPARATOR_SYMBOLS = frozenset("-_.")


def _reference(value: str, *, quoted: bool) -> bool:
    """An identifier naming where the password comes from: `POSTGRES_PASSWORD`,
    `hashed_password`, `settings.db_pass`, unquoted `dbPassword` or `form.data`."""
    if not name_like(value):
        return False
    words = [word.lower() for word in text_pattern(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])").findall(value)]
    humps = any(a.islower() and b.isupper() for a, b in itertools.pairwise(value))
    if len(name_parts(value)) < 2 and not humps:
        return False
    if not quoted and ("." in value or humps):
        return True  # an attribute or a camelCase variable in code
    return any(word in _REFERENCE_WORDS or word.startswith(_REFERENCE_STEMS) for word in words)


def _passphrase(parts: list[str]) -> bool:
    """Three or more words joined by "-", "_" or ".", none a describing word."""
    return len(parts) >= 3 and all(
        part.isalpha() and part.lower() not in _NOT_PASSWORDS for part in parts
    )


def chosen_password(value: str, *, quoted: bool = False, prose: bool = False) -> bool:
    """A value a password key is given, judged a password whatever its entropy.

    At least four characters and one token; not a stand-in, a local default, a
    run like "123456", a path or a reference to where it lives; not a word
    that describes it. In prose ("the password is X"), and where more words
    follow the value ("passphrase: leave empty"), a single word of letters
    reads as English unless it is long (a passphrase run together:
    "correcthorsebatterystaple"), and joined words must be three or more
    ("correct-horse-battery-staple"), not two ("case-sensitive").
    """
    low = value.lower()
    if low in _WEAK_PASSWORDS:
        return True
    if not 4 <= len(value) <= 200 or any(c.isspace() for c in value):
        return False
    if low in _NOT_PASSWORDS or low in _LOCAL_DEFAULTS or value[0] in "/~.\\":
        return False
    if prose and not value[0].isalnum():
        return False  # shell syntax after a name ("${DB_PASSWORD:?missing}"), not a value
    if stand_in(value, quoted=quoted) or sequential(value) or _reference(value, quoted=quoted):
        return False
    symbols = {c for c in value if not c.isalnum()}
    parts = [part for part in text_pattern(_PART_SEPARATORS).split(value) if part]
    if len(parts) > 1 and symbols <= {"-", "_", "."}:
        # Joined words: a passphrase, or (assigned) a word and a number
        # ("Summer-2024"); two words are a description ("case-sensitive").
        if any(part.lower() in _NOT_PASSWORDS for part in parts):
            return False
        numbered = not all(part.isalpha() for part in parts)
        # In prose, two words and a number are a description as often as a
        # password ("SHA-256", "case-sensitive"); three parts or more, words
        # and a number, are one someone chose ("sunflower-ladder-92").
        mixed = any(part.isalpha() for part in parts) and len(parts) >= 3
        return _passphrase(parts) or (numbered and (not prose or mixed))
    if symbols & _SEPARATOR_SYMBOLS and symbols - _SEPARATOR_SYMBOLS <= _CHOSEN_SYMBOLS:
        # Separators and a password's symbol ("N0t-S0-S3cret!", "Summer-2024!"):
        # chosen when a digit is in it too ("case-sensitive!" is prose).
        return any(c.isdigit() for c in value)
    if not symbols <= _CHOSEN_SYMBOLS:
        return False  # "vault/db", "env:PFX_PASS", "a,b": a path, an option, a list
    if prose and value.isalpha():
        return len(value) >= 16
    return True


def spoken_passphrase(phrase: str) -> bool:
    """A quoted phrase a password is given ("purple monkey dishwasher 1987"):
    three to twelve words of letters or digits, none a word that describes a
    password ("the same as staging", "not set yet")."""
    words = phrase.split()
    return 3 <= len(words) <= 12 and all(
        word.isalnum() and word.lower() not in _NOT_PASSWORDS for word in words
    )


def chosen_pin(value: str) -> bool:
    """A PIN: four to twelve digits, not a filler ("0000") or a run ("1234",
    "98765"). A run throughout, not mostly: "1236" is as much a PIN as any."""
    if not (4 <= len(value) <= 12 and value.isascii() and value.isdigit()):
        return False
    steps = {ord(b) - ord(a) for a, b in itertools.pairwise(value)}
    return not is_filler(value) and steps not in ({1}, {-1})
