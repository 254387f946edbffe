"""The value sets a memory's fields take, and the fixed pairs the write verbs allow.

Apart from the record so the stop hook, which names the capture pairs in its
reason, reads them without loading the record or the write path.
"""

from __future__ import annotations

RINGS = ("cambium", "outer", "inner", "heartwood", "scar", "seed")
SCOPES = (
    "global",
    "project",
    "agent",
    "session",
    "workflow",
    "tool",
    "eval",
    "manual",
    "dox",
    "revolve",
)
# Scopes that belong to one caller; every other scope is shared by the project.
PRIVATE_SCOPES = ("agent", "workflow", "session")
SHARED_SCOPES = tuple(s for s in SCOPES if s not in PRIVATE_SCOPES)
SENSITIVITIES = (
    "normal",
    "private",
    "secret",
    "health",
    "financial",
    "legal",
    "personal_identifier",
)
RETENTIONS = ("ephemeral", "normal", "durable", "user_pinned", "forget_after_date")
TRUST_STATES = ("accepted", "pending", "disputed", "rejected")
# Where a write came from: a person at a terminal, an agent's tool call in one
# of the harnesses, an import, or Tree Ring itself (consolidation, the tree).
ORIGINS = ("person", "claude-code", "codex", "agent", "import", "tree-ring")

# outcome -> (ring, retention, salience, default confidence), for `evidence`.
EVIDENCE_OUTCOMES: dict[str, tuple[str, str, float, float]] = {
    "promoted": ("heartwood", "durable", 0.9, 0.8),
    "rejected": ("scar", "durable", 0.8, 0.7),
    "deferred": ("seed", "normal", 0.5, 0.5),
    "observed": ("outer", "normal", 0.4, 0.6),
}

# event type -> ring: the only pairs `capture` (the stop hook's verb) writes.
CAPTURE_PAIRS: dict[str, str] = {
    "preference": "cambium",
    "decision": "cambium",
    "lesson": "cambium",
    "correction": "cambium",
    "warning": "scar",
    "seed": "seed",
}
