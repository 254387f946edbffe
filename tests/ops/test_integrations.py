"""`integrations scan|status|certify` against harness installs in a temporary home."""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import CliRunner
from helpers import LAUNCHER, REPO

from tree_ring.harness import integrations
from tree_ring.harness.receipts import write_receipt
from tree_ring.model import project
from tree_ring.read.brief import Brief

PLUGIN_PARTS = (".claude-plugin", ".codex-plugin", "hooks", "tree_ring", "bin")
EVENTS = ("session_start", "subagent_start", "stop", "subagent_stop")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def env(home: Path, tmp_path: Path) -> dict[str, str]:
    """HOME and a PATH with python3 and sh only, so no real harness is found."""
    tools = tmp_path / "bin"
    tools.mkdir()
    os.symlink(sys.executable, tools / "python3")
    os.symlink(shutil.which("sh") or "/bin/sh", tools / "sh")
    return {"HOME": str(home), "PATH": str(tools)}


def install_copy(dest: Path) -> Path:
    """The plugin as a harness copies it into its cache."""
    for part in PLUGIN_PARTS:
        ignore = shutil.ignore_patterns("__pycache__")
        shutil.copytree(REPO / part, dest / part, ignore=ignore, dirs_exist_ok=True)
    return dest


def install_claude(home: Path, *, enabled: bool = True) -> Path:
    cache = install_copy(
        home / ".claude" / "plugins" / "cache" / "tree-ring" / "tree-ring" / "0.1.0"
    )
    (home / ".claude" / "plugins" / "installed_plugins.json").write_text(
        json.dumps(
            {
                "version": 2,
                "plugins": {"tree-ring@tree-ring": [{"scope": "user", "installPath": str(cache)}]},
            }
        )
    )
    settings = {"enabledPlugins": {"tree-ring@tree-ring": enabled}}
    (home / ".claude" / "settings.json").write_text(json.dumps(settings))
    return cache


def install_codex(home: Path, *, trusted: tuple[str, ...] = ()) -> Path:
    cache = install_copy(
        home / ".codex" / "plugins" / "cache" / "tree-ring" / "tree-ring" / "0.1.0"
    )
    config = '[plugins."tree-ring@tree-ring"]\nenabled = true\n'
    for event in trusted:
        key = f"tree-ring@tree-ring:hooks/codex-hooks.json:{event}:0:0"
        config += f'\n[hooks.state."{key}"]\ntrusted_hash = "sha256:{event}"\n'
    (home / ".codex" / "config.toml").write_text(config)
    return cache


def by_id(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {h["id"]: h for h in data["items"]}


def status(run_cli: CliRunner, env: dict[str, str]) -> dict[str, dict[str, Any]]:
    result = run_cli("--json", "integrations", "status", environ=env)
    assert result.code == 0, result.err
    return by_id(result.json())


def test_scan_reports_markers_and_where_they_came_from(
    run_cli: CliRunner, project_root: Path, home: Path, env: dict[str, str]
) -> None:
    (project_root / "AGENTS.md").write_text("# Rules\n")
    (project_root / "CLAUDE.md").write_text("see AGENTS.md\n")
    (project_root / "revolve").mkdir()
    (home / ".codex").mkdir()
    (home / ".goose").mkdir()
    found = run_cli("--json", "integrations", "scan", environ=env).json()["items"]
    markers = {d["id"]: {(m["origin"], Path(m["path"]).name) for m in d["markers"]} for d in found}
    assert markers == {
        "dox": {("project", "AGENTS.md")},
        "revolve": {("project", "revolve")},
        "codex": {("project", "AGENTS.md"), ("home", ".codex")},
        "claude-code": {("project", "CLAUDE.md")},
        "goose": {("home", ".goose")},
        "agent-zero": set(),
        "opencode": set(),
        "hermes": set(),
        "pi": set(),
    }
    assert {d["id"] for d in found if d["status"] == "detected"} == {
        "dox",
        "revolve",
        "codex",
        "claude-code",
        "goose",
    }
    assert found[0]["id"] == "codex"  # the most markers first


def test_status_with_nothing_installed_and_with_a_bare_harness(
    run_cli: CliRunner, home: Path, env: dict[str, str]
) -> None:
    states = status(run_cli, env)
    assert {k: v["state"] for k, v in states.items()} == {
        "claude-code": "not-installed",
        "codex": "not-installed",
    }
    (home / ".claude").mkdir()
    claude = status(run_cli, env)["claude-code"]
    assert (claude["installed"], claude["plugin"], claude["state"]) == (
        True,
        "missing",
        "needs-plugin",
    )
    (fix,) = [g["fix"] for g in claude["gaps"]]
    assert fix == (
        f"claude plugin marketplace add {integrations.PLUGIN_ROOT} && "
        "claude plugin install tree-ring@tree-ring"
    )


def test_claude_code_plugin_enabled_wired_and_fired(
    run_cli: CliRunner, project_root: Path, home: Path, env: dict[str, str]
) -> None:
    install_claude(home)
    claude = status(run_cli, env)["claude-code"]
    assert (claude["plugin"], claude["hooks"], claude["trust"]) == (
        "installed",
        "wired",
        "not needed",
    )
    assert claude["state"] == "configured-awaiting-proof"
    assert [g["fix"] for g in claude["gaps"]] == [f"cd {project_root} && claude"]
    write_receipt(
        project_root, harness="claude-code", event="SessionStart", brief=Brief("", (), "p")
    )
    claude = status(run_cli, env)["claude-code"]
    assert (claude["state"], claude["gaps"]) == ("active", [])
    assert claude["last_brief"] is not None and claude["last_stop"] is None
    # The project's local settings can switch it off for this project only.
    (project_root / ".claude").mkdir()
    (project_root / ".claude" / "settings.local.json").write_text(
        json.dumps({"enabledPlugins": {"tree-ring@tree-ring": False}})
    )
    claude = status(run_cli, env)["claude-code"]
    assert (claude["plugin"], claude["state"]) == ("disabled", "needs-plugin")
    assert [g["fix"] for g in claude["gaps"]] == ["claude plugin enable tree-ring@tree-ring"]


def test_codex_trust_is_read_from_its_config(
    run_cli: CliRunner, home: Path, env: dict[str, str]
) -> None:
    install_codex(home, trusted=EVENTS[:3])
    codex = status(run_cli, env)["codex"]
    assert (codex["plugin"], codex["hooks"], codex["trust"], codex["state"]) == (
        "installed",
        "wired",
        "untrusted",
        "needs-trust",
    )
    assert any("trust all four" in g["fix"] for g in codex["gaps"])
    install_codex(home, trusted=EVENTS)
    codex = status(run_cli, env)["codex"]
    assert (codex["trust"], codex["state"]) == ("trusted", "configured-awaiting-proof")


def test_a_plugin_whose_hooks_are_not_wired_needs_reinstalling(
    run_cli: CliRunner, home: Path, env: dict[str, str]
) -> None:
    cache = install_claude(home)
    hooks = json.loads((cache / "hooks" / "hooks.json").read_text())
    del hooks["hooks"]["Stop"]
    (cache / "hooks" / "hooks.json").write_text(json.dumps(hooks))
    claude = status(run_cli, env)["claude-code"]
    assert (claude["hooks"], claude["state"]) == ("missing", "needs-plugin")
    assert "does not wire" in claude["gaps"][0]["gap"]


def test_without_a_store_the_hooks_need_init(home: Path, env: dict[str, str]) -> None:
    install_claude(home)
    (claude, _) = integrations.status(None, env)
    assert claude.state == "needs-init"
    assert claude.gaps[-1] == ("no .tree-ring/ here, so the hooks do nothing", "tree-ring init")


def test_certify_runs_the_hooks_and_writes_its_report(
    run_cli: CliRunner, project_root: Path, home: Path, env: dict[str, str], tmp_path: Path
) -> None:
    install_claude(home)
    install_codex(home, trusted=EVENTS)
    write_receipt(project_root, harness="codex", event="Stop", brief=None)
    receipt = project.receipts_dir(project_root) / "codex.json"
    before = receipt.read_bytes()
    run_cli("remember", "Releases are signed", "--ring", "heartwood")
    out = tmp_path / "evidence"
    result = run_cli("--json", "integrations", "certify", "--out-dir", str(out), environ=env)
    assert result.code == 0, result.out + result.err
    data = result.json()
    assert data["passed"] is True
    for harness in data["items"]:
        assert harness["round_trip_plugin"].startswith(str(home))  # the installed copy ran
        assert [c["ok"] for c in harness["checks"]] == [True] * 5, harness["checks"]
    report = json.loads((out / "integrations" / "certification.json").read_text())
    assert report["passed"] is True and report["project"] == project.load_project_id(project_root)
    markdown = (out / "integrations" / "certification.md").read_text()
    assert "**passed**" in markdown and "SessionStart output matches the schema" in markdown
    # The round trip is not a session: the receipts are as they were.
    assert receipt.read_bytes() == before
    assert sorted(p.name for p in receipt.parent.iterdir()) == ["codex.json"]


def test_certify_fails_on_output_a_harness_would_refuse(
    run_cli: CliRunner, project_root: Path, home: Path, env: dict[str, str], tmp_path: Path
) -> None:
    cache = install_claude(home)
    adapter = cache / "tree_ring" / "hook" / "adapter.py"
    text = adapter.read_text()
    broken = '"additionalContext": brief.text, "extra": 1}'
    assert text.count('"additionalContext": brief.text}') == 1
    adapter.write_text(text.replace('"additionalContext": brief.text}', broken))
    out = tmp_path / "evidence"
    result = run_cli("--json", "integrations", "certify", "--out-dir", str(out), environ=env)
    assert result.code == 1
    claude = by_id(result.json())["claude-code"]
    failed = {c["name"] for c in claude["checks"] if not c["ok"]}
    assert failed == {"SessionStart output matches the schema"}
    assert "**FAILED**" in (out / "integrations" / "certification.md").read_text()
    text = run_cli("integrations", "certify", "--out-dir", str(out), environ=env).out
    failing = [line for line in text.splitlines() if line.startswith("  FAIL ")]
    assert [line.split(":")[0] for line in failing] == [
        "  FAIL SessionStart output matches the schema"
    ]
    assert "  ok   a second Stop passes: " in text and "certification FAILED; wrote:" in text


def test_human_status_and_scan_say_each_harness_and_next_step(
    run_cli: CliRunner, project_root: Path, home: Path, env: dict[str, str]
) -> None:
    text = run_cli("integrations", "status", environ=env).out
    lines = text.splitlines()
    assert lines[0] == f"project: {project_root}"
    named = [line for line in lines[1:] if not line.startswith("  ")]
    assert named and all(
        "(plugin " in line and ", hooks " in line and "last brief never)" in line for line in named
    )
    (project_root / "AGENTS.md").write_text("# Rules\n")
    scan = run_cli("integrations", "scan", environ=env).out.splitlines()
    assert scan[0] == f"2 detected under {project_root}"
    dox = next(i for i, line in enumerate(scan) if line.startswith("DOX / AGENTS.md "))
    assert "project:" in scan[dox] and scan[dox + 1].split()[0] == "next:"
    bare = [i for i, line in enumerate(scan) if "no markers" in line]
    assert bare and all(i + 1 == len(scan) or "next:" not in scan[i + 1] for i in bare)


def test_certify_fails_a_hook_that_exits_non_zero_even_with_the_right_output(
    run_cli: CliRunner, project_root: Path, home: Path, env: dict[str, str], tmp_path: Path
) -> None:
    # A harness treats a hook's non-zero exit as a failure whatever it printed.
    cache = install_claude(home)
    launcher = cache / "hooks" / "tree_ring_hook.py"
    text = launcher.read_text()
    assert text.count("os._exit(0)") == 1
    launcher.write_text(text.replace("os._exit(0)", "os._exit(3)"))
    run_cli("remember", "Releases are signed", "--ring", "heartwood")
    out = tmp_path / "evidence"
    result = run_cli("--json", "integrations", "certify", "--out-dir", str(out), environ=env)
    assert result.code == 1
    claude = by_id(result.json())["claude-code"]
    checks = {c["name"]: (c["ok"], c["detail"]) for c in claude["checks"]}
    assert {name for name, (ok, _) in checks.items() if not ok} == {
        "SessionStart output matches the schema",
        "Stop blocks once with the capture command",
        "a second Stop passes",
    }
    # It printed its output (a brief of some hundred bytes): only the exit fails it.
    assert re.fullmatch(
        r"exit 3, [1-9]\d+ bytes", checks["SessionStart output matches the schema"][1]
    )
    assert checks["a second Stop passes"][1] == "exit 3"


def test_certify_does_not_pass_when_no_harness_has_tree_ring_installed(
    run_cli: CliRunner, project_root: Path, env: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "evidence"
    result = run_cli("--json", "integrations", "certify", "--out-dir", str(out), environ=env)
    assert result.code == 1, result.out + result.err
    data = result.json()
    assert data["passed"] is False
    assert {h["state"] for h in data["items"]} == {"not-installed"}
    assert "no harness has Tree Ring installed" in data["next"]
    assert integrations.install_commands("claude-code") in data["next"]
    text = run_cli("integrations", "certify", "--out-dir", str(out), environ=env).out
    assert "certification passed" not in text
    assert "certification FAILED: no harness has Tree Ring installed" in text
    markdown = (out / "integrations" / "certification.md").read_text()
    assert "**FAILED**" in markdown and "no harness has Tree Ring installed" in markdown


@pytest.mark.parametrize(
    "folders", [(".claude",), (".codex",), (".claude", ".codex")], ids=["claude", "codex", "both"]
)
def test_certify_does_not_pass_when_a_harness_is_here_without_the_plugin(
    run_cli: CliRunner,
    project_root: Path,
    home: Path,
    env: dict[str, str],
    tmp_path: Path,
    folders: tuple[str, ...],
) -> None:
    # The harness is installed (its folder is there), Tree Ring's plugin is not.
    for folder in folders:
        (home / folder).mkdir(parents=True)
    out = tmp_path / "evidence"
    result = run_cli("--json", "integrations", "certify", "--out-dir", str(out), environ=env)
    assert result.code == 1, result.out + result.err
    data = result.json()
    assert data["passed"] is False
    here = {".claude": "claude-code", ".codex": "codex"}
    assert {h["id"]: h["state"] for h in data["items"]} == {
        "claude-code": "needs-plugin" if ".claude" in folders else "not-installed",
        "codex": "needs-plugin" if ".codex" in folders else "not-installed",
    }
    named = [here[f] for f in folders]
    names = " and ".join({"claude-code": "Claude Code", "codex": "Codex"}[i] for i in named)
    where = " or ".join(
        f"{'Claude Code' if i == 'claude-code' else 'Codex'} ({integrations.install_commands(i)})"
        for i in named
    )
    assert data["next"] == (
        f"no harness has Tree Ring installed ({names} {'is' if len(named) == 1 else 'are'} here "
        f"without the plugin), so nothing was certified: install it in {where}, "
        "then run `tree-ring integrations certify` again"
    )
    text = run_cli("integrations", "certify", "--out-dir", str(out), environ=env).out
    assert f"certification FAILED: {data['next']}; wrote:" in text.splitlines()


def test_certify_passes_with_the_plugin_in_one_harness_and_another_without(
    run_cli: CliRunner, project_root: Path, home: Path, env: dict[str, str], tmp_path: Path
) -> None:
    install_claude(home)
    (home / ".codex").mkdir()
    run_cli("remember", "Releases are signed", "--ring", "heartwood")
    out = tmp_path / "evidence"
    result = run_cli("--json", "integrations", "certify", "--out-dir", str(out), environ=env)
    assert result.code == 0, result.out + result.err
    data = result.json()
    assert (data["passed"], data["next"]) == (True, "")
    assert {h["id"]: h["passed"] for h in data["items"]} == {"claude-code": True, "codex": True}
    assert by_id(data)["codex"]["state"] == "needs-plugin"


# -- harness files that are not regular files --------------------------------

HARNESS_FILES = (".codex/config.toml", ".claude/plugins/installed_plugins.json")
TIMEOUT = 30  # seconds; each run below takes well under a few


def _run(
    argv: tuple[str, ...], env: dict[str, str], cwd: Path, *, memory: int | None = None
) -> subprocess.CompletedProcess[bytes]:
    """The real launcher in `cwd`, with a timeout so a read that waits fails
    the test, and with `memory` bytes of address space at most when given."""
    limit = (
        None if memory is None else lambda: resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    )
    return subprocess.run(
        [sys.executable, str(LAUNCHER), *argv],
        capture_output=True,
        env={**os.environ, **env},
        cwd=cwd,
        timeout=TIMEOUT,
        preexec_fn=limit,
        check=False,
    )


def _status_json(env: dict[str, str], cwd: Path, **kw: Any) -> dict[str, Any]:
    done = _run(("--json", "integrations", "status"), env, cwd, **kw)
    assert (done.returncode, done.stderr) == (0, b""), done.stderr
    return json.loads(done.stdout)


def _outcome(certified: subprocess.CompletedProcess[bytes]) -> list[tuple[Any, ...]]:
    """Each harness's state and which of its round trip's checks passed."""
    items = json.loads(certified.stdout)["items"]
    return [(h["id"], h["state"], [(c["name"], c["ok"]) for c in h["checks"]]) for h in items]


@pytest.mark.parametrize("name", HARNESS_FILES)
def test_a_fifo_as_a_harness_file_is_read_as_unreadable_and_nothing_waits(
    project_root: Path, home: Path, env: dict[str, str], tmp_path: Path, name: str
) -> None:
    (home / ".codex").mkdir(parents=True)
    (home / ".claude" / "plugins").mkdir(parents=True)
    certify = ("--json", "integrations", "certify", "--out-dir", str(tmp_path / "evidence"))
    without = (_status_json(env, project_root), _run(certify, env, project_root))
    os.mkfifo(home / name)
    assert _status_json(env, project_root) == without[0]
    welcome = _run(("welcome", "--no-animation"), env, project_root)
    assert (welcome.returncode, welcome.stderr) == (0, b""), welcome.stderr
    done = _run(certify, env, project_root)
    assert (done.returncode, done.stderr) == (without[1].returncode, b""), done.stderr
    assert _outcome(done) == _outcome(without[1])


@pytest.mark.parametrize("name", HARNESS_FILES)
def test_a_link_to_a_device_as_a_harness_file_is_not_read(
    project_root: Path, home: Path, env: dict[str, str], name: str
) -> None:
    (home / ".codex").mkdir(parents=True)
    (home / ".claude" / "plugins").mkdir(parents=True)
    without = _status_json(env, project_root)
    os.symlink("/dev/zero", home / name)
    # Read to its end, /dev/zero would fill any memory; 2 GiB makes that a quick failure.
    assert _status_json(env, project_root, memory=2 << 30) == without
    with pytest.raises(OSError, match=re.escape(f"{home / name} is not a regular file")):
        integrations.read_config(home / name)


def test_a_linked_config_is_read_and_one_over_the_cap_is_not(
    home: Path, env: dict[str, str], tmp_path: Path
) -> None:
    install_codex(home, trusted=EVENTS)
    config = home / ".codex" / "config.toml"
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    config.rename(dotfiles / "config.toml")
    config.symlink_to(dotfiles / "config.toml")
    (_, codex) = integrations.status(None, env)
    assert (codex.plugin, codex.trust) == ("installed", "trusted")
    padding = "#" * 1000 + "\n"
    text = (dotfiles / "config.toml").read_text()
    big = text + padding * (integrations.MAX_CONFIG // len(padding) + 1)
    (dotfiles / "config.toml").write_text(big)
    (_, codex) = integrations.status(None, env)
    assert (codex.plugin, codex.trust) == ("missing", "untrusted")
    with pytest.raises(OSError, match=re.escape(f"{config} is over {integrations.MAX_CONFIG}")):
        integrations.read_config(config)


def test_scan_refuses_a_source_root_that_is_not_a_directory(
    run_cli: CliRunner, tmp_path: Path, env: dict[str, str]
) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_text("not a folder\n")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for given in (tmp_path / "absent", a_file, fifo):
        result = run_cli("integrations", "scan", "--source-root", str(given), environ=env)
        assert (result.code, result.out) == (2, "")
        assert result.err == (
            f"error: --source-root {given} is not a directory: pass the project folder to scan\n"
        )
