"""Small questions about Python's own syntax trees that every ``ast`` reader shares."""

from __future__ import annotations

import ast
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from typing import Optional

from codemods.analysis.names import class_like

#: the fields of a statement that hold statements (and handlers, match cases)
_BODIES = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})


def dotted(node: ast.AST) -> Optional[str]:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


#: capitalised names that are no class
_CONSTANT_NAMES = frozenset({"None", "True", "False"})


def classes_named(node: ast.AST, named: Mapping[str, set[str]]) -> set[str]:
    """The classes an expression names: a class-like name, a name ``named`` knows (a local
    ``cls = MoE if sparse else MLP``, a table ``TYPES = {"moe": MoE}``), either branch of a
    ternary, the values of a dict display, an item of a table of classes (``TYPES[kind]``)."""
    if isinstance(node, ast.Name):
        if node.id in _CONSTANT_NAMES:
            return set()
        return set(named.get(node.id, ())) or ({node.id} if class_like(node.id) else set())
    if isinstance(node, ast.IfExp):
        return classes_named(node.body, named) | classes_named(node.orelse, named)
    if isinstance(node, ast.Dict):
        values = [classes_named(value, named) for value in node.values]
        return set().union(*values) if values and all(values) else set()
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        return set(named.get(node.value.id, ()))
    return set()


def long_docstring(body: list[ast.stmt]) -> Optional[ast.Expr]:
    """The docstring opening ``body`` when it spans several lines (a one-line one is not worth blanking)."""
    first = body[0] if body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
        and (first.end_lineno or first.lineno) > first.lineno
    ):
        return first
    return None


def iterated_submodule(node: ast.AST) -> Optional[str]:
    """``attr`` of a loop over ``self.attr`` or a slice of it (``self.layers[: n]``): the
    submodules a loop variable takes."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        node = node.value
    source = dotted(node)
    if source and source.startswith("self.") and source.count(".") == 1:
        return source[5:]
    return None


def loop_submodule(loop: ast.AST) -> Optional[tuple[str, str]]:
    """``(variable, attr)`` of ``for v in self.attr`` (or a slice of it), and of
    ``for i, v in enumerate(self.attr)``: the loop variable that takes the submodules."""
    target, iterable = getattr(loop, "target", None), getattr(loop, "iter", None)
    if (
        isinstance(target, ast.Tuple)
        and len(target.elts) == 2
        and isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and iterable.func.id == "enumerate"
        and len(iterable.args) == 1
        and not iterable.keywords
    ):
        target, iterable = target.elts[1], iterable.args[0]
    if not isinstance(target, ast.Name) or iterable is None:
        return None
    attr = iterated_submodule(iterable)
    return (target.id, attr) if attr is not None else None


def expressions_of(stmt: ast.stmt) -> Iterable[ast.AST]:
    """The parts of a statement that are not statements themselves (headers, handler types…)."""
    for field in stmt._fields:
        value = getattr(stmt, field, None)
        if field in _BODIES:
            for item in value or ():
                if isinstance(item, ast.ExceptHandler) and item.type is not None:
                    yield item.type
                elif isinstance(item, ast.match_case):
                    yield item.pattern
                    if item.guard is not None:
                        yield item.guard
        elif isinstance(value, ast.AST):
            yield value
        elif isinstance(value, list):
            yield from (v for v in value if isinstance(v, ast.AST))


def normal(name: str) -> str:
    """Python reads identifiers in NFKC form; so does ``ast``."""
    return name if name.isascii() else unicodedata.normalize("NFKC", name)


#: what may come between a called name and its ``(``: blanks, backslash-newlines, comments, ``)``
TO_PAREN = r"(?:[\s\\)]|#[^\n]*)*+\("
#: what follows a called name up to its ``(`` (``CALL`` without the name)
CALL_REST = re.compile(TO_PAREN)


def is_word_char(char: str) -> bool:
    """What ``\\w`` matches in a ``str`` pattern."""
    return char.isalnum() or char == "_"


def word_ends(text: str, word: str) -> Iterator[int]:
    """Where each ``word`` in ``text`` that no identifier character comes before ends."""
    start = text.find(word)
    while start >= 0:
        if start == 0 or not is_word_char(text[start - 1]):
            yield start + len(word)
        start = text.find(word, start + 1)
