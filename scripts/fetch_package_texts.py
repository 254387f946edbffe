"""Fetch what PyPI's packages say they are, for the word vectors' training.

    python3 scripts/fetch_package_texts.py --out pypi-texts.jsonl

Debian's descriptions teach the vector table the software Debian ships; the
services and tools a team uses but Debian does not ship (a CDN, an identity
provider, a hosted warehouse, an incident pager) are named mostly in the
packages other people write for them. This script reads PyPI's list of
package names (`/simple/`), counts each word the names are made of
("okta" in `okta`, `django-okta-auth`, `okta-jwt-verifier`, ...), and for
every word at least MIN_NAMES names use, fetches the JSON metadata of the
PER_WORD shortest names holding it (`/pypi/NAME/json`): each package's
summary, and the first prose sentences of its description. One JSON object
a line: `{"name", "summary", "text"}`, sorted by name.

PyPI's texts change from day to day, so a fetch is a snapshot: the one the
shipped table was trained on is named, with its sha256, in
learn_vectors.PACKAGES_SHA256. Standard library only; about twenty minutes
with 32 requests at a time.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import re
import sys
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

INDEX = "https://pypi.org/simple/"
METADATA = "https://pypi.org/pypi/{}/json"
MIN_NAMES = 10
PER_WORD = 2
PROSE_SENTENCES = 3
WORKERS = 32
_NAME = re.compile(r">([^<]+)</a>")
_PARTS = re.compile(r"[-_.]+")
_SENTENCE = re.compile(r"(?<=[a-z0-9)][.!?])\s+(?=[A-Z])")
# Lines of a README that are not prose: headings, badges, images, tables,
# code fences, HTML and link lists.
_NOT_PROSE = re.compile(r"^\s*(#|=|-|\*|\[|!|<|\||`|>|\.\.|:|\+|\d+\.)")


def names(index: str) -> list[str]:
    return _NAME.findall(index)


def chosen(all_names: list[str]) -> list[str]:
    """For each word MIN_NAMES names use, its PER_WORD shortest names."""
    holders: dict[str, list[str]] = {}
    count: Counter[str] = Counter()
    for name in all_names:
        for part in set(_PARTS.split(name.lower())):
            if part.isalpha() and len(part) >= 3:
                count[part] += 1
                holders.setdefault(part, []).append(name)
    picked: set[str] = set()
    for word, n in count.items():
        if n >= MIN_NAMES:
            picked.update(sorted(holders[word], key=lambda s: (len(s), s))[:PER_WORD])
    return sorted(picked)


def _worded(sentence: str) -> bool:
    """Whether a sentence reads as prose: five words or more, most of them
    plain words (not a command, a path or a version list)."""
    words = sentence.split()
    plain = sum(w.strip(".,;:!?()\"'").isalpha() for w in words)
    return len(words) >= 5 and plain >= 0.7 * len(words)


def prose(description: str) -> str:
    """The first PROSE_SENTENCES sentences of a description's prose lines."""
    kept: list[str] = []
    for line in description.splitlines():
        if not line.strip() or _NOT_PROSE.match(line) or "http" in line:
            continue
        kept.extend(s for s in _SENTENCE.split(line.strip()) if _worded(s))
        if len(kept) >= PROSE_SENTENCES:
            break
    return " ".join(kept[:PROSE_SENTENCES])


def fetched(name: str) -> dict[str, Any] | None:
    try:
        with urllib.request.urlopen(METADATA.format(name), timeout=30) as reply:
            info = json.load(reply)["info"]
    except (urllib.error.URLError, TimeoutError, ValueError, KeyError, OSError):
        return None
    return {
        "name": name,
        "summary": " ".join(str(info.get("summary") or "").split()),
        "text": prose(str(info.get("description") or "")),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    with urllib.request.urlopen(INDEX, timeout=120) as reply:
        wanted = chosen(names(reply.read().decode("utf-8")))
    print(f"{len(wanted)} packages to fetch", file=sys.stderr)
    rows: list[dict[str, Any]] = []
    with concurrent.futures.ThreadPoolExecutor(WORKERS) as pool:
        for done, row in enumerate(pool.map(fetched, wanted), 1):
            if row and (row["summary"] or row["text"]):
                rows.append(row)
            if done % 2000 == 0:
                print(f"{done} of {len(wanted)}", file=sys.stderr)
    rows.sort(key=lambda r: r["name"])
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    print(f"wrote {args.out}: {len(rows)} packages", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
