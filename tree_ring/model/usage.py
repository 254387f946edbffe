"""A parser whose mistakes are one line, for the clients beside the CLI.

`view`, `report` and `tui` parse their own arguments (they do not load the
CLI's), and a bad option there must read as it does for every other verb:
`error: tree-ring view: ... (`tree-ring view --help` shows how)`, not
argparse's usage block and a second line. The error is raised, so the
client's one error place prints it (as JSON under --json, secrets withheld).
"""

from __future__ import annotations

import argparse

from tree_ring.model.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn


class UsageParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message} (`{self.prog} --help` shows how)")
