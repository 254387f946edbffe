"""The current branch's upstream commit, read from `.git` without running git.

The SessionStart hook asks whether the upstream moved since the store
recorded it (`ledger_delta.Upstream`); starting git costs it more than the
rest of its pass. So it reads what `git rev-parse @{upstream}` reads, for the
ordinary layout only: `.git` a folder or a `gitdir:` file (a worktree, with
its `commondir`), `HEAD` naming a branch, the branch's `remote` and `merge` in
the repository's config, mapped through that remote's `fetch` refspecs to a
`refs/remotes/...` ref, read from its loose file or `packed-refs`.

Only an answer equal to the store's record is used, and only to say "not
moved"; any other answer, and anything out of the ordinary (an environment
variable that steers git, config includes, a worktree config, another ref
storage, a symbolic or unreadable ref, a config file of the user's or the
system's that names a branch or remote, a line this reader does not follow)
gives None, and git is asked. Never a reason to trust more than git would.
"""

from __future__ import annotations

import os

from tree_ring.model import gitdir

# Environment variables that do not steer where git finds the repository, its
# config or its refs; any other `GIT_*` one sends the caller to git.
_HARMLESS_ENV = (
    "GIT_AUTHOR_",
    "GIT_COMMITTER_",
    "GIT_EDITOR",
    "GIT_PAGER",
    "GIT_TERMINAL_PROMPT",
    "GIT_ASKPASS",
    "GIT_SSH",
    "GIT_SEQUENCE_EDITOR",
    "GIT_MERGE_AUTOEDIT",
    "GIT_SSL_",
    "GIT_HTTP_",
    "GIT_CURL_",
    "GIT_PROXY_",
    "GIT_TRACE",
)


def parse_config(text: str) -> list[tuple[str, str | None, str, str]] | None:
    """(section, subsection, key, value) of each plain entry, sections and
    keys lowercased; None for anything this reader does not follow (quotes,
    escapes, continuations, the old `[a.b]` subsection form)."""
    out: list[tuple[str, str | None, str, str]] = []
    section: tuple[str, str | None] | None = None
    for raw in text.split("\n"):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line[0] == "[":
            end = line.find("]")
            if end < 0 or line[end + 1 :].strip()[:1] not in ("", "#", ";"):
                return None
            head = line[1:end].strip()
            name, _, sub = head.partition(" ")
            sub = sub.strip()
            if "." in name or "\\" in sub:
                return None
            if sub:
                if len(sub) < 2 or sub[0] != '"' or sub[-1] != '"' or '"' in sub[1:-1]:
                    return None
                section = (name.lower(), sub[1:-1])
            else:
                section = (name.lower(), None)
            continue
        if section is None or '"' in line or "\\" in line:
            return None
        key, equals, value = line.partition("=")
        for mark in "#;":
            value = value.split(mark, 1)[0]
        key = key.strip().lower()
        if not key or not key.replace("-", "").isalnum():
            return None
        out.append((section[0], section[1], key, value.strip() if equals else "true"))
    return out


def _names_upstream(text: str | None) -> bool:
    """Whether a user's or the system's config may bear on the upstream."""
    if text is None:
        return False
    lowered = text.lower()
    return any(word in lowered for word in ("[branch", "[remote", "[include", "[extensions"))


def _outer_configs() -> list[str]:
    home = os.environ.get("HOME", "")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    paths = [os.path.join(xdg, "git", "config"), "/etc/gitconfig"]
    if home:
        paths.append(os.path.join(home, ".gitconfig"))
    return paths


def _tracking(entries: list[tuple[str, str | None, str, str]], branch: str) -> str | None:
    """The remote-tracking ref the branch's upstream maps to, or None."""
    remote: list[str] = []
    merge: list[str] = []
    for section, sub, key, value in entries:
        if section in ("include", "includeif"):
            return None
        if section == "extensions" and key in ("refstorage", "worktreeconfig"):
            return None
        if section == "branch" and sub == branch:
            if key == "remote":
                remote.append(value)
            elif key == "merge":
                merge.append(value)
    if not remote or len(merge) != 1 or remote[-1] in ("", ".") or "/" in remote[-1]:
        return None
    name, wanted = remote[-1], merge[0]
    if not wanted.startswith("refs/heads/"):
        return None
    specs = [v for s, sub, k, v in entries if s == "remote" and sub == name and k == "fetch"]
    for spec in specs:
        src, colon, dst = spec.removeprefix("+").partition(":")
        if not colon or src.startswith("^") or src.count("*") != dst.count("*"):
            return None
        if "*" not in src:
            if src == wanted:
                return dst
            continue
        if src.count("*") != 1 or not src.endswith("/*") or not dst.endswith("/*"):
            return None
        if wanted.startswith(src[:-1]):
            return dst[:-1] + wanted[len(src) - 1 :]
    return None


def upstream(root: str) -> tuple[str, str] | None:
    """(remote-tracking ref, commit id) of the current branch's upstream, as
    `git rev-parse --symbolic-full-name @{upstream} @{upstream}` would say it;
    None when anything is out of the ordinary (then ask git)."""
    if any(key.startswith("GIT_") and not key.startswith(_HARMLESS_ENV) for key in os.environ):
        return None
    dirs = gitdir.dirs(root)
    if dirs is None:
        return None
    own, common = dirs
    if os.path.lexists(os.path.join(common, "reftable")):
        return None
    head = gitdir.read(os.path.join(own, "HEAD"), 4096)
    if head is None or not head.startswith("ref: refs/heads/") or head.count("\n") > 1:
        return None
    branch = head[len("ref: refs/heads/") :].strip()
    text = gitdir.read(os.path.join(common, "config"))
    entries = parse_config(text) if text is not None else None
    if not branch or entries is None:
        return None
    if any(_names_upstream(gitdir.read(path)) for path in _outer_configs()):
        return None
    ref = _tracking(entries, branch)
    if ref is None or not ref.startswith("refs/remotes/") or ".." in ref:
        return None
    commit = gitdir.resolve(common, ref)
    return (ref, commit) if commit is not None else None
