"""What the screen shows, and what each key does to it: pure, no curses, no store.

A key changes the state (the cursor, a prompt's text, a toggle) and may ask
for an `Action`: something only the store can answer (load a view, search)
or change (approve, forget). The loop in `screen` runs the action through
`actions` and hands the answer back. Every change to memory is asked for in
two steps at least: the key, then `y` at a confirmation that names the memory
(and a reason first where the audit log keeps one), so no single stray key
writes anything, and moving around never does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tree_ring.model.record import RINGS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tree_ring.model.record import Memory

# The views a person moves between; `exploded` is the rings panel's other face.
VIEWS = ("memories", "search", "review", "inbox", "stream", "evidence", "integrations", "audit")
# Actions that read; everything else an `Action` names changes the store.
# `place`: where an export would go, checked before its confirmation is asked.
READS = frozenset({"load", "search", "audit", "integrations", "quit", "help", "place"})
# The second argument of an export whose file is there already: the confirmation says so.
REPLACES = "replaces"
# What each write is called when the confirmation asks for it.
VERB = {
    "approve": "approve",
    "reject": "reject",
    "dispute": "dispute",
    "forget": "forget (delete)",
    "redact": "redact",
    "promote": "promote",
    "keep": "keep",
    "ring": "move to ring",
    "supersede": "supersede",
    "remember": "remember",
    "consolidate": "consolidate",
    "export": "export",
    "sync": "sync",
}
# Writes that keep a reason in the audit log: asked for before the confirmation.
NEEDS_REASON = frozenset({"reject", "dispute", "forget", "redact", "supersede", "promote"})


@dataclass(frozen=True)
class Action:
    """A request the loop carries out against the store."""

    name: str
    target: str | None = None  # a memory id, when the action is on one
    args: tuple[str, ...] = ()
    reason: str | None = None  # the person's reason, kept in the audit log

    @property
    def writes(self) -> bool:
        return self.name not in READS


@dataclass(frozen=True)
class RingStat:
    ring: str
    total: int = 0  # the ring's rows in the memory list (see `Dashboard.listed`)
    confidence: float = 0.0  # average over those rows
    salience: float = 0.0
    private: int = 0  # the ring's listed rows of any sensitivity but normal, shown or not
    top_event: str = ""  # the ring's most frequent event type


@dataclass(frozen=True)
class Counts:
    """What `tree-ring status` counts (`api/status.py`), as the header shows it:
    the same numbers on the same store, from every client."""

    live: int = 0
    pending: int = 0
    disputed: int = 0
    retired: int = 0
    sensitive: int = 0  # live rows of any sensitivity but normal
    review: int = 0  # the review queue, as `review list` shows it
    inbox: int | None = None  # None: an agent's screen, which has no inbox
    by_ring: tuple[tuple[str, int], ...] = ()  # live rows per ring
    user: int | None = None  # live rows of the person's user store; None: there is none
    user_error: str = ""  # why the user store could not be read

    @classmethod
    def of(cls, status: dict[str, Any], *, inbox: bool = True) -> Counts:
        """`status`'s figures; the inbox only where the screen has one."""
        counts: dict[str, Any] = status["memories"]
        mine: dict[str, Any] = status["user_store"]
        return cls(
            live=counts["live"],
            pending=counts["pending"],
            disputed=counts["disputed"],
            retired=counts["retired"],
            sensitive=counts["sensitive"],
            review=status["review_queue"],
            inbox=status["inbox"] if inbox else None,
            by_ring=tuple(sorted(counts["by_ring"].items())),
            user=mine["live"] if mine.get("exists") else None,
            user_error=str(mine.get("error", "")),
        )

    def ring(self, ring: str) -> int:
        return dict(self.by_ring).get(ring, 0)


@dataclass(frozen=True)
class Dashboard:
    """The ring panel (the rows the memory list shows, at the screen's toggles
    and time) and the header's figures (`status`'s, of now)."""

    rings: tuple[RingStat, ...] = tuple(RingStat(r) for r in RINGS)
    # The rows the memory list shows at the screen's toggles (accepted,
    # pending and disputed; other sensitivities only when shown): the list's
    # own count, and the rings' counts add up to it.
    listed: int = 0
    counts: Counts | None = None  # None until counted: the first frame comes without

    def count(self, ring: str) -> int:
        return next((s.total for s in self.rings if s.ring == ring), 0)


@dataclass(frozen=True)
class Item:
    """One row of the list: a memory (with what the view adds), or a line of
    another kind (an audit entry, an integration) with its detail lines."""

    key: str
    memory: Memory | None = None
    note: str = ""  # a score, a decision
    pair: tuple[Memory, ...] = ()  # the live memories a pending one contradicts
    text: str = ""  # the row, for items that are not memories
    detail: tuple[str, ...] = ()  # the detail pane, for items that are not memories
    provenance: str = ""  # where the team ledger line that made it came from (`team/provenance`)
    anchors: tuple[str, ...] = ()  # the files it is about, and whether each changed
    # Who refuted it and why, and how often it was injected and recalled (`upkeep/usage`).
    notes: tuple[str, ...] = ()


@dataclass
class Prompt:
    """A line of input at the bottom: a command, a query, a reason, y/n."""

    kind: str  # command | search | reason | confirm | time | text
    label: str
    buffer: str = ""
    action: Action | None = None  # what the answer completes


@dataclass
class State:
    project: str = ""
    view: str = "memories"
    exploded: bool = False
    items: list[Item] = field(default_factory=lambda: [])
    cursor: int = 0
    top: int = 0
    page: int = 10  # list rows on screen; the layout sets it
    dashboard: Dashboard = field(default_factory=Dashboard)
    include_sensitive: bool = False
    include_superseded: bool = False
    query: str = ""
    as_of: str | None = None
    valid_at: str | None = None
    show_audit: bool = False
    audit: list[dict[str, Any]] = field(default_factory=lambda: [])
    prompt: Prompt | None = None
    status: str = ""
    help: bool = False
    help_top: int = 0  # the help's first line on screen
    watching: bool = True
    changes: int = 0  # writes seen from other processes since start
    # The last frame had no room for the screen, only "enlarge the terminal"
    # (the layout sets it): until one has, keys do nothing but quit (`keys`).
    too_small: bool = False

    # ----------------------------------------------------------- selection

    def selected(self) -> Item | None:
        if 0 <= self.cursor < len(self.items):
            return self.items[self.cursor]
        return None

    def selected_memory(self) -> Memory | None:
        item = self.selected()
        return item.memory if item else None

    def set_items(self, items: list[Item]) -> None:
        """New rows, keeping the cursor on the same key where it still is."""
        chosen = self.selected()
        key = chosen.key if chosen else None
        self.items = items
        where = next((i for i, it in enumerate(items) if it.key == key), None)
        self.cursor = where if where is not None else min(self.cursor, max(len(items) - 1, 0))
        self.scroll()

    def move(self, delta: int) -> None:
        if self.items:
            self.cursor = max(0, min(len(self.items) - 1, self.cursor + delta))
        self.scroll()

    def scroll(self) -> None:
        page = max(self.page, 1)
        if self.cursor < self.top:
            self.top = self.cursor
        elif self.cursor >= self.top + page:
            self.top = self.cursor - page + 1
        self.top = max(0, min(self.top, max(len(self.items) - page, 0)))

    # ------------------------------------------------------------ prompts

    def ask(self, action: Action) -> None:
        """Begin a write: a reason first if the audit log keeps one, then y/n."""
        if action.name in NEEDS_REASON and not action.reason:
            self.prompt = Prompt(
                "reason", f"{VERB[action.name]} {action.target}: reason", "", action
            )
        else:
            self.prompt = Prompt("confirm", confirmation(action), "", action)

    def cancel(self, note: str = "cancelled") -> None:
        self.prompt = None
        self.status = note


def confirmation(action: Action) -> str:
    if action.name == "export":
        replacing = " (replaces the file there)" if REPLACES in action.args[1:] else ""
        return f"export to {action.args[0]}{replacing}? y/n"
    what = VERB.get(action.name, action.name)
    words = [what]
    if action.target:
        words.append(action.target)
    words += action.args
    # y/n before the reason: a long reason is clipped at the screen's edge, not the question.
    asked = " ".join(words) + "? y/n"
    return f"{asked} (reason: {action.reason})" if action.reason else asked


def switch(state: State, view: str) -> Action | None:
    if view != state.view:
        state.view = view
        state.cursor = state.top = 0
    return Action("load")
