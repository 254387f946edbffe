"""The slash commands: `/name argument`, turned into what they ask for.

Commands that change memory act on the selected one (or on the argument) and
go through the same confirmation as their keys (`State.ask`); reading ones
switch the view. `/export FILE` first asks the session where FILE leads
(`Session.ask_export`: the CLI's checks of `export --output`), so the
confirmation names the file and says when it replaces one.
"""

from __future__ import annotations

import difflib

from tree_ring.tui.state import Action, State, switch


def set_time(state: State, field: str, text: str) -> Action | None:
    """Put the view at `text` (empty: now), `field` being "as_of" or "valid_at".
    A time that does not parse is an error line and the view stays as it was,
    so the header never names a time the list is not shown at."""
    from tree_ring.model.errors import TreeRingError
    from tree_ring.model.record import parse_time

    words = "as of" if field == "as_of" else "valid at"
    if text:
        try:
            parse_time(text, words)
        except TreeRingError as exc:
            state.status = f"error: {exc}"
            return None
    setattr(state, field, text or None)
    return Action("load")


# name -> what /help says of it, in the order /help lists them.
COMMANDS: dict[str, str] = {
    "rings": "ambient or exploded rings",
    "search": "QUERY: recall, best first",
    "remember": "SUMMARY: store a memory (project scope)",
    "forget": "[REASON]: delete the selected memory; its content never comes back",
    "redact": "[REASON]: empty the selected memory's text, keep the row",
    "promote": "[global] [REASON]: an agent's capture into the project (global: your own "
    "store, every project); a shared memory to heartwood",
    "scar": "move the selected memory to the scar ring",
    "seed": "move the selected memory to the seed ring",
    "supersede": "OLD_ID [REASON]: OLD_ID is replaced by the selected memory",
    "consolidate": "[daily|weekly|monthly|yearly]: one summary per group of this period's "
    "memories (default weekly)",
    "export": "FILE: write the project's memories as JSONL to FILE (relative to where the "
    "screen was started; never inside .tree-ring/)",
    "integrations": "agent harnesses and whether Tree Ring's hooks are wired",
    "evidence": "memories that record evaluations, runs and incidents",
    "stream": "the audit log as it grows, newest first",
    "watch": "follow writes from other processes (on by default), or stop",
    "review": "the review queue, contradictions side by side",
    "inbox": "agents' captures waiting for a person",
    "memories": "the live memories, newest first",
    "audit": "the audit log of the selected memory",
    "asof": "TIME: what was believed at TIME (empty: now)",
    "validat": "TIME: what held at TIME (empty: now)",
    "sync": "sync with the team ledger (.tree-ring/ledger.jsonl); without one, how to start it",
    "help": "keys and commands",
    "quit": "leave",
}
PERIODS = ("daily", "weekly", "monthly", "yearly")
RINGED = {"scar": "scar", "seed": "seed"}


def parse(text: str) -> tuple[str, str]:
    """(name, argument) of a command line, with or without its slash."""
    body = text.strip().lstrip("/")
    name, _, argument = body.partition(" ")
    return name.lower(), argument.strip()


def run(state: State, text: str) -> Action | None:
    """Carry out the command line `text` on `state`; the action it asks for."""
    name, argument = parse(text)
    if not name:
        return None
    if name not in COMMANDS:
        near = difflib.get_close_matches(name, COMMANDS, n=1)
        hint = f"; did you mean /{near[0]}?" if near else "; /help lists them"
        state.status = f"unknown command /{name}{hint}"
        return None
    selected = state.selected_memory()
    if name == "rings":
        state.exploded = not state.exploded
    elif name == "search":
        if not argument:
            state.status = "/search needs a query"
            return None
        state.query = argument
        state.view = "search"
        state.cursor = state.top = 0
        return Action("search", None, (argument,))
    elif name == "remember":
        if not argument:
            state.status = "/remember needs the memory's summary"
            return None
        state.ask(Action("remember", None, (argument,)))
    elif name in ("forget", "redact", "promote", "scar", "seed", "supersede", "audit"):
        if selected is None:
            state.status = f"/{name} acts on the selected memory; select one first"
            return None
        return _on_selected(state, name, selected.id, argument)
    elif name == "consolidate":
        period = argument or "weekly"
        if period not in PERIODS:
            state.status = f"/consolidate takes {', '.join(PERIODS)}"
            return None
        state.ask(Action("consolidate", None, (period,)))
    elif name == "export":
        if not argument:
            state.status = "/export needs a file name, e.g. /export memories.jsonl"
            return None
        return Action("place", None, (argument,))
    elif name == "watch":
        state.watching = not state.watching
        state.status = "following writes" if state.watching else "not following writes"
    elif name in ("stream", "evidence", "review", "inbox", "memories", "integrations"):
        return switch(state, name)
    elif name in ("asof", "validat"):
        return set_time(state, "as_of" if name == "asof" else "valid_at", argument)
    elif name == "sync":
        state.ask(Action("sync"))
    elif name == "help":
        state.help, state.help_top = True, 0
    elif name == "quit":
        return Action("quit")
    return None


def _on_selected(state: State, name: str, memory_id: str, argument: str) -> Action | None:
    if name == "audit":
        state.show_audit = True
        return Action("audit", memory_id)
    if name in RINGED:
        state.ask(Action("ring", memory_id, (RINGED[name],)))
    elif name == "promote":
        first, _, rest = argument.partition(" ")
        where = ("global",) if first == "global" else ()
        reason = rest if where else argument
        state.ask(Action("promote", memory_id, where, reason.strip() or None))
    elif name == "supersede":
        old, _, reason = argument.partition(" ")
        if not old:
            state.status = "/supersede needs the id of the memory the selected one replaces"
            return None
        state.ask(Action("supersede", memory_id, (old,), reason.strip() or None))
    else:
        state.ask(Action(name, memory_id, (), argument or None))
    return None
