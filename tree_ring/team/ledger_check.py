"""`doctor` on the team ledger: conflicts a text merge left, the audit anchor,
what its lines hold against the store, and each line a sync skips.

Kept apart from `doctor.py`, whose checks read only the store: this one reads
the ledger file and git's index, and repairs the file, never the store.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, cast

from tree_ring.model import jsontext, line_bound, project
from tree_ring.model.actor import Actor
from tree_ring.model.errors import SchemaTooNew, TreeRingError, UnsafePath
from tree_ring.model.imported import from_mapping
from tree_ring.model.record import Memory, now_iso
from tree_ring.model.text import error_safe
from tree_ring.store import audit, holders, rows, settings, tombstones
from tree_ring.store.sql import Db
from tree_ring.team import (
    ledger,
    ledger_anchor,
    ledger_carried,
    ledger_read,
    ledger_state,
    ledger_verdicts,
    sync,
)
from tree_ring.team import repository as team
from tree_ring.team.ledger_report import Skipped
from tree_ring.team.ledger_verdicts import texts_of
from tree_ring.write import readmit


def check(
    root: Path, db: Db, *, repair: bool, actor: Actor | None = None
) -> tuple[bool, str, bool, str] | None:
    """(ok, detail, repairable, repaired), or None when there is no ledger.
    `actor`: who repairs; only a person anchors a cut audit log again."""
    path = sync.path_of(root)
    try:
        # Its kind before any read: a FIFO there would hold the read forever.
        if not project.expect(path, "file", project.LEDGER_FIX):
            return None
    except UnsafePath as exc:
        return (False, str(exc), False, "")
    name = f"{project.DIR}/{ledger.PATH}"
    found = team.resolve(root)
    if found is not None:
        if not repair:
            how = (
                "merged as text where git had no merge driver for it, then committed"
                if team.driver_configured(root)
                else "git's merge driver for it is not configured here"
            )
            return (
                False,
                f"{name} holds {found.conflicts} conflict(s) from a text merge ({how})",
                True,
                "",
            )
        done = team.repair(root)
        assert done is not None
        repaired = (
            f"resolved {done.conflicts} conflict(s) in {name} by the ledger's rule from "
            f"{done.source}; run `git add {name}`, commit the merge and push it, then "
            "`tree-ring sync` (a sync before the push takes the lines the upstream lacks "
            "as claims)"
        )
        return (True, "no conflicts", True, repaired)
    theirs = _upstream_lines(root)
    person = actor is not None and not actor.origin.is_agent
    anchored = _anchor_again(db, path, theirs, actor) if repair and person and actor else ""
    driven = ""
    if repair and person and team.in_git(root) and team.driver_problem(root) is not None:
        # Without the driver git merges the ledger as text: every merge that
        # changed it on both sides is a conflict.
        if team.ensure_driver(root):
            driven = "configured git's merge driver for the ledger in this clone"
    repaired = "; ".join(done for done in (anchored, driven) if done)
    ok, detail = _findings(root, db, path, name, theirs)
    skips = _skipped(root, db, path, name, theirs)
    if not ok:
        skips.refused = None  # a header a sync refuses fails `_findings` first, named there
    ok = ok and not skips.dropped and skips.refused is None
    driver = team.in_git(root) and team.driver_problem(root) is not None
    return (ok, detail + skips.said(), bool(repaired) or driver or _cut(db, path, theirs), repaired)


def _vouched(
    db: Db, path: Path, lines: list[ledger.Line], theirs: set[bytes]
) -> tuple[list[ledger.Line], ledger.Line | None]:
    """This clone's anchors vouched for, and the file's when none vouches
    for it, as a sync reads them (`ledger_anchor.own_anchors`)."""
    try:
        return ledger_anchor.own_anchors(db, _own_anchor(lines, db), theirs, _as_seen(db, path))
    except TreeRingError:  # a store too damaged or too old to say: nothing anchored
        return [], None


def _vouched_problem(db: Db, path: Path, theirs: set[bytes]) -> str | None:
    """What this clone's audit log says against the anchors vouched for."""
    lines = list(ledger.loose(ledger.numbered(_text(path))))
    return ledger_anchor.anchors_problem(db, _vouched(db, path, lines, theirs)[0])


def _cut(db: Db, path: Path, theirs: set[bytes]) -> bool:
    return _vouched_problem(db, path, theirs) is not None


def _anchor_again(db: Db, path: Path, theirs: set[bytes], actor: Actor) -> str:
    """With no backup to restore, a person's `doctor --repair` anchors the
    log as it now stands: this clone's anchor line in the file and the
    store's record of it, the decision audited. The cut stays in the
    ledger's git history; the upstream's line names it until the file is
    committed and pushed. What was done, or "" when nothing was cut."""
    from tree_ring.store import health

    problem = _vouched_problem(db, path, theirs)
    if problem is None:
        return ""
    health.begin(db)
    try:
        line = ledger_anchor.anchor_now(db)
        audit.append(db, actor, "repair", "ledger", {"anchor": line.data, "was": problem})
        health.commit(db)
    except BaseException:
        if db.in_transaction:
            health.roll_back(db)
        raise
    mine = f'"clone":"{line.data["clone"]}"'
    kept = [
        text
        for text in _text(path).splitlines()
        if not (mine in text and '"record":"anchor"' in text)
    ]
    header = next((i for i, text in enumerate(kept) if '"record":"ledger"' in text), -1)
    kept.insert(header + 1, line.text)
    project.write_replacing(path, ("\n".join(kept) + "\n").encode("utf-8"))
    return (
        f"anchored this clone's audit log as it now stands (entry {line.data['seq']}): "
        "the cut stays in the ledger's git history; commit and push the ledger, or the "
        "upstream's anchor still names the entries cut"
    )


def _findings(root: Path, db: Db, path: Path, name: str, theirs: set[bytes]) -> tuple[bool, str]:
    """(ok, detail) of what the ledger's lines say against the store: its
    audit anchor (the ones vouched for, as a sync reads them), its header,
    and the words and tombstones it holds."""
    numbered = ledger.numbered(_text(path))
    lines = list(ledger.loose(numbered))
    anchors, claimed = _vouched(db, path, lines, theirs)
    problem = ledger_anchor.anchors_problem(db, anchors)
    if problem:
        return (False, problem)
    claim = (
        ""
        if claimed is None
        else "; "
        + ledger_anchor.CLAIMED_ANCHOR.format(seq=claimed.data["seq"], then="a sync rewrites it")
    )
    try:
        recorded = settings.recorded_project(db)
    except TreeRingError:  # a store too damaged or too old to say
        recorded = None
    # The ledger as a fresh clone's build reads it (`project.ledger_problem`):
    # a header naming another project, or none, or a newer schema.
    problem = project.ledger_problem(root, recorded) if recorded is not None else None
    if problem:
        return (False, problem)
    header = _header_project(lines)
    quoting = _reasons_quoting(lines, db, header)
    if quoting:
        return (
            False,
            f"{name} holds {len(quoting)} line(s) whose re-admission reason quotes words this "
            f"store forgot ({', '.join(quoting[:3])}{', ...' if len(quoting) > 3 else ''}): "
            "every store withholds them, but the file keeps them (a line a teammate wrote "
            "before the forget reached them); run `tree-ring sync`, which writes the lines "
            "with the words withheld, and commit the file",
        )
    behind = _forgotten_here(lines, db, header)
    refused = sorted(behind) or _forgotten_text(numbered, db, header)
    if refused and not _forgot_here(db, behind) and _the_upstreams(root, numbered, refused):
        return (
            False,
            f"{name} holds {len(refused)} line(s) of the upstream's with words this store "
            f"forgot ({', '.join(refused[:3])}{', ...' if len(refused) > 3 else ''}): "
            "every clone built from the ledger drops them, while the clone that wrote them "
            "keeps them; there, `tree-ring review readmit ID --reason WHY` re-admits each "
            "that should stay, and a `tree-ring sync` here drops the rest from the file",
        )
    if behind:
        return (
            False,
            f"{name} still holds {len(behind)} memory(ies) this store forgot "
            f"({', '.join(sorted(behind)[:3])}{', ...' if len(behind) > 3 else ''}): a forget "
            "stopped before it rewrote the ledger; run `tree-ring sync` before committing it",
        )
    copied = refused
    if copied:
        return (
            False,
            f"{name} holds text this store forgot in {len(copied)} line(s) it did not write "
            f"({', '.join(copied[:3])}{', ...' if len(copied) > 3 else ''}): a line copied "
            "or edited into the file; run `tree-ring sync`, which refuses those lines and "
            "rewrites the ledger, before committing it",
        )
    history = _history_stones(root, lines)
    foreign, refusing = _stones_refusing_kept(lines, db, header, history)
    if foreign:
        kept = sorted(foreign)
        return (
            False,
            f"{name} holds a tombstone or redaction line this store did not write that "
            f"refuses {len(kept)} memory(ies) it keeps ({', '.join(kept[:3])}"
            f"{', ...' if len(kept) > 3 else ''}): every clone built from the ledger would "
            f"drop them; `git diff {name}` shows the edit: restore the line before committing",
        )
    if refusing:
        kept = sorted(refusing)
        return (
            False,
            f"{name}'s tombstone or redaction lines refuse {len(kept)} memory(ies) this store "
            f"keeps ({', '.join(kept[:3])}{', ...' if len(kept) > 3 else ''}): every clone "
            f"built from the ledger drops them (`git log -p -- {name}` shows the commit that "
            "gave a line their words); re-admit each that should stay: "
            "`tree-ring review readmit ID --reason WHY` (it says what to do for one whose own "
            "id was forgotten)",
        )
    problem = team.driver_problem(root) if team.in_git(root) else None
    if problem:
        # `sync` points a driver that runs a gone entry at this plugin; one
        # not configured at all only a person's repair or `init` configures.
        by = (
            "`doctor --repair` or `init`"
            if problem == team.NOT_CONFIGURED
            else ("`doctor --repair`, `init` or `sync`")
        )
        return (
            False,
            f"{name}: no conflicts, audit anchor ok{claim}; {problem}, so git merges the "
            f"ledger as text and a merge that changed it on both sides conflicts ({by} "
            "configures it)",
        )
    return (True, f"{name}: no conflicts, audit anchor ok{claim}")


def _as_seen(db: Db, path: Path) -> bool:
    """Whether the file holds the bytes the store's last sync saw."""
    import hashlib

    seen = jsontext.as_object(settings.stored(db, ledger_anchor.SETTING)) or {}
    data = ledger_read.read_bytes(path)
    return seen.get("sha256") == "sha256:" + hashlib.sha256(data).hexdigest()


# How many of the lines a sync skips the check names; the rest it counts.
SHOWN = 20


@dataclass
class Skips:
    """The lines a sync skips as it reads the ledger (`ledger_read.skipped_lines`),
    as `doctor` names them: each by file and line, as a sync does. A line a
    rewrite leaves out (`dropped`) fails the check: the ledger would lose
    it. One it keeps as it stands (`kept`, a record of a newer Tree Ring's)
    is named and fails nothing. The first SHOWN of each are named, all counted."""

    dropped: int = 0
    kept: int = 0
    named: list[str] = field(default_factory=lambda: [])
    named_kept: list[str] = field(default_factory=lambda: [])
    refused: str | None = None  # why a sync refuses the ledger whole

    def add(self, skipped: Skipped, carried: bool, name: str) -> None:
        shown = self.named_kept if carried else self.named
        if len(shown) < SHOWN:
            shown.append(error_safe(skipped.named(name)))
        if carried:
            self.kept += 1
        else:
            self.dropped += 1

    def said(self) -> str:
        """What the check's detail adds: a clause each on its first line,
        then each line named on a line of its own."""
        said = ""
        if self.refused is not None:
            said += f"; a sync refuses it whole: {self.refused}"
        if self.dropped:
            said += (
                f"; {self.dropped:,} line(s) a sync skips and leaves out of the ledger it "
                "writes: fix each, or run `tree-ring sync` and commit the ledger it writes"
            )
        if self.kept:
            said += (
                f"; {self.kept:,} line(s) of a record this version does not know (a newer "
                "Tree Ring's), which a sync skips and keeps as they stand"
            )
        for shown, count in ((self.named, self.dropped), (self.named_kept, self.kept)):
            said += "".join(f"\n{line}" for line in shown)
            if count > len(shown):
                said += f"\n... and {count - len(shown):,} more"
        return said


def _skipped(root: Path, db: Db, path: Path, name: str, theirs: set[bytes]) -> Skips:
    """Each line a sync skips as it reads the ledger, by the sync's own
    check (`ledger_read.skipped_lines`): the file's lines, a part at a time
    and each cut at MAX_LINE_BYTES (`line_bound.lines`), then the
    upstream's lines the file lacks, which a sync reads too (held as a sync
    holds them). Reads the store, the file and git; writes nothing (the
    guard's verdicts are read, never saved)."""
    found = Skips()
    try:
        project_id = project.load_project_id(root)
        if settings.recorded_project(db) not in (None, project_id):
            return found  # every verb refuses the store, a sync too: `project` names it
        verdicts = ledger_verdicts.load(db, project_id)
        handle = ledger_read.open_ledger(path)
    except TreeRingError:  # no project.json (`project` names it), or a store too damaged
        return found
    if handle is None:
        return found
    before = ledger_carried.load(db)

    def vouch(piece: bytes) -> bool:
        return piece in theirs or before.vouched(piece)

    with handle:
        try:
            numbered = _numbered(handle, theirs)
            found_lines = ledger_read.skipped_lines(db, numbered, project_id, verdicts, vouch)
            for skipped, carried in found_lines:
                found.add(skipped, carried, name)
        except (SchemaTooNew, ledger_read.OtherLedger) as exc:
            found.refused = str(exc)
        except TreeRingError:  # a store too damaged or too old to say: its checks name it
            return Skips()
    return found


def _numbered(handle: BinaryIO, theirs: set[bytes]) -> Iterator[tuple[int, bytes]]:
    """The file's lines by number, as a sync numbers them, then the
    upstream's lines the file lacks (numbered 0, as a sync numbers them)."""
    missing = set(theirs)
    for number, piece in enumerate(line_bound.lines(handle), start=1):
        missing.discard(piece)
        yield number, piece
    yield from ((0, piece) for piece in sorted(missing))


def _upstream_lines(root: Path) -> set[bytes]:
    """The upstream's ledger lines, as a sync reads them (`upstream.read`);
    none without git or an upstream."""
    from tree_ring.team import upstream

    try:
        return upstream.read(root).lines
    except (OSError, TreeRingError):  # no git to ask: the file's lines alone
        return set()


def _own_anchor(lines: list[ledger.Line], db: Db) -> ledger.Line | None:
    try:
        clone = settings.stored(db, "ledger")
    except TreeRingError:  # a store too damaged or too old to say: nothing anchored
        return None
    state = jsontext.as_object(clone)
    mine = state.get("clone") if state is not None else None
    if not mine:
        return None
    for line in lines:
        if line.data.get("record") == ledger.ANCHOR and line.data.get("clone") == mine:
            return line
    return None


def _header_project(lines: list[ledger.Line]) -> str | None:
    header = next((line for line in lines if line.data.get("record") == ledger.HEADER), None)
    named = header.data.get("project") if header is not None else None
    return named if isinstance(named, str) else None


def _forgotten_here(lines: list[ledger.Line], db: Db, project_id: str | None) -> set[str]:
    """The ids of the ledger's memory lines whose memory this store forgot: a
    forget commits the store, then rewrites the ledger, and one killed between
    the two leaves the text in a file the person may commit. (A later write
    or sync rewrites it; until then git would take the forgotten text.)"""
    if project_id is None:
        return set()
    try:
        forgotten = tombstones.forgotten_ids(db, project_id)
        named = {str(line.data["id"]) for line in _memory_lines(lines)} & forgotten
        # A consolidation rewritten in place, when one of its sources was
        # forgotten, keeps its id with its old text tombstoned under it: an
        # id the store still holds is no memory it forgot (its line's text
        # is `_forgotten_text`'s to read).
        return named - rows.content_hashes(db, named).keys()
    except TreeRingError:  # a store too damaged or too old to say
        return set()


def _forgotten_text(numbered: list[tuple[int, str]], db: Db, project_id: str | None) -> list[str]:
    """Where the ledger holds what this store's forgets tombstoned, in what
    the store did not write: a line copied or edited into the file, of any
    record, this version's or not, whatever it says of itself (a
    re-admission included: the store that holds one writes its line), and
    on a line of a memory the store holds with that content, every field
    but that content. `sync` drops such a line; a `git commit` would take
    it. A line the store writes as it stands is passed over; a memory line
    is read as a write of it would be checked (`tombstones.check_keys`),
    and every string of a line, or a line that is no JSON object, each as a
    write's text. Each is named by its id, or its line. The file is read
    in chunks of `_CHUNK` lines, compared with the store's own lines for
    the same ids: never held twice."""
    if project_id is None:
        return []
    found: list[str] = []
    try:
        for start in range(0, len(numbered), _CHUNK):
            chunk = [(n, raw, _object(raw)) for n, raw in numbered[start : start + _CHUNK]]
            ids = [name for _, _, line in chunk if (name := _memory_id(line)) is not None]
            mine = {
                str(line.data["id"]): line.text
                for line in ledger_state.store_lines(db, project_id, ids).values()
            }
            held = rows.content_hashes(db, ids)
            for number, raw, line in chunk:
                name = _named(number, line)
                if not raw.strip() or mine.get(name) == raw:
                    continue  # blank, or the store's own line as it writes it
                if _holds_forgotten(db, project_id, raw, line, held.get(name)):
                    found.append(name)
    except TreeRingError:  # a store too damaged or too old to say
        return []
    return found


def _the_upstreams(root: Path, numbered: list[tuple[int, str]], named: list[str]) -> bool:
    """Whether every line naming one of `named` (an id, or `line N`) is the
    upstream's as it stands: a line the team's clones wrote, not one copied
    or edited here, nor one a forget here left behind."""
    from tree_ring.team import upstream

    wanted = set(named)
    raws = [raw for number, raw in numbered if _named(number, _object(raw)) in wanted]
    try:
        theirs = upstream.read(root).lines
    except (OSError, TreeRingError):  # no git to ask: not known to be the upstream's
        return False
    return bool(raws) and all(raw.encode("utf-8") in theirs for raw in raws)


def _forgot_here(db: Db, ids: Iterable[str]) -> bool:
    """Whether this store forgot one of `ids` as a row it held (a person's
    forget here, or a teammate's taken by a sync): a line of it the upstream
    still holds is this store's lag, not a line the team's clones keep."""
    return any(audit.details(db, "forget", memory_id) for memory_id in ids)


def _named(number: int, line: dict[str, object] | None) -> str:
    """How a check names a line: its id, or its number."""
    named = line.get("id") if line is not None else None
    return named if isinstance(named, str) else f"line {number}"


def _text(path: Path) -> str:
    """The ledger's text as every reader reads it (`line_bound.bounded`): a
    line longer than MAX_LINE_BYTES cut short, never held whole."""
    with path.open("rb") as handle:
        return line_bound.bounded(handle).decode("utf-8", errors="replace")


def refusals(root: Path) -> list[dict[str, str]]:
    """Every tombstone the team ledger's lines hold, as every clone built
    from it reads them (the file's tombstone and redaction lines, and those
    its upstream's history held): each key a line holds, with the line's id
    and kind. What a re-admission writes over (`review readmit`, `remember
    --override-tombstone`) beside what the store holds: a line only the
    history holds never reached an existing clone's store. Read before the
    store's write begins: the history is git's to give, and no other writer
    waits for it."""
    path = sync.path_of(root)
    if not path.exists():
        return []
    lines = list(ledger.loose(ledger.numbered(_text(path))))
    found: list[dict[str, str]] = []
    for line in [*lines, *_history_stones(root, lines)]:
        record, memory_id = line.data.get("record"), line.data.get("id")
        if record not in (ledger.TOMBSTONE, ledger.REDACTION) or not isinstance(memory_id, str):
            continue
        kind = str(line.data.get("kind", "forgotten"))
        held = line.data.get("hashes")
        for key in cast("list[object]", held) if isinstance(held, list) else []:
            if isinstance(key, str):
                found.append({"content_hash": key, "memory_id": memory_id, "kind": kind})
    return found


def _history_stones(root: Path, lines: list[ledger.Line]) -> list[ledger.Line]:
    """The tombstone and redaction lines the upstream's history of the
    ledger held and its file no longer does: a fresh clone's first build
    refuses their words too (`ledger_history.py`), so a line added and
    removed again on a merged branch drops a memory from every new clone."""
    from tree_ring.team import upstream

    try:
        # The team's upstream, as a first build takes it; its ledger's blob is not read.
        ref, _ = upstream.upstream_ref(root)
        if ref is None:
            return []
        pieces = upstream.Upstream(root, ref).forgotten_ever()
    except (OSError, TreeRingError):  # no git to ask: nothing more to read
        return []
    held = {line.text for line in lines}
    found = ledger.loose((0, piece.decode("utf-8", "replace")) for piece in pieces)
    return [line for line in found if line.text not in held]


def _stones_refusing_kept(
    lines: list[ledger.Line],
    db: Db,
    project_id: str | None,
    history: list[ledger.Line],
) -> tuple[set[str], set[str]]:
    """The ids of the memories this store keeps that every clone built from
    the ledger would refuse, of those a clone would hold live (`_travels`):

    - first, those a tombstone or redaction line the store did not write (as
      it writes its own) refuses: an edited or added line holding a kept
      memory's words;
    - then, those any such line refuses, the store's own and those only the
      upstream's `history` holds included, each memory read as a clone reads
      its line (its words, less the keys a re-admission it carries
      overrides), whatever holds the same words under another id. This
      catches a widened line once it is the upstream's (a sync records its
      hashes as the store's own and keeps the memory), and a line only the
      history holds."""
    stones = [
        line
        for line in [*lines, *history]
        if line.data.get("record") in (ledger.TOMBSTONE, ledger.REDACTION)
        and isinstance(line.data.get("id"), str)
    ]
    if project_id is None or not stones:
        return set(), set()
    try:
        ids = [str(line.data["id"]) for line in stones]
        mine = {line.text for line in ledger_state.store_lines(db, project_id, ids).values()}
        past = {line.text for line in history}
        foreign = _hashes(line for line in stones if line.text not in mine | past)
        every = _hashes(stones)
        now = now_iso()
        kept = [m for m in holders.holding(db, project_id, every) if _travels(m, now)]
        refused = {m.id for m in kept if not foreign.isdisjoint(tombstones.check_keys(m))}
        held = {m.id for m in kept}
        dropped = {
            str(line.data["id"])
            for line in _memory_lines(lines)
            if line.data["id"] in held
            and (memory := _memory_of(line.data)) is not None
            and _refused_line(memory, line.data, every)
        }
        # The same words under another id do not settle it: every clone but this
        # one drops this line, and this one writes it back at every sync.
        return refused, dropped
    except TreeRingError:  # a store too damaged or too old to say
        return set(), set()


def _travels(memory: Memory, now: str) -> bool:
    """Whether a clone built from the ledger would hold `memory` live: a
    memory a person can read there (accepted, or disputed by an agent: its
    line travels so a teammate still gets it), not yet expired. A pending
    claim refused by a tombstone, or an expired memory dropped, costs no one
    anything."""
    return memory.trust in ("accepted", "disputed") and not (
        memory.expires_at is not None and memory.expires_at <= now
    )


def _hashes(stones: Iterable[ledger.Line]) -> set[str]:
    return {
        h
        for line in stones
        if isinstance(line.data.get("hashes"), list)
        for h in line.data["hashes"]
        if isinstance(h, str)
    }


def _refused_line(memory: Memory, line: dict[str, object], hashes: set[str]) -> bool:
    """Whether a clone building `memory` from its `line` refuses it for
    `hashes`: its keys as a write checks them, less those a re-admission the
    line carries overrides."""
    try:
        carried = readmit.parse_carried(line.get(readmit.CARRIED))
    except TreeRingError:
        carried = None
    overrides: set[str] = set(carried["overrides"]) if carried is not None else set()
    return not hashes.isdisjoint(set(tombstones.check_keys(memory)) - overrides)


def _reasons_quoting(lines: list[ledger.Line], db: Db, project_id: str | None) -> list[str]:
    """The ids of the memory lines whose re-admission reason quotes what
    this store forgot, read as a re-admission's reason is checked when it is
    given (`govern/reasons.py`: any run of its words)."""
    if project_id is None:
        return []
    from tree_ring.govern import reasons

    withholding = reasons.Withholding(db)
    found: list[str] = []
    for line in _memory_lines(lines):
        readmitted = line.data.get(readmit.CARRIED)
        reason = (
            cast("dict[str, object]", readmitted).get("reason")
            if isinstance(readmitted, dict)
            else None
        )
        if isinstance(reason, str) and withholding.spans(project_id, reason):
            found.append(str(line.data["id"]))
    return sorted(found)


def _holds_forgotten(
    db: Db, project_id: str, raw: str, line: dict[str, object] | None, held: str | None
) -> bool:
    """Whether a line the store did not write as it stands holds what this
    store's forgets tombstoned; `held`: the content hash of the row the
    store holds under the line's id."""
    if line is None:
        return tombstones.quoted(db, project_id, [raw], forgets_only=True)
    memory = _memory_of(line)
    if memory is not None and memory.content_hash == held:
        # A memory the store holds, with this content: every other field.
        texts = texts_of({k: v for k, v in line.items() if k not in _CONTENT})
        return tombstones.quoted(db, project_id, texts, forgets_only=True)
    if tombstones.quoted(db, project_id, texts_of(line), forgets_only=True):
        return True
    keys = tombstones.check_keys(memory) if memory is not None else []
    return bool(keys) and bool(tombstones.held(db, project_id, keys, forgets_only=True))


def _object(raw: str) -> dict[str, object] | None:
    try:
        data: object = jsontext.loads_utf8(raw)
    except (ValueError, RecursionError):
        return None
    return cast("dict[str, object]", data) if isinstance(data, dict) else None


def _memory_id(line: dict[str, object] | None) -> str | None:
    if line is None or line.get("record") != ledger.MEMORY:
        return None
    named = line.get("id")
    return named if isinstance(named, str) else None


# Lines read at a time, each compared with the store's own line for its id.
_CHUNK = 2_000
# A memory line's content: what its content hash covers, checked as written.
_CONTENT = frozenset({"summary", "details", "tags", "content_hash"})


def _memory_of(line: dict[str, object]) -> Memory | None:
    """A memory line as a write would take it, or None when none could."""
    if line.get("record") != ledger.MEMORY:
        return None
    try:
        return from_mapping(line).with_hash()
    except (TreeRingError, TypeError, ValueError):
        return None


def _memory_lines(lines: list[ledger.Line]) -> list[ledger.Line]:
    """The memory lines whose id is text: a hand-edited line may hold
    anything there, which `sync` refuses and nothing here may trip on."""
    return [
        line
        for line in lines
        if line.data.get("record") == ledger.MEMORY and isinstance(line.data.get("id"), str)
    ]
