"""The web view says who put a memory there when a team ledger line did.

The store is built through real git (tests/provenance_support.py): an
upstream line names its commit and author on the memory's page; a
working-tree line is a claim, on its page and in the review queue, as is the
request to forget its tombstone made. An author is whatever a commit (or a
store edited by hand) says: escaped, its controls spelled out, on one line.
"""

from __future__ import annotations

import re
from pathlib import Path

from helpers import make_memory
from provenance_support import FORGED_COMMIT, Scene, cli, set_author, team
from web_support import Client, insert, serving

from tree_ring.model import project
from tree_ring.store.db import Store
from tree_ring.team import provenance
from tree_ring.team.upstream import UPSTREAM, Provenance
from tree_ring.web.frame import memory_link

HOSTILE = "<script>alert(1)</script>\n\x1b[31mforged\x1b[0m\u202eexe.txt 漢字 <e@x>"
# As a page must hold it: markup, not tags; every control spelled out; one line.
INERT = (
    "&lt;script&gt;alert(1)&lt;/script&gt;U+000AU+001B[31mforgedU+001B[0mU+202Eexe.txt"
    " 漢字 &lt;e@x&gt;"
)
CLAIMED = "from the team ledger: a claim from the working tree"


def notes(html: str) -> list[str]:
    """The text of every provenance note on the page."""
    return re.findall(r'<(?:span|p) class="note provenance"[^>]*>([^<]*)</', html)


def pages(scene: Scene) -> dict[str, str]:
    with serving(scene.root) as client:
        client.login()
        return _pages(client, scene)


def _pages(client: Client, scene: Scene) -> dict[str, str]:
    found: dict[str, str] = {}
    for name, path in (
        ("upstream", memory_link(scene.upstream_id)),
        ("claim", memory_link(scene.claim_id)),
        ("review", "/review"),
        ("inbox", "/inbox"),
    ):
        reply = client.get(path)
        assert reply.status == 200, (path, reply.body[:300])
        found[name] = reply.body
    return found


def test_each_page_says_where_a_ledger_line_came_from(tmp_path: Path) -> None:
    scene = team(tmp_path)
    own = cli(scene.root, "remember", "Bob keeps the changelog in docs/CHANGES.md")["id"]
    shown = pages(scene)
    upstream = (
        f"from the team ledger: commit {scene.commit[:7]} by Alice &lt;alice@example.com&gt;"
        " (upstream origin/main)"
    )
    assert f'<p class="note provenance" id="provenance">{upstream}</p>' in shown["upstream"]
    assert notes(shown["upstream"]) == [upstream]
    assert notes(shown["claim"]) == [CLAIMED]
    # The queue: the claimed memory in its entry, the request to forget in its row.
    entry = re.search(rf'<li class="waiting" id="w-{scene.claim_id}">.*?</li>', shown["review"])
    assert entry and notes(entry.group(0)) == [CLAIMED]
    row = re.search(rf"<tr><td>{scene.request_id}</td>.*?</tr>", shown["review"])
    assert row and notes(row.group(0)) == [CLAIMED]
    assert notes(shown["review"]) == [CLAIMED, CLAIMED]
    # What this store wrote itself shows nothing more.
    with serving(scene.root) as client:
        client.login()
        assert notes(client.get(memory_link(own)).body) == []


def test_a_hostile_author_is_escaped_spelled_out_and_kept_on_one_line(tmp_path: Path) -> None:
    # Git keeps escapes and a right-to-left override in a name, which a sync
    # drops as it reads the author; they, `<`, `>` and a newline only a store
    # edited by hand (or kept before) can hold.
    scene = team(tmp_path, author="Eve \x1b[31mred\x1b[0m \u202eexe.txt")
    blamed = f"commit {scene.commit[:7]} by Eve [31mred[0m exe.txt"
    assert notes(pages(scene)["upstream"]) == [
        f"from the team ledger: {blamed} &lt;alice@example.com&gt; (upstream origin/main)"
    ]
    for subject in (scene.upstream_id, scene.claim_id, scene.request_id):
        set_author(scene.root, subject, HOSTILE, upstream=True)
    # An agent's row a ledger line made, for the inbox.
    pid = project.load_project_id(scene.root)
    agents = make_memory(pid, "the agent's note", origin="claude-code", scope="agent")
    insert(scene.root, [agents])
    with Store.open(scene.root) as store, store.write() as db:
        said = Provenance(UPSTREAM, FORGED_COMMIT, HOSTILE, "refs/remotes/origin/main")
        provenance.note(db, agents.id, pid, "{}", said, agents.created_at)
    shown = pages(scene)
    with serving(scene.root) as client:
        client.login()
        shown["agents"] = client.get(memory_link(agents.id)).body
    forged = f"from the team ledger: commit c0ffee0 by {INERT} (upstream origin/main)"
    expected = {"upstream": 1, "claim": 1, "review": 2, "inbox": 1, "agents": 1}
    for name, html in shown.items():
        assert notes(html) == [forged] * expected[name], name
        assert "<script>" not in html and "\x1b" not in html and "\u202e" not in html, name
        assert not any("\n" in note for note in notes(html)), name
