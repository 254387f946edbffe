"""The deterministic summarisers: summary-tree nodes and consolidation text.

No model is called. A tree node's content is the TinyCortex `ConcatSummariser`:
inputs sorted priority-first by score (a stable sort, so equal scores keep
their arrival order), each non-blank input prefixed with "— " (provenance: one
input, one entry), joined by newlines and clamped to the output budget at
`budget * 4` characters. A node's labels come from its label strategy:
`inherit` merges the inputs' labels, `extract` runs a regex extractor over the
new content, `empty` leaves both lists empty.

Tokens are estimated, not counted: `ceil(len(text) / 4)`. The estimate only
has to be deterministic and monotone; it drives the L0 seal gate and the
output clamp, never billing.

Consolidation text (one summary memory per group) is built here too, so the
write of a consolidation and its rewrite after a source is forgotten use the
same function and cannot drift apart.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tree_ring.model.record import MAX_SUMMARY, Memory

PREFIX = "— "
CHARS_PER_TOKEN = 4
LABEL_STRATEGIES = ("inherit", "extract", "empty")
MAX_LABELS = 16


def token_estimate(text: str) -> int:
    """ceil(len(text) / 4): deterministic, dependency-free, good enough to gate on."""
    return -(-len(text) // CHARS_PER_TOKEN)


@dataclass(frozen=True)
class SummaryInput:
    """One thing a node summarises: a memory (at L1) or a lower node (above)."""

    id: str
    text: str
    score: float
    start: str  # earliest time covered
    end: str  # latest time covered
    entities: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    leaves: int = 1  # memories under this input


# (inputs, output budget in tokens) -> content. A host could plug a model in
# here; the engine only relies on the result being non-blank text.
Summariser = Callable[[Sequence[SummaryInput], int], str]


def clamp_to_budget(text: str, budget_tokens: int) -> str:
    """At most `budget * 4` characters; cut at a line end when one is near."""
    limit = max(1, budget_tokens) * CHARS_PER_TOKEN
    if len(text) <= limit:
        return text
    cut = text[:limit]
    newline = cut.rfind("\n")
    if newline >= limit // 2:
        cut = cut[:newline]
    return cut.rstrip()


def one_line(text: str) -> str:
    return " ".join(text.split())


def concat_summary(inputs: Sequence[SummaryInput], budget_tokens: int) -> str:
    """The default summariser: priority by score, stable order, provenance prefix."""
    ordered = sorted(inputs, key=lambda item: -item.score)
    parts = [PREFIX + item.text.strip() for item in ordered if item.text.strip()]
    return clamp_to_budget("\n".join(parts), budget_tokens) or PREFIX.strip()


# ------------------------------------------------------------------ labels

# One pass splits the text into candidate tokens; each is then classified by
# an anchored match on the token alone, so the cost stays linear in the text.
_TOKEN = re.compile(r"[\w./-]+")
_FILE = re.compile(
    r"[\w-]+\.(?:py|md|rs|ts|tsx|js|jsx|json|toml|ya?ml|txt|sql|sh|go|java|rb|c|h|cpp|css|html)"
)
_IDENT = re.compile(
    r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+"  # snake_case
    r"|[a-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+"  # camelCase
    r"|[A-Za-z_]\w+(?:\.[A-Za-z_]\w+)+"  # dotted.names
)
_CAPITAL = re.compile(r"[A-Z][A-Za-z0-9]{2,}")
# Sentence ends: punctuation before a space, a line end, a provenance dash.
_SENTENCES = re.compile(r"[.!?:;](?:\s+|$)|\n|—")
_NOT_TOPICS = frozenset(
    {
        *("the", "this", "that", "these", "those", "there", "then", "than", "when"),
        *("where", "what", "which", "while", "with", "we", "our", "you", "your", "they"),
        *("their", "it", "its", "not", "never", "always", "use", "uses", "used", "for"),
        *("from", "and", "but", "after", "before", "also", "only", "all", "any", "each"),
        *("every", "some", "none", "todo", "note"),
    }
)


def _ranked(found: list[str]) -> tuple[str, ...]:
    counts: dict[str, int] = {}
    for item in found:
        counts[item] = counts.get(item, 0) + 1
    # Most frequent first; first appearance breaks ties (dicts keep order).
    order = sorted(counts, key=lambda item: -counts[item])
    return tuple(order[:MAX_LABELS])


def extract_labels(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Regex-only extractor: (entities, topics), linear in the text.

    Entities are canonical ids for paths (`path:src/app.py`) and code
    identifiers (`code:parse_time`, `code:store.write`); topics are
    capitalised terms (Postgres, GitHub), lower-cased. A capitalised word at
    a sentence start counts only if it is not an ordinary word (ALLCAPS or an
    inner capital, as in GitHub), so "Use WAL" yields `wal`, not `use`.
    """
    entities: list[str] = []
    topics: list[str] = []
    for sentence in _SENTENCES.split(text):
        first = True
        for raw in _TOKEN.findall(sentence):
            starts, first = first, False
            if raw.islower() and raw.isalpha():
                continue  # a plain word, most of any text: no path, identifier or name
            token = raw.strip("./-")
            if not token or token.isdigit():
                continue
            if "/" in token or _FILE.fullmatch(token):
                entities.append("path:" + token)
            elif _IDENT.fullmatch(token):
                entities.append("code:" + token)
            elif _CAPITAL.fullmatch(token) and token.casefold() not in _NOT_TOPICS:
                distinctive = token.isupper() or any(c.isupper() for c in token[1:])
                if distinctive or not starts:
                    topics.append(token.casefold())
    return _ranked(entities), _ranked(topics)


def resolve_labels(
    strategy: str, inputs: Sequence[SummaryInput], content: str
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The node's (entities, topics) under `strategy`."""
    if strategy == "extract":
        return extract_labels(content)
    if strategy == "inherit":
        entities = [e for item in inputs for e in item.entities]
        topics = [t for item in inputs for t in item.topics]
        return _ranked(entities), _ranked(topics)
    return (), ()


# ---------------------------------------------------------- consolidation

CONSOLIDATION_PLURAL = "memories"
CONSOLIDATION_TAGS = 5


def consolidation_tags(sources: Sequence[Memory], sensitive: bool) -> tuple[str, ...]:
    """The sources' most common tags plus `consolidation`; none for a sensitive group,
    whose tags could say what it is about."""
    if sensitive:
        return ("consolidation",)
    counts: dict[str, int] = {}
    for memory in sources:
        for tag in memory.tags:
            counts[tag] = counts.get(tag, 0) + 1
    ranked = sorted(counts, key=lambda t: (-counts[t], t))[:CONSOLIDATION_TAGS]
    return tuple(sorted({"consolidation", *ranked}))


def consolidation_order(sources: Sequence[Memory]) -> list[Memory]:
    """Most salient first, then oldest, then id: the same order on every run."""
    return sorted(sources, key=lambda m: (-m.salience, m.created_at, m.id))


def consolidation_text(sources: Sequence[Memory], period_type: str, period_key: str) -> str:
    """One summary line over a group, within `record.MAX_SUMMARY` characters.

    The group's genre (event type, ring, scope) is read from the sources, so a
    rewrite after one source is forgotten needs nothing but the survivors.
    """
    ordered = consolidation_order(sources)
    first = ordered[0]
    noun = "memory" if len(ordered) == 1 else CONSOLIDATION_PLURAL
    period = "all time" if period_type == "manual" else f"{period_type} {period_key}"
    head = (
        f"Consolidated {len(ordered)} {first.event_type} {noun} "
        f"({first.ring} ring, {first.scope} scope, {period}):"
    )
    entries = [f"{PREFIX}{one_line(m.summary)}" for m in ordered]
    text = " ".join([head, *entries])
    if len(text) <= MAX_SUMMARY:
        return text
    # Whole entries only, then say how many did not fit.
    kept: list[str] = []
    for index, entry in enumerate(entries):
        more = f" … and {len(entries) - index} more"
        candidate = " ".join([head, *kept, entry])
        if len(candidate) + len(more) > MAX_SUMMARY:
            return " ".join([head, *kept]) + more
        kept.append(entry)
    return text[:MAX_SUMMARY]  # unreachable: the loop returns once an entry does not fit
