"""The write verbs a person or an agent calls: remember, evidence, capture.

Each turns its arguments into a `Memory` and hands it to the one write path.
`capture` is the narrow verb the stop hook names: agent scope, normal
sensitivity, six fixed event-type/ring pairs, and every identity field given.
"""

from __future__ import annotations

from tree_ring import guard
from tree_ring.model import validation
from tree_ring.model.actor import Actor
from tree_ring.model.errors import UsageError
from tree_ring.model.frozen import Field, Frozen, fields
from tree_ring.model.identity import Identity
from tree_ring.model.record import (
    CAPTURE_PAIRS,
    CAPTURE_PLACEHOLDER,
    EVIDENCE_OUTCOMES,
    PRIVATE_SCOPES,
    Memory,
    caller_fields,
    new_memory_id,
    now_iso,
    parse_time,
)
from tree_ring.store.db import Store
from tree_ring.write import anchors as anchoring
from tree_ring.write import correct, pipeline, share
from tree_ring.write.pipeline import WriteResult

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tree_ring.model.anchor import Anchor


def _anchor_fields() -> list[Field]:
    """A draft's two fields that are not the row's: the files the memory is
    about, stored beside it as anchors (`write/anchors.py`)."""
    files = Field((), kw_only=True, meta={"help": "files inside the project it is about"})
    files.name, files.annotation = "files", "tuple[str, ...]"
    base = Field(None, kw_only=True, meta={"help": "the folder relative files are read from"})
    base.name, base.annotation = "files_from", "str | None"
    return [files, base]


ANCHOR_FIELDS = ("files", "files_from")


class Draft(Frozen, declared=[*caller_fields(), *_anchor_fields()]):
    """What the caller said; everything else is filled in by `compose`.

    Its fields are those `Memory` declares a write's caller may set, with a
    draft's defaults: the summary (by position or name), then the rest by
    name. Three differ from the row: `scope` None lets `compose` choose,
    `valid_from` None means now, and `supersedes` names the one memory this
    one replaces. Times are as the caller wrote them; `compose` reads them.
    Two are not the row's: `files`, the paths of the files the memory is
    about (as the caller gave them), and `files_from`, the folder a relative
    one is read from when that folder is inside the project (else the root).
    """

    if TYPE_CHECKING:
        # The checker cannot see fields made from another class's, so it is
        # told the constructor's shape and that every field reads as Any.
        def __init__(self, summary: str, **fields: Any) -> None: ...
        def __getattr__(self, name: str) -> Any: ...


def compose(draft: Draft, identity: Identity, actor: Actor) -> Memory:
    now = now_iso()
    said: dict[str, Any] = dict(vars(draft))
    for name in ANCHOR_FIELDS:  # anchors, stored beside the row (`anchored`)
        del said[name]
    # A person's note is project memory; an agent's goes to its own partition
    # unless it names a scope, so agents cannot publish to everyone by default.
    if said["scope"] is None:
        said["scope"] = "agent" if actor.origin.is_agent and identity.agent_profile else "project"
    for spec in fields(Draft):
        if spec.get("time") and spec.name in said:
            raw = said[spec.name]
            said[spec.name] = parse_time(raw, spec.name.replace("_", "-")) if raw else None
    check_not_past("expires-at", said["expires_at"], now)
    check_not_past("valid-to", said["valid_to"], now, said["valid_from"])
    said["valid_from"] = said["valid_from"] or now
    # Where the claim comes from, as the environment says: an agent's memory
    # is never labelled as a person's manual note.
    if said["source_type"] == "manual" and actor.origin.is_agent:
        said["source_type"] = "agent"
    # The memory a draft replaces is recorded by `correct`, once it is replaced.
    said["supersedes"] = ()
    return Memory(
        **said,
        id=new_memory_id(),
        **actor.stamp(identity, now),
    )


# What a past time is refused for, by the flag that set it: what to do instead.
_UNTIL = {
    "expires-at": "give a later time, or leave the expiry out to keep the memory until it "
    "is forgotten",
    "valid-to": "give --valid-from too for a fact that held in the past, a later time, or "
    "leave valid-to out to keep the memory valid until it is superseded",
}


def check_not_past(what: str, moment: str | None, now: str, since: str | None = None) -> None:
    """Refuse an expiry, or a validity's end with no start given (`what`, its
    flag), that a person or an agent sets and that has already passed: no
    read would ever return the memory, so storing it is only a mistake kept.
    A validity's end past with its start given is a fact that held then,
    recorded late: `recall --valid-at` in the window finds it (the window's
    order is validation's to check). Every verb that takes one composes its
    draft here; an import keeps an export's past times as they are (that
    memory simply is expired), and never composes a draft."""
    if moment is not None and moment <= now and since is None:
        raise UsageError(f"{what} {moment[:19]}Z is in the past (now {now[:19]}Z); {_UNTIL[what]}")


def check_draft(draft: Draft) -> None:
    """Refuse what a draft can be refused for before any store is opened (a
    global memory's opens, and may create, the person's user store): its
    files, an expiry already past, and a validity that ends before it
    starts or, with no start given, has already ended."""
    check_files(draft)
    now = now_iso()
    if draft.expires_at:
        check_not_past("expires-at", parse_time(draft.expires_at, "expires-at"), now)
    if draft.valid_to:
        since = parse_time(draft.valid_from, "valid-from") if draft.valid_from else None
        until = parse_time(draft.valid_to, "valid-to")
        check_not_past("valid-to", until, now, since)
        if since is not None and until <= since:
            raise UsageError(validation.INVERTED_WINDOW)


def check_files(draft: Draft) -> None:
    """Refuse files a draft cannot be anchored to, before any store is opened:
    too many, a global memory's (it belongs to no project's files), or a
    path the guard refuses (before a path is looked up, so that no error
    about the file can repeat it)."""
    anchoring.check_count(len(draft.files))
    guard.check_fields(pipeline.anchor_fields(draft.files))
    if draft.files and draft.scope == "global":
        raise UsageError(
            "--file anchors a project memory; a global memory names no files of a project"
        )


def anchored(store: Store, draft: Draft) -> tuple[Anchor, ...]:
    """The anchors of the files `draft` names, as they are now in the store's
    project: a one-line error for a path that is not a plain file inside it.
    Read before the write's transaction opens; stored in it."""
    if not draft.files:
        return ()
    check_files(draft)
    root = store.root_str
    here = draft.files_from
    base = here if here and anchoring.inside(root, here) else root
    return anchoring.resolve(root, draft.files, base)


def remember(store: Store, draft: Draft, identity: Identity, actor: Actor) -> WriteResult:
    """Store one memory, anchored to the files `draft.files` names."""
    anchors = anchored(store, draft)
    memory = compose(draft, identity, actor)
    if draft.supersedes:
        return correct.remember_superseding(store, memory, draft.supersedes, actor, anchors)
    return pipeline.store_memory(store, memory, actor, anchors)


def require_evidence_ref(evidence_ref: str) -> None:
    """An evaluation's outcome is stored only with the run, eval or incident it
    comes from; the `evidence` verb's rule, which quality scenarios hold an
    evaluation's write candidate to as well."""
    if not evidence_ref.strip():
        raise UsageError("evidence needs --evidence-ref: the run, eval or incident it comes from")


def evidence(
    store: Store,
    draft: Draft,
    identity: Identity,
    actor: Actor,
    *,
    outcome: str,
    evidence_ref: str,
    score: float | None,
) -> WriteResult:
    if outcome not in EVIDENCE_OUTCOMES:
        raise UsageError(f"unknown outcome {outcome!r}; use one of: {', '.join(EVIDENCE_OUTCOMES)}")
    require_evidence_ref(evidence_ref)
    ring, retention, salience, confidence = EVIDENCE_OUTCOMES[outcome]
    draft = draft.replace(
        ring=ring,
        retention=retention,
        salience=salience,
        confidence=confidence if score is None else score,
        source_type="evidence",
        source_ref=evidence_ref,
        event_type=draft.event_type if draft.event_type != "note" else "evaluation",
        tags=(*draft.tags, f"outcome:{outcome}"),
    )
    return pipeline.store_memory(store, compose(draft, identity, actor), actor)


# The stop hook's operation ids: its checkpoint (12 hex digits of a hash of the
# turn, `hook/adapter.checkpoint_id`) and one of three slots. Any other id is
# not one it gave, so a capture under it was not asked for.
CAPTURE_SLOTS = ("1", "2", "3")
CAPTURE_OPERATION = "auto-<12 hex digits>-1, -2 or -3"
_HEX = frozenset("0123456789abcdef")


def is_checkpoint_operation(operation_id: str) -> bool:
    """Whether `operation_id` is one the stop hook gives: auto-<checkpoint>-<slot>."""
    parts = operation_id.split("-")
    return (
        len(parts) == 3
        and parts[0] == "auto"
        and len(parts[1]) == 12
        and set(parts[1]) <= _HEX
        and parts[2] in CAPTURE_SLOTS
    )


def capture_defaults(identity: Identity, draft: Draft) -> tuple[Identity, Draft]:
    """What the stop hook's command leaves out, as it would say it: the
    session is the workflow too, and the outcome happened in the session
    (`session:ID`, and `:PROFILE` for a subagent's `harness:type:id` profile).
    The hook's command stays short this way, its session id said once."""
    session = identity.session_id
    if not session:
        return identity, draft
    if not identity.workflow_id:
        identity = identity.replace(workflow_id=session)
    if not draft.source_ref.strip():
        profile = identity.agent_profile or ""
        tail = f":{profile}" if ":" in profile else ""
        draft = draft.replace(source_ref=f"session:{session}{tail}")
    return identity, draft


def capture(store: Store, draft: Draft, identity: Identity, actor: Actor) -> WriteResult:
    """Only what the stop checkpoint may write; anything else is refused.
    It is anchored to the files `draft.files` names, else to those the
    session's turn changed, as the stop hook found them."""
    expected = CAPTURE_PAIRS.get(draft.event_type)
    if expected is None:
        raise UsageError(
            f"capture takes event types {', '.join(CAPTURE_PAIRS)}; got {draft.event_type!r}"
        )
    if draft.ring != expected:
        raise UsageError(
            f"capture writes {draft.event_type} with ring {expected}, not {draft.ring}"
        )
    if draft.scope not in (None, "agent"):
        raise UsageError("capture writes agent scope only; use remember for other scopes")
    if draft.sensitivity != "normal":
        raise UsageError("capture stores normal sensitivity only; do not capture sensitive facts")
    if CAPTURE_PLACEHOLDER in draft.summary:
        raise UsageError(
            f"capture's summary is still {CAPTURE_PLACEHOLDER}; write the outcome in one sentence"
        )
    identity, draft = capture_defaults(identity, draft)
    # Without a session, the workflow and the source it would give are not
    # asked for apart: naming the session gives both.
    missing = [
        flag
        for flag, value in (
            ("--project", identity.project),
            ("--agent-profile", identity.agent_profile),
            ("--workflow-id", identity.workflow_id or not identity.session_id),
            ("--session-id", identity.session_id),
            ("--operation-id", draft.operation_id),
            ("--source-ref", draft.source_ref.strip() or not identity.session_id),
        )
        if not value
    ]
    if missing:
        raise UsageError(f"capture needs {', '.join(missing)}; copy the command the stop hook gave")
    operation_id = draft.operation_id or ""
    if not is_checkpoint_operation(operation_id):
        shown = repr(operation_id[:40]) + ("..." if len(operation_id) > 40 else "")
        raise UsageError(
            f"capture takes an operation id the stop hook gave ({CAPTURE_OPERATION}), "
            f"not {shown}; copy the command the stop hook gave"
        )
    draft = draft.replace(scope="agent", source_type="agent")
    if draft.files:
        anchors = anchored(store, draft)
    else:
        # The profile is the harness, or `harness:type:id` for a subagent
        # (`hook/adapter.agent_profile`): the harness the turn's files were kept under.
        harness = (identity.agent_profile or "").partition(":")[0]
        anchors = anchoring.from_turn(store.root_str, harness, identity.session_id or "")
        anchors = anchoring.named_in(anchors, [draft.summary, draft.details, *draft.tags])
    memory = compose(draft, identity, actor)
    result = pipeline.prepare(memory, anchors)
    if result.sensitivity != "normal":
        raise UsageError(
            f"capture stores normal sensitivity only; this reads as {result.sensitivity}, "
            "so leave it out"
        )
    assert memory.scope in PRIVATE_SCOPES
    memory = result  # prepared: validated, guarded, hashed
    line = pipeline.clean_line(memory)
    with store.write() as db:
        if draft.files:
            pipeline.refuse_files(db, memory, anchors, actor)
        else:
            # The files the turn changed: one whose path quotes forgotten
            # content is no file this memory is about.
            anchors = tuple(
                a for a in anchors if pipeline.files_refused(db, memory, [a], actor) is None
            )
        written = pipeline.insert_prepared(db, memory, actor, dedupe=True)
        if written.created:
            anchoring.attach(db, written.id, anchors)
        pipeline.keep_clean(db, line, written)
        if written.created and written.trust == "accepted" and share.sharing(db):
            share.share_in(db, written.id, actor, memory.created_at)
    return pipeline.with_anchors(written, anchors)
