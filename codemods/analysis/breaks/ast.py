"""The cheap answer to "does this break", read from a file's text and its ``ast``.

The libcst answer is :mod:`codemods.analysis.breaks.cst`; the screen and the project
index ask this module, so what they let through is what the rules' analysis reads.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from codemods.analysis.astnodes import CALL_REST, expressions_of, word_ends
from codemods.analysis.catalogue import CONDITION_CALLS, MASK_BINDING, MASK_LINE, NAME_INDEX, TRUTH_WORD


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


def mask_index_starts(text: str) -> Iterator[int]:
    """Where each subscript that may read through a boolean mask starts (its ``[``), as the
    prefilter finds them: a bool tensor written in place (``x[x > 0]``, :data:`MASK_LINE`), or a
    name some line binds to one (``x[keep]`` after ``keep = x > 0``, :data:`NAME_INDEX`)."""
    for match in MASK_LINE.finditer(text):
        yield match.start()
    bound = {match.group(1) for match in MASK_BINDING.finditer(text)}
    if bound:
        for match in NAME_INDEX.finditer(text):
            if match.group(1) in bound:
                yield match.start()


#: a lambda's body does not run with the statement: a read there is left to the file's own analysis
_NOT_HERE = (ast.Lambda,)


def subscripts_on(stmt: ast.stmt, line: int) -> list[ast.Subscript]:
    """The subscripts by one index, written on ``line`` alone, that ``stmt`` reads (``x[m]``,
    and ``x[m] += v``, which reads it first), not those it only stores to or deletes
    (``x[m] = v`` is an ``index_put``: no break)."""
    stored = set()
    if isinstance(stmt, ast.Assign):
        stored = {id(t) for target in stmt.targets for t in ast.walk(target) if isinstance(t, ast.Subscript)}
    elif isinstance(stmt, (ast.AnnAssign, ast.Delete)):
        targets = stmt.targets if isinstance(stmt, ast.Delete) else [stmt.target]
        stored = {id(t) for target in targets for t in ast.walk(target) if isinstance(t, ast.Subscript)}
    found = []
    stack = list(expressions_of(stmt))
    while stack:
        node = stack.pop()
        if isinstance(node, _NOT_HERE):
            continue
        if (
            isinstance(node, ast.Subscript)
            and id(node) not in stored
            and node.lineno == node.end_lineno == line
            and not isinstance(node.slice, (ast.Slice, ast.Tuple, ast.Starred))
        ):
            found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return found
