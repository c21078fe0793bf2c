"""The cheap answer to "does this break", read from a file's text and its ``ast``.

The libcst answer is :mod:`codemods.analysis.breaks.cst`; the screen and the project
index ask this module, so what they let through is what the rules' analysis reads.
"""

from __future__ import annotations

from collections.abc import Iterator

from codemods.analysis.astnodes import CALL_REST, word_ends
from codemods.analysis.catalogue import CONDITION_CALLS, TRUTH_WORD


def condition_call_ends(text: str) -> Iterator[int]:
    """Where the name of each call of a condition name (``mask.any(``) ends, on a line that
    reads a truth: what :data:`CONDITION_LINE` finds, one search per name (an alternation of
    words tried at every position of a file is slow)."""
    for name in CONDITION_CALLS:
        for end in word_ends(text, name):
            if CALL_REST.match(text, end) and reads_a_truth(text, end):
                yield end


def reads_a_truth(text: str, offset: int) -> bool:
    """The line of ``offset`` holds a word that reads a truth (``while``, ``not``, a ternary's
    ``if``…): a condition call there may be read for its truth (see :data:`TRUTH_WORD`)."""
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    return TRUTH_WORD.search(text, start, end if end != -1 else len(text)) is not None
