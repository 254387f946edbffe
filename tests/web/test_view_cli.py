"""`tree-ring view` as a command: the URL it prints, Ctrl-C, and one-line errors."""

from __future__ import annotations

import json
import signal
import socket
import sys
import urllib.error
import urllib.request
from pathlib import Path
from subprocess import PIPE

from helpers import LAUNCHER, run_process
from processes import first_line, started


def _argv(root: Path, *args: str) -> list[str]:
    return [sys.executable, str(LAUNCHER), "view", "--root", str(root), "--no-open", *args]


def test_it_prints_a_loopback_url_with_a_token_and_stops_on_ctrl_c(project_root: Path) -> None:
    # `started` kills the server if anything below fails, Ctrl-C included.
    with started(_argv(project_root, "--json"), stdout=PIPE, stderr=PIPE, text=True) as process:
        data = json.loads(first_line(process))
        assert data["command"] == "view" and data["project"]
        url: str = data["url"]
        assert url.startswith("http://127.0.0.1:") and "/?token=" in url
        token = url.split("token=")[1]
        assert len(token) >= 40
        # Without the token: refused, and the refusal does not hold it.
        base = url.split("?")[0]
        try:
            urllib.request.urlopen(base, timeout=10)
            raise AssertionError("served without the token")
        except urllib.error.HTTPError as exc:
            assert exc.code == 403
            assert token not in exc.read().decode()
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=20) == 0
        assert process.stderr is not None and process.stderr.read() == ""


def test_a_port_in_use_is_a_one_line_error(project_root: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run_process("view", "--root", str(project_root), "--no-open", "--port", str(port))
    err = done.stderr.decode()
    assert done.returncode == 2
    assert err.startswith(f"error: cannot listen on 127.0.0.1:{port}") and err.count("\n") == 1


def test_no_store_is_a_one_line_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    done = run_process("view", "--root", str(empty), "--no-open", "--json")
    assert done.returncode != 0 and done.stdout == b""
    error = json.loads(done.stderr.decode())["error"]
    assert error["code"] == "no_store" and "tree-ring" in error["message"]


def test_the_help_names_both_verbs() -> None:
    assert "tree-ring view" in " ".join(run_process("--help").stdout.decode().split())
    assert "--no-open" in run_process("view", "--help").stdout.decode()
    assert "--now" in run_process("report", "--help").stdout.decode()
