"""How a row's partition and writer read: scopes, ids cut to eight characters."""

from __future__ import annotations

from conftest import make_memory

from tree_ring.read import labels


def test_partition_by_scope() -> None:
    assert labels.partition(make_memory("p", "x")) == "project"
    agent = make_memory("p", "x", scope="agent", agent_profile="reviewer")
    assert labels.partition(agent) == "agent reviewer"
    session = make_memory("p", "x", scope="session", session_id="abcdefghijk")
    assert labels.partition(session) == "session abcdefgh"
    workflow = make_memory("p", "x", scope="workflow", workflow_id="wf-123456789")
    assert labels.partition(workflow) == "workflow wf-12345"


def test_writer_and_row_label() -> None:
    mine = make_memory("p", "x")
    assert labels.writer(mine) == "person"
    assert labels.row_label(mine) == "project"
    agents = make_memory("p", "x").replace(origin="codex", origin_session="s-0123456789")
    assert labels.writer(agents) == "codex session s-012345"
    assert labels.row_label(agents) == "codex session s-012345 · project"
    private = make_memory("p", "x", scope="agent", agent_profile="me")
    assert labels.row_label(private) == "person · agent me"


def test_an_imported_row_names_its_batch_or_the_session_its_file_named() -> None:
    batch = "import-20261207T005238Z-815effa9"
    imported = make_memory("p", "x").replace(origin="import", origin_session=batch)
    assert labels.writer(imported) == f"import batch {batch}"
    carried = imported.replace(origin_session="7f3c2a91-1111-2222-3333-444455556666")
    assert labels.writer(carried) == "import session 7f3c2a91"


def test_tree_search_stem_keeps_four_letters_at_least() -> None:
    from tree_ring.read import tree_recall

    stem = tree_recall._stem  # pyright: ignore[reportPrivateUsage]
    assert [stem(w) for w in ("deploys", "abcde", "cats", "cat")] == [
        "deplo",
        "abcd",
        "cats",
        "cat",
    ]


def test_a_user_store_row_is_yours_only_where_a_person_wrote_it() -> None:
    mine = make_memory("user", "x", scope="global")
    assert labels.user_row_label(mine) == "you"
    proposed = mine.replace(origin="claude-code", origin_session="s1")
    assert labels.user_row_label(proposed) == "claude-code session s1 · user store"
    imported = mine.replace(origin="import", origin_session="import-20261201T000000Z-0a1b2c3d")
    assert (
        labels.user_row_label(imported)
        == "import batch import-20261201T000000Z-0a1b2c3d · user store"
    )
    private = make_memory("user", "x", scope="session", session_id="abcdefghijk")
    assert labels.user_row_label(private) == "person · session abcdefgh, user store"
