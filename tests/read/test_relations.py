"""The relations data file and its loader: the shipped file is small, noticed,
sound and symmetric; a lookup keeps its contract; a bad file gives no
relations and says why, never an exception; nothing the hooks run reads it."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers import REPO
from hypothesis import given, settings
from hypothesis import strategies as st

from tree_ring.model import morphy
from tree_ring.read import relations

SHIPPED = Path(relations.PATH)
NOTICE = SHIPPED.with_name("RELATIONS-NOTICE.txt")
TERM = re.compile(r"\w+(?: \w+){0,2}")


def shipped_terms() -> list[str]:
    """Every term the shipped file lists, read apart from the loader."""
    data = SHIPPED.read_bytes()
    body = data[data.index(b"\n") + 1 :]
    return [line.split(b"\t", 1)[0].decode() for line in body.splitlines()]


TERMS = shipped_terms()


@pytest.fixture
def data_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A path the loader reads instead of the shipped file, its cache cleared
    before and after."""
    path = tmp_path / "relations.dat"
    monkeypatch.setattr(relations, "PATH", str(path))
    relations._table.cache_clear()  # pyright: ignore[reportPrivateUsage]
    relations.related.cache_clear()
    yield path
    relations._table.cache_clear()  # pyright: ignore[reportPrivateUsage]
    relations.related.cache_clear()


def written(path: Path, rows: dict[str, str], version: int = relations.VERSION) -> bytes:
    body = b"".join(sorted(f"{term}\t{row}\n".encode() for term, row in rows.items()))
    data = b"%s %d %d %08x\n" % (relations.MAGIC, version, len(body), zlib.crc32(body)) + body
    path.write_bytes(data)
    return data


def test_the_shipped_file_is_at_most_five_megabytes_and_sound() -> None:
    assert SHIPPED.stat().st_size <= 5 * 1024 * 1024
    assert relations.problem() is None
    assert len(TERMS) > 10_000


def test_its_notices_are_beside_it() -> None:
    text = NOTICE.read_text(encoding="utf-8")
    assert "WordNet 3.1 Copyright 2011 by Princeton University" in text
    assert "THIS SOFTWARE AND DATABASE IS PROVIDED" in text
    assert "Apache License, Version 2.0" in text
    assert "Attribution-ShareAlike 4.0" in text


def test_the_terms_are_sorted_for_bisection_and_unique() -> None:
    keys = [t.encode() for t in TERMS]
    assert keys == sorted(set(keys))


# One term in SAMPLE, spread over the whole file, is checked term by term.
SAMPLE = 20


def test_a_lookup_keeps_the_contract() -> None:
    for term in TERMS[::SAMPLE]:
        found = relations.related(term)
        others = [other for other, _ in found]
        weights = [weight for _, weight in found]
        assert 0 < len(found) <= relations.LIMIT, term
        assert term not in others, term
        assert len(set(others)) == len(others), term
        assert all(0 < w <= 1 for w in weights), term
        assert weights == sorted(weights, reverse=True), term
        assert all(TERM.fullmatch(other) and other == other.lower() for other in others), term


def test_the_relation_is_symmetric_unless_the_other_row_is_full_of_stronger_ones() -> None:
    for term in TERMS[::SAMPLE]:
        for other, weight in relations.related(term):
            back = dict(relations.related(other))
            if term in back:
                assert back[term] == weight, (term, other)
            else:
                assert len(back) == relations.LIMIT, (term, other)
                assert min(back.values()) >= weight, (term, other)


@pytest.mark.parametrize(
    ("term", "other", "source"),
    [
        ("car", "automobile", "all-MiniLM-L6-v2 neighbour"),
        ("automobile", "car", "all-MiniLM-L6-v2 neighbour"),
        ("chrome", "browser", "all-MiniLM-L6-v2 neighbour, not in WordNet"),
        ("revision", "versioning", "all-MiniLM-L6-v2 neighbour, not in WordNet"),
        ("automobile", "motor vehicle", "a phrase of the vocabulary, from WordNet's lemmas"),
    ],
)
def test_each_source_gives_its_relation(term: str, other: str, source: str) -> None:
    assert other in dict(relations.related(term)), source


def test_an_inflected_word_finds_its_lemma_row() -> None:
    assert "commences" not in TERMS
    assert "academy awards" not in TERMS
    assert relations.related("commences") == relations.related("commence") != ()
    assert relations.related("academy awards") == relations.related("academy award") != ()


@pytest.mark.parametrize("term", ["zzqxv", "", " ", "car\tauto", "car\n", "\udc80", "a" * 300])
def test_an_unknown_term_has_none(term: str) -> None:
    assert relations.related(term) == ()


def test_the_file_is_read_on_the_first_lookup_not_at_import() -> None:
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "from tree_ring.read import relations as r;"
        "print(r._table.cache_info().currsize, 'json' in sys.modules);"
        "r.related('car'); print(r._table.cache_info().currsize)"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", probe, str(REPO)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split() == ["0", "False", "1"]


def _imports(path: str) -> set[str]:
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    return {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {
        node.module.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module
    }


def test_the_module_imports_only_the_standard_library() -> None:
    # Tree Ring's own import is the detachment rules' module, which imports nothing.
    assert _imports(morphy.__file__) == {"__future__"}
    light = set(sys.stdlib_module_names) - {"json", "re", "sqlite3", "hashlib"}
    assert _imports(relations.__file__) <= light | {"tree_ring"}


HOOK_PROBE = """\
import io, sys
sys.path.insert(0, sys.argv[1])
from tree_ring.hook.adapter import main
main(sys.argv[2], stdin=io.BytesIO(sys.stdin.buffer.read()), stdout=io.BytesIO())
print("\\n".join(sorted(sys.modules)))
"""


@pytest.mark.parametrize("event", ["session-start", "stop", "subagent-start", "subagent-stop"])
def test_no_hook_loads_it(event: str, project_root: Path) -> None:
    payload = json.loads(
        (REPO / "tests" / "fixtures" / "hooks" / f"claude-code-{event}.json").read_text()
    )
    payload["cwd"] = str(project_root)
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", HOOK_PROBE, str(REPO), "claude-code"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        check=True,
        timeout=60,
    )
    modules = set(done.stdout.decode().split())
    assert "tree_ring.hook.adapter" in modules
    assert "tree_ring.read.relations" not in modules
    assert "tree_ring.model.vectors" not in modules  # recall's vectors, the same rule
    assert "tree_ring.read.dates" not in modules  # nor the reading of a question's dates


# -- a bad file --------------------------------------------------------------


def test_a_sound_small_file_is_read(data_file: Path) -> None:
    rows = {"cache": "store:60|cache:90|memo:80", "memo": "cache:80", "store": "cache:60"}
    written(data_file, rows)
    assert relations.problem() is None
    assert relations.related("cache") == (("memo", 0.8), ("store", 0.6))
    assert relations.related("memo") == (("cache", 0.8),)
    assert relations.related("stores") == (("cache", 0.6),)
    assert relations.related("cach") == ()


def test_a_row_gives_at_most_limit_terms(data_file: Path) -> None:
    written(data_file, {"hub": "|".join(f"spoke{i:02}:{90 - i}" for i in range(20))})
    assert [other for other, _ in relations.related("hub")] == [
        f"spoke{i:02}" for i in range(relations.LIMIT)
    ]


def test_a_body_its_checksum_does_not_match_is_named_and_keeps_the_contract(
    data_file: Path,
) -> None:
    """The checksum is doctor's (`problem()`), not every lookup's: a byte
    changed in place leaves the lookups well formed and `problem()` says so."""
    data = written(data_file, {"cache": "memo:80", "memo": "cache:80"})
    data_file.write_bytes(data.replace(b"memo:80", b"memo:81", 1))
    assert relations.related("cache") == (("memo", 0.81),)
    assert "truncated or damaged" in (relations.problem() or "")


@pytest.mark.parametrize(
    ("damage", "says"),
    [
        (lambda d: d[:-7], "truncated or damaged"),
        (lambda d: d[: d.index(b"\n") + 1], "truncated or damaged"),
        (lambda d: d + b"extra\t:1\n", "truncated or damaged"),
        (lambda d: b"", "not a relations file"),
        (lambda d: b"\x00\xff" * 40, "not a relations file"),
        (lambda d: d.replace(b"tree-ring relations", b"something else", 1), "not a relations"),
    ],
)
def test_a_damaged_file_gives_no_relations_and_says_why(
    data_file: Path, damage: Callable[[bytes], bytes], says: str
) -> None:
    data = written(data_file, {"cache": "memo:80", "memo": "cache:80"})
    data_file.write_bytes(damage(data))
    assert relations.related("cache") == ()
    assert says in (relations.problem() or "")
    assert (relations.problem() or "").endswith("; reinstall Tree Ring")


def test_a_file_of_another_version_gives_none_and_says_so(data_file: Path) -> None:
    written(data_file, {"cache": "memo:80", "memo": "cache:80"}, version=relations.VERSION + 1)
    assert relations.related("cache") == ()
    assert f"reads version {relations.VERSION}" in (relations.problem() or "")


def test_a_missing_file_gives_none_and_says_so(data_file: Path) -> None:
    assert relations.related("cache") == ()
    assert "cannot read" in (relations.problem() or "")
    assert (relations.problem() or "").endswith("; reinstall Tree Ring")


ROW = st.text(st.characters(codec="utf-8"), max_size=40)


@settings(max_examples=200)
@given(rows=st.dictionaries(ROW, ROW, max_size=8), term=ROW)
def test_any_file_with_a_sound_checksum_never_raises(
    rows: dict[str, str], term: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A file written by another tool, checksum and all: lookups still keep
    the contract, whatever its lines hold."""
    path = tmp_path_factory.mktemp("rel") / "relations.dat"
    body = b"".join(f"{k}\t{v}\n".encode() for k, v in rows.items())
    body += term.encode(errors="replace")[:5]
    header = b"%s %d %d %08x\n" % (relations.MAGIC, relations.VERSION, len(body), zlib.crc32(body))
    path.write_bytes(header + body)
    table = relations._read(str(path))  # pyright: ignore[reportPrivateUsage]
    assert table.problem is None
    for key in (term, *rows):
        for form in relations._forms(key):  # pyright: ignore[reportPrivateUsage]
            row = relations._row(table, form.encode(errors="replace"))  # pyright: ignore[reportPrivateUsage]
            found = relations._parse(row or b"", key)  # pyright: ignore[reportPrivateUsage]
            assert len(found) <= relations.LIMIT
            assert all(0 < w <= 1 and other != key for other, w in found)
