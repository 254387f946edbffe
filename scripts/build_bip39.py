#!/usr/bin/env python3
"""Write tree_ring/guard/bip39_english.txt: BIP-39's English wordlist, which the
guard reads to tell a wallet's seed phrase written with no word naming it.

The list is BIP-39's (bitcoin/bips, MIT), as the PyPI package `mnemonic`
(MIT) ships it in `mnemonic/wordlist/english.txt`:

    pip download mnemonic==0.21 --no-deps -d /tmp/mnemonic
    python3 scripts/build_bip39.py /tmp/mnemonic/mnemonic-0.21-py3-none-any.whl

The words are checked against the list's published SHA-256 before anything
is written; tree_ring/guard/BIP39-NOTICE.txt carries the licence.
"""

from __future__ import annotations

import hashlib
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "tree_ring" / "guard" / "bip39_english.txt"
MEMBER = "mnemonic/wordlist/english.txt"
# The SHA-256 of english.txt as bitcoin/bips publishes it.
SHA256 = "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: build_bip39.py MNEMONIC_WHEEL (see this script's docstring)", file=sys.stderr)
        return 2
    with zipfile.ZipFile(args[0]) as wheel:
        data = wheel.read(MEMBER)
    if hashlib.sha256(data).hexdigest() != SHA256:
        print(f"error: {MEMBER} is not BIP-39's English list; use mnemonic 0.21", file=sys.stderr)
        return 1
    words = data.decode("ascii").split()
    if len(words) != 2048:
        print(f"error: {MEMBER} holds {len(words)} words, not 2048", file=sys.stderr)
        return 1
    OUT.write_text("\n".join(words) + "\n", encoding="ascii")
    print(f"wrote {OUT.relative_to(REPO)}: {len(words)} words")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
