"""The sensitivity guard against its corpora.

The corpora live in tests/fixtures/guard/: secrets.txt (rule<TAB>text, every
line must be refused by that rule), clean.txt (ordinary engineering text, none
may be refused or labelled) and sensitive.txt (category<TAB>text, each stored
with that sensitivity). Run with -s to see precision and recall.
"""

from __future__ import annotations

import re

import pytest
from helpers import FIXTURES

from tree_ring.guard import (
    RULES,
    SEVERITY_ORDER,
    check_fields,
    classify,
    engine,
    find_secret,
    table,
)
from tree_ring.model.errors import SecretRefused, UsageError

CORPUS = FIXTURES / "guard"


def _tagged(name: str) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    for number, line in enumerate((CORPUS / name).read_text("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        tag, sep, text = line.partition("\t")
        assert sep, f"{name}:{number} has no tab between tag and text"
        rows.append((tag, text))
    return rows


SECRETS = _tagged("secrets.txt")
SENSITIVE = _tagged("sensitive.txt")
CLEAN = [line for line in (CORPUS / "clean.txt").read_text("utf-8").splitlines() if line.strip()]

# A family is one name: some families are several patterns (see `Rule`).
SECRET_RULE_NAMES = sorted({rule.name for rule in RULES if rule.category == table.SECRET})


def _short(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "..."


# ---------------------------------------------------------------- the corpora


def test_corpora_are_big_enough_and_cover_every_rule() -> None:
    assert len(SECRETS) >= 300
    assert len(CLEAN) >= 500
    for rule in SECRET_RULE_NAMES:
        count = sum(1 for tag, _ in SECRETS if tag == rule)
        assert count >= 3, f"{rule} has only {count} corpus lines"
    assert {tag for tag, _ in SECRETS} <= set(SECRET_RULE_NAMES)
    for category in SEVERITY_ORDER:
        assert sum(1 for tag, _ in SENSITIVE if tag == category) >= 5, category
    assert {tag for tag, _ in SENSITIVE} <= set(SEVERITY_ORDER)


def family_table(
    secrets: list[tuple[str, str]], clean: list[str]
) -> dict[str, tuple[int, int, int, int]]:
    """Per family: (corpus lines, lines refused by any rule, lines refused by
    the family itself, refusals by the family of text that is not its own).
    The last counts clean lines and other families' lines the family names."""
    table = {name: [0, 0, 0, 0] for name in SECRET_RULE_NAMES}
    for family, text in secrets:
        found = find_secret(text)
        row = table[family]
        row[0] += 1
        row[1] += found is not None
        row[2] += found == family
        if found is not None and found != family:
            table[found][3] += 1
    for text in clean:
        found = find_secret(text)
        if found is not None:
            table[found][3] += 1
    return {name: (row[0], row[1], row[2], row[3]) for name, row in table.items()}


def _rate(part: int, whole: int) -> str:
    return f"{part / whole:6.1%}" if whole else "     -"


def test_secret_detection_precision_and_recall_per_family() -> None:
    table = family_table(SECRETS, CLEAN)
    lines = [f"{'family':24} {'lines':>5} {'recall':>7} {'named':>7} {'precision':>9}"]
    for name, (total, found, named, wrong) in table.items():
        lines.append(
            f"{name:24} {total:5d} {_rate(found, total):>7} {_rate(named, total):>7} "
            f"{_rate(named, named + wrong):>9}"
        )
    total = len(SECRETS)
    found = sum(row[1] for row in table.values())
    named = sum(row[2] for row in table.values())
    false_alarms = [text for text in CLEAN if find_secret(text) is not None]
    lines.append(
        f"{'all':24} {total:5d} {_rate(found, total):>7} {_rate(named, total):>7} "
        f"{_rate(found, found + len(false_alarms)):>9}"
    )
    lines.append(f"clean lines: {len(CLEAN)}, refused: {len(false_alarms)}")
    print("\nguard secret detection, per family:\n" + "\n".join(lines))
    # Recall 100% for every family, every line named by its family, and no
    # clean line refused: the family table must be all 100%.
    assert {name: row[0] == row[1] == row[2] for name, row in table.items()} == {
        name: True for name in table
    }
    assert all(row[3] == 0 for row in table.values())
    assert false_alarms == []


def test_the_family_table_counts_what_it_says() -> None:
    # The table above must be able to fail: a secret the guard misses, a
    # clean line it refuses and a line named by another family all show.
    github = next(text for tag, text in SECRETS if tag == "github-token")
    table = family_table(
        [("github-token", github), ("github-token", "nothing secret here"), ("jwt", github)],
        ["clean prose", github],
    )
    assert table["github-token"] == (2, 1, 1, 2)
    assert table["jwt"] == (1, 1, 0, 0)


@pytest.mark.parametrize(("rule", "text"), SECRETS, ids=[_short(t) for _, t in SECRETS])
def test_every_secret_is_found_by_its_rule(rule: str, text: str) -> None:
    assert find_secret(text) == rule


@pytest.mark.parametrize("text", CLEAN, ids=[_short(t) for t in CLEAN])
def test_clean_text_is_normal(text: str) -> None:
    assert find_secret(text) is None
    assert classify(text) == "normal"
    assert check_fields({"summary": text}) == "normal"


@pytest.mark.parametrize(("category", "text"), SENSITIVE, ids=[_short(t) for _, t in SENSITIVE])
def test_sensitive_text_gets_its_category(category: str, text: str) -> None:
    assert find_secret(text) is None
    assert classify(text) == category
    assert check_fields({"details": text}) == category


# ------------------------------------------------------------- check_fields


def _pieces(text: str) -> list[str]:
    return [piece for piece in re.split(r"[\s=:\"'`,;(){}<>]+", text) if len(piece) >= 8]


@pytest.mark.parametrize(("rule", "text"), SECRETS, ids=[_short(t) for _, t in SECRETS])
def test_refusal_names_rule_and_field_but_never_the_value(rule: str, text: str) -> None:
    with pytest.raises(SecretRefused) as caught:
        check_fields({"summary": "Deploy notes", "source_quote": text})
    error = caught.value
    message = str(error)
    assert isinstance(error, UsageError)
    assert error.rule == rule
    assert error.field == "source_quote"
    assert rule in message
    assert "source_quote" in message
    assert text not in message
    # No long piece of the line may appear, except words of the rule's own name
    # ("password" in "password-assignment").
    leaked = [piece for piece in _pieces(text) if piece in message and piece not in rule]
    assert leaked == []


def test_first_secret_in_mapping_order_is_reported() -> None:
    github = next(text for rule, text in SECRETS if rule == "github-token")
    pem = next(text for rule, text in SECRETS if rule == "pem-private-key")
    fields = {"summary": "Rotate credentials", "details": github, "tags": pem}
    with pytest.raises(SecretRefused) as caught:
        check_fields(fields)
    assert (caught.value.field, caught.value.rule) == ("details", "github-token")
    with pytest.raises(SecretRefused) as caught:
        check_fields({"tags": pem, "details": github})
    assert (caught.value.field, caught.value.rule) == ("tags", "pem-private-key")


def test_a_secret_wins_over_any_sensitivity() -> None:
    fields = {"summary": "SSN 536-22-4187", "details": "DB_PASSWORD=xxCyI3ZvNwX4V810"}
    with pytest.raises(SecretRefused):
        check_fields(fields)


@pytest.mark.parametrize(
    "fields",
    [
        {"summary": "Do not share this ", "details": "with anyone outside the team"},
        {"summary": "Card on file: 4539 1488 ", "details": "0343 6467"},
        {"summary": "Her salary is ", "details": "$185,000"},
    ],
    ids=["private", "card", "salary"],
)
def test_no_sensitivity_spans_two_fields(fields: dict[str, str]) -> None:
    # Read as one text the fields would be labelled; as fields they are not.
    joined = "".join(fields.values())
    assert classify(joined) != "normal"
    assert check_fields(fields) == "normal"


@pytest.mark.parametrize(
    ("fields", "rule", "names"),
    [
        (
            {"summary": "DB_PASSWORD = ", "details": "xxCyI3ZvNwX4V810"},
            "password-assignment",
            "summary+details",
        ),
        (
            {"summary": "postgres://admin", "details": ":S3cr3tP4ss@db.internal:5432/app"},
            "url-password",
            "summary+details",
        ),
        (
            {"summary": "Rotated to ghp_Zk3q9XvB7mWp2LdR", "details": "8sTn4YcH6jFa1Ue5GoQi today"},
            "github-token",
            "summary+details",
        ),
        (
            # Halves in either order, in any two claim fields.
            {
                "summary": "8sTn4YcH6jFa1Ue5GoQi is the rest",
                "source_quote": "ghp_Zk3q9XvB7mWp2LdR",
            },
            "github-token",
            "source_quote+summary",
        ),
        (
            # Two tags, in either order: the tags field is read with a space
            # between its tags, and glued.
            {
                "summary": "Rotated on Tuesday",
                "tags": "ghp_Zk3q9XvB7mWp2LdR 8sTn4YcH6jFa1Ue5GoQi",
            },
            "github-token",
            "tags",
        ),
        (
            {
                "summary": "Rotated on Tuesday",
                "tags": "8sTn4YcH6jFa1Ue5GoQi ops ghp_Zk3q9XvB7mWp2LdR",
            },
            "github-token",
            "tags",
        ),
        (
            {"tags": "sk_live_ 4eC39HqLyj WDarjtT1zdp7dc"},
            "stripe-key",
            "tags",
        ),
    ],
    ids=[
        "password",
        "url",
        "token-halves",
        "reversed-halves",
        "tag-halves",
        "reversed-tag-halves",
        "tag-thirds",
    ],
)
def test_a_secret_split_across_two_fields_is_refused(
    fields: dict[str, str], rule: str, names: str
) -> None:
    for value in fields.values():
        assert find_secret(value) is None
    with pytest.raises(SecretRefused) as caught:
        check_fields(fields)
    assert (caught.value.rule, caught.value.field) == (rule, names)


@pytest.mark.parametrize(
    "text",
    [
        'Staging DB password: set in config.json as {"password": "Xq7vLm29Pz!a"}',
        'password: see below. "db_password": "Xq7vLm29Pz!b"',
        'passphrase: x {"passphrase": "Zz9vLm29Pz!i"}',
        'password: x "password"="Zz9vLm29Pz!l"',
        'Token: ask ops. token = "Zq8vN3mR7tY2xK9wB4cL6pF1"',
        'password: see config <property name="password" value="Xk9vTq2mLp"/>',
        'password: see config <entry key="password">Xk9vTq2mLp</entry>',
        'password: see config <add key="DbPassword" value="Xk9vTq2mLp" />',
        'secret: ask ops <property name="client_secret" value="Xk9vTq2mLpZ7abc"/>',
    ],
)
def test_a_value_refused_as_prose_hides_no_key_inside_it(text: str) -> None:
    """The first key's value runs to the line's end and reads as prose; the
    key and value inside it are a secret, read on their own."""
    label, _, rest = text.partition(":")
    assert find_secret(label + ":" + rest.split('"', 1)[0]) is None
    assert find_secret(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        # In named character references.
        "{&quot;password&quot;: &quot;Xq7vLm29Pz!a&quot;}",
        "&lt;password&gt;Xq7vLm29Pz!a&lt;/password&gt;",
        "{&QUOT;password&QUOT;: &QUOT;Xq7vLm29Pz!a&QUOT;}",
        "db_password=&apos;Xq7vLm29Pz!a&apos;",
        # In a list or a nested object.
        '{"password":["Xk9vTq2mLp"]}',
        '{"token": ["Xk9vTq2mLpZ7abc"]}',
        '{"secret":{"value":"Xk9vTq2mLpZ7abc"}}',
        "password: see config {'password': {'value': 'Xk9vTq2mLp'}}",
    ],
)
def test_a_secret_written_in_references_or_nested_values_is_refused(text: str) -> None:
    assert find_secret(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        'token = {"type": "bearer"}',
        "password: [redacted]",
        'passwords: ["first", "second"] are examples',
    ],
)
def test_a_list_or_an_object_of_ordinary_values_is_clean(text: str) -> None:
    assert find_secret(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "The password: rotate it monthly; the password policy lives in docs",
        "password: see the wiki. password: ask in #ops",
        'token: none yet; "token" is set by CI',
    ],
)
def test_prose_after_a_key_with_a_key_in_it_stays_clean(text: str) -> None:
    assert find_secret(text) is None


@pytest.mark.parametrize(
    "fields",
    [
        {"summary": "password=None", "event_type": "note"},
        {
            "summary": "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "details": "from the AWS docs",
        },
        {"summary": "Rotate the DB password", "details": "done via vault on Tuesday"},
        {"summary": "postgres://postgres", "details": ":postgres@localhost:5432/test"},
        {"summary": "ghp_ marks a GitHub token", "details": "we scan for them in CI"},
    ],
    ids=["field-outside-the-claim", "glued-example", "prose", "local-default", "prefix-alone"],
)
def test_ordinary_fields_read_across_their_seams_stay_clean(fields: dict[str, str]) -> None:
    assert check_fields(fields) == "normal"


def test_most_severe_sensitivity_over_fields() -> None:
    by_category = {category: text for category, text in reversed(SENSITIVE)}
    assert check_fields({}) == "normal"
    assert check_fields({"summary": CLEAN[0], "details": CLEAN[1]}) == "normal"
    # Every pair of categories resolves to the one earlier in SEVERITY_ORDER,
    # whichever field it is in and in whichever order the fields come.
    for rank, higher in enumerate(SEVERITY_ORDER):
        for lower in SEVERITY_ORDER[rank + 1 :]:
            pair = {"summary": by_category[lower], "details": by_category[higher]}
            assert check_fields(pair) == higher
            assert check_fields(dict(reversed(pair.items()))) == higher
            assert classify(by_category[lower] + "\n" + by_category[higher]) == higher


# -------------------------------------------------------- the spec's examples


@pytest.mark.parametrize(
    "code",
    [
        'password = os.environ["DB_PASSWORD"]',
        "token = get_token()",
        "secret=None",
        'password=""',
        "token: str",
        "api_key=settings.API_KEY",
        "password=<your password>",
        "token=${TOKEN}",
        "password=changeme",
        "token=xxxxxxxx",
    ],
)
def test_assignments_in_ordinary_code_are_not_secrets(code: str) -> None:
    assert find_secret(code) is None


@pytest.mark.parametrize(
    "text",
    [
        "the test has a health check endpoint",
        "financial year constant",
        "legal entity id column",
        "private method",
        "check the balance of the tree",
    ],
)
def test_engineering_words_stay_normal(text: str) -> None:
    assert classify(text) == "normal"


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("DB_PASSWORD=xxCyI3ZvNwX4V810", "password-assignment"),
        ('"password": "xxCyI3ZvNwX4V810"', "password-assignment"),
        ("password: 'xxCyI3ZvNwX4V810'", "password-assignment"),
        ("export APP_SECRET=xxCyI3ZvNwX4V810", "secret-assignment"),
        ("CLIENT_SECRET: xxCyI3ZvNwX4V810", "secret-assignment"),
        ("accessToken = `xxCyI3ZvNwX4V810`", "token-assignment"),
        ("APIKEY=xxCyI3ZvNwX4V810", "api-key-assignment"),
        ("access_key => 'xxCyI3ZvNwX4V810'", "api-key-assignment"),
        ('password: str = "xxCyI3ZvNwX4V810"', "password-assignment"),
    ],
)
def test_assignment_shapes_with_a_literal_are_secrets(text: str, rule: str) -> None:
    assert find_secret(text) == rule


# ----------------------------------------- documented examples and placeholders


@pytest.mark.parametrize(
    "text",
    [
        "AKIAIOSFODNN7EXAMPLE",
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
        "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "aws_secret_access_key = je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
        "the secret access key is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        'stripe.api_key = "sk_test_4eC39HqLyjWDarjtT1zdp7dc"',
        "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "SLACK_BOT_TOKEN=xoxb-not-a-real-token-this-will-not-work",
        "token: <your-token>",
        "api_key = 'your-api-key-here'",
        "password: changeme",
        "password=${DB_PASSWORD}",
        "secret: '****'",
        "OPENAI_API_KEY=sk-...",
        "API_KEY=EXAMPLE_KEY_1234567890",
        "postgres://user:password@localhost:5432/app",
    ],
)
def test_documented_examples_and_placeholders_are_allowed(text: str) -> None:
    assert find_secret(text) is None


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        # The word "example" elsewhere in the text opens no hole.
        ("For example, AKIAQYLPMN5HHHFPZAM2 is the key the export job uses", "aws-access-key"),
        ("example: AKIAQYLPMN5HHHFPZAM2", "aws-access-key"),
        ("AKIAIOSFODNN7EXAMPLE is the docs key, AKIAQYLPMN5HHHFPZAM2 is ours", "aws-access-key"),
        # EXAMPLE inside a key, not at its documented place, is no example.
        ("AKIAEXAMPLEQYLPMN5HH", "aws-access-key"),
        ("aws_secret_access_key = c2LufYNuydk9sgEWl2agEXAMPLEKEYcBfS83Ce9x", "aws-secret-key"),
        ("sk_live_EXAMPLEa8Kx2Pq9Lm4Zt7Rw3vB", "stripe-key"),
        ("example.com config: password = Xk9mQ2vL8pR4wT", "password-assignment"),
    ],
)
def test_examples_elsewhere_do_not_open_a_hole(text: str, rule: str) -> None:
    assert find_secret(text) == rule


@pytest.mark.parametrize(
    "text",
    [
        "the password is stored in vault",
        "the password policy is strict",
        "the password hashing algorithm is argon2id",
        "Password must be at least 12 characters",
        "The token is valid for one hour",
        "the key takeaway is that retries need jitter",
        "The API key is passed in the X-Api-Key header",
        "the secret for prod is in Vault at secret/data/prod/api",
        "the token endpoint returns 400 when the refresh token was revoked",
        "kubectl create secret generic db-creds --from-env-file=.env.prod",
        "The primary key is (tenant_id, order_id)",
        "GPG key 4AEE18F83AFDEB23 signs the release tags",
        "The cache key is user:42:profile",
    ],
)
def test_credentials_discussed_without_a_value_are_not_secrets(text: str) -> None:
    assert find_secret(text) is None


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("the staging admin password is I9Tt9en2U6l5vM4j", "password-in-prose"),
        ("password for staging: I9Tt9en2U6l5vM4j", "password-in-prose"),
        ("the password for the billing db on staging is I9Tt9en2U6l5vM4j", "password-in-prose"),
        ("the token is G1KxW4QhIu0FMT70KEqTbbH2hY2gbisr", "token-in-prose"),
        ("use key iIveaPZmEtpfLo3E2nUUTems to log in", "key-in-prose"),
        ("the secret for prod is FyjBUGSLgBuAPWegME1HeIa2", "secret-in-prose"),
        ("pw=I9Tt9en2U6l5vM4j", "password-assignment"),
        ("passphrase I9Tt9en2U6l5vM4j", "password-in-prose"),
        ("key: 7d1f3b9e2c8a4f6d0e5b1a9c3f7d2e8b", "key-in-prose"),
        ("mysql -pI9Tt9en2U6l5vM4j", "cli-password"),
        ("--password I9Tt9en2U6l5vM4j", "cli-password"),
        ("--password=I9Tt9en2U6l5vM4j", "password-assignment"),
        ("sshpass -p I9Tt9en2U6l5vM4j ssh deploy@host", "cli-password"),
        ("PGPASSWORD=I9Tt9en2U6l5vM4j psql", "password-assignment"),
        ("curl -u deploy:I9Tt9en2U6l5vM4j https://ci.acme.io", "cli-password"),
        ("htpasswd -b .htpasswd admin I9Tt9en2U6l5vM4j", "cli-password"),
        ("Server=db;Database=app;User Id=sa;Password=I9Tt9en2U6l5vM4j;", "password-assignment"),
        ("Server=db;Uid=sa;Pwd=I9Tt9en2U6l5vM4j;", "password-assignment"),
        ("jdbc:postgresql://db/app?user=app&password=I9Tt9en2U6l5vM4j", "password-assignment"),
        ("redis://:I9Tt9en2U6l5vM4j@cache:6379/0", "url-password"),
        ('"client_secret": "I9Tt9en2U6l5vM4jQ8v2Lm7X"', "secret-assignment"),
        ("export AWS_SECRET_ACCESS_KEY=c2LufYNuydk9sgEWl2agE4aE/Yhc3a/LcBfS83Ce", "aws-secret-key"),
    ],
)
def test_the_briefs_shapes_are_refused(text: str, rule: str) -> None:
    assert find_secret(text) == rule


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Ask jane.doe@acme-corp.io before merging", "personal_identifier"),
        ("Mail support@acme-corp.io for access", "normal"),
        ("Use test-user@example.com in the fixture", "normal"),
        ("git@github.com:acme/api.git", "normal"),
        ("https://admin:password@pypi.internal/simple", "normal"),
        # One rejected candidate must not hide another with the same domain.
        ("support@acme-corp.io, or jane.doe@acme-corp.io directly", "personal_identifier"),
        ("Card 4539148803436467 on file", "financial"),
        ("Random seed 4539148803436467", "normal"),
        ("seed 4539148803436467, then card 4539148803436467", "financial"),
        ("Stripe test card 4111 1111 1111 1111", "normal"),
        ("Values 0.4539148803436467 and 2320,2321,2322,2323", "normal"),
        ("SSN 123-45-6789 is the textbook example", "normal"),
        ("SSN 536-22-4187", "personal_identifier"),
        ("SSN 666-22-4187 was never issued", "normal"),
    ],
)
def test_identifier_and_number_edges(text: str, expected: str) -> None:
    assert classify(text) == expected


# ------------------------------------------------------------------ the table


def test_rule_table_is_well_formed() -> None:
    # A family's patterns sit together, so the first that matches names it.
    names = [rule.name for rule in RULES]
    families = [name for i, name in enumerate(names) if not i or names[i - 1] != name]
    assert len(families) == len(set(families))
    assert len({(rule.view, rule.source) for rule in RULES}) == len(RULES)
    for rule in RULES:
        assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", rule.name), rule.name
        assert rule.category in (table.SECRET, *SEVERITY_ORDER)
        assert rule.view in engine.VIEWS
        assert isinstance(rule.pattern, re.Pattern)
    with pytest.raises(AttributeError):
        RULES[0].name = "changed"  # type: ignore[misc]


def test_shared_keyword_scanner_agrees_with_each_rule() -> None:
    # The scanner tries only the first matching term at each word start; if
    # two rules' terms ever matched the same words, one rule would go unseen.
    # Each rule's own pattern is the reference.
    word_rules = [rule for rule in RULES if rule.view == "words"]
    scanner, owner = engine._keyword_scanner()
    for text in [text for _, text in SENSITIVE] + CLEAN + [text for _, text in SECRETS]:
        scanned = engine._Text(text)
        alone = {rule.category for rule in word_rules if engine._first_valid(rule, scanned)}
        together: set[str] = set()
        for match in scanner.finditer(scanned.view("words")):
            group = match.lastgroup
            assert group is not None
            rule = owner[group]
            window = scanned.window(match.start(), match.end(group), rule.context)
            if rule.validator is None or rule.validator(window.decode("utf-8", "replace")):
                together.add(rule.category)
        assert together == alone, text


def test_shannon_entropy() -> None:
    assert table.shannon_entropy("") == 0.0
    assert table.shannon_entropy("aaaaaaaa") == 0.0
    assert table.shannon_entropy("abcd") == pytest.approx(2.0)
    assert table.shannon_entropy("changeme") == pytest.approx(2.75)


def test_non_ascii_text_keeps_spans_aligned() -> None:
    # Multi-byte characters before a match must not shift what validators see.
    prefix = "Café ☕ naïve 日本語 😀 "
    assert find_secret(prefix + "DB_PASSWORD=xxCyI3ZvNwX4V810") == "password-assignment"
    assert classify(prefix + "Card on file: 4539 1488 0343 6467") == "financial"
    assert classify(prefix + "İstanbul office, she lives at 42 Elm Street") == "private"
    assert find_secret("lone surrogate \udcff then nothing") is None
    assert classify("lone surrogate \udcff then nothing") == "normal"


# ------------------------------------------------------- long and adversarial


@pytest.mark.parametrize(
    "text",
    [
        "a" * 1_000_000,
        "password=" * 100_000,
        "token: " * 150_000,
        "eyJ" * 300_000,
        "sk-" * 300_000,
        "://a:" * 200_000,
        "a@b." * 250_000,
        "1111 " * 200_000,
        " a" * 500_000,
        "salary 1 " * 100_000,
        "-----BEGIN " * 100_000,
        "0" * 1_000_000,
        # The newer rules' literals and look-behinds, repeated.
        "-" * 1_000_000,
        "_" * 1_000_000,
        "." * 1_000_000,
        "x" * 1_000_000,
        "A" * 1_000_000,
        "ghp_" * 250_000,
        "glpat-" * 170_000,
        ":A" * 500_000,
        ".xxxxxx." * 125_000,
        "key: " * 200_000,
        "password is " * 90_000,
        "curl -u " * 125_000,
        "mysql -u root " * 70_000,
        "the token for the " * 55_000,
        "Basic " * 160_000,
        "sig=" * 250_000,
        "://" * 330_000,
    ],
    ids=lambda text: f"{text[:12]!r}x{len(text)}",
)
def test_adversarial_inputs_complete(text: str) -> None:
    assert find_secret(text) is None
    assert classify(text) == "normal"


def test_ten_megabytes_of_ordinary_text() -> None:
    block = "\n".join(CLEAN) + "\n"
    text = block * (10_000_000 // len(block) + 1)
    assert len(text) >= 10_000_000
    assert check_fields({"details": text}) == "normal"
    assert find_secret(text + SECRETS[0][1]) == SECRETS[0][0]
    assert classify(text + SENSITIVE[0][1]) == SENSITIVE[0][0]
