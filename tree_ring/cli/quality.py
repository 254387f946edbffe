"""The `quality` verb: run the recall quality scenarios and print the rates."""

from __future__ import annotations

from pathlib import Path

from tree_ring.cli.context import Arguments, Context, Handler, reshaped
from tree_ring.upkeep import quality

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def table(report: quality.QualityReport) -> str:
    width = max([8, *(len(s.name) for s in report.scenarios)])
    lines = [f"{'scenario':<{width}}  {'category':<23}  expected  forbidden  result"]
    for s in report.scenarios:
        found = f"{len(s.expected) - len(s.missed)}/{len(s.expected)}"
        leaked = f"{len(s.forbidden_recalled)}/{len(s.forbidden)}"
        result = "ok" if s.passed else "FAIL"
        lines.append(f"{s.name:<{width}}  {s.category:<23}  {found:<8}  {leaked:<9}  {result}")
        if s.error:
            lines.append(f"  error: {s.error}")
        lines += [f"  missed: {label}" for label in s.missed]
        lines += [f"  forbidden recalled: {label}" for label in s.forbidden_recalled]
        for d in s.decisions:
            mark = "ok" if d.passed else "MISMATCH"
            lines.append(
                f"  write {d.memory_id}: expected {d.expected}, got {d.actual} ({d.outcome}); "
                f"{mark}" + (f"; fixture: {d.reason}" if d.reason else "")
            )
        lines += [f"  evidence ref not kept: {ref}" for ref in s.evidence_missing]
        if s.behavior is not None:
            b = s.behavior
            recalled = "recalled" if b.required_memory_recalled else "NOT recalled"
            declared = "holds" if b.decision_changed and b.expected_decision_reached else "FAILS"
            lines.append(
                f"  behaviour: {b.behavior.required_memory_id} {recalled} (observed); the "
                f"fixture's declared decision change {declared} (declared, no agent run)"
            )
    lines.append(quality.summary_line(report.to_dict()))
    return "\n".join(lines)


def cmd_quality(ctx: Context) -> int:
    paths = [Path(p) for p in ctx.args.paths] or [quality.DEFAULT_PATH]
    report = quality.run(paths)
    ctx.emit(reshaped(report.to_dict(), "scenarios"), table(report))
    return 0 if report.passed else 1


def _quality_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="scenario files or directories (default: the plugin's fixtures/quality)",
    )


EXAMPLES: dict[str, tuple[str, ...]] = {
    "quality": ("tree-ring quality", "tree-ring quality fixtures/quality/scar-for-failure.json"),
}


VERBS: dict[str, tuple[Handler, Arguments]] = {"quality": (cmd_quality, _quality_arguments)}
