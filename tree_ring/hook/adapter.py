"""The hook adapter: a harness's hook payload in, at most one JSON document out.

`hooks/tree_ring_hook.py HARNESS` calls `main(HARNESS)` for Claude Code
(`claude-code`) and Codex (`codex`), which send the same Claude-style payloads
and accept the same output. Four events:

- SessionStart / SubagentStart: inject the startup brief through
  `hookSpecificOutput.additionalContext`, exactly those fields (Codex rejects
  unknown ones), and write a receipt.
- Stop: write a receipt and, when the project's checkpoint cadence says this
  stop gets one (`harness/checkpoint`, `hook/cadence`), block once with a short
  reason naming the exact capture command. A turn gets at most one: a stop
  with `stop_hook_active` (the agent answering our block) or a later stop of
  the same turn passes. The default, `after-work`, asks only after a turn
  that changed something (`hook/transcript`).
- SubagentStop: a receipt, and the subagent's work counted towards the
  session's next stop; it never blocks, so a subagent's return costs no turn.

The project and the identity come from the project root and the payload, never
from the model: a payload that tries to supply a root, store, capability or
task hint is refused. Outside a project with `.tree-ring/` the hook does
nothing at all. `main` is the one fail-open boundary: whatever goes wrong, the
agent's session goes on (exit 0, nothing on stdout, one line on stderr).
"""

from __future__ import annotations

import os
import sys
import time

from tree_ring.model import jsontext
from tree_ring.model.frozen import Frozen
from tree_ring.model.text import is_uuid

# The hook starts a new Python on every event, so this module and what it
# imports stay clear of what costs more to import than the hook's work:
# typing, dataclasses, pathlib, hashlib (OpenSSL), re, json (re and enum),
# shlex (re). docs/STARTUP.md lists them all, with their cost and substitutes.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any, BinaryIO

    from tree_ring.read.brief import Brief
    from tree_ring.store.db import Store

HARNESSES = ("claude-code", "codex")
START_EVENTS = ("SessionStart", "SubagentStart")
STOP_EVENTS = ("Stop", "SubagentStop")
SUBAGENT_EVENTS = ("SubagentStart", "SubagentStop")
MAX_PAYLOAD = 1 << 20
# Keys a payload could use to steer which store or scope the brief reads; the
# harnesses never send them, so their presence means someone is trying.
REFUSED_KEYS = (
    "root",
    "store",
    "store_id",
    "capability",
    "coordinator_token",
    "task_hint",
    "project",
)
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
# Session ids go into a shell command the model runs: both harnesses send
# UUIDs, so anything outside [A-Za-z0-9][A-Za-z0-9._:-]{0,127} is refused
# rather than quoted.
SESSION_ID_FIRST = frozenset(_ALNUM)
SESSION_ID_REST = frozenset(_ALNUM + "._:-")
SESSION_ID_MAX = 128
# What a subagent's type may keep in its partition name; other runs become "-".
AGENT_TYPE_CHARACTERS = frozenset(_ALNUM + "_.-")
# What a shell word may hold unquoted (as shlex.quote decides).
_SHELL_SAFE = frozenset(_ALNUM + "_@%+=:,./-")
# The checkpoint's one line on refuting: the same command, with `refute` in
# place of `capture` and its arguments.
REFUTE_HINT = "Memory wrong? refute ID --reason WHY"
# This module lives in <plugin root>/tree_ring/hook/, wherever the harness put the
# plugin (its cache, or a checkout), and bin/tree-ring sits beside it.
PLUGIN_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
DISABLE_VARIABLE = "TREE_RING_HOOKS"


class Refused(Exception):
    """A payload the adapter will not act on: a stderr note and no output."""


class HookEvent(Frozen):
    """One hook call, normalised from either harness's payload."""

    harness: str
    event: str
    session_id: str
    cwd: str  # absolute
    agent_id: str | None = None
    agent_type: str | None = None
    stop_hook_active: bool = False
    transcript_path: str | None = None
    # A subagent's stop names the subagent's own transcript here.
    agent_transcript_path: str | None = None
    # Codex's `turn_id` or Claude Code's `prompt_id`: one per user turn, so a
    # checkpoint is stable across retries of one stop and new on the next turn.
    turn_id: str | None = None

    @property
    def is_subagent(self) -> bool:
        return self.event in SUBAGENT_EVENTS or self.agent_id is not None


def usable_session_id(text: str) -> bool:
    return (
        0 < len(text) <= SESSION_ID_MAX
        and text[0] in SESSION_ID_FIRST
        and all(char in SESSION_ID_REST for char in text)
    )


def check_ids(event: HookEvent) -> None:
    """Refuse a call whose ids read as a secret, as an unusable id is refused.

    The session id names the state and changed-files files beside the
    receipts, and goes into the usage log, the sessions map and the
    checkpoint's command; the turn id is kept in the session's state; a
    subagent's type names its partition. A secret there would be written out
    in all of them. Both harnesses send UUIDs, which the guard never reads as a
    secret, so only other text loads the guard: a hook's usual call imports
    nothing more. The message names the rule, never the text.
    """
    ids = [("session_id", event.session_id), ("turn_id", event.turn_id)]
    if event.is_subagent:
        ids.append(("agent_type", event.agent_type))
    texts = [(key, text) for key, text in ids if text and not is_uuid(text)]
    if not texts:
        return
    from tree_ring.guard import find_secret

    for key, text in texts:
        rule = find_secret(text)
        if rule is not None:
            raise Refused(f"payload field {key} reads as a secret ({rule}); nothing recorded")


def replace_runs(text: str, allowed: frozenset[str], replacement: str) -> str:
    """`text` with each run of characters not in `allowed` replaced by `replacement`."""
    out: list[str] = []
    kept = True
    for char in text:
        if char in allowed:
            out.append(char)
            kept = True
        elif kept:
            out.append(replacement)
            kept = False
    return "".join(out)


def shell_quote(text: str) -> str:
    """`shlex.quote`, without importing shlex (which imports re)."""
    if not text:
        return "''"
    if all(char in _SHELL_SAFE for char in text):
        return text
    return "'" + text.replace("'", "'\"'\"'") + "'"


def _optional_str(payload: Mapping[str, Any], key: str) -> str | None:
    value = payload.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise Refused(f"payload field {key} is not a string")
    if not value.isascii() and any("\ud800" <= char <= "\udfff" for char in value):
        # JSON's "\ud800" escape: no path, id or file name can hold it.
        raise Refused(f"payload field {key} is not valid Unicode text")
    return value


def _flag(payload: Mapping[str, Any], key: str) -> bool:
    """A yes/no field: JSON true, or the text "true" or "1" in any case, as a
    payload written by a script (or a harness that sends text) may hold it;
    anything else, absent included, is no. A missed `stop_hook_active` would
    block the agent's answer to our own block a second time."""
    value = payload.get(key)
    if isinstance(value, str):
        return value.lower() in ("true", "1")
    return value is True


def parse_payload(harness: str, data: bytes) -> HookEvent:
    """Validate and normalise the raw stdin of one hook call."""
    if len(data) > MAX_PAYLOAD:
        raise Refused(f"payload is over {MAX_PAYLOAD} bytes")
    try:
        decoded = jsontext.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise Refused("payload is not UTF-8") from None
    except ValueError:
        raise Refused("payload is not JSON") from None
    payload = jsontext.as_object(decoded)
    if payload is None:
        raise Refused("payload is not a JSON object")
    supplied = [key for key in REFUSED_KEYS if key in payload]
    if supplied:
        raise Refused(
            f"payload supplies {', '.join(supplied)}; the project and identity come only "
            "from the project directory and the harness"
        )
    event = _optional_str(payload, "hook_event_name")
    if event is None:
        raise Refused("payload has no hook_event_name")
    session_id = _optional_str(payload, "session_id")
    if session_id is None or not usable_session_id(session_id):
        raise Refused("payload has no usable session_id")
    cwd = _optional_str(payload, "cwd")
    if cwd is None or not os.path.isabs(cwd) or "\x00" in cwd:
        raise Refused("payload has no absolute cwd")
    return HookEvent(
        harness=harness,
        event=event,
        session_id=session_id,
        cwd=cwd,
        agent_id=_optional_str(payload, "agent_id"),
        agent_type=_optional_str(payload, "agent_type"),
        stop_hook_active=_flag(payload, "stop_hook_active"),
        transcript_path=_optional_str(payload, "transcript_path"),
        agent_transcript_path=_optional_str(payload, "agent_transcript_path"),
        turn_id=_optional_str(payload, "turn_id") or _optional_str(payload, "prompt_id"),
    )


def agent_profile(event: HookEvent) -> str:
    """The harness for a main session; `harness:type:fingerprint` for a subagent,
    so each subagent writes to and reads its own partition."""
    if not event.is_subagent:
        return event.harness
    if event.agent_id is None:
        raise Refused(f"{event.event} payload has no agent_id")
    from tree_ring.model.record import hex_digest

    kind = replace_runs(event.agent_type or "", AGENT_TYPE_CHARACTERS, "-").strip("-")[:64]
    fingerprint = hex_digest(event.agent_id)[:16]
    kind = kind or "agent"
    return f"{event.harness}:{kind}:{fingerprint}"


def checkpoint_id(event: HookEvent, now_ns: int) -> str:
    """12 hex digits of sha256 over harness, session, agent and turn.

    The same stop of the same turn always gets the same checkpoint, so its
    operation ids make a repeated capture an exact retry; the next turn gets a
    new one. A payload without a turn id falls back to the clock.
    """
    from tree_ring.model.record import hex_digest

    turn = event.turn_id or f"time:{now_ns}"
    material = "\n".join((event.harness, event.session_id, event.agent_id or "", turn))
    return hex_digest(material)[:12]


def _path(text: str) -> str:
    """Double quotes as a person would type them, unless the path needs more."""
    if any(c in text for c in '"$`\\!\n'):
        return shell_quote(text)
    return f'"{text}"'


def check_paths(root: str) -> None:
    """Refuse a checkpoint whose command would show a line break or an
    invisible character: the paths must stay as they are for the command to
    work, so a folder named to add a line of its own to the reason, or to
    read differently from what it is, gets no checkpoint instead."""
    from tree_ring.model.text import describe, refused_at

    for name, path in (("project root", root), ("plugin folder", PLUGIN_ROOT)):
        at = refused_at(path)
        if at is not None:
            raise Refused(
                f"no checkpoint: the {name}'s path holds {describe(path, at)}; "
                "rename the folder to be asked to save memories at stop"
            )


def capture_command(root: str, event: HookEvent, checkpoint: str) -> str:
    """The exact command the stop reason names, for the first of three slots.

    `-I -S`, as the hooks run: the CLI needs neither the user's site-packages
    nor PYTHON* variables, and site's start-up alone costs more than the write.
    """
    from tree_ring.model.record import CAPTURE_PLACEHOLDER
    from tree_ring.model.text import one_line

    # Checked where it is made (a sanitised profile); the same function as
    # every field of the brief keeps that true of the reason. The project is
    # the root's, and capture takes the session as the workflow and the source.
    profile = one_line(agent_profile(event))
    parts = [
        "python3", "-I", "-S", _path(os.path.join(PLUGIN_ROOT, "bin", "tree-ring")),
        "--root", _path(root),
        "capture", f'"{CAPTURE_PLACEHOLDER}"',
        "--event-type", "lesson", "--ring", "cambium",
        "--agent-profile", shell_quote(profile),
        "--session-id", shell_quote(event.session_id),
        "--operation-id", f"auto-{checkpoint}-1",
    ]  # fmt: skip
    return " ".join(parts)


def stop_reason(root: str, event: HookEvent, checkpoint: str) -> str:
    """The block's reason: the exact command and as few words around it as will do.

    Every stop that blocks costs the agent a turn, and the reason is read in
    it: the command (about 330 characters with usual paths) and under 180
    characters of instructions, so a reason stays within 600. The last line
    says the same command can refute a recalled memory that proved wrong
    (`review/refute.py`): in place of `capture "..."`, `refute ID --reason WHY`. The event types
    and rings the command may take are not listed: capture's own error names
    them. Codex HTML-escapes the reason before the model sees it, so nothing
    here may contain <, > or & (placeholders are plain capitals for that reason).
    """
    return "\n".join(
        [
            f"Tree Ring checkpoint {checkpoint}: save what later sessions need, "
            "one sentence each, no secrets:",
            capture_command(root, event, checkpoint),
            f"More: ids -2, -3. Else nothing. {REFUTE_HINT}",
        ]
    )


def respond(
    event: HookEvent, now_ns: int, environ: Mapping[str, str] | None = None
) -> dict[str, Any] | None:
    """What to print for one hook call, or None for nothing."""
    # Imported here, inside main's fail-open boundary: a broken library (or a
    # python3 too old for it) costs the session one stderr line, nothing more.
    # Each event imports only what it uses: a stop never opens the store.
    from tree_ring.model.project import check_tree, find_root_str, load_project_id, receipts_problem

    if event.event not in START_EVENTS + STOP_EVENTS:
        raise Refused(f"no handler for event {event.event}")
    root = find_root_str(event.cwd)
    if root is None:
        return None  # not a Tree Ring project: stay silent
    # A linked .tree-ring, store or receipt, or an id that reads as a secret:
    # refused before anything is read or written (the fail-open boundary turns
    # it into one stderr line).
    check_tree(root)
    check_ids(event)
    project_id = load_project_id(root)
    # A link, file or FIFO where the receipts folder belongs (a committed one,
    # say) costs the receipts, the usage log and the session's checkpoint
    # state, with one line on stderr; never the brief nor the checkpoint.
    problem = receipts_problem(root)
    if problem is not None:
        _note(event.harness, problem)
    keep = problem is None
    if event.event in START_EVENTS:
        from tree_ring.api.project import Project
        from tree_ring.model.identity import Identity

        identity = Identity(project_id, agent_profile(event), event.session_id, event.session_id)
        # create: a fresh clone has the committed project.json but no database yet.
        from tree_ring.store.db import Options

        # One write attempt: a store another writer holds (a migration, the
        # ledger's import) fails the hook open within the harness's timeout.
        env = environ or {}
        options = Options.from_environ(env).hurried()
        with Project(root, identity, environ=env, options=options, create=True) as project:
            _import_ledger(project.store, root, project_id, event.harness)
            brief = project.brief(note=lambda said: _note(event.harness, said))
        if keep and _receipt(root, event, brief):  # a folder it cannot write: one line, not two
            _usage(root, event, "brief", brief.ids, len(brief.text.encode("utf-8")), now_ns)
        if event.harness == "codex":
            _record_session(event, root, now_ns, environ or {})
        return {
            "hookSpecificOutput": {"hookEventName": event.event, "additionalContext": brief.text}
        }
    kept = keep and _receipt(root, event, None)
    if event.stop_hook_active:
        return {}  # the agent is answering our block: let it stop
    check_paths(root)
    if _checkpoint(root, event, now_ns, keep, project_id):
        reason = stop_reason(root, event, checkpoint_id(event, now_ns))
        if kept:
            _usage(root, event, "checkpoint", (), len(reason.encode("utf-8")), now_ns)
        return {"decision": "block", "reason": reason}
    return {}


def _checkpoint(
    root: str, event: HookEvent, now_ns: int, keep: bool = True, project_id: str | None = None
) -> bool:
    """Whether this stop blocks, by the project's cadence; records what it
    decided unless `keep` is off (no receipts folder to keep it in: the
    session is judged as one that has no state yet). A store of another
    project than `project_id` raises (the fail-open boundary's one line)."""
    from tree_ring.harness.checkpoint import stored
    from tree_ring.hook import cadence, transcript

    setting = stored(root, project_id)
    if setting.mode == "off":
        return False
    path = cadence.state_path(root, event.harness, event.session_id)
    state = cadence.load(path) if keep else {}
    now = now_ns / 1e9
    if event.is_subagent:
        if setting.mode in ("after-work", "session-end") and event.agent_transcript_path:
            if transcript.did_work(event.agent_transcript_path):
                changed = cadence.note_work(state)
            else:
                changed = cadence.note_unread(state, event.agent_transcript_path)
            if changed is not None and keep:
                _save(event, path, changed)
        return False
    # every-stop asks whatever the turn did: the transcript is not read.
    work = False
    if setting.mode != "every-stop":
        work = any(map(transcript.did_work, [event.transcript_path, *cadence.unread(state)]))
    # The subagents' transcripts are read now, once their lines are on disk.
    read = state.pop(cadence.UNREAD, None) is not None
    # A payload without a turn id: the turn is told by its prompt in the transcript.
    turn = event.turn_id or transcript.turn_mark(event.transcript_path)
    block, changed = cadence.decide(setting, state, turn, work, now)
    if changed is None and read:
        changed = state
    if changed is not None and keep:
        _save(event, path, changed)
    if block and keep:
        _turn_files(root, event)
    return block


def _turn_files(root: str, event: HookEvent) -> None:
    """Keep the files this turn changed for the checkpoint's capture to anchor
    to (`model/turn_files.py`): only paths inside the project, none of them
    opened here. A path that is not one is dropped; what goes wrong costs a
    line on stderr, never the checkpoint."""
    from tree_ring.hook import transcript
    from tree_ring.model import turn_files
    from tree_ring.model.anchor import MAX_FILES, normalise
    from tree_ring.model.errors import UsageError

    kept: list[str] = []
    for raw in transcript.changed_files(event.transcript_path):
        try:
            rel = normalise(root, raw, event.cwd or root)
        except UsageError:
            continue  # outside the project, in .git, or not a plain path
        if rel not in kept:
            kept.append(rel)
    try:
        turn_files.save(root, event.harness, event.session_id, kept[:MAX_FILES])
    except OSError as exc:
        _note(event.harness, f"changed files not kept for the checkpoint: {exc.strerror or exc}")


def _save(event: HookEvent, path: str, state: dict[str, Any]) -> None:
    """Keep the session's state; a folder this user cannot write costs a line on stderr."""
    from tree_ring.hook import cadence

    try:
        cadence.save(path, state)
    except OSError as exc:
        _note(event.harness, f"checkpoint state not written: {exc.strerror or exc}")


def _import_ledger(store: Store, root: str, project_id: str, harness: str) -> None:
    """Bring the team ledger's changes (a pull, a checkout) into the store
    before the brief is read. An unchanged ledger costs one `stat` and one
    settings row; a changed one, the lines that changed (`ledger_refresh.py`). What
    goes wrong costs a line on stderr, never the brief."""
    from tree_ring.model import project
    from tree_ring.model.errors import UnsafePath

    path = os.path.join(root, project.DIR, project.LEDGER)
    try:
        # Its kind first, with lstat, as `check_tree` checks every other entry:
        # a FIFO there would hold the first open for reading, and the brief, forever.
        if not project.expect(path, "file", project.LEDGER_FIX):
            return  # no ledger: a project that does not share its memory
        info = os.lstat(path)
    except UnsafePath as exc:
        _note(harness, f"team ledger not imported: {exc}")
        return
    except OSError:
        return  # gone meanwhile, or a folder on the way that cannot be read
    from tree_ring.store import settings

    seen = jsontext.as_object(settings.stored(store.db, "ledger"))
    if seen and seen.get("size") == info.st_size and seen.get("mtime_ns") == info.st_mtime_ns:
        return
    from tree_ring.model.errors import TreeRingError
    from tree_ring.team import ledger_refresh

    notes: list[str] = []
    try:
        ledger_refresh.refresh(store, root, project_id, notes)
    except TreeRingError as exc:
        _note(harness, f"team ledger not imported: {exc}")
    except Exception as exc:  # the brief still goes out; the next session tries again
        _note(harness, f"team ledger not imported: {type(exc).__name__}: {exc}")
    for note in notes:
        _note(harness, f"team ledger: {note}")
    if not seen:
        _merge_driver(root, harness)


def _merge_driver(root: str, harness: str) -> None:
    """The store was just built from the ledger: a fresh clone, where no one
    ran `init`. Configure the ledger's merge driver as `init` does (the
    clone's own git config, nothing over the network), so its first branch
    merge does not fall back to a text merge of the ledger."""
    from pathlib import Path

    from tree_ring.team import repository as team

    try:
        team.ensure_driver(Path(root))
    except Exception as exc:  # a clone without git config access still gets its brief
        _note(harness, f"merge driver not configured ({exc}); run `tree-ring init`")


def _record_session(event: HookEvent, root: str, now_ns: int, environ: Mapping[str, str]) -> None:
    """Note which project this Codex session works in, for the MCP server:
    Codex names it to the server only for a git repository (model/sessions.py).
    What goes wrong costs a line on stderr, never the brief."""
    from tree_ring.model import sessions
    from tree_ring.model.errors import TreeRingError

    try:
        sessions.record(environ, event.session_id, root, now_ns // 1_000_000_000)
    except (OSError, TreeRingError) as exc:
        _note(event.harness, f"session not recorded for the MCP server: {exc}")


def _receipt(root: str, event: HookEvent, brief: Brief | None) -> bool:
    """Record the call; a folder this user cannot write (a read-only checkout)
    costs the receipt and a line on stderr, never the brief. Whether it was
    written: the usage log lives in the same folder."""
    from tree_ring.harness.receipts import write_receipt

    try:
        write_receipt(root, harness=event.harness, event=event.event, brief=brief)
    except OSError as exc:
        _note(event.harness, f"receipt not written: {exc.strerror or exc}")
        return False
    return True


def _usage(
    root: str, event: HookEvent, kind: str, ids: tuple[str, ...], size: int, now_ns: int
) -> None:
    """One line in the usage log (`store/usage_log.py`): what this call put into
    the agent's context, ids and sizes only. A log that cannot be written
    costs a line on stderr, never the brief or the checkpoint."""
    from tree_ring.model.errors import TreeRingError
    from tree_ring.store import usage_log

    try:
        usage_log.append(
            root, kind, harness=event.harness, session=event.session_id, ids=ids, size=size,
            now_ns=now_ns,
        )  # fmt: skip
    except (OSError, TreeRingError) as exc:
        _note(event.harness, f"usage not logged: {getattr(exc, 'strerror', None) or exc}")


# A note's longest message: what it quotes from a payload (an event's name)
# may be of any length, and a note is one line a person reads.
MAX_NOTE = 400


def _note(harness: str, message: str) -> None:
    """One line on stderr; what it quotes from the payload or the command line
    (an event's name, a path) has whatever looks like a secret withheld
    (`guard.withhold`, loaded only when a note is written), is cut to
    `MAX_NOTE` characters, and has its control characters and line breaks
    written as escapes (`error_safe`), as every Tree Ring error does."""
    from tree_ring.model.text import error_safe

    try:
        from tree_ring.guard import withhold

        message = withhold(message)
    except Exception:  # a note must not break the fail-open boundary that writes it
        message = "a diagnostic is withheld: the secret guard could not read it"
    if len(message) > MAX_NOTE:
        message = message[: MAX_NOTE - 1] + "\u2026"
    try:
        sys.stderr.write(
            error_safe(f"tree-ring hook ({harness or 'no harness'}): {message}") + "\n"
        )
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


# How long the hook waits for its payload's end: both harnesses close stdin
# once it is written, and a caller that leaves it open gets what it sent by then.
STDIN_SECONDS = 5.0


def _read_stdin(limit: int) -> bytes:
    """The process's stdin up to `limit` bytes, until its end or STDIN_SECONDS."""
    try:
        import select

        fd = sys.stdin.fileno()
        select.select([fd], [], [], 0)
    except (OSError, ValueError, AttributeError):
        return sys.stdin.buffer.read(limit)  # no select for this stdin (Windows, a test's stream)
    deadline = time.monotonic() + STDIN_SECONDS
    chunks: list[bytes] = []
    size = 0
    while size < limit:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
            break
        chunk = os.read(fd, min(1 << 16, limit - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def main(
    harness: str,
    stdin: BinaryIO | None = None,
    environ: Mapping[str, str] | None = None,
    stdout: BinaryIO | None = None,
    clock: Callable[[], int] = time.time_ns,
) -> int:
    """Run one hook call; always returns 0. Streams default to the process's;
    `clock` (nanoseconds) lets a scripted session stand in for hours."""
    env = os.environ if environ is None else environ
    if env.get(DISABLE_VARIABLE, "").strip().lower() in ("0", "off", "false", "no"):
        return 0
    try:
        if harness not in HARNESSES:
            raise Refused(f"unknown harness {harness!r}; expected one of {', '.join(HARNESSES)}")
        data = stdin.read(MAX_PAYLOAD + 1) if stdin is not None else _read_stdin(MAX_PAYLOAD + 1)
        output = respond(parse_payload(harness, data), clock(), env)
        if output is not None:
            out = stdout or sys.stdout.buffer
            out.write(jsontext.dumps(output).encode("utf-8") + b"\n")
            out.flush()
    except Refused as exc:
        _note(harness, f"refused: {exc}")
    except Exception as exc:  # the fail-open boundary: never break the agent's session
        from tree_ring.model.errors import TreeRingError

        # Tree Ring's own errors say what to do, as the CLI's do; anything
        # else is named by its class, for a report.
        said = str(exc) if isinstance(exc, TreeRingError) else f"{type(exc).__name__}: {exc}"
        _note(harness, f"error: {said}")
    return 0
