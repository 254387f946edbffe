"""The schema, in one place, and the ordered migrations that build it.

Each migration is a named function; `migrate` runs the ones a store lacks, each
in its own transaction together with its ledger row, so a crash leaves either
the old schema or the new one. A store whose ledger names a migration this
version does not know was written by a newer Tree Ring and is refused.
"""

from __future__ import annotations

from collections.abc import Callable

from tree_ring.model.errors import SchemaTooNew
from tree_ring.store.sql import FOLD_FUNCTION, MEANING_FUNCTION, Db

MEMORIES = """
CREATE TABLE memories (
    id              TEXT PRIMARY KEY,  -- mem_YYYYmmdd_HHMMSS_<12 hex>
    created_at      TEXT NOT NULL,     -- record time: when Tree Ring learned this (UTC, ISO)
    updated_at      TEXT NOT NULL,     -- last change to the row (review, supersession, redaction)
    project         TEXT,              -- project id from project.json; NULL only for legacy rows
    agent_profile   TEXT,              -- writer's agent partition (scope agent needs it)
    workflow_id     TEXT,              -- fan-out / harness session partition (scope workflow)
    session_id      TEXT,              -- execution attempt partition (scope session)
    operation_id    TEXT,              -- idempotency key inside (project, workflow, agent)
    scope           TEXT NOT NULL,     -- one of record.SCOPES; agent/workflow/session are private
    ring            TEXT NOT NULL,     -- genre: cambium outer inner heartwood scar seed
    event_type      TEXT NOT NULL,     -- decision, lesson, preference, warning, ...
    summary         TEXT NOT NULL,     -- the memory itself, one short statement
    details         TEXT NOT NULL DEFAULT '',
    source_type     TEXT NOT NULL DEFAULT 'manual',  -- user, evidence, agent, import, ...
    source_ref      TEXT NOT NULL DEFAULT '',        -- where the claim can be checked
    source_quote    TEXT NOT NULL DEFAULT '',
    tags            TEXT NOT NULL DEFAULT '[]',      -- JSON list of strings
    salience        REAL NOT NULL DEFAULT 0.5,       -- how much it matters, 0..1
    confidence      REAL NOT NULL DEFAULT 0.5,       -- how sure the writer is, 0..1
    sensitivity     TEXT NOT NULL DEFAULT 'normal',  -- non-normal rows are hidden by default
    retention       TEXT NOT NULL DEFAULT 'normal',  -- what maintain may do when it expires
    expires_at      TEXT,              -- after this, no read returns the row
    supersedes      TEXT NOT NULL DEFAULT '[]',      -- JSON list of ids this row replaced
    superseded_by   TEXT,              -- id of the row that replaced this one
    links           TEXT NOT NULL DEFAULT '[]',      -- JSON list of {type, target}
    trust           TEXT NOT NULL DEFAULT 'accepted',  -- accepted pending disputed rejected
    review_reason   TEXT,              -- why it waits, or why a reviewer decided as they did
    reviewed_at     TEXT,
    reviewed_by     TEXT,
    valid_from      TEXT NOT NULL,     -- validity time: when the fact starts to hold
    valid_to        TEXT,              -- ... and stops (closed by supersession)
    retired_at      TEXT,              -- record time the row stopped being believed
    redacted_at     TEXT,              -- set when forget --mode redact emptied the row
    origin          TEXT NOT NULL DEFAULT 'person',  -- person, claude-code, codex, import, ...
    origin_session  TEXT,              -- the harness session that wrote it, if any
    content_hash    TEXT NOT NULL      -- sha256 of normalised summary+details
)
"""

# Recall's index as the first schema made it: the rows' text as written.
# Migration 0010 replaces it with MEMORY_FTS below; kept as it shipped.
MEMORY_FTS_0001 = """
CREATE VIRTUAL TABLE memory_fts USING fts5(
    summary, details, tags,
    content='memories', content_rowid='rowid',
    tokenize='porter unicode61 remove_diacritics 2'
)
"""

FTS_TRIGGERS_0001 = (
    """CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
        INSERT INTO memory_fts(rowid, summary, details, tags)
        VALUES (new.rowid, new.summary, new.details, new.tags);
    END""",
    """CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
        INSERT INTO memory_fts(memory_fts, rowid, summary, details, tags)
        VALUES ('delete', old.rowid, old.summary, old.details, old.tags);
    END""",
    """CREATE TRIGGER memories_fts_update AFTER UPDATE OF summary, details, tags ON memories
    BEGIN
        INSERT INTO memory_fts(memory_fts, rowid, summary, details, tags)
        VALUES ('delete', old.rowid, old.summary, old.details, old.tags);
        INSERT INTO memory_fts(rowid, summary, details, tags)
        VALUES (new.rowid, new.summary, new.details, new.tags);
    END""",
)

# The text recall indexes: each row's summary, details and tags folded
# (`fold.searchable`: NFKC, default-ignorables removed, case folded), so a
# full-width ``ｂｉｌｌｉｎｇ``, a ligature or a zero-width joiner inside a word
# is indexed as the plain word, and a question folded the same way finds it.
# The rows keep their text as written; only the index reads it folded.
# FOLD is a Python function every connection registers (store/sql.py).
FOLD = FOLD_FUNCTION


def _folded(row: str) -> str:
    """The folded summary, details and tags of `row` (a table or new/old), as SQL."""
    return ", ".join(
        f"{FOLD}(CAST({row}.{column} AS BLOB))" for column in ("summary", "details", "tags")
    )


MEMORY_TEXT = f"""
CREATE VIEW memory_text(rowid, summary, details, tags) AS
    SELECT rowid, {_folded("memories")} FROM memories
"""

# The FTS index holds no copy of the text: its content is MEMORY_TEXT, the
# rows folded, so a rebuild and an integrity check read what the triggers
# wrote. Triggers keep it in the same transaction as the row, so a crash can
# never leave them apart.
MEMORY_FTS = """
CREATE VIRTUAL TABLE memory_fts USING fts5(
    summary, details, tags,
    content='memory_text', content_rowid='rowid',
    tokenize='porter unicode61 remove_diacritics 2'
)
"""

FTS_TRIGGERS = (
    f"""CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
        INSERT INTO memory_fts(rowid, summary, details, tags)
        VALUES (new.rowid, {_folded("new")});
    END""",
    f"""CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
        INSERT INTO memory_fts(memory_fts, rowid, summary, details, tags)
        VALUES ('delete', old.rowid, {_folded("old")});
    END""",
    f"""CREATE TRIGGER memories_fts_update AFTER UPDATE OF summary, details, tags ON memories
    BEGIN
        INSERT INTO memory_fts(memory_fts, rowid, summary, details, tags)
        VALUES ('delete', old.rowid, {_folded("old")});
        INSERT INTO memory_fts(rowid, summary, details, tags)
        VALUES (new.rowid, {_folded("new")});
    END""",
)

# The contradiction search's index (govern/contradictions.py): the summaries
# alone, and of each word only which rows hold it (detail=none: no positions,
# no sizes). The search asks which stored summaries hold enough of a new
# statement's words; memory_fts can answer that, but its lists carry every
# position of a word in all three columns, which a search of summaries reads
# through: at a million memories, about half of a write's time.
# Triggers keep it with the row, as they keep memory_fts.
CLAIM_FTS = """
CREATE VIRTUAL TABLE claim_fts USING fts5(
    summary,
    content='memories', content_rowid='rowid',
    detail=none, columnsize=0,
    tokenize='porter unicode61 remove_diacritics 2'
)
"""

CLAIM_FTS_TRIGGERS = (
    """CREATE TRIGGER memories_claim_fts_insert AFTER INSERT ON memories BEGIN
        INSERT INTO claim_fts(rowid, summary) VALUES (new.rowid, new.summary);
    END""",
    """CREATE TRIGGER memories_claim_fts_delete AFTER DELETE ON memories BEGIN
        INSERT INTO claim_fts(claim_fts, rowid, summary) VALUES ('delete', old.rowid, old.summary);
    END""",
    """CREATE TRIGGER memories_claim_fts_update AFTER UPDATE OF summary ON memories BEGIN
        INSERT INTO claim_fts(claim_fts, rowid, summary) VALUES ('delete', old.rowid, old.summary);
        INSERT INTO claim_fts(rowid, summary) VALUES (new.rowid, new.summary);
    END""",
)
# What each memory means, as recall's second stage reads it (model/vectors.py):
# a code per memory whose text holds a known word, kept beside the row by
# triggers in the row's own transaction, as the index is; a redacted row has
# none. The code is a function of the text alone, so a rebuild gives the
# same rows.
MEANING = MEANING_FUNCTION
_MEANING_OF = (
    "(SELECT {row}.rowid AS rowid, "
    + MEANING
    + "(CAST({row}.summary AS BLOB), CAST({row}.details AS BLOB), CAST({row}.tags AS BLOB))"
    + " AS code)"
)
MEANING_TABLE = (
    """CREATE TABLE memory_meaning (
        rowid  INTEGER PRIMARY KEY,  -- the memory's rowid
        code   BLOB NOT NULL         -- vectors.code of its summary, details and tags
    )""",
    f"""CREATE TRIGGER memories_meaning_insert AFTER INSERT ON memories BEGIN
        INSERT OR REPLACE INTO memory_meaning(rowid, code)
        SELECT rowid, code FROM {_MEANING_OF.format(row="new")}
        WHERE code IS NOT NULL AND new.redacted_at IS NULL;
    END""",
    """CREATE TRIGGER memories_meaning_delete AFTER DELETE ON memories BEGIN
        DELETE FROM memory_meaning WHERE rowid = old.rowid;
    END""",
    f"""CREATE TRIGGER memories_meaning_update AFTER UPDATE OF summary, details, tags ON memories
    BEGIN
        DELETE FROM memory_meaning WHERE rowid = old.rowid;
        INSERT OR REPLACE INTO memory_meaning(rowid, code)
        SELECT rowid, code FROM {_MEANING_OF.format(row="new")}
        WHERE code IS NOT NULL AND new.redacted_at IS NULL;
    END""",
)

# Every trigger that keeps an index (FTS, or the meaning codes) with the
# rows, by name: the doctor checks and restores them.
INDEX_TRIGGERS = {
    statement.split()[2]: statement
    for statement in (*FTS_TRIGGERS, *CLAIM_FTS_TRIGGERS, *MEANING_TABLE[1:])
}

# The brief walks this index in its own order and stops after eight live rows,
# so its cost does not grow with the store. The expression must match brief.py.
BRIEF_ORDER = (
    "(CASE ring WHEN 'scar' THEN 0 WHEN 'heartwood' THEN 1 ELSE 2 END), "
    "salience DESC, confidence DESC, created_at DESC"
)

INDEXES = (
    f"CREATE INDEX memories_brief ON memories(project, {BRIEF_ORDER}) WHERE retired_at IS NULL",
    "CREATE INDEX memories_project_created ON memories(project, created_at)",
    "CREATE INDEX memories_hash ON memories(project, content_hash)",
    "CREATE INDEX memories_trust ON memories(trust, created_at) WHERE trust != 'accepted'",
)

SIDE_TABLES = (
    """CREATE TABLE operation_claims (
        claim         TEXT PRIMARY KEY,  -- sha256 over project, workflow, agent, operation id
        memory_id     TEXT NOT NULL,     -- the row the first write created
        payload_hash  TEXT NOT NULL,     -- what that write said; a retry must say the same
        created_at    TEXT NOT NULL
    )""",
    """CREATE TABLE redaction_tombstones (
        memory_id   TEXT PRIMARY KEY,    -- a redacted id can never be reused by import
        created_at  TEXT NOT NULL
    )""",
    """CREATE TABLE content_tombstones (
        project       TEXT NOT NULL,     -- '' for legacy projectless rows
        content_hash  TEXT NOT NULL,     -- hash of the forgotten or rejected content
        kind          TEXT NOT NULL,     -- forgotten | rejected
        reason        TEXT NOT NULL,     -- the reason the person gave, kept
        memory_id     TEXT NOT NULL,     -- the id it had when it was forgotten
        actor         TEXT NOT NULL,
        created_at    TEXT NOT NULL,
        PRIMARY KEY (project, content_hash)
    )""",
    """CREATE TABLE audit_log (
        seq        INTEGER PRIMARY KEY AUTOINCREMENT,
        at         TEXT NOT NULL,
        actor      TEXT NOT NULL,        -- agent profile, or 'person'
        origin     TEXT NOT NULL,        -- person, claude-code, codex, import, tree-ring
        session    TEXT,                 -- harness session of an agent write
        action     TEXT NOT NULL,        -- create, update, supersede, forget, import, review, ...
        target     TEXT NOT NULL,        -- memory id (never memory text)
        detail     TEXT NOT NULL,        -- canonical JSON: reasons, hashes, counts
        prev_hash  TEXT NOT NULL,        -- hash of the previous entry ('' for the first)
        hash       TEXT NOT NULL         -- sha256 over this entry and prev_hash
    )""",
    """CREATE TABLE settings (
        key    TEXT PRIMARY KEY,
        value  TEXT NOT NULL             -- canonical JSON
    )""",
)


def _initial(db: Db) -> None:
    for statement in (MEMORIES, MEMORY_FTS_0001, *FTS_TRIGGERS_0001, *INDEXES, *SIDE_TABLES):
        db.execute(statement)


# Every decision of the write policy (tree_ring/govern/coordinator.py), allowed or denied,
# in either mode. Append-only: triggers refuse UPDATE and DELETE.
POLICY_AUDIT = (
    """CREATE TABLE policy_audit (
        seq          INTEGER PRIMARY KEY AUTOINCREMENT,
        at           TEXT NOT NULL,      -- when the decision was made (UTC)
        mode         TEXT NOT NULL,      -- open | coordinated, at that moment
        actor        TEXT NOT NULL,      -- agent profile, or 'person'
        origin       TEXT NOT NULL,      -- person, claude-code, codex, import, tree-ring
        session      TEXT,               -- harness session of an agent caller
        action       TEXT NOT NULL,      -- create.agent, create.project, supersede, import, ...
        target_hash  TEXT NOT NULL,      -- sha256 of the target (a memory id); never its text
        decision     TEXT NOT NULL,      -- allow | deny
        capability   TEXT NOT NULL,      -- held | absent | invalid; never the token itself
        reason       TEXT NOT NULL       -- why, in words a person can act on
    )""",
    """CREATE TRIGGER policy_audit_append_only_update BEFORE UPDATE ON policy_audit
    BEGIN SELECT RAISE(ABORT, 'the policy audit is append-only'); END""",
    """CREATE TRIGGER policy_audit_append_only_delete BEFORE DELETE ON policy_audit
    BEGIN SELECT RAISE(ABORT, 'the policy audit is append-only'); END""",
)


def _policy_audit(db: Db) -> None:
    for statement in POLICY_AUDIT:
        db.execute(statement)


# The summary tree (TinyCortex's bucket-seal tree, tree_ring/tree/).
# Trees are keyed by (kind, scope); a node is sealed once and then immutable,
# except that forgetting a memory under it rebuilds it without that memory.
SUMMARY_TREE = (
    """CREATE TABLE tree_trees (
        id              TEXT PRIMARY KEY,  -- tree_<kind>_<16 hex of sha256(kind, scope)>
        kind            TEXT NOT NULL CHECK (kind IN ('source', 'topic', 'global')),
        scope           TEXT NOT NULL,     -- source: a project id; topic: an entity; 'global'
        root_id         TEXT,              -- newest unparented node at the top level; NULL unsealed
        max_level       INTEGER NOT NULL DEFAULT 0,  -- highest level holding a node
        status          TEXT NOT NULL DEFAULT 'active'
                        CHECK (status IN ('active', 'archived')),  -- archived: no appends
        created_at      TEXT NOT NULL,
        last_sealed_at  TEXT,              -- most recent seal (or rebuild after a forget)
        UNIQUE (kind, scope)
    )""",
    """CREATE TABLE tree_nodes (
        id                TEXT PRIMARY KEY,  -- node_<level>_<16 hex of its first child set>
        tree_id           TEXT NOT NULL,     -- owning tree
        level             INTEGER NOT NULL,  -- 1 = over memories, 2 = over L1 nodes, ...
        parent_id         TEXT,              -- the node it sealed into; NULL while buffered
        child_ids         TEXT NOT NULL,     -- JSON list fixed at seal (memory ids at L1)
        content           TEXT NOT NULL,     -- the summariser's output, never blank
        token_count       INTEGER NOT NULL,  -- estimated tokens of content (ceil(chars / 4))
        entities          TEXT NOT NULL DEFAULT '[]',  -- JSON: code:/path: ids from labels
        topics            TEXT NOT NULL DEFAULT '[]',  -- JSON: lower-cased topic labels
        time_range_start  TEXT NOT NULL,     -- earliest memory time covered
        time_range_end    TEXT NOT NULL,     -- latest memory time covered
        score             REAL NOT NULL,     -- max of the children's scores (salience at L1)
        leaf_count        INTEGER NOT NULL,  -- memories summarised under this node
        sealed_at         TEXT NOT NULL,     -- when this node sealed
        stale             INTEGER NOT NULL DEFAULT 0,  -- 1: a forgotten memory is under it
        resealed_at       TEXT               -- when forgetting last rebuilt its content
    )""",
    # Sealed means sealed: content and children change only once a forget has
    # marked the node stale, in the transaction that rebuilds it.
    """CREATE TRIGGER tree_nodes_sealed BEFORE UPDATE OF child_ids, content ON tree_nodes
    WHEN old.stale = 0
    BEGIN SELECT RAISE(ABORT, 'sealed summary nodes are immutable; only forgetting rebuilds one');
    END""",
    """CREATE TABLE tree_buffers (
        tree_id     TEXT NOT NULL,
        level       INTEGER NOT NULL,      -- the level whose unsealed frontier this is
        item_ids    TEXT NOT NULL DEFAULT '[]',  -- JSON node ids waiting, in arrival order
                                           -- (L1+); L0's waiting leaves are the tree_leaves
                                           -- rows with no parent, so an append never
                                           -- rewrites a growing list
        item_count  INTEGER NOT NULL DEFAULT 0,  -- items waiting; drives the fan-out gate
        token_sum   INTEGER NOT NULL DEFAULT 0,  -- their tokens; drives the L0 budget gate
        oldest_at   TEXT,                  -- arrival of the oldest item; drives the time flush
        PRIMARY KEY (tree_id, level)
    )""",
    """CREATE TABLE tree_leaves (
        seq          INTEGER PRIMARY KEY,  -- arrival order
        tree_id      TEXT NOT NULL,
        memory_id    TEXT NOT NULL,        -- the memory this leaf stands for (never its text)
        token_count  INTEGER NOT NULL,     -- estimated tokens of the memory's summary
        added_at     TEXT NOT NULL,        -- when it arrived in the L0 buffer
        parent_id    TEXT,                 -- the L1 node it sealed into; NULL while buffered
        UNIQUE (tree_id, memory_id)
    )""",
    "CREATE INDEX tree_nodes_level ON tree_nodes(tree_id, level, sealed_at)",
    "CREATE INDEX tree_nodes_parent ON tree_nodes(parent_id)",
    "CREATE INDEX tree_leaves_memory ON tree_leaves(memory_id)",
    "CREATE INDEX tree_leaves_waiting ON tree_leaves(tree_id, seq) WHERE parent_id IS NULL",
    "CREATE INDEX tree_leaves_parent ON tree_leaves(parent_id) WHERE parent_id IS NOT NULL",
    # Forgetting a memory finds the consolidation summaries that cite it here.
    "CREATE INDEX memories_consolidations ON memories(project) WHERE source_type = 'consolidation'",
)


def _summary_tree(db: Db) -> None:
    # Here, not at the top: every hook call imports this module; this runs once a store.
    from tree_ring.store import settings

    for statement in SUMMARY_TREE:
        db.execute(statement)
    settings.store_tree_defaults(db)


# What an agent asked to forget outside its own partition (write/requests.py):
# a person approves (the memory is then forgotten as asked) or rejects it.
FORGET_REQUESTS = (
    """CREATE TABLE forget_requests (
        id               TEXT PRIMARY KEY,  -- req_<12 hex>
        project          TEXT NOT NULL,     -- the memory's project
        memory_id        TEXT NOT NULL,     -- the memory the agent asked to forget
        mode             TEXT NOT NULL,     -- delete | redact, as asked
        reason           TEXT NOT NULL,     -- the agent's reason (one line, guarded)
        actor            TEXT NOT NULL,     -- the asking agent's profile
        origin           TEXT NOT NULL,     -- claude-code, codex, agent
        session          TEXT,              -- the harness session that asked
        created_at       TEXT NOT NULL,
        decision         TEXT,              -- NULL while waiting; approved | rejected
        decided_by       TEXT,              -- the person (or coordinator) who decided
        decided_at       TEXT,
        decision_reason  TEXT               -- why, in the decider's words
    )""",
    "CREATE INDEX forget_requests_waiting ON forget_requests(project, created_at)"
    " WHERE decision IS NULL",
)


def _trust(db: Db) -> None:
    for statement in FORGET_REQUESTS:
        db.execute(statement)
    # From here on every tombstone is named by an audit entry (`audit.verify`
    # checks it); the ones already there are named once, by this one.
    stones = [row[0] for row in db.execute("SELECT content_hash FROM content_tombstones")]
    if stones:
        # Here, not at the top: opening a store must not load the audit log.
        from tree_ring.model.actor import Actor
        from tree_ring.model.identity import Origin
        from tree_ring.store import audit

        baseline = Actor("tree-ring", Origin("tree-ring"))
        audit.append(db, baseline, "baseline", "store", {"tombstones": sorted(stones)})


# Counts and rare filters read these instead of the table. Each is partial on
# the very terms of the statements it serves (SQLite uses a partial index only
# when the query's WHERE names its condition) and holds every column those
# statements read, the condition's own columns too: the SQLite Python ships
# with may not take a column named only in the condition as covered, and a
# count that visits the table for each row costs what a scan does.
COUNT_INDEXES = (
    # Liveness now (`live.now_tests`) with visibility (`live.visible`): the
    # rings' counts per ring and trust stay in the index, and one ring's newest
    # marks, or a page filtered to one ring, come in order without a scan.
    "CREATE INDEX memories_live ON memories(project, ring, created_at, id, trust, sensitivity,"
    " origin, scope, agent_profile, workflow_id, session_id, expires_at, valid_from, valid_to,"
    " salience, confidence, retired_at, redacted_at, superseded_by)"
    " WHERE retired_at IS NULL AND redacted_at IS NULL AND superseded_by IS NULL",
    # The review queue (`store/queue.QUEUE_SQL`): only the rows that wait.
    "CREATE INDEX memories_waiting ON memories(project, created_at, id, trust, sensitivity,"
    " retired_at, redacted_at)"
    " WHERE trust IN ('pending', 'disputed') AND retired_at IS NULL AND redacted_at IS NULL",
    # The inbox (`store/inbox.py`): agent rows still on record, newest first.
    "CREATE INDEX memories_inbox ON memories(project, created_at, id, origin, trust, sensitivity,"
    " retired_at, redacted_at)"
    " WHERE origin IN ('claude-code', 'codex', 'agent') AND retired_at IS NULL"
    " AND redacted_at IS NULL",
)


def _count_indexes(db: Db) -> None:
    for statement in COUNT_INDEXES:
        db.execute(statement)


def _claim_index(db: Db) -> None:
    db.execute(CLAIM_FTS)
    for statement in CLAIM_FTS_TRIGGERS:
        db.execute(statement)
    # A store of a million memories indexes its summaries in about 7 s of CPU,
    # once. The index is then merged into one segment, as a bulk write leaves
    # it: a rebuild leaves many, and the merges that later writes would make
    # of them fall on those writes.
    db.execute("INSERT INTO claim_fts(claim_fts) VALUES ('rebuild')")
    db.execute("INSERT INTO claim_fts(claim_fts) VALUES ('optimize')")


# Where a row or request that a team ledger line made came from
# (team/sync.py): the upstream branch's ledger, which the clone trusts as it
# trusts the rest of that repository, or a line the clone cannot vouch for (a
# working-tree edit, a local commit, a merged local branch), which arrives as
# a claim for a person to review. A row this store wrote itself has none.
LEDGER_PROVENANCE = (
    """CREATE TABLE ledger_provenance (
        subject     TEXT PRIMARY KEY,  -- the memory id (or req_ request id) the line made
        project     TEXT NOT NULL,     -- the project whose ledger it came from
        line_hash   TEXT NOT NULL,     -- sha256 of the line's canonical text: a claim is taken once
        source      TEXT NOT NULL,     -- upstream | local commit | working tree
        git_commit  TEXT,              -- the upstream commit that last set the line, if known
        author      TEXT,              -- its author, "Name <email>" (git's word, not proof)
        ref         TEXT,              -- the remote-tracking ref it was read from (upstream only)
        created_at  TEXT NOT NULL      -- when this clone read it
    )""",
    "CREATE INDEX ledger_provenance_line ON ledger_provenance(line_hash)",
    # The re-admissions a ledger line or export row carries (write/readmit.py).
    "CREATE INDEX audit_readmissions ON audit_log(target) WHERE action = 'tombstone-override'",
)


def _ledger_provenance(db: Db) -> None:
    for statement in LEDGER_PROVENANCE:
        db.execute(statement)


# `status`'s census (store/census.py) counts the rows still on record through
# `memories_live`; the others (retired, redacted, superseded: few, and never
# fewer) through this one, on the very condition its statement names, so the
# count reads two indexes and not the table.
OFF_RECORD_INDEX = (
    "CREATE INDEX memories_off_record ON memories(project, ring, trust, sensitivity,"
    " redacted_at, retired_at, superseded_by, expires_at, valid_to)"
    " WHERE retired_at IS NOT NULL OR redacted_at IS NOT NULL OR superseded_by IS NOT NULL"
)


def _off_record_index(db: Db) -> None:
    db.execute(OFF_RECORD_INDEX)


def _folded_index(db: Db) -> None:
    """Recall's index rebuilt from the rows folded (MEMORY_TEXT): a store
    written before it holds a full-width or ligature spelling as its own
    word, which no question finds. A store of a million memories is indexed
    again in about half a minute of CPU, once; then merged into one segment,
    as `_claim_index` leaves its index."""
    for statement in FTS_TRIGGERS_0001:
        db.execute(f"DROP TRIGGER IF EXISTS {statement.split()[2]}")
    db.execute("DROP TABLE memory_fts")
    for statement in (MEMORY_TEXT, MEMORY_FTS, *FTS_TRIGGERS):
        db.execute(statement)
    _reindex(db)


def _meaning(db: Db) -> None:
    """The meaning table. No memory is coded here: the first recall codes
    them all (read/meaning.py, `current`), so no hook that opens the store
    first after an upgrade pays for it."""
    for statement in MEANING_TABLE:
        db.execute(statement)


def _meaning_source(db: Db) -> None:
    """The record of which vector table made the codes. A new store records
    the installed one; an older store's codes are another table's (the
    vectors were trained on sentences with this migration), and the first
    recall codes them again."""
    from tree_ring.store.meaning import MEANING_SOURCE, adopt

    db.execute(MEANING_SOURCE)
    adopt(db)


def _meaning_recoded(db: Db) -> None:
    """A new vector table shipped (0014: four bits an axis, trained in the
    axes along which sentences differ most; 0018: trained on what PyPI's
    packages say they are too, so it knows the products they name). Nothing
    to do here: the codes' record names the table before, so the first
    recall finds them stale and codes every memory again (read/meaning.py,
    `current`). Until 0018 these migrations coded them themselves, in
    whichever process opened the store first: often a hook."""


def _refute_index(db: Db) -> None:
    from tree_ring.store.refutations import REFUTES_INDEX

    db.execute(REFUTES_INDEX)


def _ended_leaves(db: Db) -> None:
    from tree_ring.store.leaves import drop_ended

    drop_ended(db)


def _tombstone_ids(db: Db) -> None:
    from tree_ring.store.tombstone_ids import TOMBSTONE_IDS, TOMBSTONE_IDS_FILL

    for statement in TOMBSTONE_IDS:
        db.execute(statement)
    db.execute(TOMBSTONE_IDS_FILL)


def _project_owner(db: Db) -> None:
    from tree_ring.store.settings import adopt_project  # the rows' id (store/db.py)

    adopt_project(db)


def _reindex(db: Db) -> None:
    """The index rebuilt as the fold reads rows (triggers delete by it), once: by 0023."""
    db.execute("INSERT INTO memory_fts(memory_fts) VALUES ('rebuild')")
    db.execute("INSERT INTO memory_fts(memory_fts) VALUES ('optimize')")


def _from(module: str, name: str) -> Callable[[Db], None]:
    """A migration that runs the statements `name` in `store/<module>.py`,
    loaded only when it runs."""

    def run(db: Db) -> None:
        for statement in getattr(__import__(f"tree_ring.store.{module}", fromlist=[name]), name):
            db.execute(statement)

    return run


Migration = tuple[str, Callable[[Db], None]]

# Append only: never reorder a migration that has shipped, nor change the
# schema it leaves. Derived data a migration once computed may move out of it
# (the meaning codes did: read/meaning.py, `current`).
MIGRATIONS: list[Migration] = [
    ("0001_initial", _initial),
    ("0002_policy_audit", _policy_audit),
    ("0003_summary_tree", _summary_tree),
    ("0004_trust", _trust),
    ("0005_count_indexes", _count_indexes),
    ("0006_claim_index", _claim_index),
    ("0007_ledger_provenance", _ledger_provenance),
    ("0008_refutations", _from("refutations", "REFUTATIONS")),
    ("0009_off_record_index", _off_record_index),
    ("0010_folded_index", _folded_index),
    ("0011_anchors", _from("anchors", "ANCHORS")),
    ("0012_meaning", _meaning),
    ("0013_meaning_source", _meaning_source),
    ("0014_meaning_recoded", _meaning_recoded),
    ("0015_ended_leaves", _ended_leaves),
    ("0016_inbox_imports", _from("inbox", "INBOX_INDEX")),
    ("0017_refute_index", _refute_index),
    ("0018_meaning_recoded_products", _meaning_recoded),
    ("0019_ledger_kept", _from("ledger_rows", "LEDGER_KEPT")),
    ("0020_project_owner", _project_owner),
    ("0021_tombstone_ids", _tombstone_ids),
    ("0022_identifier_words", lambda _db: None),  # `0023` indexes again (`_reindex`)
    ("0023_identifier_words_any_script", _reindex),
    ("0024_tombstones_moved", _from("moved", "COUNT_CHANGES")),
]

# Migrations a reader can do without: indexes for speed, and records that
# derived data is due (the meaning codes, which recall makes again). A store
# that cannot be migrated now (read-only, held by another writer, a full
# disk) while only these are due is read as it stands, and the next writer
# that can migrates it; any other due migration changes what a reader reads.
READERS_DO_WITHOUT = frozenset(
    {
        "0014_meaning_recoded",
        "0016_inbox_imports",
        "0017_refute_index",
        "0018_meaning_recoded_products",
        "0020_project_owner",  # unrecorded, a store's open checks nothing (store/db.py)
        "0022_identifier_words",  # only a write needs the index as the fold reads
        "0023_identifier_words_any_script",  # rows: these two (see `_reindex`)
        "0024_tombstones_moved",  # without the count, a reader keeps nothing
    }
)


def readable_without(due: list[str]) -> bool:
    """Whether a store whose due migrations are `due` reads right without them."""
    return all(name in READERS_DO_WITHOUT for name in due)


LEDGER = """CREATE TABLE IF NOT EXISTS schema_migrations (
    name        TEXT PRIMARY KEY,  -- a migration from MIGRATIONS
    applied_at  TEXT NOT NULL
)"""


def applied(db: Db) -> list[str]:
    exists = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    ).fetchone()
    if not exists:
        return []
    return [row[0] for row in db.execute("SELECT name FROM schema_migrations ORDER BY name")]


def check_version(db: Db) -> list[str]:
    """The migrations still to run; refuses a store from a newer Tree Ring."""
    done = applied(db)
    known = {name for name, _ in MIGRATIONS}
    unknown = [name for name in done if name not in known]
    if unknown:
        raise SchemaTooNew(
            f"this store was written by a newer Tree Ring (migration {unknown[-1]}); "
            "update the Tree Ring plugin to open it"
        )
    return [name for name, _ in MIGRATIONS if name not in done]


def migrate(db: Db, now: str) -> list[str]:
    """Run pending migrations; returns their names. Caller holds no transaction."""
    ran: list[str] = []
    for name, step in MIGRATIONS:
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute(LEDGER)
            if name in applied(db):
                db.execute("COMMIT")
                continue
            step(db)
            db.execute("INSERT INTO schema_migrations(name, applied_at) VALUES (?, ?)", (name, now))
            db.execute(f"PRAGMA user_version = {len(applied(db))}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        ran.append(name)
    return ran
