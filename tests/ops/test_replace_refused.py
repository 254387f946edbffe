"""A line that would replace a stored row, refused, leaves the row as it was.

`import --replace-existing` and `sync` write a line whose id the store holds
in the stored row's place. The write path may refuse the new row (its content
was forgotten here, or rejected in review), and a sync refuses a line dated
ahead of now (written, changed or retired in years to come); the stored row must then stay as
it was, with no audit entry of its removal, so `audit verify` and `doctor`
stay clean and nothing is lost to a bad line (`doctor` names a line the
sync's check refuses while the upstream still holds it, as every sync does).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from team_support import LEDGER, cli, clone, first_repo, hub, ok, publish, pull, remember

KEPT = "The api gateway runs three replicas in production"
FORGOTTEN = "The staging database is reset every Friday night"
CHANGED = "The api gateway runs four replicas in production"


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _summary(root: Path, memory_id: str) -> str:
    return ok(root, "--json", "show", memory_id).json()["memory"]["summary"]


def _verified(root: Path) -> None:
    verified = cli(root, "--json", "audit", "verify")
    assert verified.code == 0 and verified.json()["ok"] is True, verified.out + verified.err


def _store(tmp: Path) -> tuple[Path, str, str]:
    """A project holding `KEPT`, beside a second memory, having forgotten `FORGOTTEN`."""
    root = first_repo(tmp, "source")
    kept = remember(root, KEPT)
    other = remember(root, "The worker pool has eight threads")
    ok(root, "forget", remember(root, FORGOTTEN), "--mode", "delete", "--reason", "gone")
    return root, kept, other


def _lines(root: Path, tmp: Path, *rows: tuple[str, str]) -> Path:
    """The export's lines for the ids of `rows`, each with the summary given."""
    wanted = dict(rows)
    out = []
    for text in ok(root, "export").out.splitlines():
        line = json.loads(text)
        if line.get("id") in wanted:
            line.pop("content_hash", None)
            out.append({**line, "summary": wanted[line["id"]], "updated_at": _now()})
    assert {line["id"] for line in out} == set(wanted)
    path = tmp / "replacing.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in out), encoding="utf-8")
    return path


def test_a_refused_replacement_under_skip_invalid_keeps_the_stored_row(tmp_path: Path) -> None:
    root, kept, other = _store(tmp_path)
    path = _lines(root, tmp_path, (kept, FORGOTTEN), (other, "The worker pool has nine threads"))
    done = cli(root, "--json", "import", str(path), "--replace-existing", "--skip-invalid")
    assert done.code == 0, done.err
    report = done.json()
    assert (report["replaced"], report["imported"], report["skipped"]) == (1, 1, 1)
    skipped = [item["line"] for item in report["items"] if item.get("result") == "skipped"]
    assert skipped == [1]
    assert _summary(root, kept) == KEPT
    assert _summary(root, other) == "The worker pool has nine threads"
    _verified(root)
    assert cli(root, "doctor").code == 0


def test_a_refused_replacement_imports_nothing(tmp_path: Path) -> None:
    root, kept, other = _store(tmp_path)
    path = _lines(root, tmp_path, (other, "The worker pool has nine threads"), (kept, FORGOTTEN))
    done = cli(root, "import", str(path), "--replace-existing")
    assert done.code != 0 and "forgotten" in done.err and "nothing imported" in done.err
    assert len(done.err.strip().splitlines()) == 1
    assert (_summary(root, kept), _summary(root, other)) == (
        KEPT,
        "The worker pool has eight threads",
    )
    _verified(root)


def test_an_accepted_replacement_still_replaces(tmp_path: Path) -> None:
    root, kept, _ = _store(tmp_path)
    done = cli(
        root, "--json", "import", str(_lines(root, tmp_path, (kept, CHANGED))), "--replace-existing"
    )
    assert done.code == 0, done.err
    assert done.json()["replaced"] == 1
    assert _summary(root, kept) == CHANGED
    _verified(root)


@pytest.mark.parametrize(
    "edit", ["forgotten", "retired_rejected", "retired_ahead", "updated_ahead", "created_ahead"]
)
def test_an_upstream_line_the_write_path_refuses_leaves_the_clones_row(
    tmp_path: Path, edit: str
) -> None:
    alice = first_repo(tmp_path)
    bare = hub(tmp_path, alice)
    target = remember(alice, KEPT)
    if edit == "forgotten":
        ok(alice, "forget", remember(alice, FORGOTTEN), "--mode", "delete", "--reason", "gone")
        changes = {"summary": FORGOTTEN}
    elif edit.endswith("_ahead"):
        # Dated in years to come: changed "later", it would win every merge
        # of its id until then; retired later, a look at now would read it as
        # current; written later, no read would show it until then.
        field = edit.replace("_ahead", "_at")
        changes = {"summary": CHANGED, field: "9999-12-31T23:59:59.999999Z"}
    else:
        newer = remember(alice, CHANGED)
        ok(alice, "supersede", target, newer, "--reason", "scaled up")
        env = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s1"}
        proposal = cli(alice, "--json", "remember", KEPT, "--scope", "project", environ=env)
        assert proposal.code == 0, proposal.err
        ok(alice, "review", "reject", proposal.json()["id"], "--reason", "superseded")
        changes = {"retired_at": None, "superseded_by": None, "valid_to": None}
    publish(alice, "notes")
    before = _summary(alice, target)

    bob = clone(bare, tmp_path, "bob")
    path = bob / LEDGER
    lines = []
    for text in path.read_text(encoding="utf-8").splitlines():
        line = json.loads(text)
        if line.get("id") == target and "summary" in line:
            line.pop("content_hash", None)
            line = {**line, "updated_at": _now(), **changes}
        lines.append(json.dumps(line, separators=(",", ":"), sort_keys=True))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    publish(bob, "an edited line")

    pull(alice)
    synced = cli(alice, "--json", "sync")
    assert synced.code == 0, synced.err
    assert synced.json()["skipped"] == 1 and synced.json()["replaced"] == 0
    assert _summary(alice, target) == before
    _verified(alice)
    if edit.endswith("_ahead"):
        # The sync's check refused it as it read it: while the upstream holds
        # it, every sync skips it again, and `doctor` names it as the sync
        # does, until the ledger this clone wrote is pushed in its place.
        [item] = synced.json()["items"]
        doctor = cli(alice, "--json", "doctor")
        [check] = [c for c in doctor.json()["items"] if c["name"] == "ledger"]
        assert (doctor.code, check["ok"]) == (1, False)
        assert check["detail"].splitlines()[1:] == [
            f"{LEDGER}: (a line of the upstream's ledger) {item['reason']}"
        ]
        publish(alice, "the ledger as synced")
    assert cli(alice, "doctor").code == 0
