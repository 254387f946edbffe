"""The viewer's pages: the frame, rings, memories and one memory.

Each page is a function of the site, the browser's session and the query,
returning the page's HTML; it opens the project for the request
(`Site.opened`) and reads through the library's front, `Project`: a page of
memories is `list`, a search is `recall` (the person's own user store merged,
each of its hits marked "you" or with who else wrote it, as `tree-ring recall`
marks them), one memory
is `show`. The rings are `store/rings.py`. The review queue, inbox, summary
tree and status live in `queue`, `inbox` and `status`.
Every value is escaped by `markup`; text a page may not show (redacted,
rejected, or sensitive while the session hides sensitive rows) is never
read into the page at all.
"""

from __future__ import annotations

import json
from typing import cast
from urllib.parse import urlencode

from tree_ring.api.found import USER
from tree_ring.govern import reasons
from tree_ring.model.errors import UsageError
from tree_ring.model.record import ORIGINS, RINGS, SCOPES, Memory, parse_time
from tree_ring.store import audit, backlinks
from tree_ring.store import rings as ring_counts
from tree_ring.store.live import View
from tree_ring.team import provenance
from tree_ring.upkeep import usage
from tree_ring.web import data, markup, queue, rings
from tree_ring.web.frame import NotFoundPage, came_from, frame, memory_link
from tree_ring.web.markup import attr, text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from tree_ring.api.found import Found
    from tree_ring.model.anchor import Check
    from tree_ring.web.site import Session, Site

    Query = Mapping[str, str]

CAP = 120  # marks per ring in the viewer
PAGE = 50  # memories per page
SEARCH_LIMIT = 200  # recall's best hits a search pages through


def _view(session: Session, query: Query | None = None) -> View:
    q = query or {}
    as_of = q.get("as_of") or None
    valid_at = q.get("valid_at") or None
    return View(
        as_of=parse_time(as_of, "as of") if as_of else None,
        valid_at=parse_time(valid_at, "valid at") if valid_at else None,
        include_sensitive=session.show_sensitive,
    )


# ------------------------------------------------------------------- rings


def rings_page(site: Site, session: Session, query: Query) -> str:
    view = _view(session, query)
    with site.opened() as project:
        db = project.store.db
        drawn = site.cached(
            [db],
            ("rings", view.as_of, view.valid_at, view.include_sensitive),
            lambda: ring_counts.rings(
                db, site.identity, view, cap=CAP, whole_project=site.whole_project
            ),
        )
        # After the cache: a forget in the user store changes no byte of this one.
        forgotten = project.forgotten_elsewhere()
        if forgotten is not None:
            drawn = forgotten.marks(drawn)
    hidden = drawn.hidden
    when = f" as of {view.as_of}" if view.as_of else ""
    label = f"The rings of {site.project}'s memory{when}"
    rows_ = [
        [
            f'<a href="/memories?{attr(urlencode({"ring": ring, "trust": "any"}))}">'
            f"{text(ring)}</a>",
            str(c.total),
            str(c.by_trust.get("accepted", 0)),
            str(c.by_trust.get("pending", 0) + c.by_trust.get("disputed", 0)),
        ]
        for ring, c in drawn.counts.items()
    ]
    body = [
        f"<h1>Rings{text(when)}</h1>",
        f'<p class="note">{text(rings.counted(drawn))}'
        + (f"; {hidden} sensitive hidden" if hidden else "")
        + ". Heartwood at the core, cambium under the bark; scars are notches, seeds sit "
        "outside; hollow marks wait for review. Hover a mark for its memory; click to open it."
        "</p>",
        rings.svg(drawn, link=memory_link, label=label),
        f'<p class="note">{text(rings.caption(drawn))}</p>',
        markup.table(["ring", "memories", "live", "waiting"], rows_, numeric=(1, 2, 3)),
    ]
    return frame(site, session, "/", "Rings", "\n".join(body))


# ---------------------------------------------------------------- memories


def _filters(query: Query) -> data.Filters:
    def choice(name: str, allowed: tuple[str, ...]) -> str | None:
        value = query.get(name) or None
        if value is not None and value not in allowed:
            raise UsageError(f"{name} {value[:40]!r} is not one of {', '.join(allowed)}")
        return value

    created_from = query.get("from") or None
    created_to = query.get("to") or None
    return data.Filters(
        ring=choice("ring", RINGS),
        trust=choice("trust", ("accepted", "pending", "disputed", "any")),
        origin=choice("origin", ORIGINS),
        scope=choice("scope", SCOPES),
        agent_profile=(query.get("agent") or None),
        created_from=parse_time(created_from, "from") if created_from else None,
        created_to=parse_time(created_to, "to") if created_to else None,
    )


def _select(name: str, values: tuple[str, ...], chosen: str | None, blank: str) -> str:
    options = [f'<option value="">{text(blank)}</option>']
    for value in values:
        selected = " selected" if value == chosen else ""
        options.append(f'<option value="{attr(value)}"{selected}>{text(value)}</option>')
    return f'<select name="{attr(name)}" id="f-{attr(name)}">{"".join(options)}</select>'


def _search_form(query: Query, f: data.Filters) -> str:
    def box(name: str, label: str, size: int = 22) -> str:
        value = attr(query.get(name, ""))
        return (
            f'<label>{label} <input name="{name}" id="f-{name}" value="{value}" '
            f'size="{size}"></label> '
        )

    return (
        '<form method="get" action="/memories" class="search">'
        f'<input type="search" name="q" id="q" value="{attr(query.get("q", ""))}" '
        'placeholder="search (recall)" size="40"> '
        f"{_select('ring', RINGS, f.ring, 'any ring')} "
        f"{_select('trust', ('accepted', 'pending', 'disputed', 'any'), f.trust, 'accepted')} "
        f"{_select('origin', ORIGINS, f.origin, 'any origin')} "
        f"{_select('scope', SCOPES, f.scope, 'any scope')} "
        '<button type="submit" id="search">Search</button><br>'
        + box("agent", "agent partition", 14)
        + box("from", "recorded from", 12)
        + box("to", "to", 12)
        + box("as_of", "as of", 20)
        + box("valid_at", "valid at", 20)
        + "</form>"
    )


def _row(m: Memory, score: str = "", linked: bool = True) -> list[str]:
    return [
        f'<a href="{attr(memory_link(m.id))}">{text(m.id)}</a>' if linked else text(m.id),
        text(m.ring),
        markup.trust_tag(m.trust),
        text(markup.clip(m.summary, 160)),
        text(f"{m.scope}" + (f" ({m.agent_profile})" if m.agent_profile else "")),
        text(m.origin),
        text(m.created_at[:19] + "Z"),
        *([score] if score else []),
    ]


def _pager(query: Query, offset: int, shown: int, total: int) -> str:
    whole = f"more than {data.COUNT_CAP:,}" if total > data.COUNT_CAP else str(total)
    parts = [f"showing {offset + 1 if shown else 0}–{offset + shown} of {whole}"]
    base = {k: v for k, v in query.items() if k != "offset" and v}
    if offset > 0:
        prev = urlencode({**base, "offset": str(max(0, offset - PAGE))})
        parts.append(f'<a href="/memories?{attr(prev)}" id="prev">newer</a>')
    if offset + shown < total or (total > data.COUNT_CAP and shown == PAGE):
        nxt = urlencode({**base, "offset": str(offset + PAGE)})
        parts.append(f'<a href="/memories?{attr(nxt)}" id="next">older</a>')
    return f'<p class="pager">{" · ".join(parts)}</p>'


def _offset(query: Query) -> int:
    raw = query.get("offset") or "0"
    if not raw.isdigit() or len(raw) > 9:
        raise UsageError("offset must be a whole number of rows")
    return int(raw)


def memories_page(site: Site, session: Session, query: Query) -> str:
    f = _filters(query)
    view = _view(session, query)
    offset = _offset(query)
    words = (query.get("q") or "").strip()
    headings = ["id", "ring", "trust", "summary", "scope", "origin", "recorded"]
    with site.opened() as project:
        if words:
            # Recall ranks the project's memories and the person's own user
            # store together, as `tree-ring recall` does; the filters it has
            # no parameter for narrow its best SEARCH_LIMIT hits, and the page
            # says so.
            wide = data.memories_view(view, f)
            hits = project.recall(words, limit=SEARCH_LIMIT, view=wide, scope=f.scope)
            kept = [h for h in hits if _passes(h.memory, f)]
            total = len(kept)
            shown = kept[offset : offset + PAGE]
            table = markup.table([*headings, "whose", "score"], [_hit(h) for h in shown])
            note = (
                f'<p class="note">Best {len(hits)} matches by recall'
                + (f", {total} of them pass the filters" if total != len(hits) else "")
                + (
                    "; “you”: a note you wrote in your user store, “… · user store”: "
                    "a row an agent or an import put there (`tree-ring show --user ID`)"
                    if any(h.store == USER for h in shown)
                    else ""
                )
                + ".</p>"
            )
            count = len(shown)
        else:
            found = project.list(
                data.memories_view(view, f),
                limit=PAGE,
                offset=offset,
                count_cap=data.COUNT_CAP,
                **f.listing(),
            )
            total, count = found.total, len(found.memories)
            table = markup.table(headings, [_row(m) for m in found.memories])
            note = ""
    body = [
        "<h1>Memories</h1>",
        _search_form(query, f),
        note,
        _pager(query, offset, count, total),
        table if count else '<p id="empty">No memories match.</p>',
    ]
    return frame(site, session, "/memories", "Memories", "\n".join(body))


def _hit(h: Found) -> list[str]:
    """A search hit's row: a user-store hit is marked as recall marks it ("you"
    where the person wrote it), and its id names a row of that store, not of
    the project, so it is not a link here."""
    mine = h.store == USER
    return [*_row(h.memory, linked=not mine), text(h.partition), f"{h.score:.3f}"]


def _passes(m: Memory, f: data.Filters) -> bool:
    checks = (
        (f.ring, m.ring),
        (f.origin, m.origin),
        (f.agent_profile, m.agent_profile),
        (f.trust if f.trust not in (None, "any") else None, m.trust),
    )
    if any(want is not None and want != have for want, have in checks):
        return False
    if f.created_from and m.created_at < f.created_from:
        return False
    return not (f.created_to and m.created_at >= f.created_to)


# ------------------------------------------------------------- one memory

TEXT_FIELDS = ("summary", "details", "source.quote", "tags")


def _flat(data_: Mapping[str, object], prefix: str = "") -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    for key, value in data_.items():
        inner = _object(value)
        if inner is not None:
            out += _flat(inner, f"{prefix}{key}.")
        else:
            out.append((f"{prefix}{key}", value))
    return out


def _object(value: object) -> dict[str, object] | None:
    """A JSON object as a typed dict, or None."""
    return cast("dict[str, object]", value) if isinstance(value, dict) else None


def _items(value: object) -> list[object] | None:
    """A JSON list as a typed list, or None."""
    return cast("list[object]", value) if isinstance(value, list) else None


def _value(key: str, value: object) -> str:
    items = _items(value)
    if key == "supersedes" and items is not None:
        return ", ".join(f'<a href="{attr(memory_link(str(v)))}">{text(v)}</a>' for v in items)
    if key == "superseded_by" and value:
        return f'<a href="{attr(memory_link(str(value)))}">{text(value)}</a>'
    if key == "links" and items is not None:
        parts: list[str] = []
        for link in items:
            found = _object(link)
            if found is not None:
                target = str(found.get("target", ""))
                kind = str(found.get("type", ""))
                parts.append(
                    f'{text(kind)} <a href="{attr(memory_link(target))}">{text(target)}</a>'
                )
        return "<br>".join(parts)
    if items is not None:
        return text(", ".join(str(v) for v in items))
    return text(value)


def memory_page(site: Site, session: Session, query: Query) -> str:
    from tree_ring.model.errors import NotFound

    memory_id = (query.get("id") or "").strip()
    if not memory_id:
        raise NotFoundPage("no memory id given")
    with site.opened() as project:
        try:
            m = project.show(memory_id)
        except NotFound as exc:
            raise NotFoundPage(str(exc)) from None
        # A note of the user store the brief gave has its history there.
        held = project.holder(m)
        db = held.db
        # Its entries' reasons and its refutation's as a read may show them.
        history = reasons.entries_shown(
            db, m.project or "", audit.entries(db, target=m.id, limit=200)
        )
        came = provenance.said_of(db, [m.id]).get(m.id)
        notes = usage.notes_of(held, m.project or "", [m.id], log=project.root)[m.id]
        judged = project.anchors([m.id]).get(m.id, [])
        # What links here is found by reading every row's links, so only on request.
        against = backlinks.linking_to(db, m.project, m.id) if query.get("linked") == "1" else []
    why_hidden = data.withheld(m)
    if why_hidden is None and m.sensitivity != "normal" and not session.show_sensitive:
        why_hidden = f"sensitive ({m.sensitivity}): shown only with “Show sensitive”"
    fields: list[str] = []
    for key, value in _flat(m.to_dict()):
        if value in (None, "", []):
            continue
        if why_hidden and key in TEXT_FIELDS:
            continue
        fields.append(f"<dt>{text(key)}</dt><dd>{_value(key, value)}</dd>")
    linked_from = [
        [
            text(link.type),
            f'<a href="{attr(memory_link(link.id))}">{text(link.id)}</a>',
            markup.trust_tag(link.trust),
        ]
        for link in against
    ]
    body = [
        f"<h1>Memory {text(m.id)}</h1>",
        f'<p class="note" id="withheld">{text(why_hidden)}</p>' if why_hidden else "",
        came_from(came, "p", "provenance"),
        *(f'<p class="note usage">{text(note)}</p>' for note in notes),
        queue.memory_actions(site, session, m),
        f'<dl class="fields" id="fields">{"".join(fields)}</dl>',
        _anchors(judged),
        f'<p><a href="/tree?{attr(urlencode({"memory": m.id}))}">Its path in the summary tree</a>'
        "</p>",
    ]
    if query.get("linked") != "1":
        more = urlencode({"id": m.id, "linked": "1"})
        body.append(f'<p><a href="/memory?{attr(more)}" id="linked">What links here</a></p>')
    elif linked_from:
        body += ["<h2>Linked from</h2>", markup.table(["link", "memory", "trust"], linked_from)]
    else:
        body.append('<p id="linked">No other memory links here.</p>')
    body += ["<h2>Audit history</h2>", _history(history)]
    return frame(site, session, "/memories", m.id, "\n".join(body))


def _anchors(judged: list[Check]) -> str:
    """The files the memory is about, each with what it is now."""
    if not judged:
        return ""
    listed = [
        [
            text(c.anchor.path),
            text(c.state if c.stale else "as anchored"),
            text(c.anchor.at[:19]),
            text(c.anchor.blob[:12]),
            text((c.anchor.commit or "")[:12]),
        ]
        for c in judged
    ]
    stale = any(c.stale for c in judged)
    return "\n".join(
        [
            '<h2 id="anchors">Files it is about</h2>',
            '<p class="note" id="stale">Stale: a file changed since it was anchored; '
            "<code>tree-ring confirm</code> re-anchors it if it still holds.</p>"
            if stale
            else "",
            markup.table(["file", "now", "anchored", "blob", "commit"], listed),
        ]
    )


def _history(entries: list[dict[str, object]]) -> str:
    if not entries:
        return "<p>No audit entries name this memory.</p>"
    listed: list[list[str]] = []
    for e in entries:
        try:
            detail = _object(json.loads(str(e["detail"]))) or {}
        except ValueError:
            detail = {}
        # Row states and tombstone keys are hashes for `audit verify`, not for reading.
        shown = [
            f"{k}: {markup.clip(v if isinstance(v, str) else json.dumps(v), 200)}"
            for k, v in detail.items()
            if k not in ("states", "tombstones")
        ]
        listed.append(
            [
                str(e["seq"]),
                text(str(e["at"])[:19] + "Z"),
                text(e["action"]),
                text(f"{e['actor']} ({e['origin']})"),
                "<br>".join(text(s) for s in shown),
            ]
        )
    return markup.table(["#", "when", "action", "by", "detail"], listed, numeric=[0])
