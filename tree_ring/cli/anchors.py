"""Verbs on the files memories are about: stale, confirm."""

from __future__ import annotations

from tree_ring.cli.context import Arguments, Context, Handler, listing, sensitive_flag
from tree_ring.model.text import in_quotes

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any


def cmd_stale(ctx: Context) -> int:
    from tree_ring.read import staleness, withheld

    with ctx.project() as project:
        every = project.stale()
        project_id = project.project_id
    # Sensitive rows only with --include-sensitive, as recall and list show them.
    view = ctx.view()
    found = [(memory, changed) for memory, changed in every if not withheld.hidden(memory, view)]
    hidden_rows = len(every) - len(found)
    items: list[dict[str, Any]] = [
        {
            "id": memory.id,
            "summary": memory.summary,
            "ring": memory.ring,
            "trust": memory.trust,
            "files": staleness.as_dicts(changed),
        }
        for memory, changed in found
    ]
    lines: list[str] = []
    for memory, changed in found:
        lines.append(f"{memory.id}  [{memory.ring}] {in_quotes(memory.summary)}")
        lines.extend(f"    {c.words()}" for c in changed)
    if hidden_rows:
        lines.append(f"{hidden_rows} sensitive withheld: --include-sensitive lists them")
    if found:
        lines.append(
            "`tree-ring confirm ID` re-anchors a memory that still holds; "
            "`tree-ring forget` or `supersede` one that does not"
        )
    data = {"project": project_id, "withheld": hidden_rows, **listing(items)}
    ctx.emit(data, "\n".join(lines) or "no stale memories")
    return 0


def cmd_confirm(ctx: Context) -> int:
    a = ctx.args
    with ctx.project() as project:
        done = project.confirm(a.id, reason=a.reason)
        identity = project.identity
    data = {
        "project": identity.project,
        "id": done.id,
        "request": done.request,
        "anchors": [x.to_dict() for x in done.anchors],
        "dropped": list(done.dropped),
    }
    if done.request is not None:
        text = f"asked a person to confirm {done.id} ({done.request}); `tree-ring review list`"
    else:
        text = f"confirmed {done.id}: anchored to {', '.join(x.path for x in done.anchors)}"
        if not done.anchors:
            text = f"confirmed {done.id}: it names no files now"
        if done.dropped:
            text += f"; no longer anchored to {', '.join(done.dropped)} (gone, or not a file now)"
    ctx.emit(data, text)
    return 0


def _stale_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Memories whose anchored files changed or were deleted since they were written "
        "(or last confirmed), with what changed for each."
    )
    sensitive_flag(p, "also list sensitive memories (withheld otherwise)")


def _confirm_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "A person says a memory still holds: it is re-anchored to its files as they are now "
        "(a file that is gone, or is no longer a regular file, drops out). An agent's confirm "
        "waits for a person's review."
    )
    p.add_argument("id", metavar="ID", help="the memory to confirm")
    p.add_argument("--reason", help="why it still holds; kept in the audit log")


EXAMPLES: dict[str, tuple[str, ...]] = {
    "stale": ("tree-ring stale", "tree-ring stale --json"),
    "confirm": (
        'tree-ring confirm mem_20261129_134645_2d7a81bd6071 --reason "retry logic unchanged"',
    ),
}

VERBS: dict[str, tuple[Handler, Arguments]] = {
    "stale": (cmd_stale, _stale_arguments),
    "confirm": (cmd_confirm, _confirm_arguments),
}
