"""The training half of the vectors' build (scripts/learn_vectors.py), the
parts that need no model: which sentences it reads, which words join the
vocabulary, and that a sentence is read as recall reads a question."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

import learn_vectors as learn  # pyright: ignore[reportMissingImports]

TRANSLATION = """Package: redis-server
Description-md5: 0001
Description-en: Persistent key-value database with network interface
 Redis is a key-value database in a similar vein to memcache. It keeps
 the dataset in memory.
 .
 This package contains the server.

Package: redis-tools
Description-md5: 0001
Description-en: Persistent key-value database with network interface (client)
 Redis is a key-value database in a similar vein to memcache. It keeps
 the dataset in memory.
 .
 This package contains the server.

Package: tiny
Description-md5: 0002
Description-en: ok
 * Two words
"""

WORDNET = {
    "data.noun": (
        "  1 This software and database is being provided\n"
        "00001 05 n 02 broker 0 agent 0 000 | a businessman who buys or sells for another; "
        '"the broker sold the shares"\n'
        "00002 05 n 01 zebrafinch 0 000 | a small finch\n"
    ),
    "data.verb": "",
    "data.adj": "",
    "data.adv": "",
}


def test_each_package_gives_its_summary_and_each_distinct_description_its_sentences() -> None:
    assert learn.sentences(TRANSLATION) == [
        "redis-server: Persistent key-value database with network interface",
        "Redis is a key-value database in a similar vein to memcache.",
        "It keeps the dataset in memory.",
        "This package contains the server.",
        "redis-tools: Persistent key-value database with network interface (client)",
    ]  # the second description is the first's, read once; "tiny: ok" is too short


def test_common_words_give_their_definition_and_every_sense_its_examples() -> None:
    zipf = {"broker": 4.0, "agent": 4.5}
    assert learn.glosses(WORDNET, zipf) == [
        "broker, agent: a businessman who buys or sells for another",
        "the broker sold the shares",
    ]  # "zebrafinch" is not common: its definition is not read


def test_words_the_vocabulary_lacks_join_it_by_how_many_sentences_use_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(learn, "NEW_TERM_SENTENCES", 2)
    corpus = ["Redis and postgres", "redis again", "postgres, redis", "only xyzzy here", "a 60s b"]
    assert learn.new_terms(corpus, {"and", "again", "only", "here"}, 10) == ["redis", "postgres"]
    assert learn.new_terms(corpus, {"and"}, 1) == ["redis"]


def test_a_sentence_is_read_as_recall_reads_a_question() -> None:
    terms = ["message broker", "message", "broker", "throttle", "lag"]
    read = learn.reader(terms)
    # The longest phrase first, a word's base form when the word is not a
    # term (a phrase is read as written), and a word no form of which is a
    # term left out.
    assert read("Message broker throttled the zorbquux lag") == [0, 3, 4]
    assert read("message  BROKERS") == [1, 2]


RST = """\
Socket Programming
==================

The :mod:`socket` module gives access to the BSD socket interface.  It is
available on all modern systems.

.. function:: create_connection(address)

   This directive's body is an API entry, not prose.

.. note::

   A timeout makes every blocking call give up after the given time.

Connect like this::

   s = socket.create_connection(("example.org", 80))

>>> s.close()
Use ``settimeout`` to bound a call.
"""

MAN = """\
.\\" Copyright notice
.TH TCP 7
.SH NAME
tcp \\- TCP protocol
.SH SYNOPSIS
.B #include <netinet/tcp.h>
.SH DESCRIPTION
This is an implementation of the TCP protocol.
It provides a reliable, stream-oriented,
.B full-duplex
connection between two sockets.
.PP
.nf
int x = 1;
.fi
Keep-alive probes are sent when the connection is idle.
.SH SEE ALSO
.BR socket (7)
"""


def test_a_documentation_page_gives_its_prose_and_not_its_code() -> None:
    assert learn.rst_sentences(RST) == [
        "The socket module gives access to the BSD socket interface.",
        "It is available on all modern systems.",
        "A timeout makes every blocking call give up after the given time.",
        "Connect like this:",
        "Use settimeout to bound a call.",
    ]  # the title (two words), a directive's body, the code and the session are left out


def test_a_man_page_gives_its_name_line_and_its_paragraphs() -> None:
    assert learn.man_sentences(MAN) == [
        "tcp: TCP protocol",
        "This is an implementation of the TCP protocol.",
        "It provides a reliable, stream-oriented, full-duplex connection between two sockets.",
        "Keep-alive probes are sent when the connection is idle.",
    ]  # the synopsis, the code and the references are left out


def _deb(files: dict[str, bytes]) -> bytes:
    """A Debian package (an ar archive) whose data.tar holds `files`."""
    import io
    import tarfile

    tar_bytes = io.BytesIO()
    with tarfile.open(fileobj=tar_bytes, mode="w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    out = b"!<arch>\n"
    for name, data in (("debian-binary", b"2.0\n"), ("data.tar", tar_bytes.getvalue())):
        out += f"{name:<16}{0:<12}{0:<6}{0:<6}{'100644':<8}{len(data):<10}`\n".encode() + data
        out += b"\n" if len(data) % 2 else b""
    return out


def test_a_package_text_gives_its_summary_and_prose_sentences_once() -> None:
    rows = [
        {"name": "pynamodb", "summary": "A Pythonic Interface to DynamoDB", "text": ""},
        {
            "name": "okta",
            "summary": "Python SDK for the Okta Management API",
            "text": "A Python library for the Okta APIs. Look for our guide here!",
        },
        {"name": "x", "summary": "", "text": "Too short. A Python library for the Okta APIs."},
    ]
    text = "".join(json.dumps(row) + "\n" for row in rows)
    assert learn.package_sentences(text) == [
        "pynamodb: A Pythonic Interface to DynamoDB",
        "okta: Python SDK for the Okta Management API",
        "A Python library for the Okta APIs.",
        "Look for our guide here!",
    ]


def test_a_package_gives_its_files_and_an_unpinned_one_is_refused(tmp_path: Path) -> None:
    import gzip

    # Packed once: a gzip header holds the second it was made in.
    page = gzip.compress(MAN.encode())
    deb = _deb({"./usr/share/man/man7/tcp.7.gz": page, "./odd": b"x"})
    assert dict(learn.deb_files(deb)) == {"./usr/share/man/man7/tcp.7.gz": page, "./odd": b"x"}
    path = tmp_path / "manpages_6.03-2_all.deb"
    path.write_bytes(deb)
    with pytest.raises(SystemExit, match="not one of the pinned packages"):
        learn.documentation([path])
    with pytest.raises(SystemExit, match="not a Debian package"):
        list(learn.deb_files(b"PK\x03\x04"))


def test_the_vocabulary_keeps_common_words_and_the_terms_sentences_use() -> None:
    terms = ["rebalance", "quokka", "the", "load balancer", "zeugma"]
    zipf = {"rebalance": 2.6, "quokka": 2.0, "the": 7.7, "zeugma": 1.5}
    corpus = [[0], [3, 0], [3], [1], []]
    # "quokka" and "zeugma" are rare and used by fewer than USED_SENTENCES
    # sentences; "rebalance" and "load balancer" are used by two; "the" is common.
    assert learn.USED_SENTENCES == 2
    assert learn.kept(terms, zipf, corpus) == [0, 2, 3]
    assert learn.kept(terms, zipf, corpus[1:]) == [2, 3]  # "rebalance" used by one alone


def test_the_fetch_picks_each_common_name_words_shortest_packages() -> None:
    import fetch_package_texts as fetch  # pyright: ignore[reportMissingImports]

    names = [f"django-okta-{i}" for i in range(9)] + ["okta", "okta-jwt", "x-okta", "django-x"]
    index = "".join(f'<a href="/simple/{n}/">{n}</a>\n' for n in names)
    assert fetch.names(index) == names
    # "okta" (12 names) and "django" (10) are in at least MIN_NAMES names,
    # "jwt" is not; each gives its PER_WORD shortest names.
    assert fetch.MIN_NAMES == 10 and fetch.PER_WORD == 2
    assert fetch.chosen(names) == ["django-okta-0", "django-x", "okta", "x-okta"]
    assert fetch.chosen(names[1:]) == ["okta", "x-okta"]


def test_the_fetch_keeps_the_first_prose_sentences_of_a_description() -> None:
    import fetch_package_texts as fetch  # pyright: ignore[reportMissingImports]

    description = "\n".join(
        [
            "# okta-sdk",
            "[![build](https://ci.example/badge.svg)](https://ci.example)",
            "pip install okta",
            "The Okta SDK manages users and groups. It wraps the REST API for you.",
            "```python",
            "Another sentence of plain words here. And one more after it.",
        ]
    )
    assert fetch.prose(description) == (
        "The Okta SDK manages users and groups. It wraps the REST API for you. "
        "Another sentence of plain words here."
    )
