"""How a person's reads label a row: who wrote it, and which partition holds it.

A person's recall, list and inbox cover every partition of the project, so
each row says where it lives (`agent codex`, `session 1a2b3c4d`, `project`)
and who wrote it (`claude-code session 1a2b3c4d`, `person`). A row of the
person's user store is `you` only when a person wrote it; any other says who
wrote it the same way, and that it came from the user store
(`user_row_label`), so an agent's global proposal or an import never reads
as the person's own note. Plain strings
from stored fields, for the terminal; the brief, whose lines reach a model,
labels rows through `read.brief.origin_label` instead.
"""

from __future__ import annotations

from tree_ring.model import imported
from tree_ring.model.text import one_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.model.record import Memory

SESSION_CHARS = 8
PARTITIONS = ("agent", "workflow", "session")
YOU = "you"
USER_STORE = "user store"
BATCH_CHARS = 64  # an import batch id (`import-<UTC time>-<8 hex>`) is 32


def partition(memory: Memory) -> str:
    """Where a row lives, as the person reads it."""
    if memory.scope == "agent":
        return f"agent {one_line(memory.agent_profile or '-')}"
    if memory.scope == "session":
        return f"session {one_line(memory.session_id or '-')[:SESSION_CHARS]}"
    if memory.scope == "workflow":
        return f"workflow {one_line(memory.workflow_id or '-')[:SESSION_CHARS]}"
    return memory.scope


def writer(memory: Memory) -> str:
    """Who wrote a row: the origin, with the session where the row names one.
    An import's rows name its batch (`review list --batch` takes it), which is
    shown whole: its first characters read like "import-2" (the import's
    number two), which it is not."""
    label = one_line(memory.origin)
    session = memory.origin_session
    # A row the file names a session for keeps it: that session is no batch.
    if memory.origin == "import" and session and session.startswith(imported.BATCH_PREFIX):
        return label + f" batch {one_line(session)[:BATCH_CHARS]}"
    if memory.origin_session:
        label += f" session {one_line(memory.origin_session)[:SESSION_CHARS]}"
    return label


def row_label(memory: Memory) -> str:
    """A row's partition and writer, or just its scope for a person's shared note."""
    if memory.origin == "person" and memory.scope not in PARTITIONS:
        return memory.scope
    return f"{writer(memory)} · {partition(memory)}"


def user_row_label(memory: Memory) -> str:
    """A user-store row's label in every client's recall: `you` for a person's
    own note there; otherwise its writer, as `row_label` says it, marked as
    the user store's (`claude-code session 1a2b3c4d · user store`)."""
    if memory.origin == "person" and memory.scope not in PARTITIONS:
        return YOU
    if memory.scope in PARTITIONS:
        return f"{writer(memory)} · {partition(memory)}, {USER_STORE}"
    return f"{writer(memory)} · {USER_STORE}"
