"""A memory found only through related words says so, in its line and in
`--json`, also when nothing holds the question's words and it ranks by score
with the rest."""

from __future__ import annotations

from conftest import CliRunner


def test_a_hit_found_through_related_words_alone_is_labelled(run_cli: CliRunner) -> None:
    assert run_cli("remember", "We use PostgreSQL 15 for orders and payments").code == 0
    assert run_cli("remember", "Deploys freeze on Fridays").code == 0
    items = run_cli("--json", "recall", "stripe").json()["items"]
    assert [(i["summary"], i["literal"]) for i in items] == [
        ("We use PostgreSQL 15 for orders and payments", False)
    ]
    assert run_cli("recall", "stripe").out.rstrip().endswith("; related words)")
    held = run_cli("--json", "recall", "payments").json()["items"]
    assert [i["literal"] for i in held] == [True]
    assert not run_cli("recall", "payments").out.rstrip().endswith("; related words)")
