"""How long work tells its caller how far it has got.

The library never prints: a long operation (an import, a consolidation, a
tree rebuild, a sync, a doctor's checks) takes an optional `Progress` and
calls it now and then with what it is doing, how much is done and, when
known, of how much. The CLI decides whether anyone sees it (a terminal on
stderr) and how often (`tree_ring/cli/progress.py`).
"""

from __future__ import annotations

from collections.abc import Callable

# (what is being done, units done, units in all or None when not known)
Progress = Callable[[str, int, "int | None"], None]
