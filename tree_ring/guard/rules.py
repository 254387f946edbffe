"""The guard's rule table: what counts as a secret or as sensitive, in order.

The secret rules come first and are checked in order, so the first that
matches names the refusal: provider formats (`tokens`) before the rules for
credentials without a format (`credentials`: headers and URLs, assignments,
command lines, prose), specific before generic. The sensitivity rules
(`personal`) follow. `engine` scans text with the table.
"""

from __future__ import annotations

from tree_ring.guard.credentials import CREDENTIAL_RULES
from tree_ring.guard.personal import SENSITIVITY_RULES
from tree_ring.guard.rule import NORMAL, SECRET, SEVERITY_ORDER, VIEWS, Rule, term_problem
from tree_ring.guard.tokens import TOKEN_RULES
from tree_ring.guard.values import shannon_entropy

SECRET_RULES: tuple[Rule, ...] = TOKEN_RULES + CREDENTIAL_RULES
RULES: tuple[Rule, ...] = SECRET_RULES + SENSITIVITY_RULES

__all__ = [
    "NORMAL",
    "RULES",
    "SECRET",
    "SECRET_RULES",
    "SENSITIVITY_RULES",
    "SEVERITY_ORDER",
    "VIEWS",
    "Rule",
    "shannon_entropy",
    "term_problem",
]
