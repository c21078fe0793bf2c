"""Read-only traversals of a libcst tree, in libcst's own order, without rebuilding it.

libcst visits a node by rebuilding it: ``CSTNode.visit`` calls
``_visit_and_replace_children``, which constructs and validates a new node
even for a visitor that changes nothing (libcst marks this as a TODO). On
the files gbfix reads, a walk that does nothing costs as much as parsing,
and the analyses walk each tree many times (two metadata providers, the
break sites of every loop and block, the bindings of every function).

The order libcst visits a node's children in is the order of the keyword
arguments its ``_visit_and_replace_children`` passes to the constructor
(``Name(lpar=..., value=..., rpar=...)``): it is read once per node class
from that method's source. A class whose method does not have that shape
falls back to ``CSTNode.children``, which is libcst's own answer. Only
``visit_<Type>`` and ``leave_<Type>`` hooks run: a visitor with attribute
hooks (``visit_For_body``) is walked by libcst itself.
tests/test_walk.py requires the same sequence of nodes as libcst's visit
for every node of the golden corpus and of generated programs.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from contextlib import ExitStack
from operator import attrgetter
from typing import Callable, Iterable, Iterator, Optional, Sequence

import libcst as cst
import libcst._nodes.op as libcst_op
import libcst._nodes.whitespace as libcst_whitespace
from libcst.metadata import MetadataWrapper, ParentNodeProvider, QualifiedNameProvider
from libcst.metadata.name_provider import QualifiedNameVisitor


def node_types(*bases: type) -> frozenset[type]:
    """``bases`` and every class derived from them, for ``type(node) in node_types(...)``.

    libcst's node classes are ABCs, and ``isinstance`` with an ABC that is
    not the node's own class is a slow call; the hot walks ask by type
    instead. Classes derived after the call are not in the set.
    """
    found: set[type] = set()
    stack = list(bases)
    while stack:
        cls = stack.pop()
        if cls not in found:
            found.add(cls)
            stack.extend(cls.__subclasses__())
    return frozenset(found)


#: whitespace, comments, operators and brackets: nodes that hold only nodes of these kinds
TRIVIA = node_types(
    *(
        value
        for module in (libcst_op, libcst_whitespace)
        for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, cst.CSTNode) and value.__module__ == module.__name__
    ),
    cst.LeftParen,
    cst.RightParen,
    cst.LeftSquareBracket,
    cst.RightSquareBracket,
    cst.LeftCurlyBrace,
    cst.RightCurlyBrace,
)

#: the nodes a statement can be inside of (a simple line holds small statements only)
STATEMENT_HOLDERS = node_types(
    cst.Module,
    cst.BaseSuite,
    cst.BaseCompoundStatement,
    cst.ExceptHandler,
    cst.ExceptStarHandler,
    cst.Else,
    cst.Finally,
    cst.MatchCase,
)


def _visit_order(cls: type[cst.CSTNode]) -> Optional[tuple[str, ...]]:
    """The constructor keywords of ``cls._visit_and_replace_children``, in order; None: unknown shape."""
    try:
        source = textwrap.dedent(inspect.getsource(cls._visit_and_replace_children))
        method = ast.parse(source).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return None
    if not isinstance(method, ast.FunctionDef):
        return None
    last = method.body[-1]
    if isinstance(last, ast.Return) and isinstance(last.value, ast.Name) and last.value.id == "self":
        return ()  # a leaf: nothing is visited
    calls = [node for node in ast.walk(method) if isinstance(node, ast.Call) and _constructs(node.func, cls)]
    if len(calls) != 1 or calls[0].args:
        return None
    return tuple(keyword.arg for keyword in calls[0].keywords if keyword.arg is not None)


def _constructs(func: ast.expr, cls: type) -> bool:
    """``Name(...)`` in ``Name``'s method, or ``self.__class__(...)`` (shared by operator classes)."""
    if isinstance(func, ast.Name):
        return func.id == cls.__name__
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "__class__"
        and isinstance(func.value, ast.Name)
        and func.value.id == "self"
    )


#: type of an attribute's value -> NODE, SEQUENCE or neither (a string, None, a sentinel)
_NODE, _SEQUENCE, _OTHER = 1, 2, 0
_KIND: dict[type, int] = {tuple: _SEQUENCE, list: _SEQUENCE}


def _kind(value: object) -> int:
    kind = _KIND[type(value)] = _NODE if isinstance(value, cst.CSTNode) else _OTHER
    return kind


def _getter(cls: type) -> Optional[Callable[[cst.CSTNode], tuple]]:
    order = _visit_order(cls)
    if order is None:
        return None
    if not order:
        return lambda node: ()
    fetch = attrgetter(*order)
    return (lambda node: (fetch(node),)) if len(order) == 1 else fetch


#: node class -> what fetches its child-holding attributes in visiting order (None: ask libcst)
_GETTERS: dict[type, Optional[Callable[[cst.CSTNode], tuple]]] = {}


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """``node.children``, in the same order, without rebuilding ``node``."""
    cls = type(node)
    try:
        getter = _GETTERS[cls]
    except KeyError:
        getter = _GETTERS[cls] = _getter(cls)
    if getter is None:
        return list(node.children)
    found: list[cst.CSTNode] = []
    for value in getter(node):
        kind = _KIND.get(type(value))
        if kind is None:
            kind = _kind(value)
        if kind == _NODE:
            found.append(value)
        elif kind == _SEQUENCE:
            found.extend(value)
    return found


def visit(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """``node.visit(visitor)`` for a visitor that only reads: its ``on_visit`` decides what is entered."""
    if _hook_names(type(visitor)) is None:  # attribute hooks: only libcst's own walk calls those
        node.visit(visitor)
    else:
        _visit(node, visitor)


def _visit(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    if visitor.on_visit(node):
        for child in children(node):
            _visit(child, visitor)
    visitor.on_leave(node)


def descendants(node: cst.CSTNode, enter: Optional[Callable[[cst.CSTNode], bool]] = None) -> Iterator[cst.CSTNode]:
    """``node`` and what is under it, in visiting order; ``enter`` says whether to go below a node (default: always)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if enter is None or enter(current):
            stack.extend(reversed(children(current)))


def all_distinct(node: cst.CSTNode) -> bool:
    """Whether no node object appears twice under ``node`` (metadata is keyed by node)."""
    seen: set[int] = set()
    for current in descendants(node):
        if id(current) in seen:
            return False
        seen.add(id(current))
    return True


_NODE_NAMES = frozenset(
    name for name, value in vars(cst).items() if isinstance(value, type) and issubclass(value, cst.CSTNode)
)


def _has_attribute_hooks(cls: type) -> bool:
    """Whether ``cls`` defines a ``visit_<Type>_<attribute>`` or ``leave_<Type>_<attribute>`` hook.

    Only classes outside libcst are looked at (libcst's own are no-op stubs).
    """
    for klass in cls.__mro__:
        if klass.__module__.startswith("libcst.") or klass is object:
            continue
        for name in vars(klass):
            if name in ("on_visit_attribute", "on_leave_attribute"):
                return True
            if name.startswith(("visit_", "leave_")) and name.partition("_")[2] not in _NODE_NAMES:
                return True
    return False


#: visitor class -> its visit_/leave_ hook names (no-op stubs left out); None: it has attribute hooks
_HOOK_NAMES: dict[type, Optional[tuple[str, ...]]] = {}


def _hook_names(cls: type) -> Optional[tuple[str, ...]]:
    if cls not in _HOOK_NAMES:
        names = tuple(
            name
            for name in dir(cls)
            if name.startswith(("visit_", "leave_")) and not getattr(getattr(cls, name), "_is_no_op", False)
        )
        _HOOK_NAMES[cls] = None if _has_attribute_hooks(cls) else names
    return _HOOK_NAMES[cls]


def _hooks(visitors: Iterable[cst.BatchableCSTVisitor]) -> Optional[tuple[dict, dict]]:
    """visit_/leave_ hooks by node class name; None when some visitor has attribute hooks."""
    visits: dict[str, list[Callable[[cst.CSTNode], object]]] = {}
    leaves: dict[str, list[Callable[[cst.CSTNode], object]]] = {}
    for visitor in visitors:
        names = _hook_names(type(visitor))
        if names is None:
            return None
        for name in names:
            kind, _, target = name.partition("_")
            (visits if kind == "visit" else leaves).setdefault(target, []).append(getattr(visitor, name))
    return visits, leaves


def visit_batched(module: cst.Module, visitors: Sequence[cst.BatchableCSTVisitor]) -> None:
    """libcst's ``visit_batched`` for visitors that only read: one walk, every visitor's hooks."""
    hooks = _hooks(visitors)
    if hooks is None:
        cst.visit_batched(module, visitors)
        return
    visits, leaves = hooks
    # Whitespace and punctuation are most of a tree's nodes and hold nothing else:
    # unless a visitor asks for them, they are not walked into.
    unseen = frozenset(cls for cls in TRIVIA if cls.__name__ not in visits and cls.__name__ not in leaves)
    _walk_with_hooks(module, visits, leaves, unseen)


def _walk_with_hooks(
    node: cst.CSTNode, visits: dict[str, list[Callable]], leaves: dict[str, list[Callable]], unseen: frozenset[type]
) -> None:
    # Not a closure: a function that calls itself through its own cell is a reference
    # cycle, which would keep the walked tree alive until the cyclic collector runs.
    name = type(node).__name__
    for hook in visits.get(name, ()):
        hook(node)
    for child in children(node):
        if type(child) not in unseen:
            _walk_with_hooks(child, visits, leaves, unseen)
    for hook in leaves.get(name, ()):
        hook(node)


class ReadOnlyMetadataWrapper(MetadataWrapper):
    """A MetadataWrapper whose batchable providers are computed by :func:`visit_batched`."""

    def visit_batched(
        self,
        visitors: Iterable[cst.BatchableCSTVisitor],
        before_visit: Optional[Callable[[cst.CSTNode], None]] = None,
        after_leave: Optional[Callable[[cst.CSTNode], None]] = None,
    ) -> cst.CSTNode:
        if before_visit is not None or after_leave is not None:
            return super().visit_batched(visitors, before_visit, after_leave)
        visitors = list(visitors)
        with ExitStack() as stack:
            for visitor in visitors:
                stack.enter_context(visitor.resolve(self))
            visit_batched(self.module, visitors)
        return self.module


class ParentProvider(ParentNodeProvider):
    """libcst's ``ParentNodeProvider`` (each node's parent), from one read-only walk."""

    def visit_Module(self, node: cst.Module) -> None:
        stack: list[cst.CSTNode] = [node]
        while stack:
            parent = stack.pop()
            for child in children(parent):
                self.set_metadata(child, parent)
                stack.append(child)


class QualifiedNames(QualifiedNameProvider):
    """libcst's ``QualifiedNameProvider`` for expressions and definitions, its visitor run by :func:`visit`.

    Whitespace, punctuation and statements other than ``def`` and ``class``
    get no entry (asking for one gives the default): nobody asks what a
    comma refers to, and they are most of the nodes.
    """

    def visit_Module(self, node: cst.Module) -> None:
        visit(node, _NamedOnly(self))


_NAMED = node_types(cst.BaseExpression, cst.ClassDef, cst.FunctionDef)


class _NamedOnly(QualifiedNameVisitor):
    def on_visit(self, node: cst.CSTNode) -> bool:
        if type(node) in _NAMED:
            return super().on_visit(node)
        return type(node) not in TRIVIA  # whitespace and punctuation hold no names
