"""`Opened`: a project opened for a client, before any use case: who acts, and its stores.

A client (the `tree-ring` command, the MCP server, the terminal UI, the web
view, the hooks) opens a `Project` (`api/project.py`), which is this with
the use cases on top (`api/decisions.py` holds a person's decisions). The
project's store and the person's user store are opened when a use case
first needs them and closed with the project (`with Project.open(...) as
project:`).

Who acts comes from the harness and the environment, never from a caller's
argument: `open` resolves the identity (the project's id, the partition the
environment names) and the actor (the origin the environment shows, the
coordinator capability from `TREE_RING_COORDINATOR_TOKEN` only). A client
that knows its caller otherwise (the MCP server, from its handshake) passes
both.

This module imports only what every client needs to build one; each use case
imports its library modules when called, so the hooks pay for what they use.
"""

from __future__ import annotations

from tree_ring.model.identity import Identity, harness_origin, resolve

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Self

    from tree_ring.model.actor import Actor
    from tree_ring.model.errors import UsageError
    from tree_ring.model.record import Memory
    from tree_ring.read.forgotten_here import ForgottenHere
    from tree_ring.store.db import Options, Store
    from tree_ring.store.sql import Db


def person_actor(identity: Identity, environ: Mapping[str, str]) -> Actor:
    """Who acts for a call made in `environ`: named by its partition or its
    origin; the coordinator capability from the environment only, never a flag."""
    from tree_ring.model.actor import Actor

    origin = harness_origin(environ)
    token = environ.get("TREE_RING_COORDINATOR_TOKEN") or None
    return Actor(identity.agent_profile or origin.kind, origin, capability=token)


class Opened:
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
        around: Callable[[], Opened | None] | None = None,
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
        self._beside: Opened | None = None

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
    ) -> Self:
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
            from tree_ring.model.user_home import USER_PROJECT
            from tree_ring.store.db import Store

            self._store = Store.open(self.root, create=self._create, options=self.options)
            if self.project_id != USER_PROJECT:
                self._store.db.beside = self._user_beside  # its ids are taken here too
        return self._store

    def _user_beside(self) -> tuple[Db, str] | None:
        """The person's user store, as the store read beside the project's
        (`store/beside.py`); None when there is none, or when it cannot be
        read: a damaged one costs the brief its `[you]` lines and is named
        where they are read, never the team ledger's import."""
        from tree_ring.model.errors import TreeRingError
        from tree_ring.model.user_home import USER_PROJECT

        try:
            mine = self.user_store()
        except TreeRingError:
            return None
        return None if mine is None else (mine.db, USER_PROJECT)

    @property
    def reader(self) -> Identity | None:
        """Whose partitions a whole-store read keeps to: none for a person, who
        reads every partition; the agent's identity, as its recall (`live.visible`)."""
        return None if self.whole_project else self.identity

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
        """The person's user store for a read beside the project's, or None
        when there is none, or when this is the user store itself (`--user`)."""
        if not self._user_opened:
            from tree_ring.store import user

            beside = self.project_id != user.USER_PROJECT
            self._user = user.open_user(self.environ) if beside else None
            self._user_opened = True
        return self._user

    def global_target(self) -> tuple[Store, Identity]:
        """The user store and the caller's identity in it, for global memory.

        A person's first global write creates the store; an agent's never does
        (its global writes wait for a person there, so there must be one first).
        A write into it refuses what this project forgot as well as what the
        user store forgot: this project's brief would show it. Run on the user
        store itself (a person's global write outside any project), there is
        no project to answer to.
        """
        from tree_ring.model.errors import NoStore
        from tree_ring.store import user

        opened = user.open_user(self.environ, create=not self.actor.origin.is_agent)
        if opened is None:
            raise NoStore(
                f"no user store at {user.user_store_path(self.environ)}; {user.FIX} "
                "before an agent can propose global memory"
            )
        if self.project_id != user.USER_PROJECT:
            user.answers_to_project(opened.db, self.store, self.project_id)
        return opened, user.user_identity(self.identity)

    def also_in_user_store(self, memory_id: str) -> bool:
        """Whether the person's user store holds a row under `memory_id` too:
        a project row promoted there (`promote --scope global` retires it here)."""
        from tree_ring.model.errors import TreeRingError
        from tree_ring.store import rows
        from tree_ring.store.user import USER_PROJECT

        if self.project_id == USER_PROJECT:
            return False
        try:
            mine = self.user_store()
        except TreeRingError:
            return False
        return mine is not None and rows.find(mine.db, memory_id) is not None

    def held_beside(self, memory_id: str) -> Store | None:
        """The person's user store, when `memory_id` names no row of this
        project's store but one of the user store's: a project's brief and
        recall show the person's notes beside its own rows, with their ids,
        so a read or a refutation by id finds them there, as that caller's
        recall reads them (`beside_identity`). None otherwise: the id is the
        project's or unknown, or this is the user store itself (`--user`)."""
        from tree_ring.store import rows
        from tree_ring.store.user import USER_PROJECT

        if self.project_id == USER_PROJECT or rows.find(self.store.db, memory_id) is not None:
            return None
        mine = self.user_store()
        if mine is None or rows.find(mine.db, memory_id) is None:
            return None
        return mine

    def beside_identity(self) -> Identity:
        """The caller's identity in the person's user store, read from this
        project: the same partitions, its project (`store/user.user_identity`)."""
        from tree_ring.store.user import user_identity

        return user_identity(self.identity)

    def forgotten_here(self, mine: Store) -> ForgottenHere | None:
        """What this project forgot, as a filter of the user store's rows
        (`mine`): the brief and recall of the project leave them out."""
        from tree_ring.read import forgotten_here

        return forgotten_here.of(self.store, self.project_id, mine)

    def reached_beside(self, mine: Store, memory_id: str) -> Memory:
        """The user store's row `memory_id`, whatever its state, as this
        caller's reads of the project reach it: an agent's, of the shared
        scopes and its own partitions there; NotFound otherwise, and for a
        note whose content this project forgot, as its brief and recall
        leave it out."""
        from tree_ring.read import listing
        from tree_ring.store import rows

        identity = self.beside_identity()
        memory = listing.show(mine.db, identity, memory_id, whole_project=self.whole_project)
        forgotten = self.forgotten_here(mine)
        if forgotten is not None and forgotten.hidden([memory]):
            raise rows.not_found(memory_id)
        return memory

    def elsewhere(self, memory_id: str) -> UsageError | None:
        """Why a verb that acts on this project's rows by id (forget, review,
        promote, confirm, supersede) does not act on `memory_id`, when it is a
        note of the person's user store that this caller's reads of the
        project show (`held_beside`): one line saying what to do instead, not
        "no memory". None otherwise (the id is unknown to this caller too)."""
        from tree_ring.model.errors import NotFound, UsageError

        mine = self.held_beside(memory_id)
        if mine is None:
            return None
        try:
            self.reached_beside(mine, memory_id)
        except NotFound:
            return None
        if self.actor.origin.is_agent:
            return UsageError(
                f"{memory_id} is a note in the person's user store (their memory across "
                "projects); from a project an agent only refutes it: if it proved wrong, "
                f"`refute {memory_id} --reason WHY` marks it disputed for the person to decide"
            )
        return UsageError(
            f"{memory_id} is a note in your user store, not one of this project's memories; "
            "`forget` and `review` act on it there with --user"
        )

    def holder(self, memory: Memory) -> Store:
        """The store that holds `memory`, as `show` found it: the project's,
        or the person's user store for one of its notes (`held_beside`)."""
        return self.held_beside(memory.id) or self.store

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

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def reached(self, memory_id: str) -> Memory:
        """The row `memory_id` names, as a write by id reaches it: for an
        agent's caller, only a row its recall may read (the project's shared
        scopes, its own partitions); another partition's or another project's
        is NotFound, as an unknown id is (docs/THREAT-MODEL.md, "Who sees
        what"), so no write tells the agent it exists."""
        from tree_ring.model.errors import NotFound
        from tree_ring.read import listing

        db = self.store.db
        try:
            return listing.show(db, self.identity, memory_id, whole_project=self.whole_project)
        except NotFound:
            refusal = self.elsewhere(memory_id)  # a note of the user store the brief gave
            if refusal is not None:
                raise refusal from None
            raise
