"""Unrolling: which constant-trip loops can become straight-line calls of a helper, and how.

GBF001 unrolls with these; GBF002 asks :func:`plan_unroll` whether a loop is
GBF001's before outlining it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence, Union

import libcst as cst
from libcst.metadata import BaseMetadataProvider

from codemods.analysis.frame_use import frame_dependence, frame_refusal
from codemods.analysis.fstrings import unconvertible
from codemods.analysis.names.bindings import (
    DropAnnotations,
    NameUse,
    bound_afresh,
    exits_of,
    first_unconditional_binding,
    function_scope_use,
    is_generated,
    name_use,
    private_elsewhere,
    target_names,
)
from codemods.analysis.nodes import block_indent, body_statements, dotted_name, single_assignment
from codemods.fastcst import walk

# -- which loops can be unrolled ------------------------------------------------


@dataclass(frozen=True)
class Refusal:
    reason: str


@dataclass
class UnrollPlan:
    params: list[str]
    calls: list[list[cst.BaseExpression]]
    nonlocals: list[str] = field(default_factory=list)
    #: the loop variable is read after the loop: bind it before each call
    keep_target: bool = False


class ModuleConstants:
    """Names a module fixes once for good: ``NUM_STEPS = 4``, ``MODES = ("a", "b")``.

    A name counts when the module binds it exactly once, at module level,
    on one line, to an int or a tuple of constants (not a list: any code
    holding a list may change it in place), and nothing else binds it: no
    other statement of the module, no ``global`` declaration of it anywhere,
    and not the function holding the loop or one around it (a parameter or
    a local there would be what the loop reads). Found on the first
    question: most loops are not constant-trip at all.

    A class attribute counts when read through the class's own name
    (``Block.NUM_HEADS``): the class is bound once at module level, its body
    binds the name once, on one line, to such a literal, and no code of the
    module stores to, augments or deletes an attribute of that name. Through
    ``self`` it does not count: a subclass in another module may override it.
    """

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self._table: Optional[dict[str, tuple[str, cst.BaseExpression]]] = None
        self._rebound: Optional[tuple[set[str], set[str]]] = None

    def value(self, expr: cst.BaseExpression, scopes: Sequence[cst.FunctionDef]) -> Optional[cst.BaseExpression]:
        """The literal ``expr`` (a bare name or ``Class.NAME``, read inside ``scopes``) always stands for, if any."""
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name):
            found = self._constants().get(f"{expr.value.value}.{expr.attr.value}")
            head = expr.value.value
        elif isinstance(expr, cst.Name):
            found = self._constants().get(expr.value)
            head = expr.value
        else:
            return None
        if found is None or not self._never_rebound(head, found[0]):
            return None
        value = found[1]
        for scope in scopes:
            use = function_scope_use(scope)
            if head in use.bound | use.global_decl | use.nonlocal_decl:
                return None
        return value

    def _constants(self) -> dict[str, tuple[str, cst.BaseExpression]]:
        if self._table is None:
            self._table = _module_constants(self.module)
        return self._table

    def _never_rebound(self, head: str, attribute: str) -> bool:
        """Whether no function declares ``head`` global and no code stores to an attribute named
        ``attribute`` (empty for a bare name). The walk of the whole module this takes is made
        only once some loop reads a candidate: most modules have none."""
        if self._rebound is None:
            self._rebound = _rebound_anywhere(self.module)
        declared_global, stored = self._rebound
        return head not in declared_global and attribute not in stored


class ModuleConstantsProvider(BaseMetadataProvider[ModuleConstants]):
    """The module's :class:`ModuleConstants`, set on the module node: the rules that share a
    metadata wrapper (every rule of a file until one changes the tree) share one table, read
    on the first question and gone with the wrapper."""

    def _gen_impl(self, module: cst.Module) -> None:
        self.set_metadata(module, ModuleConstants(module))


def _module_constants(module: cst.Module) -> dict[str, tuple[str, cst.BaseExpression]]:
    """The candidates, before the module-wide check: ``NAME`` or ``Class.NAME`` -> (the attribute
    name a store must not touch, empty for a module-level name; the literal)."""
    literals, bindings = _one_line_literals(module.body, module)
    constants = {name: ("", value) for name, value in literals.items()}
    classes = [
        stmt
        for stmt in module.body
        if isinstance(stmt, cst.ClassDef)
        and bindings.get(stmt.name.value) == 1
        and isinstance(stmt.body, cst.IndentedBlock)
    ]
    for cls in classes:
        assert isinstance(cls.body, cst.IndentedBlock)
        attributes, _ = _one_line_literals(cls.body.body, module)
        constants.update((f"{cls.name.value}.{name}", (name, v)) for name, v in attributes.items())
    return constants


def _one_line_literals(
    body: Sequence[cst.BaseStatement], module: cst.Module
) -> tuple[dict[str, cst.BaseExpression], dict[str, int]]:
    """The names ``body`` binds once, each to a one-line literal; and how often ``body`` binds each name."""
    found: dict[str, cst.BaseExpression] = {}
    bindings: dict[str, int] = {}
    for stmt in body:
        # a def or class binds its own name only (its body is another scope): no need to walk it
        names = {stmt.name.value} if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) else name_use([stmt]).bound
        for name in names:
            bindings[name] = bindings.get(name, 0) + 1
        value = _constant_assignment(stmt, module)
        if value is not None:
            found[value[0]] = value[1]
    return {name: value for name, value in found.items() if bindings.get(name) == 1}, bindings


def _rebound_anywhere(module: cst.Module) -> tuple[set[str], set[str]]:
    """In one walk of the module: the names some function declares ``global``, and the attribute
    names the module assigns, augments, annotates or deletes anywhere (``x.NAME = ...``)."""
    declared_global: set[str] = set()
    targets: list[cst.BaseExpression] = []
    for node in walk.descendants(module):
        kind = type(node)
        if kind is cst.Global:
            declared_global.update(item.name.value for item in node.names)  # type: ignore[attr-defined]
        elif kind is cst.AssignTarget:
            targets.append(node.target)  # type: ignore[attr-defined]
        elif kind in (cst.AugAssign, cst.AnnAssign, cst.Del):
            targets.append(node.target)  # type: ignore[attr-defined]
        elif kind in (cst.For, cst.CompFor):
            targets.append(node.target)  # type: ignore[attr-defined]
        elif kind is cst.WithItem and node.asname is not None:  # type: ignore[attr-defined]
            targets.append(node.asname.name)  # type: ignore[attr-defined]
    names: set[str] = set()
    while targets:
        target = targets.pop()
        if isinstance(target, cst.Attribute):
            names.add(target.attr.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            targets.extend(element.value for element in target.elements)
        elif isinstance(target, cst.StarredElement):
            targets.append(target.value)
    return declared_global, names


def _constant_assignment(stmt: cst.BaseStatement, module: cst.Module) -> Optional[tuple[str, cst.BaseExpression]]:
    """(name, value) of ``NAME = <int or tuple of constants>`` written on one line."""
    assigned = single_assignment(stmt)
    if assigned is None:
        return None
    name, value = assigned
    # a list may be changed in place by any code holding it, here or in a module importing it
    constant = _int_constant(value) is not None or (
        isinstance(value, cst.Tuple)
        and all(not isinstance(e, cst.StarredElement) and _is_literal(e.value) for e in value.elements)
    )
    if not constant or "\n" in module.code_for_node(value):
        return None
    return name, value


def _is_literal(node: cst.BaseExpression) -> bool:
    return isinstance(node, _CONSTANT_TYPES) or _int_constant(node) is not None


def _int_constant(node: cst.BaseExpression) -> Optional[int]:
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    if (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, cst.Integer)
    ):
        return -int(node.expression.evaluated_value)
    return None


def _int_node(value: int) -> cst.BaseExpression:
    if value < 0:
        return cst.UnaryOperation(cst.Minus(), cst.Integer(str(-value)))
    return cst.Integer(str(value))


_CONSTANT_TYPES = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)


def _stable_element(node: cst.BaseExpression, body_bound: set[str], body_sets_attrs: bool) -> bool:
    """An iterable element whose value the loop body cannot change."""
    if isinstance(node, _CONSTANT_TYPES) or _int_constant(node) is not None:
        return True
    if isinstance(node, cst.Name):
        return node.value in ("None", "True", "False") or node.value not in body_bound
    if isinstance(node, cst.Attribute):
        root = dotted_name(node) or ""
        return bool(root) and not body_sets_attrs and root.split(".")[0] not in body_bound
    if isinstance(node, cst.Tuple):
        return all(_stable_element(e.value, body_bound, body_sets_attrs) for e in node.elements)
    return False


#: the literal a name stands for wherever the loop reads it (see :class:`ModuleConstants`)
Constant = Callable[[cst.BaseExpression], Optional[cst.BaseExpression]]


def _no_constants(expr: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    return None


def _iteration_values(
    node: cst.For, max_trips: int, body_facts: Callable[[], tuple[set[str], bool]], constant: Constant
) -> Union[list[cst.BaseExpression], Refusal, None]:
    """One expression per iteration, a Refusal, or None if not a constant-trip loop."""
    iterable = node.iter
    if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name):
        name = iterable.func.value
        if name == "range" and 1 <= len(iterable.args) <= 3 and not any(a.keyword or a.star for a in iterable.args):
            bounds = [_int_constant(constant(a.value) or a.value) for a in iterable.args]
            if any(b is None for b in bounds):
                return None
            values = list(range(*bounds))  # type: ignore[arg-type]
            if not values:
                return Refusal("the loop runs zero times")
            if len(values) > max_trips:
                return Refusal(f"{len(values)} trips is more than unroll_max_trips={max_trips}")
            return [_int_node(v) for v in values]
        if name == "enumerate" and len(iterable.args) in (1, 2):
            inner = constant(iterable.args[0].value) or iterable.args[0].value
            start = 0
            if len(iterable.args) == 2:
                start_value = _int_constant(iterable.args[1].value)
                if start_value is None:
                    return None
                start = start_value
            if not isinstance(inner, (cst.Tuple, cst.List)):
                return None
            elements = _literal_elements(inner, max_trips, body_facts)
            if not isinstance(elements, list):
                return elements
            return [cst.Tuple([cst.Element(_int_node(start + i)), cst.Element(e)]) for i, e in enumerate(elements)]
        return None
    iterable = constant(iterable) or iterable
    if isinstance(iterable, (cst.Tuple, cst.List)):
        return _literal_elements(iterable, max_trips, body_facts)
    return None


def _literal_elements(
    node: Union[cst.Tuple, cst.List], max_trips: int, body_facts: Callable[[], tuple[set[str], bool]]
) -> Union[list[cst.BaseExpression], Refusal]:
    elements = node.elements
    if any(isinstance(e, cst.StarredElement) for e in elements):
        return Refusal("the iterable has a starred element")
    if not elements:
        return Refusal("the loop runs zero times")
    if len(elements) > max_trips:
        return Refusal(f"{len(elements)} trips is more than unroll_max_trips={max_trips}")
    values = [e.value for e in elements]
    body_bound, body_sets_attrs = body_facts()
    if not all(_stable_element(v, body_bound, body_sets_attrs) for v in values):
        return Refusal("an element of the iterable is an expression the body could change")
    return values


def _is_flat_target(target: cst.BaseExpression) -> bool:
    """A name, or a tuple or list of plain names (no starred one)."""
    if isinstance(target, (cst.Tuple, cst.List)):
        return all(isinstance(e.value, cst.Name) and not isinstance(e, cst.StarredElement) for e in target.elements)
    return isinstance(target, cst.Name)


def _split_value(value: cst.BaseExpression, arity: int) -> Optional[list[cst.BaseExpression]]:
    if arity == 1:
        return [value]
    if (
        isinstance(value, cst.Tuple)
        and len(value.elements) == arity
        and not any(isinstance(e, cst.StarredElement) for e in value.elements)
    ):
        return [e.value for e in value.elements]
    return None


def _sets_attributes(body: cst.CSTNode) -> bool:
    return any(
        isinstance(node, cst.AssignTarget) and not isinstance(node.target, cst.Name) for node in walk.descendants(body)
    )


def plan_unroll(
    loop: cst.For,
    func: cst.FunctionDef,
    body: Sequence[cst.BaseStatement],
    max_trips: int,
    constant: Constant = _no_constants,
) -> Union[UnrollPlan, Refusal, None]:
    """How to unroll ``loop`` (in ``func``), a Refusal, or None if not constant-trip.

    ``constant`` says which names stand for a literal (module constants).
    """
    if loop.asynchronous is not None:
        return None
    use: Optional[NameUse] = None

    def body_facts() -> tuple[set[str], bool]:
        # Only a literal iterable needs them: most loops are not constant-trip at all.
        nonlocal use
        use = name_use(body)
        return use.bound, _sets_attributes(loop.body)

    values = _iteration_values(loop, max_trips, body_facts, constant)
    if values is None or isinstance(values, Refusal):
        return values
    if use is None:
        use = name_use(body)
    if not _is_flat_target(loop.target):
        return Refusal("the loop target is not a name or a tuple of names")
    targets = target_names(loop.target)
    calls = [_split_value(v, len(targets)) for v in values]
    if any(c is None for c in calls):
        return Refusal("the iterable's elements do not match the loop target's shape")

    exits = exits_of(body)
    for flag, what in (
        (exits.breaks, "`break`"),
        (exits.returns, "`return`"),
        (exits.yields, "`yield`"),
        (exits.awaits, "`await`"),
    ):
        if flag:
            return Refusal(f"the loop body has {what}")
    if use.global_decl or use.nonlocal_decl:
        return Refusal("the loop body declares `global` or `nonlocal`")
    sensitive = frame_dependence(loop.body)
    if sensitive:
        return Refusal(f"the loop body uses {sensitive}, which depends on the frame it runs in")
    own = frame_refusal(func)
    if own:
        return Refusal(own)
    # Said here, not when GBF001 converts them: GBF002 then outlines the loop
    # instead of leaving it to a rule that cannot unroll it.
    fstring = unconvertible(body)
    if fstring:
        return Refusal(f"{fstring} would not compile after unrolling")
    if set(targets) & use.bound:
        return Refusal("the loop body rebinds the loop variable")
    if set(targets) & use.closure_read:
        return Refusal("a closure in the loop body captures the loop variable")

    outside = function_scope_use(func, loop)
    if loop.orelse is not None:
        # The ``else`` body runs after the calls, in the parent: its names are the parent's.
        orelse = name_use([loop.orelse])
        for part in ("bound", "read", "closure_read", "global_decl", "nonlocal_decl"):
            getattr(outside, part).update(getattr(orelse, part))
    plan = UnrollPlan(params=targets, calls=calls)  # type: ignore[arg-type]
    seen_after = {t for t in targets if t in outside.global_decl or not private_elsewhere(func, loop, t)}
    plan.keep_target = bool(seen_after & (outside.bound | outside.read | outside.closure_read | outside.global_decl))
    if set(targets) & outside.global_decl:
        return Refusal("the loop variable is declared `global`")
    if set(targets) & outside.nonlocal_decl:
        # Its other uses are in an enclosing function, out of sight here (in a
        # helper gbfix made, they are where the loop was first refused).
        return Refusal("the loop variable is declared `nonlocal`")
    if set(targets) & outside.closure_read:
        # A closure over the loop variable would see the parent's copy, which
        # the helper's parameter no longer updates on each trip.
        return Refusal("a closure elsewhere in the function reads the loop variable")
    for name in sorted(use.bound):
        if is_generated(name):
            continue
        if name in outside.global_decl:
            return Refusal(f"`{name}` is declared `global` in the function")
        if name in outside.bound and name not in outside.nonlocal_decl:
            if bound_afresh(body, name) and private_elsewhere(func, loop, name):
                continue  # each trip binds it before reading it, and nothing elsewhere reads its value
        if name in outside.bound or name in outside.nonlocal_decl:
            plan.nonlocals.append(name)
            continue
        shared = name in outside.read or name in outside.closure_read or name in use.closure_read
        # A temporary bound afresh before any read in each trip can stay local
        # to the helper; anything else (read after the loop, carried from one
        # trip to the next, bound only on some paths) must live in the parent,
        # which binds it nowhere else: only a declaration without a value
        # would make it the parent's, and Dynamo cannot read that empty cell
        # when it calls the helper ("Read uninitialized cell").
        if shared or first_unconditional_binding(body, name) is None:
            return Refusal(unbound_before(name, "the loop"))
    return plan


def unbound_before(name: str, where: str) -> str:
    """Why a rewrite that would need ``name`` declared without a value is refused."""
    return (
        f"`{name}` is first bound in {where} and used after it or on a later trip; a helper could share it "
        f"only through a declaration without a value, which Dynamo cannot read (bind `{name}` before the loop)"
    )


# -- building the replacement ------------------------------------------------------


def _call(name: str, args: Sequence[cst.BaseExpression]) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Expr(cst.Call(func=cst.Name(name), args=_args(args)))])


def _args(values: Sequence[cst.BaseExpression]) -> list[cst.Arg]:
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return [cst.Arg(v, comma=comma if i < len(values) - 1 else cst.MaybeSentinel.DEFAULT) for i, v in enumerate(values)]


def _assign(names: Sequence[str], value: cst.BaseExpression) -> cst.SimpleStatementLine:
    if len(names) == 1:
        target: cst.BaseAssignTargetExpression = cst.Name(names[0])
    else:
        target = cst.Tuple([cst.Element(cst.Name(n)) for n in names], lpar=[], rpar=[])
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], value)])


def _nonlocal(names: Sequence[str]) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Nonlocal([cst.NameItem(cst.Name(n)) for n in names])])


def build_unrolled(
    loop: cst.For, plan: UnrollPlan, helper: str, body: list[cst.BaseStatement]
) -> list[cst.BaseStatement]:
    header: list[cst.BaseStatement] = [_nonlocal(plan.nonlocals)] if plan.nonlocals else []
    if plan.nonlocals:
        drop = DropAnnotations(plan.nonlocals)
        body = [s for s in (stmt.visit(drop) for stmt in body) if isinstance(s, cst.BaseStatement)]
    params = cst.Parameters([cst.Param(cst.Name(p)) for p in plan.params])
    helper_def = cst.FunctionDef(
        name=cst.Name(helper),
        params=params,
        # The loop body's own indentation (None: the module's), so its lines keep their bytes.
        body=cst.IndentedBlock(body=header + body, indent=block_indent(loop)),
        leading_lines=loop.leading_lines,
    )
    out: list[cst.BaseStatement] = [helper_def]
    for args in plan.calls:
        if plan.keep_target:
            # Bound before each trip, as the loop binds it: a trip that raises
            # leaves it holding that trip's value, and the ``else`` body sees the last.
            value = args[0] if len(args) == 1 else cst.Tuple([cst.Element(v) for v in args], lpar=[], rpar=[])
            out.append(_assign(plan.params, value))
            args = [cst.Name(p) for p in plan.params]
        out.append(_call(helper, args))
    if loop.orelse is not None:
        out.extend(body_statements(loop.orelse.body))
    return out
