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
`team_remote.py` says which remote is the team's. A project outside git, or a branch with
no upstream, has no trusted lines but its own.

Git runs only when the ledger changed since the last sync; each call is read
only. `blame` (who last set each upstream line) runs only when an upstream
line is about to be applied, and `forgotten_ever` (every tombstone and
redaction line the upstream history ever held) only when a store is built from the ledger for
the first time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tree_ring.model import line_bound
from tree_ring.model.line_bound import MAX_LINE_BYTES
from tree_ring.team import team_remote
from tree_ring.team.ledger_delta import LEDGER, probe

UPSTREAM = "upstream"
LOCAL_COMMIT = "local commit"
WORKING_TREE = "working tree"
TIMEOUT_S = 120
_REDACTION = b'"record":"redaction"'


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


def git_output(root: str | Path, *args: str, limit: int = MAX_LINE_BYTES) -> bytes | None:
    """A read-only git command's output, or None when it failed, ran past
    TIMEOUT_S or git is missing. Read a block at a time as the ledger's file
    is (`line_bound.lines`): a line of it longer than `limit` comes cut
    short, never held whole (the upstream's ledger can hold one of gigabytes)."""
    # Here, not at the top: `show` and the review queue read provenance without git.
    import shutil
    import subprocess
    import threading

    git = shutil.which("git")
    if git is None:
        return None
    try:
        run = subprocess.Popen(
            [git, "-C", str(root), *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        return None
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
    _committed: set[bytes] | None = None  # HEAD's ledger lines, read when a claim needs them
    _blame: dict[bytes, tuple[str, str]] | None = None
    # Why the branch's upstream vouches for nothing: another remote's (one line).
    passed_over: str | None = None

    def provenance(self, raw: bytes) -> Provenance:
        """Where the raw line `raw` came from."""
        if raw in self.lines:
            commit, author = self.blame().get(raw, (None, None))
            return Provenance(UPSTREAM, commit, author, self.ref)
        if self._committed is None:
            self._committed = _lines(git_output(self.root, "show", f"HEAD:{LEDGER}"))
        return Provenance(LOCAL_COMMIT if raw in self._committed else WORKING_TREE)

    def blame(self) -> dict[bytes, tuple[str, str]]:
        """Each upstream line -> (commit, author) of the commit that last set it."""
        if self._blame is None:
            self._blame = {}
            if self.ref is not None:
                # Each line's content after a tab: cut where the ledger's line is.
                out = git_output(
                    self.root,
                    "blame",
                    "--line-porcelain",
                    self.ref,
                    "--",
                    LEDGER,
                    limit=MAX_LINE_BYTES + 1,
                )
                self._blame = parse_blame(out or b"")
        return self._blame

    def shallow(self) -> bool:
        """Whether the clone is shallow: its history of the ledger is cut short."""
        out = git_output(self.root, "rev-parse", "--is-shallow-repository")
        return (out or b"").strip() == b"true"

    def forgotten_ever(self) -> list[bytes]:
        """Every tombstone and redaction line the upstream's history of the
        ledger ever held, deleted since or not: a commit that removes one does
        not undo it."""
        if self.ref is None:
            return []
        out = git_output(
            self.root,
            "log",
            "-p",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--diff-merges=first-parent",
            "--format=",
            self.ref,
            "--",
            LEDGER,
            limit=MAX_LINE_BYTES + 1,  # each line after its `+`: cut where the ledger's line is
        )
        found: dict[bytes, None] = {}
        for piece in (out or b"").split(b"\n"):
            if piece.startswith(b"+{") and (
                b'"record":"tombstone"' in piece or _REDACTION in piece
            ):
                found[piece[1:]] = None
        return list(found)


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
