"""What a form changes: the same use cases the CLI runs, through `Project` with the site's actor.

approve, reject and dispute are `Project.review` (a request id to forget goes
there too, as `review approve req_...` does); forget is `Project.forget` with
the reader's identity, as `tree-ring forget` does; promote is
`Project.promote` (into the project's shared scope), then marked seen, and
keep is `review/inbox.keep`, as `tree-ring promote` and `inbox keep` do. Each returns
a one-line notice for the next page. A library error is a notice too, the
way the CLI prints it (secret-looking values withheld), and changes nothing:
the library's transaction is whole or absent.
"""

from __future__ import annotations

from tree_ring.model.errors import TreeRingError, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from tree_ring.review.queue import Decision
    from tree_ring.web.site import Site

ACTIONS = ("approve", "reject", "dispute", "forget", "promote", "keep")


def act(site: Site, form: Mapping[str, str]) -> tuple[str, bool]:
    """Carry out the form's action; the notice to show and whether it is an error.
    As the CLI's, a person's write reaches the team ledger at once (`keep`, a
    mark of what was seen, is none)."""
    from tree_ring.guard import withhold

    try:
        done = _act(site, form)
    except TreeRingError as exc:
        return f"error: {withhold(str(exc))}", True
    if form.get("action") != "keep":
        try:
            with site.opened() as project:
                project.into_ledger()
        except TreeRingError as exc:
            note = f"the team ledger was not updated: {exc}; `tree-ring sync` retries"
            done += f" ({withhold(note)})"
    return done, False


def _act(site: Site, form: Mapping[str, str]) -> str:
    action = form.get("action", "")
    if action == "keep":
        return _keep(site, form)
    target = (form.get("id") or "").strip()
    reason = (form.get("reason") or "").strip() or None
    if action not in ACTIONS:
        raise UsageError(f"unknown action; use one of {', '.join(ACTIONS)}")
    if not target:
        raise UsageError(f"{action} needs a memory id")
    with site.opened() as project:
        if action in ("approve", "reject", "dispute"):
            # An approval's reason is optional (the library words a blank one).
            why = (reason or "") if action == "approve" else _need(reason, action)
            return _decided(project.review(action, target, reason=why))
        if action == "forget":
            mode = form.get("mode") or "redact"
            done = project.forget(target, mode=mode, reason=_need(reason, action))
            if done.request is not None:
                return f"requested {done.request}: forgetting {done.id} waits for a person's review"
            text = "; ".join(done.said())
            if done.lingering is not None:
                text += f" (but: {done.lingering})"
            return text
        (done,) = project.promote([target], reason=_need(reason, action), scope="project")
        # Decided is seen, as the inbox verb has it.
        project.mark_seen([done.id])
        return f"promoted {done.id} from {done.from_scope} to the shared {done.scope} scope"


def _need(reason: str | None, action: str) -> str:
    if not reason:
        raise UsageError(f"{action} needs a reason; it is kept on the row and in the audit log")
    return reason


def _decided(decision: Decision) -> str:
    return "; ".join(decision.said())


def _keep(site: Site, form: Mapping[str, str]) -> str:
    ids = (form.get("ids") or form.get("id") or "").split()
    if not ids:
        raise UsageError("keep needs the memory ids")
    with site.opened() as project:
        kept = project.keep(ids)
    return f"kept {kept} where {'it is' if kept == 1 else 'they are'}; marked seen"
