"""The stop checkpoint's cadence: when the Stop hook asks the agent to capture.

Two declared settings (`store/settings.CHECKPOINT`), set by a person with
`tree-ring config set checkpoint=...`:

- `checkpoint`: `after-work` (the default) asks only after a turn that did
  something worth remembering (edited files, ran commands, called a tool that
  changes things), at most once per `checkpoint.interval` minutes per session;
  `every-stop` asks at the end of every turn; `session-end` asks once per
  session (neither harness gives the model a turn when a session ends, so this
  is the first stop after work, and no other); `off` never asks. The brief at
  session start is not affected by any of them.
- `checkpoint.interval`: minutes, 0 for no limit; after-work only.

Whatever the cadence, a turn gets at most one checkpoint, and only the main
session gets one: a subagent's stop passes and counts its work towards the
session's next stop.

Every hook call that stops reads these, so `stored` opens the database
directly through `store.sql` and the declared settings, without the store's
migrations: a missing or unreadable store reads as the defaults.
"""

from __future__ import annotations

from tree_ring.model.errors import UsageError
from tree_ring.model.frozen import Frozen
from tree_ring.model.text import whole_number
from tree_ring.store import settings

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.model.actor import Actor
    from tree_ring.model.project import StrPath
    from tree_ring.store.sql import Db

MODE = "checkpoint"
INTERVAL = "checkpoint.interval"
KEYS = (MODE, INTERVAL)
# What each cadence means, for `config` and `status` (and docs/CHECKPOINT.md).
CADENCES = {
    "after-work": "ask after a turn that changed something, at most once per interval",
    "every-stop": "ask at the end of every turn",
    "session-end": "ask once per session, at the first stop after work",
    "off": "never ask (the brief at session start stays)",
}
# How long the hook waits for a writer before it reads the defaults instead.
READ_TIMEOUT_MS = 200
MAX_INTERVAL = 7 * 24 * 60


class Cadence(Frozen):
    mode: str
    interval_minutes: int

    @property
    def label(self) -> str:
        if self.mode != "after-work":
            return self.mode
        if self.interval_minutes == 0:
            return "after-work (no interval)"
        return f"after-work (at most once per {self.interval_minutes} min per session)"


def from_values(values: dict[str, object]) -> Cadence:
    """The cadence from stored values; a value no version wrote reads as its default."""
    mode = values.get(MODE)
    if not (isinstance(mode, str) and mode in CADENCES):
        mode = str(settings.default(MODE))
    minutes = values.get(INTERVAL)
    if type(minutes) is not int or not 0 <= minutes <= MAX_INTERVAL:
        minutes = int(settings.default(INTERVAL))
    return Cadence(mode, minutes)


def cadence(db: Db) -> Cadence:
    """The effective cadence of an open store."""
    return from_values(settings.read_many(db, KEYS))


def stored(root: StrPath, project_id: str | None = None) -> Cadence:
    """The effective cadence of the project at `root`, read as cheaply as a hook
    can: no migrations, a short busy wait, and the defaults when the store is
    missing, locked or unreadable (a checkpoint must never fail a stop). A
    store that records another project than `project_id` (project.json's)
    raises ProjectMismatch, as its every open does (store/db.py): no
    checkpoint asks for a capture its store would refuse."""
    import os

    from tree_ring.model import project
    from tree_ring.model.errors import ProjectMismatch, StoreBusy, StoreFault
    from tree_ring.store.sql import open_db

    path = project.store_path_str(root)
    if not os.path.isfile(path):
        return from_values({})
    try:
        db = open_db(path, timeout_ms=READ_TIMEOUT_MS)
    except (StoreFault, StoreBusy):
        return from_values({})
    try:
        values = settings.read_many(db, (*KEYS, settings.OWNER))
    except (StoreFault, StoreBusy, ValueError):
        return from_values({})
    finally:
        db.conn.close()
    recorded = values.pop(settings.OWNER)
    if project_id is not None and project.valid_project_id(recorded) and recorded != project_id:
        raise ProjectMismatch(project.mismatch(project_id, recorded))
    return from_values(values)


def parse(key: str, text: str) -> str | int:
    """A setting's value from what a person typed, or a UsageError that says what fits."""
    raw = text.strip()
    if key == MODE:
        if raw not in CADENCES:
            raise UsageError(f"checkpoint is one of {', '.join(CADENCES)}, not {raw[:30]!r}")
        return raw
    if key == INTERVAL:
        minutes = raw.removesuffix("m").removesuffix("min").strip()
        # Measured by its length first: int() refuses a number of thousands of digits.
        if not whole_number(minutes) or len(minutes) > 20 or int(minutes) > MAX_INTERVAL:
            raise UsageError(
                f"checkpoint.interval is whole minutes from 0 to {MAX_INTERVAL} "
                f"(0: no limit), e.g. 30; not {raw[:20]!r}"
            )
        return int(minutes)
    raise UsageError(f"unknown checkpoint setting {key[:40]!r}; use one of: {', '.join(KEYS)}")


def set_value(db: Db, key: str, text: str, actor: Actor) -> Cadence:
    """Store one checkpoint setting: a person's decision, authorised and audited."""
    from tree_ring.govern import coordinator
    from tree_ring.store import audit

    value = parse(key, text)
    coordinator.authorize(db, "config.set", actor, key)
    before = settings.read(db, key)
    settings.write(db, key, value)
    audit.append(db, actor, "config-set", key, {"value": value, "before": before})
    return cadence(db)
