"""Progress of long work on stderr, for a person watching a terminal.

A library operation takes a `Progress` callback (`tree_ring/model/progress.py`);
this is the one the CLI gives it. It writes one line, rewritten in place
with a carriage return, at most every `INTERVAL` seconds, and clears it when
the work ends, so the command's own output starts on a clean line. When
stderr is not a terminal (a pipe, a file, an agent's tool call) it writes
nothing at all: progress is for eyes, never for a parser, and never on stdout.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

# Seconds between two updates: a few a second reads as motion without
# costing the work anything.
INTERVAL = 0.25


class Reporter:
    """A `Progress` that draws on a terminal, or does nothing."""

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        interval: float = INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        self.clock = clock
        self.active = _is_terminal(self.stream)
        self._last = -interval
        self._width = 0

    def __call__(self, what: str, done: int, total: int | None) -> None:
        if not self.active:
            return
        now = self.clock()
        if now - self._last < self.interval:
            return
        self._last = now
        text = f"{what}: {done:,}"
        if total:
            text += f" of {total:,} ({100 * min(done, total) // total}%)"
        self._draw(text)

    def _draw(self, text: str) -> None:
        pad = max(0, self._width - len(text))
        self.stream.write("\r" + text + " " * pad)
        self.stream.flush()
        self._width = len(text)

    def close(self) -> None:
        """Clear the line, if one was drawn."""
        if self.active and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0

    def __enter__(self) -> Reporter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # closed, or not a real file
        return False
