"""What each tool does: the library calls the CLI makes, for an agent caller.

Each handler takes the resolved caller and checked arguments and returns the
tool's fields (server.py adds `ok` and the recalled-data notice). Writes go
through `tree_ring.write.verbs` and `tree_ring.write.correct` with an Actor
whose origin is the harness, so guard, policy, trust, idempotency and the
authority to forget are the library's, exactly as for the CLI run by an
agent. The server never presents the coordinator capability: a person's
token in the harness's environment is not the agent's to use.

Reads see what the caller's identity sees (the project's shared scopes and
the caller's own partitions), through `read.listing` and `live.visible` as
the CLI run by an agent does; a memory of another project, or in another
agent's or session's partition, is not found, in the words of a missing id.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tree_ring.api.project import Project
from tree_ring.mcp.identity import Caller
from tree_ring.model.actor import Actor
from tree_ring.model.errors import NotFound, UsageError
from tree_ring.model.record import Memory
from tree_ring.read import staleness, withheld
from tree_ring.store.db import Options
from tree_ring.store.live import View
from tree_ring.write import verbs
from tree_ring.write.pipeline import WriteResult


@dataclass(frozen=True)
class Call:
    caller: Caller
    options: Options
    # Where the person's user store is (`TREE_RING_USER_HOME`, XDG, HOME).
    environ: Mapping[str, str] = field(default_factory=lambda: {})

    def project(self) -> Project:
        """The caller's project; an agent's reads are its own partitions and the
        shared scopes. create: a fresh clone has the committed project.json but
        no database yet."""
        return Project(
            str(self.caller.root),
            self.caller.identity,
            self.actor,
            environ=self.environ,
            options=self.options,
            whole_project=False,
            create=True,
        )

    @property
    def actor(self) -> Actor:
        return Actor(self.caller.harness, self.caller.origin)


Handler = Callable[[Call, dict[str, Any]], dict[str, Any]]


def item(memory: Memory) -> dict[str, Any]:
    return {
        "id": memory.id,
        "summary": memory.summary,
        "event_type": memory.event_type,
        "ring": memory.ring,
        "scope": memory.scope,
        "trust": memory.trust,
        "label": "" if memory.trust == "accepted" else memory.trust.upper(),
        "source": {"type": memory.source_type, "ref": memory.source_ref},
        "created_at": memory.created_at,
    }


def recall(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    view = View(include_unreviewed=args["include_unreviewed"])
    with call.project() as project:
        hits = project.recall(
            args["query"], limit=args["limit"], view=view, scope=args.get("scope")
        )
        # What changed in the files each of the project's hits is about.
        judged = project.anchors([h.memory.id for h in hits if h.store == "project"], view)
        # What an agent's refutation waiting for a person says of a hit: of a
        # refuted row, or of a consolidation that states a refuted source.
        notes = project.disputes(hits, view)
    marks = {
        memory_id: staleness.mark(changed) for memory_id, changed in staleness.stale(judged).items()
    }
    result = {
        "project": call.caller.project,
        "query": args["query"],
        "count": len(hits),
        "results": [
            item(h.memory)
            | {
                "score": round(h.score, 4),
                "store": h.store,
                "stale": marks.get(h.memory.id),
                "disputed": "; ".join(notes[h.memory.id]) if h.memory.id in notes else None,
            }
            for h in hits
        ],
    }
    _log(call, "recall", [h.memory.id for h in hits], result)
    return result


def brief(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    # As the SessionStart hook gives it: the person's own lines too, and a
    # damaged user store costs them and a line on stderr, never the brief.
    with call.project() as project:
        result = project.brief()
    found = {
        "project": result.project,
        "count": len(result.ids),
        "ids": list(result.ids),
        "text": result.text,
    }
    _log(call, "brief", list(result.ids), found)
    return found


def _note(message: str) -> None:
    sys.stderr.write(f"tree-ring mcp: {message}\n")


def _log(call: Call, event: str, ids: list[str], result: dict[str, Any]) -> None:
    """What the tool put into the agent's context, in the usage log: ids and
    the size of the result (its JSON), never text. Costs a line on stderr at most."""
    from tree_ring.model import jsontext
    from tree_ring.store import usage_log

    size = len(jsontext.dumps(result).encode("utf-8"))
    caller = call.caller
    problem = usage_log.record(
        caller.root, event, harness=caller.harness, session=caller.session, ids=ids, size=size
    )
    if problem is not None:
        _note(problem)


def _unseen(call: Call, memory_id: str) -> NotFound:
    """The same words for an id nobody has and one this session may not see."""
    from tree_ring.store.rows import named_id

    return NotFound(
        f"no memory {named_id(memory_id)} that this session can see in project "
        f"{call.caller.project}; recall or list gives the ids there are"
    )


def show(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    with call.project() as project:
        try:
            memory = project.show(args["id"])
        except NotFound:
            raise _unseen(call, args["id"]) from None
    # An MCP read never asks for sensitive rows: their text is not the tool's to give.
    if withheld.hidden(memory, View()):
        raise UsageError(
            f"{memory.id} is marked {memory.sensitivity}, which Tree Ring does not show "
            f"to agents; a person can read it with "
            f"`tree-ring show {memory.id} --include-sensitive`"
        )
    data = memory.to_dict()
    data |= {
        "label": "" if memory.trust == "accepted" else memory.trust.upper(),
        "review_reason": memory.review_reason,
    }
    keep = (
        *item(memory),
        "details", "tags", "salience", "confidence", "sensitivity", "retention",
        "updated_at", "valid_from", "valid_to", "expires_at", "supersedes", "superseded_by",
        "retired_at", "redacted_at", "review_reason", "origin", "agent_profile",
    )  # fmt: skip
    return {"memory": {key: data[key] for key in keep}}


def list_memories(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    trust = args.get("trust") or "accepted"
    with call.project() as project:
        found = project.list(
            View(include_unreviewed=trust != "accepted"),
            limit=args["limit"],
            scope=args.get("scope"),
            ring=args.get("ring"),
            trust=trust,
            count_cap=0,  # the tool returns no total: count no further than the page
        ).memories
    return {
        "project": call.caller.project,
        "count": len(found),
        "memories": [item(m) for m in found],
    }


def status(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    """`tree-ring status --json`'s document, from the same library call."""
    with call.project() as project:
        return project.status()


def _written(result: WriteResult) -> dict[str, Any]:
    message = result.said("hidden from default reads")
    return {
        "id": result.id,
        "created": result.created,
        "trust": result.trust,
        "sensitivity": result.sensitivity,
        "review_reason": result.review_reason,
        "message": message,
        "anchored": [a.path for a in result.anchors],
    }


def remember(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    source_ref = args.get("source_ref", "")
    draft = verbs.Draft(
        summary=args["summary"],
        event_type=args["event_type"],
        ring=args["ring"],
        scope=args.get("scope"),
        details=args.get("details", ""),
        # As the CLI run by an agent: a source it names is the agent's word.
        source_type="agent" if source_ref else "manual",
        source_ref=source_ref,
        source_quote=args.get("source_quote", ""),
        tags=tuple(args.get("tags", ())),
        salience=float(args["salience"]),
        confidence=float(args["confidence"]),
        operation_id=args.get("operation_id"),
        supersedes=args.get("supersedes"),
        # Paths are read from the project's root: the server's own folder may be the plugin's.
        files=tuple(args.get("files") or ()),
    )
    with call.project() as project:
        return _written(project.remember(draft))


def capture(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    session = call.caller.session
    if session is None:
        raise UsageError(
            "capture needs the harness's session id, which this client does not send; "
            "use remember instead"
        )
    draft = verbs.Draft(
        summary=args["summary"],
        event_type=args["event_type"],
        ring=verbs.CAPTURE_PAIRS[args["event_type"]],
        operation_id=args["operation_id"],
        # Without files, those the session's turn changed, as the stop hook found them.
        files=tuple(args.get("files") or ()),
    )
    with call.project() as project:
        return _written(project.capture(draft))


def forget(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    memory_id = args["id"]
    with call.project() as project:
        try:
            # Another project's row, or one in a partition this caller cannot
            # see, is not found, in the words of a missing id.
            done = project.forget(memory_id, mode=args["mode"], reason=args["reason"])
        except NotFound:
            raise _unseen(call, memory_id) from None
    message = "; ".join(done.said())
    if done.request is not None:
        message = (
            f"requested {done.request}: {done.id} was not written by you, so forgetting it "
            "is a person's decision; it stays as it is until they approve"
        )
    elif done.lingering is not None:
        message += f"; but {done.lingering}"
    return {
        "id": done.id,
        "mode": done.mode,
        "reason": done.reason,
        "request": done.request,
        "twins": list(done.twins),
        "tombstoned": done.tombstoned,
        "withdrawn": done.withdrawn,
        "message": message,
    }


def refute(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    memory_id = args["id"]
    with call.project() as project:
        try:
            # Whether the caller may see it is the library's question (its project,
            # partitions and sensitivity), answered as for any other unknown id.
            done = project.refute(memory_id, reason=args["reason"])
        except NotFound:
            raise _unseen(call, memory_id) from None
    return {
        "id": done.id,
        "trust": done.trust,
        "reason": done.reason,
        "message": (
            f"disputed {done.id}: a person decides whether it is wrong; until then the "
            "brief shows it marked disputed with your reason"
        ),
    }


HANDLERS: dict[str, Handler] = {
    "recall": recall,
    "brief": brief,
    "show": show,
    "list": list_memories,
    "status": status,
    "remember": remember,
    "capture": capture,
    "forget": forget,
    "refute": refute,
}
