"""The inbox page: what agents saved that the person has not seen, and what to do with each.

The list is the library's (`Project.inbox`): agent rows still on record,
of normal sensitivity, newest first, but those whose content the other store
a project reads forgot. Looking is not deciding: a GET marks
nothing seen. Each row offers the inbox's three decisions as forms: promote
it to the project (`review/promote`), keep it where it is (marked seen), or
forget it; "Mark all shown as seen" keeps every row on the page at once.
"""

from __future__ import annotations

from tree_ring.model.record import ORIGINS
from tree_ring.review import inbox
from tree_ring.team import provenance
from tree_ring.web import markup
from tree_ring.web.frame import action_form, came_from, frame, memory_link
from tree_ring.web.markup import attr, text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from tree_ring.web.site import Session, Site

PAGE = 50


def _form(session: Session, action: str, field: str, value: str, inner: str, label: str) -> str:
    # A field of every id shown is long: its first characters name the form.
    return action_form(session, action, field, value, "/inbox", inner, label, key=value[:60])


def _reason(placeholder: str) -> str:
    return f'<input name="reason" placeholder="{attr(placeholder)}" size="22" required> '


def inbox_page(site: Site, session: Session, query: Mapping[str, str]) -> str:
    inbox.refuse_agent(site.actor)
    origin = query.get("origin") or None
    if origin is not None and origin not in ORIGINS:
        origin = None
    with site.opened() as project:
        found = project.inbox(origin=origin, limit=PAGE, include_sensitive=session.show_sensitive)
        came = provenance.said_of(project.store.db, [item.memory.id for item in found.items])
    listed: list[str] = []
    for item in found.items:
        m = item.memory
        forget_mode = (
            '<select name="mode"><option value="redact">redact</option>'
            '<option value="delete">delete</option></select> '
        )
        forms = ""
        if "promote" in item.actions:
            forms += _form(
                session, "promote", "id", m.id, _reason("why share it"), "Promote to the project"
            )
        forms += _form(session, "keep", "id", m.id, "", "Keep")
        forms += _form(session, "forget", "id", m.id, forget_mode + _reason("why forget"), "Forget")
        listed.append(
            f'<li class="inbox-item" id="i-{attr(m.id)}">'
            f'<a href="{attr(memory_link(m.id))}">{text(m.id)}</a> {markup.trust_tag(m.trust)} '
            f'[{text(m.ring)}] <span class="summary">{text(markup.clip(m.summary, 300))}</span><br>'
            f'<span class="note">{text(inbox.source(m, item.origin))} · '
            f"{text(m.created_at[:19])}Z · {text(item.why_label)}: {text(item.why)}</span>"
            + (f"<br>{came_from(came[m.id])}" if m.id in came else "")
            + f'<div class="actions">{forms}</div></li>'
        )
    body = [
        "<h1>Inbox</h1>",
        f'<p id="inbox-size">{markup.count(found.total, "unseen memory", "unseen memories")} '
        "that agents saved"
        + (
            f"; showing the newest {len(found.items)}"
            if found.total - found.withheld > len(found.items)
            else ""
        )
        + (f"; {found.withheld} sensitive hidden" if found.withheld else "")
        + ".</p>",
    ]
    if listed:
        body.append(f'<ol class="inbox">{"".join(listed)}</ol>')
        shown = " ".join(item.memory.id for item in found.items)
        body.append(_form(session, "keep", "ids", shown, "", "Mark all shown as seen"))
    else:
        body.append('<p id="empty">Nothing new from agents.</p>')
    return frame(site, session, "/inbox", "Inbox", "\n".join(body))
