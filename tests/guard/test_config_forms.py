"""Passwords given in the forms a config file or a command line writes them
besides `key=value`: YAML's block scalars, tags, anchors and next-line
values, `.pgpass` lines, CSV columns, password flags with a weak value, and
a PIN after "passcode", "pin code" or "unlock code"; look-alikes stay stored."""

from __future__ import annotations

import pytest

from tree_ring.guard import check_fields, find_secret
from tree_ring.model.errors import SecretRefused

P = "h7Qe2ZrX9pLk4VtN8mWs3Yb7"

REFUSED = {
    # .pgpass: host:port:database:user:password
    f"db.internal:5432:reporting:report_ro:{P}": "pgpass-password",
    f"*:*:*:postgres:{P}": "pgpass-password",
    "db:5432:app:bob:hunter2pw": "pgpass-password",
    "db:5432:app:bob:hunt\\:er2pw": "pgpass-password",
    "add db:5432:app:bob:hunter2pw, then chmod 600 ~/.pgpass": "pgpass-password",
    "/var/run/postgresql:5432:*:replicator:Tz9!kq2Wm": "pgpass-password",
    # YAML after a password key
    f"postgresql:\n  auth:\n    password: |\n      {P}\n": "password-assignment",
    f"password: >-\n  {P}\n": "password-assignment",
    "password: |-\n  hunter2pw\n": "password-assignment",
    "password: >+2 # folded\n    hunter2pw\n": "password-assignment",
    f"auth:\n  password: !!str {P}\n": "password-assignment",
    f"auth:\n  password: &pw {P}\n": "password-assignment",
    "auth:\n  password: &pw !!str hunter2pw\n": "password-assignment",
    f"auth:\n  password:\n    {P}\n": "password-assignment",
    'auth:\n  db_password:\n    "hunter2pw"\n': "password-assignment",
    # CSV whose header names a password column
    f"user,password\nadmin,{P}\n": "password-assignment",
    '"user","password"\n"admin","hunter2pw"': "password-assignment",
    "id,user,db_password,env\n1,app,<redacted>,dev\n2,admin,hunter2pw,prod": (
        "password-assignment"
    ),
    # Flags that take only a password, with a weak value
    "mysql -u root -phunter2pw app": "cli-password",
    "mysql -h db -P3306 -u root -phunter2pw": "cli-password",
    "sshpass -p hunter2pw ssh h": "cli-password",
    "sshpass -v -p hunter2pw ssh h": "cli-password",
    "redis-cli -a hunter2pw ping": "cli-password",
    "keytool -storepass hunter2pw -keystore x.jks": "cli-password",
    "psql --password hunter2pw": "cli-password",
    "gpg --passphrase tango-violet-anchor-meadow --batch": "cli-password",
    "htpasswd -bc .htpasswd admin hunter2pw": "cli-password",
    "ldapsearch -x -D cn=admin -w hunter2pw": "cli-password",
    "curl -u admin:hunter2pw https://ci.acme.io": "cli-password",
    "openssl enc -aes-256-cbc -pass pass:hunter2pw -in a": "password-assignment",
    # A PIN after a word that names one
    "the alarm passcode is 482913": "password-in-prose",
    "the phone unlock code is 482913": "password-in-prose",
    "pin code 4829 for the safe": "password-in-prose",
    "Use pincode 4829 at the door": "password-in-prose",
}


@pytest.mark.parametrize(("text", "rule"), REFUSED.items(), ids=list(range(len(REFUSED))))
def test_a_password_in_these_forms_is_refused(text: str, rule: str) -> None:
    assert find_secret(text) == rule
    with pytest.raises(SecretRefused) as caught:
        check_fields({"summary": "Staging notes", "details": text})
    assert (caught.value.rule, caught.value.field) == (rule, "details")


def test_a_pgpass_line_is_refused_in_a_tombstones_reason_and_a_source_ref() -> None:
    with pytest.raises(SecretRefused) as caught:
        check_fields({"summary": "Staging notes", "source_ref": f"*:*:*:postgres:{P}"})
    assert (caught.value.rule, caught.value.field) == ("pgpass-password", "source_ref")


STORED = [
    # .pgpass look-alikes and stand-ins
    "localhost:5432:*:postgres:postgres",
    "*:*:*:*:${PGPASSWORD}",
    "*:*:*:replicator:",
    "db.internal:5432:reporting:report_ro:*",
    "hostname:port:database:username:password",
    "10:15:32:INFO:Starting",
    "app.py:42:ERROR:root:Timeout",
    "web01:8080:ERROR:root:Connection refused",
    "fe80::1:2:3:4",
    "00:1a:2b:3c:4d:5e",
    "root:x:0:0:root:/root:/bin/bash",
    'a:2:{i:0;s:5:"hello";}',
    "jdbc:oracle:thin:@db:1521:ORCL",
    # YAML: other tags, aliases, stand-ins, nested mappings, prose
    "db_password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  6638643965323633646262656665",
    "password: !secret db_password",
    "password: *pw",
    "password: &pw ${DB_PASSWORD}",
    "password: !!str changeme",
    "password: |\n  ${DB_PASSWORD}",
    "password:\n  existingSecret: pg-auth\n  key: password",
    "password:\n  secretKeyRef:\n    name: db",
    "auth:\n  password:\n  username: app",
    "  password:\n  hunter2pw",
    "password:\n- rotate monthly",
    "password: # set by the chart\n  existingSecret: x",
    "password: >\n  must be at least 12 characters long",
    "Reset the password:\n    Go to settings and click reset",
    # CSV: columns about a password, stand-ins, prose with commas
    "id,email,password_hash\n1,a@b.c,$2b$12$abcdefghijklmnopqrstuv",
    "id,email,hashed_password\n1,a@b.c,$2b$12$KIXQJ7y1rV4o8bW1d3Yt4e",
    "user,password\nadmin,<redacted>",
    "user,password\nadmin,${ADMIN_PASSWORD}",
    "name,password\nalice,",
    "We need the user, password\nand the rest of it, later",
    "Fields: user,password\nThen come the rows",
    # -p and other flags that are no password, and flags given stand-ins
    "mkdir -p /var/lib/mysql",
    "ssh -p 2222 deploy@host",
    "docker run -p 8080:80 nginx",
    "docker run -u 1000 -p 8443 app",
    "psql -U postgres -p 5433 -d app",
    "mysql -h db -P 3306 -u root -p app",
    "mysql -h db -P3306 -u root -p",
    "mysql -u root -p$MYSQL_PWD app",
    "mysql -uroot -proot",
    "mysqldump -u root -p --all-databases",
    "rsync -avP mysql/ backup/",
    "sshpass -f ~/.pw ssh -p 8022 host",
    "sshpass -P assword -e ssh host",
    'sshpass -p "$SSHPASS" ssh host',
    'redis-cli -a "$REDIS_PASSWORD" ping',
    "redis-cli --no-auth-warning -a $REDIS_PASS ping",
    "keytool -storepass changeit -list",
    "ldapsearch -x -W -b dc=example,dc=com mail",
    "use the --password flag when prompted",
    "the --passphrase option is read from a file",
    "docker login --password-stdin",
    "openssl enc -aes-256-cbc -pass env:MYPASS -in a -out b",
    "openssl enc -aes-256-cbc -pass file:./pw.txt",
    "curl -u deploy2024 https://x",
    "curl -u admin:admin http://localhost",
    "curl -u elastic:changeme http://localhost:9200",
    "--password <your-password>",
    # Codes that are no PIN: a meeting's, a year, a run, a field
    "Meeting ID: 812 3456 7890\nPasscode: 482913",
    "Join Zoom: passcode 482913",
    "Passcode: 482913",
    "passcode 2024 rollout",
    "The passcode is 6 digits long",
    "pin code 1234",
    "the pin code field accepts 4 to 8 digits",
    "unlock code 0000",
    "unlock code is sent by SMS",
    "spin code 4829",
]


@pytest.mark.parametrize("text", STORED)
def test_look_alikes_are_stored(text: str) -> None:
    assert find_secret(text) is None
    assert check_fields({"summary": "Staging notes", "details": text}) == "normal"
