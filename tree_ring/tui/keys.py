"""What each key does: moves, toggles, prompts, and the writes it asks for.

A key changes the `State` and may return an `Action` for the loop to carry
out; see `state` for why every write takes a key and then `y`.
"""

from __future__ import annotations

from tree_ring.tui import commands
from tree_ring.tui.state import VERB, Action, Prompt, State, switch
from tree_ring.write.requests import is_request_id

# ------------------------------------------------------------------- keys
#
# A key is a one-character string, or a name for the keys that are not
# characters: UP DOWN PGUP PGDN HOME END ENTER ESC BACKSPACE RESIZE TAB.

MOVES = {"UP": -1, "k": -1, "DOWN": 1, "j": 1}
VIEW_KEYS = {"m": "memories", "v": "review", "n": "inbox", "w": "stream", "e": "evidence"}
# key -> (action, the trust states it applies to; empty: any memory)
WRITE_KEYS: dict[str, tuple[str, tuple[str, ...]]] = {
    "a": ("approve", ("pending", "disputed")),
    "x": ("reject", ("pending", "disputed")),
    "d": ("dispute", ("pending", "accepted")),
    "f": ("forget", ()),
    "p": ("promote", ()),
    "K": ("keep", ()),
}

KEY_HELP: tuple[tuple[str, str], ...] = (
    ("j k ↑ ↓ PgUp PgDn g G", "move"),
    ("/", "command line (/help lists the commands)"),
    ("s", "search (recall)"),
    ("r", "rings: ambient or exploded"),
    ("m v n w e", "views: memories, review, inbox, stream (live), evidence"),
    ("i", "show or hide sensitive memories"),
    ("u", "show or hide superseded memories"),
    ("l", "audit log of the selected memory"),
    ("t", "time: believed as of TIME (empty: now)"),
    ("a x d", "approve, reject, dispute the selected memory"),
    ("f", "forget the selected memory (asks a reason)"),
    ("p", "promote: an agent's capture to the project, else heartwood"),
    ("K", "keep an inbox capture where it is (seen)"),
    ("R", "reload from the store"),
    ("?", "this help"),
    ("q Esc", "quit (Esc leaves a prompt or this help first)"),
)


# The key help at the foot of the screen, most wanted first; `?` lists every key.
FOOTER = (
    "q quit",
    "? help",
    "/ cmd",
    "s search",
    "r rings",
    "i sensitive",
    "u superseded",
    "v review",
    "a approve",
    "x reject",
    "f forget",
    "l log",
    "t time",
    "w stream",
    "m memories",
    "n inbox",
    "e evidence",
    "d dispute",
    "p promote",
    "K keep",
    "R reload",
)


def footer(width: int, rows: int = 1) -> list[str]:
    """The key help in as few lines as hold it all, at most `rows`: whole
    entries, in order, each line within `width`. At 80 columns two lines hold
    everything to `n inbox`, `? help` on the first (one line held only as far
    as `v review`); `?` lists the rest."""
    lines: list[str] = []
    line = ""
    for part in FOOTER:
        candidate = f"{line}  {part}" if line else part
        if len(candidate) <= width:
            line = candidate
            continue
        lines.append(line)
        if len(lines) == rows:
            return lines
        line = part if len(part) <= width else ""
    return [*lines, line]


def handle_key(state: State, key: str) -> Action | None:
    """Apply `key` to `state`; the action the loop should carry out, if any."""
    if state.too_small:
        # Only "enlarge the terminal" is on the screen: a key that moved,
        # opened a prompt or answered one would act on what nobody can see,
        # a `y` confirm a write never shown. So only q and Esc work (they
        # quit); a prompt left open waits, as it was, for a screen to show it.
        return Action("quit") if key in ("q", "ESC") else None
    if state.prompt is not None:
        return _prompt_key(state, state.prompt, key)
    if state.help:
        if key in MOVES or key in ("PGDN", "PGUP"):
            step = MOVES.get(key) or (state.page if key == "PGDN" else -state.page)
            state.help_top = max(0, state.help_top + step)
        state.help = key not in ("ESC", "?", "q", "ENTER")
        return None
    if key in ("q", "ESC"):
        return Action("quit")
    if key in MOVES:
        state.move(MOVES[key])
    elif key == "PGDN":
        state.move(max(state.page - 1, 1))
    elif key == "PGUP":
        state.move(-max(state.page - 1, 1))
    elif key in ("g", "HOME"):
        state.move(-len(state.items))
    elif key in ("G", "END"):
        state.move(len(state.items))
    elif key == "/":
        state.prompt = Prompt("command", "/")
    elif key == "s":
        state.prompt = Prompt("search", "search", state.query)
    elif key == "t":
        state.prompt = Prompt("time", "as of (ISO time, empty for now)", state.as_of or "")
    elif key == "r":
        state.exploded = not state.exploded
    elif key == "?":
        state.help, state.help_top = True, 0
    elif key == "i":
        state.include_sensitive = not state.include_sensitive
        state.status = f"sensitive memories {'shown' if state.include_sensitive else 'hidden'}"
        return Action("load")
    elif key == "u":
        state.include_superseded = not state.include_superseded
        shown = "shown" if state.include_superseded else "hidden"
        state.status = f"superseded memories {shown}"
        return Action("load")
    elif key == "l":
        state.show_audit = not state.show_audit
        return _audit(state)
    elif key == "R":
        return Action("load")
    elif key in VIEW_KEYS:
        return switch(state, VIEW_KEYS[key])
    elif key in WRITE_KEYS:
        return _write_key(state, *WRITE_KEYS[key])
    if key in MOVES or key in ("PGDN", "PGUP", "g", "G", "HOME", "END"):
        return _audit(state)
    return None


def _audit(state: State) -> Action | None:
    """The audit log follows the cursor while it is open."""
    memory = state.selected_memory()
    if state.show_audit and memory is not None:
        return Action("audit", memory.id)
    return None


def _write_key(state: State, name: str, trusts: tuple[str, ...]) -> Action | None:
    memory = state.selected_memory()
    item = state.selected()
    if memory is None and item is not None and is_request_id(item.key):
        # An agent's request to forget, in the review view: a person approves
        # (the memory is forgotten as asked) or rejects it (with a reason).
        if name in ("approve", "reject"):
            state.ask(Action(name, item.key))
        else:
            state.status = "a request to forget is approved (a) or rejected (x)"
        return None
    if memory is None:
        state.status = f"nothing selected to {VERB[name]}"
        return None
    if name == "keep" and state.view != "inbox":
        state.status = "keep is for the inbox (n): it marks an agent's capture seen"
        return None
    if trusts and memory.trust not in trusts:
        state.status = (
            f"{memory.id} is {memory.trust}: {VERB[name]} applies to {' or '.join(trusts)}"
        )
        return None
    state.ask(Action(name, memory.id))
    return None


def _prompt_key(state: State, prompt: Prompt, key: str) -> Action | None:
    if key == "ESC":
        state.cancel()
        return None
    if prompt.kind == "confirm":
        if key in ("y", "Y"):
            state.prompt = None
            return prompt.action
        if key in ("n", "N", "q"):
            state.cancel()
        return None
    if key == "BACKSPACE":
        if not prompt.buffer and prompt.kind == "command":
            state.cancel("")
        prompt.buffer = prompt.buffer[:-1]
        return None
    if key == "ENTER":
        return _submit(state, prompt)
    if len(key) == 1 and key.isprintable():
        prompt.buffer += key
    return None


def _submit(state: State, prompt: Prompt) -> Action | None:
    text = prompt.buffer.strip()
    state.prompt = None
    if prompt.kind == "search":
        state.query = text
        if not text:
            return switch(state, "memories")
        state.view = "search"
        state.cursor = state.top = 0
        return Action("search", None, (text,))
    if prompt.kind == "time":
        return commands.set_time(state, "as_of", text)
    if prompt.kind == "reason":
        action = prompt.action
        if action is None:
            return None
        if not text:
            state.status = "a reason is required; it is kept in the audit log"
            return None
        state.ask(Action(action.name, action.target, action.args, text))
        return None
    if prompt.kind == "command":
        return commands.run(state, text)
    return None
