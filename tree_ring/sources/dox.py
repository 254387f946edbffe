"""`dox sync`: the rules and guidance in a project's AGENTS.md files, as memory.

DOX projects keep their contract in `AGENTS.md` files. A sync reads the
project's own (at most 128 files of 256 KiB; none in a dependency or build
folder or one git ignores; tracked files first, then nearer the root), splits
each at its headings (text before the first heading is the `overview`
section; fenced code is ignored), keeps at most 8 sections a file, and turns
each into one memory: the first four lines, bullets stripped, clipped to 180
characters.

A section whose heading or text says must, never, required, do not,
contract, authority, rule, security or privacy is a `dox_contract`:
heartwood, durable, salience 0.84, confidence 0.88. Any other is
`dox_guidance`: outer ring, salience 0.62, confidence 0.72. Scope `dox`,
source type `dox`, the section's words in `source.quote`, and the key
`FILE#heading-slug-N` (N counts sections with that heading in the file) in
`source.ref`, whose FNV-1a hash is the id. Headings are found and slugged as
a reader sees them (`as_read`), so an invisible character in a heading line
keeps the section's key, and the section is refused for it, not renamed.

The files are never modified, and they stay authoritative: every memory says
to re-read its file. Because rules from files are a prompt-injection surface,
the brief labels these rows as synced, the guard runs on every section, and
heartwood an agent syncs waits for a person (`filesync`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from tree_ring.model.actor import Actor
from tree_ring.model.identity import Identity
from tree_ring.model.record import Link, Memory, now_iso
from tree_ring.sources import files as sources
from tree_ring.sources import filesync
from tree_ring.sources.files import Adapter, Scan

FILE_NAME = "AGENTS.md"
MAX_FILES = 128
MAX_BYTES = 256 * 1024
MAX_SECTIONS = 8
SUMMARY_LINES = 4
SUMMARY_CHARS = 180
RULE_WORDS = (
    "must",
    "never",
    "required",
    "do not",
    "contract",
    "authority",
    "rule",
    "security",
    "privacy",
)
# First match wins, as a person would file the section.
CATEGORIES = (
    ("safety", ("security", "privacy", "secret")),
    ("verification", ("test", "verify", "check")),
    ("workflow", ("build", "run", "install")),
    ("authority", ("owner", "authority", "contract")),
)
_HEADING = re.compile(r"#{1,6}(?:\s+|$)(.*?)\s*#*\s*\Z")
_FENCE = re.compile(r"(`{3,}|~{3,})")


@dataclass(frozen=True)
class Section:
    heading: str  # as a reader sees it (`as_read`): its slug is the key
    occurrence: int  # among sections of this file with the same slug, from 1
    lines: tuple[str, ...]
    written: str = ""  # the heading as the file spells it, when that differs


def as_read(line: str) -> str:
    """`line` without the invisible characters a reader does not see and no
    field keeps (a soft hyphen, a zero-width space, a byte-order mark, a
    control): one of them in a heading line neither moves a section nor
    renames its key. The section's text keeps them, so it is refused for them.
    Joiners stay, as the text policy keeps them between visible characters."""
    if line.isascii() and line.isprintable():
        return line
    return "".join(
        char
        for char in line
        if char.isspace()
        or char in "\u200c\u200d"
        or unicodedata.category(char) not in ("Cc", "Cf")
    )


def slug(text: str) -> str:
    return "-".join(re.findall(r"[a-z0-9]+", text.lower()))


def sections(text: str, limit: int = MAX_SECTIONS) -> list[Section]:
    """The file's first `limit` sections that hold any text outside fenced code."""
    found: list[Section] = []
    seen: dict[str, int] = {}
    heading, written, lines = "overview", "", list[str]()
    fence: str | None = None

    def close() -> None:
        if lines and len(found) < limit:
            key = slug(heading)
            seen[key] = seen.get(key, 0) + 1
            found.append(Section(heading, seen[key], tuple(lines), written))

    for raw in text.splitlines():
        line = raw.strip()
        shown = as_read(line).strip()
        opening = _FENCE.match(shown)
        if fence is not None:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
            continue
        if opening:
            fence = opening.group(1)
            continue
        heading_match = _HEADING.fullmatch(shown)
        if heading_match:
            close()
            heading, lines = heading_match.group(1) or "untitled", []
            written = "" if shown == line else line
            continue
        if line:
            lines.append(line)
    close()
    return found


def snippet(lines: tuple[str, ...]) -> str:
    """The first four lines, bullets stripped, on one line of at most 180 characters."""
    parts = [line.lstrip("-*").strip() for line in lines[:SUMMARY_LINES]]
    text = " ".join(" ".join(part for part in parts if part).split())
    return text if len(text) <= SUMMARY_CHARS else text[:SUMMARY_CHARS] + "..."


def is_rule(heading: str, text: str) -> bool:
    haystack = f"{heading} {text}".lower()
    return any(word in haystack for word in RULE_WORDS)


def category(heading: str, text: str) -> str:
    haystack = f"{heading} {text}".lower()
    for name, words in CATEGORIES:
        if any(word in haystack for word in words):
            return name
    return "project"


def _file_of(memory: Memory) -> str:
    return memory.source_ref.rpartition("#")[0]


def _group_of(memory: Memory) -> str:
    """`FILE#slug`: a section renumbered (or reworded under one heading) stays itself."""
    return memory.source_ref.rpartition("-")[0]


ADAPTER = Adapter(
    name="dox",
    max_files=MAX_FILES,
    max_bytes=MAX_BYTES,
    accepts=lambda name: name == FILE_NAME,
    key_of=lambda memory: memory.source_ref,
    group_of=_group_of,
    file_of=_file_of,
    # Only the project's own files: not what git ignores (a virtualenv, build
    # output, notes kept out of the repository).
    pathspecs=(f"*{FILE_NAME}",),
)


def memory_for(ref: str, section: Section, identity: Identity, actor: Actor, now: str) -> Memory:
    text = snippet(section.lines)
    rule = is_rule(section.heading, text)
    kind = category(section.heading, text)
    return filesync.compose(
        identity,
        actor,
        now,
        summary=f"DOX {kind} guidance in {ref}: {text}",
        event_type="dox_contract" if rule else "dox_guidance",
        scope="dox",
        ring="heartwood" if rule else "outer",
        details=(
            f"Source {FILE_NAME} remains authoritative. Re-read {ref} before acting. "
            f"Heading: {section.written or section.heading}."
        ),
        source_type="dox",
        source_ref=f"{ref}#{slug(section.heading)}-{section.occurrence}",
        source_quote=text,
        tags=("dox", "agents-md", kind),
        salience=0.84 if rule else 0.62,
        confidence=0.88 if rule else 0.72,
        retention="durable" if rule else "normal",
        links=(Link("dox", ref),),
    )


def collect(source_root: Path, project_root: Path, identity: Identity, actor: Actor) -> Scan:
    now = now_iso()

    def build(ref: str, text: str, scan: Scan) -> None:
        for section in sections(text):
            if not snippet(section.lines):
                continue
            memory = memory_for(ref, section, identity, actor, now)
            kept = sources.prepared(scan, memory, memory.source_ref)
            if kept is not None:
                scan.memories.append(kept)
                scan.lines[kept.source_ref] = section.lines[:SUMMARY_LINES]

    return sources.scan(ADAPTER, source_root, project_root, build)


# sync(store, source_root, identity, actor, *, dry_run=False, progress=None)
sync = partial(filesync.sync, ADAPTER, collect)
