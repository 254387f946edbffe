#!/bin/sh
# Put a `tree-ring` command on PATH that runs this plugin's bin/tree-ring.
# POSIX sh on purpose: it must run under dash and macOS sh alike, with no
# network and no pip (the package is standard library only).
set -eu

# The shim carries this line so a re-run can tell its own file from someone
# else's `tree-ring` and refuse to clobber the latter.
MARK='# tree-ring shim written by install.sh; re-run install.sh to replace it'

usage() {
    cat <<'EOF'
usage: sh install.sh [--demo] [--help]

Installs a `tree-ring` shim that runs this plugin directory's bin/tree-ring
with python3 (3.11 or newer, with SQLite FTS5). Nothing is downloaded.

  --demo    after installing, run a short demo (init, remember, recall,
            brief) in a temporary directory, then delete it
  -h, --help
            show this help

Where the shim goes, first that applies:
  $TREE_RING_BIN_DIR       if set (created if missing)
  /usr/local/bin           if writable
  $HOME/.local/bin         created if missing; if it is not on PATH, the
                           line to add to your shell profile is printed

Running it again replaces its own shim. It refuses to overwrite any other
file named tree-ring.
EOF
}

die() {
    printf 'install.sh: %s\n' "$*" >&2
    exit 1
}

demo=0
for arg in "$@"; do
    case $arg in
        --demo) demo=1 ;;
        -h | --help) usage; exit 0 ;;
        *) printf 'install.sh: unknown option %s (see sh install.sh --help)\n' "$arg" >&2; exit 2 ;;
    esac
done

# -P so the shim names the real directory, not a symlink that may move.
root=$(cd -P -- "$(dirname -- "$0")" && pwd -P)
[ -f "$root/bin/tree-ring" ] && [ -d "$root/tree_ring" ] \
    || die "cannot find bin/tree-ring and tree_ring/ beside install.sh in $root; run install.sh from the plugin directory"

command -v python3 >/dev/null 2>&1 \
    || die "python3 not found on PATH; install Python 3.11 or newer and re-run"

# Written for any python3 (no f-strings) so an old one reaches the version
# message instead of a SyntaxError. The shim runs whatever python3 is first
# on PATH, so that is the one checked here.
python3 - <<'EOF' || exit 1
import sys
if sys.version_info < (3, 11):
    sys.exit("install.sh: python3 is %d.%d; Tree Ring needs 3.11 or newer first on PATH as python3"
             % sys.version_info[:2])
import sqlite3
try:
    sqlite3.connect(":memory:").execute("CREATE VIRTUAL TABLE t USING fts5(x)")
except sqlite3.Error:
    sys.exit("install.sh: python3's sqlite3 (SQLite %s) has no FTS5; use a python3 built against"
             " SQLite with FTS5, such as python.org's or your distribution's" % sqlite3.sqlite_version)
EOF

if [ -n "${TREE_RING_BIN_DIR:-}" ]; then
    bindir=$TREE_RING_BIN_DIR
elif [ -d /usr/local/bin ] && [ -w /usr/local/bin ]; then
    bindir=/usr/local/bin
else
    [ -n "${HOME:-}" ] || die "HOME is not set; set TREE_RING_BIN_DIR to the directory for the shim"
    bindir=$HOME/.local/bin
fi
mkdir -p -- "$bindir" || die "cannot create $bindir; set TREE_RING_BIN_DIR to a writable directory"
shim=$bindir/tree-ring

if [ -e "$shim" ] || [ -L "$shim" ]; then
    grep -qxF -- "$MARK" "$shim" 2>/dev/null \
        || die "$shim exists and was not written by install.sh; remove it or set TREE_RING_BIN_DIR elsewhere"
fi

# Single-quoted in the shim so a root holding $, ` or " stays literal; only
# a ' itself needs escaping. -I -S: the CLI uses the standard library alone,
# so it needs neither site-packages nor PYTHON* variables, and site's start-up
# costs more than a recall.
quoted=$(printf '%s' "$root/bin/tree-ring" | sed "s/'/'\\\\''/g")
tmp=$shim.tmp.$$
{
    printf '#!/bin/sh\n%s\n' "$MARK"
    printf "entry='%s'\n" "$quoted"
    # A clone moved or deleted since: one line that says what to do.
    printf '%s\n' '[ -f "$entry" ] || { printf '"'"'tree-ring: %s is gone (the clone moved or was deleted); run sh install.sh from its new place\n'"'"' "$entry" >&2; exit 127; }'
    printf '%s\n' 'exec python3 -I -S "$entry" "$@"'
} >"$tmp" || { rm -f -- "$tmp"; die "cannot write $tmp; set TREE_RING_BIN_DIR to a writable directory"; }
chmod 755 -- "$tmp"
# rename, so a concurrent tree-ring call never sees a half-written shim.
mv -f -- "$tmp" "$shim"
printf 'installed %s -> %s/bin/tree-ring\n' "$shim" "$root"

case ":${PATH:-}:" in
    *":$bindir:"*) ;;
    *)
        printf '%s is not on PATH; add this line to your shell profile (~/.profile, ~/.bashrc or ~/.zshrc):\n' "$bindir"
        printf '  export PATH="%s:$PATH"\n' "$bindir"
        ;;
esac

[ "$demo" = 1 ] || exit 0

# Print a command the way a user would type it, then run it through the
# installed shim (by absolute path: its directory may not be on PATH yet).
step() {
    line='$ tree-ring'
    for a in "$@"; do
        case $a in
            '' | *[!A-Za-z0-9_./=:,-]*) line="$line '$a'" ;;
            *) line="$line $a" ;;
        esac
    done
    printf '\n%s\n' "$line"
    "$shim" "$@"
}

demodir=$(mktemp -d "${TMPDIR:-/tmp}/tree-ring-demo.XXXXXX")
trap 'rm -rf -- "$demodir"' EXIT
trap 'exit 130' INT TERM
cd -- "$demodir"
# Pinning the root keeps the demo off any real store: a TREE_RING_ROOT the
# user exported, or a git repository that happens to enclose TMPDIR.
TREE_RING_ROOT=$demodir
export TREE_RING_ROOT
printf '\ndemo in %s (deleted afterwards)\n' "$demodir"

step init
step remember --event-type decision "Recall ranks with SQLite FTS5 and shipped word vectors, with no model and no network calls"
step remember --ring scar --event-type lesson "Back up the store before a schema migration: a failed migration once lost the ledger"
step recall "schema migration"
step brief
