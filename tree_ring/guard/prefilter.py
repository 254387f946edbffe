"""The prefilter: which rules could match a text, decided without running them.

Bulk imports guard every memory, and most memories match no rule, so the
cost that matters is that of rules that all fail. Each rule's heads (the
literal strings one of which starts every match in the rule's view: ``AKIA``
or ``ASIA`` for an AWS key id, ``pass`` or ``pw`` for a password assignment)
are declared by the rule or read from its pattern. A rule runs only if one of
its heads occurs, as one of two tests finds:

- an anchor, for heads in the raw view that hold a byte ordinary text seldom
  does (a capital, most punctuation): one `bytes.translate` deletes the
  common bytes of the text, and only the anchors left are looked for, each
  with one pattern that starts at the anchor byte (so `re` skips to it at
  memchr speed) and checks the rest of its heads with literal branches. A
  head is anchored at its first byte, or at its last in the view reversed,
  so the branches look forward; a look-behind costs a recursion in `re`;
- a stem, for heads of common bytes only ("password", "token"): one
  substring search, shared by the heads that contain it.

CPython's `re` skips fast only to a single literal: a pattern that starts
with a set of bytes tests every position, which costs as much as all the
substring tests together. Hence one pattern per anchor, not one per view,
and rules whose patterns each start with one literal.

Most token formats also guarantee a run of 20 or more token characters
(letters, digits, "_" and "-"), which prose lacks: those rules are tested
only when the text holds such a run, one substring search in the token view.

A rule that passes runs exactly as it would without the prefilter, so the
prefilter decides nothing on its own: it only skips patterns that could not
have matched. The readers of heads and runs (`reader`) hold declared values
to the patterns in the tests; at run time nothing is read for a rule that
declares its heads, and anchor patterns are compiled when first needed, so a
process that scans a few texts (the SessionStart hook) pays for almost none
of this.
"""

from __future__ import annotations

from collections.abc import Sequence

from tree_ring.guard.rule import Rule, compiled, escape, shared_prefix
from tree_ring.model.frozen import Frozen

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

    # A plan's tests for one view, as plain data (`literal`): the view, its
    # run, its forward and backward anchors as (anchor byte, pattern source,
    # heads, rules), its stems as (stem, rules), and the rules that always run.
    Anchor = tuple[int, bytes, tuple[str, ...], tuple[int, ...]]
    LiteralView = tuple[
        str,
        str,
        tuple[Anchor, ...],
        tuple[Anchor, ...],
        tuple[tuple[str, tuple[int, ...]], ...],
        tuple[int, ...],
    ]


def heads_of(rule: Rule) -> tuple[bytes, ...]:
    """The rule's declared heads, else those read from its pattern (`reader`,
    imported only then: every secret rule declares its heads, so the brief's
    checks never load it)."""
    if rule.heads:
        return rule.heads
    import tree_ring.guard.reader as reader

    return reader.heads(rule.source)


# --------------------------------------------------------------------------
# Plans: the tests for a list of rules

# Bytes of ordinary text (prose, code, config) by frequency, commonest first;
# bytes not listed count as the rarest. A head anchors on its rarest byte.
# Only where tests anchor depends on this, never their outcome.
_BY_FREQUENCY = (
    " etaoinsrhldcumwfgypbvkjxqz0123456789\n\x00,.-TSAICMPBDRHEFNLGOW_/:=()'\"UV>#<[]K*Y{}JQXZ"
)
# What ordinary text is made of: a text holding only these bytes has no
# anchor, and a head made only of these gets a stem instead.
_COMMON = " etaoinsrhldcumwfgypbvkjxqz0123456789\n\x00,"
COMMON_BYTES = _COMMON.encode("latin-1")


# Heads that agree on this many leading bytes share one stem, if the part
# they share is at least _STEM_MIN bytes long.
_STEM_KEY = 2
_STEM_MIN = 4


def _rarity(char: str) -> int:
    index = _BY_FREQUENCY.find(char)
    return len(_BY_FREQUENCY) if index < 0 else index


def _rare(char: str) -> bool:
    return char not in _COMMON


def _anchor_source(anchor: int, rests: Sequence[tuple[bytes, bytes]]) -> bytes:
    """A pattern that starts at the anchor byte and matches where one of its
    heads holds it: each head as (the bytes before the anchor, the bytes
    after). The bytes after are literal branches, which `re` rejects at their
    first byte without recursing; the bytes before need a look-behind, which
    costs a recursion each, so heads are anchored to keep them empty."""
    literal = escape(bytes((anchor,)))
    branches: set[bytes] = set()
    for before, after in rests:
        behind = rb"(?<=" + escape(before) + literal + rb")" if before else b""
        if not behind and not after:
            return literal  # the anchor byte alone is a head
        branches.add(behind + escape(after))
    return literal + rb"(?:" + b"|".join(sorted(branches)) + rb")"


def _contained(heads: Sequence[bytes]) -> list[bytes]:
    """The heads that hold no other head: a head inside a longer one covers it."""
    kept: list[bytes] = []
    for head in sorted(set(heads), key=lambda head: (len(head), head)):
        if not any(stem in head for stem in kept):
            kept.append(head)
    return kept


def _stems(heads: Sequence[bytes]) -> list[bytes]:
    """Few substrings that cover every head: a head inside a longer one covers
    it ("pass" covers "sshpass" and "htpasswd"), and heads that start alike
    share their common prefix ("secret" for "secret" and "secret_access")."""
    groups: dict[bytes, list[bytes]] = {}
    for head in _contained(heads):
        groups.setdefault(head[:_STEM_KEY], []).append(head)
    stems: list[bytes] = []
    for group in groups.values():
        shared = shared_prefix(group)
        # A short shared start ("log" of "login" and "logon") is in too many
        # words to rule anything out; the heads themselves are tested then.
        stems.extend([shared] if len(shared) >= _STEM_MIN or len(group) == 1 else group)
    return _contained(stems)


# How many texts one anchor tests head by head before its pattern is compiled.
LITERAL_SEARCHES = 32


class Lazy:
    """One anchor's test: whether one of its heads is in a view.

    Its first `LITERAL_SEARCHES` tests look for each head as a substring
    (`literal`, then `heads`), which costs nothing to prepare; from then on,
    in a process that scans many texts (a bulk import), the pattern, compiled
    then, finds them in one pass (`search`). Compiling the anchors' patterns,
    and importing `re` for them, would cost a process that scans a few texts
    (the hook's brief) more than all of its scanning. The pattern is compiled
    where the rules' are, so one count tells how many patterns a process
    compiled.
    """

    __slots__ = ("_pattern", "heads", "searches", "source")

    def __init__(self, source: bytes, heads: tuple[str, ...]) -> None:
        self.source = source
        # The heads as they read in the view, forwards, as Latin-1 text.
        self.heads = heads
        self.searches = 0
        self._pattern: re.Pattern[bytes] | None = None

    def literal(self) -> bool:
        """Whether this test is still one of the first, made head by head."""
        self.searches += 1
        return self.searches <= LITERAL_SEARCHES

    def search(self, data: bytes) -> re.Match[bytes] | None:
        pattern = self._pattern
        if pattern is None:
            pattern = self._pattern = compiled(self.source)
        return pattern.search(data)


class ViewPlan(Frozen):
    """The tests for one view's rules (indexes into `Plan.rules`)."""

    view: str
    # "x" * n when every rule here needs a run of n token characters: the token
    # view must hold it, or none of them can match. "" for no such test.
    run: str
    # anchor byte -> (pattern finding one of its heads, rules it lets through):
    # heads anchored at their first byte (or, failing that, their rarest) in
    # the view, and heads anchored at their last byte in the view reversed.
    forward: dict[int, tuple[Lazy, frozenset[int]]]
    backward: dict[int, tuple[Lazy, frozenset[int]]]
    # (stem as Latin-1 text, rules it lets through)
    stems: tuple[tuple[str, frozenset[int]], ...]
    # Rules with a head the reader could not read: they always run.
    always: frozenset[int]


class Plan(Frozen):
    """How to scan with a list of rules: their tests per view, in rule order."""

    rules: Sequence[Rule]
    views: tuple[ViewPlan, ...]


# The raw view holds most heads, and almost all of them have a byte ordinary
# text lacks; the derived views hold few heads, where a handful of substring
# searches cost less than deleting common bytes and checking what is left.
ANCHORED_VIEWS = frozenset({"raw"})


# Rules whose matches hold this many token characters in a row are tested only
# when the text holds such a run. Prose words are shorter; ids, hashes and
# encoded blobs are not, so those texts pay for the full test.
LONG_RUN = 20
# Views where a run of token characters is one in the token view: the raw
# view, the token view, and the shape view (which writes letters, digits and
# "-" as "A", "a", "0" and "-", and every other token character as a space).
_RUN_VIEWS = frozenset({"raw", "token", "shape"})


def _view_plan(
    view: str, rules: Sequence[Rule], indexes: Sequence[int], *, run: int = 0
) -> ViewPlan:
    # (reversed?, anchor byte) -> (heads as (before, after) the anchor, rules, heads)
    by_anchor: dict[tuple[bool, int], tuple[list[tuple[bytes, bytes]], set[int], set[str]]] = {}
    stem_heads: dict[bytes, set[int]] = {}
    always: set[int] = set()
    for index in indexes:
        for head in heads_of(rules[index]):
            if not head:
                always.add(index)
                continue
            text = head.decode("latin-1")
            if view not in ANCHORED_VIEWS or not any(_rare(char) for char in text):
                stem_heads.setdefault(head, set()).add(index)
                continue
            # The rarest byte; on a tie the last one, then the first: those two
            # need no look-behind (the last is looked for back to front, where
            # prefixes ending alike, "ghp_" and "npm_", share one pattern).
            ends = (len(text) - 1, 0)
            at = max(range(len(text)), key=lambda i: (_rarity(text[i]), i in ends, i == ends[0]))
            if at == 0:
                key, rest = (False, head[0]), (b"", head[1:])
            elif at == len(text) - 1:
                key, rest = (True, head[-1]), (b"", head[:-1][::-1])
            else:
                key, rest = (False, head[at]), (head[:at], head[at + 1 :])
            heads, owners, whole = by_anchor.setdefault(key, ([], set(), set()))
            heads.append(rest)
            owners.add(index)
            whole.add(text)
    forward: dict[int, tuple[Lazy, frozenset[int]]] = {}
    backward: dict[int, tuple[Lazy, frozenset[int]]] = {}
    for (reverse, byte), (heads, owners, whole) in by_anchor.items():
        entry = (Lazy(_anchor_source(byte, heads), tuple(sorted(whole))), frozenset(owners))
        (backward if reverse else forward)[byte] = entry
    stems: list[tuple[str, frozenset[int]]] = []
    for stem in _stems(list(stem_heads)):
        owners = {i for head, found in stem_heads.items() if stem in head for i in found}
        stems.append((stem.decode("latin-1"), frozenset(owners)))
    return ViewPlan(view, "x" * run, forward, backward, tuple(stems), frozenset(always))


def plan(rules: Sequence[Rule]) -> Plan:
    """Each view's rules, those that need a long run apart from the others."""
    views: list[ViewPlan] = []
    for view in sorted({rule.view for rule in rules}):
        indexes = [i for i, rule in enumerate(rules) if rule.view == view]
        long = {i for i in indexes if view in _RUN_VIEWS and rules[i].run >= LONG_RUN}
        short = [i for i in indexes if i not in long]
        if short:
            views.append(_view_plan(view, rules, short))
        if long:
            views.append(_view_plan(view, rules, sorted(long), run=LONG_RUN))
    return Plan(tuple(rules), tuple(views))


# --------------------------------------------------------------------------
# Plans written out


def literal(plan: Plan) -> tuple[LiteralView, ...]:
    """The plan's tests as plain data, which a module can hold as a literal.

    The secret rules' plan is held so (`secret_plan`): building those rules
    and their plan costs the SessionStart hook more than the rest of its
    guard, while a text that opens none of the plan's tests needs neither.
    """

    def anchors(found: dict[int, tuple[Lazy, frozenset[int]]]) -> tuple[Anchor, ...]:
        return tuple(
            (byte, lazy.source, lazy.heads, tuple(sorted(owners)))
            for byte, (lazy, owners) in sorted(found.items())
        )

    return tuple(
        (
            view.view,
            view.run,
            anchors(view.forward),
            anchors(view.backward),
            tuple((stem, tuple(sorted(owners))) for stem, owners in view.stems),
            tuple(sorted(view.always)),
        )
        for view in plan.views
    )


def from_literal(views: Sequence[LiteralView], rules: Sequence[Rule]) -> Plan:
    """The plan `literal` wrote out, over `table` (which it does not read, so
    they can be a sequence that imports them on first use)."""

    def anchors(found: tuple[Anchor, ...]) -> dict[int, tuple[Lazy, frozenset[int]]]:
        return {
            byte: (Lazy(source, heads), frozenset(owners)) for byte, source, heads, owners in found
        }

    return Plan(
        rules,
        tuple(
            ViewPlan(
                view,
                run,
                anchors(forward),
                anchors(backward),
                tuple((stem, frozenset(owners)) for stem, owners in stems),
                frozenset(always),
            )
            for view, run, forward, backward, stems, always in views
        ),
    )
