"""``# gbfix: ignore`` comments: which lines silence which rule codes.

A finding on a line with ``# gbfix: ignore`` (every code) or
``# gbfix: ignore[GBF001,GBF003]`` is not reported; a comment that silenced
nothing an active rule could report is itself reported as unused.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

_SUPPRESS = re.compile(r"#\s*gbfix:\s*ignore\b(?:\[([A-Za-z0-9_,\s]*)\])?")


@dataclass(frozen=True)
class Suppression:
    """One ``# gbfix: ignore[...]`` comment; empty ``codes`` means every code."""

    line: int
    col: int
    codes: frozenset[str]


def _comments(source: str) -> list[tuple[int, int, str]]:
    """(line, 1-based column, text) of every comment; plain lines if tokenizing fails."""
    try:
        return [
            (tok.start[0], tok.start[1] + 1, tok.string)
            for tok in tokenize.generate_tokens(io.StringIO(source).readline)
            if tok.type == tokenize.COMMENT
        ]
    except (tokenize.TokenError, SyntaxError):
        # An unparsable file is reported elsewhere; a best effort is enough here.
        return [(n, 1, line) for n, line in enumerate(source.splitlines(), start=1)]


def suppression_comments(source: str) -> list[Suppression]:
    """Every suppression comment, in line order.

    Comments are found with the tokenizer, so the same words inside a
    string or docstring do not count.
    """
    if "gbfix:" not in source:
        return []
    found = []
    for line, col, text in _comments(source):
        match = _SUPPRESS.search(text)
        if match is None:
            continue
        codes = match.group(1) or ""
        found.append(
            Suppression(
                line,
                col + match.start(),
                frozenset(c.strip().upper() for c in codes.split(",") if c.strip()),
            )
        )
    return found


def parse_suppressions(source: str) -> dict[int, frozenset[str]]:
    """``# gbfix: ignore`` / ``# gbfix: ignore[GBF001,GBF003]`` comments by line."""
    return {s.line: s.codes for s in suppression_comments(source)}
