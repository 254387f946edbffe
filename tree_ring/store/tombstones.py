"""Content tombstones: what was forgotten or rejected never comes back.

A tombstone holds hashes of a memory's claims, never its text. Forgetting or
rejecting a memory records a key for its whole summary, its whole details
(when there are any), and the two as one text; and, but for a consolidation,
one for each sentence of at least `SENTENCE_WORDS` words of the summary, for
a source quote, tag or source ref of that many words whole (not the source
ref of a row a file sync wrote, which names a place in a file), and for the
sentence that runs on from the end of the summary into the details. A
sentence of the details alone is no key (`_forget_claims` says why). A later
write is refused when any of its own keys is tombstoned: its whole summary
and details, its other text fields and its identifiers (agent profile,
workflow, session, operation) whole, every sentence of each, and the
sentence formed across each seam between summary, details, source quote,
source ref and tags, and on through a field of one sentence into a third
(those `MIN_WORDS` words or more); a Revolve record's
words without those naming its file are keyed on both sides too, and so is
every text naming a camelCase identifier with each read as its words
(`identifiers.spaced`), as recall reads it. So a
forgotten claim is refused with other details, wrapped in quotes, with
"Note:" in front or "(confirmed)" behind, inside a consolidation that lists
it, as one sentence of a longer memory, in a source quote or a tag, or split
between the summary and another field;
while a short stock sentence that many memories share ("See the runbook.")
never blocks the others because one of them was forgotten, and forgetting a
consolidation leaves its sources' claims alone.

The keys are over `claim_text` (`model/claims.py`), which folds what never
makes a claim new: escapes and markup tags read as a reader sees them, every
spelling of the same letters (`fold.canonical`: width, case, invisible
characters, accents and other marks, look-alike letters from other scripts),
spacing, punctuation, wrapping quotes and markup, and the annotations people
put around a claim ("Note:", "FYI -", "(confirmed)"). Number words and
hyphenation are not folded ("three" is not "3", "re-try" is not "retry").
Tombstones written before escapes were decoded hold keys over the text as
written (`written_claim_text`), and those written before the canonical fold
over `legacy_claim_text` (NFKC and case only), so every text is keyed by all
three (they differ only for a text with escapes, or not ASCII); tombstones written before claim keys
existed hold `record.content_hash` (summary and details together), and a
write is checked against that too.

A tombstone's reason stays in the store and the audit log. It is never
echoed in an error: a reason is free text someone else wrote (an imported
tombstone's reason could carry an instruction, or a secret), so the error
says when and which memory, and points at `tree-ring audit`.
"""

from __future__ import annotations

import re

from tree_ring.model import jsontext
from tree_ring.model.claims import (
    cased_claim_text,
    claim_text,
    legacy_claim_text,
    may_escape,
    written_claim_text,
)
from tree_ring.model.errors import Conflict
from tree_ring.model.identifiers import READINGS, spaced
from tree_ring.model.record import Memory, generated_id, sha256

# Types only: the SessionStart hook loads this module to hide what a project
# forgot (`read/forgotten_here.py`), and `typing` and `json` are no imports for it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence
    from typing import Any

    from tree_ring.store.sql import Db

# A sentence shorter than this says too little to refuse on its own ("Use tabs.").
MIN_WORDS = 3
# A sentence of a forgotten summary is tombstoned on its own only when it says
# this much: shorter ones are the stock phrases many memories share.
SENTENCE_WORDS = 5
# How many words a write may add before or after a forgotten sentence and
# still be checked against it (`_Keys.trims`).
TRIM = 3
# Where one claim ends and the next begins: sentence ends, line breaks, and the
# separators consolidations and the brief put between entries.
_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+|\s+[—–|]\s+|\s*•\s*")


def _key(claim: str) -> str:
    return sha256("claim\n" + claim)


def claim_key(claim: str) -> str:
    """The key of `claim`, a text already folded (`claim_text`)."""
    return _key(claim)


def whole_key(text: str) -> str | None:
    """The key of a whole text as one claim, or None for a text with no words."""
    claim = claim_text(text)
    return _key(claim) if claim else None


def one_word(text: str) -> bool:
    """Whether `text` is a single word, which holds no claim: letters and
    digits only, and no camelCase identifier ("UseTabsInTheMakefile" is the
    words it runs together, `identifiers.spaced`)."""
    return text.isalnum() and spaced(text) == text


def sentences(text: str) -> list[str]:
    return [part for part in _SENTENCES.split(text) if part.strip()]


# A text folded: its claim, the claim by the legacy fold (`legacy_claim_text`),
# by the fold before escapes were decoded (`written_claim_text`), and by the
# fold of its letters made small first (`cased_claim_text`); each of the last
# three the claim itself where it is the same (always, for ASCII text).
Folded = tuple[str, str, str, str]


class _Keys:
    """The keys of a memory's claims, each text folded once."""

    def __init__(self) -> None:
        self.found: dict[str, None] = {}
        # Each legacy key and the key of the same text by today's fold.
        self.legacy: dict[str, str] = {}
        self._folded: dict[str, Folded] = {}

    def fold(self, text: str) -> Folded:
        if not text:
            return ("", "", "", "")
        pair = self._folded.get(text)
        if pair is None:
            claim = claim_text(text)
            old = claim if text.isascii() else legacy_claim_text(text)
            written = written_claim_text(text) if may_escape(text) else claim
            cased = claim if text.isascii() else cased_claim_text(text)
            pair = self._folded[text] = (claim, old, written, cased)
        return pair

    def add(self, pair: Folded, words: int) -> None:
        """Key `pair` when its claim has at least `words` words."""
        claim, old, written, cased = pair
        if claim and claim.count(" ") + 1 >= words:
            key = _key(claim)
            self.found[key] = None
            if old and old != claim:
                self.found[_key(old)] = None
                self.legacy[_key(old)] = key
            if written and written != claim:
                self.found[_key(written)] = None
            if cased and cased != claim:
                self.found[_key(cased)] = None

    def sentences(self, text: str, words: int) -> list[Folded]:
        """Key each sentence of `text`; returns them all, for the seams."""
        pairs = [self.fold(part) for part in sentences(text)]
        for pair in pairs:
            self.add(pair, words)
        return pairs

    def trims(self, pair: Folded) -> None:
        """Key `pair`'s claim with up to TRIM words left off either end, where
        at least SENTENCE_WORDS remain: a forgotten sentence said again inside
        a longer one ("FYI ...", "So ...", "..., as before"); by the fold of
        small letters too."""
        for claim in dict.fromkeys((pair[0], pair[3])):
            words = claim.split()
            for start in range(TRIM + 1):
                for end in range(
                    len(words), max(len(words) - TRIM, start + SENTENCE_WORDS) - 1, -1
                ):
                    if (start, end) != (0, len(words)):
                        self.found[_key(" ".join(words[start:end]))] = None

    def seams(self, fields: Sequence[Sequence[Folded]], words: int, *, trim: bool = False) -> None:
        """A sentence split between fields, in any order: the last sentence
        of one run on into the first of another, and on through each field
        that is one sentence into the next ("Deploys freeze" | "on Fridays
        after the" | "release branch is cut"); with `trim`, each with its
        ends trimmed too (`trims`: a write's, never a tombstone's)."""
        ends = [pairs for pairs in fields if pairs]

        def run_on(joined: Folded, used: frozenset[int]) -> None:
            for at, then in enumerate(ends):
                if at not in used:
                    further = _joined(joined, then[0])
                    self.add(further, words)
                    if trim:
                        self.trims(further)
                    if len(then) == 1:
                        run_on(further, used | {at})

        for at, first in enumerate(ends):
            run_on(first[-1], frozenset({at}))


def _joined(first: Folded, then: Folded) -> Folded:
    one, two, three, four = (f"{a} {b}".strip() for a, b in zip(first, then, strict=True))
    return (one, two, three, four)


def other_texts(memory: Memory) -> list[str]:
    """The free-text fields besides summary and details where a claim of
    several words can sit: the source quote first, then the rest."""
    tags = list(memory.tags)
    if len(tags) > 1:
        tags.append(" ".join(memory.tags))  # a sentence spread over several tags
    # A single word ("billing", "decision") is never keyed alone: skip folding it.
    rest = [text for text in (*tags, memory.source_ref, memory.event_type) if not one_word(text)]
    return [memory.source_quote, *rest]


def keys(
    summary: str, details: str, others: Sequence[str] = (), seamed: Sequence[str] | None = None
) -> list[str]:
    """What a new memory is checked by: its whole summary and details, the
    other text fields whole, every sentence of each, and each sentence split
    between two of summary, details and `seamed` (by default the first of
    `others`, the source quote); each of summary, details and their
    sentences with up to TRIM words left off either end (`_Keys.trims`);
    all of it again with each camelCase identifier read as its words
    (`identifiers.spaced`: "UseTabsInTheMakefile" says "use tabs in the
    Makefile", as recall reads it), and again with each digit joined to a
    letter beside it (`identifiers.glued`); without repeats."""
    claims = _Keys()
    texts = [summary, details, *others]
    _check(claims, texts, seamed)
    done = [(texts, seamed)]
    for read in READINGS:
        split = [read(text) for text in texts]
        split_seamed = None if seamed is None else [read(text) for text in seamed]
        if (split, split_seamed) not in done:
            _check(claims, split, split_seamed)
            done.append((split, split_seamed))
    return list(claims.found)


def _check(claims: _Keys, texts: Sequence[str], seamed: Sequence[str] | None) -> None:
    """`keys` of the summary, details and other fields `texts`, into `claims`."""
    summary, details, *others = texts
    for text in (summary, details):
        claims.add(claims.fold(text), 1)
    for text in others:
        claims.add(claims.fold(text), MIN_WORDS)
    parts = [claims.sentences(text, MIN_WORDS) for text in texts]
    ends = parts[2:3] if seamed is None else [claims.sentences(t, MIN_WORDS) for t in seamed]
    claims.seams([*parts[:2], *ends], MIN_WORDS, trim=True)
    for pair in (claims.fold(summary), claims.fold(details), *(p for ps in parts for p in ps)):
        claims.trims(pair)


# What an agent forgot of its own partition without a person (`withdrawn`):
# the content keys bind what agents write, never a person's write or what a
# person reads, and stay in this store (no team ledger line, no export). An
# agent's forget of its own note must keep the note from coming back through
# an agent; it must not let an agent keep a person's content out, as a
# forgotten or rejected tombstone does for everyone.
FORGOTTEN, REJECTED, WITHDRAWN = "forgotten", "rejected", "withdrawn"

_FIND_ANY = (
    "SELECT content_hash, kind, created_at, memory_id, project FROM content_tombstones"
    " WHERE project = ? AND content_hash IN (SELECT value FROM json_each(?))"
)
# A person's: every kind but an agent's withdrawal.
_FIND = _FIND_ANY + f" AND kind != '{WITHDRAWN}'"
# A person's forget, not a review's rejection of a waiting row.
_FIND_FORGOTTEN = _FIND_ANY + f" AND kind = '{FORGOTTEN}'"


def matching(
    db: Db, project: str | None, hashes: Sequence[str], *, agent: bool = False
) -> list[Any]:
    """The tombstones among `hashes` (content_hash, kind, created_at,
    memory_id, project) that a write into `project` answers to: those of the stores
    `db` answers to (`answer_to`), then the project's own, so where both hold
    a key the store's own record is the one named. An `agent`'s write also
    answers to what an agent withdrew (WITHDRAWN). Of another store, a
    person's write answers only to what was forgotten, not to a review's
    rejection there: rejecting a waiting note says it does not belong in that
    store, not that its content is gone (`read/forgotten_here.py` hides by
    the same rule). An agent's still answers to it: it may not propose again
    anywhere what a person turned down."""
    found: list[Any] = []
    wanted = jsontext.dumps(list(hashes))
    sql = _FIND_ANY if agent else _FIND
    across = sql if agent else sql + f" AND kind != '{REJECTED}'"
    for source in db.answers_to:
        other = source()
        if other is not None:
            found += other[0].execute(across, (other[1], wanted))
    return found + db.execute(sql, (project or "", wanted)).fetchall()


_ANY = "SELECT 1 FROM content_tombstones WHERE project = ? LIMIT 1"


def any_answered(db: Db, project: str | None) -> bool:
    """Whether a write into `project` answers to any tombstone at all (its
    own, or those of the stores `db` answers to): most stores hold none, and
    then nothing of a write need be keyed past its claims."""
    for source in db.answers_to:
        other = source()
        if other is not None and other[0].execute(_ANY, (other[1],)).fetchone() is not None:
            return True
    return db.execute(_ANY, (project or "",)).fetchone() is not None


def memory_ids(db: Db, project: str) -> set[str]:
    """The ids of the memories `project`'s tombstones were recorded for: the
    ids this store forgot, which no import may take, whoever imports. An
    agent's withdrawal names its id for a person's import too, though its
    hashes bind agents only: the same row back under the same id is the
    withdrawn note again (a backup's), and `audit verify` holds no tombstoned
    id to a kept row; the file's row may come in under a new id."""
    sql = "SELECT memory_id FROM {} WHERE project = ?"
    both = f"{sql.format('tombstone_ids')} UNION {sql.format('content_tombstones')}"
    return {str(row[0]) for row in db.execute(both, (project, project))}


def forgotten_hashes(db: Db, project: str) -> Iterator[str]:
    """The hashes a person's forgets in `project` tombstoned, in order: what
    a hash of them (`team/ledger_carried.forgets_print`) says moved."""
    sql = "SELECT content_hash FROM content_tombstones WHERE project = ? AND kind = ? ORDER BY 1"
    for row in db.execute(sql, (project, FORGOTTEN)):
        yield str(row[0])


def forgotten_ids(db: Db, project: str) -> set[str]:
    """The ids of the memories a person's forget in `project` took (not a
    review's rejection, whose row stays; not an agent's withdrawal)."""
    sql = "SELECT memory_id FROM {} WHERE project = ? AND kind = ?"
    both = f"{sql.format('tombstone_ids')} UNION {sql.format('content_tombstones')}"
    return {str(row[0]) for row in db.execute(both, (project, FORGOTTEN, project, FORGOTTEN))}


def held(db: Db, project: str, hashes: Sequence[str], *, forgets_only: bool = False) -> set[str]:
    """The keys among `hashes` that `project`'s own tombstones in `db` hold,
    not those of the stores `db` answers to: what a read of another store's
    rows hides by (`read/forgotten_here.py`); with `forgets_only`, a person's
    forgets alone (FORGOTTEN), not a review's rejection. One probe of the
    primary key per key."""
    if not hashes:
        return set()
    sql = _FIND_FORGOTTEN if forgets_only else _FIND
    return {row[0] for row in db.execute(sql, (project, jsontext.dumps(list(hashes))))}


def quoted(db: Db, project: str, texts: Iterable[str], *, forgets_only: bool = False) -> bool:
    """Whether any of `texts` holds what `project`'s own tombstones in `db`
    hold (`held`), each read as a write of it is checked (`keys`: whole and
    sentence by sentence): a summary node's entries, the fields a newer
    Tree Ring added to a ledger line. Linear in the texts' length."""
    wanted = list(dict.fromkeys(key for text in texts for key in keys(text, "")))
    return bool(held(db, project, wanted, forgets_only=forgets_only))


def answered(db: Db, project: str, hashes: Sequence[str]) -> set[str]:
    """The keys among `hashes` that a write into `project` answers to: held by
    its own tombstones or by those of a store `db` answers to (`answer_to`).
    What a carried re-admission is checked by (`write/readmit.waiting_here`)."""
    if not hashes:
        return set()
    return {row[0] for row in matching(db, project, hashes)}


def answer_to(db: Db, source: Callable[[], tuple[Db, str] | None]) -> None:
    """Make every write into `db` refuse what another store forgot as well:
    `source` gives that store's Db and the project its tombstones are under
    (None when it does not exist), asked at each check, never before one.

    A project's brief reads two stores, the project's and the person's user
    store, so what either forgot must stay out of both: a global write made
    in a project answers to the project's tombstones, and a write into the
    project answers to the user store's (`store/user.py`, `pair`). Only the
    own store's tombstones are written; the other's are only read."""
    db.answers_to.append(source)


def find(db: Db, project: str | None, hashes: Sequence[str]) -> Any:
    """The first tombstone (in `hashes` order) among `hashes`, or None."""
    found = {row[0]: row for row in matching(db, project, hashes)}
    return next((found[h] for h in hashes if h in found), None)


def binds(stone: Any, memory: Memory) -> bool:
    """Whether tombstone `stone` refuses `memory` as a write. A forget's and
    a withdrawal's refuse every row holding their words. A review's
    rejection turns a claim down, not the record of one: the row it
    rejected stays on record with its words, so neither that row restored
    as rejected nor another retired row (superseded, refuted or retired: it
    makes no claim now) is refused by it; a person's note retired before an
    agent proposed the same words, and rejected, still imports, and every
    clone keeps its ledger line."""
    if stone["kind"] != REJECTED:
        return True
    retired = memory.retired_at is not None or memory.superseded_by is not None
    return not retired and not (memory.trust == REJECTED and stone["memory_id"] == memory.id)


class Refused(Conflict):
    """A write of tombstoned content refused: the tombstone's kind and memory."""

    def __init__(self, message: str, kind: str, memory_id: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.memory_id = memory_id


def refused(stone: Any) -> Refused:
    """The error for a write of tombstoned content: when and which, never why
    (the audit log of the store that forgot it does: the user store's is read
    with `--user`). A withdrawal (an agent's forget, import or ledger claim)
    refuses agents only."""
    from tree_ring.model.user_home import USER_PROJECT

    kind, memory_id = stone["kind"], stone["memory_id"]
    verbs = {FORGOTTEN: "forgotten", WITHDRAWN: "withdrawn by an agent"}
    verb = verbs.get(kind, "rejected in review")
    who = "no agent will store it again" if kind == WITHDRAWN else "will not be stored again"
    where = " --user" if stone["project"] == USER_PROJECT else ""
    # A person's forget (an expiry is one) is the one a person may write
    # over, on purpose and for review: say how, as the error for it.
    again = "; a person writes it again with `remember ... --override-tombstone --reason WHY`"
    again = f"{again} (it then waits for `review approve`)" if kind == FORGOTTEN else ""
    # A withdrawal refuses agents only, and its id may be another partition's
    # note: named to no one ("no memory" to another agent's `show`).
    said = "" if kind == WITHDRAWN else f" (as {memory_id})"
    why = "" if kind == WITHDRAWN else f"; `tree-ring audit --target {memory_id}{where}` shows why"
    return Refused(
        f"this content was {verb} on {stone['created_at'][:19]}Z{said} and {who}{why}{again}",
        str(kind),
        str(memory_id),
    )


def refuse_if_tombstoned(db: Db, memory: Memory, allowed: Iterable[str] = ()) -> None:
    """Raise for tombstoned content, but for the keys in `allowed` (those a
    person wrote the memory over, `write/readmit.py`)."""
    skip = set(allowed)
    stone = find(db, memory.project, [k for k in check_keys(memory) if k not in skip])
    if stone is not None:
        raise refused(stone)


def find_all(db: Db, project: str | None, hashes: Sequence[str]) -> list[Any]:
    """Every tombstone among `hashes`, in `hashes` order."""
    found = {row[0]: row for row in matching(db, project, hashes)}
    return [found[h] for h in dict.fromkeys(hashes) if h in found]


_INSERT = (
    "INSERT INTO content_tombstones"
    "(project, content_hash, kind, reason, memory_id, actor, created_at)"
    " VALUES (?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT(project, content_hash) DO UPDATE SET"
    " kind = excluded.kind, reason = excluded.reason, memory_id = excluded.memory_id,"
    " actor = excluded.actor, created_at = excluded.created_at"
)


def record(
    db: Db,
    project: str | None,
    hashes: Iterable[str],
    *,
    kind: str,
    reason: str,
    memory_id: str,
    actor: str,
    at: str,
) -> list[str]:
    """Tombstone `hashes` for `project`; returns them, for the audit entry.
    An agent's withdrawal never replaces a tombstone held: it would lower a
    person's forget to one that binds only agents."""
    written = list(dict.fromkeys(hashes))
    stones = [(project or "", h, kind, reason, memory_id, actor, at) for h in written]
    db.executemany(_INSERT_OVER_WITHDRAWN if kind == WITHDRAWN else _INSERT, stones)
    _named(db, stones, _NAME_OVER_WITHDRAWN if kind == WITHDRAWN else _NAME)
    return written


# Each memory a hash was tombstoned as (`store/tombstone_ids.py`), kept as the
# hash's own row is: a forget here dates and kinds its id's anew, and a held
# withdrawal gives way to anything else. One brought in (a ledger line, an
# import) of the same kind and later dates it too: two clones that forgot
# the same memory before either synced then both say the later forget, the
# line a merge keeps (`team/ledger.rank`), rather than each its own for ever.
_NAME = (
    "INSERT INTO tombstone_ids(project, memory_id, content_hash, kind, created_at)"
    " VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET"
    " kind = excluded.kind, created_at = excluded.created_at"
)
_NAME_OVER_WITHDRAWN = (
    _NAME + f" WHERE tombstone_ids.kind = '{WITHDRAWN}' AND excluded.kind != '{WITHDRAWN}'"
)
_NAME_BROUGHT = (
    _NAME_OVER_WITHDRAWN + " OR (excluded.kind = tombstone_ids.kind"
    " AND excluded.created_at > tombstone_ids.created_at)"
)


def _named(db: Db, stones: Sequence[Sequence[str]], sql: str) -> None:
    """Record the memory each of `stones` names for its hash, beside the hash's
    own row: (project, content_hash, kind, reason, memory_id, actor, created_at)."""
    db.executemany(sql, [(s[0], s[4], s[1], s[2], s[6]) for s in stones])


# A held withdrawal gives way to a forget or a rejection brought in: it bound
# agents only, and what a person forgot binds everyone.
# (A withdrawal brought over any held tombstone changes nothing.)
_INSERT_OVER_WITHDRAWN = (
    _INSERT + f" WHERE content_tombstones.kind = '{WITHDRAWN}' AND excluded.kind != '{WITHDRAWN}'"
)


def changing(db: Db, stones: Sequence[Sequence[str]]) -> list[Sequence[str]]:
    """The `stones` (as `record_absent` takes them) that it would record: one
    this store does not hold, or holds as a withdrawal where the stone is
    not one. An import of a file whose tombstones are all held records, and
    logs, nothing."""
    sql = "SELECT kind FROM content_tombstones WHERE project = ? AND content_hash = ?"
    out: list[Sequence[str]] = []
    for stone in stones:
        held = db.execute(sql, (stone[0], stone[1])).fetchone()
        if held is None or (held[0] == WITHDRAWN and stone[2] != WITHDRAWN):
            out.append(stone)
    return out


def record_absent(db: Db, stones: Iterable[Sequence[str]], *, named: bool = True) -> None:
    """Insert tombstones that are not yet held, keeping any held one as it is
    but a withdrawal, which a forgotten or rejected one replaces:
    (project, content_hash, kind, reason, memory_id, actor, created_at) each.
    What a ledger or an import brings, where the store's own record wins.
    Without `named`, the memories they name are not recorded
    (`store/tombstone_ids.py`): content kept out, that the team ledger no
    longer names (a line only its history holds), says no line of its own."""
    stones = [tuple(s) for s in stones]
    db.executemany(_INSERT_OVER_WITHDRAWN, stones)
    if named:
        _named(db, stones, _NAME_BROUGHT)


def of_project(db: Db, project: str) -> list[Any]:
    """Every tombstone of `project` an export carries (an agent's withdrawal
    stays in this store), oldest first, all columns."""
    sql = (
        f"SELECT * FROM content_tombstones WHERE project = ? AND kind != '{WITHDRAWN}'"
        " ORDER BY created_at"
    )
    return db.query(sql, (project,))


def _names(memory: Memory) -> list[str]:
    """The identifiers a caller or a file fills (agent profile, workflow,
    session, operation). They make no claim, so forgetting keys none of them;
    but a write is checked over them as over its text, so forgotten words
    cannot come back as a name, in any spelling ("deploy-only-from-main")."""
    names = (memory.agent_profile, memory.workflow_id, memory.session_id, memory.operation_id)
    found = [name for name in names if name and not one_word(name)]
    # A file's own id ("mem_<forgotten words>"), not one Tree Ring made.
    if memory.id and not generated_id(memory.id):
        found.append(memory.id.removeprefix("mem_"))
    return found


def _record_said(memory: Memory) -> list[str]:
    """A Revolve record's words without those naming its file (`synced.said`)."""
    if not memory.summary.startswith("Revolve "):
        return []
    from tree_ring.store import synced

    said = synced.said(memory)
    return [said] if said else []


def check_keys(memory: Memory) -> list[str]:
    """What a new memory is checked against: every key of its content and of
    its identifiers, and its whole-content hash (what tombstones written
    before claim keys existed hold)."""
    # A place is no claim here either: a note whose words are a session's
    # ref, forgotten, must not refuse (or take as copies) that session's notes.
    where = place(memory)
    others = [*claim_texts(memory, where), *_names(memory), *_record_said(memory)]
    # A claim split between two of the fields a brief shows as one line: the
    # summary, details, quote, source ref and tags (all of them read as one).
    ref = "" if where else memory.source_ref
    seamed = [memory.source_quote, ref, " ".join(memory.tags)]
    return [*keys(memory.summary, memory.details, others, seamed), memory.content_hash]


# team/sync.py carries at most this many keys for one tombstone.
MAX_KEYS = 1_000


def forget_keys(memory: Memory) -> list[str]:
    """What forgetting or rejecting `memory` tombstones: its whole summary and
    details, the two as one text, its other text fields whole, the longer
    sentences of a summary of several and the one across the seam between
    summary and details (by today's fold and the legacy one), and its
    whole-content hash (which older Tree Ring versions check)."""
    claims = _forget_claims(memory)
    return [*list(claims.found)[: MAX_KEYS - 1], memory.content_hash]


def _forget_claims(memory: Memory) -> _Keys:
    """The claims of `memory` as written and, where it names a camelCase
    identifier, with each read as its words (`identifiers.spaced`), then
    with each digit joined to a letter beside it too (`identifiers.glued`):
    a forgotten "Set maxUnavailable to 0 for deploys" is not written again
    as "Set max unavailable to 0 for deploys", nor "maxUnavailable is 1" as
    `MaxUnavailableIs1`."""
    claims = _Keys()
    _forget_into(claims, memory)
    fields = (memory.summary, memory.details, memory.source_quote, memory.source_ref)
    done = [(list(fields), memory.tags)]
    for read in READINGS:
        split = [read(text) for text in fields]
        tags = tuple(read(tag) for tag in memory.tags)
        if (split, tags) in done:
            continue
        done.append((split, tags))
        summary, details, quote, ref = split
        changed = {"summary": summary, "details": details, "source_quote": quote}
        _forget_into(claims, memory.replace(**changed, source_ref=ref, tags=tags))
    return claims


def _forget_into(claims: _Keys, memory: Memory) -> None:
    summary, details = claims.fold(memory.summary), claims.fold(memory.details)
    for pair in (summary, details, _joined(summary, details)):
        claims.add(pair, 1)
    # A consolidation's sentences are its sources' claims: forgetting the
    # summary forgets the summary, not each memory it lists.
    if memory.source_type != "consolidation":
        for text in claim_texts(memory):
            claims.add(claims.fold(text), SENTENCE_WORDS)
        # A Revolve record's words, without the file's: the same record in
        # another file, or its words alone, say the same thing.
        for text in _record_said(memory):
            claims.add(claims.fold(text), SENTENCE_WORDS)
        # A summary of several sentences makes several claims, each forgotten.
        # Details and the other fields are forgotten whole: their sentences are
        # often boilerplate that many memories share (a template's paragraph,
        # "See the runbook for the steps"), and forgetting one memory must not
        # refuse all the others. A write is still checked sentence by sentence
        # against these keys, so the forgotten text is refused wherever it sits.
        parts = sentences(memory.summary)
        if len(parts) > 1:
            head = claims.sentences(memory.summary, SENTENCE_WORDS)
        else:
            head = [summary] if summary[0] else []
        tail = [claims.fold(part) for part in sentences(memory.details)]
        claims.seams([head, tail], SENTENCE_WORDS)


def claim_texts(memory: Memory, where: str | None = None) -> list[str]:
    """`other_texts` but a source ref that is a place, not a claim
    (`place`, or `where` when the caller found it): what forgetting `memory`
    keys of its other fields."""
    where = place(memory) if where is None else where
    return [text for text in other_texts(memory) if text != where]


def place(memory: Memory) -> str | None:
    """`memory`'s source ref when it says only where the words came from:
    a file sync's (`AGENTS.md#rules-1`: the file keeps the place, and its
    next text there must stay writable, `sources/filesync.py`), or the
    session a note was written in (`session:ID`, and `:PROFILE` for a
    subagent, as the stop hook's capture writes it: every capture of the
    session holds it, and forgetting one must not refuse the others).
    A write is still checked over it, as over the session's id."""
    ref, session = memory.source_ref, memory.session_id
    if session and ref.startswith(f"session:{session}"):
        tail = ref[len(f"session:{session}") :]
        if not tail or (memory.agent_profile and tail == f":{memory.agent_profile}"):
            return ref
    if memory.scope != memory.source_type:  # no file sync's row (`synced.wrote`)
        return None
    # Imported here: the hook loads this module to read keys, and never forgets.
    from tree_ring.store import synced

    return ref if synced.wrote(memory) else None


def whole_keys(memory: Memory) -> set[str]:
    """The keys of `memory`'s summary and details as one text: two memories
    whose keys meet are copies of one claim in spellings the fold makes one."""
    claims = _Keys()
    claims.add(_joined(claims.fold(memory.summary), claims.fold(memory.details)), 1)
    return set(claims.found)


def legacy_keys(memory: Memory) -> dict[str, str]:
    """Each legacy key `forget_keys(memory)` holds (a non-ASCII text folded by
    case alone), with the key of the same text by today's fold."""
    return _forget_claims(memory).legacy
