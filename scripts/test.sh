#!/bin/sh
# The one test command (README: `sh scripts/test.sh`): builds the dev
# environment when it is missing or stale, then lints, type-checks and runs
# the tests, stopping at the first failure. Extra arguments go to pytest
# (after the worker count, so `-n 1` there wins).
set -eu

repo=$(cd -P -- "$(dirname -- "$0")/.." && pwd -P)
cd -- "$repo"
venv=$repo/.venv
stamp=$venv/.requirements-dev.stamp

header() {
    printf '\n==> %s\n' "$*"
}

command -v python3 >/dev/null 2>&1 || {
    echo "test.sh: python3 not found; install Python 3.11 or newer" >&2
    exit 1
}

# The stamp names both the requirements and the interpreter, so either a
# changed pin or an upgraded python3 (which can leave .venv's python a dead
# symlink) rebuilds the venv from scratch instead of patching it.
want=$(python3 -c 'import hashlib, sys
print("sha256:" + hashlib.sha256(open("requirements-dev.txt", "rb").read()).hexdigest(),
      sys.version.split()[0])')
have=$(cat "$stamp" 2>/dev/null || true)
if [ "$want" != "$have" ] || ! "$venv/bin/python" -c '' >/dev/null 2>&1; then
    header "dev environment: .venv from requirements-dev.txt"
    rm -rf -- "$venv"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -qq --disable-pip-version-check \
        --root-user-action=ignore -r requirements-dev.txt
    # Written last, so an interrupted install is retried next time.
    printf '%s\n' "$want" >"$stamp"
fi

header "end-to-end CLIs: scripts/install-e2e-clis.sh"
TREE_RING_E2E_CLI_DIR=${TREE_RING_E2E_CLI_DIR:-$repo/.cache/e2e-clis}
export TREE_RING_E2E_CLI_DIR
sh scripts/install-e2e-clis.sh

header "browser for the web view's tests: scripts/install-browser.sh"
# In CI the browser tests must run, so a browser that cannot be installed
# stops here; elsewhere they skip, saying why.
if ! sh scripts/install-browser.sh; then
    if [ "${CI:-}" = true ]; then
        exit 1
    fi
fi

# The pyright wheel bundles its JavaScript but runs it with the system node
# (the one npm needs for the e2e CLIs). Without this it asks PyPI for a newer
# version on every run, which the pin makes pointless.
PYRIGHT_PYTHON_IGNORE_WARNINGS=1
export PYRIGHT_PYTHON_IGNORE_WARNINGS

header "ruff check"
"$venv/bin/ruff" check .

header "ruff format --check"
"$venv/bin/ruff" format --check .

header "pyright"
"$venv/bin/pyright"

header "pytest"
# In parallel (pytest-xdist), one worker per core; a later `-n N` among the
# extra arguments overrides it, and `-n 0` runs everything in one process.
# --dist loadgroup keeps the tests marked with one xdist_group on one worker:
# those that share an expensive module fixture (a browser, the real CLIs).
workers=$(python3 -c 'import os
print(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)')
# exec so pytest's own status is the script's, including 5 for "no tests ran".
exec "$venv/bin/python" -m pytest -n "$workers" --dist loadgroup "$@"
