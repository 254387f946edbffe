"""What the original's quality scenarios ask beyond recall: write candidates,
the decision expected of each, evidence refs, and a behaviour expectation.

The original decides a candidate with a fixed rule inside its quality runner
(a `transient` tag is rejected, an evaluation without a ref needs evidence,
heartwood without a ref needs a person). Here nothing is decided by the
runner: each candidate is written into the scenario's store through Tree
Ring's own write path, by the scenario's writer (an agent, unless the
scenario says `"writer": "person"`: the original's candidates are what an
agent proposes to store), and what the path did is read back as one of the
original's four decisions:

- `accept`: admitted, believed at once;
- `require_user_confirmation`: written but waiting for a person (`pending`
  or `disputed`: the review queue is a person's confirmation);
- `require_evidence`: an evaluation's outcome (event type `evaluation*`)
  without the run it comes from, refused by the `evidence` verb's rule;
- `reject`: refused by the write path (the guard, validation, a forgotten
  content, a taken id).

So a candidate Tree Ring queues where the fixture expects `reject` fails, and
the report says what Tree Ring did and the fixture's reason.

`evidence_refs` are the refs the scenario's evidence must keep: each must be
the source ref of a row the store holds once the candidates are written.

A `behavior_expectation` names a memory that must be recalled and three
decisions (before memory, with memory, expected). Tree Ring runs no agent, so
only the recall is observed; the decisions are the fixture's own words,
checked for what they claim (the memory changes the decision, to the expected
one) and reported as declared, never as an agent's behaviour.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from tree_ring.model.actor import Actor
from tree_ring.model.errors import TreeRingError, UsageError
from tree_ring.model.identity import Origin
from tree_ring.model.record import Memory
from tree_ring.store import maintenance
from tree_ring.store.db import Store
from tree_ring.store.sql import Db
from tree_ring.write import pipeline
from tree_ring.write.verbs import require_evidence_ref

WRITE_DECISIONS = ("accept", "reject", "require_evidence", "require_user_confirmation")
WRITERS = ("agent", "person")
BEHAVIOR_KEYS = (
    "required_memory_id",
    "baseline_decision",
    "memory_informed_decision",
    "expected_decision",
)
# What an agent's write is labelled with in the scenario's store.
AGENT = Actor("quality-agent", Origin("agent"))


@dataclass(frozen=True)
class Candidate:
    memory: Memory
    expected: str  # one of WRITE_DECISIONS
    reason: str = ""


@dataclass(frozen=True)
class Behavior:
    required_memory_id: str
    baseline_decision: str
    memory_informed_decision: str
    expected_decision: str
    reason: str = ""


@dataclass(frozen=True)
class DecisionReport:
    memory_id: str
    expected: str
    actual: str
    outcome: str  # what the write path did, in its words
    reason: str  # the fixture's reason for the expected decision

    @property
    def passed(self) -> bool:
        return self.actual == self.expected

    def to_dict(self) -> dict[str, Any]:
        return {
            "memory_id": self.memory_id,
            "expected": self.expected,
            "actual": self.actual,
            "passed": self.passed,
            "outcome": self.outcome,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class BehaviorReport:
    behavior: Behavior
    required_memory_recalled: bool  # observed
    decision_changed: bool  # declared by the fixture
    expected_decision_reached: bool  # declared by the fixture

    @property
    def passed(self) -> bool:
        return (
            self.required_memory_recalled
            and self.decision_changed
            and self.expected_decision_reached
        )

    def to_dict(self) -> dict[str, Any]:
        b = self.behavior
        return {
            "required_memory_id": b.required_memory_id,
            "required_memory_recalled": self.required_memory_recalled,
            "observed": "recall only; the decisions are the fixture's, no agent was run",
            "baseline_decision": b.baseline_decision,
            "memory_informed_decision": b.memory_informed_decision,
            "expected_decision": b.expected_decision,
            "decision_changed": self.decision_changed,
            "expected_decision_reached": self.expected_decision_reached,
            "passed": self.passed,
            "reason": b.reason,
        }


def _fields(raw: Any, at: str, problem: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise UsageError(f"{at}: {problem}")
    return {str(k): v for k, v in cast(dict[Any, Any], raw).items()}


def _text(entry: Mapping[str, Any], key: str, at: str, *, required: bool = True) -> str:
    value = entry.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or not value.strip():
        raise UsageError(f"{at}.{key}: must be a non-blank string")
    return value


def candidates(
    raw: Any, raw_decisions: Any, where: str, seed: Callable[[Any, str], Memory]
) -> tuple[Candidate, ...]:
    """`write_candidates` (rows, read by `seed` as seed rows are) paired with
    `expected_write_decisions`: one decision per candidate, each naming one."""
    rows: Any = [] if raw is None else raw
    decisions: Any = [] if raw_decisions is None else raw_decisions
    if not isinstance(rows, list) or not isinstance(decisions, list):
        raise UsageError(f"{where}: write_candidates and expected_write_decisions are lists")
    memories: dict[str, Memory] = {}
    for index, row in enumerate(cast(list[Any], rows)):
        at = f"{where}: write_candidates[{index}]"
        memory = seed(row, at)
        if memory.id in memories:
            raise UsageError(f"{at}.id: {memory.id!r} is used twice")
        memories[memory.id] = memory
    expected: dict[str, tuple[str, str]] = {}
    for index, item in enumerate(cast(list[Any], decisions)):
        at = f"{where}: expected_write_decisions[{index}]"
        entry = _fields(item, at, "must be an object with memory_id and decision")
        unknown = sorted(set(entry) - {"memory_id", "decision", "reason"})
        if unknown:
            raise UsageError(f"{at}.{unknown[0]}: unknown key; use memory_id, decision, reason")
        memory_id = _text(entry, "memory_id", at)
        decision = entry.get("decision")
        if decision not in WRITE_DECISIONS:
            raise UsageError(f"{at}.decision: use one of {', '.join(WRITE_DECISIONS)}")
        if memory_id not in memories:
            raise UsageError(f"{at}.memory_id: {memory_id!r} is not a write candidate's id")
        if memory_id in expected:
            raise UsageError(f"{at}.memory_id: {memory_id!r} has a decision already")
        expected[memory_id] = (str(decision), str(entry.get("reason") or ""))
    undecided = [memory_id for memory_id in memories if memory_id not in expected]
    if undecided:
        raise UsageError(
            f"{where}: expected_write_decisions: write candidate {undecided[0]!r} has no decision"
        )
    return tuple(Candidate(m, *expected[m.id]) for m in memories.values())


def evidence_refs(raw: Any, where: str) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(
        isinstance(ref, str) and ref.strip() for ref in cast(list[Any], raw)
    ):
        raise UsageError(f"{where}: evidence_refs: must be a list of non-blank refs")
    return tuple(cast(list[str], raw))


def behavior(raw: Any, where: str, seed_ids: set[str]) -> Behavior | None:
    if raw is None:
        return None
    at = f"{where}: behavior_expectation"
    entry = _fields(raw, at, "must be an object")
    unknown = sorted(set(entry) - {*BEHAVIOR_KEYS, "reason"})
    if unknown:
        raise UsageError(f"{at}.{unknown[0]}: unknown key; use {', '.join(BEHAVIOR_KEYS)}, reason")
    values = [_text(entry, key, at) for key in BEHAVIOR_KEYS]
    if values[0] not in seed_ids:
        raise UsageError(f"{at}.required_memory_id: {values[0]!r} is not a seed memory's id")
    reason = entry.get("reason")
    if reason is not None and not (isinstance(reason, str) and reason.strip()):
        raise UsageError(f"{at}.reason: when given, a non-blank string")
    return Behavior(*values, reason=reason or "")


def writer(raw: Any, where: str) -> Actor:
    if raw is None or raw == "agent":
        return AGENT
    if raw == "person":
        return Actor.person()
    raise UsageError(f"{where}: writer: use one of {', '.join(WRITERS)}")


def decide(store: Store, candidate: Candidate, actor: Actor) -> DecisionReport:
    """Write one candidate as `actor` would, and name what the write path did."""
    memory = candidate.memory.replace(origin=actor.origin.kind)
    try:
        if memory.event_type.startswith("evaluation"):
            try:
                require_evidence_ref(memory.source_ref)
            except UsageError as exc:
                return _report(candidate, "require_evidence", f"refused: {exc}")
        result = pipeline.store_memory(store, memory, actor)
    except TreeRingError as exc:
        said = str(exc)
        return _report(
            candidate, "reject", said if said.startswith("refused") else f"refused: {said}"
        )
    if result.trust in ("pending", "disputed"):
        why = f": {result.review_reason}" if result.review_reason else ""
        return _report(candidate, "require_user_confirmation", f"{result.trust}{why}")
    return _report(candidate, "accept", f"admitted ({result.trust})")


def _report(candidate: Candidate, actual: str, outcome: str) -> DecisionReport:
    return DecisionReport(
        candidate.memory.id, candidate.expected, actual, outcome, candidate.reason
    )


def evidence_missing(db: Db, refs: tuple[str, ...]) -> tuple[str, ...]:
    """The refs no stored row keeps as its source ref."""
    return tuple(ref for ref in refs if not maintenance.keeps_source_ref(db, ref))


def behavior_report(expected: Behavior, recalled: set[str]) -> BehaviorReport:
    return BehaviorReport(
        expected,
        required_memory_recalled=expected.required_memory_id in recalled,
        decision_changed=expected.baseline_decision != expected.memory_informed_decision,
        expected_decision_reached=expected.memory_informed_decision == expected.expected_decision,
    )
