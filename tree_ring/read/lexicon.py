"""A small built-in lexicon of the coding domain: words a memory and a
question use for the same thing.

Each group is a set of words that stand for one another often enough in
engineering notes that searching one should find the others: an
abbreviation and its expansion ("db", "database"), synonyms ("outage",
"downtime"), and a symptom beside its usual causes ("slow" beside "index",
"timeout", "latency"). Groups are single words, lower case, as the index
tokenises them. A word in several groups is related to all of their words.
Related words are searched beside the question's own and scored below them
(`query.RELATED_WEIGHT`), so they widen a recall and never outweigh the
words a person typed.
"""

from __future__ import annotations

from functools import lru_cache

GROUPS: tuple[tuple[str, ...], ...] = (
    # abbreviations and what they stand for
    ("db", "database", "postgres", "postgresql", "mysql", "sqlite", "sql"),
    ("ci", "pipeline", "workflow", "actions", "jenkins", "build"),
    ("cd", "deploy", "deployment", "release", "ship", "rollout"),
    ("k8s", "kubernetes", "pod", "pods", "cluster", "kubectl"),
    ("auth", "authentication", "login", "signin", "sign", "sso", "token", "tokens", "jwt", "oauth"),
    ("authz", "authorization", "permission", "permissions", "rbac", "role", "roles"),
    ("env", "environment", "variable", "variables"),
    ("prod", "production"),
    ("config", "configuration", "settings", "setting"),
    ("repo", "repository", "monorepo"),
    ("pr", "prs", "review"),
    ("dep", "deps", "dependency", "dependencies", "package", "packages", "lockfile"),
    ("ui", "frontend", "interface"),
    ("api", "endpoint", "endpoints", "http", "rest"),
    ("http", "httpx", "requests", "urllib", "urllib3", "aiohttp", "curl"),
    ("tls", "ssl", "https", "certificate", "cert", "certificates"),
    ("dns", "domain", "hostname"),
    ("vm", "server", "host", "node", "nodes"),
    ("js", "javascript", "node", "npm", "typescript", "ts"),
    ("mem", "memory", "ram", "rss", "heap"),
    ("perf", "performance", "latency", "speed", "slower", "slowdown", "doubled", "regression"),
    ("msg", "message", "messages", "queue", "consumer"),
    ("docs", "documentation", "readme", "wiki", "notes"),
    ("repl", "replica", "replication", "primary"),
    ("tz", "timezone", "utc", "dst"),
    # synonyms
    ("outage", "down", "downtime", "unavailable", "offline", "incident"),
    ("bug", "defect", "issue", "regression", "broke", "broken", "break"),
    ("crash", "crashed", "crashes", "panic", "segfault", "killed", "restart", "restarts"),
    ("fail", "fails", "failed", "failing", "failure", "error", "errors"),
    ("flaky", "intermittent", "intermittently", "random", "randomly", "sometimes"),
    ("test", "tests", "testing", "pytest", "suite", "spec"),
    ("lint", "linter", "format", "formatting", "formatter", "ruff", "prettier", "style"),
    ("secret", "secrets", "credential", "credentials", "password", "passwords", "key", "keys"),
    ("customer", "customers", "user", "users", "client", "clients"),
    ("stale", "outdated", "old", "cached", "cache"),
    ("delete", "remove", "drop", "purge"),
    ("container", "containers", "docker", "image", "dockerfile"),
    ("throttle", "throttling", "ratelimit", "limit", "quota", "429"),
    ("oncall", "paged", "page", "pages", "pagerduty", "alert", "alerts"),
    ("backup", "backups", "restore", "snapshot"),
    ("log", "logs", "logging"),
    ("startup", "boot", "launch", "start"),
    ("job", "jobs", "task", "tasks", "worker", "workers"),
    ("duplicate", "twice", "double", "doubled", "same"),
    ("fix", "fixed", "workaround", "solution"),
    ("payment", "payments", "charge", "charges", "card", "cards", "stripe"),
    ("schema", "table", "tables", "column", "columns", "migration", "migrations", "alter"),
    ("flag", "flags", "toggle", "toggles", "switch", "launchdarkly", "unreleased"),
    ("feature", "features", "functionality", "capability"),
    # symptoms beside their usual causes
    ("slow", "slower", "latency", "index", "timeout", "n+1", "cache"),
    ("broke", "down", "outage", "failed", "incident"),
    ("timeout", "timeouts", "hang", "hangs", "stuck"),
    ("oom", "oomkilled", "memory", "leak", "heap", "limit"),
    ("leak", "leaks", "grows", "growing", "unbounded"),
    ("connections", "connection", "pool", "pgbouncer", "max_connections", "socket", "sockets"),
    ("disk", "space", "volume", "full", "storage"),
    ("handshake", "certificate", "expired", "tls", "ssl"),
    ("race", "concurrent", "concurrency", "lock", "locked", "duplicate"),
)


# Long words are matched by their first PREFIX letters, so a form the groups
# do not list ("authenticate") finds the one they do ("authentication").
PREFIX = 7


@lru_cache(maxsize=1024)
def related(word: str) -> tuple[str, ...]:
    """The words the lexicon relates to `word`, or () when it knows none: the
    other words of every group it is in, in the groups' order. A long word no
    group lists takes the relations of the first listed word (in alphabetical
    order) that shares its first PREFIX letters. Looked up group by group, as
    a question asks about a few words: a table of every word would cost each
    recall's start-up more than all its lookups."""
    near: dict[str, None] = {}
    for group in GROUPS:
        if word in group:
            near.update((other, None) for other in group if other != word)
    if not near and len(word) > PREFIX:
        listed = min(
            (
                w
                for group in GROUPS
                for w in group
                if len(w) > PREFIX and w[:PREFIX] == word[:PREFIX]
            ),
            default=None,
        )
        if listed is not None and listed != word:
            return related(listed)
    return tuple(near)
