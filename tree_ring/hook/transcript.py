"""Whether a turn did work, from the tail of the transcript a Stop payload names.

Both harnesses write a session as JSON lines and name the file in every stop's
`transcript_path` (a subagent's stop also names the subagent's own as
`agent_transcript_path`):

- Claude Code: `{"type": "user", "message": {"content": "..."}}` for what the
  person typed (tool results and the hook's own feedback are user lines too,
  with `tool_result` blocks or `isMeta`), and `{"type": "assistant", "message":
  {"content": [{"type": "tool_use", "name": "Edit", "input": {...}}]}}`.
- Codex: `{"type": "event_msg", "payload": {"type": "task_started"}}` where a
  turn begins, and `{"type": "response_item", "payload": {"type":
  "function_call", "name": "exec_command", "arguments": "..."}}` (also
  `custom_tool_call`, e.g. apply_patch, and `local_shell_call`).

A turn did work when, after its last prompt, the agent ran a command or called
a tool that can change something: anything but the tools below that only
read, plan or delegate, and Tree Ring's own commands and tools (a memory the
agent already saved is no reason to ask for one). A shell command line is
Tree Ring's own only when every command it runs is (`_runs_only_tree_ring`):
`tree-ring recall x && rm -rf build` is work. A delegated subagent's
work shows in its own transcript, which its stop reads.

The same walk names the files the turn changed (`changed_files`), for the
anchors of the checkpoint's captures: Claude Code's `Edit`, `MultiEdit`,
`Write` and `NotebookEdit` calls name an absolute `file_path` (or
`notebook_path`); Codex's `apply_patch` names each file in its patch text
(`*** Add File: PATH`, `*** Update File: PATH`, `*** Move to: PATH`), relative
to the session's folder. A command run in a shell names no file it changed:
those are not guessed at. The paths are only text here; the caller keeps
those inside the project and never opens one outside it.

Only the last `TAIL_BYTES` of lines are read, a line longer than `LONG_LINE`
by its head (`tail_lines`). A file that is missing, unreadable or not a
transcript reads as "no work": an odd transcript never earns a checkpoint.
"""

from __future__ import annotations

import os
import stat

from tree_ring.model import jsontext

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any, BinaryIO

TAIL_BYTES = 256 * 1024
# Tools that read, plan, ask or delegate: calling them changes nothing.
READ_ONLY_TOOLS = frozenset(
    {
        # Claude Code
        "Read",
        "Grep",
        "Glob",
        "LS",
        "WebFetch",
        "WebSearch",
        "TodoWrite",
        "TodoRead",
        "ToolSearch",
        "Task",
        "Agent",
        "TaskOutput",
        "BashOutput",
        "KillShell",
        "KillBash",
        "ExitPlanMode",
        "EnterPlanMode",
        "AskUserQuestion",
        "ListMcpResourcesTool",
        "ReadMcpResourceTool",
        # Codex
        "update_plan",
        "view_image",
        "web_search",
        "spawn_agent",
        "wait_agent",
        "send_input",
        "close_agent",
        "list_mcp_resources",
        "list_mcp_resource_templates",
        "read_mcp_resource",
        "request_user_input",
    }
)
SHELL_TOOLS = frozenset({"Bash", "exec_command", "shell", "local_shell", "container.exec"})
# Lines worth parsing contain one of these; the rest (tool output, token
# counts, attachments) are skipped unread.
_MARKERS = (
    b"tool_use",
    b'"user"',
    b"task_started",
    b"user_message",
    b"function_call",
    b"custom_tool_call",
    b"local_shell_call",
    b"FileChange",
)
# What ends the walk back through a turn.
BOUNDARY = "boundary"
WORK = "work"


def tail_lines(path: str, limit: int = TAIL_BYTES) -> list[bytes] | None:
    """The transcript's last lines within `limit` bytes, or None when unreadable
    or not a regular file: a FIFO or a device named as the transcript would
    otherwise hold the hook until the harness kills it.

    A line longer than `LONG_LINE` (an Edit's record holds the whole file it
    edited, a large command's output is written twice, a Write's call holds
    the file it writes) is kept as its first `HEAD` bytes, which do not parse
    but name the call's tool (`_head_kind`), so it cannot push the call
    before it out of reach: past one, lines are read on backwards, up to
    `READ_CAP` bytes in all."""
    try:
        # Non-blocking, so opening a FIFO with no writer returns at once.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            return None
        with os.fdopen(fd, "rb") as handle:
            size = handle.seek(0, 2)
            start = max(0, size - limit)
            handle.seek(start)
            data = handle.read(limit)
            lines = data.split(b"\n")
            if start > 0:
                # The first is cut somewhere in its middle; when what is left of
                # it, or another line, is long, the lines before are read past it.
                if max(map(len, lines)) > LONG_LINE:
                    return _past_long_lines(handle, size, limit)
                lines = lines[1:]
    except (OSError, ValueError):
        return None
    return lines


# A line longer than this is kept as its head only, and does not count
# against the tail: the head names a call's tool (`_head_kind`).
LONG_LINE = 16 * 1024
HEAD = 4096
# How far back the tail is looked for past long lines, in bytes read.
READ_CAP = 32 * 1024 * 1024
_BLOCK = 256 * 1024


def _past_long_lines(handle: BinaryIO, size: int, limit: int) -> list[bytes]:
    """The last lines, `limit` bytes of those of at most LONG_LINE bytes, and
    the first HEAD bytes of each longer one, newest last, read backwards
    from the end."""
    kept: list[bytes] = []  # newest first
    held = 0
    position = size
    partial = b""  # the start of the line the last block began inside
    long = False  # that line is already longer than LONG_LINE: only its end was seen
    while position > 0 and size - position < READ_CAP and held < limit:
        step = min(_BLOCK, position)
        position -= step
        handle.seek(position)
        block = handle.read(step)
        pieces = (block + partial).split(b"\n")
        for index, line in enumerate(reversed(pieces[1:])):
            if index == 0 and long:
                # The long line starts here: its head, read from its start.
                kept.append(_head(handle, position + block.rfind(b"\n") + 1))
                long = False
            elif len(line) <= LONG_LINE:
                kept.append(line)
                held += len(line) + 1
            else:
                kept.append(line[:HEAD])
        partial = pieces[0]
        if len(partial) > LONG_LINE:
            partial, long = b"", True
    if position == 0 and held < limit:
        kept.append(_head(handle, 0) if long or len(partial) > LONG_LINE else partial)
    kept.reverse()
    return kept


def _head(handle: BinaryIO, start: int) -> bytes:
    """The first HEAD bytes of the line that starts at `start`."""
    handle.seek(start)
    return handle.read(HEAD).split(b"\n", 1)[0]


def _back(path: str, limit: int) -> Iterator[tuple[bytes, dict[str, Any] | None]]:
    """The tail's lines that may matter (`_MARKERS`), newest first, each with
    its entry: None for a line that does not parse (a long line's head, or a
    line cut short); a line that parses to no object is passed over."""
    for raw in reversed(tail_lines(path, limit) or []):
        if not any(marker in raw for marker in _MARKERS):
            continue
        try:
            entry = jsontext.as_object(jsontext.loads(raw.decode("utf-8")))
        except (ValueError, RecursionError):
            yield raw, None
            continue
        if entry is not None:
            yield raw, entry


def did_work(path: str | None, limit: int = TAIL_BYTES) -> bool:
    """Whether the turn the transcript ends with ran a command or changed something."""
    if not path:
        return False
    for raw, entry in _back(path, limit):
        if entry is None:
            # A long line's head, or a line cut short: a call it names, if any.
            if _head_kind(raw) == WORK:
                return True
            continue
        kind = classify(entry)
        if kind == WORK:
            return True
        if kind == BOUNDARY:
            return False
    return False


def turn_mark(path: str | None, limit: int = TAIL_BYTES) -> str | None:
    """What tells the turn the transcript ends with from the next one, for a
    stop whose payload names no turn (a harness that sends no `prompt_id` or
    `turn_id`): its prompt's `uuid`, or the prompt's line itself, hashed. The
    lines the turn adds after it (the agent's answer to a checkpoint, a
    subagent's return) leave it as it was. None when no prompt is in reach."""
    if not path:
        return None
    for raw, entry in _back(path, limit):
        if entry is None or classify(entry) != BOUNDARY:
            continue
        uuid = entry.get("uuid")
        if isinstance(uuid, str) and 0 < len(uuid) <= 64:
            return f"prompt:{uuid}"
        from tree_ring.model.record import hex_digest

        return "line:" + hex_digest(raw.decode("utf-8"))[:16]
    return None


# Claude Code's tools that write one file, and the input naming it.
FILE_TOOLS = {
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "Write": "file_path",
    "NotebookEdit": "notebook_path",
}
PATCH_HEADS = ("*** Add File: ", "*** Update File: ", "*** Move to: ")
MAX_CHANGED = 256  # paths kept from one turn, before the caller's own bound


def changed_files(path: str | None, limit: int = TAIL_BYTES) -> list[str]:
    """The paths the transcript's last turn edited or wrote, newest first, as
    the tools named them (absolute, or relative to the session's folder)."""
    if not path:
        return []
    found: list[str] = []
    for _, entry in _back(path, limit):
        if entry is None:
            continue
        if classify(entry) == BOUNDARY:
            break
        for named in _named_files(entry):
            if named not in found and len(found) < MAX_CHANGED:
                found.append(named)
    return found


def _named_files(entry: dict[str, Any]) -> list[str]:
    if entry.get("type") == "assistant":
        message = jsontext.as_object(entry.get("message")) or {}
        named: list[str] = []
        for block in _blocks(message.get("content")):
            key = (
                FILE_TOOLS.get(str(block.get("name"))) if block.get("type") == "tool_use" else None
            )
            args = jsontext.as_object(block.get("input")) if key else None
            value = args.get(key) if args is not None and key else None
            if isinstance(value, str):
                named.append(value)
        return named
    payload = jsontext.as_object(entry.get("payload"))
    if entry.get("type") == "event_msg" and payload is not None:
        return _file_change(payload)
    if entry.get("type") != "response_item" or payload is None:
        return []
    if payload.get("name") != "apply_patch":
        return []
    patch = payload.get("input", payload.get("arguments"))
    if isinstance(patch, str) and patch.lstrip().startswith("{"):
        try:  # a function_call's arguments: {"input": "*** Begin Patch ..."}
            wrapped = jsontext.as_object(jsontext.loads(patch))
        except (ValueError, RecursionError):
            wrapped = None
        patch = wrapped.get("input") if wrapped is not None else None
    if not isinstance(patch, str):
        return []
    return [
        line[len(head) :].strip()
        for line in patch.split("\n")
        for head in PATCH_HEADS
        if line.startswith(head)
    ]


def _file_change(payload: dict[str, Any]) -> list[str]:
    """The files a completed Codex `FileChange` item names (absolute paths): how
    Codex records a patch it applied itself, the model having written
    `apply_patch` as a shell command, which the response item names only as
    that command."""
    item = (
        jsontext.as_object(payload.get("item")) if payload.get("type") == "item_completed" else None
    )
    if item is None or item.get("type") != "FileChange":
        return []
    changes = jsontext.as_object(item.get("changes"))
    return list(changes or {})


def _head_kind(head: bytes) -> str | None:
    """WORK when the start of a line too long to read whole is a call that
    changes something: Claude Code's `tool_use` (its name comes before its
    input) or Codex's `function_call` / `custom_tool_call` with its name."""
    import re

    found = re.search(
        rb'"type"\s*:\s*"(?:tool_use|function_call|custom_tool_call)"'
        rb'[^{}]{0,400}?"name"\s*:\s*"([^"\\]{1,128})"',
        head,
    )
    if found is None:
        return None
    name = found.group(1).decode("utf-8", "replace")
    # A shell command's own words are not read here: a long one is work.
    return WORK if name not in READ_ONLY_TOOLS and not _tree_ring(name) else None


def classify(entry: dict[str, Any]) -> str | None:
    """BOUNDARY for a prompt that starts a turn, WORK for a call that changes
    something, None for anything else."""
    kind = entry.get("type")
    if kind in ("user", "assistant"):
        return _claude(entry)
    payload = jsontext.as_object(entry.get("payload"))
    if payload is None:
        return None
    inner = payload.get("type")
    if kind == "event_msg":
        return BOUNDARY if inner in ("task_started", "user_message") else None
    if kind != "response_item":
        return None
    if inner == "message":
        return BOUNDARY if payload.get("role") == "user" and _typed(payload) else None
    if inner in ("function_call", "custom_tool_call"):
        name = payload.get("name")
        args = payload.get("arguments", payload.get("input"))
        return WORK if _changes(str(name or ""), args, payload.get("namespace")) else None
    if inner == "local_shell_call":
        return WORK if _changes("local_shell", payload.get("action"), None) else None
    return None


def _claude(entry: dict[str, Any]) -> str | None:
    if entry.get("isMeta") is True:
        return None
    message = jsontext.as_object(entry.get("message")) or {}
    content = message.get("content")
    if entry.get("type") == "user":
        # A subagent's lines are marked sidechain (all of them, in its own
        # file): its prompt starts nothing in the session's turn, its work counts.
        if entry.get("isSidechain") is True:
            return None
        if isinstance(content, str):
            return BOUNDARY
        blocks = _blocks(content)
        if any(block.get("type") == "tool_result" for block in blocks):
            return None
        return BOUNDARY if any(block.get("type") == "text" for block in blocks) else None
    for block in _blocks(content):
        if block.get("type") == "tool_use":
            name = block.get("name")
            if _changes(str(name or ""), block.get("input"), None):
                return WORK
    return None


def _blocks(content: Any) -> list[dict[str, Any]]:
    if type(content) is not list:
        return []
    items: list[Any] = content  # pyright: ignore[reportUnknownVariableType] - decoded JSON
    found: list[dict[str, Any]] = []
    for item in items:
        block = jsontext.as_object(item)
        if block is not None:
            found.append(block)
    return found


def _typed(payload: dict[str, Any]) -> bool:
    """A Codex user message a person typed; what Codex itself adds as a user
    message (the environment, a hook's prompt, a subagent's notice) is tagged."""
    for block in _blocks(payload.get("content")):
        text = block.get("text")
        if isinstance(text, str) and text.strip() and not text.lstrip().startswith("<"):
            return True
    return False


def _changes(name: str, args: object, namespace: object) -> bool:
    """Whether calling tool `name` with `args` can change something."""
    if name in READ_ONLY_TOOLS or _tree_ring(name) or _tree_ring(str(namespace or "")):
        return False
    if name in SHELL_TOOLS or name == "write_stdin":
        return not _runs_only_tree_ring(args)
    return True


def _tree_ring(name: str) -> bool:
    """Tree Ring's own MCP tools, under either harness's naming."""
    lowered = name.lower()
    return lowered.startswith("mcp__") and ("tree_ring" in lowered or "tree-ring" in lowered)


# The keys a shell call's arguments name its command by: Claude Code's Bash
# and Codex's `shell` and `local_shell_call` (`command`), Codex's
# `exec_command` (`cmd`), and the text `write_stdin` types (`chars`).
_COMMAND_KEYS = ("command", "cmd", "chars")
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh"})
# Python's options that take no argument: `python3 -I -S bin/tree-ring`.
_PYTHON_FLAGS = frozenset("BEIOPSbdqsuvx")


def _runs_only_tree_ring(args: object) -> bool:
    """Whether a shell call runs Tree Ring's CLI and nothing else (the capture
    a checkpoint names, a `tree-ring recall`): saving or reading memory is not
    work to remember. A command line is read as the shell would split it, and
    is Tree Ring's own only when every command it chains, pipes or puts in
    the background is; one whose shape is not plain (a command substitution,
    a subshell, a redirection to a file, a quote left open) is work."""
    if isinstance(args, str):
        try:
            parsed = jsontext.as_object(jsontext.loads(args))
        except (ValueError, RecursionError):
            parsed = None
        if parsed is None:
            return _line_is_tree_ring(args)
        args = parsed
    call = jsontext.as_object(args)
    if call is None:
        return False
    commands = [call[key] for key in _COMMAND_KEYS if key in call]
    return bool(commands) and all(_command_is_tree_ring(command) for command in commands)


def _command_is_tree_ring(command: object) -> bool:
    """A command line, or a command's words as run without a shell (Codex's
    `["bash", "-lc", LINE]` holds a line)."""
    if isinstance(command, str):
        return _line_is_tree_ring(command)
    if type(command) is not list:
        return False
    items: list[Any] = command  # pyright: ignore[reportUnknownVariableType] - decoded JSON
    words = [item for item in items if isinstance(item, str)]
    if len(words) != len(items) or not words:
        return False
    flags = words[1:-1]
    if (
        len(words) >= 3
        and _base(words[0]) in _SHELLS
        and all(flag.startswith("-") for flag in flags)
        and "c" in flags[-1]
        and not flags[-1].startswith("--")
    ):
        return _line_is_tree_ring(words[-1])
    return _words_are_tree_ring(words)


def _line_is_tree_ring(line: str) -> bool:
    """Every command of `line` Tree Ring's CLI (`bash -lc '...'` read as the
    line it runs, as Codex's word lists are), but a `cd` beside them, which
    changes nothing."""
    commands = _simple_commands(line)
    if not commands:
        return False
    ran = [words for words in commands if not (words[0] == "cd" and len(words) <= 2)]
    return bool(ran) and all(_command_is_tree_ring(words) for words in ran)


def _simple_commands(line: str) -> list[list[str]] | None:
    """The words of each simple command in a shell command line, quotes taken
    off, split where the shell splits commands (`;`, `&`, `|`, `&&`, `||`, a
    line break); None for what this reading does not follow and the shell
    might run as more than words: a command substitution (`$(...)`, backticks,
    also in double quotes), a subshell, a here-document, `${...}`, `$'...'`, a
    redirection other than to `/dev/null` or to another descriptor, a quote
    left open. A `#` that starts a word starts a comment."""
    commands: list[list[str]] = []
    words: list[str] = []
    word: list[str] = []
    started = quoted = False  # the current word has begun; some of it was quoted
    index, size = 0, len(line)

    def end_word() -> None:
        nonlocal started, quoted
        if started:
            words.append("".join(word))
        word.clear()
        started = quoted = False

    while index < size:
        char = line[index]
        following = line[index + 1 : index + 2]
        if char == "'":
            end = line.find("'", index + 1)
            if end < 0:
                return None
            word.append(line[index + 1 : end])
            started = quoted = True
            index = end + 1
        elif char == '"':
            index += 1
            while True:
                if index >= size:
                    return None
                inner = line[index]
                if inner == '"':
                    break
                escaped = line[index + 1 : index + 2]
                if inner == "`" or (inner == "$" and escaped and escaped in "([{"):
                    return None
                if inner == "\\" and escaped in ('"', "\\", "$", "`", "\n"):
                    if escaped != "\n":
                        word.append(escaped)
                    index += 2
                    continue
                word.append(inner)
                index += 1
            started = quoted = True
            index += 1
        elif char == "\\":
            if not following:
                return None
            if following != "\n":
                word.append(following)
                started = quoted = True
            index += 2
        elif char in " \t":
            end_word()
            index += 1
        elif char == "#" and not started:
            end = line.find("\n", index)
            index = size if end < 0 else end
        elif char in "<>" or (char == "&" and following == ">"):
            if started and not quoted and "".join(word).isdigit():
                word.clear()  # the descriptor redirected: `2>/dev/null`
                started = False
            end_word()
            index = _past_redirection(line, index)
            if index < 0:
                return None
        elif char in ";&|\n":
            end_word()
            if words:
                commands.append(words)
            words = []
            index += 1
        elif char in "()`" or (char == "$" and following and following in "([{'\""):
            return None
        else:
            word.append(char)
            started = True
            index += 1
    end_word()
    if words:
        commands.append(words)
    return commands


def _past_redirection(line: str, index: int) -> int:
    """Where a redirection that writes nothing ends (`>/dev/null`, `2>&1`,
    `&>/dev/null`, `</dev/null`, `>&2`), or -1 for any other."""
    start = index
    while index < len(line) and line[index] in "<>&":
        index += 1
    operator = line[start:index]
    if operator not in (">", ">>", "<", "&>", "&>>", ">&", "<&"):
        return -1
    while index < len(line) and line[index] in " \t":
        index += 1
    end = index
    while end < len(line) and line[end] not in " \t\n;&|<>()":
        end += 1
    target = line[index:end]
    if target == "/dev/null" or (operator in (">&", "<&") and (target == "-" or target.isdigit())):
        return end
    return -1


def _words_are_tree_ring(words: list[str]) -> bool:
    """A simple command that runs Tree Ring's CLI: `tree-ring ...`, a path to
    it (`/p/bin/tree-ring`), or Python running it (`python3 -I -S
    bin/tree-ring ...`, `python3 -m tree_ring ...`), after any `NAME=value`
    but one that changes which program runs or what it loads
    (`PATH=/x tree-ring` may run anything)."""
    index = 0
    while index < len(words) and _assignment(words[index]):
        if words[index].partition("=")[0].upper() in _RUNS_ELSEWHERE:
            return False
        index += 1
    if index == len(words):
        return False
    program = _base(words[index])
    if program == "tree-ring":
        return True
    if not (program.startswith("python") and all(c in "0123456789." for c in program[6:])):
        return False
    index += 1
    while index < len(words) and words[index].startswith("-") and words[index] != "-":
        flag = words[index]
        if flag == "-m":
            return words[index + 1 : index + 2] == ["tree_ring"]
        if not set(flag[1:]) <= _PYTHON_FLAGS:
            return False
        index += 1
    return index < len(words) and _base(words[index]) == "tree-ring"


# Variables that, set before a command, change which program it runs or what
# that program loads first.
_RUNS_ELSEWHERE = frozenset(
    {"PATH", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "PYTHONEXECUTABLE",
     "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "DYLD_INSERT_LIBRARIES",
     "DYLD_LIBRARY_PATH", "BASH_ENV", "ENV", "IFS", "SHELLOPTS", "BASHOPTS"}
)  # fmt: skip


def _assignment(word: str) -> bool:
    name, equals, _ = word.partition("=")
    return (
        bool(equals and name)
        and not name[0].isdigit()
        and all(c == "_" or ("a" <= c.lower() <= "z") or c.isdigit() for c in name)
    )


def _base(path: str) -> str:
    return path.rsplit("/", 1)[-1]
