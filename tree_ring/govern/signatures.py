"""Which earlier word sets could be near a new one, without reading them all.

A contradiction shares at least `overlap` (3/4) of the two statements' words
(Jaccard, see contradictions.py). A write of many memories (an import) must
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
one has a signature in common with it: the index is complete, and only
candidates come back, to be compared in full by the caller. Three words per
signature keep them selective when every word is common (a vocabulary of 200
words gives a few candidates per statement at 100,000 statements, where one
word gave thousands), at about ten signatures per set of 6 to 12 words.

The order is the reverse of first sight: a word first seen late is likely
rare, and a prefix of rare words gives signatures few other sets hold. Any
fixed order is complete; this one only keeps the candidates few.

A set of more than `LONG` words has too many signatures to index (k-subsets
of a long prefix); it is listed with its size, and returned to every query
whose size could reach it. Signatures are 36-bit hashes, so two can collide:
that adds a candidate, never loses one.
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
    """Word sets by signature, each under a reference (a non-negative int below
    2**27); `find` returns the references of every set that could be within
    `overlap` of a given one, and some that are not."""

    def __init__(self, overlap: float) -> None:
        if not 0.75 <= overlap <= 1:
            raise ValueError("signatures are complete for an overlap of 3/4 or more")
        self.overlap = overlap
        self._rank: dict[str, int] = {}
        self._table = _Table()
        self._long: list[tuple[int, int]] = []  # (size, ref) of sets over LONG words

    def __len__(self) -> int:
        return self._table.used + len(self._long)

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
        return min(size, size - self.least(size) + min(K, size))

    def signatures(self, words: Collection[str]) -> list[int]:
        """The set's signatures: hashes of the k-subsets of its prefix."""
        ranks = sorted(map(self._ranked, words))[: self.prefix(len(words))]
        k = min(K, len(words))
        return [hash(combo) & _KEY_MASK for combo in itertools.combinations(ranks, k)]

    def _ranked(self, word: str) -> int:
        rank = self._rank.get(word)
        if rank is None:
            rank = self._rank[word] = -len(self._rank)
        return rank

    def add(self, words: Collection[str], ref: int, keys: list[int] | None = None) -> None:
        """File `words` under `ref`; `keys` are its `signatures`, if already made."""
        if not 0 <= ref < _REF_MASK:
            raise ValueError(f"a reference is an int from 0 to {_REF_MASK - 1}")
        if not words:
            return  # an empty set reaches no overlap (nothing is shared)
        if len(words) > LONG:
            self._long.append((len(words), ref))
            return
        table = self._table
        for key in set(self.signatures(words) if keys is None else keys):
            table.add(key, ref)

    def find(self, words: Collection[str], keys: list[int] | None = None) -> set[int]:
        """References of the sets that could share `overlap` of their words with
        `words`; `keys` are its `signatures`, if already made."""
        size = len(words)
        if not size:
            return set()
        found: set[int] = set()
        if self.least(size) <= LONG:  # a set of LONG words or fewer could reach it
            table = self._table
            for key in set(self.signatures(words) if keys is None else keys):
                found.update(table.find(key))
        for other, ref in self._long:
            if self.least(max(size, other)) <= min(size, other):
                found.add(ref)
        return found


class _Table:
    """A multimap from 36-bit keys to 27-bit references, packed one entry to an
    int64 in open addressing (linear probing): a tenth of a dict's memory, so
    a write of a million memories keeps its signatures in some tens of MB."""

    def __init__(self, size: int = 1024) -> None:
        self.slots = array("q", bytes(8 * size))
        self.mask = size - 1
        self.used = 0

    def add(self, key: int, ref: int) -> None:
        if (self.used + 1) * 2 > len(self.slots):
            self._grow()
        slots, mask = self.slots, self.mask
        at = key & mask
        while slots[at]:
            at = (at + 1) & mask
        slots[at] = key << REF_BITS | (ref + 1)
        self.used += 1

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

    def find(self, key: int) -> list[int]:
        slots, mask = self.slots, self.mask
        at = key & mask
        found: list[int] = []
        while entry := slots[at]:
            if entry >> REF_BITS == key:
                found.append((entry & _REF_MASK) - 1)
            at = (at + 1) & mask
        return found
