"""`python3 -m tree_ring` runs the CLI."""

import gc

gc.disable()  # as bin/tree-ring does; `main` turns it back on before the command runs

from tree_ring.cli.app import run  # noqa: E402 - after gc.disable(), on purpose

run()
