"""The sensitivity guard: what counts as a secret or as sensitive (`rules`), and the
engine that scans every field with them (`engine`). The package is the engine's API.
"""

from tree_ring.guard.engine import check_fields, classify, find_secret, withhold
from tree_ring.guard.rules import RULES, SEVERITY_ORDER, VIEWS, Rule

__all__ = [
    "RULES",
    "SEVERITY_ORDER",
    "VIEWS",
    "Rule",
    "check_fields",
    "classify",
    "find_secret",
    "withhold",
]
