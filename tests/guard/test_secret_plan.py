"""The secret rules' plan, held as a literal so that clearing a text builds no rule.

The SessionStart brief checks every row it shows with `find_secret`; the
literal must be exactly the plan of today's secret rules, or a rule added
since it was written would never run on the brief's rows.
"""

from __future__ import annotations

import subprocess
import sys

from helpers import REPO

from tree_ring.guard import engine, prefilter, secret_plan
from tree_ring.guard.table import SECRET_RULES

REBUILD = "stale: run python3 scripts/build_secret_plan.py"


def test_the_literal_is_the_plan_of_todays_secret_rules() -> None:
    assert len(SECRET_RULES) == secret_plan.RULES, REBUILD
    assert prefilter.literal(prefilter.plan(SECRET_RULES)) == secret_plan.VIEWS, REBUILD


def test_a_rule_more_or_less_changes_the_literal() -> None:
    # The comparison above can fail: the plan of one rule fewer, or of a rule
    # with another head, is not the literal.
    fewer = SECRET_RULES[:-1]
    assert prefilter.literal(prefilter.plan(fewer)) != secret_plan.VIEWS
    moved = (SECRET_RULES[0].replace(heads=(b"QQQQ",)), *SECRET_RULES[1:])
    assert prefilter.literal(prefilter.plan(moved)) != secret_plan.VIEWS


def test_the_engine_scans_with_the_literal_over_the_real_rules() -> None:
    plan = engine._secret_plan()
    assert prefilter.literal(plan) == secret_plan.VIEWS
    assert list(plan.rules) == list(SECRET_RULES)
    assert plan.rules[3] is SECRET_RULES[3] and len(plan.rules) == len(SECRET_RULES)


PROBE = """\
import sys
sys.path.insert(0, sys.argv[1])
from tree_ring.guard import find_secret
found = find_secret(sys.argv[2])
built = "tree_ring.guard.tokens" in sys.modules or "tree_ring.guard.table" in sys.modules
print(found, built)
"""


def _fresh(text: str) -> str:
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", PROBE, str(REPO), text],
        capture_output=True,
        check=True,
        timeout=60,
    )
    return done.stdout.decode().strip()


def test_a_plain_text_is_cleared_without_building_a_rule() -> None:
    assert _fresh("Deploys freeze on Fridays after the release branch is cut") == "None False"


def test_common_words_that_start_a_token_prefix_build_no_rule() -> None:
    # A prefix that is also a common word start ("pat", "re_", "api-", "SK")
    # is only tested with the long run every match holds; a form that
    # shortened its group's run would make every such text build the rules.
    words = "the pattern for re_match, api-gateway and SKU task_queue via fio-u-"
    assert _fresh(words) == "None False"


def test_a_text_that_opens_a_test_builds_the_rules_and_is_caught() -> None:
    token = "ghp_" + "Zk3q9XvB7mWp2LdR8sTn4YcH6jFa1Ue5GoQi"
    assert _fresh(f"the CI token is {token} for now") == "github-token True"
