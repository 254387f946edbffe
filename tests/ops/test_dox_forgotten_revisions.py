"""A synced section whose row was forgotten: its next, different text is a
new revision (`ID_r2`, `ID_r3`, ...) under an id never used before, and
the forgotten text itself stays out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import CliRunner
from governance_support import query, write
from helpers import make_memory
from team_support import clone, commit, first_repo, hub, ok, publish, pull

from tree_ring.sources.files import stable_id
from tree_ring.store import tombstones
from tree_ring.store.db import Store

LINTER = "You must run the linter before every commit to main."
FORMATTER = "You must run the formatter before every commit to main."
CHECKER = "You must run mypy before every commit to main."


def agents(heading: str, *bodies: str) -> str:
    return "".join(f"{heading}\n\n{body}\n\n" for body in bodies)


def live(root: Path, source_type: str = "dox") -> dict[str, str]:
    """Id -> summary of the rows of `source_type` still current."""
    sql = (
        "SELECT id, summary FROM memories WHERE source_type = ? AND retired_at IS NULL"
        " AND superseded_by IS NULL"
    )
    return {row["id"]: row["summary"] for row in query(root, sql, (source_type,))}


def ids(root: Path) -> set[str]:
    return {row["id"] for row in query(root, "SELECT id FROM memories")}


def changes(report: dict[str, Any]) -> dict[str, set[str]]:
    """Change -> the ids a sync reported under it."""
    found: dict[str, set[str]] = {}
    for item in report["items"]:
        if "change" in item and item["change"] != "skipped":
            found.setdefault(item["change"], set()).add(item["id"])
    return found


def reasons(report: dict[str, Any]) -> list[str]:
    return [item["reason"] for item in report["items"] if item.get("change") == "forgotten"]


def dox(run_cli: CliRunner) -> dict[str, Any]:
    return write(run_cli, "dox", "sync")


def forget(run_cli: CliRunner, memory_id: str, mode: str = "delete") -> None:
    write(run_cli, "forget", memory_id, "--mode", mode, "--reason", "we dropped that rule")


# A file at the root with a one-word heading, and one deeper with a longer
# heading, whose ref ("services billing agents md code style 1") is a
# sentence long enough that a forget would have tombstoned it as a claim.
PLACES = [
    ("AGENTS.md", "# Rules", "AGENTS.md#rules-1", "workflow"),
    (
        "services/billing/AGENTS.md",
        "## Code style",
        "services/billing/AGENTS.md#code-style-1",
        "workflow",
    ),
]


@pytest.mark.parametrize(("file", "heading", "key", "kind"), PLACES)
def test_new_text_under_a_forgotten_heading_is_the_next_revision(
    run_cli: CliRunner, project_root: Path, file: str, heading: str, key: str, kind: str
) -> None:
    path = project_root / file
    path.parent.mkdir(parents=True, exist_ok=True)
    base = stable_id("dox", key)
    r2, r3, r4 = (f"{base}_r{n}" for n in (2, 3, 4))

    def summary(text: str) -> str:
        return f"DOX {kind} guidance in {file}: {text}"

    path.write_text(agents(heading, LINTER))
    assert changes(dox(run_cli)) == {"create": {base}}
    forget(run_cli, base)

    # A new rule under the same heading: a new row, under an id never used.
    path.write_text(agents(heading, FORMATTER))
    assert changes(dox(run_cli)) == {"create": {r2}}
    assert live(project_root) == {r2: summary(FORMATTER)}
    assert changes(dox(run_cli)) == {"unchanged": {r2}}

    # The forgotten rule itself stays out, and the sync says why.
    path.write_text(agents(heading, LINTER))
    report = dox(run_cli)
    assert changes(report) == {"forgotten": {r3}}
    (reason,) = reasons(report)
    assert reason.startswith("this content was forgotten on ") and f"(as {base})" in reason
    assert live(project_root) == {r2: summary(FORMATTER)}

    # Forget the second rule too: a third gets r3, and neither earlier one comes back.
    path.write_text(agents(heading, FORMATTER))
    assert changes(dox(run_cli)) == {"unchanged": {r2}}
    forget(run_cli, r2)
    path.write_text(agents(heading, CHECKER))
    assert changes(dox(run_cli)) == {"create": {r3}}
    assert live(project_root) == {r3: summary(CHECKER)}
    assert changes(dox(run_cli)) == {"unchanged": {r3}}
    for text, forgotten in ((FORMATTER, r2), (LINTER, base)):
        path.write_text(agents(heading, text))
        report = dox(run_cli)
        assert changes(report) == {"forgotten": {r4}}
        assert [f"(as {forgotten})" in reason for reason in reasons(report)] == [True]
    assert live(project_root) == {r3: summary(CHECKER)}
    assert not ids(project_root) & {base, r2, r4}
    brief = run_cli("brief").out
    assert "mypy" in brief and "formatter" not in brief and "linter" not in brief


def test_a_changed_section_after_a_forget_supersedes_and_keeps_its_revision(
    run_cli: CliRunner, project_root: Path
) -> None:
    """A live row changed, then the change forgotten: the old row keeps its
    id (superseded, on record) and the forgotten one's is never reused."""
    path = project_root / "AGENTS.md"
    base = stable_id("dox", "AGENTS.md#rules-1")
    path.write_text(agents("# Rules", LINTER))
    dox(run_cli)
    path.write_text(agents("# Rules", FORMATTER))
    assert changes(dox(run_cli)) == {"update": {f"{base}_r2"}}
    forget(run_cli, f"{base}_r2")
    path.write_text(agents("# Rules", CHECKER))
    assert changes(dox(run_cli)) == {"create": {f"{base}_r3"}}
    assert live(project_root) == {f"{base}_r3": f"DOX workflow guidance in AGENTS.md: {CHECKER}"}
    # A redacted row keeps its id as a placeholder: that id is skipped too.
    forget(run_cli, f"{base}_r3", mode="redact")
    path.write_text(agents("# Rules", "Run make tidy before you push."))
    assert changes(dox(run_cli)) == {"create": {f"{base}_r4"}}
    assert set(live(project_root)) == {f"{base}_r4"}
    assert {f"{base}", f"{base}_r3", f"{base}_r4"} <= ids(project_root)


def test_a_forgotten_section_leaves_its_namesakes_writable(
    run_cli: CliRunner, project_root: Path
) -> None:
    """Sections of one heading share their details (the file and the
    heading): forgetting one keeps the others' new texts writable."""
    path = project_root / "AGENTS.md"
    one, two, three = (stable_id("dox", f"AGENTS.md#rules-{n}") for n in (1, 2, 3))
    path.write_text(agents("# Rules", LINTER, FORMATTER))
    assert changes(dox(run_cli)) == {"create": {one, two}}
    forget(run_cli, one)
    path.write_text(agents("# Rules", LINTER, CHECKER, "Never commit generated files."))
    report = dox(run_cli)
    assert changes(report) == {
        "forgotten": {f"{one}_r2"},
        "update": {f"{two}_r2"},
        "create": {three},
    }
    assert live(project_root) == {
        f"{two}_r2": f"DOX workflow guidance in AGENTS.md: {CHECKER}",
        three: "DOX project guidance in AGENTS.md: Never commit generated files.",
    }


def test_a_place_an_older_forget_tombstoned_is_named_as_the_reason(
    run_cli: CliRunner, project_root: Path, store: Store, project_id: str
) -> None:
    """A forget made before synced rows kept their place writable tombstoned
    the source ref as well: the next text there stays out, and the sync
    says it is the ref, not the words, that was forgotten."""
    key = "services/billing/AGENTS.md#code-style-1"
    base = stable_id("dox", key)
    path = project_root / "services" / "billing" / "AGENTS.md"
    path.parent.mkdir(parents=True)
    path.write_text(agents("## Code style", LINTER))
    dox(run_cli)
    forget(run_cli, base)
    with store.write() as db:
        tombstones.record(
            db,
            project_id,
            [tombstones.whole_key(key) or ""],
            kind=tombstones.FORGOTTEN,
            reason="an older forget",
            memory_id=base,
            actor="person",
            at="2026-01-02T03:04:05.000000Z",
        )
    path.write_text(agents("## Code style", FORMATTER))
    report = dox(run_cli)
    assert changes(report) == {"forgotten": {f"{base}_r2"}}
    assert reasons(report) == [
        f"its words are not forgotten, but its source ref {key} was, with {base} on "
        f"2026-01-02T03:04:05Z; `tree-ring audit --target {base}` shows why"
    ]
    assert live(project_root) == {}


def test_a_revolve_record_forgotten_then_rewritten_is_the_next_revision(
    run_cli: CliRunner, project_root: Path
) -> None:
    record = project_root / "revolve" / "evals" / "cache.md"
    record.parent.mkdir(parents=True)
    base = stable_id("revolve", "revolve/evals/cache.md:evaluation_rejection")
    record.write_text("# Cache v2\nRolled back after a latency regression.\n")
    assert changes(write(run_cli, "revolve", "sync")) == {"create": {base}}
    forget(run_cli, base)
    record.write_text("# Cache v3\nRejected: the hit rate fell by half.\n")
    assert changes(write(run_cli, "revolve", "sync")) == {"create": {f"{base}_r2"}}
    assert live(project_root, "revolve") == {
        f"{base}_r2": "Revolve rejected evidence from revolve/evals/cache.md: Cache v3"
    }


def test_a_forget_keeps_a_synced_rows_place_writable() -> None:
    """Forgetting a synced row tombstones its words, not the file and heading
    it sits under; a note citing the same words as its source ref still has
    its ref tombstoned."""
    ref = "services/billing/AGENTS.md#code-style-1"
    ref_keys = set(tombstones.keys("", "", [ref]))
    synced = make_memory(
        "p",
        f"DOX workflow guidance in services/billing/AGENTS.md: {LINTER}",
        id=stable_id("dox", ref),
        scope="dox",
        source_type="dox",
        source_ref=ref,
        source_quote=LINTER,
    )
    assert not ref_keys & set(tombstones.forget_keys(synced))
    note = synced.replace(id="mem_20260101_000000_0123456789ab", scope="project")
    assert ref_keys & set(tombstones.forget_keys(note))
    imported = synced.replace(origin="import")
    assert ref_keys & set(tombstones.forget_keys(imported))


def dox_rows(root: Path) -> dict[str, tuple[str, str]]:
    """Id -> (summary, details) of the current dox rows of a clone."""
    sql = (
        "SELECT id, summary, details FROM memories WHERE source_type = 'dox'"
        " AND retired_at IS NULL AND superseded_by IS NULL"
    )
    return {row["id"]: (row["summary"], row["details"]) for row in query(root, sql)}


def exchange(root: Path, message: str) -> None:
    """Write what the clone holds to the team ledger, take what the team
    pushed (the ledger's merge driver joins the two), and push."""
    ok(root, "sync")
    commit(root, message)
    pull(root)
    ok(root, "sync")
    publish(root, message)


def test_clones_reach_the_same_revision_through_the_ledger(tmp_path: Path) -> None:
    """Alice forgets a synced rule and writes another in its place. Bob
    syncs the new file on his own before Alice does, having taken her forget
    from the ledger, and Carol clones after both: all three hold the one
    row, under one id, and the forgotten one in none."""
    alice = first_repo(tmp_path, "alice")
    hub(tmp_path, alice)
    base = stable_id("dox", "services/billing/AGENTS.md#code-style-1")
    r2, r3 = f"{base}_r2", f"{base}_r3"
    path = Path("services") / "billing" / "AGENTS.md"
    (alice / path).parent.mkdir(parents=True)
    (alice / path).write_text(agents("## Code style", LINTER))
    ok(alice, "dox", "sync")
    exchange(alice, "the linter rule")
    bob = clone(tmp_path / "alice-hub.git", tmp_path, "bob")
    exchange(bob, "bob joined")
    assert set(dox_rows(bob)) == {base}

    ok(alice, "forget", base, "--mode", "delete", "--reason", "we dropped the linter")
    (alice / path).write_text(agents("## Code style", FORMATTER))
    exchange(alice, "the formatter rule")
    exchange(bob, "bob took the forget")
    assert dox_rows(bob) == {}
    # Bob syncs the new rule first; Alice, not having seen his, then does too.
    assert changes(ok(bob, "--json", "dox", "sync").json()) == {"create": {r2}}
    assert changes(ok(alice, "--json", "dox", "sync").json()) == {"create": {r2}}
    assert dox_rows(alice) == dox_rows(bob)
    exchange(bob, "bob synced")
    exchange(alice, "alice synced")
    exchange(bob, "bob took alice's")

    carol = clone(tmp_path / "alice-hub.git", tmp_path, "carol")
    ok(carol, "sync")
    for root in (alice, bob, carol):
        rows = dox_rows(root)
        assert set(rows) == {r2}, root.name
        assert rows[r2] == dox_rows(alice)[r2]
        assert rows[r2][0] == f"DOX workflow guidance in {path.as_posix()}: {FORMATTER}"
        assert changes(ok(root, "--json", "dox", "sync").json()) == {"unchanged": {r2}}
        assert base not in ids(root)
    # The forgotten rule stays out of every clone, Carol's too.
    for root in (alice, carol):
        (root / path).write_text(agents("## Code style", LINTER))
        report = ok(root, "--json", "dox", "sync").json()
        assert changes(report) == {"forgotten": {r3}}
        assert set(dox_rows(root)) == {r2}
