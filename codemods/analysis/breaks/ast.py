"""The cheap answer to "does this break", read from a file's text and its ``ast``.

The libcst answer is :mod:`codemods.analysis.breaks.cst`; the screen and the project
index ask this module, so what they let through is what the rules' analysis reads.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_left
from collections.abc import Iterator
from typing import Optional

from codemods.analysis.astnodes import CALL_REST, dotted, expressions_of, is_word_char, word_ends
from codemods.analysis.catalogue import (
    BOOL_FUNCTIONS,
    BOOL_MARK,
    BOOL_METHODS,
    CONDITION_CALLS,
    INDEX_READ_LINE,
    MASK_LINE,
    METHOD_CALL,
    NAME_INDEX,
    SUBSCRIPT_BOUND,
    TENSOR_READ_NAME,
    TRUTH_WORD,
    ZERO_DIM_MARK,
)
from codemods.analysis.tensors.ast import dtype_argument


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
    """Where each subscript that may read through a boolean mask starts (its ``[``): one with
    what a bool tensor is written with between its brackets (``x[x > 0]``, :data:`MASK_LINE`),
    or one by a name alone that some line binds to such a value (``x[keep]`` after
    ``keep = x > 0``, :data:`NAME_INDEX`). The index reads only these lines."""
    for start, line_end in _lines_from(text, MASK_LINE):
        yield from _marked_brackets(text, start, line_end)
    by_name: dict[str, list[int]] = {}
    for match in NAME_INDEX.finditer(text):
        if not match.group(1)[0].isdigit():
            by_name.setdefault(match.group(1), []).append(match.start())
    for name, starts in by_name.items():
        if _bound_to_a_mask(text, name):
            yield from starts


def index_read_starts(text: str) -> Iterator[int]:
    """Where each subscript that may read a tensor's value as an int starts (its ``[``), and
    where each name such a subscript reads is bound: brackets (on one line) that hold a 0-dim mark
    (``x[x.argmax()]``) or a slice bound written as a subscript (``x[:, :lengths[i]]``), and
    brackets that read a name a line binds to a value with a 0-dim mark (``x[:n]`` after
    ``n = mask.sum()``). The index and the screen read only these lines."""
    for start, line_end in _lines_from(text, INDEX_READ_LINE):
        for first, last in _bracket_pairs(text, start, line_end):
            if ZERO_DIM_MARK.search(text, first + 1, last) or SUBSCRIPT_BOUND.search(text, first, last):
                yield first
    for match in _ZERO_DIM_BINDING.finditer(text):
        name = match.group(1)
        reads = [at for at in _words(text, name) if _inside_brackets(text, at)]
        if reads:
            yield match.start(1)
            yield from reads
    yield from parameter_slice_starts(text)


def parameter_slice_starts(text: str) -> Iterator[int]:
    """Where a function slices by one of its parameters (``in_act[:, :channels]``) when a call
    in the file hands it an argument written as a tensor's element or with a 0-dim mark
    (``gated(h, g, sizes[0])``): the slice reads a tensor's value as an int when that argument
    is a tensor, which the index and the file's analysis judge from the caller's code."""
    bare = [
        (first, names)
        for start, line_end in _lines_from(text, _SLICE_LINE)
        for first, last in _bracket_pairs(text, start, line_end)
        if (names := {name for pair in _BARE_BOUND.findall(text, first + 1, last) for name in pair if name})
    ]
    if not bare:
        return
    defs = []
    for match in _DEF.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        before = text[line_start : match.start()]
        if before.strip() in ("", "async"):
            defs.append((line_start, len(before) - len(before.lstrip(" \t")), match))
    starts = [start for start, _, _ in defs]
    handed: dict[int, bool] = {}
    for first, names in bare:
        line_start = text.rfind("\n", 0, first) + 1
        indent = len(text[line_start:first]) - len(text[line_start:first].lstrip(" \t"))
        # the nearest ``def`` above, indented less than the slice's line: the function it is in
        at = bisect_left(starts, line_start) - 1
        while at >= 0 and defs[at][1] >= indent:
            at -= 1
        if at < 0:
            continue
        match = defs[at][2]
        opened = match.end() - 1
        closed = _closing(text, opened)
        if closed == -1 or closed > first or not names & set(_WORD.findall(text, opened, closed)):
            continue
        if at not in handed:
            handed[at] = _handed_an_element(text, match.group(1), match.start(1))
        if handed[at]:
            yield first


#: ``def`` and the function's name, up to its ``(`` (a literal first: found by fast search)
_DEF = re.compile(r"def[ \t]+(\w+)[ \t]*\(")
_WORD = re.compile(r"\b[A-Za-z_]\w*")
#: a line with a ``[`` that a ``:`` follows: it may hold a slice
_SLICE_LINE = re.compile(r"\[[^\n]*:")
#: a slice bound that is a name alone: before a ``:`` (after ``[`` or ``,``), or after one
_BARE_BOUND = re.compile(r"(?:^|,)[ \t]*([A-Za-z_]\w*)[ \t]*:|:[ \t]*([A-Za-z_]\w*)[ \t]*(?=[,:]|$)")
#: an argument that ends with an element of something (``sizes[0]``)
_ELEMENT_ARGUMENT = re.compile(r"\w[ \t]*\[[^\[\]\n]*\][ \t]*(?:[,)]|\\?$)")


def _handed_an_element(text: str, name: str, defined: int) -> bool:
    """Some call of ``name`` (not its ``def`` at ``defined``) has an argument, on the call's first
    line, that ends with an element of something (``sizes[0]``) or holds a 0-dim mark."""
    for end in word_ends(text, name):
        start = end - len(name)
        if start == defined:
            continue
        rest = CALL_REST.match(text, end)
        if rest is None:
            continue
        line_end = text.find("\n", end)
        arguments = text[rest.end() : len(text) if line_end == -1 else line_end]
        if ZERO_DIM_MARK.search(arguments) or _ELEMENT_ARGUMENT.search(arguments):
            return True
    return False


def _closing(text: str, opened: int) -> int:
    """The ``)`` that closes the ``(`` at ``opened`` (brackets counted, strings not), or -1."""
    depth = 0
    for bracket in _PARENS.finditer(text, opened):
        depth += 1 if bracket.group() in "([{" else -1
        if depth == 0:
            return bracket.start()
    return -1


_PARENS = re.compile(r"[()\[\]{}]")


#: a line that starts by binding a name alone to a value with a 0-dim mark (``n = mask.sum()``)
_ZERO_DIM_BINDING = re.compile(r"^[ \t]*(\w+)[ \t]*=(?!=)[^\n]*?" + ZERO_DIM_MARK.pattern, re.MULTILINE)


def _words(text: str, name: str) -> Iterator[int]:
    """Offsets of ``name`` as a whole word, not an attribute (``.n``) or a keyword (``n=``)."""
    for end in word_ends(text, name):
        start = end - len(name)
        if (start and text[start - 1] == ".") or (end < len(text) and is_word_char(text[end])):
            continue
        yield start


def _inside_brackets(text: str, offset: int) -> bool:
    """An unclosed ``[`` comes before ``offset`` on its line."""
    depth = 0
    at = offset - 1
    while at >= 0 and text[at] != "\n":
        if text[at] == "]":
            depth += 1
        elif text[at] == "[":
            if depth == 0:
                return True
            depth -= 1
        at -= 1
    return False


def _bracket_pairs(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """``(at, to)`` of each ``[`` between ``start`` and ``end`` (one line) and its ``]``."""
    opened: list[int] = []
    for bracket in _BRACKETS.finditer(text, start, end):
        at = bracket.start()
        if text[at] == "[":
            opened.append(at)
        elif opened:
            yield opened.pop(), at


def reads_a_bound_name(text: str, name_end: int) -> bool:
    """After a tensor read's name (``int``) at ``name_end``, a name alone in its parentheses that
    some line binds to a value a method call is written in (``int(total)`` after ``total =
    x.sum()``): what :func:`codemods.analysis.breaks.cst._reads_a_tensor` may read as a tensor."""
    match = TENSOR_READ_NAME.match(text, name_end)
    return match is not None and _bound_to(text, match.group(1), METHOD_CALL)


def _bound_to_a_mask(text: str, name: str) -> bool:
    """A line of ``text`` starts by binding ``name`` alone to what a bool tensor is written with
    (``keep = x > 0``)."""
    return _bound_to(text, name, BOOL_MARK)


def _bound_to(text: str, name: str, mark: re.Pattern[str]) -> bool:
    """A line of ``text`` starts by binding ``name`` alone to a value in which ``mark`` is found
    on that line: found by plain text search, which costs far less than a pattern tried at
    every word."""
    for probe in (f"{name} =", f"{name}="):
        at = text.find(probe)
        while at != -1:
            value = at + len(probe)
            end = text.find("\n", value)
            end = len(text) if end == -1 else end
            before = text[text.rfind("\n", 0, at) + 1 : at]
            if not before.strip() and not text.startswith("=", value) and mark.search(text, value, end):
                return True
            at = text.find(probe, at + 1)
    return False


_BRACKETS = re.compile(r"[\[\]]")


def _lines_from(text: str, pattern: re.Pattern[str]) -> Iterator[tuple[int, int]]:
    """(where the first match of ``pattern`` on a line starts, where its line ends), once per line."""
    line_end = -1
    for match in pattern.finditer(text):
        if match.start() < line_end:
            continue
        line_end = text.find("\n", match.start())
        if line_end == -1:
            line_end = len(text)
        yield match.start(), line_end


def _marked_brackets(text: str, start: int, end: int) -> Iterator[int]:
    """The ``[`` between ``start`` and ``end`` (one line) whose brackets hold a bool mark."""
    for first, last in _bracket_pairs(text, start, end):
        if BOOL_MARK.search(text, first + 1, last):
            yield first


#: a lambda's body does not run with the statement: a read there is left to the file's own analysis
_NOT_HERE = (ast.Lambda,)


def subscripts_on(stmt: ast.stmt, line: int) -> list[ast.Subscript]:
    """The subscripts by one index written as a mask may be, on ``line`` alone, that ``stmt``
    reads (``x[m]``, and ``x[m] += v``, which reads it first), not those it only stores to or
    deletes (``x[m] = v`` is an ``index_put``: no break)."""
    stored = set()
    if isinstance(stmt, ast.Assign):
        stored = {id(t) for target in stmt.targets for t in ast.walk(target) if isinstance(t, ast.Subscript)}
    elif isinstance(stmt, (ast.AnnAssign, ast.Delete)):
        targets = stmt.targets if isinstance(stmt, ast.Delete) else [stmt.target]
        stored = {id(t) for target in targets for t in ast.walk(target) if isinstance(t, ast.Subscript)}
    return [node for node in index_subscripts_on(stmt, line) if id(node) not in stored and _may_be_a_mask(node.slice)]


def index_subscripts_on(stmt: ast.stmt, line: int) -> list[ast.Subscript]:
    """Every subscript on ``line`` alone that ``stmt`` reads or stores to: storing through a
    slice by a tensor's value reads that value too (``x[:n] = 0``)."""
    found = []
    stack = list(expressions_of(stmt))
    while stack:
        node = stack.pop()
        if isinstance(node, _NOT_HERE):
            continue
        if isinstance(node, ast.Subscript) and node.lineno == node.end_lineno == line:
            found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return found


def _may_be_a_mask(index: ast.expr) -> bool:
    """``index`` is written as a bool tensor may be, whatever its kinds: a name, one comparison,
    ``~``/``&``/``|``/``^`` of such, a call of a bool method or function (as the file's analysis
    asks before its tensor inference: :func:`codemods.analysis.tensors.cst.may_be_bool_tensor`), or a
    call given ``dtype=torch.bool`` or a cast to it."""
    if isinstance(index, ast.Name):
        return True
    if isinstance(index, ast.Compare):
        return len(index.ops) == 1 and isinstance(index.ops[0], (ast.Lt, ast.Gt, ast.LtE, ast.GtE, ast.Eq, ast.NotEq))
    if isinstance(index, ast.UnaryOp):
        return isinstance(index.op, ast.Invert) and _may_be_a_mask(index.operand)
    if isinstance(index, ast.BinOp):
        bitwise = isinstance(index.op, (ast.BitAnd, ast.BitOr, ast.BitXor))
        return bitwise and _may_be_a_mask(index.left) and _may_be_a_mask(index.right)
    if not isinstance(index, ast.Call) or not isinstance(index.func, ast.Attribute):
        return False
    if index.func.attr in BOOL_METHODS | BOOL_FUNCTIONS:
        return True
    dtype = dtype_argument(index, index.func.attr)
    return dtype is not None and (dotted(dtype) or "").rpartition(".")[2] == "bool"


def runs_only_if_distinct(stmt: ast.stmt, node: ast.AST) -> Optional[tuple[str, str]]:
    """``(a, b)`` when ``stmt`` reads ``node`` only after ``a is b`` was found false: in an operand
    after ``a is b or`` or ``a is not b and`` (two plain names).

    Dynamo answers ``is`` while it traces, from the objects it was given: called with one tensor for
    both names, it never traces the operand, so a break there is taken only where a caller hands two
    different objects (measured on torch 2.13: ``a is b or torch.equal(a, b)`` in a loop compiles
    into one graph called ``(t, t)``, and the frame is skipped called ``(t, t.clone())`` or with
    tensors of different shapes). The libcst twin is
    :func:`codemods.analysis.breaks.cst._identity_before`, which the file's break analysis reads.
    """
    for part in expressions_of(stmt):
        for boolop in ast.walk(part):
            if not isinstance(boolop, ast.BoolOp):
                continue
            wanted = ast.Is if isinstance(boolop.op, ast.Or) else ast.IsNot
            for at, operand in enumerate(boolop.values[:-1]):
                pair = _identity_test(operand, wanted)
                if pair is not None and any(node is n for later in boolop.values[at + 1 :] for n in ast.walk(later)):
                    return pair
    return None


def _identity_test(test: ast.expr, wanted: type) -> Optional[tuple[str, str]]:
    """``(a, b)`` for ``a is b`` (``wanted`` ``ast.Is``) or ``a is not b`` (``ast.IsNot``), plain names."""
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], wanted)
        and isinstance(test.left, ast.Name)
        and isinstance(test.comparators[0], ast.Name)
    ):
        return test.left.id, test.comparators[0].id
    return None
