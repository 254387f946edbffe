"""`file_damage` reads a store's 100-byte header: its magic, page size and
page count, each at the edge where the answer changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tree_ring.store.db import file_damage

MAGIC = b"SQLite format 3\x00"


def header(page_size: int, pages: int, *, agree: bool = True) -> bytes:
    head = bytearray(100)
    head[:16] = MAGIC
    head[16:18] = page_size.to_bytes(2, "big")
    head[24:28] = (7).to_bytes(4, "big")  # file change counter
    head[28:32] = pages.to_bytes(4, "big")
    head[92:96] = (7 if agree else 8).to_bytes(4, "big")  # version-valid-for number
    return bytes(head)


def write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "memory.sqlite"
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    ("data", "damage"),
    [
        (b"", None),  # empty: SQLite makes it a store
        (MAGIC + bytes(83), "not a SQLite database"),  # 99 bytes of header
        (b"SQLite format 2\x00" + bytes(84), "not a SQLite database"),
        (header(1024, 2) + bytes(1024 * 2 - 100), None),  # exactly its pages
        (header(1024, 2) + bytes(1024 * 2 - 101), "truncated: 2,047 of 2,048 bytes"),
        (header(1024, 2, agree=False) + bytes(10), None),  # count not valid: no verdict
        (header(1024, 0) + bytes(10), None),
        # A page size of 1 means 65,536.
        (header(1, 1) + bytes(65_536 - 100), None),
        (header(1, 1) + bytes(65_536 - 101), "truncated: 65,535 of 65,536 bytes"),
    ],
)
def test_header_edges(tmp_path: Path, data: bytes, damage: str | None) -> None:
    assert file_damage(write(tmp_path, data)) == damage


def test_a_wal_with_frames_leaves_the_verdict_to_sqlite(tmp_path: Path) -> None:
    path = write(tmp_path, header(1024, 4) + bytes(10))
    assert file_damage(path) == "truncated: 110 of 4,096 bytes"
    Path(f"{path}-wal").write_bytes(b"")
    assert file_damage(path) == "truncated: 110 of 4,096 bytes"  # an empty WAL has no frames
    Path(f"{path}-wal").write_bytes(b"x")
    assert file_damage(path) is None


def test_a_missing_file_is_for_sqlite_to_report(tmp_path: Path) -> None:
    assert file_damage(tmp_path / "absent.sqlite") is None


def test_a_file_that_grows_while_it_is_read_is_not_called_truncated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process's checkpoint can add a page and raise the header's
    page count between two reads of the file: the size is read after the
    header, so a store growing under the check is never called truncated."""
    path = write(tmp_path, header(1024, 2) + bytes(1024 * 2 - 100))
    real_open = open

    def growing(file: object, *args: object, **kwargs: object) -> object:
        # The checkpoint lands just as the header is about to be read.
        path.write_bytes(header(1024, 3) + bytes(1024 * 3 - 100))
        return real_open(file, *args, **kwargs)  # pyright: ignore[reportCallIssue, reportArgumentType]

    monkeypatch.setattr("tree_ring.store.db.open", growing, raising=False)
    assert file_damage(path) is None
    # A file that is short of its header's count all along still is.
    monkeypatch.undo()
    path.write_bytes(header(1024, 3) + bytes(1024 * 2 - 100))
    assert file_damage(path) == "truncated: 2,048 of 3,072 bytes"
