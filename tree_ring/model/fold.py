"""One canonical form of text, for every check that must not be fooled by spelling.

Two texts that a reader takes for the same words must fold to the same string,
so that a forgotten claim, or a secret, cannot come back in another spelling.
`canonical` is the one function the tombstone keys and the guard fold through:

1. NFKC: compatibility forms become their plain letters (full-width
   ``ｂｉｌｌｉｎｇ``, mathematical ``𝐀``, ligatures, superscripts), and an
   enclosed letter or number that NFKC spells with brackets or a stop is its
   letter or number alone (`compatible`: ``⒟⒠⒫⒧⒪⒴`` reads "deploy", as
   ``ⓓⓔⓟⓛⓞⓨ`` does; ``⑵`` and ``⒉`` are 2).
2. Default-ignorable code points are removed (zero-width space and joiners,
   variation selectors, the soft hyphen, bidi controls, the tag block).
3. Decomposition, then combining marks (Mn, Me) dropped: ``é`` and ``é``
   both become ``e``.
4. Case folding, so ``İ``, ``I`` and ``i`` meet.
5. Confusable letters become their prototype (`skeleton`): Cyrillic ``а`` and
   Greek ``ο`` become Latin ``a`` and ``o``, from Unicode's confusables table
   (UTS #39, shipped as `confusables.PROTOTYPES`). Look-alikes within ASCII
   (``l``/``I``/``1``, ``O``/``0``, ``rn``/``m``) stay distinct: ASCII text is
   its own skeleton.

Number words and hyphenation are out of scope: ``three`` and ``3`` stay
different, and so do ``re-try`` and ``retry``.

`searchable` is the lighter fold recall's index and questions share (steps 1,
2 and 4): a full-width, ligature or superscript spelling finds the plain word,
while marks stay for the index's tokenizer to remove and letters of other
scripts stay themselves (a skeleton would turn Cyrillic words into Latin
look-alikes, and the index's stemmer would then read them as English).

`unmarked` is steps 1 to 3 without case folding, and `skeleton(unmarked(text))`
steps 1 to 3 and 5, for checks that are case-sensitive (token formats).
Plain ASCII text is returned as it is (lower-cased by `canonical`) without
importing `unicodedata` or loading the confusables table.
"""

from __future__ import annotations

# Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt, 15.1).
_IGNORABLE_RANGES = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
_MARKS = ("Mn", "Me")
# The enclosed forms NFKC writes with brackets, a stop or a comma around the
# letter or number: parenthesized digits, numbers and small letters, digits
# with a full stop (U+2474-U+24B5), parenthesized Hangul and ideographs
# (U+3200-U+3243), digits with a comma and parenthesized or shelled capitals
# (U+1F101-U+1F12A).
_ENCLOSED_RANGES = ((0x2474, 0x24B5), (0x3200, 0x3243), (0x1F101, 0x1F12A))
_ENCLOSED: dict[int, str] = {}


_DROP: dict[int, None] = {}
# Every code point settles within three rounds (scripts/build_confusables.py
# checks each one when it writes the table).
_ROUNDS = 4


def ignorable(char: str) -> bool:
    code = ord(char)
    return any(low <= code <= high for low, high in _IGNORABLE_RANGES)


def _drop_table() -> dict[int, None]:
    if not _DROP:
        _DROP.update(
            (code, None) for low, high in _IGNORABLE_RANGES for code in range(low, high + 1)
        )
    return _DROP


def compatible(text: str) -> str:
    """`text` in NFKC, each enclosed letter or number as itself (`_ENCLOSED_RANGES`)."""
    if text.isascii():
        return text
    from unicodedata import normalize

    if not _ENCLOSED:
        for low, high in _ENCLOSED_RANGES:
            for code in range(low, high + 1):
                spelled = normalize("NFKC", chr(code))
                bare = spelled.strip("().,\u3014\u3015")
                if bare and bare != spelled:
                    _ENCLOSED[code] = bare
    return normalize("NFKC", text.translate(_ENCLOSED))


def unmarked(text: str) -> str:
    """`text` in NFKC (`compatible`) with default-ignorables and combining marks
    removed; case kept."""
    if text.isascii():
        return text
    from unicodedata import category, normalize

    kept = compatible(text).translate(_drop_table())
    bare = "".join(char for char in normalize("NFD", kept) if category(char) not in _MARKS)
    return normalize("NFC", bare)


# The general combining diacritics (U+0300-U+036F): the accents Latin, Greek
# and Cyrillic letters carry, which a person types or leaves out ("βαση",
# "ΒΑΣΗ" for "βάση"; "все" for "всё"). The marks of other scripts (an Indic
# vowel sign, a Hebrew point) have blocks of their own and are kept.
_ACCENTS: dict[int, None] = dict.fromkeys(range(0x300, 0x370))


def searchable(text: str) -> str:
    """`text` as recall indexes and searches it: NFKC, default-ignorables
    removed, case folded, the general combining diacritics removed. Plain
    ASCII text is returned unchanged (the index's tokenizer folds its case);
    searchable(searchable(x)) == searchable(x)."""
    if text.isascii():
        return text
    from unicodedata import normalize

    # Case folding can leave text that NFKC would change again ("ǰ" folds to
    # j and a combining caron, which NFKC composes), so it is normalised last.
    folded = normalize("NFD", normalize("NFKC", text).translate(_drop_table()).casefold())
    return normalize("NFKC", folded.translate(_ACCENTS))


def skeleton(text: str) -> str:
    """`text` with each confusable character replaced by its prototype; case kept.

    Meant for text already through `unmarked`: the table leaves out what NFKC
    and mark stripping remove. The skeleton of a skeleton is itself.
    """
    if text.isascii():
        return text
    from tree_ring.model.confusables import PROTOTYPES

    return text.translate(PROTOTYPES)


def lettered(text: str, *, small: bool = False) -> str:
    """`skeleton(unmarked(text))` with each letter drawn as a small capital
    read as its capital (`confusables.CAPITALS`: ``ᴀ``, ``ʀ``, the kra, and
    what the skeleton maps to them, Cyrillic ``к`` and ``т``), case kept:
    ``PᴀSSWORD`` reads ``PASSWORD``. A second reading for the checks a
    reader must not be fooled past (the guard's spellings, the readings a
    forgotten claim is keyed and checked by), kept out of `canonical` so the
    keys of tombstones already written stay as they are. `small`: each as
    its small letter instead, as one reads among small letters (``ghᴘ_``
    is ``ghp_``, ``FʀidaysAfter`` is ``FridaysAfter``)."""
    if text.isascii():
        return text
    from tree_ring.model.confusables import CAPITALS, SMALL_LETTERS

    table = SMALL_LETTERS if small else CAPITALS
    return skeleton(unmarked(text).translate(table)).translate(table)


def canonical(text: str) -> str:
    """The folded form two spellings of the same words share; canonical(canonical(x)) == it."""
    if text.isascii():
        return text.lower()
    # The skeleton goes before case folding: a capital look-alike (Greek Ε,
    # Cyrillic Н) has a Latin prototype that its small letter lacks. Case
    # folding can add a mark (İ folds to i + U+0307) or land on another
    # confusable (a stigma prototype folds to a small sigma), so the steps
    # repeat until the text stops changing.
    folded = text
    for _ in range(_ROUNDS):
        settled = skeleton(unmarked(folded)).casefold()
        if settled == folded or settled.isascii():
            return settled
        folded = settled
    return folded
