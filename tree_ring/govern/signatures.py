"""Which earlier word sets are near a new one, without reading them all.

A contradiction shares at least `overlap` (3/4) of the two statements' words
(Jaccard, see claims.py). A write of many memories (an import) must
find, for each, the earlier ones that close; comparing every pair grows with
the square of the write, and a posting list per word does too once every word
is common (a small vocabulary, a project's house style). This is the prefix
filter of set-similarity joins, with an exact index on small signatures.

Order all words once (`_rank`). If A and B share s words, the k-th shared
word in that order lies within the first |A| - s + k words of A and the first
|B| - s + k of B (each set holds at most |X| - s words that are not shared).
A Jaccard of at least t needs s >= t * max(|A|, |B|) (`least`), so A's first
`prefix(|A|)` words and B's first `prefix(|B|)` words share the first k
shared words, and the k-subsets of those prefixes (the set's signatures) meet.
With k = min(3, |X|) and t >= 3/4, two sets that can reach t always take the
same k, and share at least k words. So every set within `overlap` of a new
one has a signature in common with it. Three words per signature keep the
sets met this way few when every word is common (a vocabulary of 200 words
gives a few per statement at 100,000 statements, where sharing one word gave
thousands), at about ten signatures per set of 6 to 12 words; each is then
held to the overlap exactly, from the words the index keeps of it.

Signatures are filed under the set's size, and a lookup asks each size
that could reach the overlap with the prefix that size needs. Two sets of
sizes a and b reach a Jaccard of t only if they share
s >= t * (a + b) / (1 + t) words (`shared`), more than t * max(a, b) where
the sizes are close, so the lookup's prefix for its own size and larger ones
is shorter (a - s + k words) than the one the set is filed with. Without
that, statements that differ in one rare word and share the rest ("line 17
alpha beta gamma", "line 18 alpha beta gamma": 5 shared of 7, under the
overlap) all hold the signature of their common words, and each new one is
checked against every earlier one: time that grows with the square of the
write. Looked up by size, the signature of the common words is asked only
of sizes where 5 shared words would be enough, and there are none.

The order is the reverse of first sight: a word first seen late is likely
rare, and a prefix of rare words gives signatures few other sets hold. Any
fixed order is complete; this one only keeps the sets met few.

A set of more than `LONG` words has too many signatures to index (k-subsets
of a long prefix); it is listed, and checked against every query whose size
could reach it. Signatures are 36-bit hashes, so two can collide: that only
adds a set to check. What the index keeps is compact (words as numbers in
arrays, signatures packed in one array), some tens of bytes per set.
"""

from __future__ import annotations

import itertools
import math
from array import array
from collections.abc import Collection

K = 3
LONG = 24
KEY_BITS = 36
REF_BITS = 27
_KEY_MASK = (1 << KEY_BITS) - 1
_REF_MASK = (1 << REF_BITS) - 1


class Index:
    """Word sets, numbered from 0 in the order they are added; `find` returns
    the numbers of exactly those that share at least `overlap` of their words
    with a given set, as `compare_claims` measures it."""

    def __init__(self, overlap: float) -> None:
        if not 0.75 <= overlap <= 1:
            raise ValueError("signatures are complete for an overlap of 3/4 or more")
        self.overlap = overlap
        self._rank: dict[str, int] = {}
        self._table = _Table()
        self._long: list[int] = []  # numbers of the sets over LONG words
        # Each set's words, as ranks: set n is _words[_start[n]:_start[n + 1]].
        self._words = array("i")
        self._start = array("q", [0])
        # Per query size: (size looked up, prefix length, k) of each size it can reach.
        self._plans: dict[int, list[tuple[int, int, int]]] = {}

    def __len__(self) -> int:
        return len(self._start) - 1

    def least(self, size: int) -> int:
        """The fewest shared words with which a set of `size` words reaches the
        overlap, as `compare_claims` divides: s / size >= overlap."""
        s = min(size, math.ceil(self.overlap * size))
        while s > 0 and (s - 1) / size >= self.overlap:
            s -= 1
        while s < size and s / size < self.overlap:
            s += 1
        return s

    def prefix(self, size: int) -> int:
        """How many of a set's first words its signatures are made of, as it is filed."""
        return min(size, size - self.least(size) + min(K, size))

    def shared(self, a: int, b: int) -> int | None:
        """The fewest shared words with which sets of `a` and `b` words reach the
        overlap, as `reaches` divides (None: they never do)."""
        for s in range(1, min(a, b) + 1):
            if s / (a + b - s) >= self.overlap:
                return s
        return None

    def _plan(self, size: int) -> list[tuple[int, int, int]]:
        held = self._plans.get(size)
        if held is not None:
            return held
        plan: list[tuple[int, int, int]] = []
        for b in range(1, LONG + 1):
            s = self.shared(size, b)
            if s is not None:
                k = min(K, b)
                plan.append((b, min(size, size - s + k), k))
        self._plans[size] = plan
        return plan

    def ranked(self, words: Collection[str]) -> list[int]:
        """The words' ranks in the index's order, ascending."""
        rank = self._rank
        ranks: list[int] = []
        for word in words:
            at = rank.get(word)
            if at is None:
                at = rank[word] = -len(rank)
            ranks.append(at)
        ranks.sort()
        return ranks

    def signatures(self, ranks: list[int]) -> set[int]:
        """What a set is filed under: hashes of its size and each k-subset of its prefix."""
        size = len(ranks)
        prefix = ranks[: self.prefix(size)]
        k = min(K, size)
        return {hash((size, combo)) & _KEY_MASK for combo in itertools.combinations(prefix, k)}

    def probes(self, ranks: list[int]) -> set[int]:
        """What a lookup asks: for each size the set can reach, the k-subsets of
        the prefix that size needs, under that size."""
        keys: set[int] = set()
        for b, length, k in self._plan(len(ranks)):
            for combo in itertools.combinations(ranks[:length], k):
                keys.add(hash((b, combo)) & _KEY_MASK)
        return keys

    def reachable(self, size: int) -> bool:
        """Whether a set of `size` words can reach the overlap with a set of
        `LONG` words or fewer, and so must be looked up by its signatures."""
        return self.least(size) <= LONG

    def words(self, number: int) -> array[int]:
        """Set `number`'s words, as ranks."""
        return self._words[self._start[number] : self._start[number + 1]]

    def clear(self) -> None:
        """Forget every set, keep the order of words: sets filed elsewhere
        (`contradictions.Search` moves a written batch's to its store) keep
        their signatures."""
        self._table = _Table()
        self._long = []
        self._words = array("i")
        self._start = array("q", [0])

    def add(self, words: Collection[str]) -> int:
        """File a set of words; its number."""
        number = len(self)
        if number >= _REF_MASK:
            raise ValueError(f"an index holds at most {_REF_MASK - 1} sets")
        ranks = self.ranked(words)
        self._words.extend(ranks)
        self._start.append(len(self._words))
        if len(ranks) > LONG:
            self._long.append(number)
        elif ranks:  # an empty set reaches no overlap (nothing is shared)
            self._table.add(self.signatures(ranks), number)
        return number

    def find(self, words: Collection[str]) -> list[int]:
        """Numbers of the sets that share at least `overlap` of their words with
        `words` (of the union of the two), in order."""
        ranks = self.ranked(words)
        if not ranks:
            return []
        # Only a set of LONG words or fewer is signed, and only one that
        # could reach such a set needs its signatures.
        keys: set[int] = self.probes(ranks) if self.reachable(len(ranks)) else set()
        return self.find_ranked(ranks, keys)

    def find_ranked(self, ranks: list[int], keys: Collection[int]) -> list[int]:
        """`find` for a set already ranked, whose lookup keys (`probes`) are `keys`."""
        if not ranks:
            return []
        met: set[int] = set(self._long)
        met.update(self._table.find(keys))
        mine = set(ranks)
        return [n for n in sorted(met) if self.reaches(mine, self.words(n))]

    def reaches(self, mine: set[int], theirs: Collection[int]) -> bool:
        """Whether two sets of ranks share at least `overlap` of their words."""
        shared = len(mine.intersection(theirs))
        return bool(shared) and shared / (len(mine) + len(theirs) - shared) >= self.overlap


class _Table:
    """A multimap from 36-bit keys to 27-bit numbers, packed one entry to an
    int64 in open addressing (linear probing): a tenth of a dict's memory, so
    a write of a million memories keeps its signatures in some tens of MB."""

    def __init__(self, size: int = 1024) -> None:
        self.slots = array("q", bytes(8 * size))
        self.mask = size - 1
        self.used = 0

    def add(self, keys: Collection[int], number: int) -> None:
        """File `number` under each of `keys`."""
        while (self.used + len(keys)) * 2 > len(self.slots):
            self._grow()
        slots, mask = self.slots, self.mask
        for key in keys:
            at = key & mask
            while slots[at]:
                at = (at + 1) & mask
            slots[at] = key << REF_BITS | (number + 1)
        self.used += len(keys)

    def _grow(self) -> None:
        old = self.slots
        size = len(old) * 2
        slots = self.slots = array("q", bytes(8 * size))
        mask = self.mask = size - 1
        for entry in old:
            if entry:
                at = (entry >> REF_BITS) & mask
                while slots[at]:
                    at = (at + 1) & mask
                slots[at] = entry

    def find(self, keys: Collection[int]) -> list[int]:
        """The numbers filed under any of `keys` (some twice, if under two)."""
        slots, mask = self.slots, self.mask
        found: list[int] = []
        for key in keys:
            at = key & mask
            while entry := slots[at]:
                if entry >> REF_BITS == key:
                    found.append((entry & _REF_MASK) - 1)
                at = (at + 1) & mask
        return found
