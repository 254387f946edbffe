"""Secret rules for passwords code gives without naming them: a call that
takes the password as a positional argument, and a Terraform variable whose
default is the password.

- `new NetworkCredential("user", "X")`, `new PDO($dsn, 'user', 'X')`,
  `DriverManager.getConnection(url, "user", "X")`, `mysqli_connect($host,
  'user', 'X')`, paramiko's `connect("host", 22, "user", "X")`,
  `smtp.login("user", "X")`, `smtp.PlainAuth("", "user", "X", host)`,
  ...: the argument in the password's place, when it is a
  quoted literal (a variable, `$pw` or `getenv("PW")`, names where the
  password is and is never judged).
- `auth=("user", "X")` (requests, httpx): the tuple's second item.
- SQL's `CREATE USER ... IDENTIFIED BY 'X'` (and GRANT's, and `IDENTIFIED
  WITH plugin BY 'X'`), and MySQL's `PASSWORD('X')`.
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
    b"mysql_connect(": 3,  # PHP's older API: host, user, password
    b"keyring.set_password(": 3,  # service, user, password
    b"mysqli_connect(": 3,  # host, user, password
    b"new mysqli(": 3,
    b"mysqli_real_connect(": 4,  # link, host, user, password
    b"pg_connect(": 0,  # one connection string: `password=` is an assignment
    b"ftp_login(": 3,  # connection, user, password
    b"ldap_bind(": 3,  # connection, dn, password
    b"ssh2_auth_password(": 3,  # session, user, password
    b"oci_connect(": 2,  # user, password, ...
    b".login(": 2,  # smtplib, imaplib, ftplib: user, password
    b"pymysql.connect(": 3,  # Python DB-API drivers: host, user, password, db
    b"mysqldb.connect(": 3,
    b"pymssql.connect(": 3,
    b"cx_oracle.connect(": 2,  # user, password, dsn
    b"simple_bind(": 2,  # python-ldap: dn, password
    b"bind_s(": 2,  # python-ldap's bind_s, simple_bind_s: dn, password
}

# Calls whose name is also the end of other names (`sftp(`, `get_ftp(`):
# only as a whole name, after a space, "(", "=", "." or the line's start.
_WHOLE_NAME_CALLS: dict[bytes, int] = {
    b"ftp(": 3,  # ftplib.FTP(host, user, passwd)
    b"ftp_tls(": 3,
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


def _ssh_connect(window: str) -> bool:
    """paramiko's `SSHClient.connect(hostname, port, username, password)`."""
    if (
        text_pattern(r"\s*(?:\"[^\"\n]*\"|'[^'\n]*'|[^,()\"'\n]*),\s*[0-9]{1,5}\s*,").match(window)
        is None
    ):
        return False
    return _judge_call(4)(window)


def _escaped(name: bytes) -> bytes:
    return name.replace(b".", rb"\.").replace(b"(", rb"\(")


CALL_RULES: tuple[Rule, ...] = (
    tuple(
        rule(
            "password-argument",
            SECRET,
            "lower",
            _escaped(name) + _ARGUMENTS,
            _judge_call(place),
            heads=(name,),
        )
        for name, place in _CALLS.items()
        if place
    )
    + tuple(
        rule(
            "password-argument",
            SECRET,
            "lower",
            _escaped(name) + rb"(?<![a-z0-9_]" + _escaped(name) + rb")" + _ARGUMENTS,
            _judge_call(place),
            heads=(name,),
        )
        for name, place in _WHOLE_NAME_CALLS.items()
    )
    # paramiko's `connect("host", 22, "user", "X")`: only with a port as the
    # second argument, since other clients' `connect` take other arguments.
    + (
        rule(
            "password-argument",
            SECRET,
            "lower",
            rb"\.connect\(" + _ARGUMENTS,
            _ssh_connect,
            heads=(b".connect(",),
        ),
    )
    # requests' and httpx's `auth=("user", "X")`: a (user, password) tuple.
    + (
        rule(
            "password-argument",
            SECRET,
            "lower",
            rb"auth(?<![a-z0-9]auth)[ \t]{0,4}=[ \t]{0,4}\(" + _ARGUMENTS,
            _judge_call(2),
            heads=(b"auth",),
        ),
    )
)


# --------------------------------------------------------------------------
# SQL: CREATE USER ... IDENTIFIED BY 'X', GRANT ... IDENTIFIED BY 'X',
# ALTER USER ... IDENTIFIED WITH plugin BY 'X'. (PostgreSQL's `PASSWORD
# 'X'` is read by the prose rule for "password".)

# What may follow IDENTIFIED BY that is not the password: Oracle's hash
# (`BY VALUES '...'`) and MySQL 5's (`BY PASSWORD '*...'`).
_NOT_SQL_PASSWORDS = frozenset({"values", "password"})


# A statement that names the user the password is for, before IDENTIFIED BY.
_SQL_USER_STATEMENT = r"\b(?:(?:create|alter)\s+(?:user|role|login)|grant)\b"
_SQL_LEAD = 160


def _sql_password(window: str) -> bool:
    before, _, span = window.partition("\x00")
    value = span.strip()
    if len(value) >= 2 and value[0] in "'\"" and value[-1] == value[0]:
        return chosen_password(value[1:-1], quoted=True)
    # Oracle's bare `IDENTIFIED BY X`. Bare, it may be prose too ("sessions
    # are identified by UUIDv4"), so only in a CREATE/ALTER USER or GRANT
    # statement begun on the same line, and only as a password someone
    # chose, read as in prose.
    value = value.rstrip(";,)")
    line = before.rpartition("\n")[2]
    return (
        value.lower() not in _NOT_SQL_PASSWORDS
        and text_pattern(_SQL_USER_STATEMENT).search(line.lower()) is not None
        and chosen_password(value, prose=True)
    )


def _quoted_password(span: str) -> bool:
    return chosen_password(span[1:-1], quoted=True)


SQL_RULES: tuple[Rule, ...] = (
    rule(
        "password-argument",
        SECRET,
        "lower",
        rb"identified(?:[ \t]{1,4}with[ \t]{1,4}[a-z0-9_'\"]{1,64}+)?[ \t]{1,4}by[ \t]{1,4}"
        rb"(?P<v>'[^'\n\x00]{1,200}+'|\"[^\"\n\x00]{1,200}+\"|[^\s\x00'\"]{1,200}+)",
        _sql_password,
        heads=(b"identified",),
        before=_SQL_LEAD,
    ),
    # MySQL's PASSWORD('X') (`SET PASSWORD FOR u = PASSWORD('X')`, `SET
    # authentication_string = PASSWORD('X')`): the function, not a call whose
    # name ends in "password" (`check_password(...)`).
    rule(
        "password-argument",
        SECRET,
        "lower",
        rb"password\((?<![a-z0-9_.]password\()[ 	]{0,4}"
        rb"(?P<v>'[^'\n\x00]{1,200}+'|\"[^\"\n\x00]{1,200}+\")[ 	]{0,4}\)",
        _quoted_password,
        heads=(b"password(",),
    ),
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

CODE_ARGUMENT_RULES: tuple[Rule, ...] = CALL_RULES + SQL_RULES + TERRAFORM_RULES
