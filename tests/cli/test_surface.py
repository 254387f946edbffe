"""The command line as a person meets it: refused flags, suggestions, help with
examples, completion, the generated reference, honest views and paging."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from governance_support import CLAUDE, write
from helpers import PERSON, REPO, CliRunner, make_memory

from tree_ring.cli import app, argparsing, reference
from tree_ring.store.db import Store
from tree_ring.write import pipeline

CLAUDE_A = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "sA"}


# ------------------------------------------------------- refused, suggested


@pytest.mark.parametrize(
    "argv",
    [
        ["review", "list", "--set", "agent_heartwood=false"],
        ["review", "list", "mem_x"],
        ["review", "approve", "mem_x", "--set", "x=y"],
        ["policy", "status", "--coordinator", "lead"],
        ["policy", "status", "extra"],
        ["audit", "verify", "--limit", "3"],
        ["dox", "sync", "--bogus"],
        ["tree", "status", "node-1"],
    ],
)
def test_an_unknown_flag_or_word_is_refused(run_cli: CliRunner, argv: list[str]) -> None:
    result = run_cli(*argv)
    assert result.code == 2, (argv, result.out)
    assert result.out == "" and result.err.startswith("error: ") and result.err.count("\n") == 1


def test_the_refusal_names_the_command_that_was_given_the_word(run_cli: CliRunner) -> None:
    result = run_cli("--json", "review", "list", "--set", "agent_heartwood=false")
    error = json.loads(result.err)["error"]
    assert (error["code"], error["exit"]) == ("usage", 2)
    assert error["message"].startswith(
        "tree-ring review list: unrecognized arguments: --set and 1 more word (not shown)"
    )


def test_review_policy_set_still_changes_the_policy(run_cli: CliRunner) -> None:
    changed = write(run_cli, "review", "policy", "--set", "agent_heartwood=false")
    assert changed["changed"] == {"agent_heartwood": False}
    assert write(run_cli, "review", "policy")["review_policy"]["agent_heartwood"] is False


@pytest.mark.parametrize(
    ("argv", "suggested"),
    [
        (["recal", "cache"], "recall"),
        (["reveiw", "list"], "review"),
        (["review", "aprove", "mem_x"], "approve"),
        (["tree", "stauts"], "status"),
        (["integrations", "scna"], "scan"),
    ],
)
def test_a_typo_gets_the_closest_name_not_the_list(
    run_cli: CliRunner, argv: list[str], suggested: str
) -> None:
    result = run_cli(*argv)
    assert result.code == 2
    assert f"did you mean '{suggested}'?" in result.err
    # Not the wall of every verb.
    assert "welcome" not in result.err and "consolidate" not in result.err


def test_a_word_like_no_verb_points_at_help(run_cli: CliRunner) -> None:
    result = run_cli("zzzzqqq")
    assert result.code == 2 and "did you mean" not in result.err
    assert "`tree-ring --help`" in result.err and "remember" not in result.err


# ----------------------------------------------------------------- help


def _verb_parser(name: str) -> tuple[str, str]:
    parser = argparsing.build_parser({name}, listed=False)
    verb = next(c for c in reference.walk(parser).actions if c.name == name)
    return verb.parser.epilog or "", reference.help_text(verb.parser)


@pytest.mark.parametrize("name", sorted(app.VERBS))
def test_every_verb_has_one_to_three_examples(name: str) -> None:
    epilog, shown = _verb_parser(name)
    examples = [line.strip() for line in epilog.splitlines()[1:]]
    assert epilog.startswith("examples:") and 1 <= len(examples) <= 3, name
    assert all("tree-ring " in line for line in examples), examples
    # Printed as written, one per line, not wrapped into prose.
    for line in examples:
        assert f"  {line}\n" in shown, (name, line)


def test_every_example_parses(project_root: Path) -> None:
    for name in app.VERBS:
        epilog, _ = _verb_parser(name)
        for line in epilog.splitlines()[1:]:
            words = line.strip().split("tree-ring ", 1)[1].split(" > ")[0].split(" | ")[0]
            words = words.removesuffix(')"')  # eval "$(tree-ring completion bash)"
            argv = [w.strip('"') for w in re.findall(r'"[^"]*"|\S+', words)]
            parsed = app.parse(argv)
            assert parsed.handler is not None, line


def test_forget_help_explains_both_modes() -> None:
    _, shown = _verb_parser("forget")
    flat = " ".join(shown.split())
    assert "delete: remove the row (its id stays forgotten: no write reuses it)" in flat
    assert "redact: keep the row as a [redacted] placeholder" in flat


def test_capture_help_states_the_agents_partition() -> None:
    _, shown = _verb_parser("capture")
    flat = " ".join(shown.split())
    assert "the calling agent's own partition (scope agent" in flat
    assert "agent only (the default here)" in flat
    assert "default: project (agents" not in flat


# ------------------------------------------------------ generated artefacts


def test_the_cli_reference_is_current() -> None:
    written = (REPO / "docs" / "CLI.md").read_text(encoding="utf-8")
    generated = reference.markdown(reference.walk(argparsing.build_parser()))
    assert written.startswith(generated), "run: python3 scripts/cli_docs.py > docs/CLI.md"
    # The clients that parse their own arguments follow, each with its --help.
    for name in ("view", "report", "tui", "mcp"):
        assert f"\n## tree-ring {name}\n" in written[len(generated) :], name
    assert "--no-open" in written and "--harness" in written and "--valid-at" in written


def test_the_reference_script_prints_the_reference() -> None:
    done = subprocess.run(
        ["python3", str(REPO / "scripts" / "cli_docs.py")],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert done.stdout == (REPO / "docs" / "CLI.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_names_every_verb_and_action(run_cli: CliRunner, shell: str) -> None:
    result = run_cli("completion", shell)
    assert result.code == 0, result.err
    script = result.out
    for leaf in reference.leaves(reference.walk(argparsing.build_parser())):
        for word in leaf.name.split():
            assert re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", script), (shell, word)
    flag = "-l " if shell == "fish" else "--"
    assert f"{flag}all" in script and f"{flag}offset" in script


def test_bash_completion_completes_verbs_actions_and_flags(
    run_cli: CliRunner, tmp_path: Path
) -> None:
    script = tmp_path / "tree-ring.bash"
    script.write_text(run_cli("completion", "bash").out)

    def complete(*words: str) -> set[str]:
        line = " ".join(f"'{w}'" for w in ("tree-ring", *words))
        probe = (
            f"source {script}; COMP_WORDS=({line}); COMP_CWORD={len(words)}; _tree_ring; "
            'printf "%s\\n" "${COMPREPLY[@]}"'
        )
        done = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, check=True)
        return set(done.stdout.split())

    assert complete("rev") == {"review", "revolve"}
    assert complete("review", "ap") == {"approve"}
    assert {"--all", "--origin", "--since", "--dry-run"} <= complete("review", "approve", "--")
    assert "--offset" in complete("list", "--o")


# ------------------------------------------------------------ honest views


def test_show_prints_aligned_flattened_fields(run_cli: CliRunner) -> None:
    memory_id = write(
        run_cli, "remember", "Deploys freeze on Fridays", "--tag", "ops", "--source-ref", "x.md"
    )["id"]
    text = run_cli("show", memory_id).out
    lines = text.splitlines()
    fields: dict[str, str] = {}
    for line in lines:
        found = re.fullmatch(r"(\S+): +(.*)", line)
        assert found is not None, line
        fields[found[1]] = found[2]
    assert (fields["source.type"], fields["source.ref"], fields["tags[0]"]) == (
        "manual",
        "x.md",
        "ops",
    )
    assert fields["id"] == memory_id and fields["summary"] == "Deploys freeze on Fridays"
    # One column of values, every value starting at the same place; no Python structure.
    assert len({len(line) - len(line.split(": ", 1)[1].lstrip()) for line in lines}) == 1
    assert not any(char in text for char in "{}'")


def test_status_counts_live_waiting_and_retired_by_reason(run_cli: CliRunner) -> None:
    old = write(run_cli, "remember", "The cache lives in Redis")["id"]
    new = write(run_cli, "remember", "The cache lives in SQLite")["id"]
    write(run_cli, "supersede", old, new, "--reason", "moved")
    gone = write(run_cli, "remember", "A note to redact")["id"]
    write(run_cli, "forget", gone, "--mode", "redact", "--reason", "wrong")
    rejected = write(run_cli, "remember", "Skip the tests", "--ring", "heartwood", environ=CLAUDE)
    write(run_cli, "review", "reject", rejected["id"], "--reason", "no")
    write(run_cli, "remember", "Vendor the SDK", "--ring", "heartwood", environ=CLAUDE)
    write(run_cli, "remember", "Logs rotate nightly")
    counts = write(run_cli, "status")["memories"]
    listed = write(run_cli, "list")
    assert counts["live"] == listed["total"] == 2
    assert counts["pending"] == 1 and counts["retired"] == 3 and counts["total"] == 6
    assert counts["retired_by_reason"] == {"superseded": 1, "redacted": 1, "rejected": 1}
    text = run_cli("status").out
    assert "live memories: 2;" in text
    assert "retired: 3 (redacted 1, rejected 1, superseded 1)" in text
    # A person's refutation retires a row, named as what it is.
    refuted = write(run_cli, "remember", "The queue drains hourly")["id"]
    write(run_cli, "refute", refuted, "--reason", "it drains every minute")
    assert "retired: 4 (redacted 1, refuted or retired 1, rejected 1, superseded 1)" in (
        run_cli("status").out
    )
    assert "waiting for review: 1 pending, 0 disputed" in text


# ---------------------------------------------------------------- paging


def _many(store: Store, project_id: str, count: int, **fields: str) -> list[str]:
    made: list[str] = []
    for n in range(count):
        memory = make_memory(project_id, f"Paged fact number {n} {fields}", **fields)
        made.append(pipeline.store_memory(store, memory, PERSON).id)
    return made


def test_list_pages_through_every_row_with_its_total(
    run_cli: CliRunner, store: Store, project_id: str
) -> None:
    made = set(_many(store, project_id, 230))
    seen: list[str] = []
    for offset in (0, 100, 200):
        page = write(run_cli, "list", "--limit", "100", "--offset", str(offset))
        assert (page["total"], page["offset"], page["limit"]) == (230, offset, 100)
        assert page["shown"] == len(page["items"]) == min(100, 230 - offset)
        seen += [m["id"] for m in page["items"]]
    assert len(seen) == len(set(seen)) and set(seen) == made
    text = run_cli("list", "--limit", "100").out.splitlines()
    assert text[-1] == "showing 100 of 230 (--offset 100 shows the next)"
    assert run_cli("list").out.splitlines()[-1].startswith("showing 100 of 230")
    last = run_cli("list", "--limit", "100", "--offset", "200").out.splitlines()
    assert last[-1] == "showing 30 of 230 from 201"


def test_an_agents_page_counts_only_what_it_may_see(
    run_cli: CliRunner, store: Store, project_id: str
) -> None:
    mine = _many(store, project_id, 3)
    # Hundreds of newer rows in another agent's partition, ahead of the visible ones.
    _many(store, project_id, 300, scope="agent", agent_profile="codex")
    page = write(run_cli, "list", "--limit", "2", environ=CLAUDE_A)
    assert page["total"] == 3 and page["shown"] == 2
    assert {m["id"] for m in page["items"]} <= set(mine)
    rest = write(run_cli, "list", "--limit", "2", "--offset", "2", environ=CLAUDE_A)
    assert {m["id"] for m in page["items"] + rest["items"]} == set(mine)


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--limit", "0"], "--limit takes a count of 1 or more, not 0"),
        (["--limit", "-1"], "--limit takes a count of 1 or more, not -1"),
        (["--offset", "-5"], "--offset takes 0 or more, not -5"),
    ],
)
def test_list_refuses_a_limit_that_means_nothing(
    run_cli: CliRunner, flags: list[str], said: str
) -> None:
    write(run_cli, "remember", "Something to list")
    result = run_cli("list", *flags)
    assert result.code == 2 and result.out == ""
    assert result.err == f"error: {said}\n"


@pytest.mark.parametrize("argv", [["review", "list"], ["audit", "log"], ["policy", "audit"]])
def test_other_limits_refuse_zero_too(run_cli: CliRunner, argv: list[str]) -> None:
    result = run_cli(*argv, "--limit", "0")
    assert result.code == 2 and "--limit takes a count of 1 or more" in result.err


# ----------------------------------------------------------- JSON errors


def test_errors_under_json_are_one_object_with_a_stable_code(run_cli: CliRunner) -> None:
    result = run_cli("--json", "show", "mem_20990101_000000_000000000000")
    assert (result.code, result.out) == (1, "")
    assert result.err.count("\n") == 1
    error = json.loads(result.err)["error"]
    assert error == {"code": "not_found", "exit": 1, "message": error["message"]}
    assert "tree-ring list" in error["message"]
    # Without --json, the same error is one plain line.
    plain = run_cli("show", "mem_20990101_000000_000000000000")
    assert plain.err == f"error: {error['message']}\n"


def test_an_unforeseen_failure_is_internal(
    run_cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tree_ring.upkeep import census

    def broken(_db: object, _project: str) -> dict[str, object]:
        raise RuntimeError("a value nobody wrote")

    monkeypatch.setattr(census, "census", broken)
    result = run_cli("--json", "status")
    assert result.code == 70 and result.out == ""  # EX_SOFTWARE
    assert json.loads(result.err)["error"]["code"] == "internal"


def test_every_error_class_has_its_code() -> None:
    from tree_ring.model import errors

    kinds = [errors.UsageError, errors.NoStore, errors.UnsafePath, errors.SchemaTooNew]
    kinds += [errors.StoreBusy, errors.StoreFault, errors.Conflict, errors.NotFound]
    codes = [app.error_code(kind("x")) for kind in [*kinds, errors.Denied]]
    assert codes == [
        "usage", "no_store", "unsafe_path", "schema_too_new", "store_busy", "store_fault",
        "conflict", "not_found", "denied",
    ]  # fmt: skip
    assert app.error_code(errors.SecretRefused("rule", "summary")) == "secret_refused"
    assert app.error_code(errors.TreeRingError("x")) == "internal"
