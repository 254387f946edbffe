"""A memory's anchors travel in an export, as its team ledger line carries them.

Alice anchors memories to files of her checkout and exports the project.
Bob, a fresh clone whose ledger holds none of her memories, imports the
file: every anchor comes back exactly (path, blob id, commit, time), and
`stale` then judges the files against Bob's own checkout, by hash. An
export row carries its files as the ledger line does (`files`, the same
shape and order, only when it names any); the original Tree Ring's format
carries none, and reads as it always did.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from governance_support import CLAUDE
from team_support import LEDGER, cli, clone, commit, first_repo, ledger_entries, ok

from tree_ring.store.db import Store

FILES = {"src/retry.py": b"MAX_DELAY = 30\n", "src/queue.py": b"FIFO = True\n"}
DOC = ("docs/deploy.md", b"# Deploys\nFreeze on Fridays.\n")


def anchors_of(root: Path) -> set[tuple[str, str, str, str | None, str]]:
    """Every anchor the store holds: (memory, path, blob, commit, time)."""
    with Store.open(root) as store:
        found = store.conn.execute(
            "SELECT memory_id, path, blob, git_commit, anchored_at FROM anchors"
        )
        return {(str(r[0]), str(r[1]), str(r[2]), r[3], str(r[4])) for r in found}


def dump(root: Path) -> list[str]:
    """The store's whole content, as SQL."""
    with Store.open(root) as store:
        return list(store.conn.iterdump())


def alice(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """Alice's repository: code committed, then three memories (two anchored,
    one not) written since, which her committed ledger does not hold."""
    root = first_repo(tmp_path)
    for rel, data in (*FILES.items(), DOC):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    commit(root, "code")
    ids = {
        "retry": ok(
            root,
            "--json",
            "remember",
            "Retries back off to at most 30 s",
            "--ring",
            "heartwood",
            "--file",
            "src/retry.py",
            "--file",
            "src/queue.py",
        ).json()["id"],
        "deploy": ok(
            root, "--json", "remember", "Deploys freeze on Fridays", "--file", DOC[0]
        ).json()["id"],
        "plain": ok(root, "--json", "remember", "The team reviews on Tuesdays").json()["id"],
    }
    return root, ids


def exported(root: Path, tmp_path: Path, *flags: str) -> Path:
    path = tmp_path / "export.jsonl"
    ok(root, "export", "--output", str(path), *flags)
    return path


def rows_of(path: Path) -> dict[str, dict[str, Any]]:
    lines = [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines()]
    return {row["id"]: row for row in lines if "record" not in row}


def test_an_export_row_carries_its_files_as_the_ledger_line_does(tmp_path: Path) -> None:
    root, ids = alice(tmp_path)
    rows = rows_of(exported(root, tmp_path))
    lines = {entry["id"]: entry for entry in ledger_entries(root) if "id" in entry}
    for name in ("retry", "deploy"):
        assert rows[ids[name]]["files"] == lines[ids[name]]["files"]
    assert [f["path"] for f in rows[ids["retry"]]["files"]] == ["src/queue.py", "src/retry.py"]
    head = cli(root, "--json", "show", ids["retry"]).json()["anchors"][0]["commit"]
    assert head is not None and {f["commit"] for f in rows[ids["retry"]]["files"]} == {head}
    # Only a row with files names them, as a ledger line only then does.
    assert "files" not in rows[ids["plain"]] and "files" not in lines[ids["plain"]]


@pytest.mark.parametrize("flags", [(), ("--restore",)], ids=["import", "restore"])
def test_a_round_trip_into_a_fresh_clone_keeps_every_anchor(
    tmp_path: Path, flags: tuple[str, ...]
) -> None:
    root, ids = alice(tmp_path)
    path = exported(root, tmp_path)
    bob = clone(root, tmp_path, "bob")
    assert anchors_of(bob) == set() and ok(bob, "--json", "list").json()["items"] == []
    done = ok(bob, "--json", "import", str(path), *flags).json()
    assert done["imported"] == 3
    assert anchors_of(bob) == anchors_of(root)
    assert {a[0] for a in anchors_of(bob)} == {ids["retry"], ids["deploy"]}
    # Judged against Bob's checkout, by hash: as Alice's, then one file moved on.
    assert ok(bob, "--json", "stale").json()["items"] == []
    (bob / "src" / "retry.py").write_bytes(b"MAX_DELAY = 60\n")  # same size, other bytes
    [item] = ok(bob, "--json", "stale").json()["items"]
    assert item["id"] == ids["retry"]
    assert [(f["path"], f["state"]) for f in item["files"]] == [("src/retry.py", "changed")]
    assert '"src/retry.py" changed since ' in ok(bob, "stale").out


def test_a_dry_run_writes_nothing(tmp_path: Path) -> None:
    root, _ = alice(tmp_path)
    path = exported(root, tmp_path)
    bob = clone(root, tmp_path, "bob")
    before = dump(bob)
    done = ok(bob, "--json", "import", str(path), "--dry-run").json()
    assert done["dry_run"] is True and done["imported"] == 3
    assert dump(bob) == before and anchors_of(bob) == set()


def test_the_originals_format_carries_no_files_and_reads_as_before(tmp_path: Path) -> None:
    root, ids = alice(tmp_path)
    path = exported(root, tmp_path, "--format", "original")
    lines = [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines()]
    memories = [line["memory"] for line in lines if line.get("type") == "memory_event"]
    assert {m["id"] for m in memories} == set(ids.values())
    assert all("files" not in m for m in memories)
    # An envelope's memory naming files, even files no row may name, is read
    # as the original's format always was: without them.
    bad = {**memories[0], "id": "mem_20261206_120000_00000000beef", "summary": "Envelope note"}
    bad["files"] = [{"path": "../outside", "blob": "nothex", "at": "never"}]
    path.write_text(json.dumps({"type": "memory_event", "memory": bad}) + "\n", encoding="utf-8")
    bob = clone(root, tmp_path, "bob")
    assert ok(bob, "--json", "import", str(path)).json()["imported"] == 1
    assert anchors_of(bob) == set()


def test_an_agents_import_anchors_what_it_writes_and_no_stored_memory(tmp_path: Path) -> None:
    """An agent's rows wait for a person with their files, as its `remember
    --file` does; it cannot change a stored memory's files, which is a
    confirm (a person's) or a replacement (a person's)."""
    root, ids = alice(tmp_path)
    path = exported(root, tmp_path)
    bob = clone(root, tmp_path, "bob")
    done = cli(bob, "--json", "import", str(path), environ=CLAUDE)
    assert done.code == 0, done.err
    assert done.json()["pending"] >= 2
    # Under the ids its import gave them (an agent's import keeps no id it cannot read).
    assert {a[1:] for a in anchors_of(bob)} == {a[1:] for a in anchors_of(root)}
    before = anchors_of(bob)
    rows = rows_of(path)
    moved = {**rows[ids["retry"]], "files": []}
    path.write_text(json.dumps(moved) + "\n", encoding="utf-8")
    again = cli(bob, "--json", "import", str(path), environ=CLAUDE)
    assert again.code == 0 and again.json()["unchanged"] == 1
    moved["summary"] = "Retries back off to at most 60 s"
    path.write_text(json.dumps(moved) + "\n", encoding="utf-8")
    refused = cli(bob, "import", str(path), "--replace-existing", environ=CLAUDE)
    assert refused.code != 0
    assert anchors_of(bob) == before


def test_a_global_row_into_the_user_store_names_no_files(tmp_path: Path) -> None:
    root, ids = alice(tmp_path)
    rows = rows_of(exported(root, tmp_path))
    row = {**rows[ids["deploy"]], "scope": "global", "id": "mem_20261206_120000_00000000cafe"}
    path = tmp_path / "global.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    home = {"HOME": str(tmp_path / "home")}
    refused = cli(root, "import", str(path), "--global-to", "user", environ=home)
    assert refused.code == 2
    assert refused.err.strip().splitlines() == [
        "error: line 1: files: a global memory in your user store names no files of a "
        "project; drop its files, or import it into the project; nothing imported"
    ]
    assert row["id"] not in {m["id"] for m in ok(root, "--json", "list").json()["items"]}
    assert row["id"] not in (root / LEDGER).read_text(encoding="utf-8")
