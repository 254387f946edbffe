"""The status page's table of hooks: one row per harness from its receipt."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tree_ring.harness.receipts import write_receipt
from tree_ring.model import project
from tree_ring.read.brief import Brief
from tree_ring.web import status
from tree_ring.web.site import Site


def test_each_harness_shows_its_last_brief_count_and_last_stop(project_root: Path) -> None:
    site = Site.open(str(project_root), {})
    session = site.session(site.new_session())
    assert session is not None
    assert "<p>No hook has fired in this project yet.</p>" in status.status_page(site, session, {})
    brief = Brief("text", ("mem_a", "mem_b", "mem_c"), "p")
    written = write_receipt(project_root, harness="claude-code", event="SessionStart", brief=brief)
    assert written == str(project.receipts_dir(project_root) / "claude-code.json")
    write_receipt(project_root, harness="codex", event="Stop", brief=None)
    receipts = {
        name: json.loads((project.receipts_dir(project_root) / f"{name}.json").read_text())
        for name in ("claude-code", "codex")
    }
    html = status.status_page(site, session, {})
    table = html[html.index("<th>harness</th>") :]
    rows = re.findall(
        r"<tr><td>(.*?)</td><td>(.*?)</td><td class=\"num\">(.*?)</td><td>(.*?)</td></tr>", table
    )
    assert rows == [
        ("claude-code", receipts["claude-code"]["last_brief"]["at"], "3", "never"),
        ("codex", "never", "0", receipts["codex"]["last_stop"]["at"]),
    ]
