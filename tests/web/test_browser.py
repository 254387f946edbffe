"""`tree-ring view` in a real headless Chromium: every page, search, approve, forget, refusals.

The server is the real command, `tree-ring view --no-open`, in its own process;
the browser is Debian's Chromium through its chromedriver and Selenium. A
name that resolves to 127.0.0.1 inside the browser (`rebind.test`) stands in
for a DNS-rebinding attack, and a second local server plays the foreign site
whose form posts to the viewer.

Without Chromium, chromedriver or Selenium these tests skip outside CI and
fail in CI (CI=true), where scripts/install-browser.sh must have installed
them. Screenshots go to test-artifacts/web/ (not committed).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from processes import first_line, started

# One worker runs them all (scripts/test.sh's --dist loadgroup): they share one
# browser and one server, which each worker would otherwise start again.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]

REPO = Path(__file__).resolve().parents[2]
LAUNCHER = REPO / "bin" / "tree-ring"
ARTIFACTS = REPO / "test-artifacts" / "web"
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,1000",
    # A foreign name that resolves to the viewer: what DNS rebinding does.
    "--host-resolver-rules=MAP rebind.test 127.0.0.1",
)
AGENT = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "browser-s1"}


def _missing() -> str | None:
    try:
        import selenium  # noqa: F401 - only whether it is there
    except ImportError:
        return "Selenium is not installed (pip install -r requirements-dev.txt)"
    for name in ("chromium", "chromedriver"):
        if shutil.which(name) is None:
            return f"{name} is not installed (sh scripts/install-browser.sh)"
    return None


def _clean_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TREE_RING_", "CLAUDE", "CODEX_")) and k != "AI_AGENT"
    }
    return {**env, **(extra or {})}


def cli(root: Path, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(LAUNCHER), "--root", str(root), "--json", *args],
        capture_output=True,
        text=True,
        env=_clean_env(env),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@dataclass
class View:
    root: Path
    url: str  # with the token
    base: str  # http://127.0.0.1:PORT
    process: subprocess.Popen[str]


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    reason = _missing()
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"browser tests need a browser in CI: {reason}")
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    profile = tempfile.mkdtemp(prefix="tree-ring-chromium-")
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    service = Service(shutil.which("chromedriver") or "chromedriver")
    browser = webdriver.Chrome(service=service, options=options)
    browser.set_page_load_timeout(30)
    try:
        yield browser
    finally:
        browser.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> Iterator[View]:
    root = tmp_path_factory.mktemp("browser") / "proj"
    root.mkdir()
    subprocess.run(
        [sys.executable, str(LAUNCHER), "--root", str(root), "init"],
        check=True,
        capture_output=True,
        env=_clean_env(),
    )
    for summary, ring in (
        ("Deploys freeze on Fridays", "cambium"),
        ("Migrations on the primary took the site down", "scar"),
        ("Every service logs in UTC", "heartwood"),
        ("Try a read-through cache for the index", "seed"),
        ("p95 dropped after the warmup change", "outer"),
    ):
        cli(root, "remember", summary, "--ring", ring)
    # `started` kills the server however the module ends; a clean end is Ctrl-C.
    with started(
        [sys.executable, str(LAUNCHER), "view", "--root", str(root), "--no-open", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_clean_env(),
    ) as process:
        url = json.loads(first_line(process))["url"]
        yield View(root, url, url.split("/?")[0], process)
        process.send_signal(signal.SIGINT)  # Ctrl-C
        assert process.wait(timeout=20) == 0


def _follow(driver: Any, element: Any) -> None:
    """Click what loads a page and wait until a new document has loaded: a find
    right after the click could otherwise meet the old page as it unloads.

    The old document is marked, and the wait is for a complete document
    without the mark. Asking the old element whether it is stale is not
    enough: Chrome can answer that question mid-navigation with an inspector
    error rather than a stale-element one."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    driver.execute_script("document.documentElement.dataset.followed = 'old'")
    element.click()
    WebDriverWait(driver, 30, ignored_exceptions=(WebDriverException,)).until(
        lambda d: d.execute_script(
            "return document.readyState === 'complete'"
            " && document.documentElement.dataset.followed !== 'old'"
        )
    )


def _login(driver: Any, view: View, path: str = "/") -> None:
    """Open `path` through the URL with the token, as a person pasting it would."""
    token = view.url.split("?", 1)[1]
    driver.get(view.base + path + ("&" if "?" in path else "?") + token)
    assert "token" not in driver.current_url


def _shot(driver: Any, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    assert driver.save_screenshot(str(path))
    return path


def test_each_page_loads_and_the_token_leaves_the_address(driver: Any, view: View) -> None:
    from selenium.webdriver.common.by import By

    _login(driver, view)
    assert driver.current_url == view.base + "/"
    assert "token" not in driver.current_url
    assert driver.find_element(By.TAG_NAME, "h1").text == "Rings"
    marks = driver.find_elements(By.CSS_SELECTOR, "svg.rings a")
    assert len(marks) == 5  # every memory is a linked mark
    assert _shot(driver, "rings.png").stat().st_size > 10_000
    titles = {
        "Memories": "Memories",
        "Review": "Review queue",
        "Inbox": "Inbox",
        "Summary tree": "Summary tree",
    }
    for link, heading in (*titles.items(), ("Status", "Status"), ("Rings", "Rings")):
        _follow(driver, driver.find_element(By.LINK_TEXT, link))
        assert driver.find_element(By.TAG_NAME, "h1").text == heading
        if link == "Memories":
            rows = driver.find_elements(By.CSS_SELECTOR, "main table tbody tr")
            assert len(rows) == 5
            _shot(driver, "memories.png")
    # A mark leads to its memory.
    _follow(driver, driver.find_elements(By.CSS_SELECTOR, "svg.rings a")[0])
    assert driver.find_element(By.TAG_NAME, "h1").text.startswith("Memory mem_")
    driver.find_element(By.ID, "fields")


def test_search_finds_through_recall(driver: Any, view: View) -> None:
    from selenium.webdriver.common.by import By

    _login(driver, view, "/memories")
    box = driver.find_element(By.ID, "q")
    box.send_keys("deploy freeze")
    _follow(driver, driver.find_element(By.ID, "search"))
    table = driver.find_element(By.CSS_SELECTOR, "main table").text
    assert "Deploys freeze on Fridays" in table
    assert "Migrations" not in table
    assert "q=deploy+freeze" in driver.current_url


def test_approving_takes_a_pending_memory_off_the_queue(driver: Any, view: View) -> None:
    from selenium.webdriver.common.by import By

    memory_id = cli(
        view.root,
        "remember",
        "Run migrations through the schema tool",
        "--ring",
        "heartwood",
        env=AGENT,
    )["id"]
    _login(driver, view, "/review")
    assert driver.find_elements(By.ID, f"w-{memory_id}")
    form = driver.find_element(By.ID, f"approve-{memory_id}")
    form.find_element(By.NAME, "reason").send_keys("matches docs/migrations.md")
    _follow(driver, form.find_element(By.TAG_NAME, "button"))
    assert driver.current_url == view.base + "/review"
    assert "approved" in driver.find_element(By.ID, "notice").text
    assert not driver.find_elements(By.ID, f"w-{memory_id}")
    shown = cli(view.root, "show", memory_id)["memory"]
    assert shown["trust"] == "accepted" and shown["review"]["reviewed_by"] == "person"


def test_forgetting_with_a_reason_removes_it_from_recall(driver: Any, view: View) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    memory_id = cli(view.root, "remember", "The nightly backup runs on host kestrel")["id"]
    assert [r["id"] for r in cli(view.root, "recall", "backup kestrel")["items"]] == [memory_id]
    _login(driver, view, f"/memory?id={memory_id}")
    form = driver.find_element(By.ID, f"forget-{memory_id}")
    Select(form.find_element(By.NAME, "mode")).select_by_value("delete")
    form.find_element(By.NAME, "reason").send_keys("host retired")
    _follow(driver, form.find_element(By.TAG_NAME, "button"))
    assert f"deleted {memory_id}" in driver.find_element(By.ID, "notice").text
    assert cli(view.root, "recall", "backup kestrel")["items"] == []
    assert "kestrel" not in driver.page_source
    log = cli(view.root, "audit", "--target", memory_id)["items"]
    assert log[-1]["action"] == "forget" and log[-1]["actor"] == "person"


def test_without_the_token_the_browser_is_refused(driver: Any, view: View) -> None:
    from selenium.webdriver.common.by import By

    driver.delete_all_cookies()
    driver.get(view.base + "/memories")
    assert "needs the link" in driver.find_element(By.ID, "refused").text
    assert "Deploys" not in driver.page_source


def test_a_rebound_host_name_is_refused(driver: Any, view: View) -> None:
    from selenium.webdriver.common.by import By

    _login(driver, view)
    port = view.base.rsplit(":", 1)[1]
    driver.get(f"http://rebind.test:{port}/?" + view.url.split("?")[1])
    assert "its own address" in driver.find_element(By.ID, "refused").text
    assert "Deploys" not in driver.page_source


class _Foreign(BaseHTTPRequestHandler):
    """A foreign site whose page holds a form aimed at the viewer."""

    page = b""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(self.page)

    def log_message(self, format: str, *args: object) -> None:
        pass


def test_a_cross_origin_form_changes_nothing(driver: Any, view: View) -> None:
    from selenium.webdriver.common.by import By

    memory_id = cli(
        view.root, "remember", "Cut releases from the main branch", "--ring", "heartwood", env=AGENT
    )["id"]
    _login(driver, view, "/review")
    csrf = driver.find_element(By.NAME, "csrf").get_attribute("value")
    # Even with the session's CSRF value (which a foreign page cannot read),
    # the post carries the foreign origin and no cookie (SameSite=Strict).
    _Foreign.page = (
        f'<form method="post" action="{view.base}/act"><input name="csrf" value="{csrf}">'
        f'<input name="action" value="approve"><input name="id" value="{memory_id}">'
        '<button id="go">win a prize</button></form>'
    ).encode()
    foreign = ThreadingHTTPServer(("127.0.0.1", 0), _Foreign)
    threading.Thread(target=foreign.serve_forever, args=(0.05,), daemon=True).start()
    try:
        driver.get(f"http://localhost:{foreign.server_address[1]}/")
        _follow(driver, driver.find_element(By.ID, "go"))
        assert driver.find_element(By.ID, "refused")
    finally:
        foreign.shutdown()
        foreign.server_close()
    assert cli(view.root, "show", memory_id)["memory"]["trust"] == "pending"


def test_the_page_view_opens_from_a_file_lands_signed_in(driver: Any, view: View) -> None:
    # `view` opens this page, never the URL with the token, in the browser; a
    # navigation a file started gets no SameSite=Strict cookie, so the view
    # must go on from a page of its own to land signed in.
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from tree_ring.web import browser

    driver.delete_all_cookies()
    page = browser.write_redirect(view.url, {})
    try:
        driver.get(page.as_uri())
        WebDriverWait(driver, 30, ignored_exceptions=(WebDriverException,)).until(
            lambda d: (
                d.current_url == view.base + "/"
                and d.execute_script("return document.readyState") == "complete"
            )
        )
    finally:
        browser.remove(page)
    assert driver.find_element(By.TAG_NAME, "h1").text == "Rings"
    assert len(driver.find_elements(By.CSS_SELECTOR, "svg.rings a")) >= 5
