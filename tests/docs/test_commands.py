"""Every command README.md and docs/*.md show in a code block still runs.

A page's commands run in order, through `bin/tree-ring`, in a copy of one
scratch setting made once for the module: a git project with memories of a
person's, a pending row, an agent's capture, an import batch and a Revolve
folder; a second project beside it; and a user store under a temporary HOME.
An id a page shows is the id the command before it printed when the page
shows that output (`stored mem_...`, `batch: ...`), and otherwise a row of
the scratch setting that fits the verb. Each command exits 0 unless the page
shows it failing, when it exits as FAILS says and its error opens as the
page's does. What cannot run here is in NOT_RUN with the reason, and is
parsed instead. docs/CLI.md is generated from the parser and tested apart.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import FIXTURES, LAUNCHER, REPO

PAGES = ["README.md", *sorted(f"docs/{p.name}" for p in (REPO / "docs").glob("*.md"))]
PAGES.remove("docs/CLI.md")

# A line of a code block is a command when it starts like one (after any
# `VAR=value` assignments or a `cd DIR &&`); a `$ ` prompt marks the commands
# of a block that also shows output.
COMMAND = re.compile(
    r"^(?:cd \S+ && )?(?:[A-Z_][A-Z0-9_]*=\S* )*"
    r"(?:tree-ring |sh (?:install\.sh|scripts/)|python3 (?:benchmarks|scripts)/"
    r"|python3 \S.*bin/tree-ring)"
)
MEMORY_ID = re.compile(r"^mem_(?:\d{8}_\d{6}_[0-9a-f]{12}|\.\.\.[0-9a-f]+)$|^(?:OLD_|NEW_)?ID$")
BATCH_ID = re.compile(r"^import-\d{8}T\d{6}Z-[0-9a-f]{8}$")
HARNESS_PREFIXES = ("TREE_RING_", "CLAUDE_", "CODEX_")
HARNESS_VARS = ("CLAUDECODE", "AI_AGENT")
STORED = re.compile(r"^stored (mem_\w+)")
BATCH = re.compile(r"^batch: (\S+)")

# What cannot run in a test, why, and what is run instead (it must exit 0).
NOT_RUN: dict[tuple[str, str], tuple[str, list[str]]] = {
    ("README.md", "sh install.sh --demo"): (
        "installs the `tree-ring` shim on PATH for the person running it",
        ["sh", "install.sh", "--help"],
    ),
    ("README.md", "sh scripts/test.sh"): (
        "the whole test suite, this test among it",
        ["sh", "-n", "scripts/test.sh"],
    ),
    (
        "docs/DESIGN.md",
        'sh scripts/test.sh -m "not slow"     # the inner loop; CI runs everything',
    ): (
        "most of the test suite, this test among it",
        ["sh", "-n", "scripts/test.sh"],
    ),
    ("docs/RELATIONS.md", "python3 scripts/fetch_package_texts.py --out pypi-texts.jsonl"): (
        "fetches from PyPI over the network, which tests never reach",
        ["python3", "scripts/fetch_package_texts.py", "--help"],
    ),
    ("README.md", "tree-ring view --no-open --port 8765"): (
        "a server that runs until Ctrl-C (tests/web/ serve it)",
        ["tree-ring", "view", "--help"],
    ),
    (
        "docs/USAGE.md",
        "tree-ring view                      # the same in your browser, on 127.0.0.1",
    ): (
        "a server that runs until Ctrl-C, and opens a browser",
        ["tree-ring", "view", "--help"],
    ),
    (
        "docs/WEB.md",
        "tree-ring view                 # serves this project on 127.0.0.1, opens your browser",
    ): (
        "a server that runs until Ctrl-C, and opens a browser",
        ["tree-ring", "view", "--help"],
    ),
    ("docs/WEB.md", "tree-ring view --no-open --port 8765"): (
        "a server that runs until Ctrl-C (tests/web/ serve it)",
        ["tree-ring", "view", "--help"],
    ),
    ("docs/USAGE.md", "tree-ring tui                       # the full-screen terminal UI"): (
        "needs a terminal (tests/tui/ drive it)",
        ["tree-ring", "tui", "--help"],
    ),
    ("docs/MCP.md", "python3 -I -S /path/to/tree-ring/bin/tree-ring mcp"): (
        "a stdio server that runs until its client leaves (tests/mcp/ drive it)",
        ["tree-ring", "mcp", "--help"],
    ),
    ("docs/INTEGRATIONS.md", "tree-ring integrations certify [--out-dir DIR]"): (
        "fails (exit 1) unless Tree Ring is installed in a harness on this machine",
        ["tree-ring", "integrations", "certify", "--help"],
    ),
    ("docs/ORIGINAL.md", "tree-ring quality ../Tree-Ring-Memory/fixtures/quality"): (
        "needs the original Tree Ring's repository beside the project"
        " (tests/ops/test_quality_original.py runs fixtures in its format)",
        ["tree-ring", "quality", "--help"],
    ),
    ("docs/TEAM.md", "tree-ring sync"): (
        "the one shown failing needs a ledger that git merged as text, with conflicts"
        " (tests/ops/ make one); the other runs",
        ["tree-ring", "sync", "--help"],
    ),
}
HOOK_SAYS = (
    'python3 -I -S "/…/bin/tree-ring" --root "/…/app" capture "ONE_SENTENCE_SUMMARY"'
    " --event-type lesson --ring cambium --agent-profile claude-code"
    " --session-id 7f3c2a91-… --operation-id auto-33004840d296-1"
)
CHECKPOINT_SAYS = (
    'python3 -I -S "/home/alice/.claude/plugins/cache/tree-ring/tree-ring/0.1.0/bin/tree-ring"'
    ' --root "/home/alice/src/github.com/acme-corp/payments-service" capture'
    ' "ONE_SENTENCE_SUMMARY" --event-type lesson --ring cambium --agent-profile claude-code'
    " --session-id 8493493d-773f-4261-ac78-31930d37ce83 --operation-id auto-74a37d5e1d58-1"
)
CODEX_SAYS = (
    'python3 -I -S "/…/bin/tree-ring" --root "/…/api" capture "ONE_SENTENCE_SUMMARY" '
    "--event-type lesson --ring cambium --agent-profile codex "
    "--session-id 01a2276c-9930-7213-b888-2278fb11fbb4 --operation-id auto-03304bff8b9b-1"
)
NOT_RUN[("docs/USAGE-LOG.md", CODEX_SAYS)] = (
    "what the Stop hook prints for Codex, quoted with its session's own ids"
    " (tests/hook/ run the hook and its capture)",
    ["tree-ring", "capture", "--help"],
)
NOT_RUN[
    (
        "docs/USAGE-LOG.md",
        "tree-ring refute mem_20261203_104803_319a1dbf6e2c"
        ' --reason "retries moved to the job queue in November; retry.py is gone"',
    )
] = (
    "an agent's refutation, run in Codex's environment (tests/ops/test_refute.py runs it);"
    " run here as a person's, it would retire the row the page refutes next",
    ["tree-ring", "refute", "--help"],
)
for _page, _says in (("README.md", HOOK_SAYS), ("docs/CHECKPOINT.md", CHECKPOINT_SAYS)):
    NOT_RUN[(_page, _says)] = (
        "what the Stop hook prints, quoted with its session's own ids"
        " (tests/hook/ run the hook and its capture)",
        ["tree-ring", "capture", "--help"],
    )

# Of these, only the occurrence that shows an error is not run.
NOT_RUN_WHEN_FAILING = {("docs/TEAM.md", "tree-ring sync")}

# Commands a page shows failing, and the exit code they end with.
FAILS: dict[tuple[str, str], int] = {
    (
        "README.md",
        'tree-ring remember "Deploys freeze on Fridays after the release branch is cut"',
    ): 1,
    ("docs/CHECKPOINT.md", "tree-ring config set checkpoint=sometimes"): 2,
    (
        "docs/CORRECTING.md",
        "CLAUDECODE=1 CLAUDE_CODE_SESSION_ID=7f3c tree-ring review approve"
        " mem_20261201_100952_e5f3fd3238f3",
    ): 1,
    ("docs/CORRECTING.md", 'tree-ring remember "the request timeout is 90s" --scope project'): 1,
    ("docs/ANCHORS.md", 'tree-ring remember "x" --file ../etc/passwd'): 2,
    ("docs/ANCHORS.md", 'tree-ring remember "x" --file .git/HEAD'): 2,
    ("docs/OUTPUT.md", "tree-ring --json show mem_nope"): 1,
    ("docs/OUTPUT.md", "tree-ring reveiw list"): 2,
    ("docs/OUTPUT.md", "tree-ring review list --set agent_heartwood=false"): 2,
}


@dataclass(frozen=True)
class Shown:
    """One command a page shows, and the output it shows after it."""

    page: str
    line: int
    command: str
    output: tuple[str, ...]

    def listed(self, table: Mapping[tuple[str, str], object]) -> tuple[str, str] | None:
        """The table's key for this command, if it has one."""
        key = (self.page, self.command)
        return key if key in table else None

    def skipped(self) -> bool:
        key = self.listed(NOT_RUN)
        return key is not None and (key not in NOT_RUN_WHEN_FAILING or self.shows_error())

    def shows_error(self) -> bool:
        return bool(self.output) and self.output[0].startswith(("error:", '{"error"'))


def code_blocks(text: str) -> Iterator[tuple[int, list[str]]]:
    """(first line's number, lines) of each fenced or indented code block."""
    lines = [*text.split("\n"), ""]
    i = 0
    while i < len(lines):
        if lines[i].startswith("```"):
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            yield i + 2, lines[i + 1 : end]
            i = end + 1
        elif lines[i].startswith("    ") and (i == 0 or not lines[i - 1].strip()):
            end = i
            while lines[end].startswith("    ") or (
                not lines[end].strip()
                and lines[end + 1 : end + 2] > [""]
                and lines[end + 1].startswith("    ")
            ):
                end += 1
            yield i + 1, [line[4:] for line in lines[i:end]]
            i = end
        else:
            i += 1


def shown_commands(page: str, text: str) -> list[Shown]:
    shown: list[Shown] = []
    for start, block in code_blocks(text):
        prompted = any(line.startswith("$ ") for line in block)
        for k, line in enumerate(block):
            command = line[2:] if line.startswith("$ ") else None if prompted else line
            if command is None or not COMMAND.match(command):
                continue
            output: list[str] = []
            if prompted:
                for after in block[k + 1 :]:
                    if after.startswith("$ "):
                        break
                    output.append(after)
            shown.append(Shown(page, start + k, command, tuple(output)))
    return shown


def page_commands(page: str) -> list[Shown]:
    return shown_commands(page, (REPO / page).read_text(encoding="utf-8"))


ALL = [shown for page in PAGES for shown in page_commands(page)]


# --- the scratch setting ----------------------------------------------------


@dataclass
class Setting:
    """Where a page's commands run, and the rows they may name."""

    base: Path
    pool: list[str]  # a person's accepted memories, for ids a page makes up
    pending: str  # an agent's heartwood, waiting for review
    capture: str  # an agent's capture in its own partition
    batch: str  # an import batch with rows waiting

    @property
    def app(self) -> Path:
        return self.base / "app"

    @property
    def env(self) -> dict[str, str]:
        """A person's shell: no harness's variables, HOME in the setting."""
        kept = {
            name: value
            for name, value in os.environ.items()
            if not name.startswith(HARNESS_PREFIXES) and name not in HARNESS_VARS
        }
        return {**kept, "HOME": str(self.base / "home"), "NO_COLOR": "1"}


def tree_ring(
    setting: Setting, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(LAUNCHER), *args],
        cwd=cwd or setting.app,
        env={**setting.env, **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def first_id(result: subprocess.CompletedProcess[str], pattern: re.Pattern[str]) -> str:
    for line in result.stdout.splitlines():
        if found := pattern.match(line):
            return found.group(1)
    raise AssertionError(f"no id in {result.stdout!r} {result.stderr!r}")


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Setting:
    base = tmp_path_factory.mktemp("docs-setting")
    (base / "home").mkdir()
    setting = Setting(base, [], "", "", "")
    for name in ("app", "site"):
        root = base / name
        root.mkdir()
        git(root, "init", "-q")
        git(root, "config", "user.email", "me@example.com")
        git(root, "config", "user.name", "Me")
        assert tree_ring(setting, "init", cwd=root).returncode == 0
    for n in range(6):
        stored = tree_ring(setting, "remember", f"Scratch note {n}: the build runs stage {n}")
        setting.pool.append(first_id(stored, STORED))
    agent = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "docs-session"}
    setting.pending = first_id(
        tree_ring(
            setting,
            "remember",
            "Release tags are signed",
            "--ring",
            "heartwood",
            "--scope",
            "project",
            env=agent,
        ),
        STORED,
    )
    setting.capture = first_id(
        tree_ring(setting, "remember", "The linter runs before the unit tests", env=agent), STORED
    )
    assert tree_ring(setting, "remember", "I keep notes short", "--scope", "global").returncode == 0
    shutil.copy(FIXTURES / "original" / "export.jsonl", base / "original.jsonl")
    setting.batch = first_id(tree_ring(setting, "import", str(base / "original.jsonl")), BATCH)
    # Files the pages name: the original's export to migrate, a Revolve folder,
    # a source file a memory is anchored to.
    shutil.copy(
        FIXTURES / "original" / "export-enveloped.jsonl", setting.app / "original-export.jsonl"
    )
    (setting.app / "revolve").mkdir()
    (setting.app / "revolve" / "cache-v2.md").write_text(
        "Cache v2 was promoted.\n", encoding="utf-8"
    )
    (setting.app / "src" / "billing").mkdir(parents=True)
    (setting.app / "src" / "billing" / "retry.py").write_text("MAX_DELAY = 30\n", encoding="utf-8")
    return setting


# --- running a page ---------------------------------------------------------


class Page:
    """A page's commands run in order in its own copy of the setting."""

    def __init__(self, setting: Setting) -> None:
        self.setting = setting
        self.ids: dict[str, str] = {}
        self.pool = iter(setting.pool)

    def resolve(self, token: str, words: list[str]) -> str:
        if BATCH_ID.match(token):
            return self.ids.get(token, self.setting.batch)
        if not MEMORY_ID.match(token):
            return token
        if token not in self.ids or token.endswith("ID"):
            verb = words[0] if words else ""
            action = words[1] if len(words) > 1 else ""
            if verb == "promote":
                self.ids[token] = self.setting.capture
            elif verb == "review" and action in ("approve", "reject", "dispute"):
                self.ids[token] = self.setting.pending
            else:
                self.ids[token] = next(self.pool)
        return self.ids[token]

    def argv(self, command: str) -> tuple[Path, dict[str, str], list[str], str | None, str | None]:
        """Where to run, the environment, the argv, a `> FILE` and a `| grep WORD`."""
        words = shlex.split(command, comments=True)
        cwd = self.setting.app
        if words[:1] == ["cd"]:
            assert words[2] == "&&", command
            cwd = (cwd / words[1]).resolve()
            words = words[3:]
        env: dict[str, str] = {}
        while "=" in words[0] and words[0] != "tree-ring":
            name, _, value = words.pop(0).partition("=")
            env[name] = value
        assert words[0] == "tree-ring", f"not a tree-ring command: {command}"
        words = words[1:]
        redirect = grep = None
        if ">" in words:
            redirect = words[words.index(">") + 1]
            words = words[: words.index(">")]
        if "|" in words:
            piped = words[words.index("|") + 1 :]
            assert piped[0] == "grep", command
            grep = piped[1]
            words = words[: words.index("|")]
        kept: list[str] = []
        depth = 0
        for word in words:  # a synopsis's [optional parts] are left out
            depth += word.startswith("[")
            if not depth:
                kept.append(word)
            depth -= word.endswith("]")
        verbs = [w for w in kept if not w.startswith("-")]
        return cwd, env, [self.resolve(w, verbs) for w in kept], redirect, grep

    def run(self, shown: Shown) -> None:
        cwd, env, argv, redirect, grep = self.argv(shown.command)
        result = tree_ring(self.setting, *argv, cwd=cwd, env=env)
        where = f"{shown.page}:{shown.line}: {shown.command}\n{result.stdout}{result.stderr}"
        key = shown.listed(FAILS)
        assert result.returncode == (FAILS[key] if key else 0), where
        if key:
            shown_error = shown.output[0]
            if shown_error.startswith("error:"):
                # The words before the first that carries an id, a time or a path.
                words = shown_error.split()
                fixed = next(
                    (n for n, w in enumerate(words) if re.search(r"[0-9/]", w)), len(words)
                )
                assert result.stderr.split()[:fixed] == words[:fixed], where
            else:
                code = re.search(r'"code": "(\w+)"', shown_error)
                assert code and f'"code": "{code.group(1)}"' in result.stderr, where
        if redirect:
            (cwd / redirect).write_text(result.stdout, encoding="utf-8")
        if grep:
            assert grep in result.stdout, where
        for pattern in (STORED, BATCH):
            shown_id = next(
                (m.group(1) for line in shown.output if (m := pattern.match(line))), None
            )
            if shown_id:
                self.ids[shown_id] = first_id(result, pattern)


def copy_setting(template: Setting, to: Path) -> Setting:
    shutil.copytree(template.base, to / "setting", symlinks=True)
    return Setting(
        to / "setting", template.pool, template.pending, template.capture, template.batch
    )


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.slow
def test_every_command_a_page_shows_runs(page: str, template: Setting, tmp_path: Path) -> None:
    runner = Page(copy_setting(template, tmp_path))
    for shown in page_commands(page):
        if not shown.skipped():
            runner.run(shown)


# --- the tables -------------------------------------------------------------


@pytest.mark.parametrize("key", sorted(NOT_RUN), ids=lambda key: f"{key[0]}:{key[1][:40]}")
def test_what_cannot_run_is_parsed(key: tuple[str, str]) -> None:
    reason, argv = NOT_RUN[key]
    assert reason
    if argv[0] == "tree-ring":
        argv = [sys.executable, str(LAUNCHER), *argv[1:]]
    result = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr


def test_every_command_is_run_or_listed() -> None:
    """A command a page shows runs through tree-ring or is listed in NOT_RUN."""
    for shown in ALL:
        if shown.skipped():
            continue
        runs = re.match(r"^(?:cd \S+ && )?(?:[A-Z_][A-Z0-9_]*=\S* )*tree-ring ", shown.command)
        assert runs, f"{shown.page}:{shown.line}: add `{shown.command}` to NOT_RUN, with why"


def test_a_page_shows_a_failure_exactly_where_fails_says() -> None:
    for shown in ALL:
        if shown.skipped():
            continue
        assert shown.shows_error() == bool(shown.listed(FAILS)), f"{shown.page}:{shown.line}"


def test_every_table_entry_is_still_shown() -> None:
    for key in [*NOT_RUN, *FAILS]:
        assert any((shown.page, shown.command) == key for shown in ALL), key


def test_a_command_added_to_a_page_is_found() -> None:
    page = (
        "Intro.\n\n    $ tree-ring brief\n    brief\n\n"
        "```\npython3 benchmarks/new.py --quick\n```\n"
    )
    shown = shown_commands("docs/NEW.md", page)
    assert [(s.line, s.command, s.output) for s in shown] == [
        (3, "tree-ring brief", ("brief",)),
        (7, "python3 benchmarks/new.py --quick", ()),
    ]
    assert not shown[1].listed(NOT_RUN)
