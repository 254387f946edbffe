"""A key or an AWS key id right after a path-like prefix ("cfg/", "a/b/",
"./", "cfg\\", and "prod:" for a key given its value by "=") is a secret
as it is after "-" or ".": the assignment rules
and `aws-access-key` read "/" and "\\" as a boundary, in every field (a
summary, a `--file` path, an import row's `files[].path`) and in the secret
sweep. So do the prose rules ("cfg/password is X"): only an ARN's segment,
between two ":", is no keyword. Ordinary paths and prose that only name a
token or a password stay accepted.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import PERSON, CliRunner, make_memory

from tree_ring import guard
from tree_ring.model.errors import SecretRefused
from tree_ring.store.db import Store
from tree_ring.upkeep import maintain
from tree_ring.write import pipeline

AKIA = "AKIAQ3EGRXLM4ZP7WJ2N"
TOKEN = "R8x2Lq9ZvT4mN7bK1wY3cH6p"
PASSWORD = "Xq9vT2mLp8sR4"

# The key or id after each prefix, and the rule that refuses it.
SECRETS = {
    "token": (f"token={TOKEN}", "token-assignment"),
    "aws": (AKIA, "aws-access-key"),
    "asia": ("ASIAQ3EGRXLM4ZP7WJ2N", "aws-access-key"),
    "password": (f"password={PASSWORD}", "password-assignment"),
    "passwd": (f"passwd: {PASSWORD}", "password-assignment"),
    "secret": (f"secret={TOKEN}", "secret-assignment"),
    "secret-colon": (f"secret: {TOKEN}", "secret-assignment"),
}
PREFIXES = {"slash": "cfg/", "backslash": "cfg\\", "dot-slash": "./", "nested": "a/b/"}

# Paths and sentences that name a token, a secret or a password file.
ORDINARY = [
    "/etc/passwd",
    "see /etc/passwd for the users",
    "/etc/passwd: root:x:0:0:root:/root:/bin/bash",
    "src/token_store.py holds the token logic",
    "the token in cfg/token.txt is rotated weekly",
    "docs/secret.md explains how to rotate the deploy secret",
    "cfg/password is read from vault at start",
    "see config/secrets.yaml and app/password_reset.py",
    "GET /oauth/token returns a bearer token",
    "POST /api/token: exchanges the code for a session",
    "vault kv get secret/token prints the deploy token",
    "arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf",
    "cfg/token=${DEPLOY_TOKEN} is set by the pipeline",
    "cfg/password=os.environ['DB_PASSWORD'] in settings",
    "https://docs.aws.amazon.com/keys/AKIAIOSFODNN7EXAMPLE",
]


@pytest.mark.parametrize("prefix", PREFIXES.values(), ids=PREFIXES.keys())
@pytest.mark.parametrize("kind", SECRETS.keys())
def test_a_secret_after_a_path_prefix_is_found(prefix: str, kind: str) -> None:
    secret, rule = SECRETS[kind]
    assert guard.find_secret(f"see {secret}") == rule
    assert guard.find_secret(f"see {prefix}{secret}") == rule
    with pytest.raises(SecretRefused) as caught:
        guard.check_fields({"summary": f"see {prefix}{secret}"})
    assert caught.value.rule == rule and caught.value.field == "summary"


@pytest.mark.parametrize("prefix", ["prod:", "k8s:", "a:b:"])
@pytest.mark.parametrize("kind", ["token", "password", "secret"])
def test_a_key_given_a_value_by_equals_after_a_colon_is_found(prefix: str, kind: str) -> None:
    # An ARN's segment ("...:secret:name") is followed by ":"; a key after
    # "prod:" given a value by "=" assigns one.
    secret, rule = SECRETS[kind]
    assert guard.find_secret(f"see {prefix}{secret}") == rule
    assert guard.find_secret(f"arn:aws:service:us-east-1:123456789012:{kind}:name") is None


@pytest.mark.parametrize("text", ORDINARY)
def test_paths_and_prose_about_credentials_stay_ordinary(text: str) -> None:
    assert guard.find_secret(text) is None
    guard.check_fields({"summary": text})


# A credential given in a sentence, its keyword after a prefix, and the rule.
PROSE = {
    "password": (f"password is {PASSWORD}", "password-in-prose"),
    "passphrase": (f"passphrase is {PASSWORD}", "password-in-prose"),
    "pw": (f"pw is {PASSWORD}", "password-in-prose"),
    "secret": (f"secret is {TOKEN}", "secret-in-prose"),
    "creds": (f"creds are {TOKEN}", "secret-in-prose"),
    "pin": ("pin is 4829", "password-in-prose"),
}


@pytest.mark.parametrize("prefix", ["cfg/", "a/b/", "./", "prod:", "k8s:"])
@pytest.mark.parametrize("kind", PROSE.keys())
def test_a_credential_in_prose_after_a_prefix_is_found(prefix: str, kind: str) -> None:
    secret, rule = PROSE[kind]
    assert guard.find_secret(f"see the {secret}") == rule
    assert guard.find_secret(f"see {prefix}{secret}") == rule


@pytest.mark.parametrize("kind", ["password", "secret", "pin"])
def test_an_arn_segment_is_no_keyword(kind: str) -> None:
    text = f"arn:aws:secretsmanager:us-east-1:123456789012:{kind}:is-{TOKEN}"
    assert guard.find_secret(text) is None


def count(run_cli: CliRunner) -> int:
    return int(run_cli("--json", "list").json()["total"])


@pytest.mark.parametrize(
    "summary",
    [
        f"see cfg/token={TOKEN}",
        f"see cfg/{AKIA}",
        f"see a/b/password={PASSWORD}",
        f"see cfg/secret={TOKEN}",
        f"see cfg/passwd: {PASSWORD}",
        f"see ./token={TOKEN}",
    ],
)
def test_remember_refuses_a_prefixed_secret(run_cli: CliRunner, summary: str) -> None:
    done = run_cli("remember", summary)
    assert done.code == 2, done.err
    assert done.err.startswith("error: refused: summary looks like a secret")
    assert summary.split()[-1] not in done.err
    assert count(run_cli) == 0


def test_remember_stores_a_note_naming_token_files(run_cli: CliRunner) -> None:
    for summary in ORDINARY[3:9]:
        done = run_cli("remember", summary)
        assert done.code == 0, done.err
    assert count(run_cli) == 6


def test_a_file_path_holding_a_key_id_is_refused(run_cli: CliRunner, project_root: Path) -> None:
    folder = project_root / "cfg"
    folder.mkdir()
    (folder / f"{AKIA}.env").write_bytes(b"x\n")
    (folder / "token.txt").write_bytes(b"x\n")
    done = run_cli("remember", "Retry settings", "--file", f"cfg/{AKIA}.env")
    assert done.code == 2, done.err
    assert done.err.startswith("error: refused: files[0] looks like a secret")
    assert AKIA not in done.err
    assert count(run_cli) == 0
    kept = run_cli("remember", "Retry settings", "--file", "cfg/token.txt")
    assert kept.code == 0, kept.err


def import_row(run_cli: CliRunner, tmp_path: Path, path: str) -> tuple[int, str]:
    project = run_cli("--json", "status").json()["project"]
    row = {
        "id": "mem_20261201_100000_00000000a0a0",
        "project": project,
        "summary": "Retry settings live in the cfg folder",
        "files": [{"path": path, "blob": "0" * 40, "commit": None, "at": "2026-12-01T00:00:00Z"}],
    }
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps(row) + "\n", encoding="utf-8")
    done = run_cli("import", str(source))
    return done.code, done.err


def test_an_import_path_holding_a_key_id_is_refused(run_cli: CliRunner, tmp_path: Path) -> None:
    code, err = import_row(run_cli, tmp_path, f"cfg/{AKIA}.txt")
    assert code != 0 and "files[0] looks like a secret" in err
    assert AKIA not in err
    assert count(run_cli) == 0
    code, err = import_row(run_cli, tmp_path, "cfg/token.txt")
    assert code == 0, err
    assert count(run_cli) == 1


def test_the_secret_sweep_catches_prefixed_secrets_stored_before(
    store: Store, project_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as patched:
        patched.setattr(guard, "check_fields", lambda fields: "normal")
        leaked = {
            pipeline.store_memory(store, make_memory(project_id, text), PERSON).id
            for text in (f"see cfg/token={TOKEN}", f"see cfg/{AKIA}")
        }
    pipeline.store_memory(store, make_memory(project_id, "see cfg/token.txt"), PERSON)
    report = maintain.maintain(store, PERSON)
    assert {(s.id, s.field) for s in report.secrets} == {(i, "summary") for i in leaked}


# A key, secret or token a sentence names by its ARN or its file's path: no secret.
NAMED = [
    "The KMS key is arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
    "The secret is k8s/prod/sealed-secrets.yaml",
    "the api key is config/keys/stripe_live.json",
    "the token is ./deploy/tokens/ci.env",
]


@pytest.mark.parametrize("text", NAMED)
def test_a_credential_named_by_its_arn_or_path_is_no_secret(text: str) -> None:
    assert guard.find_secret(text) is None


@pytest.mark.parametrize(
    "value", [f"{TOKEN}.txt", f"a/{TOKEN}/b.json", f"{PASSWORD}/x.py", "Spring#2025/x.py"]
)
def test_a_generated_string_with_a_file_s_ending_is_still_one(value: str) -> None:
    assert guard.find_secret(f"the secret is {value}") is not None
