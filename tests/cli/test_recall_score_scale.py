"""README: a score ranks one recall and is no measure across recalls. When no
memory holds the question's words, the nearest in meaning takes meaning's
whole weight (1.5), and `match` says it was found near in meaning: above
what an exact one-word match scores in another recall."""

from __future__ import annotations

from helpers import CliRunner

NOTE = "Cache keys include the tenant id, not the name"


def test_a_meaning_only_hit_takes_meanings_whole_weight_and_says_so(run_cli: CliRunner) -> None:
    assert run_cli("remember", NOTE).code == 0
    [near] = run_cli("--json", "recall", "vendor").json()["items"]
    [exact] = run_cli("--json", "recall", "tenant").json()["items"]
    assert near["summary"] == exact["summary"] == NOTE
    assert near["match"] == "near in meaning" and near["score_parts"]["meaning"] == 1.5
    assert exact["match"] != "near in meaning"
    assert near["score"] > exact["score"]
