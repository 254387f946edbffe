"""Secret rules for passwords code gives without naming them: a call that
takes the password as a positional argument, and a Terraform variable whose
default is the password.

- `new NetworkCredential("user", "X")`, `new PDO($dsn, 'user', 'X')`,
  `DriverManager.getConnection(url, "user", "X")`, `mysqli_connect($host,
  'user', 'X')`, `smtp.login("user", "X")`, `smtp.PlainAuth("", "user",
  "X", host)`, ...: the argument in the password's place, when it is a
  quoted literal (a variable, `$pw` or `getenv("PW")`, names where the
  password is and is never judged).
- `variable "db_password" { default = "X" }`: a variable whose name names a
  password or a secret, and whose default is a literal.

Each literal is judged as a password key's is (`chosen_password`), or, for a
variable named for a key or a token, as a generated secret (`literal_secret`).
"""

from __future__ import annotations

from collections.abc import Callable

from tree_ring.guard.rule import SECRET, Rule, rule, text_pattern
from tree_ring.guard.values import chosen_password, literal_secret

# Calls whose Nth argument (from 1) is the password, by the call's name in
# the "lower" view: the name, then "(".
_CALLS: dict[bytes, int] = {
    b"networkcredential(": 2,  # .NET
    b"usernamepasswordcredentials(": 2,  # Apache HttpClient
    b"passwordauthentication(": 2,  # java.net
    b"httpbasicauth(": 2,  # Python requests
    b"httpdigestauth(": 2,
    b"setbasicauth(": 2,  # Go net/http
    b"withbasicauth(": 2,
    b"basicauth(": 2,
    b"plainauth(": 3,  # Go net/smtp: identity, user, password, host
    b"getconnection(": 3,  # JDBC: url, user, password
    b"new pdo(": 3,  # PHP: dsn, user, password
    b"mysqli_connect(": 3,  # host, user, password
    b"new mysqli(": 3,
    b"mysqli_real_connect(": 4,  # link, host, user, password
    b"pg_connect(": 0,  # one connection string: `password=` is an assignment
    b"ftp_login(": 3,  # connection, user, password
    b"ldap_bind(": 3,  # connection, dn, password
    b"ssh2_auth_password(": 3,  # session, user, password
    b"oci_connect(": 2,  # user, password, ...
    b".login(": 2,  # smtplib, imaplib, ftplib: user, password
}

# One argument: a quoted literal, or code up to the next comma at depth 0.
_ARGUMENT = (
    r"\s*(\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'"
    r"|[^,()\"'\n]*(?:\([^()\n]*\))?[^,()\"'\n]*)\s*"
)


def _argument(window: str, place: int) -> str | None:
    """The literal in `place` of the arguments `window` opens with, without its
    quotes; None when that argument is not a quoted literal."""
    position = 0
    for index in range(place):
        found = text_pattern(_ARGUMENT).match(window, position)
        if found is None:
            return None
        position = found.end()
        if index + 1 == place:
            value = found.group(1)
            if len(value) >= 2 and value[0] in "\"'" and value[-1] == value[0]:
                return value[1:-1]
            return None
        if window[position : position + 1] != ",":
            return None  # fewer arguments than the password's place
        position += 1
    return None


# The arguments after the call's "(": up to 300 characters on its line.
_ARGUMENTS = rb"(?P<v>[^\n\x00]{1,300})"


def _judge_call(place: int) -> Callable[[str], bool]:
    def judge(window: str) -> bool:
        value = _argument(window, place)
        if value is None:
            return False
        return literal_secret("'" + value) or chosen_password(value, quoted=True)

    return judge


CALL_RULES: tuple[Rule, ...] = tuple(
    rule(
        "password-argument",
        SECRET,
        "lower",
        name.replace(b".", rb"\.").replace(b"(", rb"\(") + _ARGUMENTS,
        _judge_call(place),
        heads=(name,),
    )
    for name, place in _CALLS.items()
    if place
)


# --------------------------------------------------------------------------
# Terraform: variable "db_password" { ... default = "X" ... }

_SECRET_NAME = r"pass|pwd|secret|token|key|credential"


def _variable_default(window: str) -> bool:
    found = text_pattern(
        r'variable\s+"([^"\n]{1,128})"\s*\{[^}]{0,400}?\bdefault\s*=\s*"([^"\n]{1,256})"'
    ).match(window)
    if found is None:
        return False
    name, value = found.group(1).lower(), found.group(2)
    if text_pattern(r"pass|pwd|secret").search(name):
        return chosen_password(value, quoted=True) or literal_secret('"' + value)
    return literal_secret('"' + value)


TERRAFORM_RULES: tuple[Rule, ...] = (
    rule(
        "password-default",
        SECRET,
        "lower",
        rb'variable[ \t]{1,8}"[^"\n\x00]{0,64}?(?:' + _SECRET_NAME.encode() + rb')[^"\n\x00]{0,64}"'
        rb'[ \t]*\{[^}\x00]{0,400}?default[ \t]*=[ \t]*"[^"\n\x00]{1,256}"',
        _variable_default,
        heads=(b"variable",),
    ),
)

CODE_ARGUMENT_RULES: tuple[Rule, ...] = CALL_RULES + TERRAFORM_RULES
