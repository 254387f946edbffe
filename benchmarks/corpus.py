"""A synthetic engineering memory corpus with known answers, for the benchmarks.

Deterministic for a seed. Every query has exactly one answer memory; around
it sit the things that make recall hard in a real project store:

- near duplicates: the same component's other settings, and the same setting
  of sibling components ("billing worker" vs "billing api");
- planning chatter: fresh, low-salience notes that repeat the query's words;
- stale truth: an older value of the same setting, superseded by the answer;
- expired notes: a temporary override whose `expires_at` has passed;
- other agents' private notes and rows waiting for review;
- for failure queries ("why did X crash"), the answer is a scar, and notes
  about the same component and operation compete with it.

Queries are paraphrased partly: the component is named, the setting is named
by a synonym about half the time, and question words are added. Rows are
written straight into SQLite (rows.insert_many, then one FTS rebuild), which is
fine for a benchmark; supersession sets the columns `correct.supersede_in`
sets.
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tree_ring.model.identity import Identity
from tree_ring.model.record import Memory, format_time
from tree_ring.store import fts, meaning, rows, schema
from tree_ring.store.db import Store

PROJECT = "bench-app-5e2f9a10"
OTHER_PROJECT = "bench-app-77c1d0e4"
IDENTITY = Identity(PROJECT, "claude-code", "sess-bench", "sess-bench")

DOMAINS = (
    "billing", "auth", "search", "payments", "email", "reports", "images", "flags",
    "audit", "metrics", "notifications", "importer", "cache", "ratelimit", "scheduler",
    "invoices", "pdf", "sync", "graphql", "admin", "mobile", "logging", "backup",
    "migrations", "webhooks", "recommendations", "checkout", "cdn", "inventory",
    "shipping", "pricing", "analytics", "onboarding", "ledger", "tenants", "uploads",
    "exports", "alerts", "geocoding", "translations",
)  # fmt: skip
ROLES = (
    "worker", "service", "api", "job", "queue", "consumer", "daemon", "gateway",
    "pipeline", "cron",
)  # fmt: skip

# setting -> (paraphrases a person might ask with, value maker)
SETTINGS: dict[str, tuple[tuple[str, ...], str]] = {
    "request timeout": (("time limit for requests", "how long before requests give up"), "secs"),
    "retry limit": (("maximum number of retries", "how many retries"), "attempts"),
    "batch size": (("chunk size", "rows per batch"), "rows"),
    "connection pool size": (("max database connections", "db pool"), "conns"),
    "listen port": (("which port it binds", "port number"), "port"),
    "log level": (("logging verbosity", "how verbose the logs are"), "level"),
    "cache ttl": (("cache expiry", "how long entries stay cached"), "minutes"),
    "deploy region": (("region it runs in", "which aws region"), "region"),
    "owner team": (("team responsible", "who owns it"), "team"),
    "primary datastore": (("storage backend", "which database it uses"), "db"),
    "queue backend": (("message broker", "which broker it publishes to"), "broker"),
    "rate limit": (("requests per second cap", "throttle"), "rps"),
    "memory limit": (("container ram cap", "how much ram it gets"), "mib"),
    "oncall rotation": (("who is paged", "pager schedule"), "rotation"),
    "alert threshold": (("when it pages", "error rate that alerts"), "percent"),
    "backoff strategy": (("how retries are spaced", "delay between attempts"), "backoff"),
    "auth method": (("how callers authenticate", "credentials scheme"), "authn"),
    "python version": (("interpreter version", "which python"), "py"),
    "deploy schedule": (("when it ships", "release window"), "window"),
    "health check path": (("liveness probe url", "readiness endpoint"), "path"),
}
VALUES: dict[str, tuple[str, ...]] = {
    "level": ("debug", "info", "warning", "error"),
    "region": ("us-east-1", "us-west-2", "eu-west-1", "eu-central-1", "ap-south-1"),
    "team": ("platform", "payments-core", "growth", "infra", "data", "identity", "mobile-core"),
    "db": ("postgres", "sqlite", "redis", "dynamodb", "mysql", "cassandra"),
    "broker": ("kafka", "rabbitmq", "sqs", "nats", "redis streams"),
    "rotation": ("weekly platform rotation", "follow-the-sun", "payments pager", "infra pager"),
    "backoff": ("exponential with jitter", "fixed two second", "linear", "decorrelated jitter"),
    "authn": ("mTLS", "OAuth client credentials", "signed JWT", "HMAC request signing"),
    "py": ("3.11", "3.12", "3.13"),
    "window": ("Tuesday mornings", "any weekday before 3pm", "Thursday after standup"),
    "path": ("/healthz", "/readyz", "/status", "/ping"),
}
REASONS = (
    "after the Black Friday incident", "to stay under the vendor quota",
    "because p99 latency regressed", "per the capacity review", "to match the SLA",
    "after load testing in staging", "to stop duplicate deliveries",
    "because the upstream provider changed limits", "to cut cloud spend",
    "as agreed in the architecture review",
)  # fmt: skip
FAILURES: dict[str, tuple[str, tuple[str, ...]]] = {
    # operation -> (what the scar says happened, ways a person asks about it)
    "deploy": ("deploy failed", ("deploy failure", "why did the deploy fail")),
    "migration": ("migration crashed", ("migration crash", "why did the migration break")),
    "startup": ("crashed on startup", ("startup crash", "error at boot")),
    "rollout": ("rollout caused an outage", ("outage during rollout", "rollout incident")),
    "backfill": ("backfill corrupted rows", ("backfill bug", "what went wrong with the backfill")),
    "upgrade": ("upgrade broke the build", ("broken upgrade", "upgrade regression")),
}
CAUSES = (
    "the connection pool was exhausted", "a config flag was missing in production",
    "the schema change locked the table", "a dependency pinned an old TLS library",
    "disk filled with debug logs", "two replicas raced on the same lock",
    "a timezone-naive timestamp compared wrong", "the health check hit a slow endpoint",
)  # fmt: skip
FIXES = (
    "run it behind the feature flag first", "check the migration plan with EXPLAIN first",
    "pin the TLS library and rebuild", "rotate logs hourly", "take the advisory lock",
    "store timestamps in UTC", "point the probe at /healthz",
    "raise the pool size before the deploy",
)  # fmt: skip
CHATTER = (
    "Maybe revisit the {c} {s} next sprint.",
    "Planning: should we change the {c} {s}? No decision yet.",
    "Standup chatter: someone asked about the {c} {s} again.",
    "TODO look at {c} {s} later, maybe.",
    "Thinking about the {c} {s}; might try something else.",
)
FILLER_NOTES = (
    "Reviewed the {c} dashboard; nothing unusual this week.",
    "The {c} README explains local setup with docker compose.",
    "Pairing session on the {c} tests went well.",
    "The {c} has a flaky integration test around {s}.",
    "Ticket backlog for the {c} groomed; three items left.",
    "Renamed variables in the {c} for readability.",
)


@dataclass(frozen=True)
class Query:
    text: str
    answer: str  # the one memory id that answers it
    kind: str  # "fact" or "failure"


@dataclass
class Corpus:
    memories: list[Memory]
    queries: list[Query]
    project: str = PROJECT

    def counts(self) -> dict[str, int]:
        return {
            "memories": len(self.memories),
            "queries": len(self.queries),
            "failure_queries": sum(q.kind == "failure" for q in self.queries),
            "superseded": sum(m.superseded_by is not None for m in self.memories),
            "expired_or_hidden": sum(
                m.expires_at is not None or m.trust != "accepted" or m.project != self.project
                for m in self.memories
            ),
        }


class _Builder:
    def __init__(self, seed: int, now: datetime, project: str) -> None:
        self.rng = random.Random(seed)
        self.now = now
        self.project = project
        self.memories: list[Memory] = []

    def value(self, setting: str) -> str:
        rng = self.rng
        kind = SETTINGS[setting][1]
        numeric = {
            "secs": lambda: f"{rng.choice((2, 5, 10, 15, 30, 45, 60, 90, 120))} seconds",
            "attempts": lambda: f"{rng.randint(1, 12)} attempts",
            "rows": lambda: f"{rng.choice((50, 100, 250, 500, 1000, 5000))} rows",
            "conns": lambda: f"{rng.choice((4, 8, 10, 16, 20, 32, 64))} connections",
            "port": lambda: f"port {rng.randint(3000, 9999)}",
            "minutes": lambda: f"{rng.choice((1, 5, 10, 15, 30, 60, 240))} minutes",
            "rps": lambda: f"{rng.choice((5, 10, 50, 100, 200, 500))} requests per second",
            "mib": lambda: f"{rng.choice((128, 256, 512, 1024, 2048))} MiB",
            "percent": lambda: f"{rng.choice((0.5, 1, 2, 5))} percent errors over 5 minutes",
        }
        if kind in numeric:
            return numeric[kind]()
        return rng.choice(VALUES[kind])

    def add(self, summary: str, *, age_days: float, **fields: object) -> Memory:
        created = format_time(self.now - timedelta(days=age_days))
        memory = Memory(
            id=f"mem_bench_{len(self.memories):07d}",
            created_at=created,
            updated_at=created,
            summary=summary,
            event_type=str(fields.pop("event_type", "note")),
            project=str(fields.pop("project", self.project)),
            scope=str(fields.pop("scope", "project")),
            valid_from=created,
            origin="person",
        )
        memory = memory.replace(**fields).with_hash()  # type: ignore[arg-type]
        self.memories.append(memory)
        return memory

    def fact_text(self, component: str, setting: str, value: str) -> str:
        reason = self.rng.choice(REASONS)
        return self.rng.choice(
            (
                f"The {component} {setting} is {value} {reason}.",
                f"Decision: set the {component} {setting} to {value} {reason}.",
                f"{component.capitalize()} {setting}: {value} ({reason}).",
                f"We run the {component} with {setting} {value}, {reason}.",
            )
        )


def build(
    memories: int = 10_000, queries: int = 500, seed: int = 7, project: str = PROJECT
) -> Corpus:
    """A corpus of exactly `memories` rows and `queries` known-answer queries."""
    now = datetime.now(UTC)
    b = _Builder(seed, now, project)
    rng = b.rng
    components = [f"{d} {r}" for d in DOMAINS for r in ROLES]
    rng.shuffle(components)
    pairs = [(c, s) for c in components for s in SETTINGS]
    rng.shuffle(pairs)
    taken: set[tuple[str, str]] = set()  # (component, setting or operation) with an answer
    out: list[Query] = []
    failure_share = 0.25
    for _ in range(queries):
        if rng.random() < failure_share:
            component, operation = rng.choice(components), rng.choice(tuple(FAILURES))
            while (component, operation) in taken:
                component, operation = rng.choice(components), rng.choice(tuple(FAILURES))
            taken.add((component, operation))
            out.append(_failure(b, component, operation))
            continue
        component, setting = pairs.pop()
        taken.add((component, setting))
        out.append(_fact(b, component, setting))
    if len(b.memories) > memories:
        raise ValueError(f"{queries} queries need more than {memories} memories")
    # Background: true facts about other (component, setting) pairs, notes, and
    # rows that recall must never show (sensitive, pending, other project).
    while len(b.memories) < memories:
        roll = rng.random()
        component = rng.choice(components)
        setting = rng.choice(tuple(SETTINGS))
        if roll < 0.55:
            # Any setting but one a query asks about: that one has one answer.
            while (component, setting) in taken:
                component, setting = rng.choice(components), rng.choice(tuple(SETTINGS))
            ring = "heartwood" if rng.random() < 0.3 else "cambium"
            b.add(
                b.fact_text(component, setting, b.value(setting)),
                age_days=rng.uniform(0, 365),
                ring=ring,
                event_type="decision" if ring == "heartwood" else "note",
                salience=round(rng.uniform(0.3, 0.9), 2),
                confidence=round(rng.uniform(0.4, 0.95), 2),
            )
        elif roll < 0.85:
            b.add(
                rng.choice(FILLER_NOTES).format(c=component, s=setting),
                age_days=rng.uniform(0, 365),
                salience=round(rng.uniform(0.1, 0.6), 2),
                confidence=round(rng.uniform(0.3, 0.8), 2),
            )
        elif roll < 0.92:
            b.add(
                rng.choice(CHATTER).format(c=component, s=setting),
                age_days=rng.uniform(0, 20),
                event_type="planning",
                salience=round(rng.uniform(0.05, 0.25), 2),
                confidence=0.3,
                source_type="agent",
            )
        elif roll < 0.96:
            b.add(
                b.fact_text(component, setting, b.value(setting)),
                age_days=rng.uniform(0, 100),
                project=OTHER_PROJECT,
                salience=round(rng.uniform(0.3, 0.9), 2),
            )
        else:
            b.add(
                f"{component.capitalize()} {setting} notes from the 1:1 with the team lead.",
                age_days=rng.uniform(0, 100),
                sensitivity="private",
                salience=0.7,
            )
    rng.shuffle(b.memories)  # rowid order must not leak the answers
    return Corpus(b.memories, out, project)


def _fact(b: _Builder, component: str, setting: str) -> Query:
    rng = b.rng
    value = b.value(setting)
    answer_age = rng.uniform(1, 120)
    heartwood = rng.random() < 0.5
    answer = b.add(
        b.fact_text(component, setting, value),
        age_days=answer_age,
        ring="heartwood" if heartwood else "cambium",
        event_type="decision" if heartwood else "note",
        salience=round(rng.uniform(0.55, 0.95) if heartwood else rng.uniform(0.4, 0.8), 2),
        confidence=round(rng.uniform(0.6, 0.95), 2),
        source_type=rng.choice(("user", "manual", "evidence", "agent")),
    )
    # Stale truth: the value it used to have, superseded by the answer.
    if rng.random() < 0.4:
        old_value = b.value(setting)
        retired = format_time(b.now - timedelta(days=answer_age))
        b.add(
            b.fact_text(component, setting, old_value),
            age_days=answer_age + rng.uniform(10, 300),
            ring=answer.ring,
            event_type=answer.event_type,
            salience=round(min(1.0, answer.salience + rng.uniform(0.0, 0.1)), 2),
            confidence=answer.confidence,
            superseded_by=answer.id,
            retired_at=retired,
            valid_to=answer.valid_from,
        )
    # Planning chatter that repeats the words.
    for _ in range(rng.randint(0, 3)):
        b.add(
            rng.choice(CHATTER).format(c=component, s=setting),
            age_days=rng.uniform(0, 14),
            event_type="planning",
            salience=round(rng.uniform(0.05, 0.25), 2),
            confidence=0.3,
            source_type="agent",
        )
    # A temporary override that has expired.
    if rng.random() < 0.15:
        b.add(
            f"Temporary: {component} {setting} is {b.value(setting)} during the migration week.",
            age_days=rng.uniform(8, 30),
            salience=0.8,
            confidence=0.8,
            expires_at=format_time(b.now - timedelta(days=rng.uniform(1, 7))),
            retention="forget_after_date",
        )
    # Another agent's private note, and a pending rule, on the same setting.
    if rng.random() < 0.1:
        b.add(
            f"My scratch note: {component} {setting} might be {b.value(setting)}.",
            age_days=rng.uniform(0, 10),
            scope="agent",
            agent_profile="codex:worker:0f3e",
            salience=0.6,
        )
    if rng.random() < 0.1:
        b.add(
            f"Rule: the {component} {setting} must be {b.value(setting)}.",
            age_days=rng.uniform(0, 10),
            ring="heartwood",
            event_type="rule",
            trust="pending",
            salience=0.9,
            confidence=0.6,
        )
    words = component.split()
    named = component if rng.random() < 0.8 else words[0]
    asked = setting if rng.random() < 0.5 else rng.choice(SETTINGS[setting][0])
    text = rng.choice(
        (
            f"what is the {named} {asked}",
            f"{named} {asked}?",
            f"remind me of the {asked} for the {named}",
            f"which {asked} does the {named} use in production",
        )
    )
    return Query(text, answer.id, "fact")


def _failure(b: _Builder, component: str, operation: str) -> Query:
    rng = b.rng
    happened, asks = FAILURES[operation]
    cause, fix = rng.choice(CAUSES), rng.choice(FIXES)
    answer = b.add(
        f"Incident: the {component} {happened} because {cause}; next time {fix}.",
        age_days=rng.uniform(5, 300),
        ring="scar",
        event_type="warning",
        salience=round(rng.uniform(0.6, 0.9), 2),
        confidence=round(rng.uniform(0.6, 0.9), 2),
        source_type="evidence",
        source_ref=f"incidents/{component.replace(' ', '-')}-{operation}.md",
    )
    # Notes about the same component and operation that are not the lesson.
    for template in rng.sample(
        (
            "The {c} {op} checklist: build, run the {op} in staging, then production.",
            "The {c} {op} went fine today.",
            "Maybe automate the {c} {op} next quarter.",
            "Runbook for the {c} {op} lives in the wiki.",
        ),
        k=rng.randint(1, 3),
    ):
        b.add(
            template.format(c=component, op=operation),
            age_days=rng.uniform(0, 60),
            salience=round(rng.uniform(0.3, 0.8), 2),
            confidence=round(rng.uniform(0.5, 0.9), 2),
        )
    ask = rng.choice(asks)
    text = rng.choice((f"{component} {ask}", f"{ask} in the {component}"))
    return Query(text, answer.id, "failure")


def seed(store: Store, memories: list[Memory]) -> None:
    """Insert every row in one transaction, rebuild the FTS index once and
    code every memory's meaning, as a bulk write does."""
    conn = store.conn
    with store.write() as db:
        for name in schema.INDEX_TRIGGERS:
            conn.execute(f"DROP TRIGGER IF EXISTS {name}")
        rows.insert_many(db, memories)
        for index in fts.INDEXES:
            conn.execute(f"INSERT INTO {index}({index}) VALUES ('rebuild')")
        for trigger in schema.INDEX_TRIGGERS.values():
            conn.execute(trigger)
        meaning.code_missing(db)


def open_store(root: Path) -> Store:
    (root / ".tree-ring").mkdir(parents=True, exist_ok=True)
    return Store.open(root, create=True)
