"""Escaping, the style sheet and the page frame every page and the report share.

Every value that reaches a page goes through `text` (or `attr`, or `line`
for a one-line field): `html.escape` with quotes, after control and format
characters are spelled out as `U+XXXX`: what the write path refuses (but a
joiner between two visible characters, which emoji sequences and Persian
and Indic words need), and private-use and unassigned characters. A
store written by hand or imported from elsewhere can hold a bidi override or
a NUL that the write path would refuse; spelled out, it can neither reorder
what a person reads nor break the SVG's XML.

The style sheet is one `<style>` block whose sha256 the Content-Security-Policy
names, so no other style and no script at all can run in a page.
"""

from __future__ import annotations

import base64
import hashlib
import html
import unicodedata

from tree_ring.model.text import cluster_end, refused, refused_at

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

_KEEP = frozenset("\n\t")


def _visible(value: str, keep: frozenset[str] = _KEEP) -> str:
    if value.isprintable() and refused_at(value) is None:  # a lone variation selector is printable
        return value
    out: list[str] = []
    for index, char in enumerate(value):
        # What a write refuses (a lone joiner or variation selector, a line
        # separator, a bidi control, the tag block), private-use and unassigned
        # characters, and a tab or newline a one-line field has no use for.
        if char not in keep and (
            char in "\t\n"
            or refused(value, index, multiline=True)
            or unicodedata.category(char) in ("Co", "Cn")
        ):
            out.append(f"U+{ord(char):04X}")
        else:
            out.append(char)
    return "".join(out)


def text(value: object) -> str:
    """`value` as HTML text (or a quoted attribute's value): nothing in it is markup."""
    return html.escape(_visible("" if value is None else str(value)), quote=True)


attr = text


def line(value: object) -> str:
    """`value` as HTML text that stays on one line: a newline or tab in it is
    spelled out too, for a field that has no business holding one (an author)."""
    return html.escape(_visible("" if value is None else str(value), frozenset()), quote=True)


def count(n: int, one: str, many: str) -> str:
    """`n` and the noun in the number it takes."""
    return f"{n} {one if n == 1 else many}"


def clip(value: str, limit: int) -> str:
    """At most `limit` characters, with an ellipsis when cut."""
    return value if len(value) <= limit else value[: cluster_end(value, limit - 1)] + "…"


STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#231a12;
background:#fbf8f2}
header{background:#3b2a1a;color:#f6ecd9;padding:.6em 1.2em;display:flex;gap:1.2em;
align-items:center;flex-wrap:wrap}
header a{color:#f6ecd9;text-decoration:none}header a.here{text-decoration:underline}
header .project{font-weight:600;margin-right:1em}
header form{margin-left:auto}
main{padding:1em 1.4em;max-width:72em}
h1{font-size:1.3em;margin:.2em 0 .6em}h2{font-size:1.1em;margin:1.2em 0 .4em}
table{border-collapse:collapse;margin:.4em 0 1em}
td,th{border-bottom:1px solid #e3d8c6;padding:.25em .6em;text-align:left;vertical-align:top}
th{background:#f1e8d8}td.num,th.num{text-align:right}
a{color:#7a3b10}
.note{color:#6d5c48}.error{color:#9c1c1c;font-weight:600}
.tag{display:inline-block;padding:0 .4em;border-radius:.3em;background:#efe3cf;font-size:.85em}
.t-pending,.t-disputed{background:#f7d9a8}.t-rejected{background:#e9b9b0}
form.inline{display:inline}
fieldset{border:1px solid #e3d8c6;margin:.4em 0}
input,select,button{font:inherit}
button{background:#f1e8d8;border:1px solid #b79f7d;border-radius:.3em;padding:.1em .6em;
cursor:pointer}
.actions{margin:.3em 0 .8em}
dl.fields{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}
dl.fields dt{font-weight:600}dl.fields dd{margin:0;white-space:pre-wrap}
pre{white-space:pre-wrap}
svg.rings{max-width:100%;height:auto}
.band-heartwood{fill:#6b3e1f}.band-inner{fill:#a0672f}.band-outer{fill:#c99a5e}
.band-cambium{fill:#dcc49a}.bark{fill:none;stroke:#3b2a1a;stroke-width:5}
.growth{fill:none;stroke:#3b2a1a;stroke-opacity:.18;stroke-width:1}
.mark{stroke:#231a12;stroke-width:.8}.mark.hollow{fill:none;stroke:#fff5dd;stroke-width:1.6}
.m-heartwood{fill:#f3dcb5}.m-inner{fill:#fff1d6}.m-outer{fill:#4a2c14}.m-cambium{fill:#2f5d2a}
.scar{stroke:#9c1c1c;stroke-width:3.5;stroke-linecap:round}
.scar.hollow{stroke-dasharray:4 3;stroke-width:2.5}
.seed{fill:#4f8a3a;stroke:#1f3b16}.seed.hollow{fill:#fbf8f2}
.legend{font-size:13px;fill:#231a12}
""".strip()


def _style_hash(style: str) -> str:
    digest = hashlib.sha256(style.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


# default-src 'none': nothing loads, no script runs; the one style block is
# named by its hash; forms post only here; no page may frame this one.
CSP = (
    f"default-src 'none'; style-src {_style_hash(STYLE)}; img-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)


def page(title: str, body: str, *, head: str = "", header: str = "") -> str:
    """A whole document: the CSP as a meta tag too (the report has no headers)."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{attr(CSP)}">'
        '<meta name="referrer" content="same-origin">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{text(title)}</title>{head}<style>{STYLE}</style></head>\n"
        f"<body>{header}<main>{body}</main></body></html>\n"
    )


def table(
    headings: Iterable[str], rows: Iterable[Iterable[str]], numeric: Iterable[int] = ()
) -> str:
    """A table of cells that are already markup (escape values before passing them)."""
    right = set(numeric)
    head = "".join(
        f'<th class="num">{h}</th>' if i in right else f"<th>{h}</th>"
        for i, h in enumerate(headings)
    )
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="num">{c}</td>' if i in right else f"<td>{c}</td>"
            for i, c in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def trust_tag(trust: str) -> str:
    return f'<span class="tag t-{attr(trust)}">{text(trust)}</span>'
