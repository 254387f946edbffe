"""The settings table: every setting's default, declared once, and one encoder.

A setting is a key of the `settings` table whose value is canonical JSON
(`canonical_json`), whoever writes it. A key that is not stored reads as its
default from `DEFAULTS`; a key that is not declared there is a programming
error (KeyError), so a default can never be spelled in two places. The typed
views live beside their owners and read and write only through here: the
summary tree's budgets (`tree/nodes.config`), the review policy
(`govern/admission.policy_settings`) and the write policy
(`govern/coordinator.state`).
"""

from __future__ import annotations

from types import MappingProxyType

from tree_ring.model import jsontext
from tree_ring.model.project import valid_project_id
from tree_ring.model.record import canonical_json

# Not imported at run time: every hook call imports this module.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

    from tree_ring.store.sql import Db

# The summary tree's budgets (tree_ring/tree/). Migration 0003 stores these in
# every store it builds, so changing one here changes new stores only; an
# existing store keeps the value it was given until `tree config --set`.
TREE: Mapping[str, int | bool] = MappingProxyType(
    {
        "tree.input_token_budget": 50_000,  # L0 seals when its leaves reach this many tokens
        "tree.output_token_budget": 5_000,  # a node's content is clamped to budget * 4 chars
        "tree.summary_fanout": 10,  # L1+ seals when this many siblings wait
        "tree.flush_age_secs": 604_800,  # an L0 buffer this old is force-sealed (7 days)
        "tree.deferred": False,  # True: appends only stage; `tree flush` seals
    }
)

# What waits for a person's review (tree_ring/govern/admission.py); true: it waits.
REVIEW_POLICY: Mapping[str, bool] = MappingProxyType(
    {
        "agent_shared": True,  # an agent may not publish to the whole project on its own
        "agent_heartwood": True,  # nor write durable truth, in any scope
        "agent_weight": True,  # nor pin a memory or weigh it above admission.MAX_AGENT_WEIGHT
        "agent_replacements": True,  # nor retire shared memory it did not write
        "imported_authority": True,  # an import is only as good as its source
        "contradictions": True,  # a write that contradicts a live memory waits
        # Not a reason to wait but a sharing rule: true, an accepted capture
        # joins the shared project scope at once (still agent-origin), so every
        # harness's next brief can show it without a person's promote.
        "share_captures": False,
    }
)

# The coordinated write policy (tree_ring/govern/coordinator.py): open until a
# person enables it; the capability is kept only as its hash.
WRITE_POLICY: Mapping[str, str | None] = MappingProxyType(
    {
        "mode": "open",  # open | coordinated
        "coordinator": None,  # who holds the capability
        "token_hash": None,  # sha256:<hex> of the capability, never the token
        "enabled_at": None,
        "rotated_at": None,
    }
)

# When the Stop hook asks the agent to capture (tree_ring/harness/checkpoint.py).
CHECKPOINT: Mapping[str, str | int] = MappingProxyType(
    {
        "checkpoint": "after-work",  # after-work | every-stop | session-end | off
        "checkpoint.interval": 30,  # minutes: after-work asks at most once per this, per session
    }
)

# The team ledger as the last sync saw it (tree_ring/team/sync.py): the
# SessionStart hook compares the file's size and time with these before it
# reads a byte, and when they moved, the file with the bytes kept beside the
# store (tree_ring/team/ledger_delta.py).
LEDGER: Mapping[str, Any] = MappingProxyType(
    {
        "size": None,  # bytes of .tree-ring/ledger.jsonl at the last sync
        "mtime_ns": None,  # its modification time then
        "sha256": None,  # sha256:<hex> of its bytes then (a full sync's; None after the hook's)
        "clone": None,  # this store's anchor id in the ledger (16 hex digits)
        "seen": None,  # [size, mtime_ns] of the side file holding those bytes, as written
        # The fingerprint of each id more than one of those lines may name
        # (team/ledger_prints.py: "blake2b-128:" and 32 hex digits each, sorted):
        # a removed line of any other id hid none. None or another format: not known.
        "shared": None,
        # How far the SessionStart hook's full pass over a large ledger got, a
        # part per session (team/ledger_catchup.py): [sha256:<hex> of the file,
        # the upstream ledger's blob id, ids done]; None when nothing is left.
        "catchup": None,
    }
)

# The upstream's ledger as the last sync that read it found it; every line it
# held was applied then (tree_ring/team/ledger_delta.py).
LEDGER_UPSTREAM: Mapping[str, Any] = MappingProxyType(
    {
        "ref": None,  # the remote-tracking ref, e.g. refs/remotes/origin/main
        "oid": None,  # the blob id of its ledger
        # The fingerprint of each of its lines (team/ledger_prints.py); in another
        # format (an older version's CRC-32s), the whole record reads as absent.
        "lines": "",
    }
)

# The ledger lines taken as claims, as they were written (team/ledger_delta.py):
# the hook passes over one again without checking it (`provenance` holds the
# checked line's hash, which only a full check can compute).
LEDGER_CLAIMS: Mapping[str, Any] = MappingProxyType(
    {
        # The fingerprint of each raw line (team/ledger_prints.py); in another
        # format, none (each is read again; a claim is still taken once).
        "lines": "",
    }
)

# The guard's verdicts on ledger lines it read whole (team/ledger_verdicts.py):
# by each line's hash, None where it found nothing, else why the line is left
# out; `guard`, the guard's code they were reached by, so a new rule reads again.
LEDGER_VERDICTS: Mapping[str, Any] = MappingProxyType({"guard": None, "lines": {}})

# The lines of records this version does not know that the last write of the
# ledger carried (team/ledger_carried.py): each raw line's fingerprint, so a
# sync carries only those and the upstream's (another line is a claim); and,
# when the write judged them, the byte they start at in the file it wrote,
# the hash of their bytes and the guard and forgets they were judged under,
# so a person's write copies them through unread while those hold.
LEDGER_CARRIED: Mapping[str, Any] = MappingProxyType({"lines": ""})

# The upstream's ledger lines this store leaves out because the store read
# beside it holds their ids, which the ledger it writes keeps as they stand
# (team/ledger_beside.py): each line's fingerprint.
LEDGER_BESIDE: Mapping[str, Any] = MappingProxyType({"lines": ""})

# A count every change to the content tombstones moves (tree_ring/store/moved.py,
# kept by triggers from migration 0024); None: not kept.
TOMBSTONES_MOVED: Mapping[str, int | None] = MappingProxyType({"tombstones.changes": None})

# What the brief found of the rows it read, kept for the next brief
# (tree_ring/read/brief_checks.py): the texts the guard found clean under
# `code`, and each store's answers against the other's forgets.
BRIEF_CHECKS: Mapping[str, Any] = MappingProxyType({"code": None, "clean": [], "forgets": {}})

# What the person has seen of the inbox (review/inbox.py): agent rows created
# after `at`, and beyond it the ids in `ids`.
INBOX_SEEN: Mapping[str, Any] = MappingProxyType({"at": None, "ids": ()})

# The project this store belongs to (store/db.py, `Store.open`): recorded from
# project.json as the store is made; a store made before the record adopts the
# id most of its rows hold (migration 0020), else project.json's at its next
# open. A project.json naming another project is refused: a committed file
# cannot take the store's memories and tombstones out of every read and write.
# "": not recorded yet.
OWNER = "project"
PROJECT: Mapping[str, str] = MappingProxyType({OWNER: ""})

# The settings whose value is an object: read as a fresh dict each time.
_OBJECTS: Mapping[str, Mapping[str, Any]] = MappingProxyType(
    {
        "review_policy": REVIEW_POLICY,
        "write_policy": WRITE_POLICY,
        "ledger": LEDGER,
        "ledger_upstream": LEDGER_UPSTREAM,
        "ledger_claims": LEDGER_CLAIMS,
        "ledger_verdicts": LEDGER_VERDICTS,
        "ledger_carried": LEDGER_CARRIED,
        "ledger_beside": LEDGER_BESIDE,
        "inbox_seen": INBOX_SEEN,
        "brief_checks": BRIEF_CHECKS,
    }
)
DEFAULTS: Mapping[str, Any] = MappingProxyType(
    {**TREE, **CHECKPOINT, **PROJECT, **TOMBSTONES_MOVED, **_OBJECTS}
)


def default(key: str) -> Any:
    """A fresh copy of the declared default (plain dicts, safe to change)."""
    if key in _OBJECTS:
        return dict(_OBJECTS[key])
    value: Any = DEFAULTS[key]
    return value  # a number, a string, a boolean or None: immutable


def decode(key: str, raw: object) -> Any:
    """The stored value of a declared setting, or `UNREADABLE` when no reader
    can use it (not JSON, or not of its default's kind: a hand edit)."""
    if not isinstance(raw, str):
        return UNREADABLE
    try:
        value = jsontext.loads(raw)
    except ValueError:
        return UNREADABLE
    known: object = DEFAULTS.get(key)
    kind: type = dict if key in _OBJECTS else type(known)
    # The tree's numbers are read into their ranges whatever JSON they hold
    # (`tree/nodes.config`: a float is cut, text or null is the floor).
    coerced = key in TREE
    if known is not None and not coerced and type(value) is not kind:  # pyright: ignore[reportUnknownArgumentType]
        return UNREADABLE
    return value


# What `decode` gives for a value no reader can use: every read takes the
# default instead, and `doctor` names the key (`unreadable`).
UNREADABLE: Any = object()


def unreadable(db: Db) -> list[str]:
    """The declared settings whose stored value no reader can use, by key."""
    found = db.query("SELECT key, value FROM settings ORDER BY key")
    return [str(key) for key, raw in found if key in DEFAULTS and decode(key, raw) is UNREADABLE]


def store_tree_defaults(db: Db) -> None:
    """The tree's budgets as their one declaration (`TREE`) says, where unset:
    as the migration that made the tree stored them."""
    for key, value in TREE.items():
        db.execute("INSERT OR IGNORE INTO settings(key, value) VALUES (?, ?)", (key, encode(value)))


def reset(db: Db, keys: Iterable[str]) -> None:
    """Forget the stored values of `keys`, so each reads as its default."""
    for key in keys:
        db.execute("DELETE FROM settings WHERE key = ?", (key,))


def read(db: Db, key: str) -> Any:
    """The stored value of a declared setting, or its default."""
    return read_many(db, (key,))[key]


def stored(db: Db, key: str) -> Any:
    """The value stored under `key`, decoded, or None when nothing is stored
    (no default: a caller that must tell "never written" apart). One row, so
    the SessionStart hook can ask it before deciding to read the ledger."""
    raw = db.scalar("SELECT value FROM settings WHERE key = ?", (key,))
    value = decode(key, raw) if raw is not None else None
    return None if value is UNREADABLE else value


def read_many(db: Db, keys: Iterable[str]) -> dict[str, Any]:
    """Declared settings in one query: stored values, defaults for the rest."""
    wanted = {key: default(key) for key in keys}
    if not wanted:
        return wanted
    marks = ", ".join("?" * len(wanted))
    sql = f"SELECT key, value FROM settings WHERE key IN ({marks})"
    for key, raw in db.execute(sql, tuple(wanted)):
        value = decode(key, raw)
        if value is not UNREADABLE:  # else the default stands
            wanted[key] = value
    return wanted


def write(db: Db, key: str, value: Any) -> None:
    """Store a declared setting, in the caller's transaction."""
    if key not in DEFAULTS:
        raise KeyError(f"undeclared setting {key!r}; declare its default in store/settings.py")
    db.execute(
        "INSERT INTO settings(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, encode(value)),
    )


def encode(value: Any) -> str:
    """The one encoding of a setting's value."""
    return canonical_json(value)


# The id most of a store's rows and content tombstones hold, else `named`,
# recorded unless an id is. The user store's own id (store/user.py,
# USER_PROJECT) is no project's. Only an id `project.valid_project_id` takes
# is adopted: a slug, whose JSON is itself in quotes.
_ADOPT_PROJECT = """
INSERT OR IGNORE INTO settings(key, value)
SELECT 'project', '"' || project || '"' FROM (
    SELECT project, count(*) AS n FROM (
        SELECT project FROM memories WHERE project IS NOT NULL
        UNION ALL SELECT project FROM content_tombstones
    )
    WHERE project != 'user' AND length(project) BETWEEN 1 AND 64
        AND project GLOB '[A-Za-z0-9]*' AND project NOT GLOB '*[^A-Za-z0-9._-]*'
    GROUP BY project
    UNION ALL SELECT :named, 0 WHERE :named IS NOT NULL
) ORDER BY n DESC, project LIMIT 1
"""


def adopt_project(db: Db, named: str | None = None) -> str | None:
    """Record the project this store belongs to, unless one is (`_ADOPT_PROJECT`),
    in the caller's transaction; the id recorded, None while there is none."""
    db.execute(_ADOPT_PROJECT, {"named": named})
    return recorded_project(db)


def recorded_project(db: Db) -> str | None:
    """The project this store belongs to, or None when none is recorded."""
    value = stored(db, OWNER)
    return value if isinstance(value, str) and valid_project_id(value) else None
