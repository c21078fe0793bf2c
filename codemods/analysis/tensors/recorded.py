"""What a recorded run proves to be a tensor: the names whose values Dynamo read on the line
where it broke.

A run's graph break names its kind. Two kinds say what the code at their
line held, whatever the static inference can show:

* :data:`TRUTH` (Dynamo's "Data-dependent branching"): the ``if``/``while``
  test, ternary or comprehension filter there is the truth of a tensor;
* :data:`VALUE` ("Unsupported Tensor.item() call"): the ``int()``,
  ``float()``, ``bool()``, ``complex()``, ``.item()`` or ``.tolist()`` there
  reads a tensor.

So ``if flag:`` that broke this way says ``flag`` is a tensor, and
``n = int(self.count)`` says ``self.count`` is one, though ``flag`` came
out of another package and ``self.count`` was never annotated. The
function's tensor inference (:class:`~codemods.analysis.tensors.cst.TensorFacts`)
takes such a name as a tensor, joined with its bindings like any other
evidence, and reads the rest of the function with it: another ``if flag:``
that the run never reached (its frame was already skipped) is a break too.

Only a name or a dotted name (``self.mask``) read directly is evidence:
``mask.any()``, ``n > 0`` and ``not flag`` are looked through to it.
Where the statement holds more than one such read (``if a and b:``), the run
does not say which one broke, and nothing is taken.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from typing import Optional

from codemods.analysis.astnodes import dotted
from codemods.analysis.tensors.cst import TENSOR_METHODS, function_key

#: a recorded break that read a tensor's truth (the kind a run's record is mapped to)
TRUTH = "truth"
#: a recorded break that read a value out of a tensor
VALUE = "value"

#: builtins that read a value out of a tensor (``Tensor.__int__`` …, an ``.item()`` to Dynamo)
_VALUE_BUILTINS = frozenset({"int", "float", "bool", "complex"})
#: tensor methods that read values out
_VALUE_METHODS = frozenset({"item", "tolist"})
_ORDERING = (ast.Lt, ast.Gt, ast.LtE, ast.GtE, ast.Eq, ast.NotEq)
#: statements whose bodies are statements of their own: only their header is on their line
_COMPOUND = (
    ast.For,
    ast.AsyncFor,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.ClassDef,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
)


def recorded_tensors(text: str, reads: Iterable[tuple[int, str]]) -> dict[str, frozenset[str]]:
    """Function key -> the names a run's breaks, ``(statement line, TRUTH or VALUE)``, read as
    tensors in ``text``. Lines that hold no such read, or more than one, give nothing."""
    wanted: dict[int, set[str]] = {}
    for line, read in reads:
        if read in (TRUTH, VALUE):
            wanted.setdefault(line, set()).add(read)
    if not wanted:
        return {}
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    found: dict[str, set[str]] = {}
    for key, stmt in _statements(tree):
        for read in wanted.get(stmt.lineno, ()):
            subjects = set(_subjects(stmt, read))
            if len(subjects) == 1 and "" not in subjects:
                found.setdefault(key, set()).update(subjects)
    return {key: frozenset(names) for key, names in found.items()}


def _statements(tree: ast.Module) -> Iterator[tuple[str, ast.stmt]]:
    """(function key, statement) for every statement in a function, nested blocks included."""
    stack: list[tuple[ast.AST, Optional[str], Optional[str]]] = [(tree, None, None)]
    while stack:
        node, key, cls = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                stack.append((child, function_key(child.name, cls), None))
            elif isinstance(child, ast.ClassDef):
                stack.append((child, None, child.name))
            elif isinstance(child, ast.stmt):
                if key is not None:
                    yield key, child
                stack.append((child, key, None))


def _subjects(stmt: ast.stmt, read: str) -> Iterator[str]:
    """The names ``stmt``'s own line reads as tensors, for a break of kind ``read``."""
    for test in _truth_tests(stmt) if read == TRUTH else _value_reads(stmt):
        subject = _subject(test)
        if subject is None:
            yield ""  # a read the run may have broken on, of no name: the line is ambiguous
        else:
            yield subject


def _truth_tests(stmt: ast.stmt) -> Iterator[ast.expr]:
    """The expressions whose truth ``stmt`` reads on its first line: an ``if``/``while`` test,
    and the ternaries, comprehension filters and ``not`` operands of its simple parts."""
    if isinstance(stmt, (ast.If, ast.While)):
        yield stmt.test
        return
    if isinstance(stmt, _COMPOUND):
        return
    for node in _own_expressions(stmt):
        if isinstance(node, ast.IfExp):
            yield node.test
        elif isinstance(node, ast.comprehension):
            yield from node.ifs
        elif isinstance(node, ast.BoolOp):
            yield node  # ``a and b`` as a value: which operand broke is not known
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            yield node.operand


def _value_reads(stmt: ast.stmt) -> Iterator[ast.expr]:
    """What ``int(x)``/``float(x)``/``x.item()``/``x.tolist()`` in ``stmt`` read (``x``)."""
    if isinstance(stmt, (ast.If, ast.While)):
        nodes: Iterable[ast.AST] = ast.walk(stmt.test)
    elif isinstance(stmt, _COMPOUND):
        return
    else:
        nodes = _own_expressions(stmt)
    for node in nodes:
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in _VALUE_BUILTINS and len(node.args) == 1 and not node.keywords:
            yield node.args[0]
        elif isinstance(func, ast.Attribute) and func.attr in _VALUE_METHODS and not node.args:
            yield func.value


def _own_expressions(stmt: ast.stmt) -> Iterator[ast.AST]:
    """The expressions of a simple statement, lambdas aside (their bodies run when called)."""
    stack: list[ast.AST] = [stmt]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(child for child in ast.iter_child_nodes(node) if not isinstance(child, ast.Lambda))


def _subject(expr: ast.expr) -> Optional[str]:
    """The name (or dotted name) whose tensor ``expr``'s truth or value is: ``flag``, ``self.mask``
    in ``self.mask.any()``, ``n`` in ``n > 0`` and in ``not n``; None when it is no one name."""
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        return _subject(expr.operand)
    if isinstance(expr, ast.Compare):
        if len(expr.ops) != 1 or not isinstance(expr.ops[0], _ORDERING):
            return None
        left, right = expr.left, expr.comparators[0]
        if isinstance(right, ast.Constant) and isinstance(right.value, (int, float)):
            return _subject(left)
        if isinstance(left, ast.Constant) and isinstance(left.value, (int, float)):
            return _subject(right)
        return None
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
        method = expr.func.attr
        if method in TENSOR_METHODS or (method in _VALUE_METHODS and not expr.args):
            return _subject(expr.func.value)
        return None
    name = dotted(expr)
    if name is None or name in ("True", "False", "None"):
        return None
    return name
