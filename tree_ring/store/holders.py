"""Which live memories hold a claim, by the keys `store/tombstones.py` makes.

Three questions a forget or a rejection asks before it tombstones anything:
- `holding`: the project's memories a tombstone bearing some keys would
  refuse, so would take from every clone built from the team ledger (an
  unvouched tombstone that holds a kept memory's words must ask, not act);
- `refused_rows`: the other memories a forget or rejection would refuse as
  a write, so takes with it (`write/correct.same_claim`);
- `unheld`: of the keys a forget would record, those no other accepted
  memory the store keeps holds (a tombstone bearing a kept memory's claim
  would keep it out of every clone, and out of an import of the store's
  own export, while this store shows it).

The full-text index names the candidates by the claim's words, as written
and as the claim reads them, and SQLite those the index cannot; only those
have their keys computed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from tree_ring.model import jsontext
from tree_ring.model.fold import searchable
from tree_ring.model.identifiers import spaced
from tree_ring.model.record import Memory
from tree_ring.store import rows
from tree_ring.store.sql import Db
from tree_ring.store.tombstones import (
    check_keys,
    claim_text,
    forget_keys,
    legacy_keys,
    other_texts,
    sentences,
    whole_key,
    whole_keys,
)

_LIVE = (
    "SELECT * FROM memories WHERE project = ? AND retired_at IS NULL"
    " AND redacted_at IS NULL AND trust != 'rejected'"
)


def holding(db: Db, project: str | None, hashes: Iterable[str]) -> list[Memory]:
    """The project's memories not yet forgotten (not retired, redacted or
    rejected) whose write any of `hashes` would refuse (`check_keys`: a
    sentence of its details too): what a tombstone bearing those hashes
    takes from every clone built from the ledger, whatever id it names. An
    unvouched tombstone (a team ledger claim, an agent's import), or a
    person's naming another id, that holds a held memory's words must ask to
    forget that memory, not keep it here while every fresh clone refuses it."""
    wanted = set(hashes)
    if not wanted:
        return []
    found: list[Memory] = []
    for row in db.execute(_LIVE, (project or "",)):
        memory = rows.from_row(row)
        if not wanted.isdisjoint(check_keys(memory)):
            found.append(memory)
    return found


# Retired rows too: the one asking says which of those hold (`holds`).
_HOLDERS = (
    "SELECT * FROM memories WHERE project = :project AND id != :id"
    " AND redacted_at IS NULL AND trust = 'accepted'"
    " AND (content_hash IN (SELECT value FROM json_each(:hashes)){words}{unindexed})"
)
_HOLDING_WORDS = " OR rowid IN (SELECT rowid FROM memory_fts WHERE memory_fts MATCH :match)"


def _words_of(memory: Memory) -> str:
    """FTS5 text matching the rows that hold all the words of a sentence of
    `memory`'s summary, or of one of its text fields whole, as written or
    as its claim reads (`claim_text`: "Note:" left out, look-alike letters
    read as the letters they look like), or as its identifiers' words
    (`spaced`), or in a spelling that joins its digits to other letters
    (`_glue_free`): every row that can share a claim key with it; empty for
    a memory with no words."""
    from tree_ring.store import fts

    texts = [*sentences(memory.summary), memory.summary, memory.details, *other_texts(memory)]
    spellings = [
        words
        for text in texts
        for words in (
            re.findall(r"\w+", searchable(text).lower()),
            claim_text(text).split(),
            claim_text(spaced(text)).split(),
        )
    ]
    groups = {" AND ".join(sorted({fts.quote(w) for w in words})) for words in spellings}
    groups |= {_glue_free(words) for words in spellings}
    return " OR ".join(f"({group})" for group in sorted(groups) if group)


def _glue_free(words: list[str]) -> str:
    """FTS5 text for `words` (a claim's, in order) in any spelling that joins
    a digit to a letter beside it, as the tombstones read a text
    (`identifiers.glued`): "run 2fa check on v2 api" is indexed as
    `Run2faCheckOnV2Api`'s parts (`run2`, `fa`, `v2`, `api`) or as written
    (`2fa`, `v2api`), so a word holding a digit is left out, a word before one
    that starts with a digit asked as a prefix (`run` of `run2`), and a word
    after one that ends with a digit left out (`api` of `v2api`). Every
    spelling starts a word with the claim's first letters or digits, which
    are asked as a prefix too (`2` of `2fa 2fa`, `2fa2fa` and `2 fa 2 fa`).
    Empty when no word holds a digit: the plain group covers it."""
    from tree_ring.store import fts

    if not any(any(c.isdigit() for c in word) for word in words):
        return ""
    lead = re.match(r"\d+|[^\W\d]+", words[0])
    kept: set[str] = {fts.quote(lead.group()) + "*"} if lead else set()
    for i, word in enumerate(words):
        if any(c.isdigit() for c in word) or (i and words[i - 1][-1].isdigit()):
            continue
        after = words[i + 1] if i + 1 < len(words) else ""
        kept.add(fts.quote(word) + ("*" if after[:1].isdigit() else ""))
    return " AND ".join(sorted(kept))


def _longest_word(memory: Memory) -> str:
    """The longest word of `memory`'s summary, as `_UNINDEXED` looks for it
    in the fields the index does not hold; empty for a summary of none."""
    return max(re.findall(r"\w+", searchable(memory.summary).lower()), key=len, default="")


_SAME_CLAIM = (
    "SELECT * FROM memories WHERE project IS :project AND id != :id{live}"
    " AND redacted_at IS NULL AND (content_hash = :hash{words}{unindexed})"
    " ORDER BY created_at, id"
)
# What the index cannot name: the claim in letters the index does not fold
# (another script's look-alikes inside a word: any text not plain ASCII), or
# in a field it does not hold (the source's quote or reference, holding the
# claim's longest word). SQLite tests each row in C; only the few it names
# have their keys computed.
_UNINDEXED = (
    " OR length(CAST(summary || details || tags AS BLOB)) != length(summary || details || tags)"
    " OR instr(lower(source_quote || ' ' || source_ref), :word) > 0"
)


def refused_rows(db: Db, memory: Memory, *, retired: bool = False) -> list[Memory]:
    """The project's other memories, not retired (but with `retired`) and
    not redacted (any trust state), that forgetting or rejecting `memory`
    would refuse as a write:
    those whose `check_keys` meet its `forget_keys`. So what a forget or a
    rejection takes with it (`write/correct.same_claim`) is what its
    tombstone says is the same claim: an exact copy, and a copy in another
    spelling the fold makes one ("load-tests", "Load tests."), or with the
    claim as one sentence of a longer text. Oldest first.

    The full-text index names the candidates (those holding every word of one
    of `memory`'s keyed texts, or its very content), and SQLite those the
    index cannot (`_UNINDEXED`: text that is not plain ASCII, a source quote
    or reference holding the claim's longest word); only those have their
    keys computed."""
    match, word = _words_of(memory), _longest_word(memory)
    params = {
        "project": memory.project,
        "id": memory.id,
        "hash": memory.content_hash,
        "match": match,
        "word": word,
    }
    sql = _SAME_CLAIM.format(
        live="" if retired else " AND retired_at IS NULL",
        words=_HOLDING_WORDS if match else "",
        unindexed=_UNINDEXED if word else "",
    )
    wanted = set(forget_keys(memory))
    found = [rows.from_row(row) for row in db.execute(sql, params)]
    return [row for row in found if not wanted.isdisjoint(check_keys(row))]


def _summarises(holder: Memory, memory: Memory) -> bool:
    """Whether `holder` is a consolidation citing `memory`: it holds the
    claim only because `memory` does, and the forget or rejection of
    `memory` rewrites it without it (`write/propagate.forgotten`), so it
    keeps none of `memory`'s claims writable."""
    return holder.source_type == "consolidation" and any(
        link.target == memory.id for link in holder.links
    )


def unheld(
    db: Db,
    memory: Memory,
    hashes: Sequence[str],
    holds: Callable[[Memory], bool],
    *,
    proposal: bool = False,
) -> list[str]:
    """Of `hashes` (what forgetting or rejecting `memory` would tombstone),
    those no other accepted memory of the project that `holds` says yes to
    (live, or retired and kept on record) is written with (a waiting one is
    a proposal: forgetting its twin still keeps it out). A tombstone
    bearing a kept memory's claim would keep that memory out of every clone
    built from the ledger and refuse it from the store's own export, while
    the store keeps it: rejecting an agent's copy of a person's memory must
    not forget the person's.

    A memory holding one of the claims holds all the words of a sentence (or
    a whole text field) of `memory`, so the full-text index names the few
    that can (every group's words, or the same whole content), SQLite those
    the index cannot (`_UNINDEXED`: another script's look-alikes, a source's
    quote or reference), as for `refused_rows`, and only those have their
    claims computed. Only the memories `holds` says yes to hold a claim (a
    forget counts the live ones and the retired ones a person stands
    behind, `admission.keeps_words`; a rejection those a person stands
    behind that hold now, `admission.shields`).

    `memory`'s content hash, which folds less than a claim, is held by a copy
    of its whole claim in another spelling; for a `proposal` (an agent's
    memory no person vouched for), by any memory holding its whole claim, as
    one sentence of a longer note too: clearing an agent's proposal must not
    refuse a claim a person's note makes, while a person's own forget keeps
    that very memory from coming back however their other notes quote it."""
    match, word = _words_of(memory), _longest_word(memory)
    params = {
        "project": memory.project,
        "id": memory.id,
        "hashes": jsontext.dumps(list(hashes)),
        "match": match,
        "word": word,
    }
    held: set[str] = set()
    wanted = set(hashes)
    sql = _HOLDERS.format(
        words=_HOLDING_WORDS if match else "", unindexed=_UNINDEXED if word else ""
    )
    found = list(db.execute(sql, params))
    # The person's own notes read beside the project (their user store's)
    # hold its words too: a forget here would hide such a note in this
    # project and refuse its writes (clearing an agent's copy of a global
    # note, or the person's own project copy of it).
    for source in db.answers_to:
        other = source()
        if other is not None:
            found += other[0].execute(sql, {**params, "project": other[1]})
    whole = whole_keys(memory)
    for row in found:
        holder = rows.from_row(row)
        if holds(holder) and not _summarises(holder, memory):
            mine = wanted.intersection(check_keys(holder))
            held.update(mine)
            # A copy of the whole claim, or a memory that says it as a whole
            # field of its own (the same summary, with details of its own).
            copy = not whole.isdisjoint(whole_keys(holder)) or not whole.isdisjoint(
                filter(None, (whole_key(holder.summary), whole_key(holder.details)))
            )
            if copy or (proposal and holder.source_type != "consolidation"):
                # A copy in another spelling the fold makes one ("cаche" in
                # Cyrillic letters) holds the content hash, which folds less:
                # refusing it would refuse the claim as `memory` spells it
                # while the copy keeps it in every read. (A consolidation
                # lists its sources' claims and drops a forgotten one.)
                if not whole.isdisjoint(mine):
                    held.add(memory.content_hash)
    # A text's legacy key (its non-ASCII letters folded by case alone) goes
    # with its key by today's fold: a memory holding the claim in Latin
    # letters holds the look-alike spelling's legacy key too.
    held.update(old for old, key in legacy_keys(memory).items() if key in held)
    return [key for key in hashes if key not in held]
