"""A memory's page shows an agent's refutation reason, in the banner above its
fields and in its audit history, with a quote of content forgotten since
withheld, as `show` does."""

from __future__ import annotations

from pathlib import Path

from forgotten_quote_support import REFUTED, SHOWN, disputed
from helpers import CliRunner
from web_support import serving


def test_the_memory_page_withholds_the_forgotten_quote_in_its_banner_and_history(
    project_root: Path, run_cli: CliRunner
) -> None:
    memory_id = disputed(run_cli)
    with serving(project_root) as client:
        client.login()
        page = client.get(f"/memory?id={memory_id}")
    assert page.status == 200
    assert f"disputed by claude-code: {REFUTED}" in page.body
    assert f"reason: {REFUTED}" in page.body
    assert SHOWN in page.body
    assert "payments" not in page.body
