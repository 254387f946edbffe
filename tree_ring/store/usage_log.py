"""The usage log: what Tree Ring put into an agent's context, and when.

One line of JSON per event, and nothing but ids and sizes in it:

- `brief`: a SessionStart (or SubagentStart) hook's brief, or the MCP
  `brief` tool's: the memory ids it showed, its bytes.
- `checkpoint`: a Stop hook that blocked: its reason's bytes. Each one costs
  the agent one more model turn (it answers the block).
- `recall`: a recall (CLI or MCP): the ids it returned, the bytes printed.

Each line also names the harness (`claude-code`, `codex`, `person`), the
session when there is one, and an estimated token count: bytes / 4, rounded
up, the usual rule of thumb for English text and code (a model's own
tokenizer would say more precisely, and Tree Ring runs none). Never a
memory's text: forgetting a memory leaves only its id here, and an id says
nothing of what the memory held.

The log is local and bounded: `.tree-ring/receipts/usage.jsonl`, beside the
hook receipts (out of git, as `receipts/` is), moved to `usage.jsonl.1` when
it passes `MAX_BYTES`, so at most twice that on disk. No network, ever.

Appending is on the hooks' path, so this module imports only what they
already load: `os`, `stat` and `model/jsontext.py` (no `json`, no `time`
formatting beyond `time.gmtime`). Two hooks rotating at the same instant
can lose one rotation's older half: the log is a bounded account, not a
ledger.
"""

from __future__ import annotations

import os
import stat
import time

from tree_ring.model import jsontext, project

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from tree_ring.model.project import StrPath

LOG = "usage.jsonl"
ROTATED = LOG + ".1"
# About 2,500 briefs of eight ids: months of sessions for most projects.
MAX_BYTES = 512 * 1024
# A reader reads at most this much of a file; a larger one is not ours.
MAX_READ = 4 * MAX_BYTES
# A brief shows at most eight memories and a recall at most 50 by default;
# a line names at most this many ids, so no line runs long.
MAX_IDS = 100
# The most bytes one entry may count: far past any brief, recall or
# checkpoint a harness was given (a line over it is no entry of ours).
MAX_ENTRY_BYTES = 64 * 1024 * 1024
# How far past the reader's clock an entry may be dated (another process's
# clock, a moment later): one dated further is no entry of ours, or it would
# count under every `usage --since`.
AHEAD_NS = 60 * 1_000_000_000
EVENTS = ("brief", "checkpoint", "recall")
# The harnesses an entry names: the hooks', an agent's (MCP without one
# named: `agent`), and a person's own recall at the terminal, TUI or web view.
PERSON = "person"
HARNESSES = ("claude-code", "codex", "agent", PERSON)
BYTES_PER_TOKEN = 4


def estimate_tokens(size: int) -> int:
    """Bytes / 4, rounded up: an estimate, documented as one (docs/USAGE-LOG.md)."""
    return (size + BYTES_PER_TOKEN - 1) // BYTES_PER_TOKEN


def iso(now_ns: int) -> str:
    """A time as the store writes one (UTC, microseconds, `Z`)."""
    seconds, nanoseconds = divmod(now_ns, 1_000_000_000)
    t = time.gmtime(seconds)
    # Fields, not strftime: the C library's %Y gives the year 493 as "493",
    # and a time must keep its width for text order (`usage --since 80000w`).
    return (
        f"{t.tm_year:04d}-{t.tm_mon:02d}-{t.tm_mday:02d}T"
        f"{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d}.{nanoseconds // 1000:06d}Z"
    )


def path_str(root: StrPath) -> str:
    return os.path.join(project.receipts_dir_str(root), LOG)


def line(
    event: str,
    *,
    harness: str,
    session: str | None,
    ids: Iterable[str],
    size: int,
    now_ns: int,
) -> str:
    """One log line, newline included."""
    entry: dict[str, Any] = {
        "at": iso(now_ns),
        "event": event,
        "harness": harness,
        "ids": list(ids)[:MAX_IDS],
        "bytes": size,
        "tokens": estimate_tokens(size),
    }
    if session:
        entry["session"] = session
    return jsontext.dumps(entry, sort_keys=True, compact=True) + "\n"


def append(
    root: StrPath,
    event: str,
    *,
    harness: str,
    session: str | None,
    ids: Iterable[str],
    size: int,
    now_ns: int | None = None,
) -> None:
    """Add one line; raises OSError (or UnsafePath for a link) for the caller,
    which fails open: a hook or a recall never fails for want of its log."""
    if event not in EVENTS:
        raise ValueError(f"unknown usage event {event!r}")
    stamp = time.time_ns() if now_ns is None else now_ns
    data = line(event, harness=harness, session=session, ids=ids, size=size, now_ns=stamp)
    folder = project.receipts_folder(root)  # UnsafePath for a link or a file there
    path = os.path.join(folder, LOG)
    encoded = data.encode("utf-8")
    fd = _open(path)
    try:
        if os.fstat(fd).st_size + len(encoded) > MAX_BYTES:
            os.close(fd)
            fd = -1
            # A rename replaces a link at `.1` itself; it never writes through one.
            os.replace(path, os.path.join(folder, ROTATED))
            fd = _open(path)
        # One write of one short line to a file opened O_APPEND: lines from
        # hooks running at once do not interleave.
        os.write(fd, encoded)
    finally:
        if fd >= 0:
            os.close(fd)


def _open(path: str) -> int:
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | project.NOFOLLOW | project.NONBLOCK
    fd = os.open(path, flags, 0o600)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(f"{path} is not a regular file")
    return fd


class Read:
    """What a reader found: the entries, oldest first, and what it skipped."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []
        self.skipped = 0  # lines that are not a usage entry (damaged, hand-edited)
        self.notes: list[str] = []  # files not read, or not read whole, and why


def read(root: StrPath) -> Read:
    """Every entry of the log and its rotated half; a missing log is empty.

    A line that is not an entry is skipped and counted; a file that is a
    link, not a regular file or unreadable is left out with a note; one
    larger than Tree Ring writes is read only to `MAX_READ`, with a note.
    """
    found = Read()
    folder = project.receipts_dir_str(root)
    problem = project.receipts_problem(root)
    if problem is not None:  # a link is not followed, a file is no log
        found.notes.append(problem)
        return found
    for name in (ROTATED, LOG):
        path = os.path.join(folder, name)
        try:
            raw = project.read_bytes(path, MAX_READ)
        except FileNotFoundError:
            continue
        except OSError as exc:
            found.notes.append(f"{path} not read ({exc.strerror or exc})")
            continue
        if len(raw) > MAX_READ:
            raw = raw[:MAX_READ]
            found.notes.append(f"{path} is over {MAX_READ:,} bytes; only its first part was read")
        for text in raw.split(b"\n"):
            if not text.strip():
                continue
            entry = _entry(text)
            if entry is None:
                found.skipped += 1
            else:
                found.entries.append(entry)
    found.entries.sort(key=lambda entry: str(entry["at"]))
    return found


def _entry(text: bytes) -> dict[str, Any] | None:
    """The entry a line holds, or None for anything else."""
    try:
        entry = jsontext.as_object(jsontext.loads(text.decode("utf-8")))
    except (ValueError, RecursionError):
        return None
    if entry is None or entry.get("event") not in EVENTS:
        return None
    at, harness, ids = entry.get("at"), entry.get("harness"), entry.get("ids")
    size, session = entry.get("bytes"), entry.get("session")
    if not (isinstance(at, str) and isinstance(harness, str) and isinstance(ids, list)):
        return None
    if type(size) is not int or not 0 <= size <= MAX_ENTRY_BYTES or len(ids) > MAX_IDS:  # pyright: ignore[reportUnknownArgumentType]
        return None
    if session is not None and not isinstance(session, str):
        return None
    # Who writes entries: a harness's hook or agent, or a person's own recall.
    if harness not in HARNESSES or (harness == PERSON and (entry["event"] != "recall" or session)):
        return None
    if len(set(ids)) != len(ids):  # pyright: ignore[reportUnknownArgumentType]
        return None
    from tree_ring.model.record import compiled_patterns

    patterns = compiled_patterns()
    if not all(isinstance(i, str) and patterns.memory_id.match(i) for i in ids):  # pyright: ignore[reportUnknownVariableType]
        return None
    # A time as `iso` writes one, of a real day, and not ahead of this clock.
    if not patterns.stored_time.match(at) or at > iso(time.time_ns() + AHEAD_NS):
        return None
    try:
        time.strptime(at[:19], "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        return None
    return entry


def record(
    root: StrPath,
    event: str,
    *,
    harness: str,
    session: str | None,
    ids: Iterable[str],
    size: int,
) -> str | None:
    """`append` for a command or a tool: None when written, else why not (for
    one line on stderr). The log is an account; a recall never fails for it."""
    from tree_ring.model.errors import TreeRingError

    try:
        append(root, event, harness=harness, session=session, ids=ids, size=size)
    except (OSError, TreeRingError) as exc:
        return f"usage not logged: {getattr(exc, 'strerror', None) or exc}"
    return None
