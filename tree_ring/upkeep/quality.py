"""Quality scenarios: recall must bring back what it must, and never what it must not.

A scenario is one JSON file in the original Tree Ring's format (`name`,
`category`, `seed_memories`, `query`, `expected_recall`, `forbidden_recall`).
Running it seeds a fresh temporary store through the real write path (a
person's `store_memory`, supersession through `correct`), runs one `recall`
as the scenario's identity, and checks two lists against the hits:

- every `expected_recall` entry must match a hit (else it is *missed*);
- no `forbidden_recall` entry may match a hit (else it is *forbidden recalled*).

An entry is a memory id, or an object with any of `memory_id`, `ring`, `tag`
and `source_ref` (all given must hold for one hit) and a `reason`; so
"recalled with its evidence ref" is `{"memory_id": ..., "source_ref": ...}`.
`limit` (default: recall's) makes order matter: with `"limit": 1`, a
forbidden row must not be the top hit.

The original's other fields run too (quality_writes.py): `write_candidates`
with their `expected_write_decisions`, decided by Tree Ring's own write path;
`evidence_refs`, which the stored rows must keep; a `behavior_expectation`,
whose recall is checked and whose decisions are reported as the fixture
declares them; `workflow_prompt` where `query` is absent; and `thresholds`,
the original's per-scenario bars (the default bar is strict).

Beyond the original's format: `project` and `identity` (`agent_profile`,
`workflow_id`, `session_id`) name who reads, and `writer` (`agent`, the
default, or `person`) who writes the candidates. Without `project`, the
scenario reads as the project its rows name, as the original's rows each
carry theirs (`quality-scenarios` when none does); a seed's own `project`,
other than the scenario's, makes it another project's row. Times may be
ISO-8601 or relative to the run (`now`, `now-90d`, `now+2h`), so a fixture
never ages and "fresh" stays fresh; one counted past the years 0001-9999 is a
broken scenario, as any bad field is. An expired row is simply written with
`expires_at` in the past (the write path accepts it); trust comes from the
`trust` field.

Across a run: expected recall rate = expected entries found / expected
entries, forbidden recall rate = forbidden entries recalled / forbidden
entries. The bar is 1.0 and 0.0, and any scenario that misses it fails.
"""

from __future__ import annotations

import json
import re
import stat
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

from tree_ring.model import imported, project, record, validation
from tree_ring.model.actor import Actor
from tree_ring.model.errors import TreeRingError, UsageError
from tree_ring.model.identity import Identity
from tree_ring.model.record import Memory
from tree_ring.read.recall import DEFAULT_LIMIT, Hit, recall
from tree_ring.store import rows
from tree_ring.store.db import Store
from tree_ring.store.live import View
from tree_ring.upkeep import quality_writes as writes
from tree_ring.write import correct, pipeline

DEFAULT_PATH = Path(__file__).resolve().parents[2] / "fixtures" / "quality"
DEFAULT_PROJECT = "quality-scenarios"
# A scenario is a page of JSON; a file past this is read no further.
MAX_SCENARIO_BYTES = 4 * 1024 * 1024

# The original's categories, then the ones our scenarios add.
CATEGORIES = (
    "constraint_recall",
    "spam_prevention",
    "stale_truth_suppression",
    "behavior_proof",
    "evidence_preservation",
    "failure_recall",
    "sensitivity",
    "ranking",
    "liveness",
    "trust",
    "isolation",
)
TOP_KEYS = frozenset(
    {
        "name",
        "category",
        "description",
        "project",
        "identity",
        "query",
        "limit",
        "seed_memories",
        "expected_recall",
        "forbidden_recall",
        # The original's, beyond recall (quality_writes.py).
        "workflow_prompt",
        "write_candidates",
        "expected_write_decisions",
        "evidence_refs",
        "behavior_expectation",
        "thresholds",
        # Ours: who writes the candidates.
        "writer",
    }
)
# The original's per-scenario bars, each legal only where its metric is
# observed; without one the bar is strict (1.0, or 0.0 for forbidden recall).
THRESHOLDS = (
    "min_constraint_recall_rate",
    "max_forbidden_recall_rate",
    "min_spam_rejection_rate",
    "min_evidence_required_rate",
    "min_behavior_proof_pass_rate",
)
# What a seed may say: the export row's fields that a write may carry. Fields
# only the store sets (retired_at, redacted_at, origin) are refused, so a
# scenario cannot fake a state the write path never produces.
SEED_KEYS = frozenset(record.export_keys(writable=True))
TIME_KEYS = ("created_at", "updated_at", "expires_at", "valid_from", "valid_to")
SELECTORS = ("memory_id", "ring", "tag", "source_ref")
_RELATIVE = re.compile(r"now(?:([+-])(\d+(?:\.\d+)?)([smhd]))?\Z")
_UNITS = {"s": 1.0, "m": 60.0, "h": 3_600.0, "d": 86_400.0}

Recaller = Callable[..., list[Hit]]


class ScenarioError(UsageError):
    """A scenario file that cannot be run; the message names the file and field."""


@dataclass(frozen=True)
class Expectation:
    memory_id: str | None = None
    ring: str | None = None
    tag: str | None = None
    source_ref: str | None = None
    reason: str = ""

    @property
    def label(self) -> str:
        if self.memory_id and not (self.ring or self.tag or self.source_ref):
            return self.memory_id
        given = ((s, getattr(self, s)) for s in SELECTORS)
        return " ".join(f"{name}={value}" for name, value in given if value)

    def matches(self, memory: Memory) -> bool:
        return (
            (self.memory_id is None or memory.id == self.memory_id)
            and (self.ring is None or memory.ring == self.ring)
            and (self.tag is None or self.tag in memory.tags)
            and (self.source_ref is None or memory.source_ref == self.source_ref)
        )


@dataclass(frozen=True)
class Scenario:
    path: str
    name: str
    category: str
    query: str
    limit: int
    identity: Identity
    seeds: tuple[Memory, ...]
    supersessions: tuple[tuple[str, str], ...]  # (old id, new id), in file order
    expected: tuple[Expectation, ...]
    forbidden: tuple[Expectation, ...]
    candidates: tuple[writes.Candidate, ...] = ()
    behavior: writes.Behavior | None = None
    evidence_refs: tuple[str, ...] = ()
    writer: Actor = writes.AGENT
    thresholds: Mapping[str, float] = field(default_factory=lambda: {})


@dataclass(frozen=True)
class ScenarioReport:
    path: str
    name: str
    category: str
    recalled: tuple[str, ...] = ()
    expected: tuple[str, ...] = ()
    missed: tuple[str, ...] = ()
    forbidden: tuple[str, ...] = ()
    forbidden_recalled: tuple[str, ...] = ()
    error: str | None = None
    decisions: tuple[writes.DecisionReport, ...] = ()
    behavior: writes.BehaviorReport | None = None
    evidence_missing: tuple[str, ...] = ()
    thresholds: Mapping[str, float] = field(default_factory=lambda: {})

    @property
    def passed(self) -> bool:
        if self.error is not None or self.evidence_missing:
            return False
        bars = self.thresholds
        found = _rate(len(self.expected) - len(self.missed), len(self.expected))
        leaked = _rate(len(self.forbidden_recalled), len(self.forbidden))
        behaved = None if self.behavior is None else float(self.behavior.passed)
        return (
            (found is None or found >= bars.get("min_constraint_recall_rate", 1.0))
            and (leaked is None or leaked <= bars.get("max_forbidden_recall_rate", 0.0))
            and all(d.passed for d in self.decisions)
            and (behaved is None or behaved >= bars.get("min_behavior_proof_pass_rate", 1.0))
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "name": self.name,
            "category": self.category,
            "passed": self.passed,
            "recalled": list(self.recalled),
            "expected": list(self.expected),
            "missed": list(self.missed),
            "forbidden": list(self.forbidden),
            "forbidden_recalled": list(self.forbidden_recalled),
            "write_decisions": [d.to_dict() for d in self.decisions],
            "behavior_expectation": None if self.behavior is None else self.behavior.to_dict(),
            "evidence_missing": list(self.evidence_missing),
            "error": self.error,
        }


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 6) if whole else None


@dataclass(frozen=True)
class QualityReport:
    scenarios: tuple[ScenarioReport, ...]

    @property
    def expected_total(self) -> int:
        return sum(len(s.expected) for s in self.scenarios)

    @property
    def expected_found(self) -> int:
        return sum(len(s.expected) - len(s.missed) for s in self.scenarios)

    @property
    def forbidden_total(self) -> int:
        return sum(len(s.forbidden) for s in self.scenarios)

    @property
    def forbidden_hits(self) -> int:
        return sum(len(s.forbidden_recalled) for s in self.scenarios)

    @property
    def passed(self) -> bool:
        return bool(self.scenarios) and all(s.passed for s in self.scenarios)

    def to_dict(self) -> dict[str, Any]:
        decisions = [d for s in self.scenarios for d in s.decisions]
        behaviors = [s.behavior for s in self.scenarios if s.behavior is not None]
        return {
            "passed": self.passed,
            "scenario_count": len(self.scenarios),
            "failed": [s.name for s in self.scenarios if not s.passed],
            "expected_total": self.expected_total,
            "expected_found": self.expected_found,
            "expected_recall_rate": _rate(self.expected_found, self.expected_total),
            "forbidden_total": self.forbidden_total,
            "forbidden_hits": self.forbidden_hits,
            "forbidden_recall_rate": _rate(self.forbidden_hits, self.forbidden_total),
            "write_decisions_total": len(decisions),
            "write_decisions_met": sum(d.passed for d in decisions),
            "behavior_total": len(behaviors),
            "behavior_passed": sum(b.passed for b in behaviors),
            "scenarios": [s.to_dict() for s in self.scenarios],
        }


# -- loading -----------------------------------------------------------------


def _resolve_time(value: Any, now: datetime, where: str = "time") -> Any:
    """`now`, `now-90d`, `now+2h` become stored times; anything else is left as is.
    One counted past the years a time can name (`now-99999999d`) makes the
    scenario a broken one, named at `where`, as any other bad field does."""
    if not isinstance(value, str):
        return value
    found = _RELATIVE.fullmatch(value.strip())
    if found is None:
        return value
    sign, amount, unit = found.groups()
    try:
        offset = timedelta(seconds=float(amount or 0) * _UNITS[unit or "s"])
        return record.format_time(now - offset if sign == "-" else now + offset)
    except OverflowError:  # past a timedelta's days, or a datetime's years
        raise ScenarioError(
            f"{where}: {value.strip()[:40]!r} falls outside the years 0001-9999; "
            "count a nearer time, e.g. now-90d"
        ) from None


def _as_str_list(value: Any, where: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in cast(list[Any], value)):
        raise ScenarioError(f"{where}: must be a list of memory ids")
    return cast(list[str], value)


def _seed(raw: Any, where: str, default_project: str, now: datetime) -> Memory:
    if not isinstance(raw, dict):
        raise ScenarioError(f"{where}: each seed memory must be an object")
    row = {str(k): v for k, v in cast(dict[Any, Any], raw).items()}
    unknown = sorted(set(row) - SEED_KEYS)
    if unknown:
        raise ScenarioError(f"{where}.{unknown[0]}: not a field a write can carry")
    if not isinstance(row.get("id"), str) or not row["id"]:
        raise ScenarioError(f"{where}.id: every seed needs an id, so expectations can name it")
    if not isinstance(row.get("summary"), str) or not row["summary"].strip():
        raise ScenarioError(f"{where}.summary: every seed needs a summary")
    for key in TIME_KEYS:
        if key in row:
            row[key] = _resolve_time(row[key], now, f"{where}.{key}")
    row.setdefault("created_at", record.format_time(now))
    row.setdefault("project", default_project)
    row.setdefault("scope", "project")
    # Links are applied after every row is written, through the real verbs.
    row.pop("supersedes", None)
    row.pop("superseded_by", None)
    try:
        memory = imported.from_mapping(row).replace(origin="person")
        validation.validate(memory)
    except UsageError as exc:
        raise ScenarioError(f"{where}: {exc}") from None
    return memory


def _expectations(raw: Any, where: str, seed_ids: set[str]) -> tuple[Expectation, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise ScenarioError(f"{where}: must be a list")
    out: list[Expectation] = []
    for index, item in enumerate(cast(list[Any], raw)):
        at = f"{where}[{index}]"
        if isinstance(item, str):
            item = {"memory_id": item}
        if not isinstance(item, dict):
            raise ScenarioError(f"{at}: must be a memory id or an object with memory_id")
        entry = {str(k): v for k, v in cast(dict[Any, Any], item).items()}
        unknown = sorted(set(entry) - {*SELECTORS, "reason"})
        if unknown:
            raise ScenarioError(f"{at}.{unknown[0]}: unknown key; use {', '.join(SELECTORS)}")
        values: dict[str, str | None] = {}
        for key in SELECTORS:
            value = entry.get(key)
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise ScenarioError(f"{at}.{key}: must be a non-blank string")
            values[key] = value
        if not any(values.values()):
            raise ScenarioError(f"{at}: needs a memory_id, ring, tag or source_ref")
        memory_id = values["memory_id"]
        if memory_id is not None and memory_id not in seed_ids:
            raise ScenarioError(f"{at}.memory_id: {memory_id!r} is not a seed memory's id")
        reason = entry.get("reason", "")
        out.append(Expectation(**values, reason=str(reason)))
    return tuple(out)


def _project(data: dict[str, Any], path: str) -> str:
    """The project that reads: the scenario's `project`, else the one its rows
    name (the original's rows each carry theirs), else the default."""
    if "project" in data:
        project_id = data["project"]
        if not isinstance(project_id, str) or not project_id.strip():
            raise ScenarioError(f"{path}: project: must be a non-blank string")
        return project_id
    named: set[str] = set()
    for key in ("seed_memories", "write_candidates"):
        rows_given: Any = data.get(key)
        for row in cast(list[Any], rows_given) if isinstance(rows_given, list) else []:
            claimed = cast(dict[str, Any], row).get("project") if isinstance(row, dict) else None
            if isinstance(claimed, str) and claimed.strip():
                named.add(claimed)
    if len(named) > 1:
        listed = ", ".join(sorted(named)[:3])
        raise ScenarioError(
            f"{path}: project: the rows name several projects ({listed}); "
            "say which one reads with a top-level project"
        )
    return named.pop() if named else DEFAULT_PROJECT


def _identity(data: dict[str, Any], path: str) -> Identity:
    project_id = _project(data, path)
    raw: Any = data.get("identity") or {}
    if not isinstance(raw, dict):
        raise ScenarioError(f"{path}: identity: must be an object")
    who = {str(k): v for k, v in cast(dict[Any, Any], raw).items()}
    allowed = ("agent_profile", "workflow_id", "session_id")
    for key, value in who.items():
        if key not in allowed or not (value is None or isinstance(value, str)):
            raise ScenarioError(f"{path}: identity.{key}: use string {', '.join(allowed)}")
    return Identity(
        project_id, who.get("agent_profile"), who.get("workflow_id"), who.get("session_id")
    )


def _thresholds(raw: Any, path: str, observed: set[str]) -> dict[str, float]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ScenarioError(f"{path}: thresholds: must be an object")
    bars: dict[str, float] = {}
    for key, value in cast(dict[Any, Any], raw).items():
        name = str(key)
        if name not in THRESHOLDS:
            raise ScenarioError(f"{path}: thresholds.{name}: use one of {', '.join(THRESHOLDS)}")
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise ScenarioError(f"{path}: thresholds.{name}: must be a number from 0 to 1")
        if name not in observed:
            raise ScenarioError(
                f"{path}: thresholds.{name}: the scenario observes nothing it measures"
            )
        bars[name] = float(value)
    return bars


def _query(doc: dict[str, Any], path: str) -> str:
    """`query`, or the original's `workflow_prompt` where there is none."""
    for key in ("query", "workflow_prompt"):
        value = doc.get(key)
        if isinstance(value, str) and value.strip():
            return value
        if value is not None and not isinstance(value, str):
            raise ScenarioError(f"{path}: {key}: must be a string")
    raise ScenarioError(f"{path}: query: required, a non-blank string (or workflow_prompt)")


def parse(data: Any, path: str, now: datetime | None = None) -> Scenario:
    """Validate one scenario document; raises ScenarioError naming the field."""
    now = now or datetime.now(UTC)
    if not isinstance(data, dict):
        raise ScenarioError(f"{path}: a scenario must be a JSON object")
    doc = {str(k): v for k, v in cast(dict[Any, Any], data).items()}
    unknown = sorted(set(doc) - TOP_KEYS)
    if unknown:
        raise ScenarioError(f"{path}: {unknown[0]}: unknown field")
    for key in ("name", "category"):
        if not isinstance(doc.get(key), str) or not doc[key].strip():
            raise ScenarioError(f"{path}: {key}: required, a non-blank string")
    if doc["category"] not in CATEGORIES:
        raise ScenarioError(f"{path}: category: use one of {', '.join(CATEGORIES)}")
    query = _query(doc, path)
    limit = doc.get("limit", DEFAULT_LIMIT)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 256:
        raise ScenarioError(f"{path}: limit: must be a whole number from 1 to 256")
    identity = _identity(doc, path)
    raw_seeds = doc.get("seed_memories", [])
    if not isinstance(raw_seeds, list):
        raise ScenarioError(f"{path}: seed_memories: must be a list")
    seeds: list[Memory] = []
    links: list[tuple[str, str]] = []
    for index, raw in enumerate(cast(list[Any], raw_seeds)):
        where = f"{path}: seed_memories[{index}]"
        memory = _seed(raw, where, identity.project, now)
        if any(s.id == memory.id for s in seeds):
            raise ScenarioError(f"{where}.id: {memory.id!r} is used twice")
        seeds.append(memory)
        row = cast(dict[str, Any], raw)
        for old in _as_str_list(row.get("supersedes"), f"{where}.supersedes"):
            links.append((old, memory.id))
        for new in _as_str_list(row.get("superseded_by"), f"{where}.superseded_by"):
            links.append((memory.id, new))
    seed_ids = {s.id for s in seeds}
    for old, new in links:
        for end in (old, new):
            if end not in seed_ids:
                raise ScenarioError(f"{path}: supersession names {end!r}, which is not a seed")
    expected = _expectations(doc.get("expected_recall"), f"{path}: expected_recall", seed_ids)
    forbidden = _expectations(doc.get("forbidden_recall"), f"{path}: forbidden_recall", seed_ids)
    try:
        candidates = writes.candidates(
            doc.get("write_candidates"),
            doc.get("expected_write_decisions"),
            path,
            lambda raw, at: _seed(raw, at, identity.project, now),
        )
        refs = writes.evidence_refs(doc.get("evidence_refs"), path)
        behavior = writes.behavior(doc.get("behavior_expectation"), path, seed_ids)
        writer = writes.writer(doc.get("writer"), path)
    except ScenarioError:
        raise
    except UsageError as exc:
        raise ScenarioError(str(exc)) from None
    clash = seed_ids & {c.memory.id for c in candidates}
    if clash:
        raise ScenarioError(f"{path}: write_candidates: {sorted(clash)[0]!r} is also a seed's id")
    if doc["category"] == "behavior_proof" and behavior is None:
        raise ScenarioError(f"{path}: behavior_expectation: a behavior_proof scenario needs one")
    if not (expected or forbidden or candidates or behavior):
        raise ScenarioError(
            f"{path}: expected_recall: a scenario must expect or forbid a recall, "
            "or expect write decisions"
        )
    clash_labels = {e.label for e in expected} & {f.label for f in forbidden}
    if clash_labels:
        raise ScenarioError(f"{path}: forbidden_recall: {sorted(clash_labels)[0]} is also expected")
    observed = {
        name
        for name, seen in (
            ("min_constraint_recall_rate", expected),
            ("max_forbidden_recall_rate", forbidden),
            ("min_spam_rejection_rate", [c for c in candidates if c.expected == "reject"]),
            (
                "min_evidence_required_rate",
                [c for c in candidates if c.memory.event_type.startswith("evaluation")],
            ),
            ("min_behavior_proof_pass_rate", [behavior] if behavior else []),
        )
        if seen
    }
    return Scenario(
        path=path,
        name=doc["name"],
        category=doc["category"],
        query=query,
        limit=limit,
        identity=identity,
        seeds=tuple(seeds),
        supersessions=tuple(dict.fromkeys(links)),
        expected=expected,
        forbidden=forbidden,
        candidates=candidates,
        behavior=behavior,
        evidence_refs=refs,
        writer=writer,
        thresholds=_thresholds(doc.get("thresholds"), path, observed),
    )


def load(path: Path, now: datetime | None = None, *, listed: bool = False) -> Scenario:
    """One scenario file. A file named on its own is read as it is (a pipe
    once); one a folder's walk `listed` is read only when it is a regular
    file, so that a FIFO or a device among the scenarios is reported, not
    waited on."""
    try:
        if listed:
            # Its kind checked before the open (through a link too), and the
            # open one a FIFO swapped in after the check cannot hold.
            if not stat.S_ISREG(path.stat().st_mode):
                raise ScenarioError(
                    f"{path}: not a regular file (a pipe, a device or a folder); "
                    "a folder's scenarios are regular JSON files: move it out of the folder"
                )
            raw = project.read_bytes(path, MAX_SCENARIO_BYTES, follow=True)
        else:
            with path.open("rb") as handle:
                raw = handle.read(MAX_SCENARIO_BYTES + 1)  # `/dev/zero` is no scenario either
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if len(raw) > MAX_SCENARIO_BYTES:
        raise ScenarioError(f"{path}: longer than {MAX_SCENARIO_BYTES:,} bytes; not a scenario")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # RecursionError: nested too deep
        raise ScenarioError(f"{path}: not valid JSON ({str(exc)[:80]})") from None
    return parse(data, str(path), now)


def scenario_files(path: Path) -> list[Path]:
    if path.is_dir():
        files = sorted(path.glob("*.json"))
        if not files:
            raise UsageError(f"no scenarios (*.json) in {path}")
        return files
    if not path.exists():
        raise UsageError(f"no scenario file or directory at {path}")
    return [path]


# -- running -----------------------------------------------------------------


def seed_store(store: Store, scenario: Scenario) -> None:
    """Write every seed as a person would, then apply the supersessions."""
    actor = Actor.person()
    pending = list(scenario.supersessions)
    written: set[str] = set()
    for memory in scenario.seeds:
        # A row that replaces one already written goes through `remember
        # --supersedes`, so the new row and its link commit together.
        first = next((p for p in pending if p[1] == memory.id and p[0] in written), None)
        if first is not None:
            correct.remember_superseding(store, memory, first[0], actor)
            pending.remove(first)
        else:
            pipeline.store_memory(store, memory, actor)
        written.add(memory.id)
    if pending:
        now = record.now_iso()
        with store.write() as db:
            for old, new in pending:
                old_row = rows.get(db, old)
                correct.supersede_in(db, old_row, new, "quality scenario", actor, now)


def run_scenario(
    scenario: Scenario, *, view: View | None = None, recaller: Recaller | None = None
) -> ScenarioReport:
    """Seed a temporary store, recall once, compare. `view`/`recaller` exist to
    prove the harness catches a broken filter or ranking."""
    search = recaller or recall
    with tempfile.TemporaryDirectory(prefix="tree-ring-quality-") as tmp:
        root = Path(tmp)
        (root / project.DIR).mkdir()
        with Store.open(root, create=True) as store:
            seed_store(store, scenario)
            hits = search(store, scenario.identity, scenario.query, limit=scenario.limit, view=view)
            # Candidates are written after the recall, which sees the seeds
            # alone, as the original's did.
            decisions = tuple(writes.decide(store, c, scenario.writer) for c in scenario.candidates)
            missing_refs = writes.evidence_missing(store.db, scenario.evidence_refs)
    memories = [h.memory for h in hits]
    behavior = (
        None
        if scenario.behavior is None
        else writes.behavior_report(scenario.behavior, {m.id for m in memories})
    )
    missed = [e.label for e in scenario.expected if not any(e.matches(m) for m in memories)]
    leaked = [f.label for f in scenario.forbidden if any(f.matches(m) for m in memories)]
    return ScenarioReport(
        path=scenario.path,
        name=scenario.name,
        category=scenario.category,
        recalled=tuple(m.id for m in memories),
        expected=tuple(e.label for e in scenario.expected),
        missed=tuple(missed),
        forbidden=tuple(f.label for f in scenario.forbidden),
        forbidden_recalled=tuple(leaked),
        decisions=decisions,
        behavior=behavior,
        evidence_missing=missing_refs,
        thresholds=scenario.thresholds,
    )


def run(paths: Sequence[Path] | Path, *, view: View | None = None) -> QualityReport:
    """Run every scenario; a broken one is reported as a failure, not raised."""
    files: list[tuple[Path, bool]] = []
    for path in [paths] if isinstance(paths, Path) else paths:
        listed = path.is_dir()  # each file a folder holds, not one named on its own
        files += [(file, listed) for file in scenario_files(path)]
    reports: list[ScenarioReport] = []
    for file, listed in files:
        try:
            reports.append(run_scenario(load(file, listed=listed), view=view))
        except TreeRingError as exc:
            reports.append(ScenarioReport(str(file), file.stem, "?", error=str(exc)))
    return QualityReport(tuple(reports))


def summary_line(report: Mapping[str, Any]) -> str:
    def pct(rate: Any) -> str:
        return "n/a" if rate is None else f"{100 * float(rate):.1f}%"

    return (
        f"{report['scenario_count']} scenarios, {len(report['failed'])} failed; "
        f"expected recall {report['expected_found']}/{report['expected_total']} "
        f"({pct(report['expected_recall_rate'])}); "
        f"forbidden recall {report['forbidden_hits']}/{report['forbidden_total']} "
        f"({pct(report['forbidden_recall_rate'])})"
        + (
            f"; write decisions met {report['write_decisions_met']}"
            f"/{report['write_decisions_total']}"
            if report.get("write_decisions_total")
            else ""
        )
        + (
            f"; behaviour (recall observed, decisions declared) "
            f"{report['behavior_passed']}/{report['behavior_total']}"
            if report.get("behavior_total")
            else ""
        )
    )
