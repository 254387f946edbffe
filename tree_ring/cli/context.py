"""What every command handler shares: the context and the common flags.

Each module in this package holds one group of verbs and a `register`
function that adds them to the parser; `tree_ring.cli` assembles them and is
the one place where errors become messages and exit codes.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TextIO

from tree_ring.model import project
from tree_ring.model.identity import Identity, harness_origin, resolve
from tree_ring.model.record import RETENTIONS, RINGS, SCOPES, SENSITIVITIES, parse_time
from tree_ring.store.audit import Actor
from tree_ring.store.db import Options, Store
from tree_ring.store.live import View


class Context:
    """What every command handler gets: parsed args, environment, output."""

    def __init__(self, args: argparse.Namespace, environ: Mapping[str, str], out: TextIO) -> None:
        self.args = args
        self.environ = environ
        self.out = out

    @property
    def as_json(self) -> bool:
        return bool(getattr(self.args, "json", False))

    def root(self) -> Path:
        return project.locate(getattr(self.args, "root", None), self.environ)

    def store(self, root: Path | None = None) -> Store:
        """The project's store, opened as this environment says (`Options`)."""
        return Store.open(root or self.root(), options=Options.from_environ(self.environ))

    def identity(self, root: Path) -> Identity:
        a = self.args
        return resolve(
            getattr(a, "project", None) or project.load_project_id(root),
            self.environ,
            agent_profile=getattr(a, "agent_profile", None),
            workflow_id=getattr(a, "workflow_id", None),
            session_id=getattr(a, "session_id", None),
        )

    def actor(self, identity: Identity) -> Actor:
        origin = harness_origin(self.environ)
        # The capability comes from the environment only, never from a flag.
        token = self.environ.get("TREE_RING_COORDINATOR_TOKEN") or None
        return Actor(identity.agent_profile or origin.kind, origin, capability=token)

    def view(self) -> View:
        a = self.args
        as_of = getattr(a, "as_of", None)
        valid_at = getattr(a, "valid_at", None)
        return View(
            as_of=parse_time(as_of, "--as-of") if as_of else None,
            valid_at=parse_time(valid_at, "--valid-at") if valid_at else None,
            include_sensitive=bool(getattr(a, "include_sensitive", False)),
            include_unreviewed=bool(getattr(a, "include_unreviewed", False)),
        )

    def emit(self, data: Any, text: str) -> None:
        if self.as_json:
            self.out.write(json.dumps(data, ensure_ascii=False, sort_keys=True) + "\n")
        elif text:
            self.out.write(text if text.endswith("\n") else text + "\n")


Handler = Callable[[Context], int]
# verb(name, handler, help) -> the subparser, already wired to the handler.
Verb = Callable[[str, Handler, str], argparse.ArgumentParser]


def identity_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("identity (default: project.json, TREE_RING_* and the harness)")
    g.add_argument("--project", help="project id (default: .tree-ring/project.json)")
    g.add_argument("--agent-profile", help="agent partition (TREE_RING_AGENT_PROFILE)")
    g.add_argument("--workflow-id", help="workflow partition (TREE_RING_WORKFLOW_ID)")
    g.add_argument("--session-id", help="session partition (TREE_RING_SESSION_ID)")


def view_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--include-sensitive", action="store_true", help="also show sensitive memories")
    p.add_argument(
        "--include-unreviewed",
        action="store_true",
        help="also show pending and disputed memories (labelled)",
    )
    p.add_argument("--as-of", metavar="TIME", help="what was believed at TIME (record time)")
    p.add_argument("--valid-at", metavar="TIME", help="what held at TIME (validity time)")


def memory_flags(p: argparse.ArgumentParser, *, ring: bool = True) -> None:
    p.add_argument("summary", help="one sentence to remember ('-' reads it from stdin)")
    p.add_argument(
        "--event-type", default="note", help="decision, lesson, preference, warning, ..."
    )
    if ring:
        p.add_argument("--ring", choices=RINGS, default="cambium", help="the memory's genre")
    p.add_argument("--scope", choices=SCOPES, help="default: project (agents: their own partition)")
    p.add_argument("--details", help="longer text")
    p.add_argument("--source-ref", help="where this can be checked: a file, URL, run")
    p.add_argument("--source-quote", help="the words at the source")
    p.add_argument("--tag", action="append", help="a tag (repeatable)")
    p.add_argument("--salience", type=float, default=0.5, help="how much it matters, 0..1")
    p.add_argument("--confidence", type=float, default=0.5, help="how sure, 0..1")
    p.add_argument("--sensitivity", choices=SENSITIVITIES, default="normal")
    p.add_argument("--retention", choices=RETENTIONS, default="normal")
    p.add_argument("--expires-at", metavar="TIME", help="no read returns it after TIME")
    p.add_argument("--valid-from", metavar="TIME", help="when the fact starts to hold")
    p.add_argument("--valid-to", metavar="TIME", help="when the fact stops holding")
    p.add_argument("--operation-id", help="idempotency key: a retry returns the same id")
    identity_flags(p)
