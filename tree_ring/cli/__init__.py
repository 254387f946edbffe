"""The `tree-ring` command: a command line in, library calls out, one place for errors."""
