"""The guard's rule table: what counts as a secret or as sensitive, in order.

The secret rules come first and are checked in order, so the first that
matches names the refusal: provider formats (`tokens`) before the rules for
credentials without a format (`credentials`: headers and URLs, assignments,
command lines, prose; `password_words`: the word for password in other
languages; `code_arguments`: passwords code passes by position or as a
Terraform default; `account_secrets`: session cookies, seed phrases,
recovery codes), specific before generic. The sensitivity rules
(`personal`) follow. `engine` scans text with the table.

The sensitivity rules are imported on first use of `SENSITIVITY_RULES` or
`RULES`: a process that only looks for secrets (the SessionStart hook's
brief) never builds them.
"""

from __future__ import annotations

from tree_ring.guard.account_secrets import ACCOUNT_RULES
from tree_ring.guard.code_arguments import CODE_ARGUMENT_RULES
from tree_ring.guard.command_lines import CLI_RULES
from tree_ring.guard.config_values import PGPASS_RULES
from tree_ring.guard.credentials import ASSIGNMENT_RULES, HEADER_RULES
from tree_ring.guard.password_words import OTHER_LANGUAGE_RULES
from tree_ring.guard.prose_credentials import PROSE_RULES
from tree_ring.guard.rule import NORMAL, SECRET, SEVERITY_ORDER, VIEWS, Rule, term_problem
from tree_ring.guard.tokens import TOKEN_RULES
from tree_ring.guard.values import shannon_entropy

# Credentials without a provider's format: in headers and URLs, assigned in
# code and config, on command lines, then written out in a sentence.
CREDENTIAL_RULES: tuple[Rule, ...] = (
    HEADER_RULES + ASSIGNMENT_RULES + PGPASS_RULES + CLI_RULES + PROSE_RULES
)
SECRET_RULES: tuple[Rule, ...] = (
    TOKEN_RULES + CREDENTIAL_RULES + OTHER_LANGUAGE_RULES + CODE_ARGUMENT_RULES + ACCOUNT_RULES
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    SENSITIVITY_RULES: tuple[Rule, ...]
    RULES: tuple[Rule, ...]


def __getattr__(name: str) -> tuple[Rule, ...]:
    """`SENSITIVITY_RULES` and `RULES`, built on first use."""
    if name not in ("SENSITIVITY_RULES", "RULES"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from tree_ring.guard.personal import SENSITIVITY_RULES

    found = {"SENSITIVITY_RULES": SENSITIVITY_RULES, "RULES": SECRET_RULES + SENSITIVITY_RULES}
    globals().update(found)
    return found[name]


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
