"""Coordinated write policy: who may publish shared state, and the record of it.

A store starts in Open mode. `enable` switches it to Coordinated mode and mints
a coordinator capability: 32 random bytes, printed once, stored only as its
sha256, compared in constant time, and read only from the environment variable
TREE_RING_COORDINATOR_TOKEN (there is no flag, so it never lands in shell
history or a retained command). In Coordinated mode an ordinary writer may only
add non-heartwood `scope=agent` rows under its own profile; every other create,
every heartwood create or promotion, import, supersede, forget, review
decision and the bulk paths (consolidation, applied maintenance, FTS repair)
need the capability.

Whatever the mode, an agent (a harness put CLAUDECODE, CLAUDE_CODE_SESSION_ID,
CODEX_SESSION_ID or CODEX_THREAD_ID in its environment, with any value: see
`model.identity.harness_origin`) may not take a review decision, change the review policy,
enable the policy or retire shared memory it did not write, unless it holds
the capability: those are a person's decisions.

A lost capability locks out `rotate` and `disable`, the two ways back. A
person at the terminal (no harness in the environment) recovers with a
reason: `policy rotate --reason` or `policy disable --reason` without the
capability is allowed and audited as a recovery with that reason. An agent
never recovers: the capability exists to hold agents to their partitions,
and the person who set it up can always open the store file anyway.

`authorize` is the one gate. Every decision it makes, allowed or denied, in
either mode, goes to the append-only `policy_audit` table with the actor, the
origin, the action, a hash of the target and the reason; never the token. It is
`decide` (which only reads) followed by `record` or `refuse`, so a write that
decides a whole batch before it writes anything can record its decisions with
its rows.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

from tree_ring import guard
from tree_ring.govern import reasons
from tree_ring.model.actor import Actor
from tree_ring.model.errors import Conflict, Denied, StoreBusy, StoreFault, UsageError
from tree_ring.model.record import Memory, now_iso, sha256
from tree_ring.model.text import check_characters
from tree_ring.store import audit, settings
from tree_ring.store.db import Store
from tree_ring.store.sql import Db

TOKEN_VAR = "TREE_RING_COORDINATOR_TOKEN"
SETTING = "write_policy"
TOKEN_PREFIX = "trc_"
MAX_NAME = 128

# The one action an ordinary writer may take in Coordinated mode without the
# capability (see `create_action`).
ORDINARY = frozenset({"create.agent"})
# What a person at the terminal may do without the capability, given a reason.
RECOVERY = {"policy.rotate": "rotate", "policy.disable": "disable"}
RECOVERED = "recovery by a person at the terminal: "
# Decisions that belong to a person (or the coordinator) in every mode.
PERSON_ONLY = frozenset(
    {
        "review.approve",
        "review.promote",
        "review.reject",
        "review.dispute",
        "review.policy",
        "config.set",  # how often the agent is asked to capture is the person's to say
        "tree.config",  # so are the summary tree's budgets
        "policy.enable",
        "promote",  # a partition memory made shared knowledge
        "supersede.shared",
        "import.replace",  # an imported row taking the place of a stored one
    }
)
# What each of those decisions is, as a refusal names it.
DESCRIBED = {
    "review.approve": "approving a waiting memory",
    "review.promote": "approving or promoting heartwood",
    "review.reject": "rejecting a waiting memory",
    "review.dispute": "disputing a memory",
    "review.policy": "setting the review policy",
    "config.set": "setting the checkpoint's cadence",
    "tree.config": "setting the summary tree's budgets",
    "policy.enable": "turning on the coordinated write policy",
    "promote": "sharing a partition memory",
    "supersede.shared": "retiring a memory another writer wrote",
    "import.replace": "replacing stored memories by an import",
}
# Everything `authorize` is called with in this package; other callers add
# their own (consolidate, maintain.apply, fts.repair, sync) and are protected.
KNOWN_ACTIONS = (
    "create.agent",  # non-heartwood, scope agent, under the writer's own profile
    "create.agent.other",  # scope agent under someone else's profile
    "create.heartwood",
    "create.<scope>",  # project, global, workflow, session, tool, eval, ...
    "import",
    "import.replace",
    "supersede",  # retire a row the actor wrote itself
    "supersede.shared",  # retire anything else
    "forget.delete",
    "forget.redact",
    "review.approve",
    "review.promote",  # approving heartwood, or promoting a memory to heartwood
    "promote",  # a partition memory moved into a shared scope
    "review.reject",
    "review.dispute",
    "review.policy",
    "config.set",
    "tree.config",
    "policy.enable",
    "policy.rotate",
    "policy.disable",
    "consolidate",
    "maintain.apply",
    "fts.repair",
)


@dataclass(frozen=True)
class State:
    """The `write_policy` setting; its default (open) is declared in store/settings."""

    mode: str  # open | coordinated
    coordinator: str | None
    token_hash: str | None  # sha256:<hex> of the capability
    enabled_at: str | None
    rotated_at: str | None

    @classmethod
    def open(cls) -> State:
        return cls(**settings.default(SETTING))


@dataclass(frozen=True)
class Minted:
    """The capability, returned once to the caller that prints it."""

    state: State
    token: str


def state(db: Db) -> State:
    data: dict[str, Any] = settings.read(db, SETTING)
    if data.get("mode") != "coordinated" or not isinstance(data.get("token_hash"), str):
        return State.open()
    return State(
        mode="coordinated",
        coordinator=data.get("coordinator"),
        token_hash=data["token_hash"],
        enabled_at=data.get("enabled_at"),
        rotated_at=data.get("rotated_at"),
    )


def _save(db: Db, current: State) -> None:
    settings.write(db, SETTING, dataclasses.asdict(current))


def token_hash(token: str) -> str:
    return "sha256:" + hashlib.sha256(token.encode("utf-8")).hexdigest()


def _new_token() -> str:
    return TOKEN_PREFIX + secrets.token_hex(32)


def _presented(actor: Actor, environ: Mapping[str, str] | None) -> str | None:
    if environ is not None:
        return environ.get(TOKEN_VAR) or None
    return actor.capability


def _capability(current: State, token: str | None) -> str:
    """held | absent | invalid; the comparison takes the same time either way."""
    if token is None:
        return "absent"
    if current.token_hash is None:
        return "invalid"
    if hmac.compare_digest(token_hash(token), current.token_hash):
        return "held"
    return "invalid"


def holds(db: Db, actor: Actor, environ: Mapping[str, str] | None = None) -> bool:
    """Whether the caller presents the current coordinator capability."""
    return _capability(state(db), _presented(actor, environ)) == "held"


def create_action(memory: Memory, actor: Actor) -> str:
    """The policy action a new row amounts to."""
    if memory.ring == "heartwood":
        return "create.heartwood"
    if memory.scope == "agent":
        return "create.agent" if memory.agent_profile == actor.name else "create.agent.other"
    return f"create.{memory.scope}"


def _decide(mode: str, action: str, actor: Actor, capability: str) -> tuple[bool, str]:
    if action in PERSON_ONLY and actor.origin.is_agent and capability != "held":
        what = f" ({DESCRIBED[action]})" if action in DESCRIBED else ""
        return False, (
            f"{action} is a person's decision{what}: {actor.origin.kind} may not take it "
            f"unless it holds the coordinator capability ({TOKEN_VAR})"
        )
    if mode == "open":
        return True, "open mode"
    if capability == "held":
        return True, "coordinator capability"
    if action in ORDINARY:
        return True, "ordinary write to the writer's own agent partition"
    if action in RECOVERY:
        verb = RECOVERY[action]
        who = (
            f"{actor.origin.kind} may not recover it; a person at the terminal can"
            if actor.origin.is_agent
            else "lost it? as a person at the terminal you can recover"
        )
        return False, (
            f"coordinated mode: {action} needs the coordinator capability in {TOKEN_VAR}; "
            f'{who}: `tree-ring policy {verb} --reason "..."` (audited)'
        )
    if capability == "invalid":
        return False, (
            f"coordinated mode: {TOKEN_VAR} does not match the current capability "
            "(was it rotated?); set it to the capability `policy rotate` printed"
        )
    if not action.startswith("create."):
        return False, f"coordinated mode: {action} needs the coordinator capability in {TOKEN_VAR}"
    return False, (
        f"coordinated mode: {action} needs the coordinator capability in {TOKEN_VAR}; "
        "ordinary writers may only add non-heartwood --scope agent memories "
        "under their own --agent-profile"
    )


_INSERT = (
    "INSERT INTO policy_audit"
    "(at, mode, actor, origin, session, action, target_hash, decision, capability, reason)"
    " VALUES (:at, :mode, :actor, :origin, :session, :action, :target_hash, :decision,"
    " :capability, :reason)"
)


@dataclass(frozen=True)
class Decision:
    """One decision of the gate, as its `policy_audit` row will record it."""

    at: str
    mode: str
    actor: str
    origin: str
    session: str | None
    action: str
    target_hash: str
    allowed: bool
    capability: str
    reason: str

    def entry(self) -> dict[str, Any]:
        """The `policy_audit` row: never the token, only whether it matched."""
        return {
            "at": self.at,
            "mode": self.mode,
            "actor": self.actor,
            "origin": self.origin,
            "session": self.session,
            "action": self.action,
            "target_hash": self.target_hash,
            "decision": "allow" if self.allowed else "deny",
            "capability": self.capability,
            "reason": self.reason,
        }

    def about(self, target_hash: str) -> Decision:
        """The same decision, about a target known only once a stream is read
        (`sha256` of it, as `decide` hashes one)."""
        return dataclasses.replace(self, target_hash=target_hash)


def decide(
    db: Db,
    action: str,
    actor: Actor,
    target: str,
    environ: Mapping[str, str] | None = None,
    *,
    current: State | None = None,
) -> Decision:
    """Whether `actor` may take `action` on `target`; reads, writes nothing.

    The capability is read from `environ[TREE_RING_COORDINATOR_TOKEN]`, or, when
    `environ` is None, from `actor.capability` (which the CLI fills from the
    same variable). `current` spares a batch reading the mode once per memory.
    """
    current = current or state(db)
    capability = _capability(current, _presented(actor, environ))
    allowed, reason = _decide(current.mode, action, actor, capability)
    return Decision(
        at=now_iso(),
        mode=current.mode,
        actor=actor.name,
        origin=actor.origin.kind,
        session=actor.origin.session,
        action=action,
        target_hash=sha256(target),
        allowed=allowed,
        capability=capability,
        reason=reason,
    )


def record(db: Db, decisions: Iterable[Decision]) -> None:
    """Write allowed decisions in the caller's transaction, so they commit with
    the action they allowed."""
    db.executemany(_INSERT, [decision.entry() for decision in decisions if decision.allowed])


def refuse(db: Db, decision: Decision) -> NoReturn:
    """End the caller's transaction over a denial: the action's work is rolled
    back, the denial is committed on its own (so the refusal stays on record
    though nothing else does), and Denied is raised."""
    _record_denial(db, decision.entry())
    raise Denied(f"denied: {decision.reason}")


def authorize(
    db: Db,
    action: str,
    actor: Actor,
    target: str,
    environ: Mapping[str, str] | None = None,
) -> None:
    """Allow `action` on `target` for `actor`, or raise Denied; record either way.

    `decide`, then `record` an allowed decision in the caller's transaction or
    `refuse` a denied one.
    """
    decision = decide(db, action, actor, target, environ)
    if not decision.allowed:
        refuse(db, decision)
    record(db, [decision])


def _record_denial(db: Db, entry: dict[str, Any]) -> None:
    try:
        if db.in_transaction:
            db.execute("ROLLBACK")
        db.execute("BEGIN IMMEDIATE")
        db.execute(_INSERT, entry)
        db.execute("COMMIT")
    except (StoreFault, StoreBusy):
        # A read-only or locked store cannot keep the record; the denial stands.
        if db.in_transaction:
            db.execute("ROLLBACK")


def _check_name(name: str) -> str:
    """The coordinator's name as it is stored, audited and shown: held to the
    invisible-character policy of every stored text (`model/text.py`), and
    never a secret."""
    text = name.strip()
    if not text or len(text) > MAX_NAME:
        raise UsageError(f"--coordinator must be a name of 1 to {MAX_NAME} printable characters")
    check_characters("the coordinator name", text)
    guard.check_fields({"coordinator": text})
    return text


def check_actor(actor: Actor) -> None:
    """The name a change of policy is recorded under (`--agent-profile`, or
    TREE_RING_AGENT_PROFILE), held to the same policy before anything is
    written: the policy audit and the audit log keep it."""
    check_characters("the agent profile", actor.name)


def enable(store: Store, coordinator: str, actor: Actor) -> Minted:
    """Open -> Coordinated; returns the capability, which is never shown again."""
    name = _check_name(coordinator)
    check_actor(actor)
    token = _new_token()
    with store.write() as db:
        current = state(db)
        if current.mode == "coordinated":
            raise Conflict(
                "the write policy is already coordinated; `policy rotate` replaces "
                "the capability, `policy disable` returns to open mode"
            )
        authorize(db, "policy.enable", actor, SETTING)
        now = now_iso()
        minted = State("coordinated", name, token_hash(token), now, None)
        _save(db, minted)
        audit.append(db, actor, "policy", SETTING, {"change": "enable", "coordinator": name})
    return Minted(minted, token)


def _authorize_change(db: Db, action: str, actor: Actor, reason: str | None) -> None:
    """`authorize`, except that a person without the capability who gives a
    reason is let through as a recovery, and the policy audit says so."""
    decision = decide(db, action, actor, SETTING)
    if not decision.allowed and reason and not actor.origin.is_agent:
        decision = dataclasses.replace(decision, allowed=True, reason=RECOVERED + reason)
    if not decision.allowed:
        refuse(db, decision)
    record(db, [decision])


def _reason(reason: str | None) -> str | None:
    """An optional reason, checked as every reason a decision keeps is."""
    return None if reason is None else reasons.check_reason(reason)


def _kept(db: Db, project: str, reason: str | None) -> None:
    """Refuse a reason quoting what `project` forgot (`reasons.kept`): the
    audit log and the policy audit keep it, and `policy audit` is open to
    agents."""
    if reason is not None:
        reasons.kept(db, project, reason, reasons.IN_POLICY_AUDIT)


def rotate(
    store: Store,
    coordinator: str | None,
    actor: Actor,
    reason: str | None = None,
    *,
    project: str,
) -> Minted:
    """Replace the capability; the old one stops working at once. `project`:
    the store's project, whose forgets the reason may not quote."""
    name = _check_name(coordinator) if coordinator is not None else None
    reason = _reason(reason)
    check_actor(actor)
    token = _new_token()
    with store.write() as db:
        current = _coordinated(db)
        _kept(db, project, reason)
        _authorize_change(db, "policy.rotate", actor, reason)
        now = now_iso()
        rotated = State(
            "coordinated", name or current.coordinator, token_hash(token), current.enabled_at, now
        )
        _save(db, rotated)
        detail: dict[str, Any] = {"change": "rotate", "coordinator": rotated.coordinator}
        audit.append(db, actor, "policy", SETTING, detail | ({"reason": reason} if reason else {}))
    return Minted(rotated, token)


def disable(store: Store, actor: Actor, reason: str | None = None, *, project: str) -> State:
    """Coordinated -> Open. `project`: as for `rotate`."""
    reason = _reason(reason)
    check_actor(actor)
    with store.write() as db:
        _coordinated(db)
        _kept(db, project, reason)
        _authorize_change(db, "policy.disable", actor, reason)
        _save(db, State.open())
        detail: dict[str, Any] = {"change": "disable"}
        audit.append(db, actor, "policy", SETTING, detail | ({"reason": reason} if reason else {}))
    return State.open()


def _coordinated(db: Db) -> State:
    current = state(db)
    if current.mode != "coordinated":
        raise UsageError("the write policy is open; `policy enable --coordinator NAME` first")
    return current


def audit_entries(db: Db, *, limit: int = 100) -> list[dict[str, Any]]:
    """The newest `limit` decisions, oldest first."""
    found = db.execute("SELECT * FROM policy_audit ORDER BY seq DESC LIMIT ?", (limit,))
    return [dict(row) for row in found][::-1]


def counts(db: Db) -> dict[str, int]:
    return {
        row[0]: row[1]
        for row in db.execute("SELECT decision, count(*) FROM policy_audit GROUP BY decision")
    }
