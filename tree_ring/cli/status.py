"""`tree-ring status`: the project's counts, queues, policy, store and hooks, in a few lines."""

from __future__ import annotations

from typing import Any

from tree_ring.api.status import tombstones_said
from tree_ring.cli.context import Context
from tree_ring.harness.checkpoint import Cadence


def cmd_status(ctx: Context) -> int:
    with ctx.project() as project:
        data = project.status()
    ctx.emit(data, "\n".join(status_lines(data)))
    return 0


def _requests(waiting: int) -> str:
    """Requests to forget or confirm, when any wait: an agent's, or one an import raised."""
    if not waiting:
        return ""
    return f", {waiting} request{'s' if waiting != 1 else ''} to forget or confirm"


def status_lines(data: dict[str, Any]) -> list[str]:
    counts: dict[str, Any] = data["memories"]
    retired: dict[str, int] = counts["retired_by_reason"]
    lines = [
        f"project {data['project']} at {data['root']}",
        f"live memories: {counts['live']}"
        + (
            f" ({counts['sensitive']} sensitive: --include-sensitive)"
            if counts["sensitive"]
            else ""
        )
        + (f"; by ring: {_counts(counts['by_ring'])}" if counts["by_ring"] else ""),
        *(
            [f"upcoming: {counts['upcoming']} (valid from a later time; `list --valid-at TIME`)"]
            if counts["upcoming"]
            else []
        ),
        f"waiting for review: {counts['pending']} pending, {counts['disputed']} disputed"
        + _requests(data["review_requests"])
        + f" (`tree-ring review list`: {data['review_queue'] + data['review_requests']})"
        + _user_waiting(data["user_store"]),
        f"retired: {counts['retired']}" + (f" ({_counts(_named(retired))})" if retired else ""),
        f"forgotten content (tombstones): {tombstones_said(counts)}",
    ]
    waiting = next(i for i, line in enumerate(lines) if line.startswith("waiting for review"))
    lines.insert(waiting + 1, f"inbox: {data['inbox']} new from agents (`tree-ring inbox`)")
    if counts["other_projects"]:
        lines.append(f"rows of other projects in this store: {counts['other_projects']}")
    cadence = Cadence(data["checkpoint"], data["checkpoint_interval_minutes"])
    lines += [
        f"write policy: {data['write_policy']}",
        f"checkpoint: {cadence.label}",
        f"store size: {data['store_bytes']:,} bytes",
        _user_line(data["user_store"]),
    ]
    hooks: dict[str, dict[str, Any]] = data["hooks"]
    if not hooks:
        lines.append("hooks: none has fired in this project yet")
    for name, hook in hooks.items():
        lines.append(f"hooks {name}:")
        lines.append(f"  last brief (session start): {_brief(hook['last_brief'])}")
        if hook["last_subagent_brief"]:
            lines.append(f"  last subagent brief: {_brief(hook['last_subagent_brief'])}")
        stop: dict[str, Any] = hook["last_stop"] or {}
        lines.append(f"  last stop: {stop.get('at', 'never')}")
        fired = hook["events"]
        if fired:
            lines.append(
                "  fired: "
                + ", ".join(
                    f"{event} {seen.get('fired', 0)}x" for event, seen in sorted(fired.items())
                )
            )
    return lines


def _named(retired: dict[str, int]) -> dict[str, int]:
    """The retired counts as `status` names them: a row retired by a person's
    refutation or retirement is not "retired" inside "retired"."""
    return {("refuted or retired" if k == "retired" else k): n for k, n in retired.items()}


def _user_waiting(mine: dict[str, Any]) -> str:
    """What waits in the person's user store (an agent's global proposal,
    a note an agent refuted, a request to forget a note), beside the
    project's queue: every project's brief shows those notes once decided."""
    waiting = (mine.get("review_queue") or 0) + (mine.get("review_requests") or 0)
    return f"; in your user store: {waiting} (`review list --user`)" if waiting else ""


def _user_line(mine: dict[str, Any]) -> str:
    path = mine["path"]
    if "error" in mine:
        return f"user store: {path}: {mine['error']}"
    if not mine["exists"]:
        return f"user store: {path or 'no home folder'} (none yet; `remember --scope global`)"
    return (
        f"user store: {path}: {_memories(mine['memories'])}, {mine['live']} live,"
        + (f" {mine['upcoming']} upcoming," if mine.get("upcoming") else "")
        + f" {mine['review_queue']} waiting"
        + (
            f", {mine['review_requests']} request(s) to forget or confirm"
            if mine.get("review_requests")
            else ""
        )
    )


def _brief(entry: dict[str, Any] | None) -> str:
    if not entry:
        return "never"
    text = f"{entry.get('at', '?')} ({_memories(entry.get('count', 0))}"
    if "bytes" in entry:
        text += f", {entry['bytes']:,} bytes, ~{entry['tokens']:,} tokens"
    return text + ")"


def _memories(n: int) -> str:
    return f"{n} memor{'y' if n == 1 else 'ies'}"


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{key} {value}" for key, value in sorted(counts.items())) or "none"
