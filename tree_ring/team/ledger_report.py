"""What a team ledger sync did: each id it wrote, forgot or claimed, and each
line it skipped and why (`sync.py`)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Skipped:
    """A ledger line not taken, and why. The reason quotes what the line
    says (an unknown scope, another project's id) so a person can find it;
    whatever of that looks like a secret is withheld, as from an error."""

    line: int
    reason: str

    def __post_init__(self) -> None:
        from tree_ring.guard.messages import withhold

        object.__setattr__(self, "reason", withhold(self.reason))

    def named(self, ledger_name: str) -> str:
        """The line, where, and why: `ledger.jsonl:7: reason`; a line only the
        upstream's ledger holds (line 0) has no number in the file, and its
        reason says whose it is."""
        where = f"{ledger_name}:{self.line}" if self.line else ledger_name
        return f"{where}: {self.reason}"


def named(skipped: list[Skipped], ledger_name: str, shown: int) -> list[str]:
    """The first `shown` lines skipped, each as `Skipped.named` says it, then
    one line for the rest: what `init` and the SessionStart hook say."""
    said = [s.named(ledger_name) for s in skipped[:shown]]
    if len(skipped) > shown:
        rest = len(skipped) - shown
        said.append(f"{rest} more line(s) of {ledger_name} not taken; `tree-ring sync` lists them")
    return said


@dataclass
class SyncReport:
    path: str
    imported: list[str] = field(default_factory=lambda: [])
    replaced: list[str] = field(default_factory=lambda: [])
    forgotten: list[str] = field(default_factory=lambda: [])
    redacted: list[str] = field(default_factory=lambda: [])
    skipped: list[Skipped] = field(default_factory=lambda: [])
    # Claims: pending rows made from lines not from upstream, and requests to forget.
    claimed: list[str] = field(default_factory=lambda: [])
    requested: list[str] = field(default_factory=lambda: [])
    # Tombstones taken from the upstream's history of the ledger (a first build).
    history: int = 0
    notes: list[str] = field(default_factory=lambda: [])  # one line each, for a person
    upstream: str | None = None  # the remote-tracking ref trusted, or None
    # The raw lines read as claims, now or before: taken, or refused as they stand
    # (what `ledger_delta` passes over until a full sync reads them again).
    claim_lines: list[bytes] = field(default_factory=lambda: [])
    lines: int = 0
    written: bool = False
    audit: str | None = None  # what the anchor says about this clone's audit log


def line_number(data: bytes, raw: bytes) -> int:
    """The number of the first line of `data` that is `raw`, or 0 when none
    is: the lines a pass hands to `apply_lines` are the file's, each found
    by a byte search, and counted only when one is skipped."""
    at = data.find(raw)
    while at >= 0:
        end = at + len(raw)
        if (at == 0 or data[at - 1] == 0x0A) and (end == len(data) or data[end] == 0x0A):
            return data.count(b"\n", 0, at) + 1
        at = data.find(raw, at + 1)
    return 0
