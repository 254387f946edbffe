#!/usr/bin/env python3
"""Tree Ring's hook launcher: `python3 tree_ring_hook.py claude-code|codex`.

Puts the plugin root first on sys.path and hands over to
`tree_ring.hook.adapter.main`. It always exits 0: a broken or missing package must
never stop an agent session, so even an import failure is only a line on
stderr.
"""

import gc
import os
import sys

# One event, then exit: collecting cycles among the objects the imports make
# (they live until exit anyway) costs a tenth of the hook's run, and so does
# tearing them down at exit, which os._exit below skips once the output is out.
gc.disable()
here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
root = os.environ.get("CLAUDE_PLUGIN_ROOT") or here
# The harness's variable can name another plugin when hooks are copied into a
# user-level config; this file's own plugin is then the right one.
if not os.path.isfile(os.path.join(root, "tree_ring", "hook", "adapter.py")):
    root = here
sys.path.insert(0, root)
try:
    from tree_ring.hook.adapter import main

    main(sys.argv[1] if len(sys.argv) > 1 else "")
except BaseException as exc:  # the fail-open boundary of last resort
    sys.stderr.write(f"tree-ring hook: {type(exc).__name__}: {exc}\n")
try:
    sys.stdout.flush()
    sys.stderr.flush()
except BaseException:  # a closed pipe: nothing more can be said, and the exit is still 0
    pass
os._exit(0)
