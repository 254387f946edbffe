#!/bin/sh
# Install the exact Claude Code and Codex CLI versions the e2e tests drive,
# into a private directory, so the tests never depend on whatever (if any)
# `claude` or `codex` happens to be on PATH.
set -eu

CLAUDE_VERSION=2.1.328
CODEX_VERSION=0.169.0

repo=$(cd -P -- "$(dirname -- "$0")/.." && pwd -P)
dir=${TREE_RING_E2E_CLI_DIR:-$repo/.cache/e2e-clis}
bin=$dir/node_modules/.bin

command -v npm >/dev/null 2>&1 || {
    echo "install-e2e-clis.sh: npm not found; install Node.js 18 or newer with npm and re-run" >&2
    exit 1
}

# A CLI that cannot run at all (missing, wrong platform) reports nothing,
# which counts as "not installed" rather than an error.
version_of() {
    DISABLE_AUTOUPDATER=1 "$bin/$1" --version 2>/dev/null | head -n 1 || true
}

# Both CLIs print the bare version as one word of their --version line
# ("2.1.328 (Claude Code)", "codex-cli 0.169.0").
has_version() {
    case " $(version_of "$1") " in
        *" $2 "*) return 0 ;;
        *) return 1 ;;
    esac
}

if ! has_version claude "$CLAUDE_VERSION" || ! has_version codex "$CODEX_VERSION"; then
    mkdir -p -- "$dir"
    cat >"$dir/package.json" <<JSON
{
  "name": "tree-ring-e2e-clis",
  "private": true,
  "description": "Pinned agent CLIs for Tree Ring's end-to-end tests; written by scripts/install-e2e-clis.sh",
  "dependencies": {
    "@anthropic-ai/claude-code": "$CLAUDE_VERSION",
    "@openai/codex": "$CODEX_VERSION"
  }
}
JSON
    # stdout carries only the "added N packages" summary; problems go to stderr.
    (cd -- "$dir" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
    for pair in "claude $CLAUDE_VERSION" "codex $CODEX_VERSION"; do
        # shellcheck disable=SC2086  # split "name version" on purpose
        set -- $pair
        has_version "$1" "$2" || {
            echo "install-e2e-clis.sh: $bin/$1 does not report version $2 after npm install; delete $dir and re-run" >&2
            exit 1
        }
    done
fi

echo "claude: $(version_of claude)"
echo "codex: $(version_of codex)"
