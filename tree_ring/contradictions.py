"""Finding live memories that a new one contradicts, without a model.

Two statements contradict when, once the part that differs is set aside, they
say the same thing: the same content words (token overlap of at least
`OVERLAP`) with a flipped polarity ("use X" / "do not use X", "always" /
"never", "enable" / "disable") or a changed value ("timeout is 30s" /
"timeout is 60s"). A number is a value when it sets something (a unit, a
version, after "is", "=", "to"); one that names something ("issue 123",
"step 2") is a content word, so "fix for issue 12" and "fix for issue 13" are
two facts, not a dispute. Anything looser ("use tabs in Makefiles" / "use spaces in
Python files") is not flagged: a false alarm costs a person's attention, and
the review queue must stay short enough to be read.

Candidates come from FTS (each content word quoted on its own, never raw text
into MATCH; see `match_queries`), restricted to live, accepted rows of the same project, scope and
partition; the comparison itself is a pure function, so it is tested directly.
"""

from __future__ import annotations

import functools
import re
import sqlite3
import unicodedata
from dataclasses import dataclass

from tree_ring import live, rows
from tree_ring.live import View
from tree_ring.record import Memory

# Share of content words two statements must have in common (Jaccard).
OVERLAP = 0.75
MAX_TERMS = 16
MAX_CANDIDATES = 64

NEGATIONS = frozenset(
    {
        "not",
        "no",
        "never",
        "cannot",
        "without",
        "dont",
        "nor",
    }
)
# Words whose opposite is a negation of one canonical word.
OPPOSITES: dict[str, tuple[str, bool]] = {
    "enable": ("enable", False),
    "enables": ("enable", False),
    "enabled": ("enable", False),
    "enabling": ("enable", False),
    "disable": ("enable", True),
    "disables": ("enable", True),
    "disabled": ("enable", True),
    "disabling": ("enable", True),
    "allow": ("allow", False),
    "allows": ("allow", False),
    "allowed": ("allow", False),
    "disallow": ("allow", True),
    "disallowed": ("allow", True),
    "forbid": ("allow", True),
    "forbids": ("allow", True),
    "forbidden": ("allow", True),
    "include": ("include", False),
    "includes": ("include", False),
    "included": ("include", False),
    "exclude": ("include", True),
    "excludes": ("include", True),
    "excluded": ("include", True),
    "on": ("on", False),
    "off": ("on", True),
    "true": ("true", False),
    "false": ("true", True),
}
# Words that carry neither content nor polarity ("always use X" = "use X").
_NEUTRAL_WORDS = (
    "a an the and or of to in into for with at by from as is are was were be been "
    "being it its this that these those we our us i me my you your they their he she "
    "do does did done always must should shall will would please all every also just "
    "then than so there here has have had can could may might need needs"
)
NEUTRAL = frozenset(_NEUTRAL_WORDS.split())

# Words after which a number is a setting: "is 30", "up to 5", "a limit of 10".
VALUE_CUES = frozenset(
    {"is", "are", "was", "were", "be", "to", "at", "of", "equals", "than", "max", "min"}
)

_DIGIT = re.compile(r"\d")
_WORD = re.compile(r"\d+(?:[.,:]\d+)*[a-z%]*|[a-z][a-z0-9_'+#-]*")


@dataclass(frozen=True)
class Claim:
    """A statement reduced to what it is about, what it says, and which way."""

    words: frozenset[str]  # content words, lightly stemmed
    values: frozenset[str]  # settings: 30s, 3.11, "is 8080" (not "issue 123")
    negated: bool
    terms: tuple[str, ...]  # unstemmed content words, for the FTS query


def _stem(word: str) -> str:
    if word.endswith("'s"):
        word = word[:-2]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes", "zes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _is_value(token: str, before: str, previous: str) -> bool:
    """A number that sets something (30s, 3.11, `timeout = 60`, `up to 5`), as
    opposed to one that names something (issue 123, step 2, fact 0): only a
    changed setting is a contradiction."""
    if not token[-1].isdigit() or "." in token or ":" in token:
        return True  # a unit (30s, 512mb, 80%), a version or a time of day
    return before.rstrip().endswith(("=", ":")) or previous in VALUE_CUES


@functools.lru_cache(maxsize=4096)
def claim(text: str) -> Claim:
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text).replace("\u2019", "'")
    folded = text.casefold()
    words: set[str] = set()
    values: set[str] = set()
    terms: list[str] = []
    flips = 0
    previous = ""
    end = 0
    for match in _WORD.finditer(folded):
        token = match.group().rstrip(".,:'-")
        before, end = folded[end : match.start()], match.end()
        last, previous = previous, token
        if not token:
            continue
        if token in NEGATIONS or token.endswith("n't"):
            flips += 1
            continue
        if token in OPPOSITES:
            canonical, flipped = OPPOSITES[token]
            flips += flipped
            words.add(canonical)
            continue
        if _DIGIT.search(token) and _is_value(token, before, last):
            values.add(token)
            continue
        if token in NEUTRAL or (len(token) < 2 and not token.isdigit()):
            continue
        words.add(_stem(token))
        if token not in terms and "'" not in token:
            terms.append(token)
    return Claim(frozenset(words), frozenset(values), flips % 2 == 1, tuple(terms[:MAX_TERMS]))


def compare(new: str, old: str) -> str | None:
    """How `new` contradicts `old`: 'negation', 'value', or None if it does not."""
    return compare_claims(claim(new), claim(old))


def compare_claims(a: Claim, b: Claim) -> str | None:
    shared = a.words & b.words
    if not shared:
        return None
    if len(shared) / len(a.words | b.words) < OVERLAP:
        return None
    if a.negated != b.negated and a.values == b.values:
        return "negation"
    if a.negated == b.negated and a.values and b.values and a.values != b.values:
        return "value"
    return None


@dataclass(frozen=True)
class Found:
    memory: Memory
    kind: str  # negation | value


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def match_query(found: Claim) -> str | None:
    """The FTS5 query for candidates, each word quoted on its own.

    A statement close enough to contradict shares at least 3 in 4 of the
    content words, so it lacks at most `misses` = len(words) // 4 of ours.
    Split our words into `misses + 1` groups: whatever lacks at most that many
    has every word of at least one group. So the query is the OR of each
    group's AND: with up to three words, the AND of all; with more, a superset
    that `compare_claims` narrows. Each word appears once, and ANDs stay
    selective however large the store grows.
    """
    terms = found.terms
    if not terms:
        return None
    groups = min(len(found.words) // 4 + 1, len(terms))
    parts = [terms[start::groups] for start in range(groups)]
    return " OR ".join("(" + " AND ".join(_quote(t) for t in part) + ")" for part in parts)


def candidate_sql(clause: live.Clause, partition_column: str | None) -> str:
    # CROSS JOIN keeps FTS first: SQLite would otherwise walk the project's rows
    # and run the MATCH once for each of them.
    sql = (
        "SELECT m.* FROM memory_fts CROSS JOIN memories m ON m.rowid = memory_fts.rowid "
        "WHERE memory_fts MATCH :match AND m.project IS :project AND m.scope = :scope "
        f"AND m.id != :id AND {clause.sql}"
    )
    if partition_column is not None:
        sql += f" AND m.{partition_column} IS :partition"
    return sql + " ORDER BY memory_fts.rank LIMIT :cap"


PARTITIONS = {"agent": "agent_profile", "workflow": "workflow_id", "session": "session_id"}


def find(conn: sqlite3.Connection, memory: Memory) -> list[Found]:
    """Live, accepted memories in the same project, scope and partition that
    `memory` contradicts, oldest first. `memory` need not be stored yet."""
    new = claim(memory.summary)
    match = match_query(new)
    if match is None:
        return []
    clause = live.live(View(), "m")
    column = PARTITIONS.get(memory.scope)
    params: dict[str, object] = {
        **clause.params,
        "match": match,
        "project": memory.project,
        "scope": memory.scope,
        "id": memory.id,
        "partition": getattr(memory, column) if column else None,
        "cap": MAX_CANDIDATES,
    }
    found: list[Found] = []
    for row in conn.execute(candidate_sql(clause, column), params):
        if row["id"] in memory.supersedes:
            continue  # replacing a memory is not contradicting it
        kind = compare_claims(new, claim(row["summary"]))
        if kind is not None:
            found.append(Found(rows.from_row(row), kind))
    found.sort(key=lambda f: (f.memory.created_at, f.memory.id))
    return found
