"""The vectors data file and its reader: the shipped file is small, noticed and
sound; a text's vector says what it means; a bad file gives no vectors and says
why, never an exception. That no hook reads it is tested with the relations
file's (tests/read/test_relations.py)."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tree_ring.model import vectors

SHIPPED = Path(vectors.PATH)
NOTICE = SHIPPED.with_name("VECTORS-NOTICE.txt")


@pytest.fixture
def data_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A path the reader reads instead of the shipped file, its caches
    cleared before and after."""
    path = tmp_path / "vectors.dat"
    monkeypatch.setattr(vectors, "PATH", str(path))
    vectors._table.cache_clear()  # pyright: ignore[reportPrivateUsage]
    vectors._vector.cache_clear()  # pyright: ignore[reportPrivateUsage]
    yield path
    vectors._table.cache_clear()  # pyright: ignore[reportPrivateUsage]
    vectors._vector.cache_clear()  # pyright: ignore[reportPrivateUsage]


def near(a: str, b: str) -> float:
    va, vb = vectors.embed(a), vectors.embed(b)
    assert va is not None and vb is not None
    return sum(x * y for x, y in zip(va, vb, strict=True))


def test_the_shipped_file_is_at_most_five_megabytes_sound_and_noticed() -> None:
    assert SHIPPED.stat().st_size <= 5 * 1024 * 1024
    assert vectors.problem() is None
    assert vectors.dims() == 128
    notice = NOTICE.read_text(encoding="utf-8")
    for source in (
        "all-MiniLM-L6-v2",
        "wordfreq",
        "WordNet 3.1",
        "CC BY-SA 4.0",
        "Apache",
        "Debian 12",
        "PyPI",
    ):
        assert source in notice


@pytest.mark.parametrize(
    ("text", "kin", "stranger"),
    [
        ("reverse proxy", "nginx", "poetry"),
        ("container", "docker", "garden"),
        ("outage", "downtime", "recipe"),
        ("slow responses", "latency", "wedding"),
        ("rate limit", "throttled", "novel"),
        ("memory leak", "RSS keeps growing", "holiday"),
        # Products and their kinds, which the words embedded alone did not
        # know ("kafka" read as the novelist): learnt from Debian's
        # package descriptions, or joined the vocabulary from them.
        ("kafka", "message broker", "novelist"),
        ("rabbitmq", "message queue", "poetry"),
        ("postgres", "relational database", "garden"),
        ("nginx", "reverse proxy", "wedding"),
        ("memcached", "cache", "holiday"),
        ("redis", "key-value database", "mortgage"),
        # Services Debian does not ship, learnt from what PyPI's packages
        # written for them say they are.
        ("dynamodb", "nosql database", "poetry"),
        ("bigquery", "data warehouse", "garden"),
        ("datadog", "monitoring metrics", "garden"),
    ],
)
def test_a_text_is_nearer_its_kind_than_a_stranger(text: str, kin: str, stranger: str) -> None:
    assert near(text, kin) > near(text, stranger) + 0.05


def test_the_vector_is_a_unit_vector_and_known_counts_unknown_words() -> None:
    read = vectors.read("the request timeout")
    assert read is not None
    assert sum(v * v for v in read.vector) == pytest.approx(1.0)
    assert read.known == pytest.approx(1.0)
    mostly_unknown = vectors.read("what zorbquux do we use")
    assert mostly_unknown is not None and mostly_unknown.known < 0.2
    assert vectors.read("zorbquux frobnitzel") is None
    assert vectors.read("") is None


def test_a_letter_or_a_number_the_table_lacks_is_not_an_unknown_word() -> None:
    """ "a", the "t" of "didn't" and "60s" say nothing the table could miss;
    a word it does not know does."""
    plain = vectors.read("the request timeout")
    padded = vectors.read("didn't a request timeout of 60s t")
    unknown = vectors.read("the request timeout zorbquux")
    assert plain is not None and padded is not None and unknown is not None
    assert plain.known == padded.known == 1.0
    assert unknown.known < 0.7  # the unknown word outweighs any of the known ones


def test_a_word_form_the_table_lacks_reads_as_its_word() -> None:
    table = vectors._table()  # pyright: ignore[reportPrivateUsage]
    assert vectors._index(table, "rebalanced") < 0  # pyright: ignore[reportPrivateUsage]
    assert vectors._index(table, "rebalance") >= 0  # pyright: ignore[reportPrivateUsage]
    assert near("rebalanced", "rebalance") == pytest.approx(1.0)


def test_a_code_holds_the_signs_and_the_vector() -> None:
    vector = vectors.embed("Postgres connection pool exhausted under load")
    assert vector is not None
    code = vectors.code(vector)
    assert len(code) == vectors.dims() // 8 + vectors.dims()
    assert vectors.cosine(vector, code) == pytest.approx(1.0, abs=0.02)
    signs = vectors.signs(code)
    # One bit an axis: set where the axis's signed byte is above zero.
    assert [bool(signs >> d & 1) for d in range(vectors.dims())] == [
        round(v * 127) > 0 for v in vector
    ]
    # A code of another size (a table of other axes) is near nothing.
    assert vectors.cosine(vector, code[:-1]) == 0.0


def test_folded_spellings_mean_the_same() -> None:
    assert near("ｋａｆｋａ consumer lag", "kafka consumer lag") == pytest.approx(1.0)


def _write(
    path: Path,
    levels: list[list[float]],
    centre: list[float],
    entries: bytes,
    *,
    count: int = 1,
    version: int = vectors.VERSION,
    bits: int = 2,
) -> None:
    """A vectors file as the builder writes one (scripts/build_vectors.py)."""
    values = [v for row in levels for v in row] + centre
    floats = struct.pack(f"<{len(values)}f", *values)
    body = floats + entries
    header = b"%s %d %d %d %d %d %08x\n" % (
        vectors.MAGIC,
        version,
        count,
        len(centre),
        bits,
        len(body),
        zlib.crc32(floats),
    )
    path.write_bytes(header + body)


LEVELS = [[-1.0, -0.5, 0.5, 1.0]] * 4
CENTRE = [0.0, 0.0, 0.0, 1.0]


def _one_term(term: str, level: int = 3) -> bytes:
    """One term's fingerprint, weight (255: whole) and code of four axes at
    two bits: axis 0 at `level`, the others at level 0."""
    return vectors.fingerprint(term).to_bytes(4, "little") + bytes([255]) + bytes([level])


def test_a_small_table_is_read_as_written(data_file: Path) -> None:
    _write(data_file, LEVELS, CENTRE, _one_term("kafka"))
    assert vectors.problem() is None
    # Axis 0 at level 3 (1.0), the others at level 0 (-1.0); the centre's axis
    # (the last) is taken out, and the rest made unit length.
    read = vectors.read("kafka")
    assert read is not None
    assert read.vector == pytest.approx([1 / 3**0.5, -1 / 3**0.5, -1 / 3**0.5, 0.0])
    assert vectors.read("nginx") is None


@pytest.mark.parametrize("bits", [1, 2, 4, 8])
def test_each_width_of_level_is_read_as_written(data_file: Path, bits: int) -> None:
    """Axis d's level sits in the `bits` bits from bit bits * (d % (8 / bits))
    of byte d // (8 / bits): eight axes, each at its own level."""
    step = 1 << bits
    levels = [[float(k) for k in range(step)]] * 8
    wanted = [(3 * d + 1) % step for d in range(8)]
    code = bytearray(8 * bits // 8)
    for d, level in enumerate(wanted):
        per_byte = 8 // bits
        code[d // per_byte] |= level << (bits * (d % per_byte))
    entry = vectors.fingerprint("kafka").to_bytes(4, "little") + bytes([255]) + bytes(code)
    _write(data_file, levels, [0.0] * 7 + [1.0], entry, bits=bits)
    assert vectors.problem() is None
    read = vectors.read("kafka")
    assert read is not None
    raw = [float(level) for level in wanted[:7]]  # the centre's axis (the last) is taken out
    norm = sum(v * v for v in raw) ** 0.5
    assert read.vector == pytest.approx([v / norm for v in raw] + [0.0])


@pytest.mark.parametrize(
    "damage",
    ["missing", "empty", "foreign", "version", "truncated", "floats", "dims", "count", "bits"],
)
def test_a_bad_file_gives_no_vectors_and_says_why(data_file: Path, damage: str) -> None:
    entry = _one_term("kafka")
    if damage == "empty":
        data_file.write_bytes(b"")
    elif damage == "foreign":
        data_file.write_bytes(b"tree-ring relations 1 10 00000000\nkafka\tbroker:90\n")
    elif damage == "version":
        _write(data_file, LEVELS, CENTRE, entry, version=vectors.VERSION - 1)
    elif damage == "bits":
        _write(data_file, LEVELS, CENTRE, entry, bits=3)
    elif damage == "truncated":
        _write(data_file, LEVELS, CENTRE, entry)
        data_file.write_bytes(data_file.read_bytes()[:-1])
    elif damage == "floats":
        _write(data_file, LEVELS, CENTRE, entry)
        data = bytearray(data_file.read_bytes())
        data[data.index(b"\n") + 3] ^= 1  # the floats no longer match their checksum
        data_file.write_bytes(bytes(data))
    elif damage == "dims":
        _write(data_file, [*LEVELS, [0.0] * 4, [0.0] * 4], [*CENTRE, 0.0, 0.0], entry)  # 6 axes
    elif damage == "count":
        _write(data_file, LEVELS, CENTRE, entry, count=2)
    problem = vectors.problem()
    assert problem is not None and "\n" not in problem
    assert problem.endswith("; reinstall Tree Ring")
    assert vectors.read("kafka") is None and vectors.embed("kafka") is None
