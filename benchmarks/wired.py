"""The SessionStart hook command exactly as `hooks/hooks.json` wires it.

The benchmarks time what a harness runs, flags included, with the interpreter
they are given in place of the `python3` the harness finds on PATH.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def hook_command(python: str, event: str = "SessionStart") -> list[str]:
    config = json.loads((REPO / "hooks" / "hooks.json").read_text(encoding="utf-8"))
    command: str = config["hooks"][event][0]["hooks"][0]["command"]
    argv = shlex.split(command.replace("${CLAUDE_PLUGIN_ROOT}", str(REPO)))
    if argv[0] != "python3":
        raise SystemExit(f"hooks/hooks.json runs {argv[0]!r}, not python3")
    return [python, *argv[1:]]


def interpreter_flags(python: str) -> list[str]:
    """The wired command's interpreter flags (e.g. -I -S), for a fair baseline."""
    argv = hook_command(python)
    script = next(i for i, arg in enumerate(argv) if arg.endswith(".py"))
    return argv[1:script]
