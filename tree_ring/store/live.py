"""The one definition of a live memory, and who may see it.

Every read path (recall, the brief, list, export, the tree) builds its WHERE
clause here, so "live" cannot mean two things. A row is live at record time T
and validity time V when it was recorded by T and not retired by T (not
superseded, rejected or redacted), its validity interval covers V, it has not
expired by T, it is accepted (pending and disputed only when asked), and its
sensitivity is normal (others only when asked). A superseded row is still
believed, at any T after its supersession, for the validity interval that
supersession closed: `--valid-at` in the past finds what held then.

Visibility is the project plus its shared scopes plus the caller's own
agent / workflow / session partitions. Both clauses run in SQL before any
candidate cap, so no number of invisible rows can starve a visible one.

`whole_project` is for a person at the terminal: `list`, `show` and `export`
then see every partition. An agent's see exactly what its
recall sees, through this same clause, whatever the verb.
"""

from __future__ import annotations

from tree_ring.model.frozen import Frozen
from tree_ring.model.identity import Identity
from tree_ring.model.record import PRIVATE_SCOPES, SHARED_SCOPES, now_iso

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class View(Frozen):
    """What a read asks for. `as_of` is record time; `valid_at` is validity time."""

    as_of: str | None = None
    valid_at: str | None = None
    include_sensitive: bool = False
    include_unreviewed: bool = False  # pending and disputed rows, labelled by callers
    include_superseded: bool = False  # export only, on request

    def is_now(self) -> bool:
        """Current belief about the present: the form partial indexes serve."""
        return not self.include_superseded and self.as_of is None and self.valid_at is None

    def record_time(self) -> str:
        return self.as_of or now_iso()

    def validity_time(self) -> str:
        return self.valid_at or self.record_time()


class Clause(Frozen):
    sql: str
    params: dict[str, Any]


def live(view: View, alias: str = "m") -> Clause:
    m = alias
    t = view.record_time()
    params: dict[str, Any] = {"live_t": t, "live_v": view.validity_time()}
    parts = [
        f"{m}.created_at <= :live_t",
        f"{m}.redacted_at IS NULL",
        f"({m}.expires_at IS NULL OR {m}.expires_at > :live_t)",
    ]
    if view.is_now():
        # Now, a retired or superseded row is simply gone; the index on
        # retired_at IS NULL serves this form.
        parts += [
            f"{m}.retired_at IS NULL",
            f"{m}.superseded_by IS NULL",
            f"{m}.valid_from <= :live_v",
            f"({m}.valid_to IS NULL OR {m}.valid_to > :live_v)",
        ]
    elif not view.include_superseded:
        # At another time: a row counts if it was current belief at T. A
        # superseded row stays believed for the interval supersession closed
        # its validity to (A held from t0 until B took over at t1; a correction
        # closes it to nothing), and before it was superseded that interval
        # was still open. A superseded row with no closed interval (an old
        # import) and rejected or redacted rows never count after retirement.
        parts += [
            f"({m}.retired_at IS NULL OR {m}.retired_at > :live_t"
            f" OR ({m}.superseded_by IS NOT NULL AND {m}.valid_to IS NOT NULL))",
            f"{m}.valid_from <= :live_v",
            f"({m}.valid_to IS NULL OR {m}.valid_to > :live_v"
            f" OR ({m}.superseded_by IS NOT NULL AND {m}.retired_at > :live_t))",
        ]
    trusted = ["'accepted'"]
    if view.include_unreviewed:
        trusted += ["'pending'", "'disputed'"]
    if view.include_superseded:
        trusted += ["'rejected'"]
    parts.append(f"{m}.trust IN ({', '.join(trusted)})")
    if not view.include_sensitive:
        parts.append(f"{m}.sensitivity = 'normal'")
    return Clause(" AND ".join(parts), params)


def visible(
    identity: Identity, alias: str = "m", scope: str | None = None, *, whole_project: bool = False
) -> Clause:
    """The project's shared scopes plus the caller's own partitions; with
    `whole_project` (a person's list, show and export), every partition."""
    m = alias
    params: dict[str, Any] = {"vis_project": identity.project}
    if whole_project:
        sql = f"{m}.project = :vis_project"
        if scope is not None:
            params["vis_scope"] = scope
            sql += f" AND {m}.scope = :vis_scope"
        return Clause(sql, params)
    shared = ", ".join(f"'{s}'" for s in SHARED_SCOPES)
    options = [f"{m}.scope IN ({shared})"]
    partitions = {
        "agent": ("agent_profile", identity.agent_profile),
        "workflow": ("workflow_id", identity.workflow_id),
        "session": ("session_id", identity.session_id),
    }
    for private_scope in PRIVATE_SCOPES:
        column, value = partitions[private_scope]
        if value:
            params[f"vis_{column}"] = value
            options.append(f"({m}.scope = '{private_scope}' AND {m}.{column} = :vis_{column})")
    sql = f"{m}.project = :vis_project AND ({' OR '.join(options)})"
    if scope is not None:
        params["vis_scope"] = scope
        sql += f" AND {m}.scope = :vis_scope"
    return Clause(sql, params)


def where(
    identity: Identity,
    view: View,
    alias: str = "m",
    scope: str | None = None,
    *,
    whole_project: bool = False,
) -> Clause:
    a = visible(identity, alias, scope, whole_project=whole_project)
    b = live(view, alias)
    return Clause(f"{a.sql} AND {b.sql}", {**a.params, **b.params})
