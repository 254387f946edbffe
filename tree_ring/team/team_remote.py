"""Which remote vouches for the team ledger: the project's own, not any
remote a branch happens to track.

A branch's upstream can be any remote's. Reviewing a contributor's pull
request the usual way (`git remote add alice <fork>`, `git fetch alice`,
`git checkout fix`) checks out a branch whose upstream is
`refs/remotes/alice/fix`: the fork's ledger would be believed as the team's,
and carried into the next ledger this clone writes. So only the team's remote
vouches for ledger lines; another remote's branch is no upstream, and its
lines are claims, as a working-tree edit's are (`team/upstream.py`).

The team's remote is the one this clone's git config names
(`git config tree-ring.remote NAME`: a person's setting, never a committed
file's), else `origin` (the remote a clone pulls from), else the
repository's only remote; with none of these, no remote vouches.
"""

from __future__ import annotations

SETTING = "tree-ring.remote"
# One read-only git call: every remote's url and the setting.
QUERY = ("config", "-z", "--get-regexp", r"^(remote\..+\.url|tree-ring\.remote)$")
DEFAULT = "origin"
_PREFIX = "refs/remotes/"


def parse(out: bytes | None) -> tuple[str | None, set[str]]:
    """(the setting, or None; the names of the remotes that have a url)
    from QUERY's output: `key\\nvalue` entries, each ended by a NUL."""
    setting: str | None = None
    remotes: set[str] = set()
    for entry in (out or b"").decode("utf-8", "replace").split("\0"):
        key, _, value = entry.partition("\n")
        if key == SETTING:
            setting = value.strip() or None
        elif key.startswith("remote.") and key.endswith(".url"):
            remotes.add(key[len("remote.") : -len(".url")])
    return setting, remotes


def team_remote(setting: str | None, remotes: set[str]) -> str | None:
    """The remote whose branches vouch for the ledger, or None."""
    if setting is not None:
        return setting if setting in remotes else None
    if DEFAULT in remotes:
        return DEFAULT
    return next(iter(remotes)) if len(remotes) == 1 else None


def remote_of(ref: str, remotes: set[str]) -> str | None:
    """The remote a remote-tracking ref is under: the longest remote name that
    starts its path (a remote may be named `origin/mirror`)."""
    if not ref.startswith(_PREFIX):
        return None
    path = ref[len(_PREFIX) :]
    under = [name for name in remotes if path.startswith(name + "/")]
    return max(under, key=len) if under else None


def passed_over(ref: str, out: bytes | None) -> str | None:
    """None when `ref` is a branch of the team's remote; else one line for a
    person saying why its ledger lines are claims, and how to name the team's
    remote. `out` is QUERY's output (None when git could not answer)."""
    setting, remotes = parse(out)
    team = team_remote(setting, remotes)
    if team is not None and remote_of(ref, remotes) == team:
        return None
    if team is None:
        named = (
            f"no remote is named `{setting}`"
            if setting is not None
            else f"no remote is named `{DEFAULT}` and there is not just one"
        )
        why = f"no remote is the team's ({named})"
    else:
        why = f"the team's remote is `{team}`"
    return (
        f"the branch's upstream {ref} is not the team's ({why}): its ledger lines are "
        f"claims; `git config {SETTING} NAME` names the remote the team pushes to"
    )
