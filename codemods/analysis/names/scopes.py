"""Which names a dotted expression may stand for: ``t.nn.Linear`` is ``torch.nn.Linear``.

The break analysis asks this of every call that could be a catalogue entry,
and GBF003 of every context manager. libcst's ``QualifiedNameProvider``
answers it from ``ScopeProvider``, which costs two full walks
(``ExpressionContextProvider`` first) and records every access of every
name. What the rules need is smaller: for each scope, which names imports
bind (and to what) and which names anything else binds. One batched walk
collects that, and a name is resolved on demand by Python's rules:
innermost function scope first, class bodies seen only from their own
body, ``global``/``nonlocal`` obeyed, then the module, then builtins.

The answers follow ``QualifiedNameProvider``'s spelling, so the catalogue
and the configuration match the same strings: ``torch.compile`` through an
import, ``builtins.print``, ``Tracker`` for a module-level class,
``f.<locals>.x`` for a function's own binding, ``.mod.x`` for a relative
import.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field
from typing import Optional

import libcst as cst
from libcst import MetadataDependent
from libcst.helpers import get_full_name_for_node
from libcst.metadata import BatchableMetadataProvider

from codemods.analysis.names.bindings import target_names

_BUILTINS = frozenset(dir(builtins))


@dataclass
class Scope:
    """The bindings of one scope (module, class, function, lambda or comprehension)."""

    kind: str
    parent: Optional["Scope"]
    #: how names bound here are spelled: "" (module), "Cls.", "f.<locals>."
    prefix: str = ""
    #: name -> dotted paths imports bind it to
    imports: dict[str, set[str]] = field(default_factory=dict)
    #: names something other than an import binds here
    bound: set[str] = field(default_factory=set)
    declared_global: set[str] = field(default_factory=set)
    declared_nonlocal: set[str] = field(default_factory=set)

    def module(self) -> "Scope":
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope

    def names_for(self, dotted: str) -> set[str]:
        """What ``dotted`` (``a.b.c``, read in this scope) may refer to."""
        head, _, rest = dotted.partition(".")
        tail = f".{rest}" if rest else ""
        scope: Optional[Scope] = self
        own = True
        while scope is not None:
            if scope.kind == "class" and not own:
                scope = scope.parent  # a class body is not seen from the functions in it
                continue
            if head in scope.declared_global:
                scope, own = self.module(), False
                continue
            if head in scope.declared_nonlocal:
                scope, own = scope.parent, False
                continue
            if head in scope.imports or head in scope.bound:
                found = {path + tail for path in scope.imports.get(head, ())}
                if head in scope.bound:
                    found.add(scope.prefix + dotted)
                return found
            scope, own = scope.parent, False
        return {f"builtins.{dotted}"} if head in _BUILTINS else set()


def _module_path(node: Optional[cst.BaseExpression]) -> str:
    return (get_full_name_for_node(node) or "") if node is not None else ""


class ScopeTracker:
    """The scopes and bindings a walk passes through: ``self._scope`` is the one it is in.

    Its ``visit_``/``leave_`` methods are run by the batched walk of a
    provider that mixes it in (:class:`NameScopeProvider`, and the break
    analysis, which needs no second walk for the names it resolves).
    """

    def __init__(self) -> None:
        self._scope = Scope("module", None)

    # -- scopes -------------------------------------------------------------
    def _push(self, kind: str, prefix: str) -> None:
        self._scope = Scope(kind, self._scope, prefix)

    def _pop(self) -> None:
        assert self._scope.parent is not None
        self._scope = self._scope.parent

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._scope.bound.add(node.name.value)
        self._push("class", f"{self._scope.prefix}{node.name.value}.")

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._scope.bound.add(node.name.value)
        self._push("function", f"{self._scope.prefix}{node.name.value}.<locals>.")

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._pop()

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._push("function", f"{self._scope.prefix}<locals>.")  # libcst names a lambda's scope so

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self._pop()

    def _comprehension(self) -> None:
        self._push("comprehension", self._scope.prefix)

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self._comprehension()

    def visit_SetComp(self, node: cst.SetComp) -> None:
        self._comprehension()

    def visit_DictComp(self, node: cst.DictComp) -> None:
        self._comprehension()

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> None:
        self._comprehension()

    def leave_ListComp(self, original_node: cst.ListComp) -> None:
        self._pop()

    def leave_SetComp(self, original_node: cst.SetComp) -> None:
        self._pop()

    def leave_DictComp(self, original_node: cst.DictComp) -> None:
        self._pop()

    def leave_GeneratorExp(self, original_node: cst.GeneratorExp) -> None:
        self._pop()

    # -- bindings -----------------------------------------------------------
    def _bind(self, target: cst.CSTNode) -> None:
        for name in target_names(target):
            self._binding_scope(name).bound.add(name)

    def _binding_scope(self, name: str) -> Scope:
        """Where a binding of ``name`` here lands: ``global``/``nonlocal`` move it."""
        scope = self._scope
        if name in scope.declared_global:
            return scope.module()
        if name in scope.declared_nonlocal:
            outer = scope.parent
            while outer is not None and outer.parent is not None:
                if outer.kind == "function" and name in outer.bound | set(outer.imports):
                    return outer
                outer = outer.parent
        return scope

    def visit_Param(self, node: cst.Param) -> None:
        self._scope.bound.add(node.name.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._bind(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        scope = self._scope
        while scope.kind == "comprehension" and scope.parent is not None:
            scope = scope.parent  # `:=` in a comprehension binds in the enclosing function
        scope.bound.update(target_names(node.target))

    def visit_For(self, node: cst.For) -> None:
        self._bind(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._bind(node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._bind(node.asname.name)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self._bind(node.name.name)

    def visit_ExceptStarHandler(self, node: cst.ExceptStarHandler) -> None:
        if node.name is not None:
            self._bind(node.name.name)

    def visit_Del(self, node: cst.Del) -> None:
        self._bind(node.target)

    def visit_MatchAs(self, node: cst.MatchAs) -> None:
        if node.name is not None:
            self._bind(node.name)

    def visit_MatchStar(self, node: cst.MatchStar) -> None:
        if node.name is not None:
            self._bind(node.name)

    def visit_MatchMapping(self, node: cst.MatchMapping) -> None:
        if node.rest is not None:
            self._bind(node.rest)

    def visit_Global(self, node: cst.Global) -> None:
        self._scope.declared_global.update(item.name.value for item in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self._scope.declared_nonlocal.update(item.name.value for item in node.names)

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            path = _module_path(alias.name)
            if alias.asname is not None:
                self._import(target_names(alias.asname.name), path)
            else:
                head = path.split(".", 1)[0]
                self._import([head], head)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar):
            return
        base = "." * len(node.relative) + _module_path(node.module)
        for alias in node.names:
            name = _module_path(alias.name)
            path = f"{base}.{name}" if base and not base.endswith(".") else f"{base}{name}"
            bound = target_names(alias.asname.name) if alias.asname is not None else [name]
            self._import(bound, path)

    def _import(self, names: list[str], path: str) -> None:
        for name in names:
            self._binding_scope(name).imports.setdefault(name, set()).add(path)


class NameScopeProvider(ScopeTracker, BatchableMetadataProvider[Scope]):
    """Maps each ``Name``, ``Attribute`` and ``Call`` to the :class:`Scope` it is read in."""

    def __init__(self, cache: object = None) -> None:
        BatchableMetadataProvider.__init__(self, cache)
        ScopeTracker.__init__(self)

    def visit_Name(self, node: cst.Name) -> None:
        self.set_metadata(node, self._scope)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.set_metadata(node, self._scope)

    def visit_Call(self, node: cst.Call) -> None:
        self.set_metadata(node, self._scope)


def qualified_names(dependent: MetadataDependent, node: cst.CSTNode) -> set[str]:
    """What ``node`` (a name, a dotted attribute chain, or a call of one) may refer to.

    Needs :class:`NameScopeProvider` among ``dependent``'s dependencies.
    """
    return names_in(dependent.get_metadata(NameScopeProvider, node, None), node)


def manager_names(dependent: MetadataDependent, item: cst.WithItem) -> set[str]:
    """What the manager of a ``with`` item may refer to (``m(...)`` stands for ``m``)."""
    expr = item.item
    target = expr.func if isinstance(expr, cst.Call) else expr
    return qualified_names(dependent, target) or qualified_names(dependent, expr)


def names_in(scope: Optional[Scope], node: cst.CSTNode) -> set[str]:
    """What ``node``, read in ``scope``, may refer to."""
    # As libcst spells it: `x.norm().item` is `x.norm.item`, a call stands for its function.
    dotted = get_full_name_for_node(node)
    if scope is None or dotted is None:
        return set()
    return scope.names_for(dotted)
