"""Where two claim fields meet: the text a secret split between them reads as.

A secret can be split between two fields (a key name in the summary, its
value in the details; two halves of a token in the source quote and the
summary) or between the tags of one field. `seams` gives the texts the
guard reads across each seam (`engine.check_fields`): with a space between
the two sides, and glued.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

# Characters of a field's end and of the next field's start read together:
# enough for a key name and its value, or two halves of a long token.
SEAM = 512
# The fields a claim is written in, which a secret could be split across.
# The others (event type, ids) are short, drawn from vocabularies or set by
# the harness, and gluing one onto a value changes how the value reads.
SEAM_FIELDS = ("summary", "details", "source_ref", "source_quote", "tags")


def _tail(value: str) -> str:
    """The end of a field that a secret split after it could start in: its last line."""
    tail = value[-SEAM:]
    return tail[tail.rfind("\n") + 1 :]


def _head(value: str) -> str:
    head = value[:SEAM]
    line = head.find("\n")
    return head if line < 0 else head[:line]


def seams(fields: Mapping[str, str]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(the two fields' names, the text across their seam) for every ordered
    pair of claim fields, a secret split between two of them reads whole
    across one seam: with a space between (a key name in one, its value in
    the other), or glued (two halves of a token), in the second list, which
    also holds every ordered pair of tags."""
    ends = [
        (name, _tail(value), _head(value))
        for name in SEAM_FIELDS
        if (value := fields.get(name, ""))
    ]
    spaced: list[tuple[str, str]] = []
    glued: list[tuple[str, str]] = []
    for first, tail, _ in ends:
        for second, _, head in ends:
            if first != second and tail and head:
                names = f"{first}+{second}"
                spaced.append((names, tail + " " + head))
                if not tail[-1].isspace() and not head[0].isspace():
                    glued.append((names, tail + head))
    # The tags are one field, read with a space between them (a key in one
    # tag and its value in the next reads as written); two halves of a token
    # in two tags are read glued, in either order.
    tags = fields.get("tags", "").split(" ")
    glued += [
        ("tags", a + b)
        for i, a in enumerate(tags)
        for j, b in enumerate(tags)
        if i != j and a and b
    ]
    # A token cut into three or four tags, read in the order they are kept.
    glued += [("tags", "".join(tags[i : i + n])) for n in (3, 4) for i in range(len(tags) - n + 1)]
    return spaced, glued
