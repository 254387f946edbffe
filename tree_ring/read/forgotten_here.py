"""What either store forgot stays out of what a project reads from the other.

A project's brief and recall read two stores, the project's and the person's
user store, so what either forgot stays out of both. Writes answer to both
stores' tombstones (`store/user.py`), but rows written before a forget in the
other store are still there:

- A global write made in another project answered only to that project's
  tombstones and the user store's: a global note can hold what this project
  forgot. `of(project's store, project, user store)` hides it here.
- A person's `forget ID --user` tombstones a global note in the user store
  and takes the copies agents wrote of it in the project it was run in
  (`write/correct.forget_copies`); but copies in other projects, and a
  person's own project rows, stay in their stores. `of(user store,
  USER_PROJECT, project's store)` hides them from this project's reads.

Either way a row of the store read is hidden when its claims
(`tombstones.check_keys`) match what the other store forgot, but for the keys
a person wrote it over (`remember --override-tombstone`, recorded in the
audit log of the row's own store), or when a field it carries beside them
(a review reason, an origin session, a link target:
`carried_words.carried_keys`) quotes it, as an import there would refuse the
row for. Only a forget crosses stores, not a
review's rejection: rejecting a waiting note says it does not belong in that
store, not that its content is gone, so an agent that proposes a person's
memory to the other store cannot get it hidden by the answer (a person's
writes answer by the same rule: `tombstones.matching`). The store that
forgot nothing of it still reads it.

The filter runs before each read's cap, so hidden rows never take the place
of the rows after them: the brief reads rows in its order until enough are
kept (`read/brief.select`), and recall searches again with the rows hidden
so far left out until its best are all kept (`recall`).

Most stores have forgotten nothing: one probe of the tombstones' primary key
says so, and then nothing more is loaded or read (the SessionStart hook keeps
its own copy of the probe, `read/brief.py`). Otherwise each batch of
candidates costs one indexed lookup of their keys, and the keys' module is
loaded then.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

    from tree_ring.model.identity import Identity
    from tree_ring.model.record import Memory
    from tree_ring.read.brief_checks import Forgets
    from tree_ring.read.recall import Hit, Scale
    from tree_ring.store.db import Store
    from tree_ring.store.live import View
    from tree_ring.store.rings import Rings
    from tree_ring.store.sql import Db

# The most a recall asks for (`read/recall.recall` caps its limit there).
MOST = 256


class ForgottenHere:
    """The tombstones of `project` in the store `db`, as a filter of the rows
    read from the other store `read` (whose audit log holds their re-admissions)."""

    def __init__(self, db: Db, project: str, read: Db, kept: Forgets | None = None) -> None:
        self.db = db
        self.project = project
        self.read = read
        # The keys of each carried text read so far (`carried_words.carried_keys`).
        self.carried: dict[str, list[str]] = {}
        # The answers a brief kept about rows as they are (`read/brief_checks.py`).
        self.kept = kept

    def hidden(self, memories: Sequence[Memory]) -> set[str]:
        """The ids among `memories` that `project` forgot: those a brief
        kept an answer about, as it answered (`kept`); of the rest, one
        lookup of all their keys, and one of the re-admissions of those that match."""
        if self.kept is None:
            return self.judge(memories)[0]
        from tree_ring.read.brief_checks import hidden_by

        return hidden_by(self.kept, memories, self.judge)

    def judge(self, memories: Sequence[Memory]) -> tuple[set[str], set[str]]:
        """The ids among `memories` that `project` forgot, and those any of
        whose keys its tombstones hold (hidden or re-admitted)."""
        from tree_ring.store.forgotten_rows import judge

        return judge(self.db, self.project, self.read, memories, self.carried)

    def hidden_ids(self, db: Db, ids: Collection[str]) -> set[str]:
        """Of `ids`, rows of the store `db` (the one read), those `hidden`
        names."""
        if not ids:
            return set()
        from tree_ring.store import rows

        return self.hidden(list(rows.by_ids(db, ids).values()))

    def marks(self, drawn: Rings) -> Rings:
        """The rings picture with the words of each mark whose row the store
        forgot withheld (`read/withheld.forgotten`'s marker in its tooltip):
        the mark stays, as its row is still counted in its ring, so no count
        or cap changes, and the picture says nothing of what was forgotten."""
        from dataclasses import replace

        from tree_ring.govern.reasons import FORGOTTEN
        from tree_ring.store import rows

        ids = [mark.id for marks in drawn.marks.values() for mark in marks]
        gone = self.hidden(list(rows.by_ids(self.read, ids).values())) if ids else set[str]()
        if not gone:
            return drawn
        marks = {
            ring: [replace(m, summary=FORGOTTEN) if m.id in gone else m for m in shown]
            for ring, shown in drawn.marks.items()
        }
        return replace(drawn, marks=marks)

    def quoted_in(self, text: str) -> bool:
        """Whether `text` (a summary node's, an entry a line for each row it
        summarises) holds what the store forgot, each entry checked as a write
        of it would be: a node is hidden as its rows are."""
        key = None
        if self.kept is not None:
            from tree_ring.store.guard_answers import key_of

            # As a row's answer is kept: by the text's hash (`read/brief_checks.py`).
            key = key_of("summary node\n" + text)
            known = self.kept.known(key)
            if known is not None:
                return known
        from tree_ring.store import tombstones

        entries = [line for line in text.splitlines() if line.strip()]
        quoted = tombstones.quoted(self.db, self.project, entries, forgets_only=True)
        if key is not None and self.kept is not None:
            self.kept.found(key, held=quoted, hidden=quoted)
        return quoted


def of(store: Store, project: str, read: Store) -> ForgottenHere | None:
    """What `project` forgot in `store`, as a filter of the rows read from
    `read`; None when it forgot nothing (nothing to hide)."""
    from tree_ring.store.forgotten_rows import ANY_SQL

    if store.db.execute(ANY_SQL, (project,)).fetchone() is None:
        return None
    return ForgottenHere(store.db, project, read.db)


def recall(
    store: Store,
    reader: Identity,
    query: str,
    *,
    limit: int,
    view: View | None,
    forgotten: ForgottenHere | None,
    scope: str | None = None,
    whole_project: bool = False,
    outer: Scale | None = None,
) -> tuple[list[Hit], Scale]:
    """The best `limit` hits in `store` that the other store did not forget
    (`forgotten`; None: it forgot nothing, and one search is the answer),
    and the store's own scale (`recall.ranked`: meaning read against `outer` too).

    Each round leaves out every row hidden so far and asks for more than the
    last, so hundreds of hidden rows ranked first cost a few rounds, not one
    per row; a round that hides nothing is the answer."""
    from tree_ring.read.recall import ranked

    hidden: set[str] = set()
    wanted = limit
    while True:
        hits, scale = ranked(
            store,
            reader,
            query,
            limit=wanted,
            view=view,
            scope=scope,
            whole_project=whole_project,
            hidden=hidden,
            outer=outer,
        )
        if forgotten is None:
            return hits, scale
        newly = forgotten.hidden([h.memory for h in hits]) - hidden
        if not newly:
            return [h for h in hits if h.memory.id not in hidden][:limit], scale
        hidden |= newly
        wanted = min(MOST, max(wanted, limit + 2 * len(hidden)))
