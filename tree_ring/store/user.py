"""The user store: a person's own memory, across every project.

One SQLite file outside any project (`model.user_home.user_store_path_str`:
TREE_RING_USER_HOME, else the XDG data directory), with the same schema,
record, guard, tombstones, audit chain, review queue and liveness predicate
as a project's store: it is a `Store`, opened from a file instead of a
project root. Every row in it has the project `USER_PROJECT`, so the one
visibility clause (`live.visible`) reads it as it reads a project: its shared
scopes (a person's `global` notes) plus the caller's own partitions.

A project's brief and recall read it beside the project's store; a person's
`remember --scope global` writes it, and creates it on that first write. An
agent's global write lands there as well, and waits for a person (the review
policy's `agent_shared`, as in a project).

What either store forgot stays out of both, since a project's brief reads
them together: a global write made in a project is refused by the project's
tombstones as well as the user store's (`answers_to_project`), and a write
into the project by the user store's as well as the project's
(`answers_to_user`). Each store keeps only its own tombstones; the other's
are read at each check.
"""

from __future__ import annotations

import os

from tree_ring.model import user_home
from tree_ring.model.errors import NoStore
from tree_ring.model.user_home import USER_PROJECT
from tree_ring.store.db import Options, Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from tree_ring.model.identity import Identity
    from tree_ring.store.sql import Db

NAME = "the user store"
FIX = "a person's `tree-ring remember --scope global ...` creates it"


def user_store_path(environ: Mapping[str, str]) -> str:
    """Where the user store is, or would be; a one-line error without a home."""
    path = user_home.user_store_path_str(environ)
    if path is None:
        raise NoStore(
            "no home folder for the user store; set HOME, XDG_DATA_HOME or TREE_RING_USER_HOME"
        )
    return path


def exists(environ: Mapping[str, str]) -> bool:
    path = user_home.user_store_path_str(environ)
    if path is None:
        return False
    user_home.check_user_store(path)
    return os.path.exists(path)


def open_user(
    environ: Mapping[str, str],
    *,
    create: bool = False,
    read_only: bool | None = None,
) -> Store | None:
    """The user store, or None when it does not exist (and `create` is not set).

    Options (busy timeout, read-only) come from the same environ. A damaged
    file raises StoreFault, a store or folder that is a link UnsafePath, with
    one line naming it.
    """
    path = user_store_path(environ) if create else user_home.user_store_path_str(environ)
    if path is None:
        return None
    user_home.check_user_store(path)  # a link, even a dangling one, is refused
    if not create and not os.path.exists(path):
        return None
    return Store.open_file(
        path,
        create=create,
        read_only=read_only,
        options=Options.from_environ(environ),
        name=NAME,
        fix=FIX,
    )


def user_identity(identity: Identity) -> Identity:
    """The caller's identity in the user store: the same partitions, its project."""
    return identity.replace(project=USER_PROJECT)


def answers_to_project(db: Db, project_store: Store, project_id: str) -> None:
    """Writes into the user store's `db` refuse what `project_id` forgot too."""
    from tree_ring.store import tombstones  # a write's module; reads never load it

    tombstones.answer_to(db, lambda: (project_store.db, project_id))


def answers_to_user(db: Db, user_store: Callable[[], Store | None]) -> None:
    """Writes into a project's `db` refuse what the person forgot in their user
    store too; `user_store` opens it when a check first asks (None: none)."""
    from tree_ring.store import tombstones

    def stones() -> tuple[Db, str] | None:
        mine = user_store()
        return None if mine is None else (mine.db, USER_PROJECT)

    tombstones.answer_to(db, stones)
