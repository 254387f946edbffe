"""Verbs that look after the store itself: doctor and maintain."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tree_ring.cli import progress
from tree_ring.cli.context import Arguments, Context, Handler, listing, reshaped
from tree_ring.govern import coordinator
from tree_ring.model.actor import Actor
from tree_ring.model.identity import harness_origin
from tree_ring.model.text import in_quotes
from tree_ring.store.db import Options
from tree_ring.upkeep import doctor, maintain

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def _actor(ctx: Context) -> Actor:
    """Applied maintenance and repairs are protected actions: carry the
    coordinator capability, when the environment holds one, to the gate."""
    origin = harness_origin(ctx.environ)
    return Actor(origin.kind, origin, capability=ctx.environ.get(coordinator.TOKEN_VAR) or None)


def cmd_doctor(ctx: Context) -> int:
    with progress.Reporter() as reporter:
        report = doctor.diagnose(
            Path(ctx.root()),
            repair=ctx.args.repair,
            actor=_actor(ctx),
            progress=reporter,
            busy_timeout_ms=Options.from_environ(ctx.environ).busy_timeout_ms,
        )
        mine = doctor.check_user_store(ctx.environ)
        if mine is not None:
            report.checks.append(mine)
    lines = [f"store {report.path}"]
    for check in report.checks:
        mark = "ok  " if check.ok else "FAIL"
        # A detail's further lines (each ledger line a sync skips) under its first.
        detail = check.detail.replace("\n", "\n" + " " * 18)
        lines.append(f"{mark} {check.name:<12} {detail}")
        if check.repaired:
            lines.append(f"     {'':<12} repaired: {check.repaired}")
    if not report.ok:
        hint = "" if report.repair else "; `tree-ring doctor --repair` rebuilds what it can"
        fixable = any(c.repairable and not c.ok for c in report.checks)
        if report.remedy:
            hint, fixable = f"; {report.remedy}", True
        lines.append("problems remain" + (hint if fixable else ""))
    ctx.emit(reshaped(report.to_dict(), "checks"), "\n".join(lines))
    return 0 if report.ok else 1


def cmd_maintain(ctx: Context) -> int:
    a = ctx.args
    if a.suggest:
        if a.apply_expired or a.apply_secret_sweep or a.vacuum:
            from tree_ring.model.errors import UsageError

            raise UsageError("--suggest changes nothing; run it without --apply-* and --vacuum")
        return _suggest(ctx)
    with ctx.project() as project:
        report = project.maintain(
            apply_expired=a.apply_expired,
            apply_secret_sweep=a.apply_secret_sweep,
            vacuum=a.vacuum,
        )
    lines = [
        f"{report.memories} memories, {report.bytes_before:,} bytes",
        f"expired: {len(report.deletable)} removable"
        + ("" if a.apply_expired or not report.deletable else " (--apply-expired deletes them)"),
    ]
    if report.withdrawn:
        lines.append(
            f"  of them no person stands behind (an agent's, or waiting for review; "
            f"deleted as their writer's end of them, with no tombstone): {len(report.withdrawn)}"
        )
    lines.append(
        f"expired but protected (scar, heartwood, durable, pinned; kept): {len(report.flagged)}"
    )
    lines += [_expired_line(e) for e in report.flagged]
    if report.left:
        lines.append(
            "expired but a person's to delete (an agent's maintain leaves them; kept): "
            f"{len(report.left)}"
        )
        lines += [_expired_line(e) for e in report.left]
    lines.append(
        f"caught by today's guard: {len(report.secrets)}"
        + ("" if a.apply_secret_sweep or not report.secrets else " (--apply-secret-sweep redacts)")
    )
    lines += [f"  {s.id} {s.field}: rule {s.rule}" for s in report.secrets]
    if report.deleted:
        kept_out = len(report.deleted) - len(report.withdrew)
        said = [f"deleted {len(report.deleted)} expired memories (reason: expired)"]
        if report.withdrew:
            said.append(f"{len(report.withdrew)} of them no person's, with no tombstone")
        if kept_out:
            said.append(
                f"{kept_out} a person's, their content tombstoned "
                "(`remember --override-tombstone` writes it again)"
            )
        lines.append("; ".join(said))
    if report.redacted:
        lines.append(f"redacted {len(report.redacted)} memories holding secrets")
    if report.vacuumed:
        lines.append(f"vacuumed: {report.bytes_before:,} -> {report.bytes_after:,} bytes")
    ctx.emit(maintain_data(report.to_dict()), "\n".join(lines))
    return 0


def _expired_line(e: maintain.Expired) -> str:
    return f"  {e.id} [{e.ring}, {e.retention}] expired {e.expires_at[:19]}Z"


def _suggest(ctx: Context) -> int:
    """`maintain --suggest`: what a person may want to decide on; changes nothing."""
    import time

    from tree_ring.upkeep import suggest

    # An agent's suggestions are of the rows its recall reads (`live.visible`); a
    # person's, all; neither's those whose content the user store forgot.
    with ctx.project() as project:
        found = suggest.suggest(
            project.store,
            project.project_id,
            time.time_ns(),
            reader=project.reader,
            forgotten=project.forgotten_elsewhere(),
        )
    lines: list[str] = []
    headings = {
        "refuted": "refuted or disputed (review approve, reject, or refute to retire)",
        "unused": f"neither injected nor recalled in {suggest.UNUSED_DAYS} days",
        "stale": "stale: anchored files changed",
    }
    for kind, heading in headings.items():
        items = found.of(kind)
        if kind == "stale" and not found.stale_checked:
            continue  # the anchored files were not judged
        lines.append(f"{heading}: {len(items)}")
        lines += [f"  {s.id}  {in_quotes(s.summary[:60])}  ({s.why[:100]})" for s in items]
    if found.log_since is not None:
        lines.append(f"the usage log reaches back to {found.log_since[:19]}Z")
    else:
        lines.append("the usage log is empty: no brief or recall has been logged yet")
    if found.skipped:
        lines.append(f"skipped {found.skipped:,} lines of the usage log that are not entries")
    lines += found.notes
    lines.append("nothing was changed")
    data = {
        "suggest": True,
        "unused_days": suggest.UNUSED_DAYS,
        "log_since": found.log_since,
        "stale_checked": found.stale_checked,
        "skipped_lines": found.skipped,
        "notes": found.notes,
        "counts": {kind: len(found.of(kind)) for kind in headings},
    }
    ctx.emit(data | listing([s.to_dict() for s in found.items]), "\n".join(lines))
    return 0


def maintain_data(report: dict[str, Any]) -> dict[str, Any]:
    """Maintain's report with its one list: every row it names, each with what
    it found (`kind`) and whether this run acted on it (`done`: deleted or
    redacted); the counts beside it. An expired row this caller removes says
    whether its removal is its writer's withdrawal (`withdrawn`); one an
    agent's maintain leaves for a person is `expired_for_person`."""
    deleted, redacted = set(report["deleted"]), set(report["redacted"])
    withdrawn = set(report["expired_withdrawn"])
    items: list[dict[str, Any]] = [
        {
            "kind": "expired_removable",
            "id": memory_id,
            "withdrawn": memory_id in withdrawn,
            "done": memory_id in deleted,
        }
        for memory_id in report["expired_deletable"]
    ]
    items += [
        {"kind": "expired_protected", **e, "done": False} for e in report["expired_protected"]
    ]
    items += [
        {"kind": "expired_for_person", **e, "done": False} for e in report["expired_for_person"]
    ]
    items += [{"kind": "secret", **s, "done": s["id"] in redacted} for s in report["secrets"]]
    lists = (
        "expired_deletable",
        "expired_withdrawn",
        "expired_protected",
        "expired_for_person",
        "secrets",
        "deleted",
        "withdrew",
        "redacted",
    )
    data = {key: value for key, value in report.items() if key not in lists}
    data |= {
        "expired_removable": len(report["expired_deletable"]),
        "expired_protected": len(report["expired_protected"]),
        "expired_for_person": len(report["expired_for_person"]),
        "secrets": len(report["secrets"]),
        "deleted": len(report["deleted"]),
        "withdrawn": len(report["withdrew"]),
        "redacted": len(report["redacted"]),
    }
    return data | listing(items)


def _doctor_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--repair",
        action="store_true",
        help="rebuild the FTS indexes and indexes, drop orphaned claims and tombstones",
    )


def _maintain_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--apply-expired",
        action="store_true",
        help=(
            "delete expired temporary memories, each with its writer's authority: an agent's "
            "note with no tombstone, a person's forgotten by a person's run only (protected "
            "ones are only flagged)"
        ),
    )
    p.add_argument(
        "--apply-secret-sweep",
        action="store_true",
        help="redact stored memories that today's guard rules catch",
    )
    p.add_argument(
        "--vacuum",
        action="store_true",
        help=(
            "merge the FTS indexes, code memories that have no sound meaning code (every "
            "memory again when another vector table coded them), and VACUUM"
        ),
    )
    p.add_argument(
        "--suggest",
        action="store_true",
        help="list memories for a person to decide on: refuted, unused in 90 days; changes nothing",
    )


EXAMPLES: dict[str, tuple[str, ...]] = {
    "doctor": ("tree-ring doctor", "tree-ring doctor --repair", "tree-ring --json doctor"),
    "maintain": (
        "tree-ring maintain",
        "tree-ring maintain --apply-expired --apply-secret-sweep",
        "tree-ring maintain --suggest",
    ),
}


VERBS: dict[str, tuple[Handler, Arguments]] = {
    "doctor": (cmd_doctor, _doctor_arguments),
    "maintain": (cmd_maintain, _maintain_arguments),
}
