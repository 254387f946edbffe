"""Which agent harnesses are here, and whether Tree Ring is working in each.

`scan` is the original Tree Ring's marker scan: for DOX, Revolve, Codex,
Claude Code, Agent Zero, Goose, OpenCode, Hermes and Pi, which of their
marker files exist in the project or the home folder, and the next step.

`status` goes further for the two harnesses Tree Ring ships a plugin for,
reading each one's own records the way it reads them:

- Claude Code (`~/.claude`, or `CLAUDE_CONFIG_DIR`): the plugin in
  `plugins/installed_plugins.json`, enabled in `enabledPlugins` of the user's
  and the project's settings, its `hooks/hooks.json` wiring the four hooks;
  Claude Code asks no trust.
- Codex (`~/.codex`, or `CODEX_HOME`): the plugin in `config.toml`
  (`[plugins."tree-ring@MARKETPLACE"]`), installed under
  `plugins/cache/MARKETPLACE/tree-ring/VERSION/`, its `codex-hooks.json` wiring
  the four hooks, and Codex's trust in each, recorded as
  `[hooks.state."tree-ring@MARKETPLACE:hooks/codex-hooks.json:EVENT:0:0"]`
  with a `trusted_hash` (hooks/README.md). Codex compares that hash with the
  installed files; reading only the file, this reports the trust as recorded,
  and Codex asks again after a plugin update.

and, for both, whether the hooks fired in this project (their receipts), with
the one command that fixes each gap. Nothing here writes anything.
"""

from __future__ import annotations

import json
import os
import shutil
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from tree_ring.harness import receipts
from tree_ring.model import project

PLUGIN = "tree-ring"
PLUGIN_ROOT = Path(__file__).resolve().parents[2]
HOOK_EVENTS = ("SessionStart", "SubagentStart", "Stop", "SubagentStop")
LAUNCHER = "hooks/tree_ring_hook.py"
# bytes; a harness's config or hooks file is a few kilobytes, and nothing
# larger is read into memory.
MAX_CONFIG = 4 << 20

# id, name, project markers, home markers, next step (the original's table).
MARKERS: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...], str], ...] = (
    ("dox", "DOX / AGENTS.md", ("AGENTS.md",), (),
     "`tree-ring dox sync --dry-run`, then `tree-ring dox sync` when the plan looks right"),
    ("revolve", "Revolve", ("revolve", ".revolve"), (),
     "`tree-ring revolve sync --source-root revolve --dry-run`, then without --dry-run"),
    ("codex", "Codex", (".codex", "AGENTS.md"), (".codex",),
     "`tree-ring integrations status` shows whether the plugin, its hooks and their trust are in place"),  # noqa: E501
    ("claude-code", "Claude Code", (".claude", "CLAUDE.md"), (".claude",),
     "`tree-ring integrations status` shows whether the plugin and its hooks are in place"),
    ("agent-zero", "Agent Zero / A0", ("usr/plugins", "a0", "agent-zero", ".a0"), (".a0",),
     "no Tree Ring plugin: point its instructions at .tree-ring/AGENTS.md and the tree-ring CLI"),
    ("goose", "Goose", (".goose", "goosehints"), (".goose",),
     "no Tree Ring plugin: add `tree-ring recall` and `tree-ring remember` to .goosehints"),
    ("opencode", "OpenCode", (".opencode", "opencode.json", "opencode.toml"), (".opencode",),
     "no Tree Ring plugin: reference .tree-ring/AGENTS.md from AGENTS.md or opencode.json"),
    ("hermes", "Hermes", (".hermes", "hermes.toml"), (".hermes",),
     "no Tree Ring plugin: reference the tree-ring CLI from its instructions"),
    ("pi", "Pi", (".pi", "pi.toml"), (".pi",),
     "no Tree Ring plugin: add .tree-ring/SKILL.md to .pi/settings.json resources"),
)  # fmt: skip


@dataclass(frozen=True)
class Marker:
    path: str
    origin: str  # project | home


@dataclass(frozen=True)
class Detected:
    id: str
    name: str
    markers: tuple[Marker, ...]
    next_step: str

    @property
    def status(self) -> str:
        return "detected" if self.markers else "available"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "status": self.status,
            "markers": [{"path": m.path, "origin": m.origin} for m in self.markers],
            "next_step": self.next_step,
        }


def home_of(environ: Mapping[str, str]) -> Path | None:
    home = environ.get("HOME")
    return Path(home) if home else None


def scan(root: Path, environ: Mapping[str, str]) -> list[Detected]:
    """Every known harness and adapter, detected ones first."""
    home = home_of(environ)
    found: list[Detected] = []
    for ident, name, in_project, in_home, step in MARKERS:
        markers = [Marker(str(root / m), "project") for m in in_project if (root / m).exists()]
        if home is not None:
            markers += [Marker(str(home / m), "home") for m in in_home if (home / m).exists()]
        found.append(Detected(ident, name, tuple(markers), step))
    return sorted(found, key=lambda d: (not d.markers, -len(d.markers), d.name))


# -- status ------------------------------------------------------------------


@dataclass
class Harness:
    id: str
    name: str
    installed: bool = False  # the harness itself: its home folder or its command
    plugin: str = "missing"  # installed | disabled | missing
    plugin_key: str = f"{PLUGIN}@{PLUGIN}"
    plugin_path: str | None = None
    hooks: str = "missing"  # wired | missing
    trust: str = "not needed"  # trusted | untrusted | not needed
    last_brief: str | None = None
    last_stop: str | None = None
    state: str = "not-installed"
    gaps: list[tuple[str, str]] = field(default_factory=lambda: [])  # (gap, command)

    def to_dict(self) -> dict[str, Any]:
        data = {k: v for k, v in self.__dict__.items() if k != "gaps"}
        return data | {"gaps": [{"gap": g, "fix": fix} for g, fix in self.gaps]}


def as_table(value: Any) -> dict[str, Any]:
    """`value` if it is a JSON or TOML table, else an empty one."""
    return cast(dict[str, Any], value) if isinstance(value, dict) else {}


def read_config(path: Path) -> str:
    """A harness file's text, read the one bounded way: a regular file only
    (through a link, but never a FIFO or a device, which would wait forever
    or never end) of at most MAX_CONFIG bytes. OSError, naming the file, for
    any it will not read; ValueError for text that is not UTF-8."""
    raw = project.read_bytes(path, MAX_CONFIG, follow=True)
    if len(raw) > MAX_CONFIG:
        raise OSError(f"{path} is over {MAX_CONFIG} bytes, too large for a harness's config")
    return raw.decode("utf-8")


def read_json(path: Path) -> dict[str, Any]:
    """A harness's JSON file as a table; one it cannot read or parse reads as
    empty, as the harness has no usable setting there."""
    try:
        return as_table(json.loads(read_config(path)))
    except (OSError, ValueError):
        return {}


def _toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(read_config(path))
    except (OSError, ValueError):
        return {}


def load_hooks(hooks_file: Path) -> dict[str, Any]:
    """A hooks file's table of events, as both harnesses read it."""
    return as_table(read_json(hooks_file).get("hooks"))


def wired(hooks_file: Path, harness: str) -> bool:
    """Whether the file wires all four events to Tree Ring's launcher for `harness`."""
    table = load_hooks(hooks_file)
    return all(
        any(LAUNCHER in cmd and cmd.rstrip().endswith(harness) for cmd in _commands(table, event))
        for event in HOOK_EVENTS
    )


def _commands(table: dict[str, Any], event: str) -> list[str]:
    found: list[str] = []
    for group in cast(list[Any], table.get(event) or []):
        for hook in cast(list[Any], as_table(group).get("hooks") or []):
            command = as_table(hook).get("command")
            if isinstance(command, str):
                found.append(command)
    return found


def _locate(
    h: Harness, environ: Mapping[str, str], variable: str, default: str, command: str
) -> Path | None:
    """The harness's configuration folder (`variable` when set, else `default`
    in the home folder), noting in `h` whether the harness is installed: that
    folder is there, or its command is on PATH."""
    home = home_of(environ)
    folder = Path(environ[variable]) if environ.get(variable) else None
    folder = folder or (home / default if home else None)
    h.installed = bool(folder and folder.is_dir()) or _on_path(command, environ)
    return folder


def claude_code(root: Path | None, environ: Mapping[str, str]) -> Harness:
    h = Harness("claude-code", "Claude Code")
    folder = _locate(h, environ, "CLAUDE_CONFIG_DIR", ".claude", "claude")
    if folder is None:
        return _settle(h, root, environ)
    plugins = as_table(read_json(folder / "plugins" / "installed_plugins.json").get("plugins"))
    for key, entries in plugins.items():
        if not key.startswith(f"{PLUGIN}@"):
            continue
        for entry in cast(list[Any], entries if isinstance(entries, list) else []):
            entry = as_table(entry)
            place = entry.get("projectPath")
            if place and root is not None and Path(place) != root:
                continue  # installed for another project
            path = Path(str(entry.get("installPath") or ""))
            if (path / ".claude-plugin").is_dir():
                h.plugin, h.plugin_key, h.plugin_path = "installed", key, str(path)
    if h.plugin == "installed":
        # Later files win: the user's settings, the project's, the project's local ones.
        layers = [folder / "settings.json"]
        if root is not None:
            layers += [root / ".claude" / "settings.json", root / ".claude" / "settings.local.json"]
        enabled: object = None
        for layer in layers:
            value: object = as_table(read_json(layer).get("enabledPlugins")).get(h.plugin_key)
            enabled = value if value is not None else enabled
        h.plugin = "installed" if enabled is True else "disabled"
        hooks_file = Path(h.plugin_path or "") / "hooks" / "hooks.json"
        h.hooks = "wired" if wired(hooks_file, h.id) else "missing"
    return _settle(h, root, environ)


def codex(root: Path | None, environ: Mapping[str, str]) -> Harness:
    h = Harness("codex", "Codex", trust="untrusted")
    folder = _locate(h, environ, "CODEX_HOME", ".codex", "codex")
    if folder is None:
        return _settle(h, root, environ)
    config = _toml(folder / "config.toml")
    for key, entry in as_table(config.get("plugins")).items():
        if not key.startswith(f"{PLUGIN}@") or not isinstance(entry, dict):
            continue
        off = as_table(entry).get("enabled") is False
        marketplace = key.partition("@")[2]
        versions = sorted((folder / "plugins" / "cache" / marketplace / PLUGIN).glob("*/"))
        if versions:
            h.plugin_key, h.plugin_path = key, str(versions[-1])
            h.plugin = "disabled" if off else "installed"
    if h.plugin_path is not None:
        manifest = read_json(Path(h.plugin_path) / ".codex-plugin" / "plugin.json")
        hooks_file = Path(h.plugin_path) / str(manifest.get("hooks") or "hooks/codex-hooks.json")
        h.hooks = "wired" if wired(hooks_file, h.id) else "missing"
        state = as_table(as_table(config.get("hooks")).get("state"))
        prefix = f"{h.plugin_key}:hooks/codex-hooks.json"
        keys = [f"{prefix}:{_snake(event)}:0:0" for event in HOOK_EVENTS]
        trusted = [as_table(state.get(key)).get("trusted_hash") for key in keys]
        h.trust = "trusted" if all(trusted) else "untrusted"
    return _settle(h, root, environ)


def _snake(event: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in event).lstrip("_")


def _on_path(command: str, environ: Mapping[str, str]) -> bool:
    return shutil.which(command, path=environ.get("PATH", os.defpath)) is not None


def install_commands(harness: str) -> str:
    tool = "claude" if harness == "claude-code" else "codex"
    add = "install" if harness == "claude-code" else "add"
    return f"{tool} plugin marketplace add {PLUGIN_ROOT} && {tool} plugin {add} {PLUGIN}@{PLUGIN}"


def _settle(h: Harness, root: Path | None, environ: Mapping[str, str]) -> Harness:
    """The harness's state and, for each gap, the command that closes it."""
    tool = "claude" if h.id == "claude-code" else "codex"
    if root is not None:
        fired = receipts.receipts(root).get(h.id, {})
        h.last_brief = as_table(fired.get("last_brief")).get("at")
        h.last_stop = as_table(fired.get("last_stop")).get("at")
    if not h.installed and h.plugin == "missing":
        h.state = "not-installed"
        gap = f"{h.name} is not installed here (no `{tool}` on PATH and no home folder of it)"
        h.gaps.append((gap, f"install {h.name}, then: {install_commands(h.id)}"))
        return h
    if h.plugin == "missing":
        h.gaps.append(("the Tree Ring plugin is not installed", install_commands(h.id)))
    elif h.plugin == "disabled":
        fix = (
            f"claude plugin enable {h.plugin_key}"
            if h.id == "claude-code"
            else f'set enabled = true under [plugins."{h.plugin_key}"] in the Codex config.toml'
        )
        h.gaps.append(("the plugin is installed but disabled", fix))
    elif h.hooks != "wired":
        fix = f"{tool} plugin uninstall {h.plugin_key}, then: {install_commands(h.id)}"
        h.gaps.append(("the installed plugin does not wire the four hooks", fix))
    here = f"cd {root} && " if root is not None else ""
    if h.id == "codex" and h.plugin == "installed" and h.trust != "trusted":
        fix = f"{here}codex  (choose Review hooks and trust all four, or /hooks later)"
        h.gaps.append(("Codex has not trusted the four hooks, so it skips them", fix))
    if root is None or not (root / project.DIR).is_dir():
        h.gaps.append(("no .tree-ring/ here, so the hooks do nothing", "tree-ring init"))
    elif not h.gaps and h.last_brief is None:
        gap = "the hooks have not fired in this project yet (a new session leaves a receipt)"
        h.gaps.append((gap, f"{here}{tool}"))
    if any("plugin" in gap for gap, _ in h.gaps):
        h.state = "needs-plugin"
    elif any("trusted" in gap for gap, _ in h.gaps):
        h.state = "needs-trust"
    elif any(".tree-ring" in gap for gap, _ in h.gaps):
        h.state = "needs-init"
    elif h.gaps:
        h.state = "configured-awaiting-proof"
    else:
        h.state = "active"
    return h


def status(root: Path | None, environ: Mapping[str, str]) -> list[Harness]:
    return [claude_code(root, environ), codex(root, environ)]
