"""`Project`: one project opened for a client, and the use cases it offers.

A client (the `tree-ring` command, the MCP server, the terminal UI, the web
view, the hooks) parses its input, opens a `Project` and renders what the
use case returns; it holds no SQL and assembles no use case of its own, so
every client gives the same answer on the same store. Opening it, who acts
and its stores are `api/opened.py`'s; a person's decisions (the inbox, the
review queue, promote, refute, confirm, supersede) `api/decisions.py`'s;
the reads and writes here.
"""

from __future__ import annotations

from tree_ring.api.decisions import Decisions
from tree_ring.api.opened import person_actor
from tree_ring.model.identity import harness_origin
from tree_ring.model.text import is_uuid

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence
    from typing import Any

    from tree_ring.api.found import Found, TreeNode
    from tree_ring.model.anchor import Check
    from tree_ring.model.identity import Identity
    from tree_ring.model.progress import Progress
    from tree_ring.model.record import Memory
    from tree_ring.read.brief import Brief
    from tree_ring.read.listing import Page
    from tree_ring.read.tree_recall import TreeHit
    from tree_ring.review.findings import Finding
    from tree_ring.store.db import Store
    from tree_ring.store.live import View
    from tree_ring.team.ledger_report import SyncReport
    from tree_ring.upkeep.consolidate import Report
    from tree_ring.upkeep.maintain import MaintainReport
    from tree_ring.upkeep.usage import Report as UsageReport
    from tree_ring.write.correct import Forgotten
    from tree_ring.write.pipeline import WriteResult
    from tree_ring.write.verbs import Draft

__all__ = ["Project", "person_actor"]


class Project(Decisions):
    """A project's store, the person's user store, the caller's identity and
    actor (`Opened`), and every use case a client may ask of them."""

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
        from tree_ring.store.user import USER_PROJECT

        whole = self.whole_project if whole_project is None else whole_project
        # The user store itself (`--user`): what the project it is run in forgot stays out.
        mine = self.project_id == USER_PROJECT
        return found.recall(
            self.store,
            self.identity,
            self.user_store(),
            query,
            limit=limit,
            view=view,
            scope=scope,
            whole_project=whole,
            elsewhere=self.forgotten_elsewhere() if mine else None,
        )

    def disputes(self, found: Sequence[Found], view: View) -> dict[str, list[str]]:
        """What a refutation waiting for a person says of each of `found`
        (`read/disputes.py`), read from the store that holds it: a person's
        note an agent refuted is marked as a project row is, its reason
        with what this project forgot withheld too."""
        from tree_ring.read import disputes

        ours = [f.memory for f in found if f.store == "project"]
        said = disputes.notes(self.store, ours, view)
        mine = [f.memory for f in found if f.store != "project"]
        held = self.user_store() if mine else None
        if held is not None:
            said |= disputes.notes(held, mine, view, (self.store.db, self.project_id))
        return said

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
        such a row is gone as a deleted one is. A note of the person's user
        store that the project's brief or recall gave is found there, as that
        caller's recall reads it (`held_beside`): an agent's, of the shared
        scopes and its own partitions; none that this project forgot. Its
        review reason as a read may show it: a quote of content forgotten
        since is withheld (`govern/reasons.shown`)."""
        from tree_ring.govern import reasons
        from tree_ring.read import listing

        mine = self.held_beside(memory_id)
        if mine is not None:
            return reasons.memory_shown(mine.db, self.reached_beside(mine, memory_id))
        db = self.store.db
        memory = listing.show(db, self.identity, memory_id, whole_project=self.whole_project)
        forgotten = self.forgotten_elsewhere()
        if forgotten is not None and forgotten.hidden([memory]):
            from tree_ring.store import rows

            raise rows.not_found(memory_id)
        return reasons.memory_shown(db, memory)

    def export(
        self, view: View, left_out: list[str] | None = None, hidden: list[str] | None = None
    ) -> Iterator[dict[str, Any]]:
        """The rows an export writes, then the store's tombstones
        (`transfer/export.py`): a person's of every partition, an agent's
        of what its recall reads; without the rows whose content the other
        store forgot, as every read of the project leaves them out, nor those
        a hand edit damaged, whose ids go to `left_out`."""
        from tree_ring.transfer.export import export_rows

        return export_rows(
            self.store,
            self.project_id,
            view,
            agent=self.reader,
            forgotten=self.forgotten_elsewhere(),
            left_out=left_out,
            hidden=hidden,
        )

    def omitted(
        self, view: View, written: Iterable[dict[str, Any]], hidden: list[str] | None = None
    ) -> dict[str, int]:
        """What an export under `view` (`written`, its rows) leaves out that
        the widest view would write, by why (`transfer/export.narrowed`):
        said beside the file, since an uninstall keeps an export; then what
        no export writes (`export.UNWRITTEN`): redacted rows, and rows the
        other store's forgets hide (`hidden`: those of the export that wrote
        `written`, read again only when its view was narrower)."""
        from tree_ring.transfer import export

        counts: dict[str, int] = {}
        if view != export.WHOLE or hidden is None:
            hidden = []
            whole = list(self.export(export.WHOLE, hidden=hidden))
            counts = {} if view == export.WHOLE else export.narrowed(written, whole)
        found = {"redacted": export.redacted(self.store, self.project_id, self.reader)}
        found["hidden"] = len(hidden)
        return counts | {why: n for why, n in found.items() if n}

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

        if target is not None and not target.strip():
            raise UsageError("--target names a memory id; give one, or leave --target out")
        if self.reader is not None:
            if target is None:
                raise UsageError(
                    "the audit log is a person's record of every partition; an agent "
                    "reads one memory's entries: `tree-ring audit log --target ID`"
                )
            self.show(target)  # NotFound unless the agent may see it
        found = audit.entries(self.store.db, limit=limit, target=target)
        total = audit.count(self.store.db, target=target)
        if target is not None and not total:
            # A memory forgotten in another store, whose tombstones an import
            # or the team ledger brought: the entries that recorded them.
            found = audit.brought(self.store.db, target, limit=limit)
            total = len(found)
        elif target is not None and not any(_says_why(e) for e in found):
            # Its entries say no reason (a withdrawal a rebuilt store took from
            # a ledger claim): the entries that brought its tombstones may.
            seen = {e["seq"] for e in found}
            brought = audit.brought(self.store.db, target, limit=limit)
            more = [e for e in brought if e["action"] == "tombstone" and e["seq"] not in seen]
            found = sorted([*found, *more], key=lambda e: e["seq"])[-limit:]
            total += len(more)
        if target is not None and not total:
            from tree_ring.model.errors import NotFound

            # As an agent is told of an id it may not read: not an empty log.
            named = target if len(target) <= 80 else target[:77] + "..."
            raise NotFound(
                f"the audit log holds no entry about {named}; `tree-ring audit log` lists them all"
            )
        if self.reader is not None:  # another partition's rows go unnamed
            from tree_ring.read import audit_reach

            found = audit_reach.entries(self.store.db, self.reader, found)
        # Each entry's reason as a read may show it; the log itself keeps its bytes.
        return reasons.entries_shown(self.store.db, self.project_id, found), total

    def policy_audit(self, *, limit: int = 100) -> list[dict[str, Any]]:
        """The write policy's newest `limit` decisions, oldest first, each
        reason as a read may show it (`reasons.decisions_shown`): a person's
        recovery keeps their reason there, and any caller may read it."""
        from tree_ring.govern import coordinator, reasons

        found = coordinator.audit_entries(self.store.db, limit=limit)
        return reasons.decisions_shown(self.store.db, self.project_id, found)

    def usage(self, since: str | None = None) -> UsageReport:
        """What the usage log says memory cost agents' context (`upkeep/usage.py`):
        the memories injected most named as this caller's reads name them, the
        person's notes a brief gave among them, from the user store."""
        from tree_ring.store.user import USER_PROJECT
        from tree_ring.upkeep import usage

        mine = None if self.project_id == USER_PROJECT else self.user_store()
        beside = None
        if mine is not None:
            reader = None if self.reader is None else self.beside_identity()
            beside = usage.Mine(mine, reader, self.forgotten_here(mine))
        return usage.report(
            self.store, self.project_id, since, self.reader, self.forgotten_elsewhere(), beside
        )

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
        if draft.supersedes:
            self.reached(draft.supersedes)
        return verbs.remember(self.store_to_write(), draft, self.identity, self.actor)

    def evidence(
        self, draft: Draft, *, outcome: str, evidence_ref: str, score: float | None = None
    ) -> WriteResult:
        """An evaluation's outcome as a memory (`write/verbs.evidence`): its
        ring, retention and confidence from the outcome, `evidence_ref` its
        source. A global one goes to the person's user store, as `remember`'s does."""
        from tree_ring.write import verbs

        def write(store: Store, identity: Identity) -> WriteResult:
            return verbs.evidence(
                store, draft, identity, self.actor,
                outcome=outcome, evidence_ref=evidence_ref, score=score,
            )  # fmt: skip

        verbs.check_draft(draft)
        if draft.scope == "global":
            target, identity = self.global_target()
            with target:
                return write(target, identity)
        return write(self.store_to_write(), self.identity)

    def remember_over_tombstone(self, draft: Draft, reason: str | None) -> WriteResult:
        """`remember --override-tombstone` (a person's): `draft` written over
        the tombstones that refuse it (`write/readmit.py`). A project memory
        answers to this store's and the team ledger's, its history's too (a
        forget only the history holds never reached this store, and refuses
        the memory in every new clone); a global one to the user store's and
        this project's, and its reason may quote neither's forgets (this
        project's reads show it)."""
        from tree_ring.store.user import USER_PROJECT
        from tree_ring.write import readmit, verbs

        verbs.check_draft(draft)
        if draft.scope == "global":
            target, identity = self.global_target()
            outside = self.project_id == USER_PROJECT  # run outside any project
            around = None if outside else (self.store.db, self.project_id)
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

    def move_to_ring(self, memory_id: str, ring: str) -> WriteResult | None:
        """The memory written again in `ring`, in its own partition, superseding
        itself as it was: rings are not edited in place, so `--as-of` still
        finds what was believed before. None when it is in `ring` already. A
        write like any other: into the store that answers to the user store too."""
        from tree_ring.model.identity import Identity
        from tree_ring.model.record import caller_fields
        from tree_ring.write import verbs

        old = self.show(memory_id)
        if old.ring == ring:
            return None
        said: dict[str, Any] = {
            spec.name: getattr(old, spec.name)
            for spec in caller_fields()
            if spec.name not in ("operation_id", "supersedes", "valid_from", "valid_to")
        }
        said.update(ring=ring, supersedes=old.id)
        partition = Identity(
            old.project or self.project_id, old.agent_profile, old.workflow_id, old.session_id
        )
        return verbs.remember(self.store_to_write(), verbs.Draft(**said), partition, self.actor)

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

        held = rows.find(self.store.db, memory_id)
        if held is None:
            # A note of the user store the brief gave: forgotten there, with --user.
            raise self.elsewhere(memory_id) or rows.not_found(memory_id)
        # An agent's caller reaches no other project's row; which partitions
        # of its own it may forget, a redacted placeholder of its own note
        # among them (a redaction empties its partition), `correct.forget` decides.
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

    def note_usage(self, event: str, ids: Sequence[str], size: int) -> str | None:
        """What a read put into an agent's context, in the usage log (ids and size,
        never text): None when written, else why not, for one line on stderr."""
        from tree_ring.store import usage_log
        from tree_ring.store.user import USER_PROJECT

        if self.project_id == USER_PROJECT:
            return None  # the user store keeps no usage log: it has no project folder
        # The origin, not the actor: a read has no need of the audit's module.
        origin = self._actor.origin if self._actor else harness_origin(self.environ)
        session = origin.session
        if session and not is_uuid(session):
            from tree_ring.guard import find_secret

            # A harness variable a write would refuse is not logged either.
            session = None if find_secret(session) is not None else session
        return usage_log.record(
            self.root, event, harness=origin.kind, session=session, ids=ids, size=size
        )

    def consolidate(
        self,
        period_type: str,
        period_key: str | None = None,
        *,
        dry_run: bool = False,
        force: bool = False,
        retire_sources: bool = False,
        progress: Progress | None = None,
    ) -> Report:
        """A period's memories summarised into one per group (`upkeep/consolidate.py`):
        an agent's covers the rows its recall reads, a person's every partition;
        none whose content the other store forgot."""
        from tree_ring.upkeep import consolidate

        return consolidate.consolidate(
            self.store,
            self.project_id,
            period_type,
            period_key,
            actor=self.actor,
            dry_run=dry_run,
            force=force,
            retire_sources=retire_sources,
            progress=progress,
            reader=self.reader,
            forgotten=self.forgotten_elsewhere(),
        )

    def maintain(
        self, *, apply_expired: bool = False, apply_secret_sweep: bool = False, vacuum: bool = False
    ) -> MaintainReport:
        """Expiry, the secret sweep and compaction (`upkeep/maintain.py`): a
        report unless asked to apply. Into the store that answers to the user
        store too (`store_to_write`): an expiry a person applies keeps
        writable, and shown, what the person's own notes hold, as a forget
        does; one an agent wrote is its withdrawal, whoever runs it."""
        from tree_ring.upkeep import maintain

        return maintain.maintain(
            self.store_to_write(),
            self.actor,
            apply_expired=apply_expired,
            apply_secret_sweep=apply_secret_sweep,
            vacuum=vacuum,
        )

    def into_ledger(self) -> bool:
        """After a person's write, whichever client made it: the store's shared
        state into the team ledger at once (`team/sync.after_write`), so `git
        status` shows it. False when nothing was written: an agent's writes
        wait for the next sync; the user store has no ledger, nor has a project
        without one. A ledger that is no regular file (a FIFO would hold the
        store's lock forever) raises UnsafePath before it is opened."""
        from pathlib import Path

        from tree_ring.model import project
        from tree_ring.store.user import USER_PROJECT
        from tree_ring.team import sync

        if self.actor.origin.is_agent or self.project_id == USER_PROJECT:
            return False
        root = Path(self.root)
        if not project.expect(sync.path_of(root), "file", project.LEDGER_FIX):
            return False
        return sync.after_write(self.store, root, self.project_id)

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


def _says_why(entry: dict[str, Any]) -> bool:
    """Whether an audit entry records a reason of its own: a request to
    forget records the asker's, which says nothing of why it was forgotten."""
    return entry.get("action") != "forget-request" and '"reason"' in str(entry.get("detail"))
