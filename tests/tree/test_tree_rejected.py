"""A rejection that tombstones a memory's content takes it out of the summary
tree, as forgetting does: no `[history]` line or `recall --tree` goes on
quoting words a write would refuse. The other memories sealed beside it stay."""

from __future__ import annotations

from governance_support import CLAUDE, remember, write
from helpers import CliRunner

WRONG = "The payroll export runs from host zeus-prod-7 nightly"
OTHER = "Builds use the cached toolchain image"
LATER = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s2"}


def tree_recall(run_cli: CliRunner, query: str) -> str:
    done = run_cli("recall", "--tree", query, environ=LATER)
    assert done.code == 0, done.err
    return done.out


def brief_lines(run_cli: CliRunner) -> list[str]:
    done = run_cli("brief", environ=LATER)
    assert done.code == 0, done.err
    return done.out.splitlines()


def test_a_rejected_memory_leaves_the_history_line_and_tree_recall(
    run_cli: CliRunner,
) -> None:
    assert run_cli("config", "set", "tree.input_token_budget=15").code == 0
    wrong = write(run_cli, "remember", WRONG, "--scope", "project", environ=CLAUDE)["id"]
    write(run_cli, "review", "approve", wrong, "--reason", "looks right")
    other = remember(run_cli, OTHER)
    write(run_cli, "review", "dispute", wrong, "--reason", "wrong host")
    [history] = [line for line in brief_lines(run_cli) if line.startswith("[history] ")]
    assert history.startswith(f'[history] "{WRONG}" | "{OTHER}" (summary node_1_')
    assert WRONG in tree_recall(run_cli, "payroll export host")

    done = write(run_cli, "review", "reject", wrong, "--reason", "payroll never runs on zeus")
    assert done["trust"] == "rejected"
    assert [line for line in brief_lines(run_cli) if "zeus" in line] == []
    assert tree_recall(run_cli, "payroll export host") == (
        "no summary mentions that (plain `recall` searches every memory)\n"
    )
    [node] = tree_recall(run_cli, "cached toolchain image").splitlines()
    assert node.endswith(f": {OTHER}") and " L1 (1 memories, " in node
    root = run_cli("--json", "tree", "show").json()
    assert root["node"]["content"] == f"— {OTHER}"
    assert [child["id"] for child in root["items"]] == [other]
