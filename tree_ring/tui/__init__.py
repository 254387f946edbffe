"""`tree-ring tui`: a full-screen terminal view of the project's memory.

A thin client of the library, like the CLI beside it: every read goes
through the one liveness predicate (`store/live.py`), every change through
the same write path, review decisions and audit log, with the person at the
terminal as the actor. The pieces, each small:

- `state`: what the screen shows; pure, no curses, no store.
- `keys`: what each key does to the state, and the action it asks for.
- `rings`: the ring activity bars and the concentric-ring picture, as text.
- `layout`: the whole screen as lines of styled segments, for a given size.
- `commands`: the slash commands, parsed into the actions they ask for.
- `actions`: the library calls behind each action (reads and writes).
- `screen`: curses: colours, painting the layout, reading keys, the loop.
- `main`: the `tree-ring tui` entry point: arguments, the terminal check.
"""
