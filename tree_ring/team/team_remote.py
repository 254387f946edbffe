"""Which remote vouches for the team ledger: the project's own branches, not
any ref a branch happens to track.

A branch's upstream can be any remote's. Reviewing a contributor's pull
request the usual way (`git remote add alice <fork>`, `git fetch alice`,
`git checkout fix`) checks out a branch whose upstream is
`refs/remotes/alice/fix`: the fork's ledger would be believed as the team's,
and carried into the next ledger this clone writes. So only the team's remote
vouches for ledger lines; another remote's branch is no upstream, and its
lines are claims, as a working-tree edit's are (`team/upstream.py`).

The team's remote is the one this clone's git config names
(`git config tree-ring.remote NAME`: a person's setting, never a committed
file's), else `upstream` (a contributor's clone of their fork names the
project so, and its own fork `origin`), else `origin` (the remote a clone
pulls from), else the repository's only remote; with none of these, no
remote vouches.

Only the team remote's branches vouch, not every ref it holds: a host keeps
each pull request's head in the project's own repository
(`refs/pull/N/head`, `refs/merge-requests/N/head`), and its documentation
shows how to fetch them beside the branches
(`+refs/pull/*/head:refs/remotes/origin/pr/*`). A remote-tracking ref that
one of the remote's fetch refspecs fills from outside `refs/heads/` may hold
anyone's pull request, so it vouches for nothing.
"""

from __future__ import annotations

SETTING = "tree-ring.remote"
# One read-only git call: every remote's url and fetch refspecs, and the setting.
QUERY = ("config", "-z", "--get-regexp", r"^(remote\..+\.(url|fetch)|tree-ring\.remote)$")
# The remotes taken for the team's, in this order, when no setting names one.
DEFAULTS = ("upstream", "origin")
_PREFIX = "refs/remotes/"
_BRANCHES = "refs/heads/"


class Remotes:
    """What QUERY says: the setting, the remotes that have a url, and the
    fetch refspecs that fill each one's remote-tracking refs."""

    def __init__(self, out: bytes | None) -> None:
        self.setting: str | None = None
        self.names: set[str] = set()
        fetches: dict[str, list[str]] = {}
        for entry in (out or b"").decode("utf-8", "replace").split("\0"):
            key, _, value = entry.partition("\n")
            if key == SETTING:
                self.setting = value.strip() or None
            elif key.startswith("remote.") and key.endswith(".url"):
                self.names.add(key[len("remote.") : -len(".url")])
            elif key.startswith("remote.") and key.endswith(".fetch"):
                fetches.setdefault(key[len("remote.") : -len(".fetch")], []).append(value.strip())
        self.fetches = fetches

    def team(self) -> str | None:
        """The remote whose branches vouch for the ledger, or None."""
        if self.setting is not None:
            return self.setting if self.setting in self.names else None
        for name in DEFAULTS:
            if name in self.names:
                return name
        return next(iter(self.names)) if len(self.names) == 1 else None

    def filled_from_elsewhere(self, remote: str, ref: str) -> str | None:
        """The first of `remote`'s fetch refspecs that fills `ref` from outside
        the remote's branches (a pull request's head, every ref), or None."""
        for spec in self.fetches.get(remote, []):
            if spec.startswith("^"):
                continue  # a negative refspec fills nothing
            source, _, target = spec.lstrip("+").partition(":")
            if not source.startswith(_BRANCHES) and _matches(target, ref):
                return spec
        return None


def _matches(pattern: str, ref: str) -> bool:
    """Whether a refspec's side (`refs/remotes/origin/pr/*`, at most one `*`,
    which stands for any run of characters) names `ref`."""
    head, star, tail = pattern.partition("*")
    if not star:
        return pattern == ref
    return len(ref) >= len(head) + len(tail) and ref.startswith(head) and ref.endswith(tail)


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
    remotes = Remotes(out)
    team = remotes.team()
    if team is not None and remote_of(ref, remotes.names) == team:
        spec = remotes.filled_from_elsewhere(team, ref)
        if spec is None:
            return None
        return (
            f"the branch's upstream {ref} is not one of the team's branches (`{team}`'s "
            f"fetch refspec {spec} fills it from other refs, such as a pull request's "
            "head): its ledger lines are claims"
        )
    if team is None:
        named = (
            f"no remote is named `{remotes.setting}`"
            if remotes.setting is not None
            else "no remote is named `upstream` or `origin`, and there is not just one"
        )
        why = f"no remote is the team's ({named})"
    else:
        why = f"the team's remote is `{team}`"
    return (
        f"the branch's upstream {ref} is not the team's ({why}): its ledger lines are "
        f"claims; `git config {SETTING} NAME` names the remote the team pushes to"
    )
