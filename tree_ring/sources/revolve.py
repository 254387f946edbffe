"""`revolve sync`: evaluation outcomes a Revolve folder records, as memory.

Revolve keeps runs, evaluations and their verdicts as files. A sync reads
`.md`, `.txt`, `.json` and `.jsonl` files (at most 256, of 256 KiB each) and
files each by the first outcome its path or text names:

| words | outcome | ring | event type | salience | confidence | retention |
|---|---|---|---|---|---|---|
| rejected, rejection, rolled back, rollback, regression, failed branch | rejected | scar | evaluation_rejection | 0.90 | 0.78 | durable |
| promoted, promotion, accepted, winner | promoted | heartwood | evaluation_promotion | 0.86 | 0.84 | durable |
| deferred, future work, hypothesis, seed, unresolved | deferred | seed | evaluation_hypothesis | 0.68 | 0.60 | normal |
| evaluation, result, score, checkpoint, run | observed | outer | evaluation_result | 0.72 | 0.70 | normal |

A file that names no outcome is not memory and is ignored. One memory per
file: what it says (`excerpt`: a JSON record's summary or title field, else
its fields in the order of their names; any other file's first meaningful
line over six characters) clipped to 180, scope
and source type `revolve`, the file in `source.ref`; the id hashes
`FILE:EVENT_TYPE`. A file whose outcome changes keeps its place: the new
memory supersedes the old one (`filesync`). The files are never modified.
"""  # noqa: E501

from __future__ import annotations

from functools import partial
from pathlib import Path

from tree_ring.model.actor import Actor
from tree_ring.model.identity import Identity
from tree_ring.model.record import Link, Memory, now_iso
from tree_ring.sources import files as sources
from tree_ring.sources import filesync
from tree_ring.sources.files import Adapter, Scan

MAX_FILES = 256
MAX_BYTES = 256 * 1024
SUFFIXES = (".md", ".txt", ".json", ".jsonl")
EXCERPT_CHARS = 180

# outcome -> (words, ring, event type, salience, confidence, retention), in the
# order they are tried: a rollback mentioned anywhere outweighs a promotion.
OUTCOMES: tuple[tuple[str, tuple[str, ...], str, str, float, float, str], ...] = (
    (
        "rejected",
        ("rejected", "rejection", "rolled back", "rollback", "regression", "failed branch"),
        "scar",
        "evaluation_rejection",
        0.90,
        0.78,
        "durable",
    ),
    (
        "promoted",
        ("promoted", "promotion", "accepted", "winner"),
        "heartwood",
        "evaluation_promotion",
        0.86,
        0.84,
        "durable",
    ),
    (
        "deferred",
        ("deferred", "future work", "hypothesis", "seed", "unresolved"),
        "seed",
        "evaluation_hypothesis",
        0.68,
        0.60,
        "normal",
    ),
    (
        "observed",
        ("evaluation", "result", "score", "checkpoint", "run"),
        "outer",
        "evaluation_result",
        0.72,
        0.70,
        "normal",
    ),
)


def outcome_of(ref: str, text: str) -> int | None:
    """The index in OUTCOMES of the first outcome the path or text names."""
    haystack = f"{ref} {text}".lower()
    for index, (_, words, *_rest) in enumerate(OUTCOMES):
        if any(word in haystack for word in words):
            return index
    return None


# A JSON record's fields that say what it found, in the order they are read.
SAYING = ("summary", "title", "conclusion", "result", "description", "decision", "notes", "name")


def _clipped(line: str) -> str | None:
    line = " ".join(line.split())
    if len(line) <= 6:
        return None
    return line if len(line) <= EXCERPT_CHARS else line[:EXCERPT_CHARS] + "..."


def excerpt(text: str, ref: str = "") -> str | None:
    """What a record says, in one line: a JSON record's (`.json`, or the
    first line of `.jsonl`) first field of SAYING that holds text, else its
    fields of text, numbers and flags in the order of their names (so a tool
    that writes the keys in another order writes the same record); any other
    file's first meaningful line."""
    if ref.lower().endswith((".json", ".jsonl")):
        said = _json_excerpt(text, ref.lower().endswith(".jsonl"))
        if said is not None:
            return said
    for raw in text.splitlines():
        line = _clipped(raw.strip().lstrip("#").strip().lstrip("-*").strip())
        if line is not None:
            return line
    return None


def _json_excerpt(text: str, lines: bool) -> str | None:
    from tree_ring.model import jsontext

    source = text.strip().split("\n", 1)[0] if lines else text
    try:
        record = jsontext.as_object(jsontext.loads(source))
    except (ValueError, RecursionError):
        return None
    if record is None:
        return None
    for key in SAYING:
        value = record.get(key)
        if isinstance(value, str) and (line := _clipped(value)) is not None:
            return line
    fields = [
        f"{key}: {value}"
        for key, value in sorted(record.items())
        if isinstance(value, (str, int, float, bool))
    ]
    return _clipped("; ".join(fields))


ADAPTER = Adapter(
    name="revolve",
    max_files=MAX_FILES,
    max_bytes=MAX_BYTES,
    accepts=lambda name: name.lower().endswith(SUFFIXES),
    key_of=lambda memory: f"{memory.source_ref}:{memory.event_type}",
    group_of=lambda memory: memory.source_ref,
    file_of=lambda memory: memory.source_ref,
    # Only the project's own files, as for DOX: not what git ignores (a
    # scratch folder an agent writes to becomes no heartwood at a sync).
    pathspecs=tuple(f":(icase)*{suffix}" for suffix in SUFFIXES),
)


def memory_for(ref: str, text: str, identity: Identity, actor: Actor, now: str) -> Memory | None:
    found = outcome_of(ref, text)
    if found is None:
        return None
    outcome, _, ring, event_type, salience, confidence, retention = OUTCOMES[found]
    line = excerpt(text, ref) or f"Revolve {outcome} evidence in {ref}"
    return filesync.compose(
        identity,
        actor,
        now,
        summary=f"Revolve {outcome} evidence from {ref}: {line}",
        event_type=event_type,
        scope="revolve",
        ring=ring,
        details=(
            f"Outcome: {outcome}. Source Revolve record remains authoritative. "
            f"Re-read {ref} before treating this memory as current truth."
        ),
        source_type="revolve",
        source_ref=ref,
        tags=("revolve", "evidence", f"outcome:{outcome}"),
        salience=salience,
        confidence=confidence,
        retention=retention,
        links=(Link("revolve", ref),),
    )


def collect(source_root: Path, project_root: Path, identity: Identity, actor: Actor) -> Scan:
    now = now_iso()

    def build(ref: str, text: str, scan: Scan) -> None:
        memory = memory_for(ref, text, identity, actor, now)
        if memory is not None:
            kept = sources.prepared(scan, memory, ADAPTER.key_of(memory))
            if kept is not None:
                scan.memories.append(kept)

    return sources.scan(ADAPTER, source_root, project_root, build)


# sync(store, source_root, identity, actor, *, dry_run=False, progress=None)
sync = partial(filesync.sync, ADAPTER, collect)
