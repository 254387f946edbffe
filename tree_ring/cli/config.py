"""`tree-ring config`: a person's view of the project's settings, one place to change them.

The settings are the store's declared ones (`store/settings.py`), read and
written through their owners' typed views, so `config` is the same mechanism
as `review policy --set` and `tree config --set`, with one key naming each:

- `checkpoint`, `checkpoint.interval`: when the Stop hook asks the agent to
  capture (`harness/checkpoint`);
- `tree.<budget>`: the summary tree's budgets (`tree/nodes`);
- `review.<rule>`: what waits for review (`govern/admission`).

`config set` takes several KEY=VALUE pairs, each key once, and writes all of
them or none.
"""

from __future__ import annotations

import argparse
from typing import Any

from tree_ring.cli.argparsing import Formatter
from tree_ring.cli.context import Context, Handler, nested, once
from tree_ring.govern import admission, coordinator
from tree_ring.harness import checkpoint
from tree_ring.model.errors import UsageError
from tree_ring.store import audit, settings
from tree_ring.store.sql import Db
from tree_ring.tree import nodes

REVIEW = "review."
TREE = "tree."
EXAMPLES: dict[str, tuple[str, ...]] = {
    "config": (
        "tree-ring config list",
        "tree-ring config set checkpoint=every-stop",
        "tree-ring config set checkpoint=after-work checkpoint.interval=60",
    ),
}
CADENCE_HELP = (
    """\
checkpoint (when the Stop hook asks the agent to save what a turn settled):
"""
    + "\n".join(f"  {name:<12} {meaning}" for name, meaning in checkpoint.CADENCES.items())
    + """
checkpoint.interval: minutes between after-work checkpoints in one session (0: no limit)
"""
)


def keys() -> list[str]:
    """Every key `config` knows, in the order `config list` shows them."""
    return [
        *checkpoint.KEYS,
        *settings.TREE,
        *(REVIEW + key for key in settings.REVIEW_POLICY),
    ]


def defaults() -> dict[str, Any]:
    values: dict[str, Any] = {
        key: settings.default(key) for key in (*checkpoint.KEYS, *settings.TREE)
    }
    values.update({REVIEW + key: value for key, value in settings.REVIEW_POLICY.items()})
    return values


def current(db: Db) -> dict[str, Any]:
    """Each key's effective value, as the code that uses it reads it."""
    cadence = checkpoint.cadence(db)
    values: dict[str, Any] = {
        checkpoint.MODE: cadence.mode,
        checkpoint.INTERVAL: cadence.interval_minutes,
    }
    values.update({TREE + key: value for key, value in nodes.config(db).__dict__.items()})
    values.update({REVIEW + key: value for key, value in admission.policy_settings(db).items()})
    return values


def _known(key: str) -> str:
    if key not in keys():
        from difflib import get_close_matches

        near = get_close_matches(key, keys(), n=1)
        hint = f"did you mean {near[0]}? " if near else ""
        raise UsageError(
            f"unknown setting {key[:60]!r}; {hint}`tree-ring config list` shows every key"
        )
    return key


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _item(key: str, value: Any, default: Any) -> dict[str, Any]:
    return {"key": key, "value": value, "default": default, "is_default": value == default}


def _lines(items: list[dict[str, Any]]) -> str:
    width = max((len(item["key"]) for item in items), default=0) + 1
    return "\n".join(
        f"{item['key'] + ':':<{width}} {_shown(item['value'])}"
        + ("" if item["is_default"] else f"  (default {_shown(item['default'])})")
        for item in items
    )


def cmd_config_list(ctx: Context) -> int:
    root = ctx.root()
    project_id = ctx.identity(root).project
    with ctx.store(root) as store:
        values = current(store.db)
    fallback = defaults()
    items = [_item(key, values[key], fallback[key]) for key in keys()]
    data = {
        "command": "config list",
        "project": project_id,
        "items": items,
        "total": len(items),
        "shown": len(items),
    }
    ctx.emit(data, _lines(items))
    return 0


def cmd_config_get(ctx: Context) -> int:
    key = _known(ctx.args.key)
    root = ctx.root()
    project_id = ctx.identity(root).project
    with ctx.store(root) as store:
        value = current(store.db)[key]
    default = defaults()[key]
    data = {"command": "config get", "project": project_id, **_item(key, value, default)}
    ctx.emit(data, _shown(value))
    return 0


def _pairs(words: list[str]) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for word in words:
        key, sep, value = word.partition("=")
        if not sep or not key.strip():
            raise UsageError(
                f"config set takes KEY=VALUE, e.g. checkpoint=after-work; got {word[:60]!r}"
            )
        key = _known(key.strip())
        once(key, (seen for seen, _ in pairs), "config set", f"{key}=VALUE")
        pairs.append((key, value.strip()))
    return pairs


def _flag(key: str, text: str) -> bool:
    flag = {"true": True, "false": False}.get(text.lower())
    if flag is None:
        raise UsageError(f"{key} is true or false, not {text[:20]!r}")
    return flag


def apply(db: Db, pairs: list[tuple[str, str]], actor: Any) -> None:
    """Write every pair in the caller's transaction, each through its owner."""
    review: dict[str, bool] = {}
    for key, text in pairs:
        if key in checkpoint.KEYS:
            checkpoint.set_value(db, key, text, actor)
        elif key.startswith(TREE):
            coordinator.authorize(db, "tree.config", actor, "tree settings")
            nodes.set_config(db, key, text)
            audit.append(db, actor, "tree-config", key, {"value": text})
        else:
            review[key.removeprefix(REVIEW)] = _flag(key, text)
    if review:
        admission.set_policy(db, review, actor)


def cmd_config_set(ctx: Context) -> int:
    pairs = _pairs(ctx.args.pairs)
    for key, text in pairs:  # every value checked before anything is written
        if key in checkpoint.KEYS:
            checkpoint.parse(key, text)
        elif key.startswith(REVIEW):
            _flag(key, text)
    root = ctx.root()
    identity = ctx.identity(root)
    actor = ctx.actor(identity)
    with ctx.store(root) as store:
        before = current(store.db)
        with store.write() as db:
            apply(db, pairs, actor)
        after = current(store.db)
    fallback = defaults()
    changed = [key for key, _ in pairs]
    items = [{**_item(key, after[key], fallback[key]), "before": before[key]} for key in changed]
    data = {
        "command": "config set",
        "project": identity.project,
        "items": items,
        "total": len(items),
        "shown": len(items),
    }
    ctx.emit(data, _lines(items))
    return 0


def _config_arguments(p: argparse.ArgumentParser) -> None:
    action = nested(p, "config_action", "config")
    action("list", cmd_config_list, "every setting, its value and its default")
    g = action("get", cmd_config_get, "one setting's value")
    g.add_argument("key", help="e.g. checkpoint, checkpoint.interval, tree.summary_fanout")
    s = action("set", cmd_config_set, "change settings: KEY=VALUE ..., each key once; all or none")
    s.epilog = CADENCE_HELP
    s.formatter_class = _Raw
    s.add_argument("pairs", nargs="+", metavar="KEY=VALUE")


class _Raw(argparse.RawDescriptionHelpFormatter, Formatter):
    """Examples keep their lines."""


def cmd_config(ctx: Context) -> int:
    handler: Handler = ctx.args.handler
    return handler(ctx)


VERBS: dict[str, tuple[Handler, Any]] = {"config": (cmd_config, _config_arguments)}
