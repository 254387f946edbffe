"""Sensitivity rules: personal content that is stored but labelled.

Conservative on purpose: ordinary engineering words ("health check",
"financial year", "legal entity", "private method", "balance", "race
condition") must not hide a memory, so every rule needs a phrase that is
about a person, or a number with a checksum or a label. The health rules
are their own module (`health`).
"""

from __future__ import annotations

from tree_ring.guard.health import HEALTH_RULES
from tree_ring.guard.rule import Rule, each, rule, text_pattern, words_rule


def _digits(value: str) -> str:
    return "".join(c for c in value if "0" <= c <= "9")


# --------------------------------------------------------------------------
# Validators for the sensitivity rules


def _luhn(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        digit = ord(char) - 0x30
        if index % 2 == 1:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0


# Published test numbers (Stripe, Braintree, Adyen docs) appear in ordinary
# engineering notes and belong to no one.
_TEST_CARDS = frozenset(
    {
        "4242424242424242",
        "4111111111111111",
        "4000056655665556",
        "4012888888881881",
        "4222222222222",
        "5555555555554444",
        "5200828282828210",
        "5105105105105100",
        "378282246310005",
        "371449635398431",
        "6011111111111117",
        "6011000990139424",
        "3056930009020004",
        "3566002020360505",
    }
)


def _card_brand_length_ok(digits: str) -> bool:
    size = len(digits)
    if digits[0] == "4":
        return size in (13, 16, 19)
    if digits[:2] in ("34", "37"):
        return size == 15
    first_two = int(digits[:2])
    first_four = int(digits[:4])
    if 51 <= first_two <= 55 or 2221 <= first_four <= 2720:
        return size == 16
    if digits.startswith("6011") or digits[:2] == "65" or 644 <= int(digits[:3]) <= 649:
        return 16 <= size <= 19
    if 3528 <= first_four <= 3589:
        return 16 <= size <= 19
    return False


_CARD_TEXT = (
    r"(?<![\w.,-])(?:(?P<run>[0-9]{13,19})|[0-9]{4}(?P<s>[ -])[0-9]{4}(?P=s)[0-9]{4}(?P=s)[0-9]{4}"
    r"(?:(?P=s)[0-9]{3})?|[0-9]{4}(?P<a>[ -])[0-9]{6}(?P=a)[0-9]{5})(?![\w-]|[.,][0-9])"
)
_CARD_WORDS = (
    r"(?i)\b(?:cards?|credit|debit|visa|mastercard|amex|discover|cc|pan|cardholder|payment)\b"
)
_CARD_CONTEXT = 40


def _card_number(window: str) -> bool:
    """A card number in `window`: brand prefix, brand length and Luhn checksum.

    Grouped numbers (4-4-4-4) are written for people and count on their own.
    A bare run of digits only counts next to a card word: random 16-digit ids
    and seeds pass the checksum one time in ten.
    """
    for match in text_pattern(_CARD_TEXT).finditer(window):
        digits = _digits(match.group())
        if digits in _TEST_CARDS or not _card_brand_length_ok(digits) or not _luhn(digits):
            continue
        if match.group("run") is None or text_pattern(_CARD_WORDS).search(window):
            return True
    return False


_IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22,
    "BH": 22, "BR": 29, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18,
    "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22,
    "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22,
    "IL": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LI": 21,
    "LT": 20, "LU": 20, "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MR": 27,
    "MT": 31, "MU": 30, "NL": 18, "NO": 15, "PK": 24, "PL": 28, "PS": 29, "PT": 25,
    "QA": 29, "RO": 24, "RS": 22, "SA": 24, "SE": 24, "SI": 19, "SK": 24, "SM": 27,
    "TN": 24, "TR": 26, "UA": 29, "VG": 24, "XK": 20,
}  # fmt: skip


def _iban(span: str) -> bool:
    compact = "".join(c for c in span if c.isalnum()).upper()
    if _IBAN_LENGTHS.get(compact[:2]) != len(compact):
        return False
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(c, 36)) for c in rearranged)) % 97 == 1


# Numbers printed in advertising and textbooks; the SSA never issued them.
_EXAMPLE_SSNS = frozenset({"123456789", "078051120", "219099999"})


def _ssn(span: str) -> bool:
    digits = _digits(span)[-9:]
    if len(digits) != 9 or digits in _EXAMPLE_SSNS:
        return False
    area, group, serial = digits[:3], digits[3:5], digits[5:]
    return (
        area not in ("000", "666")
        and not area.startswith("9")
        and group != "00"
        and serial != "0000"
    )


def _capital_nda(span: str) -> bool:
    return "NDA" in span


def _after_label(span: str) -> str:
    """The value part of "label: value" (the label is letters, the value is not)."""
    match = text_pattern(r"[+(0-9]").search(span)
    return span[match.start() :].strip() if match else ""


_PHONE_SHAPES = (
    r"(?:\+|00)[1-9][0-9 ().-]{5,20}"  # international
    r"|\(?0[0-9][0-9 ().-]{5,16}"  # national trunk prefix
    r"|\(?[2-9][0-9]{2}\)?[ .-]?[0-9]{3}[ .-]?[0-9]{4}"  # North American 3-3-4
)


def _phone(span: str) -> bool:
    value = _after_label(span)
    shapes = text_pattern(_PHONE_SHAPES)
    return 7 <= len(_digits(value)) <= 15 and shapes.fullmatch(value) is not None


def _passport(span: str) -> bool:
    number = span.split()[-1] if span.split() else ""
    return len(_digits(number)) >= 5


# HMRC never issues these letters first or second, nor these prefixes; its own
# examples ("QQ 12 34 56 C") use them so they can belong to no one.
_NINO_NOT_FIRST = frozenset("DFIQUV")
_NINO_NOT_SECOND = frozenset("DFIOQUV")
_NINO_NOT_PREFIX = frozenset({"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"})
_NINO_TEXT = r"(?<![A-Za-z0-9])([A-Za-z]{2})[ -]?[0-9]{2}[ -]?[0-9]{2}[ -]?[0-9]{2}[ -]?[A-Da-d]$"


def _national_insurance(span: str) -> bool:
    """A UK National Insurance number whose prefix HMRC could have issued."""
    match = text_pattern(_NINO_TEXT).search(span.rstrip())
    if match is None:
        return False
    prefix = match.group(1).upper()
    return (
        prefix[0] not in _NINO_NOT_FIRST
        and prefix[1] not in _NINO_NOT_SECOND
        and prefix not in _NINO_NOT_PREFIX
    )


# The label, then a number word and a verb, then the value (the rest of the span).
_LICENCE_LABEL = r"(?i:licen[cs]e|\bdl)(?:\W+(?i:number|no|num|nr|id)\b)?(?:\W+(?i:is|was|are)\b)?"
# "DL" alone also abbreviates "download"; as a licence it is written "DL#",
# "DL:" or "DL number".
_DL_WRITTEN = r"\bDL(?:\s*[#:]|\s+(?i:number|no|num|nr)\b)"


def _driver_licence(span: str) -> bool:
    """A licence number: 6 to 20 letters and digits, at least five of them digits."""
    label = text_pattern(_LICENCE_LABEL).search(span)
    if label is None:
        return False
    if label.group()[:1] in "dD" and text_pattern(_DL_WRITTEN).search(span) is None:
        return False
    value = "".join(c for c in span[label.end() :] if c.isalnum())
    return 6 <= len(value) <= 20 and len(_digits(value)) >= 5


def _bank_account(span: str) -> bool:
    return 6 <= len(_digits(_after_label(span))) <= 20


_PAY_WORD = (
    r"(?i)\b(?:salar(?:y|ies)|base\s+pay|annual\s+pay|take[\s-]+home\s+pay|pay\s+(?:rise|raise|cut)"
    r"|compensation|bonus|wages?|earns|income)\b"
)
# An amount that says it is money: a currency sign, a currency word, or "95k".
_MONEY = (
    r"(?:[$€£¥]\s?[0-9][0-9,.]*(?:\s?[kKmM]\b)?"
    r"|[0-9][0-9,.]*(?:\s?[kK]\b|\s?(?:USD|EUR|GBP|CHF|CAD|AUD|dollars|euros|pounds)\b))"
)
_MONEY_AFTER = r"[^0-9$€£¥\n]{0,40}" + _MONEY
_MONEY_BEFORE = _MONEY + r"[^0-9\n]{0,30}$"


def _salary(window: str) -> bool:
    """A pay word with an amount of money a few words after or before it."""
    after, before = text_pattern(_MONEY_AFTER), text_pattern(_MONEY_BEFORE)
    for word in text_pattern(_PAY_WORD).finditer(window):
        if after.match(window, word.end()) or before.search(window, 0, word.start()):
            return True
    return False


# Domains that name no person: RFC 2606 / RFC 6761 reserve the example ones for
# documentation and tests, OpenSSH names algorithms like
# "chacha20-poly1305@openssh.com", and Google Cloud names service accounts.
_IMPERSONAL_DOMAINS = (
    "example.com", "example.net", "example.org", "openssh.com", "libssh.org",
    "gserviceaccount.com",
)  # fmt: skip
_RESERVED_TLDS = (".example", ".test", ".invalid", ".localhost", ".local")
# Mailboxes of roles and system accounts rather than people; git@ is the user in
# every SSH remote.
_ROLE_MAILBOXES = frozenset(
    {
        "git", "root", "admin", "administrator", "noreply", "no-reply", "donotreply",
        "do-not-reply", "postmaster", "hostmaster", "webmaster", "mailer-daemon",
        "support", "security", "abuse", "deploy", "ubuntu", "ec2-user", "nobody",
        "ci", "build", "builder", "bot", "jenkins", "release", "automation", "alerts",
        "ops", "devops", "sre", "oncall", "info", "hello", "team", "help", "contact",
        "billing", "sales", "dev", "qa",
    }
)  # fmt: skip
_EMAIL_CONTEXT = 80
# The local part may not follow ":" or "/": "https://user:pass@host" is a URL.
_EMAIL_TEXT = (
    r"(?<![\w.%+/:-])([A-Za-z0-9._%+-]{1,64})@((?:[A-Za-z0-9-]{1,63}\.){1,8}[A-Za-z]{2,24})"
    r"(?![\w-]|\.\w)"
)


def _email_address(window: str) -> bool:
    for match in text_pattern(_EMAIL_TEXT).finditer(window):
        local, domain = match.group(1).lower(), match.group(2).lower()
        if local in _ROLE_MAILBOXES or "noreply" in domain or "no-reply" in domain:
            continue
        if domain.endswith(_RESERVED_TLDS):
            continue
        if any(domain == d or domain.endswith("." + d) for d in _IMPERSONAL_DOMAINS):
            continue
        return True
    return False


# "ssn is", "phone number was": the verb between a label and its value.
_IS = rb"(?: +(?:is|was|are))?"
_DIGIT_TAIL = _IS + rb" +[0-9][0-9 ]{4,40}[0-9]"
# An amount in the words view: "$185,000" reads " 185 000", "€95k" reads " 95k".
_AMOUNT = rb"[0-9]{1,3}(?: [0-9]{3}){1,3}|[0-9]{4,9}|[0-9]{1,4}(?: [0-9]{1,2})? ?[km]"
_SALARY_WORDS: tuple[bytes, ...] = (
    rb"salary",
    rb"salaries",
    rb"base +pay",
    rb"annual +pay",
    rb"take +home +pay",
    rb"pay +(?:rise|raise|cut)",
    rb"compensation",
    rb"bonus",
    rb"wages?",
    rb"earns",
    rb"income",
)


_EMAIL_DOMAIN = rb"(?:[a-z0-9][a-z0-9-]{0,62}+\.){1,8}[a-z]{2,24}(?![a-z0-9-]|\.[a-z0-9])"


def _after_amount(word: bytes) -> bytes:
    """`word` right after an amount ("185k base salary", "$120,000 salary").

    The amount is checked by fixed-width look-behinds placed after the word, so
    the term still starts with the word's letter, as the keyword scanner needs.
    """
    behinds = [
        rb"(?<=" + amount + between + word + rb")"
        for amount in (rb"[0-9]k ", rb"[0-9]{3} ")
        for between in (b"", b"base ", b"annual ")
    ]
    return word + rb"(?:" + b"|".join(behinds) + rb")"


SENSITIVITY_RULES: tuple[Rule, ...] = (
    # ---- personal_identifier
    # US Social Security numbers in the dashed form, with the SSA's never-issued
    # ranges (area 000, 666, 9xx; group 00; serial 0000) excluded.
    rule(
        "us-ssn",
        "personal_identifier",
        "shape",
        rb" 000-00-0000(?![0Aa-])",
        _ssn,
    ),
    # An email address names a person (or their account) on its own. The
    # scan anchors on "@" followed by a domain; the validator reads the
    # surrounding text for the local part, which a fixed-width look-behind
    # cannot, and drops role mailboxes, reserved domains and URL credentials.
    Rule(
        "email-address",
        "personal_identifier",
        "lower",
        rb"@(?<=[a-z0-9_%+-]@)" + _EMAIL_DOMAIN,
        _email_address,
        context=_EMAIL_CONTEXT,
    ),
    # SSNs written without dashes only count after their label: nine bare digits
    # are as likely an order number.
    words_rule(
        "us-ssn-labeled",
        "personal_identifier",
        each(
            (rb"ssn", rb"social +security(?: +(?:number|no|num))?"),
            _IS + rb" +[0-9]{3} *[0-9]{2} *[0-9]{4}",
        ),
        _ssn,
    ),
    # A passport number only counts next to the word, and must be mostly digits
    # ("passport 0.7.0", the Node library, stays ordinary).
    words_rule(
        "passport-number",
        "personal_identifier",
        [rb"passport(?: +(?:number|no|num|nr|id))?" + _IS + rb" +(?=[a-z]{0,4}[0-9])[a-z0-9]{6,9}"],
        _passport,
    ),
    # A UK National Insurance number only counts after its label: two letters,
    # six digits and a letter A-D also spell part numbers and codes.
    words_rule(
        "uk-national-insurance",
        "personal_identifier",
        each(
            (
                rb"national +insurance(?: +(?:number|no|num|nr))?",
                rb"ni +(?:number|no|num|nr)",
                rb"nino",
            ),
            _IS + rb" +[a-z]{2} *[0-9]{2} *[0-9]{2} *[0-9]{2} *[a-d]",
        ),
        _national_insurance,
    ),
    # A driving licence number after its label, mostly digits ("driver version
    # 1234567" and "the license is MIT" name no licence of a person's).
    words_rule(
        "driver-licence",
        "personal_identifier",
        each(
            (rb"drivers?(?: s)? +licen[cs]e", rb"driving +licen[cs]e", rb"dl"),
            rb"(?: +(?:number|no|num|nr|id))?"
            + _IS
            + rb" +(?=[a-z]{0,6}[0-9])[a-z0-9]{1,20}(?: +[0-9]{1,12}){0,4}",
        ),
        _driver_licence,
    ),
    # A labelled phone number in a shape phones are written in.
    words_rule(
        "phone-number",
        "personal_identifier",
        each(
            (rb"phone", rb"telephone", rb"tel", rb"mobile", rb"cell +phone"),
            rb"(?: +(?:number|no|num|nr))?" + _IS + rb" +[0-9][0-9 ]{5,24}[0-9]",
        ),
        _phone,
    ),
    # A birth date plus a name is enough to open accounts in someone's name; a
    # date only counts after its label.
    words_rule(
        "date-of-birth",
        "personal_identifier",
        each(
            (rb"date +of +birth", rb"dob", rb"born +on"),
            rb" +(?:[0-9]{1,4} +[0-9]{1,2} +[0-9]{2,4}|[0-9]{1,2}(?: +of)? +[a-z]{3,9} +[0-9]{4}"
            rb"|[a-z]{3,9} +[0-9]{1,2}(?: +[a-z]{2})? +[0-9]{4})",
        ),
    ),
    # ---- health (`health`)
    *HEALTH_RULES,
    # ---- financial
    # Card numbers in the plain and grouped (4-4-4-4, Amex 4-6-5) forms; the
    # validator checks brand, length and Luhn in the original text. The
    # boundary only rejects more digits so a trailing CVV does not hide it.
    Rule(
        "credit-card",
        "financial",
        "shape",
        rb" 0000(?:0{9,15}+|(?P<s>[ -])0000(?P=s)0000(?P=s)0000(?:(?P=s)000)?"
        rb"|(?P<a>[ -])000000(?P=a)00000)(?![0Aa]|[.,]0)",
        _card_number,
        context=_CARD_CONTEXT,
    ),
    # IBANs, compact or in groups of four, with length-per-country and mod-97.
    rule(
        "iban",
        "financial",
        "shape",
        rb" AA00(?>(?: ?[A0]{4}){2,7})(?: ?[A0]{1,3})?(?![0Aa])",
        _iban,
    ),
    # Account and routing numbers need the label and six or more digits; a bare
    # "account 123456789012" is as likely an AWS account id.
    words_rule(
        "bank-account",
        "financial",
        [
            rb"bank +account(?: +(?:number|no|num|nr))?" + _DIGIT_TAIL,
            *each((rb"account", rb"acct"), rb" +(?:number|no|num|nr)" + _DIGIT_TAIL),
            rb"routing +(?:number|no|num|transit +number)" + _DIGIT_TAIL,
            rb"sort +code +[0-9]{2} *[0-9]{2} *[0-9]{2}",
        ],
        _bank_account,
    ),
    # Pay figures: a pay word with an amount of money a few words away, either
    # side ("salary is $185,000", "offered 120k base salary"). "Compensation
    # transaction" or "bonus points" carry no money and stay ordinary.
    words_rule(
        "salary",
        "financial",
        [
            *each(_SALARY_WORDS, rb"(?: +[a-z]+){0,6}? +(?:" + _AMOUNT + rb")"),
            _after_amount(rb"salary"),
            _after_amount(rb"salaries"),
        ],
        _salary,
        context=64,
    ),
    # Someone's financial situation. "Debt" alone is not here: technical debt.
    words_rule(
        "personal-finance",
        "financial",
        [
            rb"bankrupt[a-z]*",
            rb"credit +score",
            rb"tax +returns?",
            rb"pay ?slips?",
            rb"pay +stubs?",
            rb"paychecks?",
            rb"net +worth",
            rb"overdrawn",
            rb"debt +collectors?",
            rb"credit +card +debt",
            rb"student +loans?",
            rb"in +debt",
            rb"mortgage +(?:payments?|arrears|application)",
        ],
    ),
    # ---- legal
    # Disputes, proceedings and criminal matters involving people. "Legal"
    # alone is not here (legal entity, legal move), nor bare "settlement",
    # which in payments code is a batch job.
    words_rule(
        "legal-proceeding",
        "legal",
        [
            rb"lawsuits?",
            rb"sued",
            rb"suing",
            rb"litigation",
            rb"subpoena[a-z]*",
            rb"court +(?:order|case|date|hearing|ruling|filing)s?",
            rb"restraining +order",
            rb"cease +and +desist",
            rb"indict[a-z]*",
            rb"arrested",
            rb"criminal +(?:record|charges?|case|investigation)",
            rb"police +(?:investigation|report)",
            rb"plaintiffs?",
            rb"defendants?",
            rb"deposition",
            # Not "legal hold": that is also an S3 Object Lock API term.
            rb"legal +(?:dispute|proceedings?|threat)",
            # "Not a legal action" is how parsers say "invalid"; suing is "took"
            # or "threatened" legal action.
            *each(
                (rb"take", rb"took", rb"taking", rb"threatened", rb"threatening", rb"pursue"),
                rb" +legal +action",
            ),
            rb"custody +(?:battle|dispute|hearing)",
            rb"divorce",
            rb"settlement +(?:agreement|offer|talks|negotiations?)",
            rb"non +disclosure +agreements?",
            rb"breach +of +(?:contract|confidentiality)",
            rb"settled +out +of +court",
            rb"out +of +court",
            rb"injunction",
        ],
    ),
    # Advice from or talk with lawyers, which privilege may protect and which
    # should not leak into other agents' prompts.
    words_rule(
        "legal-privilege",
        "legal",
        [
            rb"attorney +client",
            rb"attorneys?",
            rb"lawyers?",
            rb"solicitors?",
            rb"legal +(?:advice|counsel)",
            rb"general +counsel",
            rb"legally +privileged",
        ],
    ),
    # "NDA" only in capitals: `nda` is a common variable name (numpy's a.ndim).
    words_rule("nda", "legal", [rb"ndas?"], _capital_nda),
    # ---- private
    # Explicit requests for discretion. "Do not share the session between
    # threads" is engineering, so sharing has to be with people.
    words_rule(
        "private-statement",
        "private",
        [
            *each(
                (rb"do +not", rb"don +t", rb"dont", rb"never", rb"please +don +t"),
                rb" +(?:share|disclose|forward|repeat|mention|tell)(?: +(?:this|it|that))?"
                rb" +(?:with +(?:anyone|anybody|others|other +people|the +team|the +rest)"
                rb"|outside +(?:the +team|this|the +company|us)|to +anyone|anyone|anybody"
                rb"|externally|publicly)",
            ),
            rb"keep +(?:this|that|it) +(?:confidential|between +us|to +yourself|quiet)",
            rb"between +you +and +me",
            rb"for +your +eyes +only",
            rb"off +the +record",
            rb"not +for +(?:public|distribution|sharing|publication)",
            *each((rb"strictly", rb"highly"), rb" +(?:private|confidential)"),
            rb"private +and +confidential",
            *each(
                (rb"this", rb"it", rb"that", rb"which"),
                rb" +(?:is|s|was) +(?:strictly +|highly +)?confidential",
            ),
            rb"confidential +(?:conversation|discussion|matter)",
            rb"in +(?:strict +)?confidence",
            rb"personal +matter",
        ],
    ),
    # A home address, only when labelled as someone's: an unlabelled street
    # address is as often an office or the FSF's address in a GPL header.
    words_rule(
        "home-address",
        "private",
        each(
            (
                rb"home +address",
                *each((rb"my", rb"his", rb"her", rb"their", rb"our"), rb" +(?:home +)?address"),
                rb"lives +at",
                rb"living +at",
                rb"resides +at",
            ),
            rb"(?: +is)? +[0-9]{1,5}[a-z]? +(?:[a-z0-9]+ +){1,4}?(?:street|st|avenue|ave|road|rd"
            rb"|lane|ln|drive|dr|boulevard|blvd|court|ct|way|place|pl|terrace|close|crescent"
            rb"|parkway|square|sq)",
        ),
    ),
)
