"""Secret rules for credential formats a provider can be told apart by.

Most providers give their tokens a fixed prefix so leaked ones can be found
(``ghp_``, ``xoxb-``, ``AKIA``); those rules are built by `tokens`
(`token_family.py`), which declares the prefixes as the pattern's heads. A
few formats have no prefix but a fixed structure around a rarer literal
(``.atlasv1.``, ``:APA91b``, the two dots of a Discord bot token); their
patterns start at that literal and check what precedes it with fixed-width
look-behinds. Formats too generic to match alone (a bare 40-character AWS
secret, a 32-digit hex key) need the key name beside them and live here only
when the key name is the provider's own.

Every validator also lets through vendors' documented example keys
(`values.documented_example`) and placeholders, whatever the rule.
"""

from __future__ import annotations

from tree_ring.guard.key_bodies import KEY_BODY_RULES
from tree_ring.guard.rule import SECRET, Rule, rule, table, text_pattern
from tree_ring.guard.token_family import tokens
from tree_ring.guard.values import (
    placeholder_text,
    random_opaque,
    random_token,
    sequential,
    shannon_entropy,
    stand_in,
)


def _end(chars: bytes) -> bytes:
    """The token ends here: no more of its characters follow."""
    return rb"(?![" + chars + rb"])"


_B62 = rb"A-Za-z0-9"
_B64URL = rb"A-Za-z0-9_-"


def _hex_token(span: str) -> bool:
    """A hex body: 32 random hex digits score about 3.8 bits; fillers far less."""
    body = text_pattern(r"[0-9a-fA-F]{16,}").findall(span)
    return bool(body) and shannon_entropy(max(body, key=len)) >= 3.0 and random_token(span)


# --------------------------------------------------------------------------
# Validators that need more than the matched span


_PRIVATE_KEY_HEADER = r"-{4,5} ?BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)? ?-{4,5}"
# What documentation writes instead of a key body.
_ELIDED_BODY = (
    r"(?:\\n|\s)*(?:\.\.\.|…|<|\[|\{|x{3}|X{3}|\*{3}|redacted|REDACTED|snip|your|YOUR|paste"
    # The END marker next, after a separator: "BEGIN ... / END ..." names the markers.
    r"|-{5}END|(?:/|,|\||&|and|or|to)\s*-{5}END)"
)


def _private_key(window: str) -> bool:
    """A private key header, unless the body after it is elided ("...", "<key>")."""
    for match in text_pattern(_PRIVATE_KEY_HEADER).finditer(window):
        if not text_pattern(_ELIDED_BODY).match(window, match.end()):
            return True
    return False


_DISCORD_TOKEN = (
    r"(?<![A-Za-z0-9_-])[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}"
    r"(?![A-Za-z0-9_-])"
)


def _discord_token(window: str) -> bool:
    return any(random_token(m.group()) for m in text_pattern(_DISCORD_TOKEN).finditer(window))


def _mailchimp_key(window: str) -> bool:
    found = text_pattern(r"(?<![0-9A-Za-z])[0-9a-f]{32}-us[0-9]{1,2}(?![0-9A-Za-z])")
    return any(_hex_token(m.group()) for m in found.finditer(window))


def _new_relic_license(window: str) -> bool:
    found = text_pattern(r"(?<![0-9A-Za-z])[0-9a-f]{36}NRAL(?![0-9A-Za-z])")
    return any(_hex_token(m.group()) for m in found.finditer(window))


def _sas_signature(window: str) -> bool:
    """An Azure shared access signature: a `sig=` beside the `sv=` version field
    every SAS carries, so other URL signatures are left to their own rules."""
    lowered = window.lower()
    if "sv=" not in lowered:
        return False
    found = text_pattern(r"[?&;]sig=([A-Za-z0-9%+/]{30,200})")
    return any(random_opaque(m.group(1).replace("%2B", "+")) for m in found.finditer(window))


def _jwt_signature(signature: str) -> bool:
    return not stand_in(signature, quoted=True)


def _zapier_hook(span: str) -> bool:
    """A catch hook's account and hook ids: short, so judged as not a filler
    ("0000000/xxxxxx", "1234567/abcdef") rather than by their entropy."""
    account, _, hook = span.partition("/")
    if placeholder_text(hook) or stand_in(hook, quoted=True):
        return False
    return (
        len(set(account)) >= 3
        and len(set(hook)) >= 4
        and not sequential(account)
        and not sequential(hook)
    )


def _aws_key_id(span: str) -> bool:
    return random_token(span) and len(set(span[4:])) >= 6


def _aws_secret(span: str) -> bool:
    has = (any(c.isupper() for c in span), any(c.islower() for c in span))
    return all(has) and any(c.isdigit() for c in span) and random_opaque(span)


def _sk_body(span: str) -> bool:
    # "sk-" also starts slugs like "sk-refactor-storage-layer"; real keys have a
    # long random body, mixed case (OpenAI) or hex (OpenAI-compatible vendors).
    return random_opaque(span[3:])


# --------------------------------------------------------------------------
# The rules, checked in this order: the first that matches names the refusal.

TOKEN_RULES: tuple[Rule, ...] = table(
    # A private key block is the most damaging thing to paste; the header line
    # alone is enough to refuse, since the body always follows it, unless the
    # text itself elides the body.
    rule(
        "pem-private-key",
        SECRET,
        "raw",
        rb"----(?:-BEGIN (?:[A-Z0-9]{1,16}+ ){0,3}PRIVATE KEY(?: BLOCK)?-----"
        rb"| BEGIN SSH2 ENCRYPTED PRIVATE KEY ----)",
        _private_key,
        context=48,
        heads=(b"-----BEGIN ", b"---- BEGIN SSH2"),
    ),
    # The same keys without their armour (`key_bodies`).
    KEY_BODY_RULES,
    tokens(
        "putty-private-key",
        None,
        ([b"PuTTY-User-Key-File-"], rb"[23]: ?[a-z0-9-]{3,40}"),
        not_after=_B62,
    ),
    tokens(
        "age-secret-key",
        random_token,
        ([b"AGE-SECRET-KEY-1"], rb"[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}" + _end(_B62)),
    ),
    # AWS access key ids: long-lived (AKIA), temporary (ASIA) and the rarer
    # kinds. The ids AWS's own docs print all end in EXAMPLE. A "/" before one
    # is a boundary ("cfg/AKIA..."): a base64 run holding "AKIA" and sixteen
    # upper-case letters or digits is too rare to exempt the path separator.
    tokens(
        "aws-access-key",
        _aws_key_id,
        ([b"AKIA", b"ASIA", b"ABIA", b"ACCA"], rb"[A-Z0-9]{16}" + _end(_B62)),
        not_after=rb"A-Za-z0-9+",
    ),
    # AWS secret access keys are 40 base64 characters with no prefix, so only
    # the assignment context (env var, credentials file, JSON) identifies them.
    rule(
        "aws-secret-key",
        SECRET,
        "lower",
        rb"secret(?:_?access_?key|(?<=aws_secret)(?:_?key)?|(?<=awssecret)(?:_?key)?)"
        rb"[\"'`]?[ \t]{0,16}(?:=>|:=|=|:)[ \t]{0,16}"
        rb"[\"'`]?(?P<v>[a-z0-9/+]{40})(?![a-z0-9/+=])",
        random_opaque,
        heads=(b"secret",),
    ),
    # The same key after "AWS" and a label in any language ("Chave secreta da
    # AWS:", "AWS सीक्रेट की:"): 40 characters with both cases and a digit,
    # as AWS generates them (an ETag or a commit's SHA-1 is lower-case hex).
    rule(
        "aws-secret-key",
        SECRET,
        "lower",
        rb"aws(?<![a-z0-9]aws)(?![a-z0-9])[^\n\x00:=]{0,80}?[:=][ \t]{0,16}"
        rb"[\"'`]?(?P<v>[a-z0-9/+]{40})(?![a-z0-9/+=])",
        _aws_secret,
        heads=(b"aws",),
    ),
    # STS session tokens and Bedrock API keys: long base64 with a fixed start.
    tokens(
        "aws-session-token",
        random_token,
        ([b"FwoGZXIvYXdz", b"IQoJb3JpZ2lu"], rb"[A-Za-z0-9/+=]{80,4096}+"),
        ([b"ABSK"], rb"[A-Za-z0-9+/]{109,269}+={0,2}"),
        not_after=rb"A-Za-z0-9/+",
    ),
    # GitHub personal, OAuth, user-to-server, server-to-server and refresh
    # tokens, and fine-grained personal access tokens.
    tokens(
        "github-token",
        random_token,
        ([b"ghp_", b"gho_", b"ghu_", b"ghs_", b"ghr_"], rb"[A-Za-z0-9]{36,255}+"),
        ([b"github_pat_"], rb"[A-Za-z0-9_]{22,255}+"),
    ),
    # Tree Ring's own coordinator capability (`govern/coordinator.py`): whoever
    # holds it acts as the coordinator, so it never belongs in a memory, where
    # every worker's brief would show it. The format is Tree Ring's alone, so
    # any body of its shape is refused, a made-up one too, in any case and with
    # its underscore written otherwise (a dash, a space, an HTML reference):
    # whoever reads it can write the prefix back.
    rule(
        "tree-ring-capability",
        SECRET,
        "lower",
        rb"(?<![a-z0-9])trc(?:[^a-z0-9&]{0,3}|&[a-z]{2,12};|&#x?[0-9a-f]{1,6};){0,3}"
        rb"(?P<v>[0-9a-f]{64})(?![0-9a-z])",
        heads=(b"trc",),
        run=64,
    ),
    # GitLab personal, deploy, runner, trigger, CI job, OAuth, feed, mail,
    # agent, SCIM and feature-flag tokens, and runner registration tokens.
    tokens(
        "gitlab-token",
        random_token,
        (
            b"glpat- gldt- glrt- glptt- glcbt- gloas- glft- glimt- glagent- glsoat- glffct-"
            b"".split(),
            rb"[A-Za-z0-9_-]{20}[A-Za-z0-9_.-]{0,280}+",
        ),
        ([b"GR1348941"], rb"[A-Za-z0-9_-]{20,64}+"),
    ),
    # Anyone holding an incoming-webhook URL can post into the channel.
    rule(
        "slack-webhook",
        SECRET,
        "raw",
        # The path alone is judged: the host would make "T00000000/B00000000/XXXX" look random.
        rb"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<v>[A-Za-z0-9_/-]{20,300}+)",
        random_token,
        heads=(b"hooks.slack.com/",),
    ),
    # A Zapier catch hook: anyone holding the URL can start the Zap.
    rule(
        "zapier-webhook",
        SECRET,
        # Its ids hold no long run of token characters for the raw view's run test.
        "lower",
        rb"hooks\.zapier\.com/hooks/catch/(?P<v>[0-9]{4,12}/[A-Za-z0-9]{5,16})",
        _zapier_hook,
        heads=(b"hooks.zapier.com/hooks/catch/",),
    ),
    # Slack bot, user, app, refresh, session, config and app-level tokens.
    tokens(
        "slack-token",
        random_token,
        (
            b"xoxa- xoxb- xoxe- xoxo- xoxp- xoxr- xoxs- xapp- xoxe.xoxb- xoxe.xoxp-".split(),
            rb"[A-Za-z0-9-]{20,255}+",
        ),
    ),
    rule(
        "discord-webhook",
        SECRET,
        "raw",
        rb"discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/[A-Za-z0-9_-]{60,68}",
        random_token,
        heads=(b"discord.com/api/webhooks/", b"discordapp.com/api/webhooks/"),
        run=60,
    ),
    # A bot token is three base64url parts: the bot's id (digits, so its base64
    # starts M, N or O), a 6-character timestamp and an HMAC. In the token view
    # the timestamp and the dots around it are literal; look-behinds check the
    # id's length and the validator the rest, in the original text.
    rule(
        "discord-bot-token",
        SECRET,
        "token",
        rb"\.xxxxxx\.(?:(?<=[^x]x{24}\.xxxxxx\.)|(?<=[^x]x{25}\.xxxxxx\.)"
        rb"|(?<=[^x]x{26}\.xxxxxx\.))x{27,38}(?!x)",
        _discord_token,
        context=28,
        heads=(b".xxxxxx.",),
        run=27,
    ),
    rule(
        "teams-webhook",
        SECRET,
        "raw",
        rb"\.webhook\.office\.com/webhookb2/[0-9a-f-]{36}@[A-Za-z0-9@/-]{36,300}+",
        random_token,
        heads=(b".webhook.office.com/webhookb2/",),
        run=36,
    ),
    # Bot id, colon, a 35-character secret that starts with "A".
    rule(
        "telegram-bot-token",
        SECRET,
        "raw",
        rb":A(?<=[0-9]{8}:A)[A-Za-z0-9_-]{32,36}" + _end(_B64URL),
        random_token,
        heads=(b":A",),
        run=33,
    ),
    # Before openai-key: all of these start with "sk-".
    tokens(
        "anthropic-key",
        random_token,
        ([b"sk-ant-"], rb"[A-Za-z0-9_-]{20,255}+"),
        not_after=_B64URL,
    ),
    tokens(
        "openrouter-key",
        random_token,
        ([b"sk-or-v1-"], rb"[0-9a-f]{64}" + _end(_B62)),
        not_after=_B64URL,
    ),
    # OpenAI legacy, project, service-account and admin keys, and the
    # OpenAI-compatible vendors that copied the "sk-" prefix.
    rule(
        "openai-key",
        SECRET,
        "raw",
        rb"sk-(?<![A-Za-z0-9_-]sk-)(?!ant-)[A-Za-z0-9_-]{20,255}+",
        _sk_body,
        heads=(b"sk-",),
        run=23,
    ),
    # Stripe secret and restricted keys, live and test (test keys still read
    # and write the account's test data). Publishable pk_ keys are public.
    tokens(
        "stripe-key",
        random_token,
        (
            [b"sk_live_", b"rk_live_", b"sk_test_", b"rk_test_", b"sk_prod_", b"rk_prod_"],
            rb"[A-Za-z0-9]{16,255}+",
        ),
    ),
    # Webhook signing secrets (Stripe, Svix, Clerk, Resend): whoever holds one
    # can forge events the receiver trusts.
    tokens("webhook-signing-secret", random_token, ([b"whsec_"], rb"[A-Za-z0-9+/=]{24,100}+")),
    # Fly.io's macaroon tokens, as `fly tokens create` prints them.
    tokens(
        "flyio-token",
        random_token,
        ([b"FlyV1 fm1_", b"FlyV1 fm2_"], rb"[A-Za-z0-9+/=_,-]{40,2000}+"),
    ),
    # Google API keys (Maps, Firebase, Gemini...).
    tokens(
        "google-api-key",
        random_token,
        ([b"AIza"], rb"[0-9A-Za-z_-]{35}" + _end(_B64URL)),
        not_after=_B64URL,
    ),
    # OAuth client secrets, access tokens and refresh tokens.
    tokens(
        "google-oauth",
        random_token,
        ([b"GOCSPX-"], rb"[A-Za-z0-9_-]{28}" + _end(_B64URL)),
        ([b"ya29."], rb"[A-Za-z0-9_-]{30,2048}+"),
        ([b"1//0"], rb"[A-Za-z0-9_-]{40,512}+"),
        not_after=_B64URL,
    ),
    # Firebase Cloud Messaging legacy server keys.
    rule(
        "fcm-server-key",
        SECRET,
        "raw",
        rb":APA91b(?<=AAAA[A-Za-z0-9_-]{7}:APA91b)[A-Za-z0-9_-]{100,200}+",
        random_token,
        heads=(b":APA91b",),
        run=100,
    ),
    # Storage account keys and Service Bus / Event Hubs keys in connection
    # strings: 64 random bytes in base64.
    rule(
        "azure-storage-key",
        SECRET,
        "lower",
        rb"key(?:(?<=accountkey)|(?<=sharedaccesskey))[ \t]{0,4}=[ \t]{0,4}"
        rb"(?P<v>[a-z0-9+/]{40,120}+={0,2})",
        random_opaque,
        heads=(b"key",),
    ),
    rule(
        "azure-sas-token",
        SECRET,
        "lower",
        rb"sig=(?<=[?&;]sig=)[a-z0-9%+/]{30,200}+",
        _sas_signature,
        context=400,
        heads=(b"sig=",),
    ),
    # Entra ID (Azure AD) client secrets: three characters, a digit, "Q~".
    rule(
        "azure-client-secret",
        SECRET,
        "raw",
        rb"Q~(?<=[A-Za-z0-9_~.]{3}[0-9]Q~)(?<![A-Za-z0-9_~.-][A-Za-z0-9_~.]{3}[0-9]Q~)"
        rb"[A-Za-z0-9_~.-]{31,34}" + _end(rb"A-Za-z0-9_~.-"),
        random_token,
        heads=(b"Q~",),
    ),
    # Twilio API keys (SK), and an account SID (AC, public alone) written
    # beside its auth token, as "AC...:token" or "AC... token ...".
    tokens(
        "twilio-api-key",
        _hex_token,
        ([b"SK"], rb"[0-9a-fA-F]{32}" + _end(_B62)),
        (
            [b"AC"],
            rb"[0-9a-f]{32}[^0-9A-Za-z\n\x00]{1,4}+(?>(?:[a-z]{1,12}+[: ]{1,3}+){0,3})[0-9a-f]{32}"
            + _end(_B62),
        ),
        not_after=_B62,
    ),
    # SendGrid writes 22 and 43 characters; a key copied short or written
    # out by hand is as much a key, so the lengths are a range around those.
    tokens(
        "sendgrid-key",
        random_token,
        ([b"SG."], rb"[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{30,64}" + _end(_B64URL)),
        not_after=_B64URL,
    ),
    tokens("mailgun-key", _hex_token, ([b"key-"], rb"[0-9a-f]{32}" + _end(_B62)), not_after=_B62),
    rule(
        "mailchimp-key",
        SECRET,
        "raw",
        rb"-us(?<=[0-9a-f]{32}-us)[0-9]{1,2}" + _end(_B62),
        _mailchimp_key,
        context=36,
        heads=(b"-us",),
        run=36,
    ),
    tokens(
        "huggingface-token",
        random_token,
        ([b"hf_", b"api_org_"], rb"[A-Za-z0-9]{30,40}" + _end(rb"A-Za-z0-9_")),
    ),
    tokens("npm-token", random_token, ([b"npm_"], rb"[A-Za-z0-9]{36}" + _end(_B62))),
    tokens(
        "pypi-token",
        random_token,
        ([b"pypi-AgEIcHlwaS5vcmc", b"pypi-AgENdGVzdC5weXBpLm9yZw"], rb"[A-Za-z0-9_-]{50,1000}+"),
    ),
    tokens("rubygems-token", random_token, ([b"rubygems_"], rb"[0-9a-f]{48}" + _end(_B62))),
    tokens(
        "docker-hub-token",
        random_token,
        ([b"dckr_pat_", b"dckr_oat_"], rb"[A-Za-z0-9_-]{27,64}+"),
    ),
    tokens(
        "shopify-token",
        _hex_token,
        ([b"shpat_", b"shpss_", b"shpca_", b"shppa_"], rb"[a-fA-F0-9]{32}" + _end(_B62)),
    ),
    # Atlassian (Jira, Confluence) API tokens and Bitbucket app passwords.
    # Issued tokens run to 190 characters or so; a shorter one after the
    # prefix is still a token when the body is long and random enough.
    tokens(
        "atlassian-token",
        random_token,
        ([b"ATATT3", b"ATCTT3"], rb"[A-Za-z0-9_-]{24,400}+(?:=[A-Za-z0-9]{8})?"),
        ([b"ATBB"], rb"[A-Za-z0-9]{28,32}" + _end(_B62)),
    ),
    tokens(
        "digitalocean-token",
        _hex_token,
        ([b"dop_v1_", b"doo_v1_", b"dor_v1_"], rb"[a-f0-9]{64}" + _end(_B62)),
    ),
    tokens("heroku-key", random_token, ([b"HRKU-"], rb"[A-Za-z0-9_-]{40,80}+")),
    tokens(
        "databricks-token",
        _hex_token,
        ([b"dapi"], rb"[a-f0-9]{32}(?:-[0-9])?" + _end(_B62)),
        not_after=_B62,
    ),
    # Azure DevOps personal access tokens: 52 small letters and digits (base32
    # when issued; written out by hand, any letters), or the longer format's
    # 84 letters and digits, after "PAT", "ADO" or "DevOps" on the same line:
    # alone they are any long id.
    *(
        rule(
            "azure-devops-pat",
            SECRET,
            "raw",
            head + rb"(?<![A-Za-z]" + head + rb")(?![A-Za-z])[^\n\x00]{0,60}?"
            rb"(?<![A-Za-z0-9])(?P<v>[a-z0-9]{52}|[A-Za-z0-9]{84})(?![A-Za-z0-9])",
            random_opaque,
            heads=(head,),
            run=52,
        )
        for head in (b"PAT", b"pat", b"Pat", b"ADO", b"ado", b"DevOps", b"devops", b"DEVOPS")
    ),
    # HashiCorp Vault service, batch and recovery tokens.
    tokens("vault-token", random_token, ([b"hvs.", b"hvb.", b"hvr."], rb"[A-Za-z0-9_-]{24,400}+")),
    # Terraform Cloud / Enterprise API tokens: 14 characters, ".atlasv1.", 60-70.
    rule(
        "terraform-token",
        SECRET,
        "raw",
        rb"\.atlasv1\.(?<=[A-Za-z0-9]{14}\.atlasv1\.)[A-Za-z0-9_-]{60,80}+",
        random_token,
        heads=(b".atlasv1.",),
        run=60,
    ),
    tokens(
        "doppler-token",
        random_token,
        (
            [b"dp.pt.", b"dp.st.", b"dp.ct.", b"dp.sa.", b"dp.scim.", b"dp.audit."],
            rb"[A-Za-z0-9]{40,44}" + _end(_B62),
        ),
        # Service tokens name their environment: dp.st.prd.<token>.
        ([b"dp.st."], rb"[a-z0-9_-]{1,40}+\.[A-Za-z0-9]{40,44}" + _end(_B62)),
    ),
    tokens("linear-key", random_token, ([b"lin_api_", b"lin_oauth_"], rb"[A-Za-z0-9]{40}")),
    tokens(
        "notion-token",
        random_token,
        ([b"secret_"], rb"[A-Za-z0-9]{43}" + _end(_B62)),
        ([b"ntn_"], rb"[0-9]{11}[A-Za-z0-9]{35}" + _end(_B62)),
    ),
    # Square access tokens and OAuth secrets.
    tokens(
        "square-token",
        random_token,
        ([b"sq0atp-", b"sq0csp-"], rb"[A-Za-z0-9_-]{22,60}+"),
        ([b"EAAA"], rb"[A-Za-z0-9_-]{60}" + _end(_B64URL)),
        not_after=_B64URL,
    ),
    # Braintree (PayPal) access tokens and PayPal OAuth access tokens.
    rule(
        "paypal-token",
        SECRET,
        "raw",
        rb"access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}",
        random_token,
        heads=(b"access_token$",),
        run=32,
    ),
    tokens(
        "paypal-token", random_token, ([b"A21AA"], rb"[A-Za-z0-9_-]{50,200}+"), not_after=_B64URL
    ),
    # Okta's API tokens travel as "Authorization: SSWS <token>".
    rule(
        "okta-token",
        SECRET,
        "lower",
        rb"ssws[ \t]{1,8}(?P<v>00[a-z0-9_-]{40})" + _end(rb"a-z0-9_-"),
        random_opaque,
        heads=(b"ssws",),
    ),
    # New Relic user, insert and ingest keys.
    tokens(
        "new-relic-key",
        random_token,
        ([b"NRAK-"], rb"[A-Z0-9]{27}" + _end(_B62)),
        ([b"NRII-", b"NRIQ-"], rb"[A-Za-z0-9_-]{32}" + _end(_B64URL)),
        not_after=_B62,
    ),
    rule(
        "new-relic-license-key",
        SECRET,
        "raw",
        rb"NRAL(?<=[0-9a-f]{36}NRAL)" + _end(_B62),
        _new_relic_license,
        context=40,
        heads=(b"NRAL",),
        run=40,
    ),
    tokens(
        "sentry-token",
        random_token,
        ([b"sntrys_eyJ"], rb"[A-Za-z0-9+/=_]{60,800}+"),
        ([b"sntryu_", b"sntrya_"], rb"[a-f0-9]{64}" + _end(_B62)),
    ),
    # A DSN's key lets anyone send events into the project; the old form also
    # carries a secret after the colon.
    rule(
        "sentry-dsn",
        SECRET,
        "raw",
        rb"://(?<=[a-z]://)(?P<v>[0-9a-f]{32})(?::[0-9a-f]{32})?@[A-Za-z0-9.-]{1,200}+"
        rb"(?::[0-9]{1,5})?/(?:[A-Za-z0-9_-]{1,64}/){0,4}[0-9]{1,12}(?![0-9A-Za-z/._-])",
        _hex_token,
        heads=(b"://",),
        run=32,
    ),
    tokens(
        "alibaba-key",
        random_token,
        ([b"LTAI"], rb"[A-Za-z0-9]{12,20}" + _end(_B62)),
        not_after=_B62,
    ),
    tokens(
        "tencent-key",
        random_token,
        ([b"AKID"], rb"[A-Za-z0-9]{32}" + _end(_B62)),
        not_after=_B62,
    ),
    # Grafana Cloud tokens, service account tokens and legacy API keys.
    tokens(
        "grafana-token",
        random_token,
        ([b"glc_"], rb"[A-Za-z0-9+/]{32,400}+={0,3}"),
        ([b"glsa_"], rb"[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}" + _end(_B62)),
        ([b"eyJrIjoi"], rb"[A-Za-z0-9]{70,400}+={0,3}"),
    ),
    # The long tail of prefixed tokens from the major secret scanners' lists:
    # AI APIs, package registries, CI, observability and SaaS admin tokens.
    tokens(
        "vendor-token",
        random_token,
        ([b"pplx-"], rb"[A-Za-z0-9]{48}" + _end(_B62)),
        ([b"xai-"], rb"[A-Za-z0-9]{70,90}" + _end(_B62)),
        ([b"gsk_"], rb"[A-Za-z0-9]{52}" + _end(_B62)),
        ([b"r8_"], rb"[A-Za-z0-9]{37}" + _end(_B62)),
        ([b"pcsk_"], rb"[A-Za-z0-9_]{60,80}+"),
        ([b"nvapi-"], rb"[A-Za-z0-9_-]{64}" + _end(_B64URL)),
        ([b"lsv2_pt_", b"lsv2_sk_"], rb"[a-f0-9]{32}_[a-f0-9]{10}" + _end(_B62)),
        ([b"AKCp"], rb"[A-Za-z0-9]{69}" + _end(_B62)),
        ([b"dt0c01."], rb"[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}" + _end(_B62)),
        ([b"PMAK-"], rb"[a-f0-9]{24}-[a-f0-9]{34}" + _end(_B62)),
        ([b"pnu_"], rb"[A-Za-z0-9]{36}" + _end(_B62)),
        ([b"pul-"], rb"[a-f0-9]{40}" + _end(_B62)),
        ([b"rdme_"], rb"[a-z0-9]{70}" + _end(_B62)),
        ([b"sgp_"], rb"[a-fA-F0-9]{40}" + _end(_B62)),
        ([b"sgp_"], rb"[a-fA-F0-9]{16}_[a-fA-F0-9]{40}" + _end(_B62)),
        ([b"shippo_live_", b"shippo_test_"], rb"[a-fA-F0-9]{40}" + _end(_B62)),
        ([b"pscale_tkn_", b"pscale_pw_", b"pscale_oauth_"], rb"[A-Za-z0-9_-]{32,64}+"),
        ([b"fo1_"], rb"[A-Za-z0-9_-]{43}" + _end(_B64URL)),
        ([b"xkeysib-"], rb"[a-f0-9]{64}-[A-Za-z0-9]{16}" + _end(_B62)),
        ([b"EZAK", b"EZTK"], rb"[A-Za-z0-9]{54}" + _end(_B62)),
        ([b"CLOJARS_"], rb"[a-z0-9]{60}" + _end(_B62)),
        ([b"duffel_live_", b"duffel_test_"], rb"[A-Za-z0-9_-]{43}" + _end(_B62)),
        ([b"FLWSECK-", b"FLWSECK_TEST-"], rb"[a-hA-H0-9]{32}-X"),
        ([b"figd_"], rb"[A-Za-z0-9_-]{40}" + _end(_B64URL)),
        ([b"sbp_"], rb"[a-f0-9]{40}" + _end(_B62)),
        ([b"sb_secret_"], rb"[A-Za-z0-9_-]{24,64}+"),
        ([b"nfp_"], rb"[A-Za-z0-9]{36}" + _end(_B62)),
        ([b"tskey-"], rb"[a-z]{3,8}-[A-Za-z0-9]{10,20}-[A-Za-z0-9]{20,40}" + _end(_B62)),
        ([b"bkua_"], rb"[a-f0-9]{40}" + _end(_B62)),
        ([b"CCIPAT_"], rb"[A-Za-z0-9]{20,30}_[a-f0-9]{40}" + _end(_B62)),
        ([b"squ_", b"sqp_", b"sqa_"], rb"[a-f0-9]{40}" + _end(_B62)),
        ([b"CFPAT-"], rb"[A-Za-z0-9_-]{43}" + _end(_B64URL)),
        ([b"pat-na1-", b"pat-eu1-"], rb"[a-f0-9-]{36}" + _end(_B62)),
        ([b"access-production-", b"access-sandbox-"], rb"[a-f0-9-]{36}" + _end(_B62)),
        ([b"sk.eyJ"], rb"[A-Za-z0-9_-]{20,200}+\.[A-Za-z0-9_-]{20,100}+"),
        ([b"ck_", b"cs_"], rb"[a-f0-9]{40}" + _end(_B62)),
        ([b"v1.0-"], rb"[a-f0-9]{24}-[a-f0-9]{146}" + _end(_B62)),
        # NuGet API keys, Resend, Neon,
        # ElevenLabs, Adafruit IO, Octopus Deploy, LaunchDarkly server-side
        # SDK and API keys, Dropbox short-lived tokens, Yandex Cloud API and
        # static keys, Frame.io, Twitter/X app bearer tokens (21 "A"s, then
        # base64 that may be percent-encoded).
        ([b"oy2"], rb"[a-z0-9]{43}" + _end(_B62)),
        ([b"re_"], rb"[A-Za-z0-9]{8}_[A-Za-z0-9]{24}" + _end(_B62)),
        ([b"napi_"], rb"[a-z0-9]{64}" + _end(_B62)),
        ([b"sk_"], rb"[a-f0-9]{48}" + _end(_B62)),
        ([b"aio_"], rb"[A-Za-z0-9]{28}" + _end(_B62)),
        ([b"API-"], rb"[A-Z0-9]{26,32}" + _end(_B62)),
        (
            [b"sdk-", b"api-"],
            rb"[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}" + _end(_B62),
        ),
        ([b"sl."], rb"[A-Za-z0-9_-]{130,1400}+"),
        ([b"AQVN"], rb"[A-Za-z0-9_-]{35,38}" + _end(_B64URL)),
        ([b"YCAJ", b"YCM"], rb"[A-Za-z0-9_-]{36,38}" + _end(_B64URL)),
        ([b"fio-u-"], rb"[A-Za-z0-9_-]{64}" + _end(_B64URL)),
        ([b"AAAAAAAAAAAAAAAAAAAAA"], rb"[A-Za-z0-9%]{60,200}+"),
    ),
    # 1Password service account tokens: base64 JSON after "ops_".
    tokens("onepassword-token", random_token, ([b"ops_eyJ"], rb"[A-Za-z0-9+/]{250,2000}+={0,3}")),
    # A signed JWT is a bearer credential until it expires.
    rule(
        "jwt",
        SECRET,
        "raw",
        rb"eyJ(?<![A-Za-z0-9_-]eyJ)[A-Za-z0-9_-]{17,4096}+\.[A-Za-z0-9_-]{5,16384}+"
        rb"\.(?P<v>[A-Za-z0-9_-]{16,4096}+)",
        _jwt_signature,
        heads=(b"eyJ",),
        run=20,
    ),
)
