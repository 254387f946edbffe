"""`tree-ring report --html FILE`: the project's memory as one self-contained HTML file.

No script, one `<style>` block, the rings as inline SVG, and the same
Content-Security-Policy the viewer sends, as a meta tag. Everything in it is
read as of `now` (record time), so the same store and the same `--now` give
the same bytes: rows are ordered by time and id, averages are rounded, and
the clock is read only when `--now` is not given. The rings draw at most
`CAP` marks per ring (and say so), which keeps ten thousand memories well
under a megabyte. Tombstones are counted, never shown; recent activity is
what the audit log says was done to which id, never its detail.

A person's report covers every partition. An agent's (`reader`, its
identity) covers what its recall reads (`live.visible`): the rings, the queue
and the tombstones of the shared scopes and its own partitions, and the
activity about those rows only.
"""

from __future__ import annotations

from tree_ring.model.identity import Identity
from tree_ring.model.record import RINGS
from tree_ring.review import queue as review
from tree_ring.store import activity, forgotten
from tree_ring.store import rings as ring_counts
from tree_ring.store.live import View
from tree_ring.web import markup, rings

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.read.forgotten_here import ForgottenHere
    from tree_ring.store.db import Store

CAP = 150
ACTIVITY = 25


def build(
    store: Store,
    project: str,
    now: str,
    *,
    cap: int = CAP,
    reader: Identity | None = None,
    elsewhere: ForgottenHere | None = None,
) -> str:
    """The report's HTML for `project` as of record time `now`: of every
    partition, or of the rows `reader` (an agent's identity) may read; a mark
    whose row's content the other store forgot (`elsewhere`) without its words."""
    db = store.db
    mine = None if reader is None else reader.replace(project=project)
    view = View(as_of=now)
    drawn = ring_counts.rings(
        db, mine or Identity(project), view, cap=cap, whole_project=mine is None
    )
    if elsewhere is not None:
        drawn = elsewhere.marks(drawn)
    hidden = drawn.hidden
    queue = review.queue_size(db, project, mine)
    stones = forgotten.tombstone_counts(db, project, until=now, reader=mine)
    recent = activity.recent(db, limit=ACTIVITY, until=now, reader=mine)
    label = f"The rings of {project}'s memory as of {now}"
    body = [
        f"<h1>Tree Ring report: {markup.text(project)}</h1>",
        f'<p class="note">As of {markup.text(now)} (record time). '
        f"{markup.text(rings.counted(drawn))}"
        + (f", {hidden} sensitive not shown" if hidden else "")
        + ".</p>",
        rings.svg(drawn, label=label),
        f'<p class="note">{markup.text(rings.caption(drawn))}</p>',
        "<h2>Rings</h2>",
        _ring_table(drawn),
        "<h2>Review queue</h2>",
        f"<p>{markup.count(queue, 'memory', 'memories')} waiting for review "
        "(pending or disputed).</p>",
        "<h2>Tombstones</h2>",
        _tombstones(stones),
        "<h2>Recent activity</h2>",
        _activity(recent),
    ]
    return markup.page(f"Tree Ring report: {project}", "\n".join(body))


def _ring_table(drawn: ring_counts.Rings) -> str:
    rows_: list[list[str]] = []
    for ring in RINGS:
        c = drawn.counts[ring]
        rows_.append(
            [
                markup.text(ring),
                str(c.total),
                str(c.by_trust.get("accepted", 0)),
                str(c.by_trust.get("pending", 0)),
                str(c.by_trust.get("disputed", 0)),
                f"{c.salience:.2f}",
                f"{c.confidence:.2f}",
            ]
        )
    headings = ["ring", "memories", "live", "pending", "disputed", "salience", "confidence"]
    return markup.table(headings, rows_, numeric=range(1, 7))


def _tombstones(stones: dict[str, tuple[int, int]]) -> str:
    if not stones:
        return "<p>No content has been forgotten or rejected.</p>"
    listed = [[markup.text(kind), str(m), str(h)] for kind, (m, h) in stones.items()]
    return (
        markup.table(["kind", "memories", "content hashes"], listed, numeric=[1, 2])
        + '<p class="note">Counts only: a tombstone holds hashes of forgotten content, never '
        "its text.</p>"
    )


def _activity(recent: list[dict[str, object]]) -> str:
    if not recent:
        return "<p>The audit log is empty.</p>"
    listed = [
        [
            markup.text(str(e["at"])[:19] + "Z"),
            markup.text(e["action"]),
            markup.text(e["target"]),
            markup.text(f"{e['actor']} ({e['origin']})"),
        ]
        for e in recent
    ]
    return markup.table(["when", "action", "memory", "by"], listed)
