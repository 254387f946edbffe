"""The library calls behind the screen: what each view reads and each action writes.

The screen is a client of the library's front (`api/project.py`): it opens
one `Project` for its session and asks it for what the CLI asks it for:
recall (the person's user store merged, its rows marked as recall marks
them: `you` where the person wrote them), the list, a memory, the counts
`tree-ring status` prints, forget, the review's decisions, promote, sync,
remember. So the header's figures and a search's
hits are the CLI's on the same store, and the audit log cannot tell a write
from here from the CLI's but by the reason a person typed. It holds no SQL:
the ring panel's one pass is `store/panels.py`, the watch's poll
`store/watch.py`.

Nothing here runs on navigation alone: `load` and friends only read, and a
write happens only when the loop is handed an `Action` a confirmation let
through.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

from tree_ring.api.found import USER
from tree_ring.api.project import Project
from tree_ring.govern import reasons
from tree_ring.model import project as projects
from tree_ring.model.anchor import Check
from tree_ring.model.errors import TreeRingError, UsageError
from tree_ring.model.identity import Identity
from tree_ring.model.record import RINGS, Memory, parse_time
from tree_ring.store import audit, live, panels, watch
from tree_ring.store.live import View
from tree_ring.tui.state import REPLACES, Action, Counts, Dashboard, Item, RingStat, State

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from tree_ring.model.actor import Actor
    from tree_ring.store.db import Store

# How many rows a view loads; the title says "N of TOTAL" past it.
PAGE = 500
# The views whose rows a team ledger line may have made: memories, requests to forget.
TRACED = frozenset({"memories", "search", "review", "inbox", "evidence"})


class Session:
    """One opened project and who is acting on it, for the length of the screen."""

    def __init__(self, root: str, environ: Mapping[str, str]) -> None:
        self.root = root
        self.environ = environ
        # Where the screen was started: an export's relative path starts here,
        # as `export --output`'s starts where the command runs.
        self.started = os.getcwd()
        self.opened = Project.open(root, environ)
        # Opened now: a project without a store is refused before the screen is drawn.
        _ = self.opened.store
        self.project = self.opened.project_id
        self.totals: dict[str, int] = {}
        self.listed: int | None = None  # rows the memory list would show, all pages
        self.mine: set[str] = set()  # the keys a search found in the person's user store
        # `status`'s figures, and the store's data version they were counted at
        # (None: to count again; this connection's own writes do not move it).
        self._counts: Counts | None = None
        self._counted_at: int | None = None

    @property
    def store(self) -> Store:
        return self.opened.store

    @property
    def identity(self) -> Identity:
        return self.opened.identity

    @property
    def actor(self) -> Actor:
        return self.opened.actor

    @property
    def whole_project(self) -> bool:
        return self.opened.whole_project

    def close(self) -> None:
        self.opened.close()

    def data_version(self) -> int:
        """Changes whenever another connection commits: the watch's cheap poll."""
        return watch.data_version(self.store.db)

    # ------------------------------------------------------------- reads

    def view(self, state: State, **extra: bool) -> View:
        return View(
            as_of=parse_time(state.as_of, "as of") if state.as_of else None,
            valid_at=parse_time(state.valid_at, "valid at") if state.valid_at else None,
            include_sensitive=extra.get("include_sensitive", state.include_sensitive),
            include_unreviewed=extra.get("include_unreviewed", True),
            include_superseded=extra.get("include_superseded", state.include_superseded),
        )

    def where(self, view: View) -> live.Clause:
        return live.where(self.identity, view, whole_project=self.whole_project)

    def counts(self) -> Counts:
        """What `tree-ring status` counts, counted again only when the store
        has changed since (a census of a large store is not worth a keypress)."""
        version = self.data_version()
        if self._counts is None or self._counted_at != version:
            status = self.opened.status()
            self._counts = Counts.of(status, inbox=self.whole_project)
            self._counted_at = version
        return self._counts

    def dashboard(self, state: State, *, counted: bool = True) -> Dashboard:
        """The ring panel, from one pass (`store/panels.py`), and the header's
        figures (`Project.status`), unless `counted` is False (the first
        frame, which then keeps the figures it had, if any).

        The panel counts the rows the memory list shows at the screen's
        toggles and time (accepted, pending and disputed; other sensitivities
        only with `i`), so the rings add up to the list's `Memories (N)`; a
        ring's `private` counts its rows of other sensitivities whether they
        are shown or not. The header's figures are `status`'s, of now.
        """
        clause = self.where(self.view(state, include_sensitive=True, include_superseded=False))
        sums: dict[str, list[float]] = {ring: [0, 0.0, 0.0, 0] for ring in RINGS}
        events: dict[str, dict[str, int]] = {ring: {} for ring in RINGS}
        listed = 0
        for group in panels.ring_groups(self.store.db, clause):
            shown = state.include_sensitive or not group.private
            listed += group.count if shown else 0
            if group.ring not in sums:
                continue  # a value no ring has (a hand-edited row): listed, not drawn
            total = sums[group.ring]
            total[3] += group.count if group.private else 0
            if not shown:
                continue
            total[0] += group.count
            total[1] += group.confidence
            total[2] += group.salience
            seen = events[group.ring]
            seen[group.event_type] = seen.get(group.event_type, 0) + group.count
        rings = tuple(
            RingStat(
                ring,
                int(n),
                conf / n if n else 0.0,
                sal / n if n else 0.0,
                int(private),
                max(events[ring], key=lambda e: (events[ring][e], e)) if events[ring] else "",
            )
            for ring, (n, conf, sal, private) in sums.items()
        )
        # The list's own count, but where it shows superseded rows too.
        self.listed = None if state.include_superseded else listed
        return Dashboard(
            rings=rings,
            listed=listed,
            counts=self.counts() if counted else state.dashboard.counts,
        )

    def load(self, state: State, *, counted: bool = True) -> None:
        """The current view's rows, the dashboard, and the audit log if open."""
        self.store.check_in_place()
        state.dashboard = self.dashboard(state, counted=counted)
        loader = {
            "memories": self._memories,
            "search": self._search,
            "review": self._review,
            "inbox": self._inbox,
            "stream": self._stream,
            "evidence": self._evidence,
            "integrations": self._integrations,
        }.get(state.view, self._memories)
        if state.view != "search":
            self.mine = set()  # only a search lists the person's own rows
        state.set_items(self._anchored(self._traced(state, loader(state))))
        if state.show_audit:
            self.audit(state)

    def _traced(self, state: State, items: list[Item]) -> list[Item]:
        """`items` with where the team ledger line that made each came from,
        for the views that list memories and requests to forget."""
        from tree_ring.team import provenance

        if state.view not in TRACED:
            return items
        said = provenance.said_of(self.store.db, [item.key for item in items])
        items = [replace(i, provenance=said[i.key]) if i.key in said else i for i in items]
        return self._noted(items)

    def _noted(self, items: list[Item]) -> list[Item]:
        """Memories with their refutation and usage lines, for the detail pane."""
        from tree_ring.upkeep import usage

        noted = usage.notes_of(
            self.store, self.project, [i.key for i in items if i.memory is not None]
        )
        return [replace(i, notes=noted[i.key]) if i.key in noted else i for i in items]

    def _anchored(self, items: list[Item]) -> list[Item]:
        """`items` with the files each memory is about and what each is now
        (`read/staleness`): a stat per file of the memories listed."""
        # The user store's rows are of no project's files.
        ids = [i.key for i in items if i.memory is not None and i.key not in self.mine]
        judged = self.opened.anchors(ids)
        return [
            replace(i, anchors=tuple(anchor_line(c) for c in judged[i.key]))
            if i.key in judged
            else i
            for i in items
        ]

    def audit(self, state: State) -> None:
        memory = state.selected_memory()
        if memory is None:
            state.audit = []
            return
        # A memory of the person's own store has its history there.
        mine = self.opened.user_store() if memory.id in self.mine else None
        db = (mine or self.store).db
        found = audit.entries(db, limit=50, target=memory.id)
        # Each entry's reason as a read may show it (`govern/reasons.shown`).
        state.audit = reasons.entries_shown(db, memory.project or "", found)

    def _listed(self, state: State, **filters: str) -> list[Item]:
        # Unfiltered, the list's total is the ring panel's, counted in its pass.
        known = None if filters else self.listed
        page = self.opened.list(self.view(state), limit=PAGE, total=known, **filters)
        # A total counted no further than a cap is not shown as a count.
        if page.more_than is None:
            self.totals[state.view] = page.total
        else:
            self.totals.pop(state.view, None)
        return [Item(m.id, m) for m in page.memories]

    def _memories(self, state: State) -> list[Item]:
        return self._listed(state)

    def _evidence(self, state: State) -> list[Item]:
        return self._listed(state, source_type="evidence")

    def _search(self, state: State) -> list[Item]:
        """Recall as the CLI's: the person's own store merged, its hits marked
        as recall marks them (`you`, or who else wrote them there)."""
        if not state.query:
            return []
        found = self.opened.recall(state.query, limit=100, view=self.view(state))
        self.totals[state.view] = len(found)
        self.mine = {f.memory.id for f in found if f.store == USER}
        # The detail shows each hit's review reason, as a read may show it; a
        # hit of the person's own store has its tombstones there.
        project = reasons.Withholding(self.store.db)
        theirs = self.opened.user_store() if self.mine else None
        mine = project if theirs is None else reasons.Withholding(theirs.db)
        return [
            Item(
                f.memory.id,
                (mine if f.store == USER else project).memory(f.memory),
                note=f"{f.partition}; {f.score:.3f}" if f.store == USER else f"{f.score:.3f}",
            )
            for f in found
        ]

    def _review(self, state: State) -> list[Item]:
        from tree_ring.read import withheld
        from tree_ring.review import queue as review
        from tree_ring.write import requests

        # Sensitive rows only while `i` shows them, as everywhere (`read/withheld.py`);
        # a shown row's contradicted sensitive ones with their text withheld.
        view = View(include_sensitive=state.include_sensitive)
        # An agent's environment reviews the rows its recall reads (`live.visible`).
        reader = self.opened.reader
        # A row whose content the other store forgot waits with its words withheld.
        waiting = self.opened.review_queue()
        items = [
            Item(w.memory.id, w.memory, pair=tuple(withheld.shown(o, view) for o in w.contradicts))
            for w in waiting
            if not withheld.hidden(w.memory, view)
        ]
        for r in review.waiting_requests(self.store.db, self.project, view, reader):
            items.append(
                Item(
                    r.id,
                    text=f"{requests.asked_for(r)} asked by {r.actor}",
                    detail=tuple(f"{k}: {v}" for k, v in r.to_dict().items() if v is not None),
                )
            )
        self.totals[state.view] = len(items)
        return items

    def _inbox(self, state: State) -> list[Item]:
        """Agents' rows the person has not seen; reading them marks nothing
        seen (only `keep` and the other decisions do), so looking stays a read."""
        if not self.whole_project:
            return []  # the inbox is the person's; an agent's environment sees none
        found = self.opened.inbox(limit=PAGE, include_sensitive=state.include_sensitive)
        self.totals[state.view] = found.total - found.withheld
        return [Item(i.memory.id, i.memory, note=f"{i.partition}: {i.why}") for i in found.items]

    def _stream(self, state: State) -> list[Item]:
        # The whole log is a person's record (`Project.audit_log`): an agent's is empty.
        entries = audit.entries(self.store.db, limit=200)[::-1] if self.whole_project else []
        entries = reasons.entries_shown(self.store.db, self.project, entries)
        self.totals[state.view] = len(entries)
        return [
            Item(
                f"audit:{e['seq']}",
                text=f"{e['at'][11:19]} {e['action']:<10} {e['target']} by {e['actor']}",
                detail=tuple(_entry_lines(e)),
            )
            for e in entries
        ]

    def _integrations(self, state: State) -> list[Item]:
        from tree_ring.harness import integrations

        found = integrations.status(Path(self.root), self.environ)
        items: list[Item] = []
        for h in found:
            data = h.to_dict()
            detail = [f"{k}: {v}" for k, v in data.items() if k != "gaps" and v is not None]
            detail += [f"gap: {g['gap']} (fix: {g['fix']})" for g in data["gaps"]]
            items.append(Item(h.id, text=f"{h.name:<12} {h.state}", detail=tuple(detail)))
        self.totals[state.view] = len(items)
        return items

    # ------------------------------------------------------------ writes

    def run(self, action: Action) -> str:
        """Carry out a confirmed write; what the status line says of it."""
        handler = getattr(self, f"_do_{action.name}", None)
        if handler is None:
            return f"{action.name}: not available in this Tree Ring"
        if action.target is not None and action.target in self.mine:
            # The person's own store is curated with the commands' `--user`.
            return (
                f"{action.target} is in your user store; `tree-ring {action.name} --user` "
                "acts there"
            )
        self.store.check_in_place()  # a write to a deleted store would be lost
        self._counts = None  # this connection's writes do not move the data version
        done: str = handler(action)
        if action.name in SHARED_WRITES:
            # As the CLI's: a person's write reaches the team ledger at once.
            try:
                self.opened.into_ledger()
            except TreeRingError as exc:
                done += f" (the team ledger was not updated: {exc}; /sync retries)"
        return done

    def _do_approve(self, action: Action) -> str:
        d = self.opened.review("approve", _target(action), reason="")
        return f"approved {d.id} (now {d.trust})"

    def _do_reject(self, action: Action) -> str:
        d = self.opened.review("reject", _target(action), reason=action.reason or "")
        return "; ".join([f"rejected {d.id} (now {d.trust})", *d.said()[1:]])

    def _do_dispute(self, action: Action) -> str:
        d = self.opened.review("dispute", _target(action), reason=action.reason or "")
        return f"disputed {d.id} (now {d.trust})"

    def _forget(self, action: Action, mode: str) -> str:
        done = self.opened.forget(_target(action), mode=mode, reason=action.reason or "")
        if done.request is not None:
            return f"requested {done.request}: forgetting {done.id} waits for a person"
        return "; ".join([*done.said(), *([done.lingering] if done.lingering else [])])

    def _do_forget(self, action: Action) -> str:
        return self._forget(action, "delete")

    def _do_redact(self, action: Action) -> str:
        return self._forget(action, "redact")

    def _do_ring(self, action: Action) -> str:
        """A new row in the new ring that supersedes the old, in the old row's
        partition: rings are not edited in place, so `--as-of` still finds
        what was believed before."""
        memory_id, ring = _target(action), action.args[0]
        result = self.opened.move_to_ring(memory_id, ring)
        if result is None:
            return f"{memory_id} is already {ring}"
        state = "" if result.trust == "accepted" else f" ({result.trust}: {result.review_reason})"
        return f"{memory_id} is now {result.id} in {ring}{state}"

    def _do_promote(self, action: Action) -> str:
        """An agent's partition memory into the project (or the person's own
        store with `global`), in place; a memory already shared, to heartwood."""
        from tree_ring.model.record import PRIVATE_SCOPES

        memory = self.opened.show(_target(action))
        if memory.scope not in PRIVATE_SCOPES and not action.args:
            return self._do_ring(Action("ring", memory.id, ("heartwood",)))
        scope = "global" if action.args[:1] == ("global",) else "project"
        [done] = self.opened.promote([memory.id], reason=action.reason or "", scope=scope)
        return f"promoted {done.id} from {done.from_scope} to {done.scope} ({done.store} store)"

    def _do_keep(self, action: Action) -> str:
        self.opened.keep([_target(action)])
        return f"kept {action.target} where it is; the inbox shows it no more"

    def _do_supersede(self, action: Action) -> str:
        old, new = action.args[0], _target(action)
        done = self.opened.supersede(old, new, reason=action.reason or "")
        if not done.applied:
            return f"{old} will be superseded by {new} when {new} is approved"
        settled = f" ({new} approved: the contradiction is settled)" if done.approved else ""
        return f"{old} is superseded by {new}{settled}"

    def _do_remember(self, action: Action) -> str:
        from tree_ring.write import verbs

        result = self.opened.remember(verbs.Draft(action.args[0]))
        tail = "" if result.trust == "accepted" else f" as {result.trust}"
        return f"stored {result.id}{tail}"

    def _do_consolidate(self, action: Action) -> str:
        report = self.opened.consolidate(action.args[0])
        written = [g for g in report.groups if g.written]
        return f"consolidated {report.period.label}: {len(written)} summaries written"

    # ------------------------------------------------------------ export

    def export_path(self, name: str) -> str:
        """`/export`'s FILE as a path: from where the screen was started, `~`
        the person's home (there is no shell here to expand it)."""
        home = self.environ.get("HOME")
        if home and (name == "~" or name.startswith("~/")):
            name = home + name[1:]
        return os.path.join(self.started, name)

    def ask_export(self, state: State, name: str) -> None:
        """Check where `/export NAME` would write as `export --output` is
        checked (`model/outputs.py`: never inside a `.tree-ring/` folder or
        the user store's, a folder that exists), then ask for the export,
        saying when it replaces a file."""
        from tree_ring.model import outputs

        try:
            path = outputs.check_file(self.export_path(name), self.environ)
        except UsageError as exc:
            state.status = f"refused: {exc}"
            return
        there = (REPLACES,) if os.path.lexists(path) else ()
        state.ask(Action("export", None, (path, *there)))

    def _do_export(self, action: Action) -> str:
        """The project's memories as `export` writes them, to the confirmed
        path, whole or not at all. A file that appeared after a confirmation
        that did not offer to replace one is left as it is."""
        from tree_ring.model import outputs

        path = outputs.check_file(action.args[0], self.environ)
        if os.path.lexists(path) and REPLACES not in action.args[1:]:
            return f"refused: {path} appeared since; /export again to replace it"
        # A person's export covers every partition; an agent's, what it sees (as the
        # CLI's); neither carries what the person forgot in their user store, nor
        # a row a hand edit damaged, which is named.
        left_out: list[str] = []
        from tree_ring.transfer import export

        records = list(self.opened.export(View(), left_out))
        omitted = self.opened.omitted(View(), records)
        lines = [json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records]
        outputs.write_text(path, "".join(lines), self.environ, export.FILE_MODE)
        said = export.wrote(len(lines), path)
        if omitted:
            said += f"; {export.narrowed_message(omitted)}"
        if left_out:
            said += f"; {export.left_out_message(left_out)}"
        return said

    def _do_sync(self, action: Action) -> str:
        """The team ledger and the store, both ways, as `tree-ring sync` does it
        for the person at the screen; a project without a ledger is told how
        to start one rather than given one unasked."""
        from tree_ring.team import sync

        root = Path(self.root)
        if not sync.path_of(root).exists():
            return (
                "sync: no team ledger here; `tree-ring sync --setup` creates "
                f"{projects.DIR}/{sync.ledger.PATH} (commit it to share this memory)"
            )
        report = self.opened.sync()
        said = (
            f"synced: {len(report.imported)} imported, {len(report.replaced)} replaced, "
            f"{len(report.forgotten)} forgotten, {len(report.redacted)} redacted, "
            f"{len(report.skipped)} lines skipped; ledger "
            + ("written" if report.written else "unchanged")
        )
        claims = len(report.claimed) + len(report.requested)
        if claims:
            said += f"; {claims} claim(s) not from upstream wait in review"
        return said + (f"; audit: {report.audit}" if report.audit else "")


# The writes whose rows the team ledger carries (`Project.into_ledger`): not
# keep (a mark of what was seen), export or sync (which writes the ledger itself).
SHARED_WRITES = frozenset(
    {"approve", "reject", "dispute", "forget", "redact", "ring", "promote", "supersede",
     "remember", "consolidate"}
)  # fmt: skip


def _target(action: Action) -> str:
    if action.target is None:
        raise TreeRingError(f"{action.name} needs a selected memory")
    return action.target


def _entry_lines(entry: dict[str, Any]) -> list[str]:
    lines = [f"{k}: {entry[k]}" for k in ("seq", "at", "action", "target", "actor", "origin")]
    try:
        detail = json.loads(entry.get("detail") or "{}")
    except ValueError:
        detail = {"detail": entry.get("detail")}
    if isinstance(detail, dict):
        found: dict[str, Any] = detail  # pyright: ignore[reportUnknownVariableType] - JSON
        lines += [f"detail.{key}: {value}" for key, value in sorted(found.items())]
    return lines


def anchor_line(judged: Check) -> str:
    """`anchor: src/x.py (changed since 2026-11-30)`, or `(fresh, ...)`."""
    if judged.stale:
        return f"anchor: {judged.anchor.path} ({judged.state} since {judged.anchor.at[:10]})"
    return f"anchor: {judged.anchor.path} (as anchored {judged.anchor.at[:10]})"


def memory_lines(memory: Memory) -> list[str]:
    """Every field of a memory that holds a value, nested ones flattened
    (`source.type: manual`); trust, why it waits, and origin first."""
    flat: dict[str, Any] = {}
    for key, value in memory.to_dict().items():
        if isinstance(value, dict):
            nested: dict[str, Any] = value  # pyright: ignore[reportUnknownVariableType] - JSON
            flat.update({f"{key}.{k}": v for k, v in nested.items()})
        else:
            flat[key] = value
    first = ("id", "trust", "review.review_reason", "origin", "ring", "scope", "summary")
    order = [k for k in first if k in flat] + [k for k in flat if k not in first]
    return [f"{k}: {_flat(flat[k])}" for k in order if flat[k] not in (None, "", [], {})]


def _flat(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True)
    return str(value)
