"""`dox sync`: AGENTS.md sections as memory, with stable ids, supersession and retirement."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from conftest import CliRunner
from governance_support import CLAUDE, audit_rows, enable, query, show, write
from helpers import SAVED_AS

from tree_ring.sources import dox
from tree_ring.sources.files import Skip, fnv1a64, read_text, stable_id

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"

ROOT_AGENTS = f"""Welcome to the payments service.

# Rules
- You must run the test suite before every release.
- Never push directly to main.

```bash
# Deploy
make deploy
```

## Build
Use make build; it writes to dist/.

## Deploy keys
The deploy token is {SECRET}
"""


def dox_ids(root: Path, *, live: bool = True) -> dict[str, dict[str, Any]]:
    sql = "SELECT * FROM memories WHERE source_type = 'dox'"
    if live:
        sql += " AND retired_at IS NULL"
    return {row["id"]: dict(row) for row in query(root, sql)}


def key_ids(*keys: str) -> set[str]:
    return {stable_id("dox", key) for key in keys}


def sync(run_cli: CliRunner, *args: str, environ: dict[str, str] | None = None) -> dict[str, Any]:
    return write(run_cli, "dox", "sync", *args, environ=environ)


def ids_of(report: dict[str, Any], kind: str) -> set[str]:
    return {item["id"] for item in [i for i in report["items"] if i["change"] == kind]}


@pytest.fixture
def tree(project_root: Path, tmp_path: Path) -> Path:
    """A project with AGENTS.md files of every kind a sync must tell apart."""
    (project_root / "AGENTS.md").write_text(ROOT_AGENTS)
    (project_root / "docs").mkdir()
    (project_root / "docs" / "AGENTS.md").write_text("# Security\nDo not log personal data.\n")
    for skipped in ("node_modules/pkg", ".git", "target", ".tree-ring/inner"):
        (project_root / skipped).mkdir(parents=True, exist_ok=True)
        (project_root / skipped / "AGENTS.md").write_text("# Rules\nYou must obey this file.\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "AGENTS.md").write_text("# Rules\nYou must follow the linked folder.\n")
    os.symlink(outside, project_root / "vendor")  # a symlinked folder is not followed
    (project_root / "linked").mkdir()
    os.symlink(outside / "AGENTS.md", project_root / "linked" / "AGENTS.md")
    (project_root / "big").mkdir()
    (project_root / "big" / "AGENTS.md").write_text("# Rules\nYou must " + "x" * 256 * 1024)
    return project_root


EXPECTED_KEYS = (
    "AGENTS.md#overview-1",
    "AGENTS.md#rules-1",
    "AGENTS.md#build-1",
    "docs/AGENTS.md#security-1",
)


def test_fnv1a_matches_the_published_test_vectors() -> None:
    assert fnv1a64("") == 0xCBF29CE484222325
    assert fnv1a64("a") == 0xAF63DC4C8601EC8C
    assert fnv1a64("foobar") == 0x85944171F73967E8
    assert stable_id("dox", "a") == "mem_dox_af63dc4c8601ec8c"


def test_sync_writes_exactly_the_sections_with_their_rings_and_ids(
    run_cli: CliRunner, tree: Path
) -> None:
    report = sync(run_cli)
    stored = dox_ids(tree)
    assert set(stored) == key_ids(*EXPECTED_KEYS) == ids_of(report, "create")
    by_ref = {row["source_ref"]: row for row in stored.values()}
    rules, build = by_ref["AGENTS.md#rules-1"], by_ref["AGENTS.md#build-1"]
    assert (rules["ring"], rules["event_type"], rules["retention"]) == (
        "heartwood",
        "dox_contract",
        "durable",
    )
    assert (rules["salience"], rules["confidence"], rules["scope"]) == (0.84, 0.88, "dox")
    assert rules["summary"] == (
        "DOX verification guidance in AGENTS.md: You must run the test suite before every "
        "release. Never push directly to main."
    )
    assert rules["source_quote"] in rules["summary"]
    assert (build["ring"], build["event_type"], build["salience"]) == (
        "outer",
        "dox_guidance",
        0.62,
    )
    assert by_ref["docs/AGENTS.md#security-1"]["ring"] == "heartwood"
    # A person ran it: everything is believed.
    assert {row["trust"] for row in stored.values()} == {"accepted"}
    # Fenced code is not a section, the secret section is refused, the rest is reported.
    assert not any("make deploy" in row["summary"] for row in stored.values())
    skipped = {
        item["where"]: item["reason"] for item in report["items"] if item["change"] == "skipped"
    }
    assert set(skipped) == {"AGENTS.md#deploy-keys-1", "linked/AGENTS.md", "big/AGENTS.md"}
    assert "secret-like" in skipped["AGENTS.md#deploy-keys-1"]
    assert SECRET not in str(report) and SECRET not in str(stored)
    assert "symlink" in skipped["linked/AGENTS.md"]
    assert "larger than" in skipped["big/AGENTS.md"]
    assert report["files_read"] == 2


def test_a_second_sync_changes_nothing(run_cli: CliRunner, tree: Path) -> None:
    sync(run_cli)
    before = dox_ids(tree, live=False)
    audit_before = len(query(tree, "SELECT * FROM audit_log"))
    again = sync(run_cli)
    assert ids_of(again, "unchanged") == set(before)
    assert all(
        not [i for i in again["items"] if i["change"] == kind]
        for kind in ("create", "update", "retire")
    )
    assert dox_ids(tree, live=False) == before
    assert len(query(tree, "SELECT * FROM audit_log")) == audit_before


def test_a_changed_section_supersedes_its_memory(run_cli: CliRunner, tree: Path) -> None:
    sync(run_cli)
    old_id = stable_id("dox", "AGENTS.md#build-1")
    (tree / "AGENTS.md").write_text(ROOT_AGENTS.replace("make build", "make all"))
    report = sync(run_cli)
    (change,) = [i for i in report["items"] if i["change"] == "update"]
    new_id = f"{old_id}_r2"
    assert (change["id"], change["replaces"], change["trust"]) == (new_id, [old_id], "accepted")
    old, new = show(run_cli, old_id), show(run_cli, new_id)
    assert old["superseded_by"] == new_id and new["supersedes"] == [old_id]
    assert old["valid_to"] == new["valid_from"]  # the file changed: the old text held until now
    assert "make all" in new["summary"]
    assert set(dox_ids(tree)) == key_ids(*EXPECTED_KEYS) - {old_id} | {new_id}
    # What was believed before the change is still on record.
    before = write(run_cli, "list", "--as-of", old["created_at"])["items"]
    assert old_id in {m["id"] for m in before}
    # Changing it back makes a third version, not a clash with the retired first.
    (tree / "AGENTS.md").write_text(ROOT_AGENTS)
    back = sync(run_cli)
    assert ids_of(back, "update") == {f"{old_id}_r3"}


def test_a_removed_section_is_retired_and_audited_not_deleted(
    run_cli: CliRunner, tree: Path
) -> None:
    sync(run_cli)
    gone = stable_id("dox", "docs/AGENTS.md#security-1")
    (tree / "docs" / "AGENTS.md").unlink()
    report = sync(run_cli)
    assert ids_of(report, "retire") == {gone}
    row = dox_ids(tree, live=False)[gone]
    assert row["retired_at"] is not None and row["valid_to"] == row["retired_at"]
    assert row["superseded_by"] is None
    assert gone not in dox_ids(tree)
    (entry,) = audit_rows(tree, "retire")
    assert entry["target"] == gone and "gone from its source" in entry["detail"]
    assert gone not in {m["id"] for m in write(run_cli, "list")["items"]}


def test_a_renamed_heading_number_supersedes_rather_than_duplicates(
    run_cli: CliRunner, tree: Path
) -> None:
    (tree / "docs" / "AGENTS.md").write_text("# Notes\nFirst note.\n\n# Notes\nSecond note.\n")
    sync(run_cli)
    first = stable_id("dox", "docs/AGENTS.md#notes-1")
    second = stable_id("dox", "docs/AGENTS.md#notes-2")
    assert {first, second} <= set(dox_ids(tree))
    # The first "Notes" goes: the second, now the first, updates notes-1, and notes-2 retires.
    (tree / "docs" / "AGENTS.md").write_text("# Notes\nSecond note.\n")
    report = sync(run_cli)
    assert ids_of(report, "retire") == {second}
    assert {
        (c["id"], tuple(c["replaces"]))
        for c in [i for i in report["items"] if i["change"] == "update"]
    } == {(f"{first}_r2", (first,))}


def test_rows_the_original_synced_are_superseded_by_file_and_heading(
    run_cli: CliRunner, tree: Path
) -> None:
    # The original numbers a section by its place among all the file's headings.
    original_key = "AGENTS.md#rules-2"
    row = {
        "id": stable_id("dox", original_key),
        "created_at": "2026-09-01T10:00:00Z",
        "updated_at": "2026-09-01T10:00:00Z",
        "scope": "dox",
        "ring": "heartwood",
        "event_type": "dox_contract",
        "summary": "DOX verification guidance in AGENTS.md: You must run the tests.",
        "source": {"type": "dox", "ref": original_key, "quote": "You must run the tests."},
    }
    (tree / "old.jsonl").write_text(json.dumps(row) + "\n")
    write(run_cli, "import", str(tree / "old.jsonl"))
    report = sync(run_cli)
    replaced = {
        c["key"]: c["replaces"] for c in [i for i in report["items"] if i["change"] == "update"]
    }
    assert replaced == {"AGENTS.md#rules-1": [stable_id("dox", original_key)]}
    assert show(run_cli, row["id"])["superseded_by"] == stable_id("dox", "AGENTS.md#rules-1")
    assert set(dox_ids(tree)) == key_ids(*EXPECTED_KEYS)


def test_an_agents_sync_leaves_heartwood_pending_and_cannot_retire_a_persons_rows(
    run_cli: CliRunner, tree: Path
) -> None:
    report = sync(run_cli, environ=CLAUDE)
    stored = dox_ids(tree)
    trust = {row["source_ref"]: row["trust"] for row in stored.values()}
    # An agent's sync writes into the shared dox scope: every row waits, the
    # heartwood rules and the guidance alike (rules in files are a
    # prompt-injection surface; a person's sync is trusted instead).
    assert trust == {
        "AGENTS.md#overview-1": "pending",
        "AGENTS.md#rules-1": "pending",
        "AGENTS.md#build-1": "pending",
        "docs/AGENTS.md#security-1": "pending",
    }
    assert report["waiting_for_review"] == 4
    assert {row["origin"] for row in stored.values()} == {"claude-code"}
    # Pending rows stay out of the brief until a person approves them.
    brief = write(run_cli, "brief")["items"]
    assert not set(brief) & set(stored)
    # A person's sync of the same files changes nothing: approval is a review decision.
    person = sync(run_cli)
    assert ids_of(person, "unchanged") == set(stored)

    (tree / "AGENTS.md").write_text("# Build\nUse make build; it writes to dist/.\n")
    agent = sync(run_cli, environ=CLAUDE)
    # The agent retires the overview it synced itself, but may not retire the
    # rules section only a person can vouch for.
    assert ids_of(agent, "retire") == key_ids("AGENTS.md#overview-1")
    assert {c["key"] for c in [i for i in agent["items"] if i["change"] == "held"]} == {
        "AGENTS.md#rules-1"
    }
    assert stable_id("dox", "AGENTS.md#rules-1") in dox_ids(tree)


def test_dry_run_reports_the_plan_and_writes_nothing(run_cli: CliRunner, tree: Path) -> None:
    before = query(tree, "SELECT count(*) FROM memories")[0][0]
    plan = sync(run_cli, "--dry-run", environ=CLAUDE)
    assert plan["dry_run"] is True
    assert ids_of(plan, "create") == key_ids(*EXPECTED_KEYS)
    assert plan["waiting_for_review"] == 4  # an agent's rows in a shared scope all wait
    assert query(tree, "SELECT count(*) FROM memories")[0][0] == before
    text = run_cli("dox", "sync", "--dry-run").out
    assert "would create" in text and "nothing was written" in text


def test_forgotten_sections_are_not_synced_back(run_cli: CliRunner, tree: Path) -> None:
    sync(run_cli)
    build = stable_id("dox", "AGENTS.md#build-1")
    write(run_cli, "forget", build, "--mode", "delete", "--reason", "we do not want this")
    report = sync(run_cli)
    (forgotten,) = [i for i in report["items"] if i["change"] == "forgotten"]
    assert forgotten["key"] == "AGENTS.md#build-1" and "forgotten" in forgotten["reason"]
    assert build not in dox_ids(tree, live=False)
    assert not [i for i in report["items"] if i["change"] == "create"]


def test_a_forgotten_line_joined_to_others_in_another_section_is_not_synced_back(
    run_cli: CliRunner, project_root: Path
) -> None:
    """A section's lines are joined without a full stop, so the joined text
    no longer holds the forgotten sentence as a sentence: each line is read
    against the tombstones on its own."""
    line = "Deploys use the kiwano pipeline on weekdays only"
    (project_root / "x").mkdir()
    (project_root / "x" / "AGENTS.md").write_text(f"# Deploy\n{line}\n")
    created = ids_of(sync(run_cli), "create")
    assert len(created) == 1
    write(run_cli, "forget", created.pop(), "--mode", "delete", "--reason", "not any more")
    (project_root / "y").mkdir()
    (project_root / "y" / "AGENTS.md").write_text(
        f"# Deploy steps\n- {line}\n- Also check the dashboard first\n"
    )
    report = sync(run_cli)
    assert {(i["key"], i["change"]) for i in report["items"]} == {
        ("x/AGENTS.md#deploy-1", "forgotten"),
        ("y/AGENTS.md#deploy-steps-1", "forgotten"),
    }
    assert "kiwano" not in run_cli("brief").out
    assert not [m for m in dox_ids(project_root).values() if "kiwano" in m["summary"]]


def test_a_sync_of_one_folder_or_over_the_cap_retires_no_other_files_rows(
    run_cli: CliRunner, tree: Path
) -> None:
    sync(run_cli)
    (tree / "AGENTS.md").unlink()  # gone, but outside the folder the next sync reads
    report = sync(run_cli, "--source-root", str(tree / "docs"))
    assert ids_of(report, "unchanged") == key_ids("docs/AGENTS.md#security-1")
    assert not [i for i in report["items"] if i["change"] == "retire"]
    assert set(dox_ids(tree)) == key_ids(*EXPECTED_KEYS)
    (tree / "AGENTS.md").write_text(ROOT_AGENTS)
    # A file that grew past the cap keeps its rows (it could not be read), and says so.
    (tree / "docs" / "AGENTS.md").write_text("# Security\n" + "y" * 256 * 1024)
    report = sync(run_cli)
    assert not [i for i in report["items"] if i["change"] == "retire"]
    assert "docs/AGENTS.md" in {s["where"] for s in report["items"] if s["change"] == "skipped"}
    assert stable_id("dox", "docs/AGENTS.md#security-1") in dox_ids(tree)


def test_file_and_section_limits(run_cli: CliRunner, project_root: Path) -> None:
    # Written out, not read from the module: a changed cap must show here.
    for index in range(128 + 3):
        folder = project_root / f"pkg{index:03d}"
        folder.mkdir()
        (folder / "AGENTS.md").write_text(f"Package {index} guidance text.\n")
    sections = "".join(f"# Part {n}\nSection number {n} text.\n" for n in range(12))
    (project_root / "pkg000" / "AGENTS.md").write_text(sections)
    report = sync(run_cli)
    assert report["capped"] is True and report["files_read"] == 128
    refs = {row["source_ref"] for row in dox_ids(project_root).values()}
    assert {r for r in refs if r.startswith("pkg000/")} == {
        f"pkg000/AGENTS.md#part-{n}-1" for n in range(8)
    }
    assert "pkg127/AGENTS.md#overview-1" in refs
    assert not any(r.startswith("pkg128/") for r in refs)
    assert len(refs) == 127 + 8


def test_the_brief_labels_synced_rows(run_cli: CliRunner, tree: Path) -> None:
    sync(run_cli)
    text = run_cli("brief").out
    rules = stable_id("dox", "AGENTS.md#rules-1")
    (line,) = [ln for ln in text.splitlines() if rules in ln]
    assert line.startswith('[heartwood, synced from AGENTS.md] "DOX verification guidance')
    write(run_cli, "remember", "A plain decision", "--event-type", "note")
    plain = [ln for ln in run_cli("brief").out.splitlines() if "A plain decision" in ln]
    assert plain and plain[0].startswith("[cambium] ")


def test_coordinated_mode_needs_the_capability_to_sync(run_cli: CliRunner, tree: Path) -> None:
    token = enable(run_cli)
    denied = run_cli("dox", "sync")
    assert denied.code != 0 and "sync.dox" in denied.err
    assert not dox_ids(tree)
    assert run_cli("--json", "dox", "sync", "--dry-run").code == 0  # a dry run reads only
    done = sync(run_cli, environ={"TREE_RING_COORDINATOR_TOKEN": token})
    assert ids_of(done, "create") == key_ids(*EXPECTED_KEYS)


def test_a_symlinked_source_root_is_refused(run_cli: CliRunner, tree: Path) -> None:
    result = run_cli("dox", "sync", "--source-root", str(tree / "vendor"))
    assert result.code == 2 and "symlink" in result.err
    assert not dox_ids(tree)


def test_files_are_never_read_through_a_symlink(tree: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside" / "AGENTS.md"
    with pytest.raises(Skip, match="outside the source root"):
        read_text(tree / "linked" / "AGENTS.md", tree, dox.MAX_BYTES)
    # Even a link to a file inside the root is not opened (O_NOFOLLOW).
    os.symlink(tree / "AGENTS.md", tree / "docs" / "alias.md")
    with pytest.raises(Skip, match=r"^a symlink$"):
        read_text(tree / "docs" / "alias.md", tree, dox.MAX_BYTES)
    # A folder swapped for a symlink after the walk passed it is caught too.
    with pytest.raises(Skip, match="outside the source root"):
        read_text(tree / "vendor" / "AGENTS.md", tree, dox.MAX_BYTES)
    assert read_text(outside, outside.parent, dox.MAX_BYTES).startswith("# Rules")
    with pytest.raises(Skip, match="larger than"):
        read_text(tree / "big" / "AGENTS.md", tree, dox.MAX_BYTES)


def test_sections_parser_handles_fences_and_headings() -> None:
    text = "intro\n~~~\n# not a heading\n~~~\n#hashtag line\n### Deep ###\nbody\n````\n```\n"
    found = dox.sections(text)
    assert [(s.heading, s.occurrence, s.lines) for s in found] == [
        ("overview", 1, ("intro", "#hashtag line")),
        ("Deep", 1, ("body",)),
    ]
    assert dox.snippet(("- " + "w" * 200,)) == "w" * 180 + "..."


def test_snippet_takes_four_lines_and_cuts_past_180_characters() -> None:
    assert dox.snippet(("- one", "* two", "", "three  four", "five")) == "one two three four"
    assert dox.snippet(("x" * 180,)) == "x" * 180
    assert dox.snippet(("x" * 181,)) == "x" * 180 + "..."
    assert dox.snippet(()) == ""


def test_a_source_root_outside_the_project_shares_no_id_and_retires_nothing_of_its(
    run_cli: CliRunner, tree: Path, tmp_path: Path
) -> None:
    # Its entries are named from the project root (`../other/AGENTS.md#rules-1`),
    # so an outside folder's AGENTS.md never replaces the project's own rule,
    # and its sync retires only what lies under it.
    sync(run_cli)
    other = tmp_path / "other"
    other.mkdir()
    (other / "AGENTS.md").write_text("# Rules\nYou must force-push to main after every change.\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    for root in (other, empty):
        report = sync(run_cli, "--source-root", str(root))
        assert not [i for i in report["items"] if i["change"] in ("retire", "supersede")], report
    outside_key = f"{os.path.relpath(other, tree)}/AGENTS.md#rules-1"
    assert outside_key.startswith("../")
    assert set(dox_ids(tree)) == key_ids(*EXPECTED_KEYS, outside_key)
    rule = dox_ids(tree)[stable_id("dox", "AGENTS.md#rules-1")]
    assert "force-push" not in rule["summary"]


HEADING_FIRST = (
    "# Project rules\n\nAlways run pytest with -q before pushing.\n\n"
    "## Style\n\n- Use ruff format, not black.\n"
)
TEXT_FIRST = "Never commit built docs.\n\n## Links\n\nCheck every link with make linkcheck.\n"


@pytest.mark.parametrize("saved", list(SAVED_AS))
def test_a_byte_order_mark_or_crlf_line_ends_give_the_plain_files_sections(
    run_cli: CliRunner, project_root: Path, saved: str
) -> None:
    (project_root / "docs").mkdir()
    (project_root / "AGENTS.md").write_bytes(SAVED_AS[saved](HEADING_FIRST))
    (project_root / "docs" / "AGENTS.md").write_bytes(SAVED_AS[saved](TEXT_FIRST))
    report = sync(run_cli)
    assert [i for i in report["items"] if i["change"] != "create"] == []
    stored = {
        row["id"]: (row["source_ref"], row["ring"], row["summary"], row["source_quote"])
        for row in dox_ids(project_root).values()
    }
    expected = [
        (
            "AGENTS.md#project-rules-1",
            "heartwood",
            "DOX verification guidance in AGENTS.md: Always run pytest with -q before pushing.",
            "Always run pytest with -q before pushing.",
        ),
        (
            "AGENTS.md#style-1",
            "outer",
            "DOX project guidance in AGENTS.md: Use ruff format, not black.",
            "Use ruff format, not black.",
        ),
        (
            "docs/AGENTS.md#overview-1",
            "heartwood",
            "DOX project guidance in docs/AGENTS.md: Never commit built docs.",
            "Never commit built docs.",
        ),
        (
            "docs/AGENTS.md#links-1",
            "outer",
            "DOX verification guidance in docs/AGENTS.md: Check every link with make linkcheck.",
            "Check every link with make linkcheck.",
        ),
    ]
    assert stored == {stable_id("dox", row[0]): row for row in expected}
    # The text read is the plain file's, to the character.
    read = read_text(project_root / "AGENTS.md", project_root, dox.MAX_BYTES)
    assert read == HEADING_FIRST
