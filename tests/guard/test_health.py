"""The health rules (`guard/health.py`): what someone has, is diagnosed with,
or is treated for is labelled health; the same words said of code are not.
"""

from __future__ import annotations

from governance_support import CLAUDE
from helpers import CliRunner

from tree_ring.guard import classify

HEALTH = {
    "Zed was diagnosed with hepatitis",
    "Ned was diagnosed with lupus",
    "Hal has tuberculosis",
    "Jon is bipolar",
    "Pam had a stroke",
    "Patient Zed has hepatitis per run 47",
    "patient Zed was admitted on Monday",
    "I'm bipolar and need quiet hours",
    "Kim\u2019s bipolar, so no late calls",
    "he's being treated for burnout",
    "Ana has been diagnosed with a rare condition",
    "I\u2019ve been diagnosed with celiac disease",
    "Amy has been hospitalized since Friday",
    "Bob is on medication for his heart",
    "Lee is recovering from a mild stroke",
    "Mo had a heart attack last year",
    "Rae has multiple sclerosis",
    "Sam has pneumonia and is out this week",
    "Ty had a seizure in the office",
    "Vi has Crohn's disease",
    "Wu is in treatment for anorexia",
}
ORDINARY = {
    "the build had a stroke of luck",
    "Our team had a stroke of genius with the cache",
    "draw the stroke width in the SVG renderer",
    "use patient retries for the flaky endpoint",
    "be patient with the rate limiter",
    "diagnosed the flaky test",
    "we diagnosed with strace that the socket leaks",
    "the leak was diagnosed with strace",
    "the service is bipolar about its config",
    "it is bipolar about its config",
    "bipolar transistor model in the simulator",
    "the health check endpoint answers 200",
    "the heartbeat failure alert fires after 3 misses",
}


def test_health_phrases_are_labelled_and_the_same_words_in_code_are_not() -> None:
    texts = HEALTH | ORDINARY
    assert {text for text in texts if classify(text) == "health"} == HEALTH
    assert {text for text in texts if classify(text) == "normal"} == ORDINARY


def test_remember_and_evidence_store_health_phrases_as_health(run_cli: CliRunner) -> None:
    stored = {}
    for text in ("Zed was diagnosed with hepatitis", "Jon is bipolar", "Pam had a stroke"):
        done = run_cli("--json", "remember", text)
        assert done.code == 0, done.err
        stored[text] = done.json()["sensitivity"]
    done = run_cli(
        "--json",
        "evidence",
        "Patient Zed has hepatitis per run 47",
        "--outcome",
        "observed",
        "--evidence-ref",
        "evals/run-47",
        environ=CLAUDE,
    )
    assert done.code == 0, done.err
    stored["evidence"] = done.json()["sensitivity"]
    assert stored == dict.fromkeys(
        ("Zed was diagnosed with hepatitis", "Jon is bipolar", "Pam had a stroke", "evidence"),
        "health",
    )
    assert "hepatitis" not in run_cli("brief").out
