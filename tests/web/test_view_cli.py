"""`tree-ring view` as a command: the URL it prints, Ctrl-C, and one-line errors."""

from __future__ import annotations

import json
import signal
import socket
import sys
import urllib.error
import urllib.request
from pathlib import Path
from subprocess import PIPE, Popen

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


def _port_of(process: Popen[str]) -> int:
    """The port of a view that printed its URL; fails with what it said if it did not."""
    line = first_line(process)
    if not line:
        assert process.stderr is not None
        raise AssertionError(f"the view did not start: {process.stderr.read()!r}")
    url: str = json.loads(line)["url"]
    return int(url.split("/")[2].split(":")[1])


def _get_root(port: int) -> bytes:
    """The answer to one GET of /, read until the server closes the connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as client:
        client.sendall(f"GET / HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        answer = b""
        while chunk := client.recv(65536):
            answer += chunk
    return answer


def test_a_port_is_free_again_as_soon_as_its_view_stops(project_root: Path) -> None:
    with started(_argv(project_root, "--json"), stdout=PIPE, stderr=PIPE, text=True) as first:
        port = _port_of(first)
        # The server closes this connection first, so its end waits out
        # TIME-WAIT on the port after the view has stopped.
        assert _get_root(port).startswith(b"HTTP/1.0 403 ")
        first.send_signal(signal.SIGINT)
        assert first.wait(timeout=20) == 0
    again = _argv(project_root, "--json", "--port", str(port))
    with started(again, stdout=PIPE, stderr=PIPE, text=True) as second:
        assert _port_of(second) == port
        assert _get_root(port).startswith(b"HTTP/1.0 403 ")  # it serves
        second.send_signal(signal.SIGINT)
        assert second.wait(timeout=20) == 0
        assert second.stderr is not None and second.stderr.read() == ""


def test_a_second_view_on_the_port_of_a_running_one_is_a_one_line_error(
    project_root: Path,
) -> None:
    with started(_argv(project_root, "--json"), stdout=PIPE, stderr=PIPE, text=True) as first:
        port = _port_of(first)
        done = run_process("view", "--root", str(project_root), "--no-open", "--port", str(port))
        err = done.stderr.decode()
        assert done.returncode == 2
        assert err == (
            f"error: cannot listen on 127.0.0.1:{port} (Address already in use); "
            "choose another --port or leave it out\n"
        )
        assert first.poll() is None  # the first view still serves


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
