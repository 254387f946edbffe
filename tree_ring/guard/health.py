"""Sensitivity rules for health: what someone has, takes, or is treated for.

Conservative as the other sensitivity rules (`personal`) are: "health check",
"a stroke of luck", "patient retries" and "the leak was diagnosed with strace"
are engineering, so a word that also means something in code counts only in a
phrase about a person, or said of one (a pronoun or a capitalised name).
"""

from __future__ import annotations

from tree_ring.guard.rule import Rule, each, text_pattern, words_rule

# How far before a phrase its validator looks for who it is said of.
_SUBJECT_CONTEXT = 48
# Who a health phrase is said of: the word before its verb.
_SUBJECT = (
    r"(?:^|[^\w'\u2019])(?P<who>[A-Za-z][\w-]*)"
    r"(?:['\u2019](?:m|re|s)\s+(?:been\s+|being\s+)?"
    r"|(?:['\u2019]ve)?\s+(?:(?:has|have|had)\s+been|is|was|are|were|been|being|got|gets)\s+)"
    r"(?i:bipolar|diagnosed\s+with|being\s+treated\s+for)\b"
)
_PRONOUNS = frozenset({"i", "he", "she", "they", "we", "you"})
# Capitalised words that start a sentence about a thing, not a person.
_NOT_SOMEONE = frozenset(
    {"it", "this", "that", "these", "those", "which", "what", "there", "here", "everything"}
)


def _said_of_someone(window: str) -> bool:
    """Whether a health phrase in `window` is said of a person: a pronoun, or a
    capitalised word that is no pronoun of a thing, just before it."""
    for match in text_pattern(_SUBJECT).finditer(window):
        who = match.group("who")
        if who.lower() in _PRONOUNS or (who[:1].isupper() and who.lower() not in _NOT_SOMEONE):
            return True
    return False


def _patient_name(window: str) -> bool:
    """Whether `window` has "patient" or "patients" before a capitalised name ("Patient Zed")."""
    return text_pattern(r"(?i:\bpatients?)\s+[A-Z][a-z]*\b").search(window) is not None


HEALTH_RULES: tuple[Rule, ...] = (
    # Named conditions and phrases about someone's health. "Health" alone is
    # not here: health checks, cluster health and the tree's health are
    # engineering.
    words_rule(
        "health-condition",
        "health",
        [
            rb"mental +health",
            rb"medical +(?:condition|conditions|leave|history|records?|appointments?|emergency"
            rb"|procedure|diagnosis|treatment)",
            rb"sick +(?:leave|day|days|note)",
            rb"off +sick",
            rb"chronic +(?:illness|pain|condition|fatigue)",
            rb"anxiety +(?:disorder|attacks?)",
            rb"panic +attacks?",
            rb"bipolar +disorder",
            rb"eating +disorder",
            rb"depression",
            rb"adhd",
            rb"autism",
            rb"autistic",
            rb"dyslexi[a-z]*",
            rb"schizophrenia",
            rb"ptsd",
            rb"dementia",
            rb"alzheimer(?: s)?",
            rb"epilep[a-z]*",
            rb"diabet[a-z]*",
            rb"cancer",
            rb"tumou?rs?",
            rb"leuka?emia",
            rb"hiv",
            rb"asthma",
            rb"migraines?",
            rb"insomnia",
            rb"concussion",
            rb"pregnan[a-z]*",
            rb"miscarriage",
            # Illnesses whose names mean nothing else in an engineering note.
            rb"hepatitis",
            rb"tuberculosis",
            rb"lupus",
            rb"pneumonia",
            rb"bronchitis",
            rb"meningitis",
            rb"cirrhosis",
            rb"sclerosis",
            rb"parkinson(?: s)? +disease",
            rb"parkinsons",
            rb"crohn(?: s)? +disease",
            rb"coeliac +disease",
            rb"celiac +disease",
            rb"arthritis",
            rb"osteoporosis",
            rb"fibromyalgia",
            rb"endometriosis",
            rb"anorexi[a-z]*",
            rb"bulimi[a-z]*",
            rb"psychosis",
            rb"psychotic +(?:episode|break)s?",
            rb"hypertension",
            rb"heart +(?:attack|disease|failure|condition|surgery)s?",
            rb"cardiac +arrest",
            rb"seizures?",
            rb"asthmatic",
            rb"malaria",
            rb"chlamydia",
            rb"herpes",
            rb"syphilis",
            rb"gonorrh?o?ea",
            rb"long +covid",
            # "A stroke of luck" and "a stroke width" are not an illness.
            *each(
                (rb"had", rb"has +had", rb"suffered", rb"recovering +from"),
                rb" +(?:a +)?(?:(?:minor|major|mild|massive|severe) +)?stroke(?! +(?:of|width))",
            ),
        ],
    ),
    # Said of someone: "Jon is bipolar", "Ned was diagnosed with lupus". The
    # same words say things of code ("the service is bipolar about its
    # config", "the leak was diagnosed with strace"), so the validator wants
    # a person before them: a pronoun, or a name written with a capital.
    words_rule(
        "health-said-of-someone",
        "health",
        # Each term starts with its own word, not the verb: a term starting
        # "is" would be compiled for nearly every text (`engine._scanner_for`).
        [rb"bipolar", rb"diagnosed +with", rb"being +treated +for"],
        _said_of_someone,
        context=_SUBJECT_CONTEXT,
    ),
    # "Patient Zed", "patient J. Doe": the word as a person's title, before a
    # capitalised name; "patient retries" and "be patient" stay ordinary.
    words_rule("health-patient", "health", [rb"patients? +[a-z]+"], _patient_name, context=24),
    # "Diagnosed with" alone also describes debugging ("diagnosed with strace"),
    # so it needs an illness word after it.
    words_rule(
        "health-diagnosis",
        "health",
        [
            *each((rb"clinical", rb"psychiatric", rb"formal"), rb" +diagnosis"),
            rb"diagnosed +with +(?:[a-z]+ +){0,3}?(?:disease|disorder|syndrome|illness|infection)",
        ],
    ),
    # What someone takes says what they have. "Prescribed" alone is not here:
    # "the prescribed order of migrations" is ordinary prose.
    words_rule(
        "health-medication",
        "health",
        [
            rb"medications?",
            rb"medicated",
            rb"antidepressants?",
            rb"antibiotics",
            rb"painkillers?",
            rb"insulin",
            rb"prescription +(?:drugs?|meds|medication|medicine)",
            rb"prescribed +(?:medication|antibiotics|antidepressants|painkillers"
            rb"|[a-z]+ +[0-9]+ *mg)",
            *(
                rb"sertraline fluoxetine citalopram escitalopram adderall ritalin xanax prozac"
                rb" zoloft lexapro methadone methylphenidate"
            ).split(),
        ],
    ),
    # Treatment and care; "therapy" in a memory is about a person, not code.
    words_rule(
        "health-treatment",
        "health",
        [
            rb"therapy",
            rb"therapy +sessions?",
            rb"therapists?",
            rb"psychotherap[a-z]*",
            rb"physiotherap[a-z]*",
            rb"chemotherap[a-z]*",
            rb"chemo",
            rb"radiotherap[a-z]*",
            rb"psychiatrists?",
            rb"psychologists?",
            rb"counsell?ing +sessions?",
            rb"rehab",
            rb"surgery",
            rb"surgeon",
            rb"hospitali[sz](?:ed|ation)",
            rb"in +(?:the +)?hospital",
            *each((rb"doctor", rb"gp", rb"dentist"), rb"(?: s)? +appointments?"),
        ],
    ),
)
