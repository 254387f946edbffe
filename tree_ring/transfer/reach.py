"""What an agent's import may name: only the memories its recall may read.

An agent reads the project's shared scopes and its own partitions; a memory
in another partition is "no memory" to it, exactly as an id that names
nothing is (docs/THREAT-MODEL.md, "Who sees what"; `Opened.reached` holds
every write by id to it). A file's lines name ids of the file's choosing: a
row's own (`id`), the rows it replaced or was replaced by (`supersedes`,
`superseded_by`), the rows it contradicts (`links`), the memory a tombstone
line was recorded for (`memory_id`). Were an agent's import to answer for a
row the agent cannot read (count a line as that row, unchanged; refuse it
because the id is taken; make it wait because it replaces that row; link
that row back to it; ask a person to forget that row), the import would
tell the agent the row exists and how it stands, and the last two would
write to it or about it. Nor can the import take such an id as it takes one
that names nothing: one id names one memory.

So in an agent's import an id stays the file's only where it names a memory
the agent may read. Any other, whether a hidden row holds it or none does,
is renamed to a new id, the same one for every line that names it and
for every import of it by the same reader (`derived_id`): a row under it
is imported as a line without an id is, known by its content among what
the agent may read and what the import itself wrote
(`import_rows.Writer._changed`); what the file says of it (replaced by,
contradicted by, withdrawn) follows it under its new id
(`stone_lines.as_claims`). An id no row may take here (one this store
forgot or redacted, one of the store read beside it) is not renamed: its
row's line is refused as a person's would be, whoever holds it, in the same
words (`import_rows.Writer._free`). Nor does an agent's import claim operation
ids (`pipeline.decide`, `claiming`): a claim names the write that holds it,
which may be a row the agent cannot read, and a row's retry is no file's
to answer; the ids stay on the rows as written.

A person's import reads every partition and keeps every id: it has no
`Reach`.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import replace

from tree_ring.model.record import Link
from tree_ring.store import rows

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from tree_ring.model.identity import Identity
    from tree_ring.store.sql import Db
    from tree_ring.transfer.row_lines import Parsed


class Reach:
    """One agent's import: which ids it may read, and what it renamed."""

    def __init__(self, db: Db, reader: Identity) -> None:
        self.db = db
        self.reader = reader
        # Ids found to name a memory the reader may read.
        self.read: set[str] = set()
        # A file's id -> its new id, and back.
        self.renamed: dict[str, str] = {}
        self.named: dict[str, str] = {}
        # The rows this import wrote that the reader may not read (a file
        # files a row in another partition): a later line is still known by
        # its content as that row, as it would be by a person's import.
        self.elsewhere: set[str] = set()

    def reads(self, memory_id: str) -> bool:
        """Whether a line may be answered as the row `memory_id` holds: one
        the reader may read, or one this import wrote under a new id."""
        return memory_id in self.read or memory_id in self.named

    def said(self, memory_id: str) -> str:
        """The id a message names: the file's, for an id it renamed."""
        return self.named.get(memory_id, memory_id)

    def rename(self, items: list[Parsed], refused: Callable[[list[str]], set[str]]) -> list[Parsed]:
        """`items`, each line's ids kept where they name what the reader may
        read and renamed where they do not, but a row's own id that no row
        may take (`refused`: the import refuses that line for it)."""
        self._look(name for item in items if item.memory is not None for name in _named(item))
        own = [
            item.memory.id
            for item in items
            if item.memory is not None and not item.idless and item.memory.id not in self.read
        ]
        kept = refused(own) if own else set[str]()
        renamed: list[Parsed] = []
        for item in items:
            memory = item.memory
            if memory is None:
                renamed.append(item)
                continue
            idless = item.idless
            memory_id = memory.id
            if not idless and memory_id not in self.read and memory_id not in kept:
                memory_id, idless = self._new(memory_id), True
            changed = memory.replace(
                id=memory_id,
                supersedes=tuple(self._ref(old) for old in memory.supersedes),
                superseded_by=None
                if memory.superseded_by is None
                else self._ref(memory.superseded_by),
                links=tuple(Link(link.type, self._ref(link.target)) for link in memory.links),
            )
            renamed.append(
                item if changed == memory else replace(item, memory=changed, idless=idless)
            )
        return renamed

    def may_read(self, memory_id: str) -> bool:
        """Whether the reader may read the memory `memory_id` names."""
        self._look([memory_id])
        return memory_id in self.read

    def name(self, memory_id: str) -> str:
        """The id a line's `memory_id` stands for in this import: itself where
        the reader may read the memory it names, else its new id."""
        self._look([memory_id])
        return self._ref(memory_id)

    def wrote(self, ids: list[str]) -> None:
        """Note the rows a batch of the import wrote, `ids`."""
        if ids:
            self.elsewhere |= set(ids) - rows.readable(self.db, self.reader, ids)

    def _look(self, names: Iterable[str]) -> None:
        """Find which of `names` the reader may read, once each."""
        new = {name for name in names if name not in self.read and name not in self.renamed}
        if new:
            self.read |= rows.readable(self.db, self.reader, new)

    def _ref(self, memory_id: str) -> str:
        return memory_id if memory_id in self.read else self._new(memory_id)

    def _new(self, memory_id: str) -> str:
        """The new id of the file's `memory_id`, the same for every line and
        for every import of the file by this reader (`derived_id`): a second
        import of one file finds the rows the first wrote, as a person's does."""
        new = self.renamed.get(memory_id)
        if new is None:
            new = self.renamed[memory_id] = derived_id(self.reader, memory_id)
            self.named[new] = memory_id
        return new


def derived_id(reader: Identity, memory_id: str) -> str:
    """The id a file's `memory_id` takes in `reader`'s import: the file's
    time stamp where it has one, and 48 bits of a hash of the reader's
    partition and the file's id. Only the same reader's import of the same
    id arrives at it, so finding it held tells the reader nothing of any row
    but its own import's; to aim one at another row's id, a file would have
    to find a hash's 48 bits."""
    said = "\0".join(
        (reader.project, reader.agent_profile or "", reader.workflow_id or "",
         reader.session_id or "", memory_id)
    )  # fmt: skip
    digest = hashlib.sha256(said.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    stamp = memory_id[4:19] if _STAMPED.fullmatch(memory_id) else "19700101_000000"
    return f"mem_{stamp}_{digest}"


_STAMPED = re.compile(r"mem_\d{8}_\d{6}_[0-9a-f]{12}")


def _named(item: Parsed) -> Iterable[str]:
    """Every memory id a line's row names: its own (a line without one has a
    new one already), what it replaced or was replaced by, what it links to."""
    memory = item.memory
    if memory is None:
        return
    if not item.idless:
        yield memory.id
    yield from memory.supersedes
    if memory.superseded_by is not None:
        yield memory.superseded_by
    for link in memory.links:
        yield link.target
