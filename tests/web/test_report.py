"""`tree-ring report --html`: same store and --now, same bytes; small, escaped, well-formed."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from helpers import CliRunner, make_memory
from web_support import insert

from tree_ring.__main__ import main
from tree_ring.model import project
from tree_ring.model.record import RINGS
from tree_ring.store.db import Store
from tree_ring.web import report

NOW = "2027-01-01T00:00:00.000000Z"
HOSTILE = "<script>alert('x')</script> \"q\" & ]]> \u202e\u0007\U0001f332 <a href=javascript:x>"
SVG_NS = "{http://www.w3.org/2000/svg}"


def _svg(html: str) -> ET.Element:
    found = re.search(r"<svg.*?</svg>", html, re.S)
    assert found, "no svg in the page"
    return ET.fromstring(found.group(0))


def _build(root: Path, now: str = NOW) -> str:
    with Store.open(root) as store:
        return report.build(store, project.load_project_id(root), now)


def _seed(root: Path, n: int, summary: str = "memory number {i} about the deploy pipeline") -> None:
    pid = project.load_project_id(root)
    rings = [*RINGS]
    insert(
        root,
        [
            make_memory(
                pid,
                summary.format(i=i),
                ring=rings[i % len(rings)],
                trust="pending" if i % 7 == 0 else "accepted",
                created_at=f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}T00:00:{i % 60:02d}.{i:06d}Z",
                salience=round((i % 10) / 10, 1),
            )
            for i in range(n)
        ],
    )


def test_the_same_store_and_now_give_the_same_bytes(project_root: Path, tmp_path: Path) -> None:
    _seed(project_root, 200)
    a, b = tmp_path / "a.html", tmp_path / "b.html"
    for path in (a, b):
        code = main(["report", "--root", str(project_root), "--html", str(path), "--now", NOW])
        assert code == 0
    assert a.read_bytes() == b.read_bytes()
    assert _build(project_root) == a.read_text(encoding="utf-8")
    # And --now matters: the same store a year earlier is another report.
    assert _build(project_root, "2026-06-01T00:00:00.000000Z") != a.read_text(encoding="utf-8")


def test_ten_thousand_memories_stay_under_a_megabyte_and_say_what_is_capped(
    project_root: Path,
) -> None:
    _seed(project_root, 10_000, "memory {i}: " + "a long enough sentence about releases " * 3)
    html = _build(project_root)
    assert len(html.encode("utf-8")) < 1_000_000
    marks = _svg(html).findall(f".//{SVG_NS}title")
    # One title per band and the picture's own, plus at most CAP marks per ring.
    assert len(marks) <= 1 + 4 + report.CAP * len(RINGS)
    assert len(marks) > report.CAP * len(RINGS)  # every ring is full
    assert f"At most {report.CAP} marks per ring are drawn" in html
    assert "cambium: the newest 150 of 1667" in html
    # Pending rows are drawn (hollow) and counted, and they wait in the queue.
    assert "10000 memories (8571 live, 1429 waiting for review)" in html


def test_hostile_text_is_escaped_and_the_svg_parses(project_root: Path) -> None:
    pid = project.load_project_id(project_root)
    insert(
        project_root,
        [
            make_memory(pid, HOSTILE, ring=ring, created_at="2026-05-05T00:00:00.000000Z")
            for ring in RINGS
        ],
    )
    html = _build(project_root)
    assert "<script" not in html and "<a href=javascript" not in html
    assert "\u202e" not in html and "\u0007" not in html
    assert "U+202EU+0007\U0001f332" in html  # spelled out, the tree kept
    svg = _svg(html)
    titles = [t.text or "" for t in svg.iter(f"{SVG_NS}title")]
    assert sum(HOSTILE[:30] in t for t in titles) == len(RINGS)
    assert svg.findall(f".//{SVG_NS}a") == []  # the file links nowhere


def test_the_page_itself_has_no_script_and_a_strict_policy(project_root: Path) -> None:
    _seed(project_root, 20)
    html = _build(project_root)
    assert "<script" not in html.lower()
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert policy and policy.group(1).startswith("default-src &#x27;none&#x27;;")
    assert html.count("<style>") == 1


def test_forgotten_content_is_counted_never_shown(project_root: Path, run_cli: CliRunner) -> None:
    out = run_cli("--json", "remember", "The old VPN gateway lives on host seven")
    memory_id = json.loads(out.out)["id"]
    run_cli("forget", memory_id, "--mode", "redact", "--reason", "a reason nobody should read")
    html = _build(project_root, "2099-01-01T00:00:00.000000Z")
    assert "VPN gateway" not in html and "nobody should read" not in html
    assert '<td>forgotten</td><td class="num">1</td><td class="num">2</td>' in html
    assert memory_id in html  # the activity names the id, as the audit log does


def test_json_output_and_a_bad_path(
    project_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "r.html"
    code = main(
        ["report", "--root", str(project_root), "--html", str(target), "--json", "--now", NOW]
    )
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert data["command"] == "report" and data["written"] == [str(target)]
    assert data["bytes"] == target.stat().st_size
    missing = tmp_path / "no" / "such" / "r.html"
    code = main(["report", "--root", str(project_root), "--html", str(missing)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: cannot write") and err.count("\n") == 1
    assert not missing.parent.exists()
