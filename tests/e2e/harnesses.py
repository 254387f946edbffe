"""The harnesses under test and the helpers the end-to-end tests share: the
real Claude Code and Codex CLIs, offline, against the scripted mock model
servers in this directory.

Every run gets its own HOME (and CODEX_HOME) and an environment scrubbed of
the caller's ANTHROPIC_*, CLAUDE*, OPENAI_*, CODEX_*, TREE_RING_*, XDG_* and
PYTHON* variables, so a test can run from inside an agent session and never touches a
real home directory. The plugin is installed the way a user installs it,
through each harness's marketplace commands, from a snapshot of this
repository's working tree (what git would ship: tracked and unignored files).
Both harnesses copy the whole plugin directory into their plugin cache, so
installing the checkout itself would copy `.venv/` and the CLIs under
`.cache/` too.

A missing CLI fails the test: install them with `sh scripts/install-e2e-clis.sh`
(or point TREE_RING_E2E_CLI_DIR at a directory where that script installed them).
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import processes
import pytest

from tree_ring.model.project import load_project_id
from tree_ring.read import brief

from .mock_anthropic import AnthropicHandler
from .mock_openai import OpenAIHandler
from .mockserver import Body, MockServer, ToolCall, Turn

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]

MARKETPLACE = "tree-ring"
PLUGIN = "tree-ring"
# PYTHON* too: a user's hooks run without PYTHONDONTWRITEBYTECODE or PYTHONPATH,
# so bytecode lands in the installed plugin as it would for them.
SCRUB_PREFIXES = (
    "ANTHROPIC_",
    "CLAUDE",
    "OPENAI_",
    "CODEX_",
    "TREE_RING_",
    "E2E_",
    "XDG_",
    "PYTHON",
)
# Junk a working tree may hold that a user's clone would not.
SNAPSHOT_IGNORE = (
    ".git",
    ".cache",
    ".venv",
    "__pycache__",
    "*.pyc",
    ".pytest_cache",
    ".ruff_cache",
    ".tree-ring",
    "node_modules",
)


def cli_dir() -> Path:
    return Path(os.environ.get("TREE_RING_E2E_CLI_DIR") or REPO / ".cache" / "e2e-clis")


def cli_bin(name: str) -> Path:
    path = cli_dir() / "node_modules" / ".bin" / name
    if not os.access(path, os.X_OK):
        pytest.fail(
            f"{name} CLI not found at {path}: run `sh scripts/install-e2e-clis.sh` "
            "(or set TREE_RING_E2E_CLI_DIR to where it installed them)",
            pytrace=False,
        )
    return path


def scrubbed_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(SCRUB_PREFIXES)}
    env["HOME"] = str(home)
    return env


def run(
    cmd: list[str], *, env: dict[str, str], cwd: Path, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run a command with no stdin; fail the test (with its output) unless it exits 0.
    A timeout kills the CLI with what it started (hooks, MCP servers)."""
    try:
        proc = processes.run(
            cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(
            f"timed out after {timeout}s: {cmd}\nstdout: {exc.stdout}\nstderr: {exc.stderr}"
        )
    if proc.returncode != 0:
        pytest.fail(
            f"exit {proc.returncode}: {cmd}\nstdout: {proc.stdout[-4000:]}\n"
            f"stderr: {proc.stderr[-4000:]}"
        )
    return proc


def tree_ring(*args: str, root: Path) -> str:
    """Run this checkout's `bin/tree-ring` on `root` and return its stdout."""
    cmd = [sys.executable, str(REPO / "bin" / "tree-ring"), "--root", str(root), *args]
    return run(cmd, env=scrubbed_env(root.parent), cwd=root).stdout


def snapshot_repo(dest: Path) -> Path:
    """Copy what git would ship from this checkout (tracked + unignored files)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=REPO,
            capture_output=True,
            check=True,
        ).stdout.decode()
    except (OSError, subprocess.CalledProcessError):
        shutil.copytree(REPO, dest, ignore=shutil.ignore_patterns(*SNAPSHOT_IGNORE))
        return dest
    for rel in filter(None, listed.split("\0")):
        src = REPO / rel
        if src.is_file():  # a deleted-but-tracked file is listed too
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    return dest


def capture_command(reason: str, summary: str) -> str:
    """The capture command exactly as the stop reason writes it, with the
    summary placeholder filled in, as a model following the reason would."""
    lines = [
        ln.strip() for ln in reason.splitlines() if "bin/tree-ring" in ln and " capture " in ln
    ]
    if len(lines) != 1:
        raise ValueError(f"expected one capture command in the stop reason, found {len(lines)}")
    if "ONE_SENTENCE_SUMMARY" not in lines[0]:
        raise ValueError("capture command has no ONE_SENTENCE_SUMMARY placeholder")
    return lines[0].replace("ONE_SENTENCE_SUMMARY", summary)


def texts(obj: Any) -> Iterator[str]:
    """Every string inside a JSON value, depth first."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():  # pyright: ignore[reportUnknownVariableType]
            yield from texts(v)
    elif isinstance(obj, list):
        for v in obj:  # pyright: ignore[reportUnknownVariableType]
            yield from texts(v)


def tool_outputs(body: Body) -> list[str]:
    """What the tools returned to the model, in a request's conversation:
    Anthropic `tool_result` blocks, Responses `function_call_output` items."""
    found: list[str] = []
    for item in body.get("messages", body.get("input", [])):
        if item.get("type") == "function_call_output":
            found.extend(texts(item.get("output")))
        for block in item.get("content") or []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                found.extend(texts(block.get("content")))
    return found


SKILL_ROOT = re.compile(r"^- `(r\d+)` = `([^`]+)`$", re.M)
SKILL_ENTRY = re.compile(r"^- ([\w.-]+:[\w.-]+): .*\(file: (r\d+)/([^)]+)\)$", re.M)


def offered_skills(body: Body) -> dict[str, Path]:
    """The skills a Codex request offers the model, name -> SKILL.md path,
    from its skills list and skill roots table."""
    for text in texts(body.get("input", [])):
        if "<skills_instructions>" in text:
            roots = dict(SKILL_ROOT.findall(text))
            return {name: Path(roots[root]) / rel for name, root, rel in SKILL_ENTRY.findall(text)}
    raise ValueError("no skills list in the request")


def skill_command(body: Body, skill: str, **fill: str) -> str:
    """The command a skill tells the model to run, found as a model reading this
    request would: the skill's file from the list, its indented
    `python3 -I -S "PLUGIN/bin/tree-ring" ...` command line, PLUGIN the
    directory two levels above the skill file (as the skill says), and the
    skill's placeholders filled in."""
    path = offered_skills(body)[skill]
    lines = [
        ln.strip()
        for ln in path.read_text().splitlines()
        if ln.startswith('    python3 -I -S "PLUGIN/bin/tree-ring" ')  # a command block
    ]
    if not lines:
        raise ValueError(f"{skill} names no PLUGIN/bin/tree-ring command")
    command = lines[0].replace("PLUGIN", str(path.parents[2]))
    for placeholder, value in fill.items():
        command = command.replace(placeholder, value)
    return command


@dataclass
class ClaudeCode:
    """The real `claude` CLI with its own HOME, talking to a mock Anthropic API."""

    bin: Path
    home: Path
    name = "claude-code"
    handler = AnthropicHandler
    # The model's way to start a subagent: Claude Code's Agent tool, run in
    # the foreground so the session waits for it.
    spawn = (
        Turn(
            tool=(
                "Agent",
                {
                    "description": "Check the build",
                    "prompt": "Check the build and report.",
                    "subagent_type": "general-purpose",
                    "run_in_background": False,
                },
            )
        ),
    )

    def env(self, base_url: str | None = None) -> dict[str, str]:
        env = scrubbed_env(self.home)
        env.update(
            ANTHROPIC_API_KEY="dummy",
            # Without a base URL of its own, every `claude plugin` command
            # looks up api.anthropic.com and retries for some 20 s offline;
            # pointed at a closed loopback port it sends nothing and goes on.
            ANTHROPIC_BASE_URL=base_url or "http://127.0.0.1:9",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            DISABLE_AUTOUPDATER="1",
            DISABLE_TELEMETRY="1",
            DISABLE_ERROR_REPORTING="1",
        )
        return env

    def install(self, plugin_dir: Path, project: Path) -> None:
        """`claude plugin marketplace add` + `claude plugin install`."""
        for sub in (
            ["plugin", "marketplace", "add", str(plugin_dir)],
            ["plugin", "install", f"{PLUGIN}@{MARKETPLACE}"],
        ):
            run([str(self.bin), *sub], env=self.env(), cwd=self.home)

    def validate(self, plugin_dir: Path) -> str:
        """`claude plugin validate DIR`; fails the test unless it exits 0."""
        return run(
            [str(self.bin), "plugin", "validate", str(plugin_dir)], env=self.env(), cwd=self.home
        ).stdout

    @staticmethod
    def mcp_tool(name: str) -> str:
        """A Tree Ring MCP tool as the model calls it: `mcp__plugin_<plugin>_<server>__<tool>`."""
        return f"mcp__plugin_{PLUGIN}_tree-ring__{name}"

    def session(
        self,
        cwd: Path,
        base_url: str,
        prompt: str = "hello",
        timeout: float = 150,
        allowed: tuple[str, ...] = (),
    ) -> subprocess.CompletedProcess[str]:
        """`claude -p`; in -p mode every MCP tool the model calls must be in `allowed`."""
        cmd = [
            str(self.bin),
            "-p",
            prompt,
            "--output-format",
            "stream-json",
            "--verbose",
            "--allowedTools",
            ",".join(("Bash", *allowed)),
        ]
        return run(cmd, env=self.env(base_url), cwd=cwd, timeout=timeout)

    @staticmethod
    def stop_reason(body: dict[str, Any]) -> str:
        """The latest Stop hook reason in a request: Claude Code sends it back as
        a user message "Stop hook feedback:\\n<reason>"."""
        found = [
            t for t in texts(body.get("messages", [])) if t.startswith("Stop hook feedback:\n")
        ]
        if not found:
            raise ValueError("no Stop hook feedback in the request")
        return found[-1].removeprefix("Stop hook feedback:\n")


# The provider's base_url is set per session with `-c`, since each session
# has its own mock server; config.toml also collects what `codex plugin`
# commands and hook trust write.
CODEX_CONFIG = """\
model = "gpt-mock"
model_provider = "mock"

[model_providers.mock]
name = "mock"
base_url = "http://127.0.0.1:9/v1"
wire_api = "responses"
"""


def wait_for_spawned(body: Body) -> ToolCall:
    """Codex's wait_agent on the agent a spawn_agent call in this request returned."""
    for item in body.get("input", []):
        if item.get("type") == "function_call_output" and "agent_id" in item.get("output", ""):
            agent_id = json.loads(item["output"])["agent_id"]
            return "multi_agent_v1.wait_agent", {"targets": [agent_id], "timeout_ms": 120000}
    raise ValueError("no spawn_agent output in the request")


@dataclass
class Codex:
    """The real `codex` CLI with its own HOME and CODEX_HOME, talking to a mock
    Responses API."""

    bin: Path
    home: Path
    name = "codex"
    handler = OpenAIHandler
    # The model's way to start a subagent: Codex's namespaced spawn_agent,
    # then wait_agent on the id it returns, so the session outlives the
    # subagent (`codex exec` ends the subagent when the main turn ends).
    spawn = (
        Turn(tool=("multi_agent_v1.spawn_agent", {"message": "Check the build and report."})),
        Turn(expect="nickname", tool=wait_for_spawned),
    )

    def __post_init__(self) -> None:
        self.codex_home.mkdir(parents=True, exist_ok=True)
        (self.codex_home / "config.toml").write_text(CODEX_CONFIG)

    @property
    def codex_home(self) -> Path:
        return self.home / ".codex"

    @property
    def installed(self) -> Path:
        """The plugin as Codex installed it, in its plugin cache."""
        return self.codex_home / "plugins" / "cache" / MARKETPLACE / PLUGIN / "0.1.0"

    @staticmethod
    def mcp_tool(name: str) -> str:
        """A Tree Ring MCP tool as the model calls it: inside the `mcp__tree_ring`
        namespace (the server's name, hyphen as underscore); the mock sends
        `namespace.name` as a function call with a `namespace` field."""
        return f"mcp__tree_ring.{name}"

    def env(self) -> dict[str, str]:
        env = scrubbed_env(self.home)
        env["CODEX_HOME"] = str(self.codex_home)
        return env

    def install(self, plugin_dir: Path, project: Path) -> None:
        """`codex plugin marketplace add` + `codex plugin add`, then trust the
        plugin's hooks for `project`: Codex silently skips untrusted hooks."""
        for sub in (
            ["plugin", "marketplace", "add", str(plugin_dir)],
            ["plugin", "add", f"{PLUGIN}@{MARKETPLACE}"],
        ):
            run([str(self.bin), *sub], env=self.env(), cwd=self.home)
        status = {h["key"]: h["trustStatus"] for h in self.trust_hooks(project)}
        assert len(status) == 4 and set(status.values()) == {"trusted"}, status

    def hooks(self, cwd: Path) -> list[dict[str, Any]]:
        """`hooks/list` from `codex app-server` (JSON-RPC over stdio): every
        hook Codex sees for cwd, with its key, currentHash and trustStatus."""
        msgs = [
            {
                "id": 1,
                "method": "initialize",
                "params": {"clientInfo": {"name": "tree-ring-e2e", "version": "0.1.0"}},
            },
            {"method": "initialized"},
            {"id": 2, "method": "hooks/list", "params": {"cwds": [str(cwd)]}},
        ]
        with processes.started(
            [str(self.bin), "app-server"],
            env=self.env(),
            cwd=cwd,
            text=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        ) as proc:
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write("".join(json.dumps(m) + "\n" for m in msgs))
            proc.stdin.flush()
            for line in proc.stdout:
                msg = json.loads(line)
                if msg.get("id") == 2:
                    if "error" in msg:
                        pytest.fail(f"codex hooks/list failed: {msg['error']}")
                    return [h for d in msg["result"]["data"] for h in d["hooks"]]
            pytest.fail("codex app-server closed without answering hooks/list")

    def trust_hooks(self, cwd: Path) -> list[dict[str, Any]]:
        """Record trust for the plugin's hooks the way Codex's /hooks review
        does: one `[hooks.state."<key>"]` table per hook in config.toml, with
        the two halves of hooks/list's currentHash ("sha256:A/sha256:B")."""
        lines: list[str] = []
        for hook in self.hooks(cwd):
            if hook.get("trustStatus") == "trusted" or hook.get("isManaged"):
                continue
            trusted_hash, _, content_hash = hook["currentHash"].partition("/")
            lines.append(
                f'\n[hooks.state.{json.dumps(hook["key"])}]\ntrusted_hash = "{trusted_hash}"\n'
            )
            if content_hash:
                lines.append(f'trusted_content_hash = "{content_hash}"\n')
        with (self.codex_home / "config.toml").open("a") as f:
            f.write("".join(lines))
        return self.hooks(cwd)

    def session(
        self,
        cwd: Path,
        base_url: str,
        prompt: str = "hello",
        timeout: float = 150,
        cd: Path | None = None,
        model: str | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """`codex exec` started in `cwd`, working in `cd` (`-C`) when given,
        as `model` when given: Codex picks a model's tools by its name."""
        cmd = [
            str(self.bin),
            "exec",
            *(["-C", str(cd)] if cd is not None else []),
            "--skip-git-repo-check",
            "--json",
            "--dangerously-bypass-approvals-and-sandbox",
            "-c",
            f'model_providers.mock.base_url="{base_url}/v1"',
            *(["-c", f'model="{model}"'] if model is not None else []),
            prompt,
        ]
        return run(cmd, env=self.env(), cwd=cwd, timeout=timeout)

    @staticmethod
    def stop_reason(body: dict[str, Any]) -> str:
        """The latest Stop hook reason in a request: Codex sends it back as a
        user message `<hook_prompt hook_run_id="...">REASON</hook_prompt>`,
        with the reason HTML-escaped."""
        found = [
            m.group(1)
            for t in texts(body.get("input", []))
            for m in re.finditer(r"<hook_prompt[^>]*>(.*?)</hook_prompt>", t, re.S)
        ]
        if not found:
            raise ValueError("no hook_prompt in the request")
        return html.unescape(found[-1])


# A checkpoint the Stop hook sent (the skills' descriptions name the checkpoint too).
CHECKPOINT = re.compile(r"Tree Ring checkpoint [0-9a-f]{12}\b")
# Work a scripted model does before its answer: a command that changes a file.
WORK_COMMAND = "echo built > build.log"
# One plain sentence a scripted model saves: distinctive, and shell-safe inside
# the double quotes the capture command puts around its placeholder.
SUMMARY = "Release builds must run the schema check first, marker QX7TRE3."


@dataclass
class RoundTrip:
    """What two sessions of one harness sent to the model."""

    project_id: str
    first: list[Body]  # session 1's model requests, in order
    second: list[Body]  # session 2's
    command: str  # the capture command the scripted model ran


def conversation(body: Body) -> list[str]:
    """Every string in a request's conversation (Anthropic messages or
    Responses input)."""
    return list(texts(body.get("messages", body.get("input", []))))


def session(harness: ClaudeCode | Codex, project: Path, turns: list[Turn], log: Path) -> list[Body]:
    with MockServer(harness.handler, turns, log) as mock:
        harness.session(project, mock.base_url)
    errors = [
        r["reply"]["source"]
        for r in mock.requests()
        if str(r.get("reply", {}).get("source", "")).startswith("error")
    ]
    assert not errors, errors
    return mock.model_requests()


def memory_round_trip(
    harness: ClaudeCode | Codex, plugin_dir: Path, project: Path, logs: Path
) -> RoundTrip:
    """Install the plugin, then two sessions in `project`:

    1. The brief reaches the first model request; the model runs a command
       (work); the first Stop blocks with the checkpoint; the scripted model
       runs the capture command taken from the reason as the model received
       it; the second Stop passes.
    2. The next session's brief carries the memory session 1 saved, and its
       chat-only turn gets no checkpoint (the default cadence, after-work).
       For Codex this also shows the hooks stayed trusted although session
       1's hooks wrote bytecode into the installed plugin.
    """
    harness.install(plugin_dir, project)
    project_id = load_project_id(project)
    ran: list[str] = []

    def capture(body: Body) -> str:
        ran.append(capture_command(harness.stop_reason(body), SUMMARY))
        return ran[-1]

    first = session(
        harness,
        project,
        [
            Turn(shell=WORK_COMMAND),
            Turn(text="First answer."),
            Turn(expect="Tree Ring checkpoint", shell=capture),
            Turn(text="Saved one lesson."),
        ],
        logs / "session1.jsonl",
    )
    assert any(brief.EMPTY.format(project=project_id) in t for t in conversation(first[0]))
    # Blocked exactly once: work, answer, capture, answer; the second Stop passed.
    assert len(first) == 4, [conversation(b)[-1][:200] for b in first]
    assert ran, "the scripted model never saw the checkpoint"
    assert any("stored " in t for t in conversation(first[3])), "capture did not store"
    (memory,) = json.loads(tree_ring("--json", "list", root=project))["items"]
    assert memory["summary"] == SUMMARY
    # The identity the hook put in the command matches the harness's own
    # session, which the CLI reads from the agent's environment (origin).
    assert memory["agent_profile"] == memory["origin"] == harness.name
    assert memory["session_id"] == memory["workflow_id"] == memory["origin_session"]
    assert memory["source"]["ref"] == f"session:{memory['session_id']}"
    assert (memory["scope"], memory["trust"]) == ("agent", "accepted")
    assert memory["operation_id"].startswith("auto-") and memory["operation_id"].endswith("-1")

    second = session(harness, project, [Turn(text="Hello again.")], logs / "session2.jsonl")
    opening = [t for t in conversation(second[0]) if brief.BEGIN in t]
    assert opening and SUMMARY in opening[0], conversation(second[0])
    # A turn that only talked: its Stop passed at once, no checkpoint, no extra turn.
    assert len(second) == 1, [conversation(b)[-1][:200] for b in second]
    assert not any(CHECKPOINT.search(t) for b in second for t in conversation(b))
    return RoundTrip(project_id, first, second, ran[0])


def subagent_session(
    harness: ClaudeCode | Codex,
    plugin_dir: Path,
    project: Path,
    logs: Path,
    then: tuple[Turn, ...] = (),
) -> list[str]:
    """Install the plugin and run a session whose model starts one subagent,
    then `then`; every other request gets the fallback answer. Returns, per
    model request, its conversation joined into one string."""
    harness.install(plugin_dir, project)
    turns = [*harness.spawn, *then]
    requests = session(harness, project, turns, logs / "subagent.jsonl")
    return ["\n".join(conversation(body)) for body in requests]


# A memory a person stored before the session, and the one the scripted model
# saves through the MCP server; both distinctive.
STORED = "Release builds must run the schema check first, marker ZQ81MCP."
REMEMBERED = "Deploys go through the blue-green switch, marker KP44MCP."


@dataclass
class McpTrip:
    """What a session that recalled and remembered through MCP, and the next, showed."""

    first: list[Body]  # session 1's model requests
    outputs: list[str]  # what the tools returned to the model in session 1, each once
    memory: dict[str, Any]  # the row the remember call stored
    second: list[Body]  # session 2's model requests


def mcp_round_trip(
    harness: ClaudeCode | Codex,
    plugin_dir: Path,
    project: Path,
    logs: Path,
    lead: tuple[Turn, ...] = (),
) -> McpTrip:
    """Install the plugin with STORED in the project's memory, then:

    1. a session whose model (after `lead`, e.g. Claude Code's tool search)
       calls the `recall` tool and then `remember` with REMEMBERED;
    2. the next session, whose brief must carry REMEMBERED.

    Codex does not wait for MCP servers before its first model request: until
    a request offers the server's tools, the scripted model runs a short
    `sleep` and looks again.
    """
    tree_ring("remember", STORED, root=project)
    harness.install(plugin_dir, project)
    recall, remember = harness.mcp_tool("recall"), harness.mcp_tool("remember")
    offered = json.dumps(recall.split(".")[0] if isinstance(harness, Codex) else recall)
    turns = [
        *lead,
        Turn(
            expect=offered, wait_shell="sleep 1", tool=(recall, {"query": "release schema check"})
        ),
        Turn(tool=(remember, {"summary": REMEMBERED, "event_type": "decision"})),
        Turn(text="Recalled and remembered."),
    ]
    with MockServer(harness.handler, turns, logs / "mcp1.jsonl") as mock:
        if isinstance(harness, ClaudeCode):
            harness.session(project, mock.base_url, allowed=(recall, remember))
        else:
            harness.session(project, mock.base_url)
    first = mock.model_requests()
    # Each request repeats the conversation so far: each output once.
    outputs = list(dict.fromkeys(t for body in first for t in tool_outputs(body)))
    rows = json.loads(tree_ring("--json", "list", root=project))["items"]
    (memory,) = [m for m in rows if m["summary"] == REMEMBERED]
    second = session(harness, project, [Turn(text="Hello again.")], logs / "mcp2.jsonl")
    return McpTrip(first, outputs, memory, second)
