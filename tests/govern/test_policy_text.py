"""What `policy` and `review policy` store is held to the text policy of every field.

The coordinator's name, the reason a policy change keeps and the name a
change is recorded under go into the settings, the policy audit and the
audit log, and `--json` returns them as they are: a bidi override or a tag
character in them would read one way to a person and another to a model.
So each refuses what every text field refuses, in one line, and changes
nothing; and `review policy --set` takes each key once, as `config set` does.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from governance_support import INVISIBLE, TOKEN_VAR, enable, rows_of
from helpers import CliRunner

# Each option that records free text, and what its error calls the value.
WHAT = {
    "policy enable --coordinator": "the coordinator name",
    "policy rotate --coordinator": "the coordinator name",
    "policy rotate --reason": "the reason",
    "policy disable --reason": "the reason",
    "policy enable --agent-profile": "the agent profile",
    "policy disable --agent-profile": "the agent profile",
    "review policy --agent-profile": "the agent profile",
}


def everything(root: Path) -> list[tuple[object, ...]]:
    """Every row of the tables a policy change writes, to compare before and after."""
    return rows_of(root, "settings", "policy_audit", "audit_log")


def command(option: str, value: str, token: str) -> tuple[list[str], dict[str, str]]:
    """The command that stores `value` through `option`, and its environment."""
    held = {TOKEN_VAR: token}
    return {
        "policy enable --coordinator": (["policy", "enable", "--coordinator", value], {}),
        "policy rotate --coordinator": (["policy", "rotate", "--coordinator", value], held),
        # Without the capability: a person's recovery, whose reason is kept.
        "policy rotate --reason": (["policy", "rotate", "--reason", value], {}),
        "policy disable --reason": (["policy", "disable", "--reason", value], {}),
        "policy enable --agent-profile": (
            ["policy", "enable", "--coordinator", "lead", "--agent-profile", value],
            {},
        ),
        "policy disable --agent-profile": (
            ["policy", "disable", "--agent-profile", value],
            held,
        ),
        "review policy --agent-profile": (
            ["review", "policy", "--set", "agent_heartwood=false", "--agent-profile", value],
            held,
        ),
    }[option]


@pytest.mark.parametrize("option", list(WHAT))
@pytest.mark.parametrize("name", list(INVISIBLE))
def test_a_policy_value_holding_an_invisible_character_is_refused(
    run_cli: CliRunner, project_root: Path, option: str, name: str
) -> None:
    # Every option but enable's acts on a coordinated store.
    token = "" if option.startswith("policy enable") else enable(run_cli)
    before = everything(project_root)
    words, environ = command(option, f"lead{INVISIBLE[name]}x", token)
    done = run_cli(*words, environ=environ)
    assert (done.code, done.out) == (2, "")
    assert done.err == (
        f"error: {WHAT[option]} contains control characters or invisible formatting "
        f"(U+{ord(INVISIBLE[name]):04X} at character 5); remove them and retry\n"
    )
    assert everything(project_root) == before
    # The same command takes the value without the character.
    words, environ = command(option, "leadx", token)
    plain = run_cli(*words, environ=environ)
    assert plain.code == 0, plain.err
    assert everything(project_root) != before


@pytest.mark.parametrize(
    "sets",
    [
        ["agent_heartwood=false", "agent_heartwood=true"],
        ["agent_heartwood=false", "agent_heartwood=false"],
        ["agent_heartwood=false", "agent_shared=false", " agent_heartwood = TRUE"],
        # An earlier name of a key is the key.
        ["agent_project_rules=false", "agent_shared=true"],
    ],
)
def test_review_policy_refuses_a_key_given_twice(
    run_cli: CliRunner, project_root: Path, sets: list[str]
) -> None:
    before = everything(project_root)
    shown = run_cli("--json", "review", "policy").json()["review_policy"]
    key = "agent_shared" if "agent_project_rules=false" in sets else "agent_heartwood"
    done = run_cli("review", "policy", *(word for value in sets for word in ("--set", value)))
    assert (done.code, done.out) == (2, "")
    assert done.err == (
        f"error: {key} is given more than once; review policy --set takes each key once, "
        f"even with the same value; keep one --set {key}=VALUE and retry\n"
    )
    assert everything(project_root) == before
    assert run_cli("--json", "review", "policy").json()["review_policy"] == shown
    # Each key once is taken.
    once = run_cli("--json", "review", "policy", "--set", sets[0], "--set", "contradictions=false")
    assert once.code == 0, once.err
    assert once.json()["changed"] == {key: False, "contradictions": False}
