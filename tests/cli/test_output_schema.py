"""Every command's --json output, successes and errors, against docs/cli-output.schema.json.

The list of command lines below runs every verb and every action the parser
declares; a test fails when the parser has a command the list does not run
or the schema does not define, so a new verb cannot slip past the convention.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from governance_support import CLAUDE
from helpers import REPO, CliRunner
from jsonschema.exceptions import best_match

from tree_ring.cli import app, argparsing, reference

SCHEMA_PATH = REPO / "docs" / "cli-output.schema.json"
BACKUPS = "Nightly backups go to the cold bucket"


def schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return loaded


def definition_name(command: str) -> str:
    return command.replace(" ", "_")


def parser_commands() -> set[str]:
    return {leaf.name for leaf in reference.leaves(reference.walk(argparsing.build_parser()))}


def _seed(run_cli: CliRunner, tmp_path: Path, root: Path) -> dict[str, str]:
    def made(*argv: str, environ: dict[str, str] | None = None) -> str:
        result = run_cli("--json", *argv, environ=environ)
        assert result.code == 0, result.err
        return str(result.json()["id"])

    ids = {
        "old": made("remember", "The cache lives in Redis"),
        "new": made("remember", "The cache lives in SQLite"),
        "gone": made("remember", "A note to forget"),
        "redact": made("remember", "A note to redact"),
        "pending": made(
            "remember", "Vendor the SDK", "--ring", "heartwood", "--scope", "project",
            environ=CLAUDE,
        ),
        "reject": made("remember", "Skip the tests", "--ring", "heartwood", environ=CLAUDE),
        "dispute": made("remember", "Logs rotate nightly"),
        "agent": made("remember", "The docs build takes a minute", environ=CLAUDE),
        "refuted": made("remember", "The API listens on port 8080"),
        "refuted_by_person": made("remember", "The API listens on port 8081"),
        # A memory holding another's words, disputed so it does not keep them
        # writable: forgetting the other leaves it kept and refused, to re-admit.
        "words": made("remember", BACKUPS),
        "holding": made("remember", "Backups", "--details", BACKUPS),
    }  # fmt: skip
    # An agent's refutation, so `show` and `maintain --suggest` have one to name.
    refuted = run_cli("refute", ids["refuted"], "--reason", "it listens on 9090", environ=CLAUDE)
    assert refuted.code == 0, refuted.err
    dump = tmp_path / "dump.jsonl"
    dump.write_text(run_cli("export").out)
    ids["dump"] = str(dump)
    (root / "setup.cfg").write_text("[flake8]\n")
    ids["source"] = str(root / "setup.cfg")
    ids["anchored"] = made("remember", "Lint settings are in setup.cfg", "--file", ids["source"])
    (root / "AGENTS.md").write_text("# Rules\n\n## Testing\n\nRun the tests before a commit.\n")
    (root / "revolve").mkdir()
    return ids


def successes(ids: dict[str, str], tmp_path: Path, root: Path) -> list[list[str]]:
    """Every command line that should succeed, in an order that keeps each valid."""
    capture = [
        "capture", "The flaky test needed a fixed seed", "--event-type", "lesson",
        "--ring", "cambium", "--project", "PLACEHOLDER", "--agent-profile", "claude-code",
        "--workflow-id", "s1", "--session-id", "s1", "--operation-id", "auto-0123456789ab-1",
        "--source-ref", "session:s1",
    ]  # fmt: skip
    return [
        ["init"],
        ["status"],
        ["export"],
        ["export", "--output", str(tmp_path / "out.jsonl")],
        ["import", ids["dump"], "--dry-run"],
        ["import", ids["dump"]],
        ["audit"],
        ["audit", "log", "--limit", "3"],
        ["audit", "verify"],
        ["audit", "findings", "--audit-type", "all"],
        ["audit", "findings"],
        ["audit", "--audit-type", "all"],
        ["remember", "Deploys freeze on Fridays"],
        ["evidence", "Cache warmup halves p95", "--outcome", "promoted",
         "--evidence-ref", "evals/run-42", "--score", "0.9"],
        capture,
        ["supersede", ids["old"], ids["new"], "--reason", "moved to SQLite"],
        ["recall", "cache"],
        ["recall", "nothing matches this"],
        ["recall", "cache", "--tree"],
        ["brief"],
        ["list"],
        ["list", "--limit", "2", "--offset", "1"],
        ["show", ids["new"]],
        ["remember", "The linter config lives in setup.cfg", "--file", ids["source"]],
        ["stale"],
        ["confirm", ids["anchored"]],
        ["show", ids["refuted"]],
        ["refute", ids["refuted_by_person"], "--reason", "it listens on 9091"],
        ["usage"],
        ["usage", "--since", "7d"],
        ["doctor"],
        ["maintain"],
        ["maintain", "--suggest"],
        ["quality", str(REPO / "fixtures" / "quality" / "scar-for-failure.json")],
        ["review", "list"],
        ["review", "approve", "--all", "--dry-run"],
        ["review", "approve", ids["pending"]],
        ["review", "reject", ids["reject"], "--reason", "the tests catch bugs"],
        ["review", "dispute", ids["dispute"], "--reason", "they rotate weekly"],
        ["review", "dispute", ids["holding"], "--reason", "unsure"],
        ["forget", ids["words"], "--mode", "delete", "--reason", "moved"],
        ["review", "readmit", ids["holding"], "--reason", "it holds"],
        ["review", "approve", "--all", "--origin", "import"],
        ["review", "policy"],
        ["review", "policy", "--set", "agent_heartwood=true"],
        ["consolidate", "--dry-run"],
        ["consolidate"],
        ["tree", "status"],
        ["tree", "show"],
        ["tree", "flush"],
        ["tree", "rebuild"],
        ["tree", "config"],
        ["forget", ids["redact"], "--mode", "redact", "--reason", "wrong"],
        ["forget", ids["gone"], "--mode", "delete", "--reason", "noise"],
        ["dox", "sync", "--dry-run"],
        ["dox", "sync"],
        ["revolve", "sync", "--dry-run"],
        ["integrations", "scan"],
        ["integrations", "status"],
        ["recall-quality", str(REPO / "fixtures" / "quality" / "scar-for-failure.json"),
         "--out-dir", str(tmp_path / "rq")],
        ["welcome", "--no-animation"],
        ["completion", "bash"],
        ["inbox", "--peek"],
        ["inbox"],
        ["promote", ids["agent"], "--reason", "every harness needs it"],
        ["config", "list"],
        ["config", "get", "checkpoint"],
        ["config", "set", "checkpoint=every-stop"],
        ["sync"],
        ["policy", "status"],
        ["policy", "audit"],
        ["policy", "enable", "--coordinator", "lead"],
        ["policy", "rotate"],
        ["policy", "disable"],
    ]  # fmt: skip


# (command line, environment, the error code, the exit code)
FAILURES: list[tuple[list[str], dict[str, str], str, int]] = [
    (["show", "mem_20990101_000000_000000000000"], {}, "not_found", 1),
    (["refute", "mem_20990101_000000_000000000000", "--reason", "x"], {}, "not_found", 1),
    (["usage", "--since", "soon"], {}, "usage", 2),
    (["maintain", "--suggest", "--vacuum"], {}, "usage", 2),
    (["remember", "x", "--salience", "7"], {}, "usage", 2),
    (["review", "list", "--set", "agent_heartwood=false"], {}, "usage", 2),
    (["review", "list", "mem_x"], {}, "usage", 2),
    (["recal", "x"], {}, "usage", 2),
    (["list", "--limit", "0"], {}, "usage", 2),
    (["list", "--limit", "-1"], {}, "usage", 2),
    (["remember", "token ghp_1234567890abcdefghijklmnopqrstuvwxyzAB"], {}, "secret_refused", 2),
    (["review", "approve", "--all"], CLAUDE, "denied", 1),
    (["policy", "enable", "--coordinator", "lead"], CLAUDE, "denied", 1),
]

# Commands that need what a test cannot give here (a live harness round trip
# writes into the plugin's hooks); their schema is checked on a recorded shape.
NOT_RUN = {"integrations certify"}


@functools.cache
def validator() -> jsonschema.Draft202012Validator:
    """The schema, checked against its meta-schema once, as one validator: what
    `jsonschema.validate` does on every call, and nearly all of its cost."""
    loaded = schema()
    jsonschema.Draft202012Validator.check_schema(loaded)
    return jsonschema.Draft202012Validator(loaded)


def _validate(document: Any) -> None:
    """`jsonschema.validate` with the checked schema: raises the best match."""
    error = best_match(validator().iter_errors(document))
    if error is not None:
        raise error


def test_every_command_and_error_matches_the_schema(
    run_cli: CliRunner, tmp_path: Path, project_root: Path
) -> None:
    ids = _seed(run_cli, tmp_path, project_root)
    project_id = json.loads((project_root / ".tree-ring" / "project.json").read_text())
    seen: set[str] = set()
    environ: dict[str, str] = {}
    for argv in successes(ids, tmp_path, project_root):
        argv = [project_id["project_id"] if word == "PLACEHOLDER" else word for word in argv]
        result = run_cli("--json", *argv, environ=environ)
        assert result.code == 0, (argv, result.err)
        assert result.out.endswith("\n") and result.out.count("\n") == 1, argv
        document = result.json()
        try:
            _validate(document)
        except jsonschema.ValidationError as exc:
            raise AssertionError(f"{argv}: {exc.message} at {list(exc.absolute_path)}") from None
        seen.add(document["command"])
        if document["command"] in ("policy enable", "policy rotate"):  # the next need it
            environ = {document["env"]: document["capability"]}
    for argv, environ, code, exit_code in FAILURES:
        result = run_cli("--json", *argv, environ=environ)
        assert result.code == exit_code, (argv, result.err)
        assert result.out == "", argv
        error = json.loads(result.err)
        _validate(error)
        assert error["error"]["code"] == code and error["error"]["exit"] == exit_code, argv
    assert seen | NOT_RUN == parser_commands()


def test_every_command_in_the_parser_has_a_schema_definition() -> None:
    defined = set(schema()["$defs"])
    missing = {c for c in parser_commands() if definition_name(c) not in defined}
    assert not missing, f"add these commands to {SCHEMA_PATH.name}: {sorted(missing)}"


def test_the_check_catches_a_verb_without_a_schema_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    from tree_ring.cli import integrations

    monkeypatch.setitem(app.VERBS, "welcome-again", ("integrations", "a verb nobody described"))
    monkeypatch.setitem(integrations.VERBS, "welcome-again", integrations.VERBS["welcome"])
    with pytest.raises(AssertionError, match="welcome-again"):
        test_every_command_in_the_parser_has_a_schema_definition()


def test_a_shape_that_breaks_the_convention_fails_validation() -> None:
    with pytest.raises(jsonschema.ValidationError):
        _validate({"command": "list", "memories": [], "project": "p"})
    with pytest.raises(jsonschema.ValidationError):
        _validate({"command": "audit log", "items": [{"detail": "{}"}], "total": 1, "shown": 1})
