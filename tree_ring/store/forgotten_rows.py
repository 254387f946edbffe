"""Which rows of one store the other store's forgets hide.

A project's reads take in two stores, the project's and the person's user
store, and what either forgot stays out of both (`read/forgotten_here.py`
holds the reads' filter). The judgement is here, beside the tombstones it
reads, so that a write's checks can ask it too: a row every read hides is
not live memory that a new note could contradict (`govern/contradictions`).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from tree_ring.model.record import Memory
    from tree_ring.store.sql import Db

# Whether a store holds a forget of a project: a probe of the primary key's prefix.
ANY_SQL = "SELECT 1 FROM content_tombstones WHERE project = ? AND kind = 'forgotten' LIMIT 1"


def judge(
    db: Db,
    project: str,
    read: Db,
    memories: Sequence[Memory],
    carried: dict[str, list[str]] | None = None,
) -> tuple[set[str], set[str]]:
    """The ids among `memories` (rows of the store `read`) that `project`
    forgot in the store `db`, and those any of whose keys its tombstones
    hold (hidden or re-admitted). `carried` keeps each carried text's keys
    across the calls of one read (`carried_words.carried_keys`)."""
    from tree_ring.store import carried_words, tombstones

    # What a write of each into the store that forgot would be checked by.
    keys = {m.id: set(tombstones.check_keys(m)) for m in memories}
    # And what it carries beside its claim (a review reason, an origin
    # session, a link target), which an import there would be refused by.
    quotes = {m.id: carried_words.carried_keys(m, carried) for m in memories}
    wanted = list(
        dict.fromkeys(k for found in (keys, quotes) for own in found.values() for k in own)
    )
    stones = tombstones.held(db, project, wanted, forgets_only=True)
    quoting = {i for i, own in quotes.items() if not own.isdisjoint(stones)}
    matched = {i: own & stones for i, own in keys.items() if not own.isdisjoint(stones)}
    if not matched:
        return quoting, quoting
    from tree_ring.store import audit

    # A person who wrote a row over these tombstones decided its claim may
    # come back; not what it carries beside it.
    allowed = audit.readmissions(read, list(matched))
    hidden = quoting | {
        i for i, own in matched.items() if own - set(allowed.get(i, {}).get("overrides", ()))
    }
    return hidden, quoting | matched.keys()


def hidden_elsewhere(db: Db, memories: Sequence[Memory]) -> set[str]:
    """The ids among `memories`, rows of the store `db`, that a store `db`
    answers to forgot (`tombstones.answer_to`): hidden from every read of
    `db`. Most stores forgot nothing: one probe each says so."""
    hidden: set[str] = set()
    if not memories:
        return hidden
    for source in db.answers_to:
        other = source()
        if other is None or other[0].execute(ANY_SQL, (other[1],)).fetchone() is None:
            continue
        hidden |= judge(other[0], other[1], db, memories)[0]
    return hidden
