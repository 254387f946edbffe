"""`view` opens the browser on a private page's file:// address, never the URL with the token."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import pytest
from helpers import LAUNCHER
from processes import first_line, started

from tree_ring.web import app, browser
from tree_ring.web.server import ViewServer

URL = "http://127.0.0.1:8791/?token=Tok_en-1&x=<y>"


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def runtime(tmp_path: Path) -> Path:
    folder = tmp_path / "run"
    folder.mkdir(mode=0o700)
    folder.chmod(0o700)
    return folder


def test_the_page_is_private_and_goes_on_to_the_url(runtime: Path) -> None:
    page = browser.write_redirect(URL, {"XDG_RUNTIME_DIR": str(runtime)})
    assert page.parent.parent == runtime and page.name == "open.html"
    assert _mode(page.parent) == 0o700 and _mode(page) == 0o600
    text = page.read_text(encoding="utf-8")
    quoted = "http://127.0.0.1:8791/?token=Tok_en-1&amp;x=&lt;y&gt;"
    assert f'<meta http-equiv="refresh" content="0; url={quoted}">' in text
    assert f'<a href="{quoted}">' in text
    assert "token" not in page.as_uri()
    browser.remove(page)
    assert list(runtime.iterdir()) == []
    browser.remove(page)  # twice is fine


def test_a_runtime_folder_others_can_write_to_is_not_used(
    runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime.chmod(0o777)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    page = browser.write_redirect(URL, {"XDG_RUNTIME_DIR": str(runtime)})
    assert page.parent.parent == tmp and _mode(page.parent) == 0o700
    assert list(runtime.iterdir()) == []
    browser.remove(page)
    assert list(tmp.iterdir()) == []


def _run_view(
    project_root: Path, runtime: Path, monkeypatch: pytest.MonkeyPatch, *flags: str
) -> tuple[int, list[dict[str, Any]]]:
    """`view` in this process with a stand-in browser; the server stops once the
    browser has been asked (or at once with --no-open)."""
    import webbrowser

    asked: list[dict[str, Any]] = []
    opened = threading.Event()

    def fake_open(address: str, *args: object, **kwargs: object) -> bool:
        path = Path(address.removeprefix("file://"))
        asked.append(
            {
                "address": address,
                "file_mode": _mode(path),
                "dir_mode": _mode(path.parent),
                "text": path.read_text(encoding="utf-8"),
                "path": path,
            }
        )
        opened.set()
        return True

    def serve(self: ViewServer, poll_interval: float = 0.5) -> None:
        if "--no-open" not in flags:
            assert opened.wait(60), "the browser was never asked"

    monkeypatch.setattr(webbrowser, "open", fake_open)
    monkeypatch.setattr(ViewServer, "serve_forever", serve)
    env = {"XDG_RUNTIME_DIR": str(runtime)}
    code = app.main(["view", "--root", str(project_root), "--json", *flags], env)
    return code, asked


def test_view_opens_the_page_not_the_url_and_removes_it_at_the_end(
    project_root: Path, runtime: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    code, asked = _run_view(project_root, runtime, monkeypatch)
    assert code == 0
    url = json.loads(capsys.readouterr().out)["url"]  # the terminal still gets the URL
    token = url.split("token=")[1]
    assert len(asked) == 1
    seen = asked[0]
    assert seen["address"] == seen["path"].as_uri()
    assert seen["address"].startswith(f"file://{runtime}/tree-ring-view-")
    assert token not in seen["address"]
    assert (seen["file_mode"], seen["dir_mode"]) == (0o600, 0o700)
    assert f'content="0; url={url}"' in seen["text"]
    assert not seen["path"].exists() and not seen["path"].parent.exists()
    assert list(runtime.iterdir()) == []


def test_no_open_writes_no_page_and_asks_no_browser(
    project_root: Path, runtime: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    code, asked = _run_view(project_root, runtime, monkeypatch, "--no-open")
    assert code == 0 and asked == []
    assert "token=" in json.loads(capsys.readouterr().out)["url"]
    assert list(runtime.iterdir()) == []


def test_the_browser_command_gets_the_page_and_sigterm_removes_it(
    project_root: Path, runtime: Path, tmp_path: Path
) -> None:
    # A stand-in browser (BROWSER, as webbrowser reads it) that writes what
    # it was given into a pipe the test waits on.
    fifo = tmp_path / "asked"
    os.mkfifo(fifo)
    script = tmp_path / "browser.sh"
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" > {fifo}\n')
    script.chmod(0o755)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TREE_RING_", "CLAUDE", "CODEX_")) and k != "AI_AGENT"
    }
    env.update({"BROWSER": str(script), "XDG_RUNTIME_DIR": str(runtime)})
    argv = [sys.executable, str(LAUNCHER), "view", "--root", str(project_root), "--json"]
    with started(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) as p:
        url = json.loads(first_line(p))["url"]
        got: list[str] = []
        reader = threading.Thread(target=lambda: got.append(fifo.read_text()), daemon=True)
        reader.start()
        reader.join(60)
        assert got, "the browser command was never run"
        address = got[0].strip()
        assert address.startswith(f"file://{runtime}/") and url.split("token=")[1] not in address
        page = Path(address.removeprefix("file://"))
        assert url in page.read_text(encoding="utf-8").replace("&amp;", "&")
        p.send_signal(signal.SIGTERM)
        assert p.wait(timeout=20) == 0
        assert p.stderr is not None and p.stderr.read() == ""
    assert not page.exists() and list(runtime.iterdir()) == []
