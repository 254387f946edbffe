"""A person's decisions on what agents and others wrote, as the front offers them.

The inbox and what is kept or seen of it, the review queue and its
decisions, promotion, refutation, confirmation and supersession: each a use
case of `Decisions`, which `Project` (`api/project.py`) takes in, so that no
client (the CLI, the terminal UI, the web view, the MCP server) assembles
one of its own.
"""

from __future__ import annotations

from tree_ring.api.opened import Opened

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from tree_ring.review.inbox import Inbox
    from tree_ring.review.promote import Promoted
    from tree_ring.review.queue import Decision, Selection, Waiting
    from tree_ring.review.refute import Refuted
    from tree_ring.review.settle import Settled
    from tree_ring.write.anchors import Confirmed


class Decisions(Opened):
    """What a person decides of the project's memories (an agent's call of
    each asks a person, or is refused, as each use case says)."""

    def inbox(self, *, limit: int = 50, **filters: Any) -> Inbox:
        """What agents saved that the person has not seen (`review/inbox.unseen`,
        whose `filters` are origin, session_id, since, agent_profile and
        include_sensitive), without the rows whose content the other store
        forgot, left out before the limit as `list` leaves them out."""
        from tree_ring.review import inbox

        inbox.refuse_agent(self.actor)
        return inbox.unseen(
            self.store,
            self.project_id,
            limit=limit,
            forgotten=self.forgotten_elsewhere(),
            **filters,
        )

    def user_waiting(self) -> int:
        """How many rows and requests wait for the person in their user store
        (an agent's global proposal, a note an agent refuted, an agent's
        request to forget a note: `review list --user` lists them): 0 when
        there is none, or it cannot be read (`status` names a damaged one)."""
        from tree_ring.model.errors import TreeRingError
        from tree_ring.review import queue
        from tree_ring.store.user import USER_PROJECT

        try:
            mine = self.user_store()
            if mine is None:
                return 0
            rows = queue.queue_size(mine.db, USER_PROJECT)
            return rows + queue.requests_waiting(mine.db, USER_PROJECT)
        except TreeRingError:
            return 0

    def review_queue(self) -> list[Waiting]:
        """The rows waiting for a decision, oldest first (`review/queue.queue`:
        an agent's of those its recall reads), each with what it contradicts;
        the words of a row the other store forgot withheld."""
        from tree_ring.review import queue

        return queue.queue(self.store.db, self.project_id, self.reader, self.forgotten_elsewhere())

    def review(
        self, decision: str, memory_id: str, *, reason: str, supersede: bool = False
    ) -> Decision:
        """A reviewer's decision on a waiting row or request: approve (`supersede`:
        retiring what it contradicts), reject, dispute. Each is a write, into the
        store that answers to the user store too (`store_to_write`): a rejection
        keeps writable what the person's own notes hold, as a forget does."""
        from tree_ring.review import queue
        from tree_ring.write import requests

        # An agent's caller reaches no row its recall does not read: such an
        # id answers as an unknown one, whatever its decision would say.
        if not requests.is_request_id(memory_id):
            self.reached(memory_id)
        store = self.store_to_write()
        if decision == "approve":
            return queue.approve(
                store, memory_id, actor=self.actor, reason=reason, supersede=supersede
            )
        if decision not in ("reject", "dispute"):
            raise ValueError(f"unknown review decision {decision!r}")
        decide = queue.reject if decision == "reject" else queue.dispute
        return decide(store, memory_id, actor=self.actor, reason=reason)

    def approve_all(
        self, selection: Selection, *, reason: str | None, dry_run: bool = False
    ) -> list[Decision]:
        """A person's approval of every waiting row `selection` names, in one
        transaction, into the store `review` writes to: a row over what either
        store forgot refuses the whole batch, named, as it refuses its own
        approval; a dry run names it, as a decision to refuse."""
        from tree_ring.review import queue

        return queue.approve_all(
            self.store_to_write(),
            self.project_id,
            selection,
            actor=self.actor,
            reason=reason,
            dry_run=dry_run,
        )

    def promote(
        self, ids: Sequence[str], *, reason: str, scope: str = "project", ring: str | None = None
    ) -> list[Promoted]:
        """A person's promotion of partition memories to the project, or to their
        user store (`scope="global"`, which a person's promote may create)."""
        from tree_ring.review import promote
        from tree_ring.store import user

        for memory_id in ids:
            self.reached(memory_id)  # another partition's is no memory to an agent
        if scope != "global":
            return promote.promote_many(
                self.store_to_write(), list(ids), actor=self.actor, reason=reason, scope=scope,
                ring=ring,
            )  # fmt: skip
        # An agent's global promote is refused before the user store could be made.
        target = user.open_user(self.environ, create=not self.actor.origin.is_agent)
        try:
            return promote.promote_many(
                self.store,
                list(ids),
                actor=self.actor,
                reason=reason,
                scope=scope,
                ring=ring,
                user_store=target,
            )
        finally:
            if target is not None:
                target.close()

    def refute(self, memory_id: str, *, reason: str, include_sensitive: bool = False) -> Refuted:
        """Say a memory proved wrong: an agent's refutation disputes it and waits
        for a person; a person's retires it. A note of the person's user store
        that the project's brief or recall gave (`held_beside`) is refuted
        there, as the same caller's: an agent's disputes it, and it waits in
        that store's review queue (`tree-ring review list --user`), its
        `[you]` line marked in every project's brief until the person decides;
        its reason answers to this project's forgets as well as the user
        store's, as a global write made here does (`global_target`). An
        agent refutes only what its reads show it: a sensitive row only when
        it asked to see sensitive rows (`include_sensitive`; never over MCP)."""
        from tree_ring.review import refute

        mine = self.held_beside(memory_id)
        # NotFound unless the caller's reads show it (the project's, for a user-store note).
        memory = self.reached(memory_id) if mine is None else self.reached_beside(mine, memory_id)
        if self.actor.origin.is_agent and not include_sensitive:
            from tree_ring.model.errors import UsageError
            from tree_ring.read import withheld
            from tree_ring.store.live import View

            if withheld.hidden(memory, View()):
                raise UsageError(
                    f"{memory.id} is marked {memory.sensitivity}, which agents are shown only "
                    "when they ask (`--include-sensitive`, a command's ask; none over MCP); a "
                    f"person can refute it: `tree-ring refute {memory.id} --reason WHY`"
                )
        if mine is None:
            return refute.refute(
                self.store, memory_id, reason=reason, actor=self.actor, reader=self.identity
            )
        target, identity = self.global_target()
        with target:
            done = refute.refute(
                target, memory_id, reason=reason, actor=self.actor, reader=identity
            )
        return done.replace(user_store=True)

    def confirm(self, memory_id: str, *, reason: str | None = None) -> Confirmed:
        """Say a memory still holds of its files: a person's confirm re-anchors it
        to them as they are now; an agent's waits for a person (a request)."""
        from tree_ring.write import anchors

        self.reached(memory_id)
        return anchors.confirm(self.store, memory_id, actor=self.actor, reason=reason)

    def keep(self, ids: Sequence[str]) -> int:
        """`inbox --keep`: the rows stay in their partitions and are seen;
        nothing else changes. An unknown id refuses the whole call."""
        from tree_ring.review import inbox

        return inbox.keep(self.store, self.project_id, ids, self.actor)

    def mark_seen(self, ids: Sequence[str]) -> None:
        """The person has now seen these rows in the inbox."""
        from tree_ring.review import inbox

        inbox.refuse_agent(self.actor)
        inbox.mark_seen(self.store, self.project_id, ids)

    def supersede(self, old_id: str, new_id: str, *, reason: str) -> Settled:
        """`supersede OLD NEW`: OLD retired and NEW named its replacement, or
        waiting for NEW's review; a person's on a pair a contradiction links
        approves NEW in the same step (`review/settle.py`). The approval is a
        write, into the store that answers to the user store too
        (`store_to_write`), as `review` writes; an agent's caller reaches no
        other project's row."""
        from tree_ring.review import settle

        self.reached(old_id)
        self.reached(new_id)
        return settle.supersede(
            self.store_to_write(), old_id, new_id, reason=reason, actor=self.actor
        )
