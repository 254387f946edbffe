"""Secret rules for passwords passed on a command line: `--password X`,
`mysql -pX`, `sshpass -p X`, `redis-cli -a X`, `curl -u user:X`,
`openssl enc -k X`, `zip -P X`, `7z a -pX`, `net use ... /user:U X`,
`smbclient -U user%X`, `lftp -u user,X`, `net user NAME X /add` (and
`net user /add NAME X`), `useradd -p X` and `usermod -p X`, `chpasswd
<<EOF` with `user:X` on the next line, PowerShell's `ConvertTo-SecureString X
-AsPlainText`, a password given to a command's input by a pipe or a
here-string (`echo X|docker login --password-stdin`, `yes X | sudo -kS cmd`,
`sudo -S cmd <<< X`, `cat <<< X | sudo -S cmd`, `echo X | cryptsetup open
...`), and one given as a file by process substitution (`--password-file
<(echo X)`).
A command continued over lines (`sshpass \\` then `-p X` on the next) is
read joined (`joined_lines`).

Every pattern starts at the command or the flag's name. A flag or position
that only ever takes a password (`--password`, keytool's `-storepass`,
`sshpass -p`, `redis-cli -a`, mysql's glued `-p`, openssl's `-k`, zip's
`-P`, 7-Zip's `-p`, the password after `net use`'s share or `/user:`, the
half after smbclient's `%` or lftp's `,`) gives its value the reading a
password key gives one (`values.chosen_password`): a weak password someone
typed ("hunter2pw") is as live as a generated one. Where `-p` may mean something
else (`-u 1000 -p 8080` is docker's port, `login ... -p` may be ssh's), a
value counts only when it looks generated (`values.password_looking`).
"""

from __future__ import annotations

from collections.abc import Callable

from tree_ring.guard.rule import SECRET, Rule, rule, text_pattern
from tree_ring.guard.values import chosen_password, high_entropy, password_looking, stand_in

# A line continuation: a backslash (or cmd.exe's `^`) at the end of a line,
# then the newline and the next line's indentation; or a backslash and a space
# where a pasted continuation lost its newline. The command-line rules read the
# text with each one joined into a space (`joined_lines`), as the shell does.
_CONTINUATION = r"(?:[ \t]{0,8}[\\^][ \t]{0,8}\r?\n|[ \t]{1,8}\\[ \t]{1,8}(?:\r?\n)?)[ \t]*+"


def joined_lines(text: str) -> str | None:
    """`text` with its line continuations joined into spaces, or None if it has none."""
    joined, count = text_pattern(_CONTINUATION).subn(" ", text)
    return joined if count else None


# openssl's `-pass` sources that name where the password is, not the password.
_PASS_SOURCES = ("env", "file", "fd")


def _unquoted(span: str) -> str:
    value = span.strip()
    if value.startswith("$'"):
        value = value[1:]  # bash's $'...', a quoted string with escapes
    if value[:1] in "'\"" and value[-1:] == value[:1]:
        value = value[1:-1]
    return value


def _cli_password(
    span: str, *, chosen: bool = False, bare: bool = True, separator: str = ":"
) -> bool:
    """The value of a password flag, or the password half of "user:password"
    (`separator` is smbclient's "%" or lftp's "," where those join them).

    With `chosen`, the flag takes nothing but a password (with `bare`, also
    without a user before it: curl's `-u user` alone names a user), so any
    password someone chose counts; read as in a sentence (`prose`), since a
    command written out in a note is often followed by words about it
    ("--password when prompted"), and a single short word is read as one.
    """
    value = _unquoted(span)
    user, colon, password = value.partition(separator)
    if colon and user and separator not in password:
        if separator == ":" and user in _PASS_SOURCES:
            return False  # openssl's `-pass env:NAME`, `-pass file:path`
        if password == user or stand_in(password, quoted=True):
            return False
        if chosen and chosen_password(password, prose=True):
            return True
        return len(password) >= 6 and (
            password_looking(password, min_len=6) or high_entropy(password)
        )
    if password_looking(value, min_len=6):
        return True
    return chosen and bare and chosen_password(value, prose=True)


def _chosen(span: str) -> bool:
    return _cli_password(span, chosen=True)


def _chosen_pair(span: str) -> bool:
    return _cli_password(span, chosen=True, bare=False)


def _samba_pair(span: str) -> bool:
    return _cli_password(span, chosen=True, bare=False, separator="%")


def _lftp_pair(span: str) -> bool:
    return _cli_password(span, chosen=True, bare=False, separator=",")


# What follows a bare `7z x -p` (which prompts) is the archive, not a password.
_ARCHIVE_NAME = r"[^\s]+\.(?:7z|zip|rar|tar|gz|tgz|bz2|xz|zst|iso|wim|cab|[0-9]{3})"


def _seven_zip(span: str) -> bool:
    value = _unquoted(span)
    if text_pattern(_ARCHIVE_NAME).fullmatch(value.lower()):
        return False
    return _chosen(value)


# Everything on the same command line, up to a pipe, `;` or `&`.
_SAME_COMMAND = rb"[ \t](?:[^\n\x00|;&]{0,240}?[ \t])?"
_CLI_VALUE = rb"(?P<v>\"[^\"\n\x00]{1,200}+\"|'[^'\n\x00]{1,200}+'|[^\s\x00\"'`]{1,200}+)"


# A value given to a command's input: as `_CLI_VALUE` (or bash's `$'X'`), but
# a bare one ends where the shell's syntax starts, so `echo X|docker login`
# reads "X", and `<(echo X)` reads "X".
_PIPED_VALUE = (
    rb"(?P<v>\"[^\"\n\x00]{1,200}+\"|\$?'[^'\n\x00]{1,200}+'|[^\s\x00\"'`|;&<>()]{1,200}+)"
)
# What `echo` and `printf` print before the value: echo's options, printf's
# format ('%s', "%s\n").
_ECHOED = (
    rb"(?:[ \t]{1,4}-[a-z]{1,3}){0,3}"
    rb"(?:[ \t]{1,4}[\"']?%s(?:\\n)?[\"']?)?[ \t]{1,4}"
)

# sudo reading its password from its input: `-S` alone, in a cluster
# (`-kS`, `-Sk`) or after other options, some with their value (`-u
# deploy`). In the lower view `-S` reads as `-s`, sudo's shell; the piped
# value is judged as a password either way.
_SUDO_STDIN = (
    rb"sudo(?:[ \t]{1,4}(?:--[a-z-]{1,24}+(?:=[^\s\x00]{1,64}+)?"
    rb"|-[a-rt-z]{1,6}+(?:[ \t]{1,4}[^\s\x00-][^\s\x00]{0,63}+)?)){0,4}?"
    rb"[ \t]{1,4}-[a-z]{0,6}s[a-z]{0,6}(?![^\s\x00])"
)

# After a pipe: a command on the same line that reads a password from its
# input.
_PIPED_TO = (
    rb"[^\n\x00|;&]{0,160}?(?:-stdin|chpasswd|passwd(?=[ \t]{1,4}--stdin)|"
    + _SUDO_STDIN
    + rb"|kinit|cryptsetup|-fd[ \t]{1,4}0(?![^\s\x00]))"
)


def _cli(
    pattern: bytes,
    *heads: bytes,
    view: str = "lower",
    validator: Callable[[str], bool] = _cli_password,
    after: bytes = b"",
    value: bytes = _CLI_VALUE,
) -> Rule:
    return rule("cli-password", SECRET, view, pattern + value + after, validator, heads=heads)


CLI_RULES: tuple[Rule, ...] = (
    # --password X, --db-pass X, -storepass X, --passphrase X; htpasswd -b[c]
    # file user X. All start at "pass", and each flag takes only a password.
    _cli(
        rb"pass(?:"
        rb"(?:word|wd|phrase)?(?:(?<=-pass)|(?<=-password)|(?<=-passwd)|(?<=-passphrase)"
        rb"|(?<=storepass)|(?<=keypass))[ \t]{1,4}"
        # rabbitmqctl change_password user X
        rb"|word(?<=change_password)[ \t]{1,4}[^\s\x00]{1,64}+[ \t]{1,4}"
        rb"|wd(?<=htpasswd)[ \t]{1,4}-[a-z]{0,4}b[a-z]{0,4}[ \t]{1,4}[^\s\x00]{1,200}+[ \t]{1,4}"
        rb"[^\s\x00]{1,64}+[ \t]{1,4})",
        b"pass",
        validator=_chosen,
    ),
    # sshpass -p X, after sshpass's own options: in the raw view, since
    # `-P prompt` names the prompt to wait for, not a password.
    _cli(
        rb"sshpass(?>(?:[ \t]{1,4}-(?:[vhe]|P[ \t]{0,4}[^\s\x00]{1,64}+)){0,4})"
        rb"[ \t]{1,4}-p[ \t]{0,4}",
        b"sshpass",
        view="raw",
        validator=_chosen,
    ),
    # docker login -p X, helm registry login -p X (any order of flags)
    _cli(rb"login" + _SAME_COMMAND + rb"-p[ \t]{1,4}", b"login"),
    # rabbitmqctl add_user user X
    _cli(rb"add_user[ \t]{1,4}[^\s\x00]{1,64}+[ \t]{1,4}", b"add_user"),
    # docker login -u me -p X, mongosh -u admin -p X
    _cli(rb" -u[ \t]{1,4}[^\s\x00]{1,64}+[ \t]{1,4}-p[ \t]{0,4}", b" -u"),
    # mysql -u root -pX: the password is glued to -p. In the raw view, since
    # `-P3306` is the port.
    _cli(
        rb"m(?:ysql(?:dump|admin|import|sh|check)?|ariadb(?:-dump|-admin)?)"
        + _SAME_COMMAND
        + rb"-p",
        b"mysql",
        b"mariadb",
        view="raw",
        validator=_chosen,
    ),
    _cli(rb"redis-cli" + _SAME_COMMAND + rb"-a[ \t]{1,4}", b"redis-cli", validator=_chosen),
    # ldapsearch -w X: in the raw view, since `-W` prompts for it.
    _cli(
        rb"ldap(?:search|modify|add|delete|passwd|compare)" + _SAME_COMMAND + rb"-w[ \t]{1,4}",
        b"ldap",
        view="raw",
        validator=_chosen,
    ),
    # curl -u user:password, curl --user user:password
    _cli(
        rb"curl" + _SAME_COMMAND + rb"(?:-u|--user)(?:[ \t]{1,4}|=)",
        b"curl",
        validator=_chosen_pair,
    ),
    # openssl enc -k X (`-pass pass:X` is a password key's assignment). In
    # the raw view: `-K` is a hex key, and `-kfile` names a file.
    _cli(rb"openssl" + _SAME_COMMAND + rb"-k[ \t]{1,4}", b"openssl", view="raw", validator=_chosen),
    # zip -P X, unzip -P X, after the command's other options only, so that
    # a later command's `-P` ("then scp -P 2222") is not read as zip's.
    _cli(
        rb"zip(?:[ \t]{1,4}-[^\s\x00]{1,32}+){0,8}?[ \t]{1,4}-[a-z0-9]{0,8}P[ \t]{1,4}",
        b"zip",
        view="raw",
        validator=_chosen,
    ),
    # 7z a -pX, 7z x -p X: after the command letter, anywhere on its line.
    _cli(
        rb"7z[arz]?(?:\.exe)?[ \t]{1,4}[a-z]{1,2}" + _SAME_COMMAND + rb"-p[ \t]{0,4}",
        b"7z",
        view="raw",
        validator=_seven_zip,
    ),
    # net use Z: \\host\share X /user:DOMAIN\user, and the password after
    # /user:; not `*` (a prompt) nor another switch (`/persistent:yes`).
    _cli(
        rb"net use(?:[ \t]{1,4}(?:[a-z]:|\*))?[ \t]{1,4}\\\\[^\s\x00]{1,200}+[ \t]{1,4}(?![/*])",
        b"net use",
        validator=_chosen,
    ),
    _cli(
        rb"net use" + _SAME_COMMAND + rb"/u(?:ser)?:[^\s\x00]{1,128}+[ \t]{1,4}(?![/*])",
        b"net use",
        validator=_chosen,
    ),
    # smbclient -U user%X, --user=user%X, and Samba's other clients (rpcclient,
    # smbcacls, `net rpc`, ...) that take the same: `-U user` alone prompts.
    _cli(
        rb"(?:smb(?:client|cacls|cquotas|get|tree)|rpcclient|net (?:rpc|ads|rap|sam))"
        + _SAME_COMMAND
        + rb"(?:-u|--user)(?:[ \t]{0,4}|=)",
        b"smbclient",
        b"smbcacls",
        b"smbcquotas",
        b"smbget",
        b"smbtree",
        b"rpcclient",
        b"net rpc",
        b"net ads",
        b"net rap",
        b"net sam",
        validator=_samba_pair,
    ),
    # lftp -u user,X: `-u user` alone prompts. Its `open -u user,X`, in a
    # script or at its prompt, with no `lftp` before it.
    _cli(rb"lftp" + _SAME_COMMAND + rb"-u[ \t]{1,4}", b"lftp", validator=_lftp_pair),
    _cli(
        rb"open(?:[ \t]{1,4}-[^\s\x00]{1,32}+){0,4}?[ \t]{1,4}-u[ \t]{1,4}",
        b"open",
        validator=_lftp_pair,
    ),
    # net user NAME X /add, net user /add NAME X, net user NAME /add X: not
    # `*` (a prompt) nor a switch (`/active:yes`).
    _cli(
        rb"(?:net user|net\.exe user)(?:[ \t]{1,4}/add)?"
        rb"[ \t]{1,4}(?:\"[^\"\n\x00]{1,64}+\"|[^\s\x00\"/]{1,64}+)"
        rb"(?:[ \t]{1,4}/add)?[ \t]{1,4}(?![/*])",
        b"net user",
        b"net.exe user",
        validator=_chosen,
    ),
    # useradd -p X, usermod -p X: the password as crypt(3) writes it (or, by
    # mistake, in clear); either opens the account. In the raw view, since
    # `-P` is their `--prefix`.
    _cli(
        rb"user(?:add|mod)" + _SAME_COMMAND + rb"-p[ \t]{1,4}",
        b"useradd",
        b"usermod",
        view="raw",
        validator=_chosen,
    ),
    # chpasswd fed by a here-document: `chpasswd <<EOF`, then `user:X` on the
    # next line (piped and here-string input are read below).
    _cli(
        rb"chpasswd[^\n\x00|;&]{0,80}?<<-?[ \t]{0,4}"
        rb"[\"']?[a-z_]{1,16}[\"']?[ \t]{0,8}\r?\n[ \t]{0,8}",
        b"chpasswd",
        validator=_chosen_pair,
        value=rb"(?P<v>[^\s\x00:]{1,64}+:[^\s\x00]{1,200}+)",
    ),
    # PowerShell: ConvertTo-SecureString X -AsPlainText, the flags in any order.
    _cli(
        rb"convertto-securestring(?=[^\n\x00|;]{0,240}?-asplaintext)"
        rb"(?:[ \t]{1,4}-(?:asplaintext|force)(?![a-z]))*[ \t]{1,4}(?:-string[ \t]{1,4})?",
        b"convertto-securestring",
        validator=_chosen,
    ),
    # A password piped to a command that reads it from its input: `echo X |
    # docker login --password-stdin`, `printf '%s' X | passwd --stdin bob`,
    # `echo X | sudo -S cmd`, `yes X | sudo -S cmd`, `echo X | kinit`, `gpg
    # --passphrase-fd 0`; with or without spaces around the pipe.
    _cli(
        rb"(?:echo|printf|yes)" + _ECHOED,
        b"echo",
        b"printf",
        b"yes",
        validator=_chosen,
        after=rb"(?=[ \t]{0,4}\|(?!\|)" + _PIPED_TO + rb")",
        value=_PIPED_VALUE,
    ),
    # A here-string piped on: `cat <<< X | sudo -S cmd`.
    _cli(
        rb"<<<[ \t]{0,4}",
        b"<<<",
        validator=_chosen,
        after=rb"(?=[ \t]{0,4}\|(?!\|)" + _PIPED_TO + rb")",
        value=_PIPED_VALUE,
    ),
    # Process substitution, a file whose content is the password:
    # `--password-file <(echo X)`, `--key-file <(printf '%s' X)`.
    _cli(
        rb"<\((?:echo|printf)" + _ECHOED,
        b"<(echo",
        b"<(printf",
        validator=_chosen,
        after=rb"[ \t]{0,4}\)",
        value=_PIPED_VALUE,
    ),
    # The same after a here-string: `docker login --password-stdin <<< X`,
    # `sudo -S cmd <<< X`.
    _cli(
        rb"(?:stdin|passwd|kinit|-fd [ \t]{0,3}0|"
        + _SUDO_STDIN
        + rb")[^\n\x00|;&]{0,120}?<<<[ \t]{0,4}",
        b"stdin",
        b"passwd",
        b"kinit",
        b"-fd ",  # with its space: "-fd" alone is as likely inside a UUID
        b"sudo",
        validator=_chosen,
        value=_PIPED_VALUE,
    ),
)
