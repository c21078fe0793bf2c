"""Binding analysis shared by the rules that move code into helpers.

Moving statements into a nested function changes which scope their names
live in. To keep eager behaviour exactly, a rule must know, for a block of
statements and the function around it: which names the block binds, which it
reads, which are declared ``global``/``nonlocal``, and whether control leaves
the block (``return``, ``break``, ``continue``, ``yield``, ``await``).

Everything here looks at one function scope: bodies of nested functions,
lambdas and classes are entered only to collect the names they read (they may
close over the block's names), never their bindings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Iterator, Optional, Sequence, Union, cast

import libcst as cst

from codemods.analysis.nodes import NESTED_SCOPES, OwnScopeOnly, body_statements, dotted_name
from codemods.fastcst import walk


def target_names(target: cst.CSTNode) -> list[str]:
    """Names an assignment target binds (attributes and subscripts bind none)."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in target_names(element.value)]
    if isinstance(target, cst.StarredElement):
        return target_names(target.value)
    return []


def module_bound_names(module: cst.Module) -> set[str]:
    """Every name the module binds, at any depth and in any scope: assignments, loops,
    definitions, parameters, ``as`` names, imports (``import a.b`` binds ``a``); ``*`` stands
    for a star import, which may bind any name."""
    found: set[str] = set()
    # whitespace and punctuation bind nothing
    for node in walk.descendants(module, lambda node: type(node) not in walk.TRIVIA):
        kind = type(node)
        if kind in (cst.FunctionDef, cst.ClassDef):
            found.add(node.name.value)  # type: ignore[attr-defined]
        elif kind is cst.Param:
            found.add(node.name.value)  # type: ignore[attr-defined]
        elif kind is cst.AssignTarget:
            found.update(target_names(node.target))  # type: ignore[attr-defined]
        elif kind in (cst.AnnAssign, cst.AugAssign, cst.NamedExpr):
            found.update(target_names(node.target))  # type: ignore[attr-defined]
        elif kind in (cst.For, cst.CompFor):
            found.update(target_names(node.target))  # type: ignore[attr-defined]
        elif kind is cst.AsName:
            found.update(target_names(node.name))  # type: ignore[attr-defined]
        elif kind is cst.ImportAlias and node.asname is None:  # type: ignore[attr-defined]
            found.add((dotted_name(node.name) or "").split(".")[0])  # type: ignore[attr-defined]
        elif kind is cst.ImportStar:
            found.add("*")
    return found


def rebinding(module: cst.Module, name: str) -> str:
    """Why ``name`` may not be the builtin anywhere in ``module`` (it binds the name, or has a star
    import, which may: ``from torch import *`` binds ``bool`` and ``int`` to dtypes), or ""."""
    bound = module_bound_names(module)
    if name in bound:
        return f"this file binds the name `{name}` to something else"
    if "*" in bound:
        return f"a star import in this file may bind the name `{name}` (`from torch import *` does)"
    return ""


@dataclass
class NameUse:
    """Names bound and read at one scope level, plus reads from nested scopes."""

    bound: set[str] = field(default_factory=set)
    read: set[str] = field(default_factory=set)
    #: names read inside nested functions/lambdas (closures may outlive a call)
    closure_read: set[str] = field(default_factory=set)
    global_decl: set[str] = field(default_factory=set)
    nonlocal_decl: set[str] = field(default_factory=set)


class _NameVisitor(cst.CSTVisitor):
    def __init__(self, use: NameUse, exclude: Iterable[cst.CSTNode] = ()) -> None:
        self.use = use
        self.excluded = {id(node) for node in exclude}
        self.nested = 0
        #: depth inside helpers gbfix generated; they run where they are defined
        self.generated = 0

    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self.excluded or type(node) in walk.TRIVIA:
            return False  # whitespace and punctuation bind and read nothing
        return super().on_visit(node)

    @property
    def at_level(self) -> bool:
        """True while visiting code of the analysed scope itself."""
        return not self.nested and not self.generated

    # -- binding positions --------------------------------------------------
    def _bind_target(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            if self.at_level:
                self.use.bound.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind_target(element.value)
        elif isinstance(target, cst.StarredElement):
            self._bind_target(target.value)
        else:
            walk.visit(target, self)

    def visit_Assign(self, node: cst.Assign) -> bool:
        for target in node.targets:
            self._bind_target(target.target)
        walk.visit(node.value, self)
        return False

    def visit_AugAssign(self, node: cst.AugAssign) -> bool:
        if isinstance(node.target, cst.Name):
            self._read(node.target.value)
        self._bind_target(node.target)
        walk.visit(node.value, self)
        return False

    def visit_AnnAssign(self, node: cst.AnnAssign) -> bool:
        self._bind_target(node.target)
        walk.visit(node.annotation, self)
        if node.value is not None:
            walk.visit(node.value, self)
        return False

    def visit_For(self, node: cst.For) -> bool:
        self._bind_target(node.target)
        for part in (node.iter, node.body, node.orelse):
            if part is not None:
                walk.visit(part, self)
        return False

    def visit_WithItem(self, node: cst.WithItem) -> bool:
        walk.visit(node.item, self)
        if node.asname is not None:
            self._bind_target(node.asname.name)
        return False

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> bool:
        if node.type is not None:
            walk.visit(node.type, self)
        if node.name is not None:
            self._bind_target(node.name.name)
        walk.visit(node.body, self)
        return False

    def visit_ExceptStarHandler(self, node: cst.ExceptStarHandler) -> bool:
        walk.visit(node.type, self)
        if node.name is not None:
            self._bind_target(node.name.name)
        walk.visit(node.body, self)
        return False

    def visit_NamedExpr(self, node: cst.NamedExpr) -> bool:
        # A walrus inside a comprehension binds in the enclosing function.
        self._bind_target(node.target)
        walk.visit(node.value, self)
        return False

    def visit_Del(self, node: cst.Del) -> bool:
        self._bind_target(node.target)
        return False

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            if alias.asname is not None:
                self._bind_target(alias.asname.name)
            elif self.at_level:
                self.use.bound.add((dotted_name(alias.name) or "").split(".")[0])
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if isinstance(node.names, cst.ImportStar):
            return False
        for alias in node.names:
            name = alias.asname.name if alias.asname is not None else alias.name
            if isinstance(name, cst.Name) and self.at_level:
                self.use.bound.add(name.value)
        return False

    def visit_Global(self, node: cst.Global) -> bool:
        if self.at_level:
            self.use.global_decl.update(n.name.value for n in node.names)
        return False

    def visit_Nonlocal(self, node: cst.Nonlocal) -> bool:
        if self.at_level:
            self.use.nonlocal_decl.update(n.name.value for n in node.names)
        return False

    def visit_MatchAs(self, node: cst.MatchAs) -> None:
        if node.name is not None:
            self._bind_target(node.name)

    def visit_MatchStar(self, node: cst.MatchStar) -> None:
        if node.name is not None:
            self._bind_target(node.name)

    def visit_MatchMapping(self, node: cst.MatchMapping) -> None:
        if node.rest is not None:
            self._bind_target(node.rest)

    # -- nested scopes --------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if self.at_level:
            self.use.bound.add(node.name.value)
        for decorator in node.decorators:
            walk.visit(decorator, self)
        walk.visit(node.params, self)
        if node.returns is not None:
            walk.visit(node.returns, self)
        if is_generated(node.name.value):
            self.generated += 1
            walk.visit(node.body, self)
            self.generated -= 1
        else:
            self.nested += 1
            walk.visit(node.body, self)
            self.nested -= 1
        return False

    def visit_Param(self, node: cst.Param) -> bool:
        # Defaults and annotations are evaluated in the enclosing scope.
        if node.default is not None:
            walk.visit(node.default, self)
        if node.annotation is not None:
            walk.visit(node.annotation, self)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        walk.visit(node.params, self)
        self.nested += 1
        walk.visit(node.body, self)
        self.nested -= 1
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        if self.at_level:
            self.use.bound.add(node.name.value)
        for part in (*node.decorators, *node.bases, *node.keywords):
            walk.visit(part, self)
        self.nested += 1
        walk.visit(node.body, self)
        self.nested -= 1
        return False

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> bool:
        # Only its first iterable is evaluated where it is written; the rest runs when it is
        # consumed, maybe after the loop that made it: that is a closure's read.
        walk.visit(node.for_in.iter, self)
        self.nested += 1
        walk.visit(node.elt, self)
        for cond in node.for_in.ifs:
            walk.visit(cond, self)
        if node.for_in.inner_for_in is not None:
            walk.visit(node.for_in.inner_for_in, self)
        self.nested -= 1
        return False

    def visit_CompFor(self, node: cst.CompFor) -> bool:
        # Comprehension targets are local to the comprehension.
        walk.visit(node.iter, self)
        for cond in node.ifs:
            walk.visit(cond, self)
        if node.inner_for_in is not None:
            walk.visit(node.inner_for_in, self)
        return False

    # -- reads ----------------------------------------------------------------
    def visit_Attribute(self, node: cst.Attribute) -> bool:
        walk.visit(node.value, self)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        walk.visit(node.value, self)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self._read(node.value)

    def _read(self, name: str) -> None:
        if self.nested:
            self.use.closure_read.add(name)
        else:
            self.use.read.add(name)


GENERATED_PREFIX = "_gbfix_"


def is_generated(name: str) -> bool:
    """Names gbfix itself made: helpers called right where they are defined."""
    return name.startswith(GENERATED_PREFIX)


def name_use(nodes: Iterable[cst.CSTNode]) -> NameUse:
    use = NameUse()
    visitor = _NameVisitor(use)
    for node in nodes:
        walk.visit(node, visitor)
    return use


def function_scope_use(func: cst.FunctionDef, *exclude: cst.CSTNode) -> NameUse:
    """Names of a function's own scope, parameters included, ignoring the nodes ``exclude``."""
    use = NameUse()
    walk.visit(func.body, _NameVisitor(use, exclude))
    params = func.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        use.bound.add(param.name.value)
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            use.bound.add(star.name.value)
    return use


def private_elsewhere(func: cst.FunctionDef, stmt: cst.CSTNode, name: str) -> bool:
    """Whether no code of ``func`` outside ``stmt`` can see a value ``stmt`` binds to ``name``.

    Every read of ``name`` elsewhere lies in a loop or ``if`` (not around
    ``stmt``) that binds it afresh before reading it (its target, or its body:
    see :func:`bound_afresh`); no closure reads it, no ``global``/``nonlocal``
    names it. Two loops that reuse a variable or a temporary (``for i in
    ...`` twice) then each keep their own.
    """
    covered: list[cst.CSTNode] = []
    # an `if` outside every loop of the function runs one branch: the others never see `stmt`'s value
    in_loops = {
        id(inner)
        for loop in walk.descendants(func.body, lambda node: type(node) not in NESTED_SCOPES)
        if type(loop) in (cst.For, cst.While)
        for inner in walk.descendants(loop, lambda node: type(node) not in NESTED_SCOPES)
        if type(inner) is cst.If
    }

    def enter(node: cst.CSTNode) -> bool:
        if node is stmt or type(node) in NESTED_SCOPES:
            return False
        if type(node) in (cst.For, cst.While, cst.If) and not _holds(node, stmt):
            if _compound_afresh(cast(cst.BaseStatement, node), name):
                covered.append(node)
                return False
        if isinstance(node, cst.If) and id(node) not in in_loops and _holds(node, stmt):
            covered.extend(part for part in (node.body, node.orelse) if part is not None and not _holds(part, stmt))
        return True

    for _ in walk.descendants(func.body, enter):
        pass
    rest = function_scope_use(func, stmt, *covered)
    return not (
        name in rest.read or name in rest.closure_read or name in rest.global_decl or name in rest.nonlocal_decl
    )


def _holds(node: cst.CSTNode, inner: cst.CSTNode) -> bool:
    return any(found is inner for found in walk.descendants(node))


# -- control flow --------------------------------------------------------------


@dataclass
class Exits:
    """How control can leave a block, not counting nested functions."""

    returns: bool = False
    yields: bool = False
    awaits: bool = False
    #: ``break``/``continue`` that target the loop the block belongs to
    breaks: bool = False
    continues: bool = False


class _ExitVisitor(OwnScopeOnly, cst.CSTVisitor):
    def __init__(self, exits: Exits) -> None:
        self.exits = exits
        self.loop_depth = 0

    def visit_For(self, node: cst.For) -> bool:
        if node.asynchronous is not None:
            self.exits.awaits = True
        walk.visit(node.iter, self)
        self.loop_depth += 1
        walk.visit(node.body, self)
        self.loop_depth -= 1
        if node.orelse is not None:
            walk.visit(node.orelse, self)
        return False

    def visit_While(self, node: cst.While) -> bool:
        walk.visit(node.test, self)
        self.loop_depth += 1
        walk.visit(node.body, self)
        self.loop_depth -= 1
        if node.orelse is not None:
            walk.visit(node.orelse, self)
        return False

    def visit_Return(self, node: cst.Return) -> None:
        self.exits.returns = True

    def visit_Yield(self, node: cst.Yield) -> None:
        self.exits.yields = True

    def visit_Await(self, node: cst.Await) -> None:
        self.exits.awaits = True

    def visit_With(self, node: cst.With) -> None:
        if node.asynchronous is not None:
            self.exits.awaits = True

    def visit_Break(self, node: cst.Break) -> None:
        if not self.loop_depth:
            self.exits.breaks = True

    def visit_Continue(self, node: cst.Continue) -> None:
        if not self.loop_depth:
            self.exits.continues = True


def exits_of(nodes: Sequence[cst.CSTNode]) -> Exits:
    exits = Exits()
    visitor = _ExitVisitor(exits)
    for node in nodes:
        walk.visit(node, visitor)
    return exits


class ReplaceLoopControl(OwnScopeOnly, cst.CSTTransformer):
    """Turns ``continue`` (of the loop being moved) into ``return``.

    Nested loops and nested functions keep their own ``continue``.
    """

    def __init__(self) -> None:
        self.depth = 0

    # Only a nested loop's body is its own: a ``continue`` in its ``else``
    # belongs to the loop being moved.
    def visit_For_body(self, node: cst.For) -> None:
        self.depth += 1

    def leave_For_body(self, node: cst.For) -> None:
        self.depth -= 1

    def visit_While_body(self, node: cst.While) -> None:
        self.depth += 1

    def leave_While_body(self, node: cst.While) -> None:
        self.depth -= 1

    def leave_Continue(self, original_node: cst.Continue, updated_node: cst.Continue) -> cst.BaseSmallStatement:
        if self.depth:
            return updated_node
        return cst.Return(semicolon=updated_node.semicolon)


def first_unconditional_binding(body: Sequence[cst.BaseStatement], name: str) -> int | None:
    """Index of the top-level statement that binds ``name`` before anything reads it.

    Returns None when the first statement mentioning ``name`` reads it, or
    binds it only conditionally (inside ``if``/``try``/a loop). A statement
    before it may end the trip (``continue``, ``break``): that trip never
    reads the name, and the next one binds it again before reading it.
    """
    for index, stmt in enumerate(body):
        if not _mentions([stmt], name):
            continue
        if not isinstance(stmt, cst.SimpleStatementLine):
            return None
        # Within one line, every small statement before the binding must not read it.
        for small in stmt.body:
            small_use = name_use([small])
            if name in small_use.read or name in small_use.closure_read:
                return None
            if name in small_use.bound:
                # A bare annotation (``name: int``) declares the name but assigns nothing.
                assigns = isinstance(small, cst.Assign) or (
                    isinstance(small, cst.AnnAssign) and small.value is not None
                )
                return index if assigns else None
        return None
    return None


def bound_afresh(body: Sequence[cst.BaseStatement], name: str) -> bool:
    """Whether every read of ``name`` in ``body`` sees a value ``body`` bound on the same pass.

    As :func:`first_unconditional_binding`, and also when the one statement
    that mentions the name is a loop whose target binds it or whose body binds
    it afresh, or an ``if`` each branch of which does (its test reads nothing
    of it): no read can see a value from an earlier pass. A ``for``'s
    iterable and a loop's ``else`` count as mentions outside. The first
    statement that mentions the name may also be an ``if``/``else`` that binds
    it on every branch, with reads after it.
    """
    if first_unconditional_binding(body, name) is not None:
        return True
    holders = [stmt for stmt in body if _mentions([stmt], name)]
    if holders and _binds_on_every_path(holders[0], name):
        return True  # `if c: s = a` / `else: s = b`, then reads of `s`
    return len(holders) == 1 and _compound_afresh(holders[0], name)


def _binds_on_every_path(stmt: cst.BaseStatement, name: str) -> bool:
    """Whether ``stmt``, an ``if`` with an ``else``, binds ``name`` on every branch before
    anything there reads it (and its tests read nothing of it)."""
    if not isinstance(stmt, cst.If) or _mentions([stmt.test], name):
        return False
    if not _block_binds(body_statements(stmt.body), name):
        return False
    orelse = stmt.orelse
    if isinstance(orelse, cst.If):
        return _binds_on_every_path(orelse, name)
    return isinstance(orelse, cst.Else) and _block_binds(body_statements(orelse.body), name)


def _block_binds(body: Sequence[cst.BaseStatement], name: str) -> bool:
    """Whether ``body`` binds ``name`` on every path before reading it."""
    if first_unconditional_binding(body, name) is not None:
        return True
    mentions = [stmt for stmt in body if _mentions([stmt], name)]
    return bool(mentions) and _binds_on_every_path(mentions[0], name)


def _mentions(nodes: Sequence[cst.CSTNode], name: str) -> bool:
    use = name_use(nodes)
    return name in use.bound or name in use.read or name in use.closure_read


def _compound_afresh(stmt: cst.BaseStatement, name: str) -> bool:
    if isinstance(stmt, cst.For):
        if _mentions([stmt.iter], name) or (stmt.orelse is not None and _mentions([stmt.orelse], name)):
            return False
        return name in target_names(stmt.target) or bound_afresh(body_statements(stmt.body), name)
    if isinstance(stmt, cst.While):
        if _mentions([stmt.test], name) or (stmt.orelse is not None and _mentions([stmt.orelse], name)):
            return False
        return bound_afresh(body_statements(stmt.body), name)
    if isinstance(stmt, cst.If):
        if _mentions([stmt.test], name):
            return False
        if _mentions([stmt.body], name) and not bound_afresh(body_statements(stmt.body), name):
            return False
        orelse = stmt.orelse
        if isinstance(orelse, cst.If):
            return not _mentions([orelse], name) or _compound_afresh(orelse, name)
        if isinstance(orelse, cst.Else) and _mentions([orelse.body], name):
            return bound_afresh(body_statements(orelse.body), name)
        return True
    return False


class DropAnnotations(OwnScopeOnly, cst.CSTTransformer):
    """Removes the annotations of ``names`` from code moved into a helper.

    A helper that declares a name ``nonlocal`` or ``global`` may not annotate
    it (a SyntaxError), and moved code can: a user's ``t: int = 0``, or the
    ``t: object`` declaration an earlier rewrite of an inner loop left. In a
    function, annotations of local names are never evaluated, so ``t: int =
    v`` becomes ``t = v`` and a bare ``t: int`` goes, with no change in what
    the code does. Nested scopes keep theirs.
    """

    def __init__(self, names: Iterable[str]) -> None:
        self.names = frozenset(names)

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> Union[cst.SimpleStatementLine, cst.RemovalSentinel]:
        body: list[cst.BaseSmallStatement] = []
        for small in updated_node.body:
            if not (
                isinstance(small, cst.AnnAssign)
                and isinstance(small.target, cst.Name)
                and small.target.value in self.names
            ):
                body.append(small)
            elif small.value is not None:
                body.append(cst.Assign([cst.AssignTarget(small.target)], small.value, semicolon=small.semicolon))
        if len(body) == len(updated_node.body) and all(a is b for a, b in zip(body, updated_node.body, strict=False)):
            return updated_node
        # An emptied block is printed as ``pass``.
        return updated_node.with_changes(body=body) if body else cst.RemoveFromParent()


def local_declaration(name: str) -> cst.SimpleStatementLine:
    """``name: object``: makes ``name`` local to the function without assigning it.

    A nested helper's ``nonlocal name`` needs a binding in the enclosing
    function. A bare annotation is one, and local annotations are never
    evaluated, so code that reads ``name`` where nothing bound it still
    raises ``UnboundLocalError``/``NameError`` as it did before the move.
    """
    return cst.SimpleStatementLine(
        [cst.AnnAssign(target=cst.Name(name), annotation=cst.Annotation(cst.Name("object")), value=None)]
    )


class _HelperNonlocals(cst.CSTVisitor):
    """Names the generated helpers defined in one function's scope declare ``nonlocal``."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if is_generated(node.name.value):
            self.names |= name_use([node.body]).nonlocal_decl
        return False  # deeper helpers answer to their own parent

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False


class DeclareHelperNonlocals(cst.CSTTransformer):
    """Gives every ``nonlocal`` of a generated helper a binding in its parent.

    Each rewrite plans on its own statement: a name it shares with another
    statement that also binds it becomes ``nonlocal`` with no declaration,
    relying on that other binding. When the other statement is moved into a
    helper too, the parent binds the name nowhere (a SyntaxError). Run after
    a rule has changed a tree, this adds the missing bare declarations
    (``name: object``, see :func:`local_declaration`) at the top of the
    parent; they assign nothing, so behaviour does not change.
    """

    def __init__(self) -> None:
        super().__init__()
        #: the statement holders with a generated helper somewhere inside them
        self._leading_to_helpers: set[int] = set()

    def visit_Module(self, node: cst.Module) -> None:
        _holders_of_helpers(node, self._leading_to_helpers)

    def on_visit(self, node: cst.CSTNode) -> bool:
        # Only functions with a helper inside change: nothing else is entered (and rebuilt).
        return super().on_visit(node) and id(node) in self._leading_to_helpers

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        if id(original_node) not in self._leading_to_helpers:
            return updated_node  # left without being entered: no helper inside
        finder = _HelperNonlocals()
        walk.visit(updated_node.body, finder)
        if not finder.names:
            return updated_node
        own = function_scope_use(updated_node)
        missing = sorted(finder.names - own.bound - own.nonlocal_decl - own.global_decl)
        if not missing or not isinstance(updated_node.body, cst.IndentedBlock):
            return updated_node
        body = list(updated_node.body.body)
        at = 1 if body and _is_docstring(body[0]) else 0
        if is_generated(updated_node.name.value):
            # A generated helper only passes the name through to the function
            # it was made in: sharing it there (not declaring it here) keeps
            # one variable. That function declares it if it binds it nowhere.
            body[at:at] = [cst.SimpleStatementLine([cst.Nonlocal([cst.NameItem(cst.Name(n)) for n in missing])])]
        else:
            body[at:at] = [local_declaration(name) for name in missing]
        return updated_node.with_changes(body=updated_node.body.with_changes(body=body))


def _holders_of_helpers(node: cst.CSTNode, found: set[int]) -> bool:
    """Whether a generated helper is defined somewhere inside ``node``; adds the ids of
    ``node`` and of the statement holders under it for which that is so to ``found``."""
    holds = False
    for child in walk.children(node):
        if type(child) is cst.FunctionDef and is_generated(child.name.value):
            holds = True
        if type(child) in walk.STATEMENT_HOLDERS and _holders_of_helpers(child, found):
            holds = True
    if holds:
        found.add(id(node))
    return holds


def _is_docstring(stmt: cst.BaseStatement) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


# -- which names are surely bound -----------------------------------------------


def _binds(stmt: cst.BaseStatement) -> frozenset[str]:
    """Names ``stmt`` has surely bound once it has run to its end.

    Only statements that bind on every way through them count: a loop may
    run no trip, a branch or a handler may not be taken, and a ``with``
    whose manager swallows an exception may skip the rest of its body.
    """
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return frozenset((stmt.name.value,))
    if not isinstance(stmt, cst.SimpleStatementLine):
        return frozenset()
    names: set[str] = set()
    for small in stmt.body:
        if isinstance(small, cst.Assign):
            for target in small.targets:
                names |= _names_of(target.target)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            names |= _names_of(small.target)
        elif isinstance(small, cst.AugAssign):
            # It read the name first: having run, the name was bound.
            names |= _names_of(small.target)
        elif isinstance(small, cst.Import):
            for alias in small.names:
                if alias.asname is not None:
                    names |= _names_of(alias.asname.name)
                else:
                    head: cst.BaseExpression = alias.name
                    while isinstance(head, cst.Attribute):
                        head = head.value
                    names |= _names_of(head)
        elif isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
            for alias in small.names:
                names |= _names_of(alias.asname.name if alias.asname is not None else alias.name)
    return frozenset(names)


def _suites(stmt: cst.BaseStatement) -> Iterator[tuple[list[cst.BaseStatement], frozenset[str]]]:
    """The statement lists inside a compound ``stmt`` of the same scope, each with
    the names bound whenever it starts running."""
    none: frozenset[str] = frozenset()
    if isinstance(stmt, cst.For):
        yield body_statements(stmt.body), _names_of(stmt.target)
    elif isinstance(stmt, cst.With):
        entered = frozenset().union(*(_names_of(item.asname.name) for item in stmt.items if item.asname is not None))
        yield body_statements(stmt.body), entered
    elif isinstance(stmt, (cst.If, cst.While, cst.Try, cst.TryStar)):
        yield body_statements(stmt.body), none
    if isinstance(stmt, (cst.Try, cst.TryStar)):
        for handler in stmt.handlers:
            caught = _names_of(handler.name.name) if handler.name is not None else none
            yield body_statements(handler.body), caught
        if stmt.finalbody is not None:
            yield body_statements(stmt.finalbody.body), none
    if isinstance(stmt, cst.Match):
        for case in stmt.cases:
            yield body_statements(case.body), none
    orelse = getattr(stmt, "orelse", None)
    if isinstance(orelse, cst.If):  # an `elif`
        yield [orelse], none
    elif isinstance(orelse, cst.Else):
        yield body_statements(orelse.body), none


def surely_bound_before(func: cst.FunctionDef, node: cst.Try, index: int) -> Optional[frozenset[str]]:
    """Locals of ``func`` surely bound when statement ``index`` of ``node``'s body starts.

    When a statement runs, the statements before it in each block around it
    have run to their end (in this trip of a loop): what they surely bind,
    plus the parameters and what the blocks' headers bind, is bound. None
    when ``node`` is not found.
    """
    params = func.params
    start = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    start |= {p.name.value for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)}

    return _bound_at(body_statements(func.body), frozenset(start), node, index)


def _bound_at(
    statements: Sequence[cst.BaseStatement], bound: frozenset[str], node: cst.Try, index: int
) -> Optional[frozenset[str]]:
    for stmt in statements:
        if stmt is node:
            for earlier in body_statements(node.body)[:index]:
                bound |= _binds(earlier)
            return bound
        for suite, entered in _suites(stmt):
            found = _bound_at(suite, bound | entered, node, index)
            if found is not None:
                return found
        bound |= _binds(stmt)
    return None


def ever_unbound(func: cst.FunctionDef) -> frozenset[str]:
    """Names some code in ``func`` (nested scopes included) may unbind: ``del`` targets and
    ``except ... as`` names (deleted when their handler ends)."""
    names: set[str] = set()
    for node in walk.descendants(func):
        if isinstance(node, cst.Del):
            names.update(_names_of(node.target))
        elif isinstance(node, (cst.ExceptHandler, cst.ExceptStarHandler)) and node.name is not None:
            names.update(_names_of(node.name.name))
    return frozenset(names)


def _names_of(target: cst.CSTNode) -> frozenset[str]:
    return frozenset(target_names(target))
