"""The viewer answers every request while a CLI process writes to the same store."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest
from helpers import REPO
from processes import started
from web_support import serving

pytestmark = pytest.mark.slow

WRITES = 60


def test_pages_answer_while_the_cli_writes(project_root: Path) -> None:
    # One process writing as fast as the CLI can, one `remember` after another.
    script = (
        "import contextlib, io, sys\n"
        f"sys.path.insert(0, {str(REPO)!r})\n"
        "from tree_ring.cli.app import main\n"
        f"for n in range({WRITES}):\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        f"        args = ['--root', {str(project_root)!r}, 'remember', f'Concurrent note {{n}}']\n"
        "        code = main(args, {})\n"
        "    assert code == 0, code\n"
    )
    codes: list[int] = []
    # Every answer that is not a page, with what it said: a flake is then named.
    refused: list[tuple[str, int, str]] = []
    failures: list[BaseException] = []
    with serving(project_root) as client:
        client.login()
        with started([sys.executable, "-c", script]) as writer:

            def read() -> None:
                # A request that fails outright (a dropped connection) fails the test too.
                try:
                    while writer.poll() is None:
                        for path in ("/", "/memories", "/review", "/status", "/memories?q=note"):
                            got = client.get(path)
                            codes.append(got.status)
                            if got.status != 200:
                                refused.append((path, got.status, got.body[-2000:]))
                except BaseException as exc:
                    failures.append(exc)

            readers = [threading.Thread(target=read) for _ in range(4)]
            for t in readers:
                t.start()
            for t in readers:
                t.join()
            assert writer.wait(timeout=300) == 0
        final = client.get("/memories").body
    assert failures == []
    assert codes and refused == []
    assert set(codes) == {200}
    assert f"of {WRITES}" in final
