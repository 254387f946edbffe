"""What every command handler shares: the context and the common flags.

Each module in this package holds one group of verbs and a `VERBS` table of
each verb's handler and arguments, declared as argparse's calls;
`tree_ring.cli.app` reads a command line by the one verb it names (with
`tree_ring.cli.reader`, or argparse for help and mistakes), and is the one
place where errors become messages and exit codes. A memory's flags come
from `Memory`'s declaration. Nothing here imports argparse.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from tree_ring.model import jsontext, project
from tree_ring.model.errors import UsageError
from tree_ring.model.frozen import Field, fields
from tree_ring.model.identity import Identity, harness_origin, resolve
from tree_ring.model.record import Memory, caller_fields, option_time
from tree_ring.model.text import error_safe, terminal_safe
from tree_ring.store.db import Options, Store
from tree_ring.store.live import View

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any, TextIO

    from tree_ring.api.project import Project
    from tree_ring.model.actor import Actor
    from tree_ring.model.project import StrPath


# Skipped lines (of an import, of the team ledger) listed one by one before a
# count of the rest; `--json` lists them all.
SKIPPED_SHOWN = 20


class Context:
    """What every command handler gets: parsed args, environment, output."""

    def __init__(self, args: argparse.Namespace, environ: Mapping[str, str], out: TextIO) -> None:
        self.args = args
        self.environ = environ
        self.out = out
        # The work was done and a problem after it reported (`warn`).
        self.done = False
        # A person's global write run outside any project (`global_outside`).
        self._global_outside = False

    @property
    def as_json(self) -> bool:
        return bool(getattr(self.args, "json", False))

    @property
    def on_user_store(self) -> bool:
        """`--user`: the verb acts on the person's user store, not a project's."""
        return self._global_outside or bool(getattr(self.args, "user", False))

    def global_outside(self, scope: str | None) -> bool:
        """Whether a write of `scope` is a person's global one run outside any
        project: `--scope global` means the person, not a project, so it acts
        on their user store as `--user` does, and creates it. An agent's global
        write is a proposal made in the project it works in."""
        from tree_ring.model.errors import NoStore

        if scope != "global" or self.on_user_store or harness_origin(self.environ).is_agent:
            return False
        try:
            project.locate_str(getattr(self.args, "root", None), self.environ)
        except NoStore:
            self._global_outside = True
        return self._global_outside

    def root(self) -> str:
        """The project directory (a str: pathlib costs a CLI call more than its work);
        with `--user`, the user store's folder."""
        if self.on_user_store:
            from tree_ring.store import user

            return os.path.dirname(user.user_store_path(self.environ))
        return project.locate_str(getattr(self.args, "root", None), self.environ)

    def store(self, root: StrPath | None = None) -> Store:
        """The project's store, opened as this environment says (`Options`);
        with `--user`, the user store (a one-line error when there is none).

        A `root` comes from a verb that has resolved its caller (`identity`).
        Without one, the verb acts on the store as a whole (its settings,
        policy, trees, audit log), so its project is resolved here, as every
        other verb's is: a damaged project.json refused in one line (`Store.open`
        leaves that to its callers), and a `--project` naming another refused."""
        if self.on_user_store:
            from tree_ring.model.errors import NoStore
            from tree_ring.store import user

            opened = user.open_user(self.environ, create=self._global_outside)
            if opened is None:
                path = user.user_store_path(self.environ)
                raise NoStore(f"no user store at {path}; {user.FIX}")
            return opened
        if root is None:
            root = self.root()
            # The store first: a project.json naming another project than the
            # one it records is refused for what it is, before `--project` is
            # compared with what that file says.
            opened = Store.open(root, options=Options.from_environ(self.environ))
            try:
                self.own_project(root)
            except BaseException:
                opened.close()
                raise
            return opened
        return Store.open(root, options=Options.from_environ(self.environ))

    def project_id(self, root: StrPath) -> str:
        """The project's id; with `--user`, the user store's."""
        if self.on_user_store:
            from tree_ring.store.user import USER_PROJECT

            return USER_PROJECT
        return project.load_project_id(root)

    def identity(self, root: StrPath) -> Identity:
        """The caller's identity; `--project` names another project for a
        person's read only (an agent's is refused unless it is the root's own,
        and so is a person's write: `identity_flags`)."""
        a = self.args
        named = getattr(a, "project", None)
        home = None
        if not named or harness_origin(self.environ).is_agent:
            home = self.project_id(root)
        elif getattr(a, "writes_project", False):
            self.own_project(root)
        return resolve(
            named or home or "",
            self.environ,
            agent_profile=getattr(a, "agent_profile", None),
            workflow_id=getattr(a, "workflow_id", None),
            session_id=getattr(a, "session_id", None),
            home=home,
        )

    def own_project(self, root: StrPath) -> str:
        """project.json's id, for a verb that acts on this store as its own
        project's: a `--project` naming another is refused. The store belongs
        to one project (`Store.open` refuses a project.json naming another):
        rows written under another id would answer to none of its tombstones,
        and what a verb shows of the whole store is this project's."""
        own = self.project_id(root)
        named = getattr(self.args, "project", None)
        if named and named != own:
            raise UsageError(
                f"this store belongs to project {own}, not {named}; drop --project, "
                f"or run `tree-ring {self.command}` in {named}'s folder"
            )
        return own

    @property
    def whole_project(self) -> bool:
        """A person at the terminal lists, shows and exports every partition;
        an agent sees what its recall sees (`live.visible`)."""
        return not harness_origin(self.environ).is_agent

    def actor(self, identity: Identity) -> Actor:
        from tree_ring.api.project import person_actor

        return person_actor(identity, self.environ)

    def project(self, root: str | None = None, *, create: bool = False) -> Project:
        """The project this call acts on, as the library's one front for clients;
        with `--user`, the person's user store is its store."""
        from tree_ring.api.project import Project

        root = root or self.root()
        identity = self.identity(root)
        opened = self.store(root) if self.on_user_store else None
        return Project(
            root,
            identity,
            environ=self.environ,
            options=Options.from_environ(self.environ),
            whole_project=self.whole_project,
            create=create,
            store=opened,
            # The project it is run in: what it forgot stays out of the user store's reads.
            around=self.project_around if self.on_user_store else None,
        )

    def project_around(self) -> Project | None:
        """With `--user`, the project the call is run in (`--root`,
        TREE_RING_ROOT, or the walk up from here), when it has a store; None
        outside any project."""
        from tree_ring.api.project import Project
        from tree_ring.model.errors import NoStore

        try:
            root = project.locate_str(getattr(self.args, "root", None), self.environ)
        except NoStore:
            return None
        if not os.path.exists(project.store_path_str(root)):
            return None  # a fresh clone's: no agent wrote anything here yet
        return Project.open(root, self.environ)

    def view(self) -> View:
        a = self.args
        return View(
            as_of=option_time(getattr(a, "as_of", None), "--as-of"),
            valid_at=option_time(getattr(a, "valid_at", None), "--valid-at"),
            include_sensitive=bool(getattr(a, "include_sensitive", False)),
            include_unreviewed=bool(getattr(a, "include_unreviewed", False)),
        )

    @property
    def command(self) -> str:
        """The verb, or verb and action ("review approve"), as `--json` names it."""
        return str(getattr(self.args, "command_name", None) or getattr(self.args, "command", ""))

    def emit(self, data: Mapping[str, Any], text: str, *, to: TextIO | None = None) -> None:
        """One JSON object under `--json` (with `command`), else the human text;
        on `to` when given (stderr, where stdout carries the command's output)."""
        out = self.out if to is None else to
        if self.as_json:
            document = {"command": self.command, **data}
            out.write(jsontext.dumps(document, sort_keys=True) + "\n")
        elif text:
            text = terminal_safe(text)
            out.write(text if text.endswith("\n") else text + "\n")

    def warn(self, message: str, *, code: str, exit_code: int = 1) -> int:
        """A problem after the work was done and reported (content that lingers
        in a file the store could not scrub): one line on stderr, in the shape
        of every error, and the exit code the caller returns. The work stands,
        so the team ledger still follows it (`done`)."""
        self.done = True
        sys.stderr.write(error_line(message, code=code, exit_code=exit_code, as_json=self.as_json))
        return exit_code


def error_line(
    message: str, *, code: str, exit_code: int, as_json: bool, supplied: Sequence[str] = ()
) -> str:
    """An error as the CLI prints it: `error: ...`, or one JSON object under --json.

    Every error the CLI prints comes through here, and so through `withhold`:
    whatever in it looks like a secret (quoted, bare, or the start of a
    secret-shaped word of the command line, `supplied`) is not shown. Then
    `error_safe`: a line break or control character in a value it quotes (a
    `--root`, TREE_RING_ROOT) is written out, so the error stays one line, and
    its JSON message says what the text line says."""
    from tree_ring.guard import withhold

    message = error_safe(withhold(message, supplied))
    if as_json:
        body = {"error": {"code": code, "message": message, "exit": exit_code}}
        return jsontext.dumps(body, sort_keys=True) + "\n"
    return f"error: {message}\n"


def listing(
    items: Sequence[Any],
    *,
    total: int | None = None,
    offset: int | None = None,
    limit: int | None = None,
) -> dict[str, Any]:
    """A command's one list: `items`, `total` (all that matched before paging)
    and `shown`; a paged list also says its `offset` and `limit`."""
    data: dict[str, Any] = {
        "items": list(items),
        "total": len(items) if total is None else total,
        "shown": len(items),
    }
    if offset is not None:
        data["offset"] = offset
    if limit is not None:
        data["limit"] = limit
    return data


def reshaped(data: Mapping[str, Any], key: str) -> dict[str, Any]:
    """A library report in the output convention: its list `key` as `items`
    (with `total` and `shown`), the files it wrote (`files`) as `written`."""
    out = {name: value for name, value in data.items() if name not in (key, "files")}
    if "files" in data:
        out["written"] = [str(path) for path in data["files"]]
    return out | listing(list(data.get(key) or ()))


def showing(shown: int, total: int, more_than: int | None = None) -> str:
    """The line a paged human list ends with; `more_than`: the total was
    counted no further than that."""
    whole = f"more than {more_than:,}" if more_than is not None else f"{total:,}"
    return f"showing {shown:,} of {whole}"


Handler = Callable[[Context], int]
# A verb's arguments, added to its parser.
Arguments = Callable[["argparse.ArgumentParser"], None]
# argparse's mark for "no default: leave the name unset" (argparse.SUPPRESS).
SUPPRESS = "==SUPPRESS=="


def no_arguments(_parser: argparse.ArgumentParser) -> None:
    """For a verb that takes only the common flags."""


def examples(lines: Iterable[str]) -> str:
    """A verb's epilog: its examples, one command per line."""
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)


Action = Callable[[str, Handler, str], "argparse.ArgumentParser"]


def nested(
    parent: argparse.ArgumentParser, dest: str, verb: str, *, required: bool = True
) -> Action:
    """A verb's actions (`review approve`, `dox sync`) as argparse subcommands,
    each with the common flags again, so `--json` and `--root` work after them
    and an unknown flag or word is refused. `command_name` is what `--json`
    reports as the command."""
    sub = parent.add_subparsers(dest=dest, metavar="ACTION", required=required)

    def action(name: str, handler: Handler, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(
            name,
            help=help_text,
            description=help_text,
            formatter_class=parent.formatter_class,
        )
        p.add_argument("--root", default=SUPPRESS, help="project directory")
        p.add_argument(
            "--json", action="store_true", default=SUPPRESS, help="print one JSON document"
        )
        p.set_defaults(handler=handler, command_name=f"{verb} {name}")
        return p

    return action


def at_least(flag: str, minimum: int) -> Callable[[str], int]:
    """The type of a whole-number flag with a floor, checked as the flag is
    read, so every verb that takes `--limit` (or `--offset`) refuses a value
    below it alike, before any work: `--limit takes a count of 1 or more,
    not 0`. A value past `MOST_COUNT` is refused too: SQLite's integers stop
    at 2**63. Not a number: the parser's error (`KINDS["count"]`)."""

    def count(value: str) -> int:
        number = int(value)
        if number < minimum:
            wanted = "a count of 1 or more" if minimum == 1 else f"{minimum} or more"
            raise UsageError(f"{flag} takes {wanted}, not {number}")
        if number > MOST_COUNT:
            raise UsageError(f"{flag} takes at most {MOST_COUNT:,}, not {number:,}")
        return number

    return count


MOST_COUNT = 10**15


def once(key: str, given: Iterable[str], verb: str, again: str) -> None:
    """Refuse a setting's key given a second time, whatever its values
    (`config set`, `review policy --set`, `tree config --set`): taking the last
    would drop a value without a word, and which one was meant is the
    person's to say. Equal values too, so the rule has no exception. `again`
    is how the one kept is written (`KEY=VALUE`, `--set KEY=VALUE`)."""
    if key in given:
        raise UsageError(
            f"{key} is given more than once; {verb} takes each key once, even with the same "
            f"value; keep one {again} and retry"
        )


def limit_flag(p: argparse.ArgumentParser, default: Any, help_text: str | None = None) -> None:
    """`--limit N`: at most N items, N at least 1."""
    p.add_argument("--limit", type=at_least("--limit", 1), default=default, help=help_text)


def offset_flag(p: argparse.ArgumentParser) -> None:
    """`--offset N`: skip the first N items, N at least 0."""
    p.add_argument(
        "--offset",
        type=at_least("--offset", 0),
        default=0,
        help="skip this many first (default: 0)",
    )


def identity_flags(p: argparse.ArgumentParser, *, writes: bool = False) -> None:
    """The identity flags; `writes`: the verb writes rows under `--project`,
    which may then name only the store's own project (`writes_project`)."""
    g = p.add_argument_group("identity (default: project.json, TREE_RING_* and the harness)")
    project_flag(g)
    if writes:
        writes_project(p)
    g.add_argument("--agent-profile", help="agent partition (TREE_RING_AGENT_PROFILE)")
    g.add_argument("--workflow-id", help="workflow partition (TREE_RING_WORKFLOW_ID)")
    g.add_argument("--session-id", help="session partition (TREE_RING_SESSION_ID)")


PROJECT_HELP = "project id (default: .tree-ring/project.json)"


def project_flag(p: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:  # pyright: ignore[reportPrivateUsage]
    """`--project ID`, refused at once unless it is a project id's shape
    (`model.arguments` names the shape, never the value given)."""
    p.add_argument("--project", type=project_id_value, help=PROJECT_HELP)


def project_id_value(value: str) -> str:
    if not project.valid_project_id(value):
        raise ValueError("not a project id")
    return value


def writes_project(p: argparse.ArgumentParser) -> None:
    """Mark a verb that writes under its `--project`: a person's naming a
    project other than the store's own is refused, as an agent's is
    (`Context.identity`); reads may still name another (rows kept from before),
    except a verb that shows the store as a whole (`Context.store`)."""
    p.set_defaults(writes_project=True)


def user_flag(p: argparse.ArgumentParser, default: Any = False) -> None:
    """`--user`; a nested action's takes `default=SUPPRESS`, so its parent's stands."""
    p.add_argument(
        "--user",
        action="store_true",
        default=default,
        help="act on your user store (your notes across projects) instead of this project's",
    )


def sensitive_flag(
    p: argparse.ArgumentParser, help_text: str = "also show sensitive memories"
) -> None:
    """`--include-sensitive`: a read shows sensitive rows, or their text, only when asked."""
    p.add_argument("--include-sensitive", action="store_true", help=help_text)


def view_flags(p: argparse.ArgumentParser) -> None:
    sensitive_flag(p)
    p.add_argument(
        "--include-unreviewed",
        action="store_true",
        help="also show pending and disputed memories (labelled)",
    )
    p.add_argument("--as-of", metavar="TIME", help="what was believed at TIME (record time)")
    p.add_argument("--valid-at", metavar="TIME", help="what held at TIME (validity time)")


def flag_fields() -> list[Field]:
    """The fields of `Memory` a write's flags set, in its order."""
    return [spec for spec in fields(Memory) if spec.get("flag")]


def dest(spec: Field) -> str:
    """Where argparse puts a field's flag: its name without dashes."""
    return spec.get("flag").lstrip("-").replace("-", "_")


def memory_flags(
    p: argparse.ArgumentParser, *, ring: bool = True, helps: Mapping[str, str] | None = None
) -> None:
    """A flag for each field `Memory` declares one for, as it declares it
    (`helps` rewords a flag's help where a verb uses it differently)."""
    draft = {spec.name: spec for spec in caller_fields()}
    for spec in flag_fields():
        if spec.name == "ring" and not ring:
            continue
        name: str = spec.get("flag")
        options: dict[str, Any] = {"help": (helps or {}).get(name, spec.get("help"))}
        if spec.get("choices"):
            options["choices"] = spec.get("choices")
        if spec.annotation == "float":
            options["type"] = float
        if spec.annotation.startswith("tuple["):
            options["action"] = "append"
        elif name.startswith("--"):
            options["default"] = draft[spec.name].default
        if spec.get("time"):
            options["metavar"] = "TIME"
        p.add_argument(name, **options)
    identity_flags(p, writes=True)
