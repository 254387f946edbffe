"""The runs and heads the rules declare, checked in the inner loop too.

A rule declares the token run every match holds so the prefilter can skip
texts without one; a run declared longer than its pattern guarantees skips
texts the rule would match, and the secret goes unseen. The slow prefilter
tests check each rule one by one beside generated text; this is the same
check of the declarations alone, in a tenth of a second.
"""

from __future__ import annotations

from tree_ring.guard import RULES, reader


def test_no_rule_declares_a_run_its_pattern_does_not_guarantee() -> None:
    over = [
        (rule.name, rule.run, reader.min_run(rule.source))
        for rule in RULES
        if not 0 <= rule.run <= reader.min_run(rule.source)
    ]
    assert over == []


def test_every_declared_head_starts_what_the_pattern_can_start_with() -> None:
    wrong = [
        rule.name
        for rule in RULES
        if rule.heads
        and not all(
            any(head.startswith(declared) for declared in rule.heads)
            for head in reader.heads(rule.source)
        )
    ]
    assert wrong == []
