#!/usr/bin/env python3
"""Write tree_ring/guard/secret_plan.py: the prefilter's plan for the secret rules.

The SessionStart hook checks every memory it shows for secrets; building the
secret rules and their plan when it starts would cost it more than the rest of
its guard, so the plan is held as a literal and the rules are built only for a
text that opens one of its tests. tests/guard/test_secret_plan.py fails when
the literal differs from the plan of today's rules; then run

    python3 scripts/build_secret_plan.py          # rewrites the module, formatted
"""

from __future__ import annotations

import shutil
import subprocess
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

VIEWS: tuple[LiteralView, ...] = {views!r}
'''


def main() -> int:
    views = prefilter.literal(prefilter.plan(SECRET_RULES))
    OUT.write_text(HEADER.format(rules=len(SECRET_RULES), views=views), encoding="utf-8")
    ruff = REPO / ".venv" / "bin" / "ruff"
    command = str(ruff) if ruff.exists() else shutil.which("ruff")
    if command:
        subprocess.run([command, "format", "--quiet", str(OUT)], check=True)
    print(f"wrote {OUT.relative_to(REPO)}: {len(SECRET_RULES)} rules, {len(views)} views")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
