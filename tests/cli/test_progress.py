"""Progress on stderr: drawn on a terminal, silent otherwise, never on stdout."""

from __future__ import annotations

import io
import json
from pathlib import Path

from conftest import PERSON
from progress_support import run_tree_ring

from tree_ring.cli.progress import Reporter
from tree_ring.harness import guidance
from tree_ring.store.db import Store
from tree_ring.transfer import jsonl as transfer


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_reporter_draws_at_most_once_an_interval_and_clears_its_line() -> None:
    now = [0.0]
    stream = _Tty()
    reporter = Reporter(stream, interval=0.25, clock=lambda: now[0])
    reporter("import", 1, 10)
    now[0] = 0.1
    reporter("import", 2, 10)  # too soon: not drawn
    now[0] = 0.3
    reporter("import", 3, None)
    reporter.close()
    assert stream.getvalue() == (
        "\rimport: 1 of 10 (10%)" + "\rimport: 3" + " " * 12 + "\r" + " " * 9 + "\r"
    )


def test_a_reporter_off_a_terminal_writes_nothing() -> None:
    stream = io.StringIO()
    with Reporter(stream, interval=0) as reporter:
        for n in range(5):
            reporter("import", n, 5)
    assert stream.getvalue() == ""


def test_an_import_tells_its_progress_in_lines_of_the_file(store: Store, project_id: str) -> None:
    seen: list[tuple[str, int, int | None]] = []
    lines = [json.dumps({"summary": f"Fact {n} is kept", "event_type": "note"}) for n in range(7)]
    transfer.import_lines(
        store,
        ["", *lines],
        project=project_id,
        actor=PERSON,
        batch=3,
        progress=lambda *args: seen.append(args),
    )
    assert seen == [("import", 4, 8), ("import", 7, 8), ("import", 8, 8)]


def _import(tmp_path: Path, *, tty: bool) -> tuple[int, bytes, bytes]:
    root = tmp_path / "project"
    root.mkdir()
    guidance.init_project(root)
    path = tmp_path / "in.jsonl"
    rows = [json.dumps({"summary": f"Fact {n} is kept", "event_type": "note"}) for n in range(5)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return run_tree_ring(root, ["import", str(path)], tty=tty)


def test_on_a_terminal_the_import_draws_progress_on_stderr_only(tmp_path: Path) -> None:
    code, out, err = _import(tmp_path, tty=True)
    assert code == 0, err
    assert b"\rimport: 5 of 5 (100%)" in err
    assert b"import:" not in out and out.startswith(b"imported 5 memories")


def test_off_a_terminal_the_import_is_quiet(tmp_path: Path) -> None:
    code, out, err = _import(tmp_path, tty=False)
    assert code == 0, err
    assert err == b"" and out.startswith(b"imported 5 memories")


def test_doctor_tells_each_check_of_all_of_them(project_root: Path) -> None:
    from tree_ring.upkeep import doctor

    seen: list[tuple[str, int, int | None]] = []
    report = doctor.diagnose(project_root, progress=lambda *args: seen.append(args))
    assert report.ok
    names = [check.name for check in report.checks]
    assert [done for _, done, _ in seen] == list(range(len(doctor.CHECKS)))
    assert {total for _, _, total in seen} == {len(doctor.CHECKS)}
    assert len(names) == len(seen) and all(what.startswith("doctor: ") for what, _, _ in seen)
