"""The `tree-ring` command: argparse in, library calls out, one place for errors."""
