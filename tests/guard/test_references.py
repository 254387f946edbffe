"""Variables and templates that stand in for a secret, in whole notes.

A reference to where a secret lives (a shell variable in a path, Grafana's
`$__env{...}`, a Helm or Jinja template in a URL's password) is stored; a
literal value in the same place is refused, by the rule named.
"""

from __future__ import annotations

import pytest

from tree_ring.guard import find_secret

# A GitHub token's shape with a random body, built here so no scanner reads
# this file as holding one.
_GITHUB_TOKEN = "ghp_" + "aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY1zA3"


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        # Docker BuildKit's --secret flag, as its documentation writes it.
        (
            "Docker build secrets are passed with --secret id=npmrc,src=$HOME/.npmrc"
            " so the token never lands in a layer",
            None,
        ),
        ("docker build --secret id=npmrc,src=$HOME/.npmrc .", None),
        ("docker build --secret id=npmrc,src=$XDG_CONFIG_HOME/npm/npmrc .", None),
        ("docker build --secret id=aws,src=$HOME/.aws/credentials .", None),
        ("docker build --secret id=npmrc,env=$NPM_TOKEN .", None),
        ("the build secret is id=npmrc,src=$HOME/.npmrc", None),
        ("--secret id=npmrc,src=${HOME}/.npmrc", None),
        ("--secret id=npmrc,src=~/.npmrc", None),
        ("--secret id=npmrc,src=.npmrc", None),
        # A literal beside the flag, or a "$" inside a password, is refused.
        (f"--secret id=x,token={_GITHUB_TOKEN}", "github-token"),
        ("the secret for prod is id=npmrc,src=Xk9mQ2vL8pR4wT", "secret-in-prose"),
        ("the secret is Zq8$PLMN7rTx", "secret-in-prose"),
        ("the secret is Xk9$mQ2vL8pR4", "secret-in-prose"),
        # Grafana's provisioning expansions.
        (
            "The Grafana provisioning file sets `adminPassword: $__env{GF_ADMIN_PASSWORD}`;"
            " the value comes from the k8s secret.",
            None,
        ),
        ("adminPassword: $__env{GF_ADMIN_PASSWORD}", None),
        ("adminPassword: $__file{/etc/secrets/grafana}", None),
        ("adminPassword: $__vault{kv:secret/grafana:admin_password}", None),
        ('adminPassword: "$__env{GF_ADMIN_PASSWORD}"', None),
        ("admin_password = $__file{/etc/secrets/grafana}", None),
        ("the admin password is $__env{GF_ADMIN_PASSWORD}", None),
        ("adminPassword: Tr0ub4dor&3", "password-assignment"),
        ("adminPassword: $__Xk9mQ2vL8pR4wT", "password-assignment"),
        ('adminPassword: "$__x7K2m9q4Lp"', "password-assignment"),
        # Helm and Jinja templates in a URL's password.
        (
            "Redis URL in the chart: `redis://:{{ .Values.redis.password }}@redis-master:6379`"
            " — templated, the value comes from a secret.",
            None,
        ),
        ("redis://:{{ .Values.redis.password }}@redis-master:6379", None),
        ("redis://:{{.Values.redis.password}}@redis-master:6379", None),
        ("redis://:{{ redis_password }}@redis:6379/0", None),
        ("redis://default:{{ .Values.auth.password | urlquery }}@redis-master:6379", None),
        ("postgresql://app:{{ .Values.postgresql.auth.password }}@db:5432/app", None),
        ("amqp://guest:{{ rabbitmq_password }}@rabbit:5672/", None),
        ("redis://:{{ .Values.redis.secret }}@redis-master:6379", None),
        ("{% if redis.password %}redis://:{{ redis.password }}@redis-master:6379{% endif %}", None),
        ("redis://:${REDIS_PASSWORD}@redis-master:6379", None),
        ("redis://:s3cr3tP4ss@redis-master:6379", "url-password"),
        ("redis://admin:s3cr3tP4ss@redis-master:6379", "url-password"),
        ("The chart's {{ .Values.redis.password }} is s3cr3tP4ss on staging", "password-in-prose"),
        ("{{ password }}: Xk9mQ2vL8pR4wT", "password-in-prose"),
        (
            "redis://:{{ .Values.redis.password }}@redis-master:6379, the password is s3cr3tP4ss",
            "password-in-prose",
        ),
    ],
)
def test_references_are_stored_and_literals_beside_them_refused(
    text: str, rule: str | None
) -> None:
    assert find_secret(text) == rule
