#!/usr/bin/env python3
"""Build fixtures/stores/schema-0001.sqlite: a store as the first schema left it.

Only the first migration (`0001_initial`) is applied, and its ledger row says
so; a few rows are written with the columns that schema had, through plain
SQL, so later changes to the write path cannot change what the file holds.
tests/store/test_migrations.py opens a copy with today's code, which
migrates it, and checks the schema and the rows afterwards.

    python3 scripts/build_schema_0001.py          # rewrites the fixture

Everything is fixed (ids, times, text), so a rebuild gives the same rows.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tree_ring.model.actor import Actor  # noqa: E402
from tree_ring.model.identity import Origin  # noqa: E402
from tree_ring.model.record import content_hash  # noqa: E402
from tree_ring.store import audit, schema  # noqa: E402
from tree_ring.store.sql import Db  # noqa: E402

OUT = REPO / "fixtures" / "stores" / "schema-0001.sqlite"
PROJECT = "fixture-app-3f9c2a"
APPLIED = "2026-03-01T09:00:00.000000Z"

# (id, created_at, scope, ring, event_type, summary, details, extra columns)
ROWS: list[tuple[str, str, str, str, str, str, str, dict[str, object]]] = [
    (
        "mem_20260301_100000_0a0a0a0a0a01",
        "2026-03-01T10:00:00.000000Z",
        "project", "scar", "lesson",
        "Migrations on the primary took the site down",
        "Run them on a replica first, then fail over.",
        {"tags": '["ops","database"]', "salience": 0.9, "source_ref": "incidents/2026-02-11.md"},
    ),
    (
        "mem_20260301_100100_0a0a0a0a0a02",
        "2026-03-01T10:01:00.000000Z",
        "project", "heartwood", "decision",
        "Deploys freeze on Fridays",
        "",
        {"source_type": "user", "source_ref": "docs/release.md", "confidence": 0.8},
    ),
    (
        "mem_20260301_100200_0a0a0a0a0a03",
        "2026-03-01T10:02:00.000000Z",
        "project", "cambium", "decision",
        "The cache lives in Redis",
        "",
        {
            "superseded_by": "mem_20260302_100000_0a0a0a0a0a04",
            "retired_at": "2026-03-02T10:00:00.000000Z",
            "valid_to": "2026-03-02T10:00:00.000000Z",
            "updated_at": "2026-03-02T10:00:00.000000Z",
        },
    ),
    (
        "mem_20260302_100000_0a0a0a0a0a04",
        "2026-03-02T10:00:00.000000Z",
        "project", "cambium", "decision",
        "The cache lives in SQLite now",
        "",
        {"supersedes": '["mem_20260301_100200_0a0a0a0a0a03"]'},
    ),
    (
        "mem_20260302_110000_0a0a0a0a0a05",
        "2026-03-02T11:00:00.000000Z",
        "agent", "cambium", "preference",
        "The linter runs before every commit",
        "",
        {
            "agent_profile": "claude-code",
            "workflow_id": "sess-0001",
            "session_id": "sess-0001",
            "operation_id": "op-1",
            "origin": "claude-code",
            "origin_session": "sess-0001",
        },
    ),
    (
        "mem_20260302_120000_0a0a0a0a0a06",
        "2026-03-02T12:00:00.000000Z",
        "project", "heartwood", "rule",
        "Vendor every third-party SDK",
        "",
        {
            "trust": "pending",
            "review_reason": "heartwood written by codex: durable truth needs a person's approval",
            "origin": "codex",
        },
    ),
]  # fmt: skip


def build(out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.unlink(missing_ok=True)
    conn = sqlite3.connect(out, isolation_level=None)
    db = Db(conn, out)
    db.execute("BEGIN")
    db.execute(schema.LEDGER)
    name, initial = schema.MIGRATIONS[0]
    assert name == "0001_initial", name
    initial(db)
    db.execute("INSERT INTO schema_migrations(name, applied_at) VALUES (?, ?)", (name, APPLIED))
    db.execute("PRAGMA user_version = 1")
    for memory_id, created, scope, ring, event_type, summary, details, extra in ROWS:
        values: dict[str, object] = {
            "id": memory_id,
            "created_at": created,
            "updated_at": created,
            "project": PROJECT,
            "scope": scope,
            "ring": ring,
            "event_type": event_type,
            "summary": summary,
            "details": details,
            "valid_from": created,
            "content_hash": content_hash(summary, details),
            **extra,
        }
        columns = ", ".join(values)
        marks = ", ".join("?" * len(values))
        db.execute(f"INSERT INTO memories ({columns}) VALUES ({marks})", tuple(values.values()))
        origin = str(extra.get("origin", "person"))
        actor = Actor.person()
        if origin != "person":
            session = extra.get("origin_session")
            name = str(extra.get("agent_profile") or origin)
            actor = Actor(name, Origin(origin, str(session) if session else None))
        trust = extra.get("trust", "accepted")
        audit.append(db, actor, "create", memory_id, {"trust": trust}, at=created)
    claim = "sha256:" + "c1" * 32
    db.execute(
        "INSERT INTO operation_claims(claim, memory_id, payload_hash, created_at) VALUES (?,?,?,?)",
        (claim, ROWS[4][0], "sha256:" + "d2" * 32, ROWS[4][1]),
    )
    forgotten = content_hash("The staging password lives in the wiki", "")
    db.execute(
        "INSERT INTO content_tombstones"
        "(project, content_hash, kind, reason, memory_id, actor, created_at)"
        " VALUES (?, ?, 'forgotten', 'it never belonged here', ?, 'person', ?)",
        (PROJECT, forgotten, "mem_20260301_090000_0a0a0a0a0a00", "2026-03-01T09:30:00.000000Z"),
    )
    db.execute("COMMIT")
    db.execute("VACUUM")
    conn.close()


if __name__ == "__main__":
    build(OUT)
    print(f"wrote {OUT.relative_to(REPO)}")
