"""The review queue page and the forms that decide: approve, reject, dispute, forget.

The queue is the library's (`review/queue.queue`: pending and disputed rows
still on record, oldest first, each with the rows it contradicts), read whole
and cached until the store changes, then paged here, with sensitive rows left
out unless the session shows them. Requests from agents to
forget a memory sit beneath it. Every form posts to `/act` with the
session's CSRF value; `actions` carries the decision out.
"""

from __future__ import annotations

from urllib.parse import urlencode

from tree_ring.model.record import PRIVATE_SCOPES
from tree_ring.model.text import preview
from tree_ring.review import queue as review
from tree_ring.store.live import View
from tree_ring.team import provenance
from tree_ring.web import markup
from tree_ring.web.frame import action_form, came_from, frame, memory_link
from tree_ring.web.markup import attr, text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from tree_ring.model.record import Memory
    from tree_ring.web.site import Session, Site

PAGE = 50
UNDECIDED = ("pending", "disputed")


def _form(session: Session, action: str, target: str, back: str, inner: str, label: str) -> str:
    return action_form(session, action, "id", target, back, inner, label)


def _reason(required: bool, placeholder: str) -> str:
    need = " required" if required else ""
    return f'<input name="reason" placeholder="{attr(placeholder)}" size="24"{need}> '


def decision_forms(session: Session, memory: Memory, back: str) -> str:
    """Approve, reject, dispute for a memory waiting in the queue."""
    forms = [
        _form(session, "approve", memory.id, back, _reason(False, "reason (optional)"), "Approve"),
        _form(session, "reject", memory.id, back, _reason(True, "why reject"), "Reject"),
    ]
    if memory.trust != "disputed":
        forms.append(
            _form(session, "dispute", memory.id, back, _reason(True, "why dispute"), "Dispute")
        )
    return "".join(forms)


def forget_form(session: Session, memory: Memory, back: str) -> str:
    mode = (
        '<select name="mode"><option value="redact">redact</option>'
        '<option value="delete">delete</option></select> '
    )
    return _form(session, "forget", memory.id, back, mode + _reason(True, "why forget"), "Forget")


def memory_actions(site: Site, session: Session, memory: Memory) -> str:
    """The forms a memory's own page offers, for the state it is in."""
    if memory.redacted_at is not None or memory.trust == "rejected":
        return ""
    back = "/memory?" + urlencode({"id": memory.id})
    forms = ""
    if memory.trust in UNDECIDED and memory.retired_at is None:
        forms += decision_forms(session, memory, back)
    elif memory.trust == "accepted" and memory.retired_at is None:
        forms += _form(session, "dispute", memory.id, back, _reason(True, "why dispute"), "Dispute")
    forms += forget_form(session, memory, "/memories")
    if (
        memory.trust == "accepted"
        and memory.scope in PRIVATE_SCOPES
        and not site.actor.origin.is_agent
    ):
        why = _reason(True, "why share it")
        forms += _form(session, "promote", memory.id, back, why, "Promote to the project")
    return f'<div class="actions">{forms}</div>'


def review_page(site: Site, session: Session, query: Mapping[str, str]) -> str:
    raw = query.get("offset") or "0"
    offset = int(raw) if raw.isdigit() and len(raw) < 10 else 0
    shown_sensitive = session.show_sensitive
    with site.opened() as project:
        db = project.store.db
        # The whole queue, every waiting row of the project with what it
        # contradicts: cached until the store changes (`Site.cached`).
        # An agent's environment reviews the rows its recall reads (`live.visible`).
        reader = project.reader
        # A row whose content the other store forgot waits with its words
        # withheld; the cache is kept until either store changes.
        mine = project.user_store()
        every = site.cached([db, mine and mine.db], ("review",), project.review_queue)
        total = len(every)
        kept = [w for w in every if shown_sensitive or w.memory.sensitivity == "normal"]
        hidden = total - len(kept)
        page = kept[offset : offset + PAGE]
        waiting = [w.memory for w in page]
        against = {other.id: other for w in page for other in w.contradicts}
        asked_view = View(include_sensitive=shown_sensitive)
        asked = review.waiting_requests(db, site.project, asked_view, reader)
        about = review.asked_about(db, asked, asked_view, project.forgotten_elsewhere())
        came = provenance.said_of(db, [m.id for m in waiting] + [r.id for r in asked])
    items: list[str] = []
    for m in waiting:
        lines = [
            f'<a href="{attr(memory_link(m.id))}">{text(m.id)}</a> {markup.trust_tag(m.trust)} '
            f'[{text(m.ring)}] <span class="summary">{text(markup.clip(m.summary, 300))}</span>',
            f'<span class="note">why: {text(m.review_reason or "waiting for review")}; from '
            f"{text(m.origin)} at {text(m.created_at[:19])}Z ({text(m.scope)})</span>",
        ]
        if m.id in came:
            lines.append(came_from(came[m.id]))
        for link in m.links:
            other = against.get(link.target) if link.type == "contradicts" else None
            if other is not None:
                shown = (
                    markup.clip(other.summary, 200)
                    if other.sensitivity == "normal" or shown_sensitive
                    else "(sensitive)"
                )
                lines.append(
                    f'contradicts <a href="{attr(memory_link(other.id))}">{text(other.id)}</a> '
                    f"{markup.trust_tag(other.trust)}: {text(shown)}"
                )
        lines.append(
            '<div class="actions">'
            + decision_forms(session, m, "/review")
            + forget_form(session, m, "/review")
            + "</div>"
        )
        items.append(f'<li class="waiting" id="w-{attr(m.id)}">' + "<br>".join(lines) + "</li>")
    body = [
        "<h1>Review queue</h1>",
        f'<p id="queue-size">{total} waiting (oldest first)'
        + (f"; {hidden} sensitive hidden" if hidden else "")
        + (f"; showing {offset + 1}–{offset + len(waiting)}" if total > PAGE else "")
        + ".</p>",
        f'<ol class="queue">{"".join(items)}</ol>' if items else '<p id="empty">Nothing waits.</p>',
    ]
    if offset + len(waiting) < total - hidden:
        body.append(f'<p><a href="/review?offset={offset + PAGE}" id="next">more</a></p>')
    if asked:
        body.append("<h2>Requests to forget</h2>")
        listed: list[list[str]] = []
        for r in asked:
            listed.append(
                [
                    text(r.id),
                    f'<a href="{attr(memory_link(r.memory_id))}">{text(r.memory_id)}</a> '
                    f'<span class="summary">{text(markup.clip(about[r.id], 300))}</span>',
                    text(r.mode),
                    text(preview(r.reason)),
                    text(f"{r.actor} ({r.origin})")
                    + (f"<br>{came_from(came[r.id])}" if r.id in came else ""),
                    _request_forms(session, r.id),
                ]
            )
        body.append(markup.table(["request", "memory", "mode", "why", "asked by", ""], listed))
    return frame(site, session, "/review", "Review", "\n".join(body))


def _request_forms(session: Session, request_id: str) -> str:
    return _form(
        session, "approve", request_id, "/review", _reason(False, "reason (optional)"), "Forget it"
    ) + _form(session, "reject", request_id, "/review", _reason(True, "why keep it"), "Keep it")
