"""Files a person names for Tree Ring to write: an export, an HTML report, a
certification report.

Each goes through here, so one rule holds for all of them: nothing is
written inside Tree Ring's own folders (a project's `.tree-ring/`, or the
folder of the person's user store), wherever the path leads once links and
`..` are resolved, since an export written over `memory.sqlite` would
destroy the store it came from; a file is written whole or not at all (a
temporary file beside it, then a rename); and a path that cannot be written
(a folder that does not exist, a folder named as the file, a pipe no one
reads, no permission) is a usage error naming it, not a fault. A pipe or a
device (`/dev/stdout`, `>(...)`) is written to as it is: there is no file to
replace; it is opened without waiting, so a pipe with no reader is refused
at once rather than holding the command.
"""

from __future__ import annotations

import errno
import os
import stat

from tree_ring.model import project, user_home
from tree_ring.model.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from tree_ring.model.project import StrPath


def check(path: StrPath, environ: Mapping[str, str]) -> str:
    """`path` resolved (links and `..`), or a UsageError when it leads into a
    folder Tree Ring keeps its stores in."""
    resolved = os.path.realpath(path)
    shown = os.fspath(path)
    # The path as written too, `..` folded but no link followed: a link inside
    # `.tree-ring/` is never followed, wherever it points.
    written = os.path.abspath(path)
    if project.DIR in resolved.split(os.sep) or project.DIR in written.split(os.sep):
        raise UsageError(
            f"{shown} leads into a {project.DIR}/ folder, where Tree Ring keeps its store; "
            "write it somewhere outside that folder"
        )
    user = user_home.user_dir_str(environ)
    if user and _within(resolved, os.path.realpath(user)):
        raise UsageError(
            f"{shown} leads into {user}, where Tree Ring keeps your user store; "
            "write it somewhere outside that folder"
        )
    return resolved


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def check_file(path: StrPath, environ: Mapping[str, str]) -> str:
    """`check`, and that `path` names a file whose folder exists: what a
    command verifies before its work, so a mistyped path costs nothing."""
    shown = os.fspath(path)
    if not shown:
        raise UsageError("the path is empty; name a file to write")
    resolved = check(path, environ)
    if os.path.isdir(resolved):
        raise UsageError(f"{shown} is a folder; name a file to write (a new one inside it will do)")
    folder = os.path.dirname(resolved)
    if not os.path.isdir(folder):
        raise UsageError(
            f"cannot write {shown}: there is no folder {folder}; create it or choose another path"
        )
    return resolved


def write_text(path: StrPath, text: str, environ: Mapping[str, str], mode: int = 0o666) -> int:
    """Write `text` to `path`, whole or not at all; the number of bytes. A pipe
    or a device is written to as it is (see above). A new file gets `mode`
    less the umask (an export of memories: 0o600, its user's only)."""
    resolved = check_file(path, environ)
    body = text.encode("utf-8")
    try:
        # The path as given: `/dev/stdout` on a pipe resolves to no path
        # (`/proc/<pid>/fd/pipe:[...]`), though it opens.
        if _special(path):
            _write_special(os.fspath(path), os.fspath(path), body)
            return len(body)
        project.write_replacing(resolved, body, mode)
    except OSError as exc:
        raise UsageError(
            f"cannot write {os.fspath(path)}: {exc.strerror or exc}; choose another path"
        ) from None
    return len(body)


def same_file(path: StrPath, stream: object) -> bool:
    """Whether `path` opens the file `stream` writes to (`/dev/stdout` for
    the process's own stdout): a status line then goes elsewhere."""
    fileno = getattr(stream, "fileno", None)
    try:
        return fileno is not None and os.path.samestat(os.stat(path), os.fstat(fileno()))
    except (OSError, ValueError):
        return False


def _write_special(resolved: str, shown: str, body: bytes) -> None:
    """Write to a pipe or a device: opened without waiting (a FIFO no one
    reads fails at once, ENXIO), then written to as usual."""
    try:
        fd = os.open(resolved, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise UsageError(
                f"{shown} is a pipe no one is reading; start its reader first, or name a file"
            ) from None
        raise
    os.set_blocking(fd, True)
    with open(fd, "wb") as handle:
        handle.write(body)


def _special(path: StrPath) -> bool:
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def make_folder(path: StrPath, environ: Mapping[str, str]) -> str:
    """The folder at `path`, created (with its parents) if need be; resolved."""
    resolved = check(path, environ)
    shown = os.fspath(path)
    try:
        os.makedirs(resolved, exist_ok=True)
    except FileExistsError:
        raise UsageError(f"{shown} is a file, not a folder; name a folder to write into") from None
    except OSError as exc:
        raise UsageError(
            f"cannot create the folder {shown}: {exc.strerror or exc}; choose another folder"
        ) from None
    return resolved
