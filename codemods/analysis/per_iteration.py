"""Body per iteration: a loop's body becomes a nested function called once per trip.

Outlining a loop that holds a graph break moves the skip into the helper:
Dynamo skips the helper's frame, and every op of the loop still runs
eagerly. Moving the loop's *body* into a function of its own, called once
per trip from the outlined loop, captures that work: the loop that calls it
(the driver) is skipped and runs eagerly, but each call of the body is a
fresh frame, which Dynamo compiles, breaking and resuming at the top level
of that frame. Measured on torch 2.13 (a loop of ``h * 0.5 + x * i``, a
print, ``relu``): as written 0 of 22 ops in graphs; the loop outlined 0 of
22; the body per iteration 22 of 22, every frame but the driver compiled.
Carrying names by ``nonlocal`` and by argument and return value compiled
the same graphs and ops; ``nonlocal`` keeps the body's text as it was.

How the body's names stay exact (the driver is the outlined loop, see
:mod:`codemods.analysis.outline`):

* Names the rest of the function shares (the outline's ``nonlocal`` and
  ``global`` names) are shared by the body too.
* A loop target is a parameter of the body, unless a closure in the body
  captures it, or the body rebinds it and the driver or the function reads
  it after the trip: then it stays the driver's, bound by the loop and
  shared by the body.
* A name the body binds that carries a value from one trip to the next (read
  before it is bound, bound only on some paths, captured by a closure) or
  that the driver reads (a ``while`` condition, the ``else`` clause) lives in
  the driver (``name: object``: declared, not assigned) and is shared.
* Any other name the body binds is bound afresh on every trip before it is
  read: it stays local to the body.

The body's f-strings become ``str.format`` calls where that is exact (see
:mod:`codemods.analysis.fstrings`): from the second trip on Dynamo compiles
the body with a dynamic loop index, and an f-string formatting it makes
Dynamo skip the body's frame (``BUILD_STRING type error``, torch 2.13).

Control flow: ``continue`` ends the call; ``break`` and ``return`` end it
with a value the driver acts on: ``None`` goes on, ``()`` breaks,
``(value,)`` returns ``value`` from the driver, which the outline passes on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence, Union

import libcst as cst

from codemods.analysis.bindings import (
    DropAnnotations,
    ReplaceLoopControl,
    exits_of,
    first_unconditional_binding,
    is_generated,
    local_declaration,
    name_use,
    target_names,
)
from codemods.analysis.fstrings import FStringsToFormat, unconvertible
from codemods.analysis.nodes import block_indent, body_statements
from codemods.analysis.outline import OutlinePlan

Loop = Union[cst.For, cst.While]


@dataclass
class StepPlan:
    """How a loop's body becomes a function called once per trip."""

    #: loop target names passed to each call
    params: list[str] = field(default_factory=list)
    #: names the body shares with the driver or the function (declared ``nonlocal`` in the body)
    nonlocals: list[str] = field(default_factory=list)
    globals: list[str] = field(default_factory=list)
    #: names the driver holds from trip to trip (declared ``name: object`` in the driver)
    driver_declare: list[str] = field(default_factory=list)
    breaks: bool = False
    returns: bool = False


def plan_step(loop: Loop, outline: OutlinePlan) -> StepPlan:
    """The per-trip function for ``loop`` (an original node), given how the loop itself is outlined."""
    body = body_statements(loop.body)
    use = name_use(body)
    exits = exits_of(body)
    targets = target_names(loop.target) if isinstance(loop, cst.For) else []
    # What the driver reads besides the calls: a while condition, an else clause.
    driver_reads: set[str] = set()
    if isinstance(loop, cst.While):
        driver_reads |= name_use([loop.test]).read
    if loop.orelse is not None:
        driver_reads |= name_use([loop.orelse]).read | name_use([loop.orelse]).bound
    plan = StepPlan(breaks=exits.breaks, returns=exits.returns)
    shared = set(outline.nonlocals)
    for name in targets:
        if name in use.closure_read or (name in use.bound and (name in shared or name in driver_reads)):
            plan.nonlocals.append(name)  # the driver's loop binds it
        else:
            plan.params.append(name)  # rebinding it in the body is the trip's own business
    for name in sorted(use.bound):
        if is_generated(name) or name in targets:
            continue
        if name in outline.globals:
            plan.globals.append(name)
        elif name in shared:
            plan.nonlocals.append(name)
        elif name in driver_reads or name in use.closure_read or first_unconditional_binding(body, name) is None:
            plan.nonlocals.append(name)
            plan.driver_declare.append(name)
    plan.nonlocals.sort()
    return plan


class _ExitsToValues(ReplaceLoopControl):
    """The body's own ``continue``, ``break`` and ``return`` as returns of the per-trip function.

    ``continue`` ends the call as when the loop is unrolled; nested loops keep
    their ``break``/``continue``; nested functions, lambdas and classes keep
    everything.
    """

    def leave_Break(self, original_node: cst.Break, updated_node: cst.Break) -> cst.BaseSmallStatement:
        if self.depth:
            return updated_node
        return cst.Return(cst.Tuple([]), semicolon=updated_node.semicolon)

    def leave_Return(self, original_node: cst.Return, updated_node: cst.Return) -> cst.Return:
        value = updated_node.value if updated_node.value is not None else cst.Name("None")
        return updated_node.with_changes(
            value=cst.Tuple([cst.Element(value, comma=cst.Comma())]),
            whitespace_after_return=cst.SimpleWhitespace(" "),
        )


def _declaration(kind: type, names: Sequence[str]) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([kind([cst.NameItem(cst.Name(n)) for n in names])])


def _call(step: str, params: Sequence[str]) -> cst.Call:
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    args = [
        cst.Arg(cst.Name(p), comma=comma if i < len(params) - 1 else cst.MaybeSentinel.DEFAULT)
        for i, p in enumerate(params)
    ]
    return cst.Call(cst.Name(step), args)


def _line(statement: cst.BaseSmallStatement) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([statement])


def _if(test: cst.BaseExpression, body: Sequence[cst.BaseStatement], indent: Optional[str]) -> cst.If:
    return cst.If(test=test, body=cst.IndentedBlock(list(body), indent=indent))


def _is_not_none(expr: cst.BaseExpression) -> cst.Comparison:
    return cst.Comparison(expr, [cst.ComparisonTarget(cst.IsNot(), cst.Name("None"))])


def build_step(loop: Loop, plan: StepPlan, step: str, exit_name: str) -> tuple[cst.FunctionDef, Loop]:
    """The per-trip function and the loop that calls it, from ``loop`` (an updated node).

    The loop keeps its header, target and ``else`` clause; its body becomes
    one call (and what acts on a ``break`` or ``return`` value).
    """
    indent = block_indent(loop)
    statements = [s.visit(_ExitsToValues()) for s in body_statements(loop.body)]
    body = [s for s in statements if isinstance(s, cst.BaseStatement)]
    if unconvertible(body) is None:
        converter = FStringsToFormat()
        body = [s for s in (stmt.visit(converter) for stmt in body) if isinstance(s, cst.BaseStatement)]
    declared = plan.nonlocals + plan.globals
    if declared:
        drop = DropAnnotations(declared)
        body = [s for s in (stmt.visit(drop) for stmt in body) if isinstance(s, cst.BaseStatement)]
    header: list[cst.BaseStatement] = []
    if plan.globals:
        header.append(_declaration(cst.Global, plan.globals))
    if plan.nonlocals:
        header.append(_declaration(cst.Nonlocal, plan.nonlocals))
    function = cst.FunctionDef(
        name=cst.Name(step),
        params=cst.Parameters([cst.Param(cst.Name(p)) for p in plan.params]),
        body=cst.IndentedBlock(header + body, indent=indent),
    )
    call = _call(step, plan.params)
    exit_value = cst.Name(exit_name)
    calls: list[cst.BaseStatement]
    if plan.returns:
        returned = cst.Subscript(exit_value, [cst.SubscriptElement(cst.Index(cst.Integer("0")))])
        acts: list[cst.BaseStatement] = [_line(cst.Return(returned))]
        if plan.breaks:
            acts = [_if(exit_value, acts, indent), _line(cst.Break())]
        calls = [
            _line(cst.Assign([cst.AssignTarget(exit_value)], call)),
            _if(_is_not_none(exit_value), acts, indent),
        ]
    elif plan.breaks:
        calls = [_if(_is_not_none(call), [_line(cst.Break())], indent)]
    else:
        calls = [_line(cst.Expr(call))]
    new_body = (
        loop.body.with_changes(body=calls) if isinstance(loop.body, cst.IndentedBlock) else (cst.IndentedBlock(calls))
    )
    return function, loop.with_changes(body=new_body)


def driver_declarations(plan: StepPlan) -> list[cst.BaseStatement]:
    """``name: object`` for each name the driver holds from trip to trip."""
    return [local_declaration(name) for name in plan.driver_declare]
