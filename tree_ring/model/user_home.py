"""Where the person's user store lives, and the checks every way to it runs.

The user store holds a person's own notes across projects (store/user.py):
one file outside any project, found from the caller's environment
(`user_dir_str`), never through a link, and never inside a project's
`.tree-ring/` folder (`check_user_store`).
"""

from __future__ import annotations

import os

from tree_ring.model import project
from tree_ring.model.errors import StoreFault, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from tree_ring.model.project import StrPath


# The person's own memory, across projects: one store outside any project.
USER_STORE = "user.sqlite"
# The `project` of every row in the user store. Not a project id anyone's
# project.json can hold apart from this store: it only ever names this file.
USER_PROJECT = "user"
USER_HOME_VARIABLE = "TREE_RING_USER_HOME"


def user_dir_str(environ: Mapping[str, str]) -> str | None:
    """Where the user store lives, from the caller's environment:
    TREE_RING_USER_HOME, else $XDG_DATA_HOME/tree-ring, else
    ~/.local/share/tree-ring; None without a home to put it in. A relative
    TREE_RING_USER_HOME or XDG_DATA_HOME is ignored: read against the working
    directory, it would put the person's store inside whatever project a
    command runs in."""
    explicit = os.path.expanduser(environ.get(USER_HOME_VARIABLE, "").strip())
    if explicit and os.path.isabs(explicit):
        return os.path.normpath(explicit)
    data = environ.get("XDG_DATA_HOME", "").strip()
    # The XDG spec: a relative value is invalid and is ignored.
    if data and os.path.isabs(data):
        return os.path.join(data, "tree-ring")
    home = environ.get("HOME", "").strip()
    if not home or not os.path.isabs(home):
        return None
    return os.path.join(home, ".local", "share", "tree-ring")


def user_store_path_str(environ: Mapping[str, str]) -> str | None:
    folder = user_dir_str(environ)
    return None if folder is None else os.path.join(folder, USER_STORE)


def check_user_store(path: StrPath) -> None:
    """Refuse a user store reached through a link (SQLite follows links: every
    brief would read, and a global write overwrite, what a linked file or folder
    points at; a link above the folder is fine), or in a folder this user cannot
    read; below a file there is none; or inside a project's `.tree-ring/`
    folder, which the project's git would share (`XDG_DATA_HOME` set to one);
    or whose path holds a control character, which no line that names it
    could show whole.
    Every way to the user store runs this."""
    said = os.fspath(path)
    if any(
        ord(char) < 0x20 or 0x7F <= ord(char) <= 0x9F or char in "\u2028\u2029" for char in said
    ):
        from tree_ring.model.text import error_safe

        raise UsageError(
            f"the user store's path {error_safe(said)} holds a control character (a line "
            f"break, a tab); point {USER_HOME_VARIABLE} or XDG_DATA_HOME at a folder "
            "whose path has none"
        )
    # As written and where its links lead: a link to a `.tree-ring/` folder
    # puts the file there all the same.
    ways = (os.path.abspath(path), os.path.realpath(path))
    if any(project.DIR in way.split(os.sep) for way in ways):
        raise UsageError(
            f"the user store would be {os.fspath(path)}, inside a project's {project.DIR}/ "
            f"folder, which the project's git shares; point {USER_HOME_VARIABLE} or "
            "XDG_DATA_HOME at a folder outside every project"
        )
    _outside_projects(said)
    fix = (
        "Tree Ring opens the user store through no link: put the real folder or file "
        f"in its place, or point {USER_HOME_VARIABLE} at the real folder"
    )
    try:
        if project.expect(os.path.dirname(path), "directory", fix):
            for side in ("", *project.STORE_SIDE_FILES):
                project.expect(os.fspath(path) + side, "file", fix)
    except NotADirectoryError:  # a file where its folder would be: no user store is there
        return
    except PermissionError:  # another user's folder: `sudo tree-ring ...` with this HOME
        unreadable = f"the user store's folder {os.path.dirname(path)} cannot be read by you"
        raise StoreFault(f"{unreadable}; give it back to you (chown -R) or move it aside") from None


def _outside_projects(path: str) -> None:
    """Refuse a user store inside a project's working tree (a folder above
    it holds `.tree-ring/project.json`), where `git add -A` would commit the
    person's notes: `TREE_RING_USER_HOME` or `XDG_DATA_HOME` set to the
    project or a folder in it. The walk stops at the person's home folder,
    which is such a project only when git keeps it too (a dotfiles
    repository where `init` ran): one `init` ran in by mistake, outside git,
    commits nothing, and must not cost every project its user store. Walked
    as written and where its links lead: a home or data folder that is a link
    into a project puts the file there all the same."""
    home = os.path.expanduser("~")
    _walk_up(path, os.path.dirname(os.path.abspath(path)), home)
    _walk_up(path, os.path.dirname(os.path.realpath(path)), os.path.realpath(home))


def _walk_up(path: str, folder: str, home: str) -> None:
    while True:
        at_home = folder == home
        if os.path.isfile(os.path.join(folder, project.DIR, project.PROJECT_FILE)) and (
            not at_home or os.path.exists(os.path.join(folder, ".git"))
        ):
            raise UsageError(
                f"the user store would be {path}, inside the project at {folder}, whose "
                f"git would commit it; point {USER_HOME_VARIABLE} or XDG_DATA_HOME at a "
                "folder outside every project"
            )
        parent = os.path.dirname(folder)
        if at_home or parent == folder:
            return
        folder = parent
