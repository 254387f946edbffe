"""Who is reading or writing: project, partitions, and where the call came from.

Flags win, then `TREE_RING_*` variables, then what the harness put in the
environment of the agent's shell: Claude Code sets `CLAUDECODE=1` and
`CLAUDE_CODE_SESSION_ID`, Codex sets `CODEX_SESSION_ID` (or `CODEX_THREAD_ID`);
any of them set, to any value, makes the caller an agent (`harness_origin`).
An agent's own `remember` or `recall` therefore lands in, and reads, the same
partition the session brief uses (profile = harness, workflow = session =
harness session).

For an agent the harness has the last word (`pinned`): flags and variables are
the model's to set, so they may name only the project of the root it works in
(`home`, from the root's `project.json`) and the harness's own partitions. The
profile must be the harness, or one of its subagents (`claude-code:TYPE:ID`,
as the stop hook's capture command names them: the harness's environment does
not tell a subagent from its session, so which subagent is the model's word).
Where the harness names its session, the workflow and session must be that
session. A person at the terminal names any partition.
"""

from __future__ import annotations

from tree_ring.model.errors import UsageError
from tree_ring.model.frozen import Frozen
from tree_ring.model.text import check_characters

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
    # An import's origin is "import"; `via` is the origin of the caller who
    # ran it, so an agent's file is governed as the agent's own writes are.
    via: Origin | None = None

    @property
    def is_agent(self) -> bool:
        return self.kind != "person"


# The variables a harness puts in the environment of every command its agent
# runs: those that name its session, in order, and those that only mark it.
SESSION_VARIABLES = {
    "claude-code": ("CLAUDE_CODE_SESSION_ID",),
    "codex": ("CODEX_SESSION_ID", "CODEX_THREAD_ID"),
}
MARKER_VARIABLES = {"claude-code": ("CLAUDECODE",), "codex": ()}


def harness_origin(environ: Mapping[str, str]) -> Origin:
    """An agent of the harness one of whose variables is set, whatever its
    value; else the person.

    Presence, not value: `CLAUDECODE=true` or `CLAUDECODE=` is no less a sign
    of an agent's shell than the `1` the harness writes, and an empty value is
    how a command line blanks a variable, so it must not be a way to speak as
    the person. A person's own shell has none of them; a person who runs Tree
    Ring inside a harness's shell acts through the agent, or with the
    coordinator capability. (Removing the variables outright, `env -u`, is
    outside the model: see docs/THREAT-MODEL.md.)
    """
    for kind, sessions in SESSION_VARIABLES.items():
        if any(name in environ for name in (*sessions, *MARKER_VARIABLES[kind])):
            session = next((environ[name] for name in sessions if environ.get(name)), None)
            return Origin(kind, session)
    return Origin("person")


def resolve(
    project: str,
    environ: Mapping[str, str],
    *,
    agent_profile: str | None = None,
    workflow_id: str | None = None,
    session_id: str | None = None,
    home: str | None = None,
) -> Identity:
    """Who is calling; `home` is the root's own project id, the only one an
    agent may name (None: `project` is that id, or the caller is no agent)."""
    origin = harness_origin(environ)
    harness_profile = origin.kind if origin.is_agent else None
    said = Identity(
        project=project,
        agent_profile=agent_profile or environ.get("TREE_RING_AGENT_PROFILE") or harness_profile,
        workflow_id=workflow_id or environ.get("TREE_RING_WORKFLOW_ID") or origin.session,
        session_id=session_id or environ.get("TREE_RING_SESSION_ID") or origin.session,
    )
    # Each is recorded beside what the caller does (a row, the audit log, a
    # review): held to the characters every stored text may hold.
    for name, value in (
        ("the agent profile", said.agent_profile),
        # The session first: the workflow is the harness's session unless named.
        ("the session id", said.session_id),
        ("the workflow id", said.workflow_id),
    ):
        if value is not None:
            check_characters(name, value)
    return pinned(said, origin, home)


def pinned(identity: Identity, origin: Origin, home: str | None = None) -> Identity:
    """`identity`, checked against the harness for an agent caller; a project
    other than `home` (the root's own, when given) or a partition the harness
    does not vouch for is refused rather than quietly replaced, so the caller
    learns why its flag did nothing."""
    if not origin.is_agent:
        return identity
    if home is not None and identity.project != home:
        # Rows stored under another project id are no brief's and every
        # export's: which project a write belongs to is the root's word.
        raise UsageError(
            f"an agent works in its root's project ({home}); drop --project, "
            "or run the command as a person"
        )
    profile = identity.agent_profile
    if profile is not None and profile != origin.kind and not profile.startswith(origin.kind + ":"):
        raise UsageError(
            f"an agent works in its harness's partition ({origin.kind}); drop --agent-profile "
            "and TREE_RING_AGENT_PROFILE, or run the command as a person"
        )
    if origin.session is not None:
        for name, value in (("workflow", identity.workflow_id), ("session", identity.session_id)):
            if value is not None and value != origin.session:
                raise UsageError(
                    f"an agent works in its harness session's partition; drop --{name}-id and "
                    f"TREE_RING_{name.upper()}_ID, or run the command as a person"
                )
    return identity
