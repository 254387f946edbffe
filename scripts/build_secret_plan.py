#!/usr/bin/env python3
"""Write tree_ring/guard/secret_plan.py: the prefilter's plan for the secret rules.

The SessionStart hook checks every memory it shows for secrets; building the
secret rules and their plan when it starts would cost it more than the rest of
its guard, so the plan is held as a literal and the rules are built only for a
text that opens one of its tests. tests/guard/test_secret_plan.py fails when
the literal differs from the plan of today's rules; then run

    python3 scripts/build_secret_plan.py          # rewrites the module
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tree_ring.guard import prefilter  # noqa: E402
from tree_ring.guard.table import SECRET_RULES  # noqa: E402

OUT = REPO / "tree_ring" / "guard" / "secret_plan.py"
HEADER = '''\
"""The prefilter's plan for the secret rules (`table.SECRET_RULES`), written out.

Written by scripts/build_secret_plan.py, not by hand; tests/guard/test_secret_plan.py
holds it equal to `prefilter.plan(SECRET_RULES)`. The engine reads it so that a
text opening none of its tests (most memories the SessionStart brief shows) is
cleared without building the secret rules at all.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_ring.guard.prefilter import LiteralView

# How many secret rules the plan was written for.
RULES = {rules}

# The formatter would put each rule number on a line of its own: the plan is
# written packed, as wide as the house's lines, and left as written.
# fmt: off
VIEWS: tuple[LiteralView, ...] = {views}
# fmt: on
'''
WIDTH = 100


def render(value: object, indent: int = 0) -> list[str]:
    """`value` (nested tuples of str, bytes and int) as lines of at most WIDTH
    characters where its atoms allow: whole on one line when it fits; a
    tuple whose items each fit on a line, packed several a line; any other
    tuple an item a line."""
    pad = " " * indent
    whole = repr(value)
    if indent + len(whole) + 1 <= WIDTH or not isinstance(value, tuple):
        return [pad + whole]
    inner = " " * (indent + 4)
    lines = [pad + "("]
    words = [repr(item) + "," for item in value]
    if all(len(inner) + len(word) <= WIDTH for word in words):
        line = inner
        for word in words:
            if len(line) + len(word) + 1 > WIDTH and line.strip():
                lines.append(line.rstrip())
                line = inner
            line += word + " "
        lines.append(line.rstrip())
    else:
        for item in value:
            *head, last = render(item, indent + 4)
            lines += [*head, last + ","]
    return [*lines, pad + ")"]


def main() -> int:
    views = prefilter.literal(prefilter.plan(SECRET_RULES))
    text = "\n".join(render(views)).lstrip()
    OUT.write_text(HEADER.format(rules=len(SECRET_RULES), views=text), encoding="utf-8")
    print(f"wrote {OUT.relative_to(REPO)}: {len(SECRET_RULES)} rules, {len(views)} views")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
