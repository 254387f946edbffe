"""The lines of a file to import, read a bounded piece at a time.

A line ends at "\\n", "\\r\\n" or a lone "\\r", as JSON Lines are written;
a raw "\\u2028" or "\\x85" inside a JSON string is part of its line (a JSON
writer need not escape them, and `str.splitlines` would cut the string
there). No line is held past the cap:
the file is read in pieces of at most `limit` + 1 bytes, so a file with no
line break in it (`/dev/zero`, a megabyte of one character on standard
input) costs a bounded amount of memory, not the file's size.

A line longer than the cap is handed on cut short: its first `limit` bytes
and more, so the parser refuses it as too long in its turn (naming its
number, or leaving it out under `skip_long`). Then either the rest of that
line is read and dropped (`skip_long`: the lines after it are still wanted)
or reading stops there, since the import will refuse that line anyway and an
endless line would otherwise be read for ever. Without `skip_long`, reading
stops after any line past the cap, whole or cut short. Under `skip_long`,
the rest of a line is looked for its end no further than `SKIP_BYTES` past
the cap: a line that runs on past that (`/dev/zero`) refuses the whole file
in one line, before anything is written.
"""

from __future__ import annotations

import codecs
import os
from pathlib import Path
from typing import IO

from tree_ring.model.errors import UsageError
from tree_ring.model.text import FILE_ENCODING

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from contextlib import ExitStack

MAX_LINE_BYTES = 1_000_000
# How far past the cap the rest of a line left out (`skip_long`) is read for
# its end: far more than any line a person means to leave out, and the end
# of a stream whose line never ends.
SKIP_BYTES = 64 * 1024 * 1024
# What ends a line ("\r\n" is "\r" then "\n").
_BREAKS = frozenset("\n\r")


def _split(text: str) -> list[str]:
    """`text`'s lines, as `str.splitlines` gives them, ending only at _BREAKS."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


class FileLines:
    """The lines of UTF-8 text in a file (a path, or an open binary file such
    as standard input spooled to disk), read anew each time they are iterated,
    numbered from 1 as their ends (`_BREAKS`) part them. A file
    that cannot be read or decoded is a one-line error naming it."""

    def __init__(
        self,
        source: Path | IO[bytes],
        name: str,
        *,
        skip_long: bool = False,
        limit: int = MAX_LINE_BYTES,
    ) -> None:
        self.source = source
        self.name = name
        self.skip_long = skip_long
        self.limit = limit

    def __iter__(self) -> Iterator[str]:
        try:
            if isinstance(self.source, Path):
                with self.source.open("rb") as handle:
                    yield from self.read(handle)
            else:
                self.source.seek(0)
                yield from self.read(self.source)
        except OSError as exc:
            raise unreadable(self.name, exc) from None

    def read(self, handle: IO[bytes]) -> Iterator[str]:
        """The lines of `handle` from where it stands, as `__iter__` gives them."""
        # Strict, as an argument is read; a leading byte-order mark is dropped,
        # as every text file a person keeps is read (`text.FILE_ENCODING`).
        decoder = codecs.getincrementaldecoder(FILE_ENCODING)()
        carry = ""  # the start of a line no break has ended yet
        dropping = False  # inside a line already handed on cut short
        dropped = 0  # bytes of that line read past the piece handed on
        newlines = numbered = 0
        while True:
            piece = handle.readline(self.limit + 1)
            try:
                text = decoder.decode(piece, final=not piece)
            except UnicodeDecodeError:
                raise UsageError(
                    f"{self.name} is not valid UTF-8 text (line {newlines + 1}); re-encode it "
                    "and retry; nothing imported"
                ) from None
            if not piece:
                break
            newlines += piece.endswith(b"\n")
            joined = carry + text
            if not joined:  # only the first bytes of a character so far
                continue
            lines = _split(joined)
            carry = ""
            if joined[-1] == "\r":
                # Cut between "\r" and a "\n" that may follow: held, so the
                # pair ends one line, not two.
                carry = lines.pop() + "\r"
            elif joined[-1] not in _BREAKS:
                carry = lines.pop()
            if dropping and lines:
                del lines[0]  # the end of the long line
                dropping = False
            for line in lines:
                numbered += 1
                yield line
                if not self.skip_long and self._over(line):
                    return
            if dropping:
                carry = carry[-1:] if carry.endswith("\r") else ""
                dropped += len(piece)
                if dropped > SKIP_BYTES:
                    raise self._endless(numbered)
            elif self._over(carry):
                numbered += 1
                yield carry.removesuffix("\r")
                if not self.skip_long:
                    return
                carry, dropping, dropped = (carry[-1:] if carry.endswith("\r") else ""), True, 0
        if carry and not dropping:
            yield carry.removesuffix("\r")

    def _endless(self, number: int) -> UsageError:
        return UsageError(
            f"{self.name}: line {number} has no line break within {SKIP_BYTES:,} bytes "
            f"past the {self.limit:,}-byte line cap, too far to read on to leave it out; "
            "end that line with a line break or remove it, then import again; nothing imported"
        )

    def _over(self, text: str) -> bool:
        """Whether `text` (an unended line, perhaps with its "\\r") is past the cap."""
        text = text.removesuffix("\r")
        # A character is one to four bytes: encoding is needed only between.
        return len(text) > self.limit or (
            len(text) * 4 > self.limit and len(text.encode("utf-8")) > self.limit
        )


def open_lines(
    path: str, stdin: IO[bytes], stack: ExitStack, *, skip_long: bool = False
) -> FileLines:
    """The lines of the file at `path`, or of `stdin` for "-". A regular file
    is read where it is; anything else (standard input, a pipe such as
    `<(...)` or `/dev/stdin`, a device) can be read only once, so it is first
    copied into a temporary file that `stack` removes."""
    import stat
    import tempfile

    if path != "-":
        try:
            regular = stat.S_ISREG(os.stat(path).st_mode)
        except OSError as exc:
            raise unreadable(path, exc) from None
        if regular:
            return FileLines(Path(path), path, skip_long=skip_long)
    into = stack.enter_context(tempfile.TemporaryFile())  # noqa: SIM115 - closed by `stack`
    if path == "-":
        return spool(stdin, into, "stdin", skip_long=skip_long)
    try:
        stream = stack.enter_context(open(path, "rb"))  # noqa: SIM115 - closed by `stack`
    except OSError as exc:
        raise unreadable(path, exc) from None
    return spool(stream, into, path, skip_long=skip_long)


def spool(stream: IO[bytes], into: IO[bytes], name: str, *, skip_long: bool = False) -> FileLines:
    """`stream` copied line by line into `into` (a temporary file), to be read
    twice as a file is; a line past the cap is copied cut short, and without
    `skip_long` the copy stops there."""
    lines = FileLines(into, name, skip_long=skip_long)
    try:
        for line in lines.read(stream):
            into.write(line.encode("utf-8") + b"\n")
    except OSError as exc:
        raise unreadable(name, exc) from None
    return lines


def unreadable(name: str, exc: OSError) -> UsageError:
    return UsageError(
        f"cannot read {name}: {exc.strerror or exc}; name a JSONL file you can read, "
        "or - for standard input"
    )
