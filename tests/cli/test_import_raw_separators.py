"""JSON Lines end at "\\n" (or "\\r\\n", or a lone "\\r"), nowhere else: a raw
U+2028, U+2029 or U+0085 inside a JSON string, which JSON allows and `jq -c`
writes, is part of its line, where the import cut the line there and
refused it as "Unterminated string". The summary then reads the separator as
whitespace, as it reads the escaped one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import CliRunner


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"])
def test_a_raw_line_separator_inside_a_string_is_part_of_its_line(
    run_cli: CliRunner, tmp_path: Path, separator: str
) -> None:
    rows = [
        {"summary": f"Deploy note{separator}second line"},
        {"summary": "Builds use the locked toolchain"},
    ]
    path = tmp_path / "rows.jsonl"
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    assert separator in text
    path.write_text(text, encoding="utf-8")
    done = run_cli("--json", "import", str(path))
    assert done.code == 0, done.err
    summaries = {item["summary"] for item in run_cli("--json", "list").json()["items"]}
    assert summaries == {"Deploy note second line", "Builds use the locked toolchain"}


def test_a_project_file_with_a_byte_order_mark_is_read(
    run_cli: CliRunner, project_root: Path
) -> None:
    path = project_root / ".tree-ring" / "project.json"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert run_cli("remember", "Deploys freeze on Fridays").code == 0
    assert run_cli("status").code == 0
