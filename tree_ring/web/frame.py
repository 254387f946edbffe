"""The frame every viewer page sits in, and the few links and fields pages share.

The header names the project, links every page, and carries the session's
toggle for sensitive rows (a POST, as every change is); a notice left by the
last action shows once above the page.
"""

from __future__ import annotations

from urllib.parse import urlencode

from tree_ring.web import markup
from tree_ring.web.markup import attr, text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.web.site import Session, Site

NAV = (
    ("/", "Rings"),
    ("/memories", "Memories"),
    ("/review", "Review"),
    ("/inbox", "Inbox"),
    ("/tree", "Summary tree"),
    ("/status", "Status"),
)


class NotFoundPage(Exception):
    """The page or the thing it names does not exist (404)."""


def memory_link(memory_id: str) -> str:
    return "/memory?" + urlencode({"id": memory_id})


def came_from(said: str | None, tag: str = "span", element_id: str = "") -> str:
    """Who put a row there, when a team ledger line did (`team/provenance.said`),
    as a note on one line; nothing for a row this store wrote itself. The
    author is whatever a commit says: escaped, its controls spelled out."""
    if not said:
        return ""
    named = f' id="{attr(element_id)}"' if element_id else ""
    return (
        f'<{tag} class="note provenance"{named}>from the team ledger: {markup.line(said)}</{tag}>'
    )


def csrf_field(session: Session) -> str:
    return f'<input type="hidden" name="csrf" value="{attr(session.csrf)}">'


def action_form(
    session: Session,
    action: str,
    name: str,
    value: str,
    back: str,
    inner: str,
    label: str,
    key: str | None = None,
) -> str:
    """A one-button form that posts `action` on `value` (the field `name`) to
    `/act`, with the session's CSRF value, and comes back to `back`; `inner`
    goes before the button (a reason, a mode). Its element id is the action
    and `key` (default: `value`)."""
    return (
        f'<form method="post" action="/act" class="inline" '
        f'id="{attr(action)}-{attr(value if key is None else key)}">'
        f"{csrf_field(session)}"
        f'<input type="hidden" name="action" value="{attr(action)}">'
        f'<input type="hidden" name="{attr(name)}" value="{attr(value)}">'
        f'<input type="hidden" name="back" value="{attr(back)}">'
        f'{inner}<button type="submit">{text(label)}</button></form> '
    )


def frame(site: Site, session: Session, here: str, title: str, body: str) -> str:
    links: list[str] = []
    for path, name in NAV:
        css = ' class="here"' if path == here else ""
        links.append(f'<a href="{path}"{css}>{name}</a>')
    toggle = "Hide sensitive" if session.show_sensitive else "Show sensitive"
    header = (
        f'<header><span class="project">Tree Ring · {text(site.project)}</span>'
        + "".join(links)
        + f'<form method="post" action="/sensitive">{csrf_field(session)}'
        f'<input type="hidden" name="back" value="{attr(here)}">'
        f'<button type="submit" id="toggle-sensitive">{toggle}</button></form></header>'
    )
    notice, is_error = session.take_notice()
    if notice:
        css = "error" if is_error else "note"
        body = f'<p class="{css}" id="notice">{text(notice)}</p>' + body
    return markup.page(f"{title} · Tree Ring", body, header=header)
