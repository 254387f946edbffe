"""What the upstream branch says of the team ledger: the lines a clone trusts.

A ledger line is believed as far as it came from the remote the project pulls
from, as the rest of that repository is: the branch's upstream, a
remote-tracking ref (`refs/remotes/...`) that `git fetch` moves. A line the
upstream's ledger holds is trusted; any other line a clone did not write
itself (a working-tree edit, a local commit, a local branch merged by the
driver) is a claim, and waits for a person (`team/sync.py`). Agents edit files
and make commits all day, so being committed proves nothing; being upstream
proves what the remote's access control proves.

An upstream that is a local branch (`git branch -u other`) is no upstream:
anyone who can commit can move one. Nor is a branch of another remote than
the team's (a contributor's fork, checked out to review a pull request):
`team_remote.py` says which remote is the team's. A branch with no upstream
yet (`git checkout -b`, `git worktree add -b`) is read against the team's
remote's default branch (`refs/remotes/TEAM/HEAD`, `ledger_delta.probe`). A
project outside git, or one whose team remote names no default branch, has
no trusted lines but its own.

Git runs only when the ledger changed since the last sync; each call is read
only. `blame` (who last set each upstream line) runs only when an upstream
line is about to be applied, and `forgotten_ever` (every tombstone and
redaction line the upstream history ever held) only when a store is built from the ledger for
the first time. Neither diffs a version of the ledger larger than
MAX_VERSION_BYTES: git would hold it whole, whatever bounds its lines here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tree_ring.model import line_bound
from tree_ring.model.line_bound import MAX_LINE_BYTES
from tree_ring.store.ledger_rows import UPSTREAM
from tree_ring.team import team_remote
from tree_ring.team.ledger_delta import LEDGER, probe

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO

LOCAL_COMMIT = "local commit"
WORKING_TREE = "working tree"
TIMEOUT_S = 120
# A version of the ledger in its upstream history larger than this is not
# diffed: git holds both sides of a diff whole, whatever their lines' lengths.
MAX_VERSION_BYTES = 64 << 20
_REDACTION = b'"record":"redaction"'
# How the history of the ledger is walked, for its blobs and for its diffs.
_WALK = ("--no-color", "--no-ext-diff", "--no-textconv", "--diff-merges=first-parent")


@dataclass(frozen=True)
class Provenance:
    """Where one ledger line came from, as this clone can tell."""

    source: str  # UPSTREAM, LOCAL_COMMIT or WORKING_TREE
    commit: str | None = None  # the upstream commit that last set the line
    author: str | None = None  # its author, as git records it (a name, not a proof)
    ref: str | None = None  # the remote-tracking ref it was read from

    def label(self) -> str:
        """One line for a person: who put it there."""
        if self.source != UPSTREAM:
            return self.source
        said = f"upstream {self.ref or ''}".rstrip()
        if self.commit:
            said += f" commit {self.commit[:12]}"
        if self.author:
            said += f" by {self.author}"
        return said


def git_output(
    root: str | Path, *args: str, limit: int = MAX_LINE_BYTES, stdin: bytes | None = None
) -> bytes | None:
    """A read-only git command's output, or None when it failed, ran past
    TIMEOUT_S or git is missing. Read a block at a time as the ledger's file
    is (`line_bound.lines`): a line of it longer than `limit` comes cut
    short, never held whole (the upstream's ledger can hold one of gigabytes).
    `stdin`, when given, is git's input, from a temporary file."""
    # Here, not at the top: `show` and the review queue read provenance without git.
    import shutil
    import subprocess
    import threading

    git = shutil.which("git")
    if git is None:
        return None
    given = None if stdin is None else _input_file(stdin)
    try:
        run = subprocess.Popen(
            [git, "-C", str(root), *args],
            stdin=subprocess.DEVNULL if given is None else given,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        return None
    finally:
        if given is not None:
            given.close()  # git holds its own copy of the descriptor
    timer = threading.Timer(TIMEOUT_S, run.kill)
    timer.start()
    try:
        with run:
            assert run.stdout is not None
            out = b"\n".join(line_bound.lines(run.stdout, limit=limit))
    except OSError:
        return None
    finally:
        timer.cancel()
    return out if run.returncode == 0 else None


def _input_file(data: bytes) -> IO[bytes]:
    """`data` in an unnamed temporary file, read from its start: git's input,
    read whole before git writes much, so no pipe waits on another."""
    import tempfile

    given = tempfile.TemporaryFile()  # noqa: SIM115 - `git_output` closes it once git has it
    given.write(data)
    given.seek(0)
    return given


def upstream_ref(root: Path) -> tuple[str | None, str | None]:
    """The current branch's upstream when it is a branch of the team's remote
    (`team_remote.py`), else None; and, for an upstream of another remote,
    one line saying why it is passed over."""
    out = git_output(root, "rev-parse", "--symbolic-full-name", "@{upstream}")
    ref = out.decode("utf-8", "replace").strip() if out else ""
    if not ref.startswith("refs/remotes/"):
        return None, None
    why = team_remote.passed_over(ref, git_output(root, *team_remote.QUERY))
    return (None, why) if why is not None else (ref, None)


def _lines(data: bytes | None) -> set[bytes]:
    return {piece for piece in (data or b"").split(b"\n") if piece.strip()}


@dataclass
class Upstream:
    """The upstream's ledger, read once per sync of a changed ledger."""

    root: Path
    ref: str | None
    oid: str | None = None  # the blob id of the upstream's ledger
    commit: str | None = None  # the upstream's commit it was read from
    lines: set[bytes] = field(default_factory=lambda: set())
    # A line of the file that is an upstream line the file lacks, as this
    # clone writes it, the words it forgot withheld (`ledger_read.written_forms`)
    # -> that line: the upstream's line is read in its place.
    as_written: dict[bytes, bytes] = field(default_factory=lambda: {})
    _committed: set[bytes] | None = None  # HEAD's ledger lines, read when a claim needs them
    _blame: dict[bytes, tuple[str, str]] | None = None
    # Why the branch's upstream vouches for nothing: another remote's (one line).
    passed_over: str | None = None
    # The versions of the ledger `forgotten_ever` left out, one line each.
    skipped: list[str] = field(default_factory=lambda: list[str]())
    _sizes: tuple[list[tuple[str, set[str], set[str]]], dict[str, str]] | None = None

    def provenance(self, raw: bytes) -> Provenance:
        """Where the raw line `raw` came from."""
        if raw in self.lines:
            commit, author = self.blame().get(raw, (None, None))
            return Provenance(UPSTREAM, commit, author, self.ref)
        if self._committed is None:
            self._committed = _lines(git_output(self.root, "show", f"HEAD:{LEDGER}"))
        return Provenance(LOCAL_COMMIT if raw in self._committed else WORKING_TREE)

    def blame(self) -> dict[bytes, tuple[str, str]]:
        """Each upstream line -> (commit, author) of the commit that last set it.
        Blame diffs each version of the ledger against the one before, so it
        stops at each commit out of a version larger than MAX_VERSION_BYTES
        (a line set before it has no commit here), and does not run when the
        upstream's ledger is such a version."""
        if self._blame is None:
            self._blame = {}
            history = self._history() if self.ref is not None else None
            if self.ref is not None and history is not None:
                changes, over = history
                tip = {self.oid} if self.oid else changes[0][2] if changes else set[str]()
                stops = [commit for commit, before, _ in changes if before & over.keys()]
                if tip & over.keys():
                    return self._blame
                # Each line's content after a tab: cut where the ledger's line is.
                out = git_output(
                    self.root,
                    "blame",
                    "--line-porcelain",
                    self.ref,
                    *(f"^{commit}" for commit in stops),
                    "--",
                    LEDGER,
                    limit=MAX_LINE_BYTES + 1,
                )
                found = parse_blame(out or b"")
                self._blame = {raw: by for raw, by in found.items() if by[0] not in stops}
        return self._blame

    def shallow(self) -> bool:
        """Whether the clone is shallow: its history of the ledger is cut short."""
        out = git_output(self.root, "rev-parse", "--is-shallow-repository")
        return (out or b"").strip() == b"true"

    def forgotten_ever(self) -> list[bytes]:
        """Every tombstone and redaction line the upstream's history of the
        ledger ever held, deleted since or not: a commit that removes one does
        not undo it. A commit to or from a version of the ledger larger than
        MAX_VERSION_BYTES is not diffed (git would hold that version whole):
        `skipped` names each such version in one line."""
        history = self._history() if self.ref is not None else None
        if self.ref is None or history is None:
            return []
        changes, over = history
        self.skipped = [
            f"{LEDGER.removeprefix('./')} in upstream commit {commit[:12]}: "
            f"larger than {MAX_VERSION_BYTES:,} bytes; its history there was not read"
            for commit in dict.fromkeys(over.values())
        ]
        if not over:
            args: tuple[str, ...] = ("-p", *_WALK, "--format=", self.ref)
            given = None
        else:
            # Only the commits that touch no such version, each diffed as before.
            kept = [c for c, before, after in changes if not (before | after) & over.keys()]
            if not kept:
                return []
            args = ("--no-walk=unsorted", "--stdin", "-p", *_WALK, "--format=")
            given = "".join(f"{commit}\n" for commit in kept).encode()
        out = git_output(
            self.root,
            "log",
            *args,
            "--",
            LEDGER,
            limit=MAX_LINE_BYTES + 1,  # each line after its `+`: cut where the ledger's line is
            stdin=given,
        )
        found: dict[bytes, None] = {}
        for piece in (out or b"").split(b"\n"):
            if piece.startswith(b"+{") and (
                b'"record":"tombstone"' in piece or _REDACTION in piece
            ):
                found[piece[1:]] = None
        return list(found)

    def _history(self) -> tuple[list[tuple[str, set[str], set[str]]], dict[str, str]] | None:
        """The commits `git log -p` shows of the upstream's ledger, newest
        first, each with the ledger's blobs it goes from and to; and the
        blobs larger than MAX_VERSION_BYTES -> the oldest of those commits
        that holds each, the one that made it. Two git calls, neither of
        which reads a blob: `log --raw` and `cat-file --batch-check` for the
        sizes. None when git failed."""
        if self._sizes is not None:
            return self._sizes
        raw = git_output(
            self.root,
            "log",
            "--raw",
            "--no-abbrev",
            "--format=commit %H",
            *_WALK,
            str(self.ref),
            "--",
            LEDGER,
        )
        if raw is None:
            return None
        changes: list[tuple[str, set[str], set[str]]] = []
        for piece in raw.decode("ascii", "replace").split("\n"):
            if piece.startswith("commit "):
                changes.append((piece[7:].strip(), set(), set()))
            elif piece.startswith(":") and changes:
                fields = piece.split("\t", 1)[0].split(" ")
                if len(fields) >= 4:
                    changes[-1][1].update(fields[2:3] if fields[2].strip("0") else ())
                    changes[-1][2].update(fields[3:4] if fields[3].strip("0") else ())
        blobs = sorted({blob for _, before, after in changes for blob in before | after})
        over: dict[str, str] = {}
        if blobs:
            sizes = git_output(
                self.root,
                "cat-file",
                "--batch-check=%(objectname) %(objectsize)",
                stdin="".join(f"{blob}\n" for blob in blobs).encode(),
            )
            if sizes is None:
                return None
            for piece in sizes.decode("ascii", "replace").split("\n"):
                blob, _, size = piece.partition(" ")
                if size.isdigit() and int(size) > MAX_VERSION_BYTES:
                    over[blob] = ""
        for commit, before, after in reversed(changes):
            for blob in (before | after) & over.keys():
                over[blob] = over[blob] or commit
        self._sizes = (changes, over)
        return self._sizes


def read(root: Path) -> Upstream:
    """The upstream's ledger lines, or none outside git or without an upstream:
    one `rev-parse` for the upstream and its ledger's blob, one `cat-file` for
    the blob (without a ledger there, one more `rev-parse` for the upstream)."""
    ref, oid, commit, why = probe(str(root), git_output)
    if why is not None:
        return Upstream(root, None, passed_over=why)
    if oid is None:
        ref, why = upstream_ref(root)
        return Upstream(root, ref, passed_over=why)
    up = Upstream(root, ref, oid=oid, commit=commit)
    up.lines = _lines(git_output(root, "cat-file", "blob", oid))
    return up


def parse_blame(out: bytes) -> dict[bytes, tuple[str, str]]:
    """`git blame --line-porcelain`: each line's content -> (commit, author)."""
    found: dict[bytes, tuple[str, str]] = {}
    commit, name, mail = "", "", ""
    for piece in out.split(b"\n"):
        if piece.startswith(b"\t"):
            found.setdefault(piece[1:], (commit, safe_author(f"{name} {mail}")))
        elif piece.startswith(b"author "):
            name = piece[7:].decode("utf-8", "replace")
        elif piece.startswith(b"author-mail "):
            mail = piece[12:].decode("utf-8", "replace")
        elif len(piece) >= 40 and b" " in piece and _is_hex(piece[:40]):
            commit = piece[:40].decode("ascii")
    return found


def safe_author(text: str) -> str:
    """A commit's author as Tree Ring keeps it: on one line, without control
    or invisible characters, and withheld whole when it reads as a secret.
    Anyone who commits chooses what git records as their name and email, and
    the store, `show` and the review queue repeat it."""
    from tree_ring.model.text import one_line

    return withheld_author(one_line(text))


def withheld_author(text: str) -> str:
    """`text`, or the guard's placeholder when it reads as a secret."""
    from tree_ring.guard import find_secret
    from tree_ring.guard.messages import BARE

    return BARE if find_secret(text) is not None else text


def _is_hex(text: bytes) -> bool:
    return all(c in b"0123456789abcdef" for c in text)
