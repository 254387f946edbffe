"""The library calls behind the screen: what each view reads and each action writes.

Reads go through the one liveness predicate (`live.where`), as the CLI's
`list`, `recall` and `review list` do; the person sees every partition of the
project, as `list` does for a person. Writes go through the same library calls
as the CLI's verbs (`review.approve`, `correct.forget`, `verbs.remember`, ...),
with the actor the CLI would name for this environment, so the audit log
cannot tell the two apart but by the reason a person typed.

Nothing here runs on navigation alone: `load` and friends only read, and a
write happens only when the loop is handed an `Action` a confirmation let
through.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

from tree_ring.model import project as projects
from tree_ring.model.errors import TreeRingError
from tree_ring.model.identity import Identity, harness_origin, resolve
from tree_ring.model.record import RINGS, Memory, caller_fields, parse_time
from tree_ring.read import listing
from tree_ring.store import audit, live, rows
from tree_ring.store.audit import Actor
from tree_ring.store.db import Options, Store
from tree_ring.store.live import View
from tree_ring.tui.state import Action, Dashboard, Item, RingStat, State

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

# How many rows a view loads; the title says "N of TOTAL" past it.
PAGE = 500
EXPORTS = "exports"
# The views whose rows a team ledger line may have made: memories, requests to forget.
TRACED = frozenset({"memories", "search", "review", "inbox", "evidence"})

# One pass over the live rows feeds the header and the ring panel: per ring,
# event type and privacy, how many and their confidence and salience.
# A 100,000-row store costs one scan, not one per figure.
SCAN_SQL = (
    "SELECT m.ring, m.event_type, m.sensitivity != 'normal', count(*),"
    " sum(m.confidence), sum(m.salience) FROM memories m WHERE {clause} GROUP BY 1, 2, 3"
)
# `review/queue.py`'s queue, counted (a test holds the two to the same count).
# Written so SQLite takes the partial index of rows not accepted: the `+`
# keeps it from the project index, which every row of the store matches.
QUEUED_SQL = (
    "SELECT count(*) FROM memories m WHERE +m.project IS :project"
    " AND m.trust IN ('pending', 'disputed') AND m.trust != 'accepted'"
    " AND m.retired_at IS NULL AND m.redacted_at IS NULL"
)
COUNT_SQL = "SELECT count(*) FROM memories m WHERE {clause}"


class Session:
    """One open store and who is acting on it, for the length of the screen."""

    def __init__(self, root: str, environ: Mapping[str, str]) -> None:
        self.root = root
        self.environ = environ
        self.store = Store.open(root, options=Options.from_environ(environ))
        self.project = projects.load_project_id(root)
        self.identity = resolve(self.project, environ)
        origin = harness_origin(environ)
        # As the CLI names its actor (cli/context.py): the capability from the
        # environment only, the name from the partition or the origin.
        token = environ.get("TREE_RING_COORDINATOR_TOKEN") or None
        self.actor = Actor(self.identity.agent_profile or origin.kind, origin, capability=token)
        self.whole_project = not origin.is_agent
        self.totals: dict[str, int] = {}
        self.listed: int | None = None  # live rows the memory list would show, all pages

    def close(self) -> None:
        self.store.close()

    def data_version(self) -> int:
        """Changes whenever another connection commits: the watch's cheap poll."""
        return int(self.store.db.scalar("PRAGMA data_version") or 0)

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

    def dashboard(self, state: State, *, inbox_count: bool = True) -> Dashboard:
        """The header's figures and the ring panel, from one pass (`SCAN_SQL`);
        the inbox's count, a pass of its own, unless `inbox_count` is False
        (the first frame, which then keeps the count it had, if any).

        `live` and every ring's count are the rows the memory list shows at
        the screen's toggles (accepted, pending and disputed; other
        sensitivities only with `i`), so the header's `live:` is the list's
        `Memories (N)` and the rings add up to it. `private` counts the live
        rows of other sensitivities whether they are shown or not.
        """
        from tree_ring.review import inbox

        clause = self.where(self.view(state, include_sensitive=True, include_superseded=False))
        sums: dict[str, list[float]] = {ring: [0, 0.0, 0.0, 0] for ring in RINGS}
        events: dict[str, dict[str, int]] = {ring: {} for ring in RINGS}
        listed = hidden = 0
        for ring, event, private, count, conf, sal in self.store.query(
            SCAN_SQL.format(clause=clause.sql), clause.params
        ):
            shown = state.include_sensitive or not private
            listed += count if shown else 0
            hidden += count if private else 0
            if ring not in sums:
                continue  # a value no ring has (a hand-edited row): listed, not drawn
            total = sums[ring]
            total[3] += count if private else 0
            if not shown:
                continue
            total[0] += count
            total[1] += conf or 0.0
            total[2] += sal or 0.0
            events[ring][event] = events[ring].get(event, 0) + count
        self.listed = None if state.include_superseded else listed
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
        return Dashboard(
            rings=rings,
            live=listed,
            private=hidden,
            review=int(self.store.db.scalar(QUEUED_SQL, {"project": self.project}) or 0),
            inbox=inbox.count(self.store, self.project)
            if self.whole_project and inbox_count
            else state.dashboard.inbox,
        )

    def load(self, state: State, *, inbox_count: bool = True) -> None:
        """The current view's rows, the dashboard, and the audit log if open."""
        state.dashboard = self.dashboard(state, inbox_count=inbox_count)
        loader = {
            "memories": self._memories,
            "search": self._search,
            "review": self._review,
            "inbox": self._inbox,
            "stream": self._stream,
            "evidence": self._evidence,
            "integrations": self._integrations,
        }.get(state.view, self._memories)
        state.set_items(self._traced(state, loader(state)))
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

        noted = usage.notes_of(self.store, [i.key for i in items if i.memory is not None])
        return [replace(i, notes=noted[i.key]) if i.key in noted else i for i in items]

    def audit(self, state: State) -> None:
        memory = state.selected_memory()
        state.audit = (
            [] if memory is None else audit.entries(self.store.db, limit=50, target=memory.id)
        )

    def _listed(self, state: State, filters: dict[str, str]) -> list[Item]:
        clause = self.where(self.view(state))
        sql = listing.list_sql(clause, tuple(filters))
        found = self.store.query(sql, {**clause.params, **filters, "limit": PAGE})
        count_sql = COUNT_SQL.format(clause=clause.sql) + "".join(
            f" AND m.{column} = :{column}" for column in filters
        )
        if len(found) < PAGE:
            self.totals[state.view] = len(found)
        elif not filters and self.listed is not None:
            self.totals[state.view] = self.listed  # counted by the dashboard's pass
        else:
            self.totals[state.view] = int(
                self.store.db.scalar(count_sql, {**clause.params, **filters})
            )
        return [Item(row["id"], rows.from_row(row)) for row in found]

    def _memories(self, state: State) -> list[Item]:
        return self._listed(state, {})

    def _evidence(self, state: State) -> list[Item]:
        return self._listed(state, {"source_type": "evidence"})

    def _search(self, state: State) -> list[Item]:
        from tree_ring.read.recall import recall

        if not state.query:
            return []
        hits = recall(self.store, self.identity, state.query, limit=100, view=self.view(state))
        self.totals[state.view] = len(hits)
        return [Item(h.memory.id, h.memory, note=f"{h.score:.3f}") for h in hits]

    def _review(self, state: State) -> list[Item]:
        from tree_ring.review import queue as review
        from tree_ring.write import requests

        waiting = review.queue(self.store.db, self.project)
        items = [Item(w.memory.id, w.memory, pair=w.contradicts) for w in waiting]
        for r in requests.waiting(self.store.db, self.project):
            items.append(
                Item(
                    r.id,
                    text=f"forget {r.memory_id} ({r.mode}) asked by {r.actor}",
                    detail=tuple(f"{k}: {v}" for k, v in r.to_dict().items() if v is not None),
                )
            )
        self.totals[state.view] = len(items)
        return items

    def _inbox(self, state: State) -> list[Item]:
        """Agents' rows the person has not seen; reading them marks nothing
        seen (only `keep` and the other decisions do), so looking stays a read."""
        from tree_ring.review import inbox

        if not self.whole_project:
            return []  # the inbox is the person's; an agent's environment sees none
        found = inbox.unseen(self.store, self.project, limit=PAGE)
        self.totals[state.view] = found.total
        return [Item(i.memory.id, i.memory, note=f"{i.partition}: {i.why}") for i in found.items]

    def _stream(self, state: State) -> list[Item]:
        entries = audit.entries(self.store.db, limit=200)[::-1]
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
        done: str = handler(action)
        return done

    def _do_approve(self, action: Action) -> str:
        from tree_ring.review import queue as review

        d = review.approve(self.store, _target(action), actor=self.actor)
        return f"approved {d.id} (now {d.trust})"

    def _do_reject(self, action: Action) -> str:
        from tree_ring.review import queue as review

        d = review.reject(self.store, _target(action), actor=self.actor, reason=action.reason or "")
        return f"rejected {d.id} (now {d.trust})"

    def _do_dispute(self, action: Action) -> str:
        from tree_ring.review import queue as review

        d = review.dispute(
            self.store, _target(action), actor=self.actor, reason=action.reason or ""
        )
        return f"disputed {d.id} (now {d.trust})"

    def _forget(self, action: Action, mode: str) -> str:
        from tree_ring.write import correct

        done = correct.forget(
            self.store,
            _target(action),
            mode=mode,
            reason=action.reason or "",
            actor=self.actor,
            reader=self.identity,
        )
        if done.request is not None:
            return f"requested {done.request}: forgetting {done.id} waits for a person"
        verb = "deleted" if mode == "delete" else "redacted"
        tail = f"; {done.lingering}" if done.lingering else "; its content will not be stored again"
        return f"{verb} {done.id}{tail}"

    def _do_forget(self, action: Action) -> str:
        return self._forget(action, "delete")

    def _do_redact(self, action: Action) -> str:
        return self._forget(action, "redact")

    def _do_ring(self, action: Action) -> str:
        """A new row in the new ring that supersedes the old, in the old row's
        partition: rings are not edited in place, so `--as-of` still finds
        what was believed before."""
        from tree_ring.write import verbs

        old = rows.get(self.store.db, _target(action))
        ring = action.args[0]
        if old.ring == ring:
            return f"{old.id} is already {ring}"
        said: dict[str, Any] = {
            spec.name: getattr(old, spec.name)
            for spec in caller_fields()
            if spec.name not in ("operation_id", "supersedes", "valid_from", "valid_to")
        }
        said.update(ring=ring, supersedes=old.id)
        partition = Identity(
            old.project or self.project, old.agent_profile, old.workflow_id, old.session_id
        )
        result = verbs.remember(self.store, verbs.Draft(**said), partition, self.actor)
        state = "" if result.trust == "accepted" else f" ({result.trust}: {result.review_reason})"
        return f"{old.id} is now {result.id} in {ring}{state}"

    def _do_promote(self, action: Action) -> str:
        """An agent's partition memory into the project (or the person's own
        store with `global`), in place; a memory already shared, to heartwood."""
        from tree_ring.model.record import PRIVATE_SCOPES
        from tree_ring.review import promote

        memory = rows.get(self.store.db, _target(action))
        if memory.scope not in PRIVATE_SCOPES and not action.args:
            return self._do_ring(Action("ring", memory.id, ("heartwood",)))
        if action.args[:1] == ("global",):
            from tree_ring.store.user import open_user

            user = open_user(self.environ, create=True)
            assert user is not None  # created when missing
            try:
                done = promote.promote(
                    self.store, memory.id, actor=self.actor, reason=action.reason or "",
                    scope=promote.GLOBAL, user_store=user,
                )  # fmt: skip
            finally:
                user.close()
        else:
            done = promote.promote(
                self.store, memory.id, actor=self.actor, reason=action.reason or ""
            )
        return f"promoted {done.id} from {done.from_scope} to {done.scope} ({done.store} store)"

    def _do_keep(self, action: Action) -> str:
        from tree_ring.review import inbox

        inbox.keep(self.store, self.project, [_target(action)], self.actor)
        return f"kept {action.target} where it is; the inbox shows it no more"

    def _do_supersede(self, action: Action) -> str:
        from tree_ring.review import settle  # a contradicted pair is settled in one step

        old, new = action.args[0], _target(action)
        done = settle.supersede(self.store, old, new, reason=action.reason or "", actor=self.actor)
        if not done.applied:
            return f"{old} will be superseded by {new} when {new} is approved"
        settled = f" ({new} approved: the contradiction is settled)" if done.approved else ""
        return f"{old} is superseded by {new}{settled}"

    def _do_remember(self, action: Action) -> str:
        from tree_ring.write import verbs

        result = verbs.remember(self.store, verbs.Draft(action.args[0]), self.identity, self.actor)
        tail = "" if result.trust == "accepted" else f" as {result.trust}"
        return f"stored {result.id}{tail}"

    def _do_consolidate(self, action: Action) -> str:
        from tree_ring.upkeep import consolidate

        report = consolidate.consolidate(self.store, self.project, action.args[0], actor=self.actor)
        written = [g for g in report.groups if g.written]
        return f"consolidated {report.period.label}: {len(written)} summaries written"

    def _do_export(self, action: Action) -> str:
        from tree_ring.transfer import jsonl as transfer

        folder = (Path(projects.store_path_str(self.root)).parent / EXPORTS).resolve()
        target = (folder / action.args[0]).resolve()
        if not target.is_relative_to(folder):
            return f"refused: {action.args[0]} leads out of {folder}"
        if target.exists():
            return f"refused: {target} exists; choose another name"
        target.parent.mkdir(parents=True, exist_ok=True)
        count = 0
        with open(target, "x", encoding="utf-8") as out:
            for record in transfer.export_rows(self.store, self.project, View()):
                out.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
                count += 1
        return f"wrote {count} lines to {os.path.relpath(target, self.root)}"

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
        report = sync.sync(self.store, root, self.project, self.actor)
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
