"""`python3 -m tree_ring` runs the CLI."""

import gc
import sys

gc.disable()  # as bin/tree-ring does; `main` turns it back on before the command runs

from tree_ring.cli.app import main  # noqa: E402 - after gc.disable(), on purpose

sys.exit(main())
