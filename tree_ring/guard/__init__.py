"""The sensitivity guard: what counts as a secret or as sensitive (`table`), and the
engine that scans every field with them (`engine`). The package is the engine's API.
"""

from tree_ring.guard.engine import check_fields, classify, find_secret
from tree_ring.guard.rule import SEVERITY_ORDER, VIEWS, Rule

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.guard.messages import withhold

    RULES: tuple[Rule, ...]


def __getattr__(name: str) -> object:
    """`RULES` and `withhold`, on first use: the sensitivity rules are built
    only then, and an error's wording is read only for an error (the brief
    only looks for secrets)."""
    if name == "RULES":
        from tree_ring.guard.table import RULES

        return RULES
    if name == "withhold":
        from tree_ring.guard.messages import withhold

        return withhold
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
