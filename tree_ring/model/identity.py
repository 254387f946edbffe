"""Who is reading or writing: project, partitions, and where the call came from.

Flags win, then `TREE_RING_*` variables, then what the harness put in the
environment of the agent's shell: Claude Code sets `CLAUDECODE=1` and
`CLAUDE_CODE_SESSION_ID`, Codex sets `CODEX_SESSION_ID`. An agent's own
`remember` or `recall` therefore lands in, and reads, the same partition the
session brief uses (profile = harness, workflow = session = harness session).
"""

from __future__ import annotations

from tree_ring.model.frozen import Frozen

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping


class Identity(Frozen):
    project: str
    agent_profile: str | None = None
    workflow_id: str | None = None
    session_id: str | None = None


class Origin(Frozen):
    """Where a write came from, as the environment (not the caller) says."""

    kind: str  # person | claude-code | codex
    session: str | None = None

    @property
    def is_agent(self) -> bool:
        return self.kind != "person"


def harness_origin(environ: Mapping[str, str]) -> Origin:
    claude_session = environ.get("CLAUDE_CODE_SESSION_ID") or None
    if environ.get("CLAUDECODE") == "1" or claude_session:
        return Origin("claude-code", claude_session)
    codex_session = environ.get("CODEX_SESSION_ID") or environ.get("CODEX_THREAD_ID") or None
    if codex_session:
        return Origin("codex", codex_session)
    return Origin("person")


def resolve(
    project: str,
    environ: Mapping[str, str],
    *,
    agent_profile: str | None = None,
    workflow_id: str | None = None,
    session_id: str | None = None,
) -> Identity:
    origin = harness_origin(environ)
    harness_profile = origin.kind if origin.is_agent else None
    return Identity(
        project=project,
        agent_profile=agent_profile or environ.get("TREE_RING_AGENT_PROFILE") or harness_profile,
        workflow_id=workflow_id or environ.get("TREE_RING_WORKFLOW_ID") or origin.session,
        session_id=session_id or environ.get("TREE_RING_SESSION_ID") or origin.session,
    )
