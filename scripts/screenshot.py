#!/usr/bin/env python3
"""Regenerate docs/web-rings.png, the rings page docs/WEB.md shows.

Builds a demo project in a temporary folder (a few hundred memories written
through the ordinary write path: a person's notes, scars and seeds, an
agent's heartwood waiting for review), serves it with `tree-ring view`'s
server on 127.0.0.1, and has headless Chromium screenshot the rings page
through the URL with the token. Needs Chromium (scripts/install-browser.sh).

    python3 scripts/screenshot.py [--out docs/web-rings.png]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tree_ring.harness import guidance  # noqa: E402
from tree_ring.model.actor import Actor  # noqa: E402
from tree_ring.model.identity import Identity, Origin  # noqa: E402 - after the path
from tree_ring.store.db import Store  # noqa: E402
from tree_ring.web.server import ViewServer  # noqa: E402
from tree_ring.web.site import Site  # noqa: E402
from tree_ring.write import verbs  # noqa: E402

SUBJECTS = (
    "the deploy pipeline", "the billing service", "the search index", "the nightly backup",
    "the auth gateway", "the mobile build", "the payments queue", "the docs site",
    "the feature-flag store", "the metrics exporter", "the image resizer", "the mail relay",
)  # fmt: skip
FACTS = (
    "runs on the {n}th worker pool", "keeps {n} days of logs", "retries {n} times before paging",
    "is owned by team {n}", "needs {n} GB of memory", "rolls out to {n} percent first",
    "caches for {n} minutes", "answers within {n} ms at p95",
)  # fmt: skip
RINGS = (("cambium", 90), ("outer", 55), ("inner", 30), ("heartwood", 14))
SCARS = (
    "Migrating {s} during business hours took the site down",
    "Rotating the keys of {s} without a canary locked everyone out",
    "Deleting old rows of {s} in one transaction filled the disk",
)
SEEDS = ("Try a read-through cache in front of {s}", "Consider sharding {s} by tenant")


def build(root: Path) -> None:
    guidance.init_project(root)
    project_json = root / ".tree-ring" / "project.json"
    data = json.loads(project_json.read_text(encoding="utf-8"))
    data["project_id"] = "demo"
    project_json.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    person = Actor.person()
    agent = Actor("claude-code", Origin("claude-code", "demo-session"))
    me = Identity("demo")
    bot = Identity("demo", "claude-code", "demo-session", "demo-session")
    n = 0
    with Store.open(root) as store:
        for ring, count in RINGS:
            for i in range(count):
                n += 1
                subject = SUBJECTS[n % len(SUBJECTS)]
                fact = FACTS[(n // len(SUBJECTS)) % len(FACTS)].format(n=n)
                summary = f"{subject[0].upper()}{subject[1:]} {fact}"
                waiting = ring == "heartwood" and i % 4 == 0
                draft = verbs.Draft(summary, ring=ring, event_type="decision")
                if waiting:
                    verbs.remember(store, draft.replace(scope="project"), bot, agent)
                else:
                    verbs.remember(store, draft, me, person)
        for i, template in enumerate(SCARS * 3):
            summary = template.format(s=SUBJECTS[i % len(SUBJECTS)]) + f" (incident {i + 1})"
            scar = verbs.Draft(summary, ring="scar", event_type="lesson")
            verbs.remember(store, scar, me, person)
        for i, template in enumerate(SEEDS * 4):
            summary = template.format(s=SUBJECTS[(i * 5) % len(SUBJECTS)]) + f" (idea {i + 1})"
            verbs.remember(store, verbs.Draft(summary, ring="seed", event_type="seed"), me, person)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(REPO / "docs" / "web-rings.png"))
    args = parser.parse_args()
    chromium = shutil.which("chromium")
    if chromium is None:
        print("screenshot.py: chromium not found; run scripts/install-browser.sh", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="tree-ring-demo-") as tmp:
        root = Path(tmp) / "demo"
        root.mkdir()
        build(root)
        site = Site.open(str(root), {k: v for k, v in os.environ.items() if k == "HOME"})
        server = ViewServer(site, 0)
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        try:
            subprocess.run(
                [
                    chromium,
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-quic",
                    "--no-first-run",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--disable-sync",
                    "--hide-scrollbars",
                    f"--user-data-dir={Path(tmp) / 'profile'}",
                    "--window-size=1100,900",
                    f"--screenshot={os.path.abspath(args.out)}",
                    f"{server.url}?token={site.token}",
                ],
                check=True,
                capture_output=True,
                timeout=120,
            )
        finally:
            server.shutdown()
            server.server_close()
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
