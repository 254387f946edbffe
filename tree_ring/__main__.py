"""`python3 -m tree_ring` runs the CLI."""

import sys

from tree_ring.cli.app import main

sys.exit(main())
