"""A real `tree-ring tui` in a pseudo-terminal, read through a terminal emulator.

pexpect gives the pseudo-terminal, pyte draws what the program writes into a
screen of cells (text, colours), and every byte is kept so tests can check
what was sent to the terminal on the way out (the alternate screen left, the
modes restored).
"""

from __future__ import annotations

import os
import sys
import termios
import time
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

import pexpect
import pyte

LAUNCHER = Path(__file__).resolve().parents[2] / "bin" / "tree-ring"
ENTER_ALT = b"\x1b[?1049h"
LEAVE_ALT = b"\x1b[?1049l"


class Terminal:
    # Every terminal opened and not yet finished: the test module's teardown
    # ends what a failed test left running (`close_all`).
    open: ClassVar[list[Terminal]] = []

    def __init__(
        self,
        root: Path,
        *,
        columns: int = 80,
        lines: int = 24,
        env: dict[str, str] | None = None,
        args: tuple[str, ...] = (),
    ) -> None:
        self.screen = pyte.Screen(columns, lines)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()
        environ = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        environ.update({"TERM": "xterm-256color", "LANG": "C.UTF-8", **(env or {})})
        self.child = pexpect.spawn(
            sys.executable,
            [str(LAUNCHER), "tui", "--root", str(root), *args],
            dimensions=(lines, columns),
            env=environ,
        )
        self.modes_after: list[object] = []
        Terminal.open.append(self)

    @classmethod
    def close_all(cls) -> None:
        """End every terminal's program that is still running."""
        while cls.open:
            child = cls.open.pop().child
            if child.isalive():
                child.terminate(force=True)

    # ---------------------------------------------------------------- reading

    def pump(self, seconds: float = 0.3) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if not self._read(0.05):
                if not self.child.isalive():
                    return

    def _read(self, timeout: float) -> bool:
        try:
            data = self.child.read_nonblocking(65536, timeout=timeout)
        except pexpect.TIMEOUT:
            return False
        except pexpect.EOF:
            return False
        self.raw += data
        self.stream.feed(data)
        return True

    @property
    def text(self) -> str:
        return "\n".join(self.screen.display)

    def lines(self) -> list[str]:
        return list(self.screen.display)

    def wait_for(self, wanted: str | Callable[[str], bool], timeout: float = 15.0) -> float:
        """Read until the screen shows `wanted`; the seconds it took."""
        test = wanted if callable(wanted) else (lambda text: wanted in text)
        start = time.monotonic()
        while time.monotonic() - start < timeout:
            if test(self.text):
                took = time.monotonic() - start
                while self._read(0.1):  # the rest of the frame being drawn
                    pass
                return took
            self._read(0.05)
        raise AssertionError(f"the screen never showed {wanted!r}:\n{self.text}")

    def row_with(self, text: str) -> str:
        return next(line for line in self.lines() if text in line)

    # ---------------------------------------------------------------- writing

    def keys(self, *keys: str, settle: float = 0.15) -> None:
        for key in keys:
            self.child.send(key)
            self.pump(settle)

    def type(self, text: str) -> None:
        self.child.send(text)
        self.pump(0.2)

    def resize(self, columns: int, lines: int) -> None:
        self.screen.resize(lines, columns)
        self.child.setwinsize(lines, columns)
        self.pump(0.3)

    # ---------------------------------------------------------------- ending

    def finish(self, timeout: float = 15.0) -> int:
        """Read to the end; the exit status (128 + signal for a signal)."""
        end = time.monotonic() + timeout
        while self.child.isalive() and time.monotonic() < end:
            self._read(0.05)
        while self._read(0.05):
            pass
        self.modes_after = termios.tcgetattr(self.child.child_fd)
        self.child.close()
        if self.child.signalstatus is not None:
            return 128 + self.child.signalstatus
        return int(self.child.exitstatus or 0)

    def modes_restored(self) -> bool:
        """Whether the pty's line discipline is back to a shell's: echo, line editing, signals.

        pexpect opens the pty so; curses turns echo and line editing off while it runs.
        """
        lflag = self.modes_after[3]
        assert isinstance(lflag, int)
        wanted = termios.ECHO | termios.ICANON | termios.ISIG
        return lflag & wanted == wanted

    def left_alternate_screen(self) -> bool:
        raw = bytes(self.raw)
        return ENTER_ALT in raw and raw.rfind(LEAVE_ALT) > raw.rfind(ENTER_ALT)
