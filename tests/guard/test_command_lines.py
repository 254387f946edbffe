"""Passwords given to commands whose argument in that place can only be a
password: `openssl enc -k`, `zip -P`/`unzip -P`, 7-Zip's `-p` (glued or
spaced), `net use`'s password after the share or `/user:`, smbclient's
`-U user%password` (and that of Samba's other clients) and lftp's
`-u user,password`. A weak password is refused like a generated one;
stand-ins, prompts and the commands' other arguments stay stored. A
command continued over lines (a backslash or cmd.exe's `^` at a line's
end) is read joined, as the shell reads it."""

from __future__ import annotations

import pytest

from tree_ring.guard import check_fields, find_secret
from tree_ring.guard.command_lines import joined_lines
from tree_ring.model.errors import SecretRefused

P = "h7Qe2ZrX9pLk4VtN8mWs3Yb7"

REFUSED = {
    # openssl: -k X; -pass pass:X reads as a password key's assignment
    f"openssl enc -aes-256-cbc -k {P} -in f": "cli-password",
    "openssl enc -d -aes-256-cbc -k hunter2pw -in f.enc -out f": "cli-password",
    "openssl aes-256-cbc -salt -k 'Summer2024!' -in a -out a.enc": "cli-password",
    f"openssl enc -aes-256-cbc -pass pass:{P} -in f": "password-assignment",
    # zip and unzip: -P X
    f"zip -P {P} secret.zip f": "cli-password",
    "zip -r -P hunter2pw backup.zip src": "cli-password",
    "unzip -P hunter2pw backup.zip": "cli-password",
    "unzip -o -P 'Tr0ub4dor&3' backup.zip -d out": "cli-password",
    # 7-Zip: -pX glued, -p X spaced, anywhere after the command letter
    f"7z a -p{P} a.7z f": "cli-password",
    "7z a -phunter2pw a.7z f": "cli-password",
    "7z x -p hunter2pw a.7z": "cli-password",
    "7za x -pSummer2024! -oout a.7z": "cli-password",
    "7z a -tzip archive.zip files -p'Tr0ub4dor&3'": "cli-password",
    # net use: the password after the share, or after /user:
    f"net use Z: \\\\srv\\share /user:bob {P}": "cli-password",
    "net use \\\\host\\share /user:DOMAIN\\user hunter2pw": "cli-password",
    "NET USE Z: \\\\srv\\share hunter2pw /USER:bob": "cli-password",
    "net use * \\\\srv\\share Summer2024! /user:ACME\\bob /persistent:no": "cli-password",
    # smbclient: -U user%X
    f"smbclient //srv/share -U bob%{P}": "cli-password",
    "smbclient //srv/share -U bob%hunter2pw": "cli-password",
    "smbclient -Ubob%hunter2pw -L srv": "cli-password",
    "smbclient --user=bob%hunter2pw //srv/share": "cli-password",
    "smbclient -U 'ACME\\bob%Summer2024!' //srv/share": "cli-password",
    # lftp: -u user,X, also inside its own script
    f"lftp -u bob,{P} sftp://host": "cli-password",
    "lftp -u bob,hunter2pw sftp://host": "cli-password",
    "lftp -e 'open -u bob,hunter2pw ftp.acme.io; mirror out'": "cli-password",
    "lftp -u 'bob,Summer2024!' ftp://host": "cli-password",
    # lftp's own `open -u user,X`, in its script or at its prompt
    "open -u bob,hunter2pw ftp.acme.io": "cli-password",
    f"lftp :~> open -e 'ls' -u deploy,{P} sftp://host": "cli-password",
    # a password piped to a command that reads it from its input
    "echo 'hunter2pw' | docker login --password-stdin -u bob": "cli-password",
    f"echo -n {P} | podman login quay.io -u bob --password-stdin": "cli-password",
    "printf '%s' 'Summer2024!' | passwd --stdin bob": "cli-password",
    "printf 'Tr0ub4dor&3\\n' | passwd --stdin bob": "cli-password",
    "echo Summer2024! | sudo -S apt-get update": "cli-password",
    "echo 'bob:Summer2024!' | chpasswd": "cli-password",
    "echo hunter2pw | kinit bob@ACME.IO": "cli-password",
    "echo 'hunter2pw' | gpg --batch --passphrase-fd 0 -c notes.txt": "cli-password",
    "docker login -u bob --password-stdin <<< 'Summer2024!'": "cli-password",
    # zip's -P at the end of combined short flags
    f"zip -rP {P} out.zip dir": "cli-password",
    "zip -erP hunter2pw out.zip dir": "cli-password",
    "unzip -oP hunter2pw backup.zip": "cli-password",
    # net use's /u: is /user: shortened
    f"net use \\\\srv\\IPC$ /u:bob {P}": "cli-password",
    "net use Z: \\\\srv\\share /u:ACME\\bob hunter2pw": "cli-password",
    # Samba's other clients take smbclient's -U user%X
    f"rpcclient -U bob%{P} 10.0.0.5": "cli-password",
    "smbcacls //srv/share f -U bob%hunter2pw": "cli-password",
    "net rpc user -U bob%hunter2pw -S srv": "cli-password",
    "net ads join -U Administrator%Summer2024!": "cli-password",
    "smbget -U bob%hunter2pw smb://srv/share/f": "cli-password",
}

# Commands continued over lines, as long commands are pasted: the flag, or
# its value, on the line after a backslash (or cmd.exe's `^`).
CONTINUED = {
    f"sshpass \\\n  -p {P} ssh deploy@host": "cli-password",
    f"mysql -u root \\\n  -p{P} appdb": "cli-password",
    "mysql -u root \\\n  -phunter2pw appdb": "cli-password",
    f"curl \\\n  -u bob:{P} https://api.example.com": "cli-password",
    f"openssl enc -aes-256-cbc \\\n  -k {P} -in f": "cli-password",
    f"smbclient //srv/s \\\n  -U bob%{P}": "cli-password",
    f"docker login \\\n  -p {P} registry.example.com": "cli-password",
    f"sshpass \\ -p {P} ssh host": "cli-password",
    f"sshpass -p \\\n  {P} ssh host": "cli-password",
    "sshpass \\\r\n\t-p hunter2pw ssh host": "cli-password",
    f"redis-cli -h cache \\  \n    -a {P} ping": "cli-password",
    f"zip -r \\\n  -P {P} out.zip dir": "cli-password",
    f"net use Z: \\\\srv\\share ^\n  /user:bob {P}": "cli-password",
    "net use Z: \\\\srv\\share ^\r\n  hunter2pw /user:bob": "cli-password",
}


@pytest.mark.parametrize(("text", "rule"), CONTINUED.items(), ids=list(range(len(CONTINUED))))
def test_a_password_on_a_continued_line_is_refused(text: str, rule: str) -> None:
    assert find_secret(text) == rule
    with pytest.raises(SecretRefused) as caught:
        check_fields({"summary": "Shell notes", "details": text})
    assert (caught.value.rule, caught.value.field) == (rule, "details")


@pytest.mark.parametrize(
    ("text", "joined"),
    [
        ("sshpass \\\n  -p X ssh h", "sshpass -p X ssh h"),
        ("a \\\r\n\tb ^\nc", "a b c"),
        ("a \\ b", "a b"),
        ("a \\  \n  b", "a b"),
        ("C:\\temp\\dir then more", None),
        ("one line\ntwo lines", None),
    ],
)
def test_continuations_are_joined_into_spaces(text: str, joined: str | None) -> None:
    assert joined_lines(text) == joined


@pytest.mark.parametrize(("text", "rule"), REFUSED.items(), ids=list(range(len(REFUSED))))
def test_a_password_given_to_these_commands_is_refused(text: str, rule: str) -> None:
    assert find_secret(text) == rule
    with pytest.raises(SecretRefused) as caught:
        check_fields({"summary": "Shell notes", "details": text})
    assert (caught.value.rule, caught.value.field) == (rule, "details")


STORED = [
    # openssl: prompts, stand-ins, files, a hex key's -K, another command's -k
    "openssl enc -aes-256-cbc -in a -out b",
    "openssl enc -k $KEY",
    "openssl enc -aes-256-cbc -k ${ENC_KEY} -in a",
    "openssl enc -aes-256-cbc -k '***' -in a",
    "openssl enc -aes-256-cbc -k <password> -in a",
    "openssl enc -aes-256-cbc -kfile pw.txt -in a",
    "openssl enc -aes-256-cbc -pass env:ENC_PASS -in a",
    "openssl x509 -in cert.pem -noout -enddate",
    "openssl s_client -connect h:443 then curl -k https://x7k2.acme.io/a",
    "openssl s_client -connect h:443 then curl -k prod",
    # zip: no password, prompts, stand-ins, a later command's -P
    "zip -r out.zip dir",
    "zip -e secret.zip notes.txt",
    "unzip -P",
    "unzip -P $ZIP_PASSWORD backup.zip",
    "zip -P '' a.zip f",
    "zip -P - a.zip f",
    "zip the folder then scp -P 2222 host:/tmp",
    "gzip -9 big.log",
    # 7-Zip: no password, a prompt (bare -p before the archive), stand-ins
    "7z a archive.7z dir",
    "7z x -p a.7z",
    "7z a -p archive.7z dir",
    "7z a -p backup2024.zip dir",
    "7z x -p -oout a.7z",
    "7z a -p%ZIPPASS% a.7z f",
    "7z a -p$ARCHIVE_PW a.7z f",
    "7z a -p*** a.7z f",
    "7z l archive.7z then gpg -p x",
    # net use: switches, a prompt, no password
    "net use \\\\host\\share /persistent:yes",
    "net use Z: \\\\srv\\share /user:bob",
    "net use Z: \\\\srv\\share /user:bob *",
    "net use Z: \\\\srv\\share * /user:bob",
    "net use \\\\srv\\share /user:bob /persistent:no",
    "net use Z: \\\\srv\\share /delete",
    "net use Z: \\\\srv\\share then open Explorer",
    "net use Z: \\\\srv\\share /user:bob %SHARE_PASSWORD%",
    # smbclient: no password, anonymous, stand-ins
    "smbclient -L host -N",
    "smbclient //srv/share -U bob",
    "smbclient -U% -L host",
    "smbclient -U guest% -L host",
    "smbclient -U bob%$SMB_PASS //srv/share",
    "smbclient -U 'bob%***' //srv/share",
    # lftp: no password, an empty one, stand-ins
    "lftp -u user host",
    "lftp -u bob, sftp://host",
    "lftp -u bob,$LFTP_PASSWORD sftp://host",
    "lftp -u bob,- sftp://host",
    "open -u bob ftp.acme.io",
    "open -u bob,$LFTP_PASSWORD ftp.acme.io",
    "open the report with -u to see usage",
    # piped: a variable, a file, a word, a command that reads no password
    "echo $REGISTRY_PASSWORD | docker login --password-stdin -u bob",
    'echo "$PW" | sudo -S apt-get update',
    "cat ~/.pw | docker login --password-stdin -u bob",
    "printf '%s' \"$PASS\" | passwd --stdin bob",
    "echo hello | passwd --stdin bob",
    "echo Summer2024! | tee notes.txt",
    "echo 'build ok'; sudo -s",
    "echo hunter2pw | grep -c hunter",
    'docker login -u bob --password-stdin <<< "$PW"',
    # zip's combined flags without -P, and a stand-in after -rP
    "zip -rq out.zip dir",
    "zip -rP $ZIP_PASSWORD out.zip dir",
    # net use /u: with a prompt; Samba's other clients without a password
    "net use Z: \\\\srv\\share /u:bob *",
    "rpcclient -U bob 10.0.0.5",
    "net rpc user -U bob -S srv",
    "smbcacls //srv/share f -U bob%$SMB_PASS",
    "net ads join -U Administrator",
    # continued commands with no password, a prompt or a stand-in
    "sshpass \\\n  -p $SSHPASS ssh host",
    "mysql -u root \\\n  -p appdb",
    "curl \\\n  -u bob https://api.example.com",
    "docker login \\\n  -u me registry.example.com",
    "openssl enc -aes-256-cbc \\\n  -pass env:ENC_PASS -in f",
    "net use Z: \\\\srv\\share ^\n  /user:bob *",
    "smbclient //srv/s \\\n  -U bob -A creds.txt",
    # a line that ends in a backslash or caret but continues no command
    "Paths end in a separator, like C:\\temp\\\nthen zip the folder",
    "Match the line start with ^\nthen sshpass -p prompts",
]


@pytest.mark.parametrize("text", STORED)
def test_look_alikes_are_stored(text: str) -> None:
    assert find_secret(text) is None
    assert check_fields({"summary": "Shell notes", "details": text}) == "normal"


@pytest.mark.parametrize(
    "text",
    [
        "useradd -m -s /bin/bash -p 'Xq7!pLm2Rz9' deploy",
        "sudo usermod -p Vq8nT4wLz2pk deploy",
        "useradd -m -p '$6$Jq2Lk9sP$3mX0vQ7e8YtN1bR6cW4zA9dF5gH2jK8lP0oI7uY6tR5eW4qS3aD2f' ci",
        "echo 'deploy:Xq7!pLm2Rz9' | chpasswd",
        "chpasswd <<< 'admin:Hk29!xQp7'",
        "chpasswd <<EOF\ndeploy:Xq7!pLm2Rz9\nEOF",
        "sudo chpasswd <<'END'\n  ci:hunter2pw\nEND",
    ],
)
def test_a_password_given_to_useradd_usermod_or_chpasswd_is_refused(text: str) -> None:
    assert find_secret(text) == "cli-password"


@pytest.mark.parametrize(
    "text",
    [
        'useradd -m -p "$(openssl passwd -6 "$PW")" deploy',
        'usermod -p "$HASH" deploy',
        "useradd -P /mnt/chroot deploy",
        "the useradd -p flag takes an encrypted password",
        "chpasswd <<EOF\nroot:$ROOT_PW\nEOF",
        "chpasswd reads user:password pairs from its input",
    ],
)
def test_useradd_without_a_password_literal_is_not(text: str) -> None:
    assert find_secret(text) is None
