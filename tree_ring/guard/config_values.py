"""The value a config file gives a password, in the forms that do not put it
on the key's own line or behind a key at all.

- YAML after a password key: a block scalar (`password: |` with the value on
  the next, deeper line), a `!!str` tag or an `&anchor` before the value, or
  the value alone on the next, deeper line (`_yaml_password`).
- A `.pgpass` line, `host:port:database:user:password`, whose last field is
  the password (`PGPASS_RULES`).
- A CSV whose header names a password column (`CSV_RULES`): the header
  assigns the column's values to a password key, and the refusal says so.

Each value is judged as a password key's is (`assigned_password`): a
literal secret, or a password someone chose, whatever its entropy; not a
stand-in, a local default or a reference.
"""

from __future__ import annotations

from tree_ring.guard.rule import SECRET, Rule, rule, text_pattern
from tree_ring.guard.values import chosen_password, literal_secret, stand_in

_BARE_VALUE = r"[^\s\"'`,;&)\]}<\x00]*"


def assigned_password(span: str, *, prose: bool = False) -> bool:
    """The value after a password key, from the rest of its line: a literal
    secret, or a password someone chose (`chosen_password`). A bare value
    with more words after it opens a sentence ("passphrase: leave empty for
    the dev key") and is judged as prose; with `prose`, so is every bare
    value (after a key in a language whose describing words the guard does
    not know: "Passwort: geändert")."""
    quote = span[:1]
    if quote in ("'", '"', "`"):
        value = span[1:].partition(quote)[0]
        return literal_secret(quote + value) or chosen_password(value, quoted=True)
    found = text_pattern(_BARE_VALUE).match(span)
    value = found.group() if found else ""
    prose = prose or span[len(value) :].lstrip(" \t")[:1].isalpha()
    return literal_secret(value) or chosen_password(value, prose=prose)


# --------------------------------------------------------------------------
# YAML

# After the key's colon, the forms the key's own line does not hold a plain
# value in: a `!!str` tag, an anchor, a block scalar's header, a comment, or
# nothing before the line ends. Other tags (`!vault`, `!secret`, `!Ref`) make
# the value something else than the password itself: encrypted, or a name.
YAML_AFTER_KEY = rb"[\"'`]?[ \t]{0,16}:(?=[ \t]{0,16}+(?:!!str[ \t]|&[^\s\x00]|[|>#]|\r?\n))"
# The rest of the key's line, then the next line when it is indented.
YAML_VALUE = rb"(?P<v>[^\n\x00]{0,256}+(?:\n[ \t]{1,64}+[^\n\x00]{1,256}+)?)"

_DECORATION = r"(?:!!str|&[^\s]+)(?:[ \t]+|$)"
# A block scalar's header: `|` or `>`, a chomping indicator, an indentation
# indicator, in either order, then perhaps a comment.
_BLOCK_HEADER = r"[|>](?:[-+]?[1-9]?|[1-9][-+])(?:[ \t]+#.*)?"


def _key_indent(lead: str, size: int) -> int:
    """The indentation of the line the key is on, or -1 when its start is
    further back than `lead` reaches."""
    if "\n" in lead:
        line = lead.rpartition("\n")[2]
    elif len(lead) < size:
        line = lead  # the key's line starts the field
    else:
        return -1
    return len(line) - len(line.lstrip(" \t"))


def _yaml_password(window: str) -> bool:
    """The value a YAML password key is given past a tag or an anchor, or on
    the next line: after a block scalar's header or on its own."""
    lead, _, span = window.partition("\x00")
    line, _, below = span.partition("\n")
    line = line.strip()
    decorated = False
    while found := text_pattern(_DECORATION).match(line):
        line = line[found.end() :]
        decorated = True
    if line and not line.startswith("#"):
        if text_pattern(_BLOCK_HEADER).fullmatch(line) is None:
            # A plain value on the key's line: read here only past a tag or
            # an anchor, which the key's own rule takes for a stand-in.
            return decorated and assigned_password(line)
        block = True
    else:
        block = False
    if not below:
        return False
    indent = len(below) - len(below.lstrip(" \t"))
    if indent <= _key_indent(lead, YAML_LEAD):
        return False  # the next key, or text after the mapping
    value = below.strip()
    if not block and (value[:1] in "-#?|>[{" or ": " in value or value.endswith(":")):
        return False  # a nested mapping, a sequence or a comment: no value
    return assigned_password(value)


# Bytes before the key: enough to reach the start of its line in most files.
YAML_LEAD = 64


def yaml_password_rule(key: bytes, heads: tuple[bytes, ...]) -> Rule:
    """The rule for a key that names a password, given in YAML's other forms."""
    return rule(
        "password-assignment",
        SECRET,
        "lower",
        key + YAML_AFTER_KEY + YAML_VALUE,
        _yaml_password,
        heads=heads,
        before=YAML_LEAD,
    )


# --------------------------------------------------------------------------
# .pgpass: hostname:port:database:username:password

# A field: anything but a colon, a space or a quote, or an escaped character.
_PGPASS_FIELD = rb"(?:[^:\s\\\x00\"'`]|\\[^\s\x00])"
_HOST = r"\*|[A-Za-z0-9][A-Za-z0-9._-]{0,252}|/[^\s:]{0,252}"
# What a file-and-line reference ends with ("app.py:42:ERROR:root:Timeout"
# in grep's output): a source or log file's extension, not a host's domain.
_FILE_SUFFIXES = frozenset(
    {"py", "js", "ts", "go", "rs", "c", "h", "cc", "cpp", "java", "kt", "rb", "php", "cs",
     "swift", "scala", "sh", "txt", "log", "md", "rst", "yml", "yaml", "json", "toml", "ini",
     "cfg", "conf", "sql", "xml", "html", "css", "tsx", "jsx", "vue", "lua", "pl", "ex", "exs"}
)  # fmt: skip
# Where the host field may start: a line, a space, a quote, `=`, `(`.
_HOST_START = r"[\s\"'`=(]"
_PGPASS_LEAD = 96


def _pgpass_password(window: str) -> bool:
    """The last field of a `.pgpass` line, given the text before its port:
    a host (a name, an address, `*` or a socket directory) must end it."""
    lead, _, value = window.partition("\x00")
    parts = text_pattern(_HOST_START).split(lead)
    if len(parts) == 1 and len(lead) >= _PGPASS_LEAD:
        return False  # no start of the host within reach
    host = parts[-1]
    if text_pattern(_HOST).fullmatch(host) is None:
        return False
    if host[0].isdigit() and "." not in host:
        return False  # a time ("12:30:45:...") or a number, not a host
    if host.rpartition(".")[2].lower() in _FILE_SUFFIXES:
        return False
    # Unescaped, and without the punctuation of a sentence it ends; words
    # after it make it a sentence's ("...:root:Connection refused").
    words = value.split()
    value = text_pattern(r"\\(.)").sub(r"\1", words[0]).rstrip(".,;)")
    if stand_in(value):
        return False
    return literal_secret(value) or chosen_password(value, prose=len(words) > 1)


PGPASS_RULES: tuple[Rule, ...] = (
    rule(
        "pgpass-password",
        SECRET,
        "raw",
        # The port, or "*": its digits spelled out, so that they are the
        # rule's heads and a colon before a word ("Note: ...") opens nothing.
        rb":(?:\*|(?:0|1|2|3|4|5|6|7|8|9)[0-9]{0,4}+):"
        + rb"(?>"
        + _PGPASS_FIELD
        + rb"{1,128}):(?>"
        + _PGPASS_FIELD
        + rb"{1,128}):(?P<v>(?>"
        + _PGPASS_FIELD
        # A sixth field makes it some other line (/etc/passwd, a MAC address).
        # A word after it, if any, so a sentence's word is read as one.
        + rb"{1,256})(?![:\\])(?:[ \t]{1,4}+[A-Za-z])?)",
        _pgpass_password,
        heads=(b":*:", *(b":%d" % digit for digit in range(10))),
        before=_PGPASS_LEAD,
    ),
)


# --------------------------------------------------------------------------
# CSV: a header that names a password column, then its rows

_COLUMN = r"[A-Za-z_][A-Za-z0-9_.-]{0,63}"
# Columns that hold something about a password, not the password.
_NOT_PASSWORD_COLUMNS = ("hash", "hashed", "encrypted", "enc", "salted", "crypted", "bcrypt")
_CSV_LEAD = 128
_CSV_ROWS = 4


def _csv_password(window: str) -> bool:
    """The password column's value in the rows below a CSV header, given the
    header's start: every column a name, and each row as many columns."""
    import csv  # here, not at import: most processes never read a CSV

    lead, _, span = window.partition("\x00")
    if "\n" not in lead and len(lead) >= _CSV_LEAD:
        return False  # the header's start is out of reach
    start = lead.rpartition("\n")[2]
    rest, _, rows = span.partition("\n")
    header = next(csv.reader([start + "password" + rest.rstrip("\r")]))
    index = len(next(csv.reader([start]))) - 1 if start else 0
    column = header[index].strip().lower()
    prefix = column[: -len("password")].rstrip("_ -")
    if len(header) < 2 or prefix in _NOT_PASSWORD_COLUMNS:
        return False
    if not all(text_pattern(_COLUMN).fullmatch(name.strip()) for name in header):
        return False
    for row in csv.reader(rows.splitlines()[:_CSV_ROWS]):
        if len(row) != len(header):
            return False
        value = row[index].strip()
        if not stand_in(value) and (literal_secret(value) or chosen_password(value)):
            return True
    return False


CSV_RULES: tuple[Rule, ...] = (
    rule(
        "password-assignment",
        SECRET,
        "lower",
        rb"pass(?:word|wd)(?=[\"']?[ \t]{0,8}(?:,|\r?\n))"
        rb"(?P<v>[^\n\x00]{0,256}+(?>(?:\n[^\n\x00]{1,512}+){1,4}))",
        _csv_password,
        heads=(b"pass",),
        before=_CSV_LEAD,
    ),
)
