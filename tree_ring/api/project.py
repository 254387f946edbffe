"""`Project`: one project opened for a client, and the use cases it offers.

A client (the `tree-ring` command, the MCP server, the terminal UI, the web
view, the hooks) parses its input, opens a `Project` and renders what the
use case returns; it holds no SQL and assembles no use case of its own, so
every client gives the same answer on the same store. The project's store and
the person's user store are opened when a use case first needs them and closed
with the project (`with Project.open(...) as project:`).

Who acts comes from the harness and the environment, never from a caller's
argument: `Project.open` resolves the identity (the project's id, the
partition the environment names) and the actor (the origin the environment
shows, the coordinator capability from `TREE_RING_COORDINATOR_TOKEN` only). A
client that knows its caller otherwise (the MCP server, from its handshake)
passes both.

This module imports only what every client needs to build one; each use case
imports its library modules when called, so the hooks pay for what they use.
"""

from __future__ import annotations

from tree_ring.model.identity import Identity, harness_origin, resolve

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping, Sequence
    from typing import Any

    from tree_ring.api.found import Found, TreeNode
    from tree_ring.model.actor import Actor
    from tree_ring.model.anchor import Check
    from tree_ring.model.record import Memory
    from tree_ring.read.brief import Brief
    from tree_ring.read.forgotten_here import ForgottenHere
    from tree_ring.read.listing import Page
    from tree_ring.read.tree_recall import TreeHit
    from tree_ring.review.findings import Finding
    from tree_ring.review.inbox import Inbox
    from tree_ring.review.promote import Promoted
    from tree_ring.review.queue import Decision, Selection, Waiting
    from tree_ring.review.refute import Refuted
    from tree_ring.store.db import Options, Store
    from tree_ring.store.live import View
    from tree_ring.team.ledger_report import SyncReport
    from tree_ring.write.anchors import Confirmed
    from tree_ring.write.correct import Forgotten
    from tree_ring.write.pipeline import WriteResult
    from tree_ring.write.verbs import Draft


def person_actor(identity: Identity, environ: Mapping[str, str]) -> Actor:
    """Who acts for a call made in `environ`: named by its partition or its
    origin; the coordinator capability from the environment only, never a flag."""
    from tree_ring.model.actor import Actor

    origin = harness_origin(environ)
    token = environ.get("TREE_RING_COORDINATOR_TOKEN") or None
    return Actor(identity.agent_profile or origin.kind, origin, capability=token)


class Project:
    """A project's store, the person's user store, the caller's identity and actor."""

    def __init__(
        self,
        root: str,
        identity: Identity,
        actor: Actor | None = None,
        *,
        environ: Mapping[str, str],
        options: Options | None = None,
        whole_project: bool | None = None,
        create: bool = False,
        store: Store | None = None,
        around: Callable[[], Project | None] | None = None,
    ) -> None:
        """`store`: one the client has opened already (the CLI's `--user` opens the
        person's user store as the store its verbs act on); `around`: then, the
        project the call is run in, opened when a read first asks (its forgets
        hide the user store's rows there, `forgotten_elsewhere`)."""
        from tree_ring.store.db import Options

        self.root = root
        self.identity = identity
        self.environ = environ
        self._actor = actor
        self.options = options or Options.from_environ(environ)
        # A person at the terminal reads every partition; an agent what its recall sees.
        if whole_project is None:
            whole_project = not (actor.origin if actor else harness_origin(environ)).is_agent
        self.whole_project = whole_project
        self._create = create
        self._store: Store | None = store
        self._user: Store | None = None
        self._user_opened = False
        self._answering = False
        self._around = around
        self._beside: Project | None = None

    @classmethod
    def open(
        cls,
        root: str,
        environ: Mapping[str, str],
        *,
        project_id: str | None = None,
        agent_profile: str | None = None,
        workflow_id: str | None = None,
        session_id: str | None = None,
        create: bool = False,
    ) -> Project:
        """The project at `root` as the environment's caller acts on it."""
        from tree_ring.model import project

        # An agent may name only the root's own project (`identity.pinned`).
        home = None
        if not project_id or harness_origin(environ).is_agent:
            home = project.load_project_id(root)
        identity = resolve(
            project_id or home or "",
            environ,
            agent_profile=agent_profile,
            workflow_id=workflow_id,
            session_id=session_id,
            home=home,
        )
        return cls(root, identity, environ=environ, create=create)

    @property
    def actor(self) -> Actor:
        """Who acts: given, or named from the environment when a write first asks
        (a read needs none, and its module is not worth a recall's import)."""
        if self._actor is None:
            self._actor = person_actor(self.identity, self.environ)
        return self._actor

    @property
    def project_id(self) -> str:
        return self.identity.project

    @property
    def store(self) -> Store:
        """The project's store, opened on first use (created when asked: a fresh
        clone has the committed project.json but no database yet)."""
        if self._store is None:
            from tree_ring.store.db import Store

            self._store = Store.open(self.root, create=self._create, options=self.options)
        return self._store

    def store_to_write(self) -> Store:
        """The project's store for a write: one that refuses what the person
        forgot in their user store as well as what the project forgot (the
        brief reads both, so what either forgot stays out of both). A store
        belongs to one project: a write naming another (a person's read may)
        is refused, since its rows would answer to none of the store's
        tombstones."""
        store = self.store
        if not self._answering:
            from tree_ring.model.errors import UsageError
            from tree_ring.store import settings, user

            own = settings.recorded_project(store.db)
            if own is not None and own != self.project_id:
                raise UsageError(
                    f"this store belongs to project {own}, not {self.project_id}; "
                    f"write {self.project_id}'s memories in its own folder"
                )

            if self.project_id != user.USER_PROJECT:
                # The user store's own tombstones are its own: read through a
                # second connection, they would miss what this write's
                # transaction did (a copy it forgot would still hold the claim).
                user.answers_to_user(store.db, self.user_store)
            self._answering = True
        return store

    def user_store(self) -> Store | None:
        """The person's user store for a read, or None when there is none."""
        if not self._user_opened:
            from tree_ring.store import user

            self._user = user.open_user(self.environ)
            self._user_opened = True
        return self._user

    def forgotten_elsewhere(self) -> ForgottenHere | None:
        """What the other store this project's reads take in forgot, as a
        filter of this store's rows (`read/forgotten_here.py`): the person's
        user store's forgets for a project's store; for the user store read
        from inside a project (`around`), that project's. None when it forgot
        nothing: one probe, and nothing more is loaded."""
        from tree_ring.read import forgotten_here
        from tree_ring.store.user import USER_PROJECT

        # Asked again at each read: a store open for long (the terminal UI's,
        # the MCP server's) sees a forget made since.
        if self.project_id != USER_PROJECT:
            mine = self.user_store()
            return None if mine is None else forgotten_here.of(mine, USER_PROJECT, self.store)
        if self._beside is None and self._around is not None:
            self._beside = self._around()
            self._around = None  # located once: outside a project there is none
        beside = self._beside
        return (
            None
            if beside is None
            else forgotten_here.of(beside.store, beside.project_id, self.store)
        )

    def close(self) -> None:
        for opened in (self._store, self._user):
            if opened is not None:
                opened.close()
        if self._beside is not None:
            self._beside.close()
        self._store = self._user = self._beside = None
        self._user_opened = self._answering = False

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------- reads

    def recall(
        self,
        query: str,
        *,
        limit: int,
        view: View | None = None,
        scope: str | None = None,
        whole_project: bool | None = None,
    ) -> list[Found]:
        """The best `limit` memories of the project and of the person's own store
        together, best first (`api/found.py`)."""
        from tree_ring.api import found

        whole = self.whole_project if whole_project is None else whole_project
        return found.recall(
            self.store,
            self.identity,
            self.user_store(),
            query,
            limit=limit,
            view=view,
            scope=scope,
            whole_project=whole,
        )

    def recall_tree(self, query: str, *, limit: int) -> list[TreeHit]:
        """The summary nodes that answer `query` best, as the tree is now; a
        node holding what the person forgot in their user store is left out,
        as the rows it summarises are, before the limit (`api/found.py`)."""
        from tree_ring.api import found

        return found.recall_tree(self.store, self.project_id, self.user_store(), query, limit)

    def brief(
        self,
        view: View | None = None,
        *,
        strict: bool = False,
        note: Callable[[str], None] | None = None,
    ) -> Brief:
        """The brief as a session is given it, the person's own lines too. A damaged
        user store costs its lines and one `note` (a line on stderr by default),
        never the project's brief; `strict` (a person's command): it is an error."""
        from tree_ring.read import brief

        if strict:
            return brief.build_brief(self.store, self.identity, view, user_store=self.user_store())
        return brief.brief_with_mine(
            self.store, self.identity, self.environ, self.options, note or _quiet, view=view
        )

    def list(self, view: View, **filters: Any) -> Page:
        """A page of the memories the caller may list (`read/listing.list_page`),
        without those whose content the other store forgot, before the page is cut."""
        from tree_ring.read import listing

        return listing.list_page(
            self.store,
            self.identity,
            view,
            whole_project=self.whole_project,
            forgotten=self.forgotten_elsewhere(),
            **filters,
        )

    def show(self, memory_id: str) -> Memory:
        """One memory the caller may see, whatever its state; NotFound otherwise,
        as for a row whose content the other store forgot (`forgotten_elsewhere`):
        such a row is gone as a deleted one is. Its review reason as a read may
        show it: a quote of content forgotten since is withheld
        (`govern/reasons.shown`)."""
        from tree_ring.govern import reasons
        from tree_ring.read import listing

        db = self.store.db
        memory = listing.show(db, self.identity, memory_id, whole_project=self.whole_project)
        forgotten = self.forgotten_elsewhere()
        if forgotten is not None and forgotten.hidden([memory]):
            from tree_ring.store import rows

            raise rows.not_found(memory_id)
        return reasons.memory_shown(db, memory)

    def export(self, view: View, left_out: list[str] | None = None) -> Iterator[dict[str, Any]]:
        """The rows an export writes, then the store's tombstones
        (`transfer.export_rows`): a person's of every partition, an agent's
        of what its recall reads; without the rows whose content the other
        store forgot, as every read of the project leaves them out, nor those
        a hand edit damaged, whose ids go to `left_out`."""
        from tree_ring.transfer.jsonl import export_rows

        return export_rows(
            self.store,
            self.project_id,
            view,
            agent=self.reader,
            forgotten=self.forgotten_elsewhere(),
            left_out=left_out,
        )

    def tree_node(self, node_id: str | None = None) -> TreeNode:
        """A summary node of the project's tree (the root when `node_id` is
        None) and what it was sealed over, as `tree show` and the web view's
        tree page show them: a node quoting what the person forgot in their
        user store is hidden as a forgotten row is, and so are its children
        that do (`api/found.tree_node`)."""
        from tree_ring.api import found

        return found.tree_node(self.store, self.identity, self.forgotten_elsewhere(), node_id)

    def anchors(self, ids: Sequence[str], view: View | None = None) -> dict[str, list[Check]]:
        """Each of `ids` (the project's memories) that names files, with what each
        file is now in this checkout (`read/staleness`); nothing for a view of the
        past, whose files are not the ones on disk."""
        if view is not None and not view.is_now():
            return {}
        from tree_ring.read import staleness

        return staleness.judge(self.store, ids)

    def stale(self) -> list[tuple[Memory, list[Check]]]:
        """The project's memories on record whose anchored files changed or went,
        each with those files (`tree-ring stale`): an agent's, of the rows its
        recall reads; a row whose content the other store forgot is left out,
        as `list` leaves it out."""
        from tree_ring.read import staleness

        found = staleness.project_stale(self.store, self.project_id, self.reader)
        forgotten = self.forgotten_elsewhere()
        if forgotten is None or not found:
            return found
        gone = forgotten.hidden([memory for memory, _ in found])
        return [(memory, changed) for memory, changed in found if memory.id not in gone]

    def findings(self, kind: str = "all", *, stale_days: int | None = None) -> list[Finding]:
        """What in the store needs a person (`tree-ring audit findings`): an
        agent's, about the rows its recall reads. A row whose content the
        other store forgot is named with its words withheld, as the review
        queue names it (`review/findings.py`)."""
        from tree_ring.review import findings

        days = findings.STALE_DAYS if stale_days is None else stale_days
        return findings.report(
            self.store.db,
            self.project_id,
            kind,
            stale_days=days,
            reader=self.reader,
            forgotten=self.forgotten_elsewhere(),
        )

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

    def audit_log(
        self, *, limit: int = 100, target: str | None = None
    ) -> tuple[list[dict[str, Any]], int]:
        """The audit log's newest entries (about `target` when given) and how many
        there are. The whole log is a person's record: its entries name every
        partition's rows and carry their reasons, so an agent reads only the
        entries about one memory its recall may read."""
        from tree_ring.govern import reasons
        from tree_ring.model.errors import UsageError
        from tree_ring.store import audit

        if self.reader is not None:
            if target is None:
                raise UsageError(
                    "the audit log is a person's record of every partition; an agent "
                    "reads one memory's entries: `tree-ring audit log --target ID`"
                )
            self.show(target)  # NotFound unless the agent may see it
        found = audit.entries(self.store.db, limit=limit, target=target)
        # Each entry's reason as a read may show it; the log itself keeps its bytes.
        found = reasons.entries_shown(self.store.db, self.project_id, found)
        return found, audit.count(self.store.db, target=target)

    @property
    def reader(self) -> Identity | None:
        """Whose partitions a whole-store read keeps to: none for a person, who
        reads every partition; the agent's identity, as its recall (`live.visible`)."""
        return None if self.whole_project else self.identity

    def status(self) -> dict[str, Any]:
        """What `status` reports, the same for every client (`api/status.py`)."""
        from tree_ring.api import status

        return status.status(
            self.store,
            self.root,
            self.project_id,
            self.environ,
            self.user_store,
            self.forgotten_elsewhere(),
        )

    # ------------------------------------------------------------- writes

    def remember(self, draft: Draft) -> WriteResult:
        """Store one memory, anchored to the files `draft.files` names; a global
        one goes to the person's user store (and names no files)."""
        from tree_ring.write import verbs

        verbs.check_draft(draft)
        if draft.scope == "global":
            target, identity = self.global_target()
            with target:
                return verbs.remember(target, draft, identity, self.actor)
        return verbs.remember(self.store_to_write(), draft, self.identity, self.actor)

    def remember_over_tombstone(self, draft: Draft, reason: str | None) -> WriteResult:
        """`remember --override-tombstone` (a person's): `draft` written over
        the tombstones that refuse it (`write/readmit.py`). A project memory
        answers to this store's and the team ledger's, its history's too (a
        forget only the history holds never reached this store, and refuses
        the memory in every new clone); a global one to the user store's and
        this project's, and its reason may quote neither's forgets (this
        project's reads show it)."""
        from tree_ring.write import readmit, verbs

        verbs.check_draft(draft)
        if draft.scope == "global":
            target, identity = self.global_target()
            around = (self.store.db, self.project_id)
            with target:
                memory = verbs.compose(draft, identity, self.actor)
                return readmit.remember_over_tombstone(
                    target, memory, self.actor, reason, around=around
                )
        memory = verbs.compose(draft, self.identity, self.actor)
        return readmit.remember_over_tombstone(
            self.store_to_write(), memory, self.actor, reason, self._ledger_refusals()
        )

    def readmit(self, memory_id: str, reason: str | None) -> WriteResult:
        """`review readmit ID` (a person's): a memory this store keeps,
        re-admitted as it stands over the tombstones its words match
        (`write/readmit.readmit_kept`): this store's and the team ledger's.
        The user store has no ledger; read from inside a project, it answers
        to that project's tombstones, as a global write made there does, and
        the reason may not quote what the project forgot."""
        from tree_ring.store import tombstones
        from tree_ring.store.user import USER_PROJECT
        from tree_ring.write import readmit

        target = self.store_to_write()
        if self.project_id != USER_PROJECT:
            return readmit.readmit_kept(
                target, memory_id, self.actor, reason, self._ledger_refusals()
            )
        forgotten = self.forgotten_elsewhere()
        around = None if forgotten is None else (forgotten.db, forgotten.project)
        if around is not None:
            tombstones.answer_to(target.db, lambda: around)
        return readmit.readmit_kept(target, memory_id, self.actor, reason, around=around)

    def _ledger_refusals(self) -> list[dict[str, str]]:
        """The team ledger's tombstones, its history's too, read before a
        re-admission's write begins (`team/ledger_check.refusals`)."""
        from pathlib import Path

        from tree_ring.team import ledger_check

        return ledger_check.refusals(Path(self.root))

    def global_target(self) -> tuple[Store, Identity]:
        """The user store and the caller's identity in it, for global memory.

        A person's first global write creates the store; an agent's never does
        (its global writes wait for a person there, so there must be one first).
        A write into it refuses what this project forgot as well as what the
        user store forgot: this project's brief would show it.
        """
        from tree_ring.model.errors import NoStore
        from tree_ring.store import user

        opened = user.open_user(self.environ, create=not self.actor.origin.is_agent)
        if opened is None:
            raise NoStore(
                f"no user store at {user.user_store_path(self.environ)}; {user.FIX} "
                "before an agent can propose global memory"
            )
        user.answers_to_project(opened.db, self.store, self.project_id)
        return opened, user.user_identity(self.identity)

    def capture(self, draft: Draft) -> WriteResult:
        """What the stop checkpoint may store, anchored to `draft.files`, else to
        the files the session's turn changed."""
        from tree_ring.write import verbs

        return verbs.capture(self.store_to_write(), draft, self.identity, self.actor)

    def forget(
        self, memory_id: str, *, mode: str, reason: str, copies_in: Project | None = None
    ) -> Forgotten:
        """Forget a memory the caller can see: done, or a request for a person.

        `copies_in`: for a forget in the person's user store, the project it is
        run in, where the copies agents wrote of the note go with it when a
        person's forget tombstones it (`correct.forget_copies`). Other
        projects' copies stay in their stores, hidden from their reads by the
        user store's tombstones (`read/forgotten_here.py`)."""
        from dataclasses import replace

        from tree_ring.store import rows
        from tree_ring.write import correct

        held = rows.get(self.store.db, memory_id)
        # An agent's caller reaches no other project's row, its own partition there included.
        if not self.whole_project and held.project != self.project_id:
            raise rows.not_found(memory_id)
        # A write: what the person's own notes hold stays writable (`holders.unheld`).
        done = correct.forget(
            self.store_to_write(),
            memory_id,
            mode=mode,
            reason=reason,
            actor=self.actor,
            reader=self.identity,
        )
        # Only what binds everyone takes other rows: not a request, nor an
        # agent's withdrawal, nor a forget that left the content writable.
        if copies_in is None or done.request or done.withdrawn or not done.tombstoned:
            return done
        copies, lingering = correct.forget_copies(
            copies_in.store_to_write(),
            held,
            copies_in.project_id,
            mode=mode,
            reason=reason,
            actor=self.actor,
        )
        return replace(
            done,
            copies_in=copies_in.project_id,
            copies=tuple(copies),
            lingering=done.lingering or lingering,
        )

    def refute(self, memory_id: str, *, reason: str) -> Refuted:
        """Say a memory proved wrong: an agent's refutation disputes it and waits
        for a person; a person's retires it."""
        from tree_ring.review import refute

        return refute.refute(
            self.store, memory_id, reason=reason, actor=self.actor, reader=self.identity
        )

    def confirm(self, memory_id: str, *, reason: str | None = None) -> Confirmed:
        """Say a memory still holds of its files: a person's confirm re-anchors it
        to them as they are now; an agent's waits for a person (a request)."""
        from tree_ring.store import rows
        from tree_ring.write import anchors

        # As with forget: an agent's caller reaches no other project's row.
        if not self.whole_project and rows.get(self.store.db, memory_id).project != self.project_id:
            raise rows.not_found(memory_id)
        return anchors.confirm(self.store, memory_id, actor=self.actor, reason=reason)

    def note_usage(self, event: str, ids: Sequence[str], size: int) -> str | None:
        """What a read put into an agent's context, in the usage log (ids and size,
        never text): None when written, else why not, for one line on stderr."""
        from tree_ring.store import usage_log

        # The origin, not the actor: a read has no need of the audit's module.
        origin = self._actor.origin if self._actor else harness_origin(self.environ)
        return usage_log.record(
            self.root, event, harness=origin.kind, session=origin.session, ids=ids, size=size
        )

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

    def sync(self, *, progress: Any = None) -> SyncReport:
        """The team ledger into the store and the store's shared rows into the ledger."""
        from pathlib import Path

        from tree_ring.team import sync

        return sync.sync(
            self.store, Path(self.root), self.project_id, self.actor, progress=progress
        )


def _quiet(message: str) -> None:
    import sys

    sys.stderr.write(f"tree-ring: {message}\n")
