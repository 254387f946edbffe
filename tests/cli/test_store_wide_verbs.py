"""The verbs that act on the store as a whole (its tree, policy, audit log,
upkeep) resolve the project as every other verb does: a damaged project.json
is refused in one line, and a `--project` naming another project is refused
as a write's is, since what they show and change is this store's."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import CliRunner
from governance_support import query

from tree_ring.model import project

OTHER = "p-00000000"

STORE_WIDE = [
    ("tree", "status"),
    ("policy", "status"),
    ("policy", "audit"),
    ("policy", "enable", "--coordinator", "lead"),
    ("policy", "rotate"),
    ("policy", "disable"),
    ("review", "policy"),
    ("review", "policy", "--set", "agent_shared=false"),
    ("audit", "verify"),
    ("maintain",),
    ("maintain", "--vacuum"),
]


def _state(root: Path) -> tuple[object, ...]:
    return tuple(
        tuple(tuple(row) for row in query(root, f"SELECT * FROM {table} ORDER BY rowid"))
        for table in ("settings", "audit_log", "policy_audit")
    )


@pytest.mark.parametrize("argv", STORE_WIDE, ids=" ".join)
def test_a_damaged_project_json_is_refused_as_every_verb_refuses_it(
    run_cli: CliRunner, project_root: Path, argv: tuple[str, ...]
) -> None:
    path = project_root / project.DIR / project.PROJECT_FILE
    # The line the verbs that resolve their caller give (`brief` among them).
    path.write_text('{"project_id": \n', encoding="utf-8")
    expected = run_cli("brief")
    assert expected.code == 2 and "project.json is not valid JSON" in expected.err
    before = _state(project_root)
    done = run_cli(*argv)
    assert (done.code, done.out, done.err) == (2, "", expected.err)
    assert _state(project_root) == before


def test_tree_status_naming_another_project_is_refused_as_tree_flush_is(
    run_cli: CliRunner, project_id: str
) -> None:
    for verb in ("status", "flush"):
        done = run_cli("tree", verb, "--project", OTHER)
        assert (done.code, done.out) == (2, "")
        assert done.err == (
            f"error: this store belongs to project {project_id}, not {OTHER}; drop --project, "
            f"or run `tree-ring tree {verb}` in {OTHER}'s folder\n"
        )
    own = run_cli("--json", "tree", "status", "--project", project_id)
    assert own.code == 0, own.err


def test_a_project_json_naming_another_project_is_named_as_that_before_the_flag(
    run_cli: CliRunner, project_root: Path, project_id: str
) -> None:
    """With project.json edited to name another project, `--project` naming
    the store's own is not told the store belongs to the edited name: the
    file is refused for what it is, as without the flag."""
    path = project_root / project.DIR / project.PROJECT_FILE
    path.write_text(f'{{"project_id": "{OTHER}"}}\n', encoding="utf-8")
    plain = run_cli("tree", "status")
    assert plain.code != 0 and f"belongs to project {project_id}" in plain.err, plain.err
    named = run_cli("tree", "status", "--project", project_id)
    assert (named.code, named.err) == (plain.code, plain.err)
