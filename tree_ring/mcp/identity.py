"""Who is calling, and for which project: from the harness, never from arguments.

An MCP caller is an agent. Its harness is what the server's launch command
names (`--harness`, written in the plugin's config files), else what the
environment shows: Claude Code starts the server with `CLAUDECODE=1` and
`CLAUDE_CODE_SESSION_ID` (any of a harness's variables, set to any value,
names it, as `model.identity.harness_origin` reads them); anything else is a
generic `agent`.

The session is the harness's: `CLAUDE_CODE_SESSION_ID` (Claude Code), else the
call's `_meta.sessionId` or `_meta.threadId` (Codex sends both on every
`tools/call`). The project is the nearest `.tree-ring/` at or above, in
order: `TREE_RING_ROOT` (a person's explicit choice), `CLAUDE_PROJECT_DIR`
(Claude Code), the call's `_meta["x-codex-turn-metadata"].workspaces` (Codex,
for a git repository: its keys are the session's project directories), the
root the session's SessionStart hook recorded for its id (model/sessions.py:
Codex outside git), then, for any client but Codex, `PWD` and the server's
working directory. Codex starts the server in the plugin folder and forwards
the `PWD` it was started with, which is not the session's project under
`codex exec --cd DIR`: for Codex, no workspace and no recorded session is a
one-line refusal (a tool error), never that guess.

Identity then mirrors the SessionStart hook's: profile = harness, workflow =
session = the harness session, so what the agent writes here lands in, and
what it reads comes from, the partition the brief shows.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from tree_ring import guard
from tree_ring.model import project, sessions
from tree_ring.model.errors import NoStore, UsageError
from tree_ring.model.identity import Identity, Origin, harness_origin

HARNESSES = ("claude-code", "codex", "agent")
# As the hook: the harnesses send UUIDs; anything else is refused, not guessed at.
SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")
CODEX_TURN_META = "x-codex-turn-metadata"


@dataclass(frozen=True)
class Caller:
    """One tool call's caller, resolved before any library call."""

    harness: str
    session: str | None
    root: Path
    project: str

    @property
    def identity(self) -> Identity:
        return Identity(self.project, self.harness, self.session, self.session)

    @property
    def origin(self) -> Origin:
        return Origin(self.harness, self.session)


def harness_of(named: str | None, environ: Mapping[str, str], meta: Mapping[str, Any]) -> str:
    if named:
        return named
    # The harness's variables, by their presence, as for a command the agent runs.
    kind = harness_origin(environ).kind
    if kind != "person":
        return kind
    return "codex" if CODEX_TURN_META in meta else "agent"


def session_of(environ: Mapping[str, str], meta: Mapping[str, Any]) -> str | None:
    candidates: list[object] = [
        environ.get("CLAUDE_CODE_SESSION_ID"),
        environ.get("CODEX_SESSION_ID"),
        environ.get("CODEX_THREAD_ID"),
        meta.get("sessionId"),
        meta.get("threadId"),
    ]
    for value in candidates:
        if value is None or value == "":
            continue
        if not isinstance(value, str) or not SESSION_ID.fullmatch(value):
            raise UsageError(
                "the client sent a session id Tree Ring cannot use; "
                "restart the session or report it to the harness"
            )
        # It names files and partitions and is shown: never a secret (the hook's rule).
        if guard.find_secret(value) is not None:
            raise UsageError(
                "the client sent a session id that reads as a secret; "
                "restart the session or report it to the harness"
            )
        return value
    return None


def workspaces(meta: Mapping[str, Any]) -> list[str]:
    """The project directories Codex names for this turn, in its order."""
    turn: object = meta.get(CODEX_TURN_META)
    if isinstance(turn, str):
        # Seen as an object; a client that sends it as JSON text is read the same.
        try:
            turn = cast(object, json.loads(turn))
        except (ValueError, RecursionError):
            return []
    if not isinstance(turn, dict):
        return []
    found: object = cast(dict[str, Any], turn).get("workspaces")
    if isinstance(found, dict):
        return list(cast(dict[str, Any], found))
    if isinstance(found, list):
        return [k for k in cast(list[Any], found) if isinstance(k, str)]
    return []


def start_dir(
    environ: Mapping[str, str],
    meta: Mapping[str, Any],
    cwd: Path,
    harness: str,
    session: str | None,
) -> tuple[Path, str]:
    """Where to look for `.tree-ring/`, by the order in the module docstring,
    and what said so; for Codex, a one-line refusal rather than a guess."""
    candidates = [
        (environ.get("CLAUDE_PROJECT_DIR"), "CLAUDE_PROJECT_DIR"),
        *((w, "the client's workspaces") for w in workspaces(meta)),
    ]
    for candidate, source in candidates:
        if candidate and os.path.isabs(candidate):
            return Path(candidate), source
    if session is not None:
        recorded = sessions.root_of(environ, session)
        if recorded is not None:
            return Path(recorded), "this session's start hook"
    if harness == "codex":
        # Codex forwards the PWD it was started with, which under
        # `codex exec -C DIR` is another directory: a guess that could read
        # and write another project's memory.
        raise NoStore(
            "Codex did not say which project this session works in (it names git "
            "repositories only) and no Tree Ring hook recorded the session's start: "
            "trust the plugin's hooks (/hooks) and start a new session, or set "
            "TREE_RING_ROOT for the server"
        )
    if environ.get("PWD") and os.path.isabs(environ["PWD"]):
        return Path(environ["PWD"]), "PWD"
    return cwd, "the server's working directory"


def resolve(
    named_harness: str | None,
    environ: Mapping[str, str],
    meta: Mapping[str, Any],
    cwd: Path,
) -> Caller:
    harness = harness_of(named_harness, environ, meta)
    session = session_of(environ, meta)
    explicit = environ.get("TREE_RING_ROOT")
    if explicit:
        start, source = Path(explicit), "TREE_RING_ROOT"
    else:
        start, source = start_dir(environ, meta, cwd, harness, session)
    try:
        root = project.locate(str(start) if explicit else None, {}, cwd=start)
    except NoStore:
        raise NoStore(
            f"no Tree Ring memory for {start} (from {source}): no .tree-ring/ there or above. "
            "If that is the project, set it up with `tree-ring init` there (or the plugin's "
            "init command or skill); if it is not, the client did not say which project "
            "this session works in (Codex names git repositories only): start the client "
            "in the project directory, or set TREE_RING_ROOT for the server"
        ) from None
    return Caller(harness, session, root, project.load_project_id(root))
