"""FTS5 query text: the one way a word becomes part of a MATCH expression.

User text never reaches MATCH as syntax. Each word is wrapped in double
quotes, with any double quote inside doubled, so FTS5 reads it as one string
token whatever it holds (`NEAR(`, `*`, `-`, `column:`, `OR`); callers join the
quoted words with the operators they mean.
"""

from __future__ import annotations


def quote(term: str) -> str:
    """`deploy` becomes `"deploy"`, and `a"b` becomes `"a""b"`."""
    return '"' + term.replace('"', '""') + '"'
