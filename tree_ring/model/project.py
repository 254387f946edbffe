"""Where a project's memory lives, and the project's stable identity.

The store is `<project>/.tree-ring/memory.sqlite`. The project id comes from
`.tree-ring/project.json`, written once by `init` and meant to be committed, so
every clone of a repository shares it while two unrelated checkouts that
happen to share a directory name never do. The store records the id it
belongs to (store/db.py, `Store.open`): a file edited later to name another
project is refused, and `init` writes a missing one again with that id.
"""

from __future__ import annotations

import os
import stat  # already loaded by os: free

from tree_ring.model import jsontext
from tree_ring.model.errors import NoStore, StoreFault, UnsafePath, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from os import PathLike
    from pathlib import Path

    # A path as the os functions take it: a str, or a Path from a caller that has one.
    StrPath = str | PathLike[str]

DIR = ".tree-ring"
STORE = "memory.sqlite"
PROJECT_FILE = "project.json"
RECEIPTS = "receipts"
# What `init` writes beside project.json.
GUIDANCE = (".gitignore", "AGENTS.md", "SKILL.md", "CLI.md")
# And, in a git repository, the team ledger's merge rule (`team/repository.py`).
ATTRIBUTES = ".gitattributes"
# The team ledger (`team/ledger.py`). Not checked by `check_tree`: a ledger that
# is not a regular file costs the team's import of it (`sync`, the hook's pass,
# a person's write), not every command. Each reader checks its kind with
# `expect` before it opens it, and says this.
LEDGER = "ledger.jsonl"
LEDGER_FIX = (
    "the ledger must be a regular file: remove it and run `tree-ring sync` to write it again"
)
# The files SQLite keeps beside the store, in WAL mode and in rollback mode.
STORE_SIDE_FILES = ("-wal", "-shm", "-journal")
# project.json holds a short id and a name; anything larger is not one.
MAX_PROJECT_FILE = 64 * 1024
PROJECT_ID_MAX = 64
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
PROJECT_ID_FIRST = frozenset(_ALNUM)
PROJECT_ID_REST = frozenset(_ALNUM + "._-")
# Open flags for a file inside `.tree-ring/`: a link as the last component is
# refused (ELOOP) rather than followed, and a FIFO cannot block the open.
# Zero where the system has no such flag.
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
NONBLOCK = getattr(os, "O_NONBLOCK", 0)
# `receipts` without a slash: it matches a file or a link of that name too, so
# neither can be committed in place of the folder.
# `memory.sqlite.new-*`: a store being built (`store/db.py`), or the files
# of a build a killed process left.
GITIGNORE = (
    "# The database and hook receipts are local; project.json is meant to be committed.\n"
    "memory.sqlite\nmemory.sqlite-*\nmemory.sqlite.new-*\nreceipts\n"
)
# What earlier versions of `init` wrote: `init` brings such a file up to date.
OLD_GITIGNORES = (
    "# The database and hook receipts are local; project.json is meant to be committed.\n"
    "memory.sqlite\nmemory.sqlite-*\nreceipts/\n",
    "# The database and hook receipts are local; project.json is meant to be committed.\n"
    "memory.sqlite\nmemory.sqlite-*\nreceipts\n",
)

# Each lookup comes twice: as a str, from os.path (the hooks and the CLI's
# every call: importing pathlib costs them more than the lookup), and as a
# Path for everything else.


def find_root_str(start: StrPath) -> str | None:
    """The nearest directory at or above `start` that holds `.tree-ring/`,
    within the repository `start` is in: the walk stops at the first folder
    holding a `.git`, so a repository without a store of its own never takes
    an outer folder's (a vendored checkout inside a project, any repository
    under a shared `/tmp`). Above `start`, a `.tree-ring/` that belongs to
    another user is refused rather than taken (as git refuses a repository
    another user owns): whoever can write above a folder could otherwise
    brief every project under it."""
    here = os.path.realpath(start)
    while True:
        candidate = os.path.join(here, DIR)
        # A link counts as found, so `check_tree` refuses it instead of the
        # walk going past it to some outer project.
        if os.path.isdir(candidate) or os.path.islink(candidate):
            if here != os.path.realpath(start):
                _check_owner(candidate)
            return here
        if os.path.lexists(os.path.join(here, ".git")):
            return None
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _check_owner(folder: str) -> None:
    """Refuse a `.tree-ring/` above the working folder that neither this user
    nor the superuser owns."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:  # pragma: no cover - no owners to compare on this platform
        return
    owner = os.lstat(folder).st_uid
    if owner not in (getuid(), 0):
        raise UnsafePath(
            f"{folder} belongs to another user (uid {owner}), so Tree Ring will not read it "
            "from a folder below; run `tree-ring init` in your project or pass --root"
        )


def find_root(start: Path) -> Path | None:
    from pathlib import Path

    found = find_root_str(start)
    return None if found is None else Path(found)


def git_root(start: Path) -> Path | None:
    here = start.resolve()
    for candidate in (here, *here.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def normalise_root_str(path: StrPath) -> str:
    """`--root` may name the project directory or its `.tree-ring/` directory.

    Links are resolved up to the project directory, never through `.tree-ring`
    itself: a linked `.tree-ring` must be refused, not followed to whichever
    project it points into.
    """
    given = os.path.normpath(os.path.abspath(os.path.expanduser(path)))
    if os.path.basename(given) == DIR:
        return os.path.realpath(os.path.dirname(given))
    return os.path.realpath(given)


def normalise_root(path: Path) -> Path:
    from pathlib import Path

    return Path(normalise_root_str(path))


def locate_str(root: str | None, environ: Mapping[str, str], cwd: StrPath | None = None) -> str:
    """The project root from `--root`, `TREE_RING_ROOT`, or a walk up from cwd."""
    explicit = root or environ.get("TREE_RING_ROOT")
    if explicit:
        project = normalise_root_str(explicit)
        check_tree(project)
        return project
    found = find_root_str(os.getcwd() if cwd is None else cwd)
    if found is None:
        raise NoStore(
            "no .tree-ring/ here or above; run `tree-ring init` in the project root or pass "
            "--root (your own notes across projects need no project: `--user`, "
            "`remember --scope global`)"
        )
    check_tree(found)
    return found


def locate(root: str | None, environ: Mapping[str, str], cwd: Path | None = None) -> Path:
    from pathlib import Path

    return Path(locate_str(root, environ, cwd))


def check_tree(root: StrPath, *, required: bool = True) -> None:
    """Refuse a `.tree-ring/` that leads anywhere but into itself.

    The directory and everything in it arrive with the repository, so a clone
    can make any of them a symbolic link, and a relative link needs no
    knowledge of the machine: `.tree-ring -> ../other/.tree-ring` would brief
    this project with another's memories and capture into its store, and a
    linked store, side file or receipt would make a hook create or overwrite
    files wherever the link points. So `.tree-ring` must be a directory, and
    the store, its side files, project.json, the guidance files and the
    ledger's merge rule (`.gitattributes`) regular
    files (each may be absent), all checked with lstat, which follows no
    link. Anything else at `receipts` itself (a link, a file, a FIFO), or in
    it, is not refused here: receipts only record, so everything that reads
    or writes them treats it as no receipts (`receipts_problem`), and a
    committed one cannot turn the brief off. The project directory itself
    may be a link: the person who chose it is trusted.
    Every caller that turns a root into paths runs this first: `locate`, the
    hooks, `Store.open`, `init`. Without `required`, a missing `.tree-ring`
    passes (`init` is about to create it).
    """
    folder = os.path.join(root, DIR)
    try:
        present = expect(folder, "directory")
    except NotADirectoryError:
        raise UsageError(
            f"{os.fspath(root)} is not a folder; pass --root (or TREE_RING_ROOT) a project folder"
        ) from None
    except PermissionError:
        raise UsageError(
            f"cannot look inside {os.fspath(root)} (permission denied); "
            "pass --root (or TREE_RING_ROOT) a project folder you can read"
        ) from None
    except OSError as exc:  # a name too long, a loop of links: no folder to look in
        raise UsageError(
            f"cannot look inside the project folder ({exc.strerror or type(exc).__name__}); "
            "pass --root (or TREE_RING_ROOT) a project folder"
        ) from None
    if not present:
        if required:
            raise NoStore(f"no Tree Ring store at {root}; run `tree-ring --root {root} init`")
        return
    files = (STORE, *[STORE + side for side in STORE_SIDE_FILES], PROJECT_FILE, *GUIDANCE)
    for name in (*files, ATTRIBUTES):
        expect(os.path.join(folder, name), "file")
    receipts = os.path.join(folder, RECEIPTS)
    if receipts_problem(root) is None and os.path.lexists(receipts):
        try:
            with os.scandir(receipts):
                pass
        except PermissionError:
            # Another user's folder (made 0700 by whoever ran Tree Ring first):
            # nothing can be written into it either, so reads go on without
            # receipts. One this user may write but not list is refused.
            if os.access(receipts, os.W_OK | os.X_OK):
                raise UnsafePath(
                    f"{receipts} cannot be listed but can be written; "
                    "give it back read permission (chmod u+r) or remove it"
                ) from None


def expect(path: StrPath, kind: str, fix: str | None = None) -> bool:
    """Whether `path` exists as a `kind` ("file" or "directory"), not as a link
    to one; anything else there raises UnsafePath, which ends with `fix`
    (default: what to do inside `.tree-ring/`)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(mode):
        problem = "is a symbolic link"
    elif (stat.S_ISDIR if kind == "directory" else stat.S_ISREG)(mode):
        return True
    else:
        problem = f"is not a {'regular file' if kind == 'file' else kind}"
    raise UnsafePath(f"{os.fspath(path)} {problem}; {fix or _fix(path, stat.S_ISLNK(mode))}")


def _fix(path: StrPath, link: bool) -> str:
    """What to do about a link or an odd file inside `.tree-ring/`. A link the
    person made (the store moved to another disk) points at what the project
    kept there, its memories for the store, which go back in the link's place;
    one a cloned repository shipped points at someone else's, which stay where
    they are: the line names the target and says both. A store that is no file
    (a folder, a FIFO) is moved aside rather than removed."""
    store = os.path.basename(path) == STORE
    again = "else remove the link and run `tree-ring init` to recreate it"
    if link:
        target = os.path.realpath(path)
        if not os.path.exists(target):
            return (
                f"Tree Ring follows no links inside {DIR}/, and this one points to nothing "
                f"({target}): if this project's own is elsewhere, move it into the link's "
                f"place; {again}"
            )
        wal = " (and its -wal file, if there is one)" if store else ""
        return (
            f"Tree Ring follows no links inside {DIR}/: if {target} is this project's own, "
            f"move it{wal} into the link's place; {again}"
        )
    if store:
        return (
            "move it aside, then put a backup of the store in its place or run "
            "`tree-ring init` to make a new one"
        )
    return (
        f"Tree Ring follows no links inside {DIR}/: remove it and run `tree-ring init` "
        "to recreate it"
    )


def read_bytes(path: StrPath, limit: int, *, follow: bool = False) -> bytes:
    """Up to `limit` + 1 bytes of a regular file, opened without following a
    link (a link raises OSError, ELOOP). A caller that gets more than `limit`
    knows the file is over it without reading the rest. `follow` reads through
    a link (a harness's config is often one into a dotfiles folder), checking
    the target's kind before opening it, so a FIFO or a device is never opened."""
    if follow and not stat.S_ISREG(os.stat(path).st_mode):
        raise OSError(f"{os.fspath(path)} is not a regular file")
    fd = os.open(path, os.O_RDONLY | (0 if follow else NOFOLLOW) | NONBLOCK)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{os.fspath(path)} is not a regular file")
        return read_upto(fd, limit, info.st_size)
    finally:
        os.close(fd)


def read_upto(fd: int, limit: int, size: int | None = None) -> bytes:
    """Up to `limit` + 1 bytes from `fd`, asked for as its size (`size`, or
    the file's now) says: `os.read(fd, n)` allocates its n bytes first, and a
    bound of megabytes cost every open a buffer that size (64 MiB for git's
    index). A file that grew since, or a FIFO, is read on 64 KiB at a time."""
    left = limit + 1
    want = min(left, (os.fstat(fd).st_size if size is None else size) + 1)
    chunks: list[bytes] = []
    while left > 0:
        chunk = os.read(fd, min(left, want))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
        want = 1 << 16
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def store_path_str(root: StrPath) -> str:
    return os.path.join(root, DIR, STORE)


def store_path(root: Path) -> Path:
    return root / DIR / STORE


def file_size(path: StrPath) -> int:
    """The size of the regular file at `path`, following no link; 0 when it is
    absent. SQLite deletes its side files (-wal, -shm) as the last connection
    closes, so one seen a moment ago may be gone by now."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return 0
    return info.st_size if stat.S_ISREG(info.st_mode) else 0


def store_bytes(database: StrPath) -> int:
    """A store's size on disk: the database file and whichever side files exist."""
    name = os.fspath(database)
    return sum(file_size(name + side) for side in ("", *STORE_SIDE_FILES))


def receipts_dir_str(root: StrPath) -> str:
    return os.path.join(root, DIR, RECEIPTS)


def receipts_dir(root: Path) -> Path:
    return root / DIR / RECEIPTS


def receipts_problem(root: StrPath) -> str | None:
    """Why `.tree-ring/receipts` cannot hold receipts, in one line, or None
    when it is a directory (not a link to one) or absent. A link, a file or a
    FIFO there (one committed to the repository, say) is read as no receipts
    and never written through: the receipts, the usage log and the hooks'
    session state are left unrecorded until it is removed."""
    folder = receipts_dir_str(root)
    try:
        mode = os.lstat(folder).st_mode
    except FileNotFoundError:
        return None
    if stat.S_ISDIR(mode):
        return _receipts_entries_problem(folder)
    kind = "a symbolic link" if stat.S_ISLNK(mode) else "not a directory"
    return (
        f"{os.fspath(folder)} is {kind}, so nothing is recorded there; remove it "
        "(git rm it if it is committed) and Tree Ring makes the folder again"
    )


def _receipts_entries_problem(folder: str) -> str | None:
    """What in the receipts folder is not a regular file (a link, a folder, a
    FIFO, committed with `git add -f` say), in one line; None when all are.
    Such an entry makes the folder unusable, as a link in its place does:
    nothing is read through it or written beside it."""
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if not entry.is_file(follow_symlinks=False):
                    return (
                        f"{entry.path} is not a regular file, so nothing is recorded in "
                        f"{folder}; remove it (git rm it if it is committed)"
                    )
    except PermissionError:
        return None  # `check_tree` judges a folder this user cannot list
    except OSError:
        return f"{folder} cannot be read, so nothing is recorded there"
    return None


def _make_private(folder: str) -> None:
    """Create `folder`, private to the user, unless something is there."""
    # Not contextlib.suppress: importing contextlib would cost every hook run.
    try:  # noqa: SIM105
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass


def private_folder(folder: str) -> None:
    """`folder` created (private to the user) when absent; raises UnsafePath
    when a link or anything but a folder is there."""
    _make_private(folder)
    expect(folder, "directory")


def receipts_folder(root: StrPath) -> str:
    """The receipts folder, created (private to the user) when absent; raises
    UnsafePath when something else is there (`receipts_problem`)."""
    folder = receipts_dir_str(root)
    _make_private(folder)
    problem = receipts_problem(root)
    if problem is not None:
        raise UnsafePath(problem)
    return folder


def slug(name: str) -> str:
    import re  # only init names a project

    text = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return text[:40] or "project"


def new_project_id(name: str) -> str:
    return f"{slug(name)}-{os.urandom(4).hex()}"  # as secrets.token_hex, without its imports


def valid_project_id(text: str) -> bool:
    """A slug: a letter or digit, then up to 63 letters, digits, '.', '_' or '-'.

    The id is printed in the brief and in the stop hook's shell command, and
    project.json is a committed file anyone can edit: nothing in it may break
    a line, fake the brief's fence, need quoting or run to megabytes. Checked
    without `re`, which the hooks do not import.
    """
    return (
        0 < len(text) <= PROJECT_ID_MAX
        and text[0] in PROJECT_ID_FIRST
        and all(char in PROJECT_ID_REST for char in text)
    )


def load_project_id(root: StrPath) -> str:
    path = os.path.join(root, DIR, PROJECT_FILE)
    # init writes it again with the id the store records (or the team ledger's
    # header names): deleting it loses nothing.
    fix = "fix it, or delete it and run `tree-ring init` to write it again with the store's id"
    try:
        data = read_bytes(path, MAX_PROJECT_FILE)
    except FileNotFoundError:
        raise NoStore(f"{path} is missing; run `tree-ring init` to create it") from None
    except OSError as exc:
        raise UsageError(f"{path} cannot be read ({exc.strerror or exc}); {fix}") from None
    if len(data) > MAX_PROJECT_FILE:
        raise UsageError(f"{path} is over {MAX_PROJECT_FILE // 1024} KiB; {fix}")
    try:
        document = jsontext.as_object(jsontext.loads(data.removeprefix(b"\xef\xbb\xbf").decode()))
    except (ValueError, RecursionError) as exc:
        # RecursionError: a deeply nested document; UnicodeDecodeError is a ValueError.
        reason = (str(exc).splitlines() or [type(exc).__name__])[0][:120]
        raise UsageError(f"{path} is not valid JSON ({reason}); {fix}") from None
    project_id = document.get("project_id") if document is not None else None
    if not isinstance(project_id, str) or not project_id.strip():
        raise UsageError(f"{path} has no project_id; {fix}")
    if not valid_project_id(project_id):
        raise UsageError(
            f"{path}: project_id must be a letter or digit, then at most "
            f"{PROJECT_ID_MAX - 1} letters, digits, '.', '_' or '-'; {fix}"
        )
    return project_id


def mismatch(named: str, recorded: str) -> str:
    """The one line for a project.json naming another project than the one
    the store records (store/db.py, `Store.open`)."""
    where = f"{DIR}/{PROJECT_FILE}"
    return (
        f"{where} names project {named}, but this store belongs to project {recorded}; "
        f"restore it (git checkout {where}) or set project_id back to {recorded}"
    )


# The ledger's header is its first line, and short.
LEDGER_HEADER_BYTES = 4096


def ledger_project(root: StrPath) -> str | None:
    """The project id the team ledger's header names (its first line,
    `{"project": ..., "record": "ledger", ...}`), or None when there is no
    ledger or no header to read: nothing names a project then."""
    try:
        head = read_bytes(os.path.join(root, DIR, LEDGER), LEDGER_HEADER_BYTES)
        line = jsontext.as_object(jsontext.loads(head.split(b"\n", 1)[0].decode("utf-8")))
    except (OSError, ValueError, RecursionError):
        return None
    named = line.get("project") if line is not None else None
    if line is None or line.get("record") != "ledger" or not isinstance(named, str):
        return None
    if jsontext.gives_a_key_twice(head.split(b"\n", 1)[0].decode("utf-8")):
        return None  # which project it names is the first value or the last
    return named if valid_project_id(named) else None


# The ledger schema this version reads and writes (`team/ledger.py`).
LEDGER_SCHEMA = 1


def ledger_problem(root: StrPath, named: str) -> str | None:
    """Why a store must not be built from this clone's team ledger yet, or
    None: no ledger (a project that does not share its memory), or one whose
    every header line names `named` at a schema this version reads. A store
    built beside a ledger it then cannot import would hold none of the
    team's memories and none of its tombstones, and take writes of what the
    team forgot; so a header naming another project, or none, a second
    header naming another, or a newer schema, builds nothing (`Store.open`).
    Every line is read: a fresh build reads them all to import them anyway;
    one longer than `line_bound.MAX_LINE_BYTES` is read cut short, never whole."""
    from tree_ring.model import line_bound  # only a build beside a ledger reads it

    where = f"{DIR}/{LEDGER}"
    try:
        fd = os.open(os.path.join(root, DIR, LEDGER), os.O_RDONLY | NOFOLLOW | NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"{where} cannot be read ({exc.strerror or exc}); restore it from git"
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return f"{where} is not a regular file; restore it from git"
        first = True
        for number, raw in enumerate(line_bound.lines(handle), start=1):
            if not raw.strip():
                continue
            if not first and b"ledger" not in raw:
                continue  # a header line says "ledger": the others are skipped unparsed
            try:
                line = jsontext.as_object(jsontext.loads(raw.decode("utf-8")))
            except (ValueError, RecursionError):
                line = None
            is_header = line is not None and line.get("record") == "ledger"
            if first and not is_header:
                return (
                    f"{where} does not begin with its header line naming the project: a "
                    f"commit changed it; `git log -p -- {where}` shows how; restore it"
                )
            first = False
            if line is None or not is_header:
                continue
            if jsontext.gives_a_key_twice(raw.decode("utf-8")):  # read, only the last counts
                return f"{where}'s header line (line {number}) gives a key twice; restore it"
            said = line.get("project")
            schema = line.get("schema")
            if not isinstance(schema, int) or isinstance(schema, bool):
                return schema_not_a_number(schema)
            if schema > LEDGER_SCHEMA:
                return schema_too_new(schema)
            if said != named:
                header = said if isinstance(said, str) else "none"
                return ledger_mismatch(named, header[:80], number)
    return None


def schema_too_new(schema: int, then: str = "") -> str:
    """The one line for a header naming a schema newer than this version's:
    a teammate's newer Tree Ring wrote it, or a hand edited it (only the
    working tree's copy, often: `git diff` tells)."""
    where = f"{DIR}/ledger.jsonl"
    return (
        f"{where} names ledger schema {schema}, and this Tree Ring reads {LEDGER_SCHEMA}: "
        f"if a newer Tree Ring wrote it, upgrade the plugin{then}; if not, it was edited "
        f"(`git diff -- {where}` shows how): restore it with `git checkout -- {where}`"
    )


def schema_not_a_number(schema: object) -> str:
    """The one line for a header whose schema is no whole number: no Tree
    Ring wrote it, so it is neither newer nor this version's."""
    where = f"{DIR}/ledger.jsonl"
    shown = jsontext.dumps(schema)[:40] if schema is not None else "none"
    return (
        f"{where}'s header line names schema {shown}, which is no schema number: a hand "
        f"edit or a bad merge; `git log -p -- {where}` shows how; restore the header line"
    )


def ledger_mismatch(named: str, header: str, number: int = 1) -> str:
    """The one line for a clone whose two committed files name two projects:
    no store is built from them (store/db.py, `Store.open`), and `doctor`
    fails its ledger check."""
    where = f"{DIR}/{PROJECT_FILE}"
    line = "" if number == 1 else f" on line {number}"
    return (
        f"{where} names project {named}, but the team ledger's header ({DIR}/{LEDGER}"
        f"{line}) names project {header!r}: a commit changed one of them; `git log -p -- "
        f"{where} {DIR}/{LEDGER}` shows which; restore it"
    )


def temporary_beside(path: StrPath, mode: int = 0o644) -> tuple[int, str]:
    """A new file beside `path` to write, then rename over it: (descriptor,
    name). Created exclusively at a random name, following no link, so no
    link or file committed at a predictable name is ever written through."""
    folder, name = os.path.split(os.fsdecode(path))
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW
    while True:
        temporary = os.path.join(folder, f".{name}.{os.getpid()}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(temporary, flags, mode), temporary
        except FileExistsError:
            continue  # another name: this one is someone else's
        except PermissionError:  # another user's checkout, or a read-only file system
            unwritable = f"{folder} is not writable by you; run this as its owner, or make it so"
            raise StoreFault(f"{os.fspath(path)} cannot be written: {unwritable}") from None


def write_replacing(path: StrPath, data: bytes, mode: int = 0o644) -> None:
    """`data` written to a new file beside `path`, then renamed over it."""
    fd, temporary = temporary_beside(path, mode)
    try:
        with open(fd, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    except BaseException:
        try:  # noqa: SIM105 - contextlib would cost every hook run its import
            os.unlink(temporary)
        except OSError:
            pass
        raise


def write_new(path: StrPath, text: str) -> bool:
    """Create `path` with `text` unless something (a link included) is there
    already; True when created. The file is written beside it first and
    linked into place, so a reader (a hook starting as `init` runs) never
    finds it empty or half-written."""
    name = os.fspath(path)
    if os.path.lexists(name):
        return False
    tmp = f"{name}.new-{os.getpid()}-{os.urandom(6).hex()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o644)
    try:
        with open(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        try:
            os.link(tmp, name)  # fails, rather than replaces, where something is there
        except FileExistsError:
            return False
        except OSError:
            # A file system without hard links: created in place instead.
            return _write_in_place(name, text)
        return True
    finally:
        os.unlink(tmp)


def _write_in_place(path: str, text: str) -> bool:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o644)
    except FileExistsError:
        return False
    with open(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    return True


def store_missing_fix(root: str) -> str:
    """What builds a missing store: `init`, `sync` from the team ledger, or a backup."""
    if not os.path.isfile(os.path.join(root, DIR, LEDGER)):
        return f"run `tree-ring --root {root} init`"
    return (
        f"a clone builds it from the team ledger: `tree-ring --root {root} sync` (the next "
        f"session does too); a lost store comes back whole from your export: `init`, then "
        "`import FILE --restore` (a ledger no upstream holds gives back claims for `review list`)"
    )


def create_private(path: str) -> None:
    """A new empty file at `path` that only its user may read, whatever the
    umask: what a store is built in (SQLite gives its journal and WAL files
    the database's mode), as the files beside it are made. A store holds
    sensitive rows, agents' partitions and forget reasons no ledger carries."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o600))


def make_private(path: str, status: os.stat_result) -> None:
    """A store others may read (made by an earlier version under a umask of
    022) made private to its owner, as `create_private` makes one. Another
    user's file, or a file system that keeps no modes, is left as it is."""
    if not status.st_mode & 0o077 or status.st_uid != os.getuid():
        return
    try:  # noqa: SIM105 - contextlib would cost every hook run its import
        os.chmod(path, 0o600)
    except OSError:
        pass
