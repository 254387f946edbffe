"""What the pages and actions of one `tree-ring view` run share: project, actor, sessions.

The site opens the library's front, a `Project` (`api/project.py`), for each
request, as the CLI opens one for each command: its identity and actor are the
CLI's for the same environment. A person at the terminal sees every partition
and decides as `person`; a viewer started from an agent's shell is that agent,
and the library refuses it what it refuses the agent's CLI (review decisions,
forgetting what it did not write). The coordinator capability, if the
environment holds one, is kept in the actor and nowhere else.

A session is one browser's: it exists once the browser has shown the run's
token, and holds the CSRF value its forms carry, whether sensitive rows are
shown, and a one-time notice for the next page.
"""

from __future__ import annotations

import contextlib
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import TypeVar, cast

from tree_ring.api.project import Project
from tree_ring.model.actor import Actor
from tree_ring.model.identity import Identity
from tree_ring.store import activity
from tree_ring.store.db import Options

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Generator, Mapping, Sequence

    from tree_ring.store.sql import Db

# Sessions a run keeps; past this the oldest is dropped (its browser logs in again).
MAX_SESSIONS = 32
# Answers `cached` keeps, oldest dropped first.
MAX_ANSWERS = 64
T = TypeVar("T")


@dataclass
class Session:
    csrf: str
    show_sensitive: bool = False
    notice: str = ""  # shown once, on the next page
    notice_is_error: bool = False

    def take_notice(self) -> tuple[str, bool]:
        notice, error = self.notice, self.notice_is_error
        self.notice, self.notice_is_error = "", False
        return notice, error


@dataclass
class Site:
    root: str
    project: str
    identity: Identity
    actor: Actor
    whole_project: bool
    options: Options
    environ: Mapping[str, str] = field(repr=False)
    token: str = field(repr=False)
    port: int = 0
    sessions: dict[str, Session] = field(default_factory=lambda: {}, repr=False)
    answers: dict[tuple[object, ...], tuple[object, object]] = field(
        default_factory=lambda: {}, repr=False
    )
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    # Held while this process has the store open (see `store`); the doctor takes it too.
    opening: threading.RLock = field(default_factory=threading.RLock, repr=False)

    @classmethod
    def open(cls, root: str, environ: Mapping[str, str]) -> Site:
        """The site for the project at `root`, as the environment names its caller."""
        environ = dict(environ)
        with Project.open(root, environ) as opened:
            # The store must open now, so a missing or damaged one is one line at start.
            opened.store  # noqa: B018 - opened for its check
            return cls(
                root,
                opened.project_id,
                opened.identity,
                opened.actor,
                opened.whole_project,
                opened.options,
                environ,
                token=secrets.token_urlsafe(32),
            )

    @contextlib.contextmanager
    def opened(self) -> Generator[Project]:
        """The project, its store opened for one request and closed after it, one
        request at a time (the person's user store too, when the request reads it).

        One at a time because of POSIX file locks: they belong to the process,
        and closing any descriptor of the file drops every lock the process
        holds on it. Opening a store reads the file's header through a
        descriptor of its own (`store.db.file_damage`), so a second request
        opening the store while a first reads would strip the first's locks,
        and a CLI or hook writing at that moment could checkpoint under it.
        Requests still come in on their own threads; hooks and CLI processes
        go on writing, each its own process, under SQLite's locking.
        """
        with self.opening:
            project = Project(
                self.root,
                self.identity,
                self.actor,
                environ=self.environ,
                options=self.options,
                whole_project=self.whole_project,
            )
            try:
                project.store  # noqa: B018 - opened now, under the lock
                yield project
            finally:
                project.close()

    def cached(
        self, dbs: Sequence[Db | None], key: tuple[object, ...], compute: Callable[[], T]
    ) -> T:
        """`compute()`, or what it gave last time if none of `dbs` has changed since.

        Counting every live row (the rings) or every row (status) still visits
        each of them, in an index or the table: about a tenth of a second at
        100,000 memories. Every change Tree Ring makes appends to the audit log,
        and every new row takes a new rowid, so the newest of each
        (`store/activity.last_change`, two index lookups) says whether anything
        changed; the minute is in the key too, since liveness moves with the
        clock (expiry, validity). A change made by hand, beside the audit log,
        shows within that minute. A `None` in `dbs` is a store that does not
        exist (the person's user store before its first memory).
        """
        token = (
            *(activity.last_change(db) if db is not None else None for db in dbs),
            int(time.time() // 60),
        )
        with self.lock:
            hit = self.answers.get(key)
        if hit is not None and hit[0] == token:
            return cast("T", hit[1])
        value = compute()
        with self.lock:
            while len(self.answers) >= MAX_ANSWERS:
                self.answers.pop(next(iter(self.answers)))
            self.answers[key] = (token, value)
        return value

    def new_session(self) -> str:
        sid = secrets.token_urlsafe(32)
        with self.lock:
            while len(self.sessions) >= MAX_SESSIONS:
                self.sessions.pop(next(iter(self.sessions)))
            self.sessions[sid] = Session(secrets.token_urlsafe(32))
        return sid

    def session(self, sid: str | None) -> Session | None:
        if not sid:
            return None
        with self.lock:
            return self.sessions.get(sid)
