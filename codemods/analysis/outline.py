"""Outlining: move one statement into a nested helper that is called once.

This is the always-available fix for a statement Dynamo cannot resume in (a
loop, a ``with`` or a ``try`` holding a graph break). The statement moves,
unchanged, into ``def _gbfix_<kind>_N():`` defined right where it stood, and
the helper is called once in its place. Dynamo then breaks at the call in the
parent frame, resumes after it and compiles everything around it; only the
helper's frame is skipped (measured on torch 2.13: a ``sin -> loop with break
-> cos`` function goes from 0 frames compiled to 2, with the helper skipped).

Why a nested helper, not one hoisted to module level: hoisting needs every
local passed in and every rebinding passed back, and must refuse ``super()``
and ``__class__``; a closure keeps the statement's text untouched and its
names shared with the parent, which is what makes the move exact.

How names stay exact:

* A name the statement binds that the rest of the function also uses
  (bound, read, or captured by a closure there) is declared ``nonlocal`` in
  the helper. ``nonlocal`` needs a binding in the parent: when the statement
  is the only place that binds it, the parent gets a bare annotation
  ``name: object``. That makes the name local to the parent *without
  assigning it* (local annotations are never evaluated), so reading it where
  the statement did not bind it still raises ``UnboundLocalError``, as
  before.
* Names declared ``global`` in the parent are declared ``global`` in the
  helper; the parent's own ``nonlocal`` names are declared ``nonlocal``.
* Names bound only inside the statement and used nowhere else stay local to
  the helper.
* ``return value`` inside the statement becomes ``return True, value`` in the
  helper, which ends with ``return False, None``; the call site returns the
  value when the first item is true.

Refused, with the reason: ``yield``/``await`` in the statement (the helper
would change what the parent is), ``break``/``continue`` that target a loop
outside the statement, ``global``/``nonlocal`` statements inside it,
zero-argument ``super()``, ``__class__``, ``locals()``/``vars()``/``exec``/
``eval`` (they depend on the frame they run in).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence, Union

import libcst as cst

from codemods.analysis.frame_use import frame_dependence, frame_refusal
from codemods.analysis.names.bindings import (
    DropAnnotations,
    NameUse,
    bound_afresh,
    exits_of,
    function_scope_use,
    is_generated,
    local_declaration,
    name_use,
    private_elsewhere,
    target_names,
)
from codemods.analysis.nodes import NESTED_SCOPES, OwnScopeOnly, as_element, contains
from codemods.analysis.unroll import unbound_before
from codemods.fastcst import walk


@dataclass(frozen=True)
class OutlineRefusal:
    reason: str


#: the most names a helper shares with its function by ``nonlocal`` before it stops being readable in
#: one pass (CONTRIBUTING.md, "Reviewing a helper"; scripts/check_helpers.py checks the same bound)
MAX_SHARED = 4


def too_many_shared(names: Sequence[str], what: str) -> str:
    """Why a helper sharing ``names`` is not made, or "" when it is short enough."""
    if len(names) <= MAX_SHARED:
        return ""
    listed = ", ".join(f"`{name}`" for name in names)
    return (
        f"not outlined: {what} shares {len(names)} names with the rest of the function ({listed}), "
        f"which a helper would declare `nonlocal` (a reviewer reads at most {MAX_SHARED})"
    )


@dataclass
class OutlinePlan:
    nonlocals: list[str] = field(default_factory=list)
    globals: list[str] = field(default_factory=list)
    #: names to declare in the parent with a bare annotation
    declare: list[str] = field(default_factory=list)
    returns: bool = False


def plan_outline(
    stmt: cst.BaseStatement, func: cst.FunctionDef, declare: bool = True
) -> Union[OutlinePlan, OutlineRefusal]:
    """How to outline ``stmt`` (an original node inside ``func``), or why not.

    ``declare=False`` refuses, rather than plans, a name that only a
    declaration without a value could make the parent's (see
    :func:`~codemods.analysis.unroll.unbound_before`).
    """
    exits = exits_of([stmt])
    if exits.yields:
        return OutlineRefusal("it contains `yield`")
    if exits.awaits:
        return OutlineRefusal("it contains `await` or an async loop/with")
    # A loop's own break/continue are nested for exits_of; only outer ones count.
    if exits.breaks or exits.continues:
        return OutlineRefusal("it has `break`/`continue` for a loop outside it")
    sensitive = frame_dependence(stmt)
    if sensitive:
        return OutlineRefusal(f"it uses {sensitive}, which depends on the frame it runs in")
    own = frame_refusal(func)
    if own:
        return OutlineRefusal(own)
    use = name_use([stmt])
    if use.global_decl or use.nonlocal_decl:
        return OutlineRefusal("it declares `global` or `nonlocal`")
    outside = function_scope_use(func, stmt)
    # in a loop, the block's next run may read what this run bound (`scale` bound on the first trip only):
    # a name it reads and binds stays the function's, but for a loop target of its own, bound before any read
    repeated = _carried_across_runs(stmt, use) if _in_loop(func, stmt) else set()
    plan = OutlinePlan(returns=exits.returns)
    for name in sorted(use.bound):
        if is_generated(name):
            continue
        if name in outside.global_decl:
            plan.globals.append(name)
        elif name in outside.nonlocal_decl:
            plan.nonlocals.append(name)
        elif name in outside.bound:
            if name in repeated or not bound_afresh([stmt], name) or not private_elsewhere(func, stmt, name):
                plan.nonlocals.append(name)
            # else: the statement binds it before reading it, and nothing elsewhere reads its value
        elif name in repeated or name in outside.read or name in outside.closure_read:
            if not declare:
                return OutlineRefusal(unbound_before(name, _what(stmt)))
            plan.nonlocals.append(name)
            plan.declare.append(name)
    return plan


def _carried_across_runs(stmt: cst.BaseStatement, use: NameUse) -> set[str]:
    """Names ``stmt`` binds and reads where a read may see what an earlier run of it bound: but for
    the targets of its own ``for`` loops, and names each run binds afresh before reading them."""
    targets = {
        name
        for node in walk.descendants(stmt, lambda node: type(node) not in NESTED_SCOPES)
        if type(node) is cst.For
        for name in target_names(node.target)
    }
    both = (use.bound & (use.read | use.closure_read)) - targets
    return {name for name in both if name in use.closure_read or not bound_afresh([stmt], name)}


def _what(stmt: cst.BaseStatement) -> str:
    if isinstance(stmt, (cst.For, cst.While)):
        return "the loop"
    return f"the `{'with' if isinstance(stmt, cst.With) else 'try'}` block"


def _in_loop(func: cst.FunctionDef, stmt: cst.CSTNode) -> bool:
    """Whether ``stmt`` lies in the body of a loop of ``func``'s own code."""
    for node in walk.descendants(func.body, lambda node: type(node) not in NESTED_SCOPES):
        if type(node) in (cst.For, cst.While) and contains(node.body, stmt):  # type: ignore[attr-defined]
            return True
    return False


class _ReturnsToPairs(OwnScopeOnly, cst.CSTTransformer):
    """``return v`` -> ``return True, v`` outside nested functions."""

    def leave_Return(self, original_node: cst.Return, updated_node: cst.Return) -> cst.Return:
        value = updated_node.value if updated_node.value is not None else cst.Name("None")
        pair = cst.Tuple(
            [
                cst.Element(cst.Name("True"), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                cst.Element(as_element(value)),
            ],
            lpar=[],
            rpar=[],
        )
        return updated_node.with_changes(value=pair, whitespace_after_return=cst.SimpleWhitespace(" "))


def _decl(kind: type, names: Sequence[str]) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([kind([cst.NameItem(cst.Name(n)) for n in names])])


def _expr_line(expr: cst.BaseExpression) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Expr(expr)])


def build_outline(
    stmt: cst.BaseCompoundStatement,
    plan: OutlinePlan,
    helper: str,
    prelude: Sequence[cst.BaseStatement] = (),
) -> list[cst.BaseStatement]:
    """The statements that replace ``stmt`` (an updated node).

    ``prelude`` goes into the helper before ``stmt`` (a loop's per-trip
    function, :mod:`codemods.analysis.per_iteration`); it is not rewritten.
    """
    leading = stmt.leading_lines
    moved = stmt.with_changes(leading_lines=())
    if plan.returns:
        moved = moved.visit(_ReturnsToPairs())  # type: ignore[assignment]
    if plan.nonlocals or plan.globals:
        moved = moved.visit(DropAnnotations(plan.nonlocals + plan.globals))  # type: ignore[assignment]
    body: list[cst.BaseStatement] = []
    if plan.globals:
        body.append(_decl(cst.Global, plan.globals))
    if plan.nonlocals:
        body.append(_decl(cst.Nonlocal, plan.nonlocals))
    body.extend(prelude)
    body.append(moved)
    if plan.returns:
        body.append(
            cst.SimpleStatementLine(
                [
                    cst.Return(
                        cst.Tuple(
                            [
                                cst.Element(
                                    cst.Name("False"), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
                                ),
                                cst.Element(cst.Name("None")),
                            ],
                            lpar=[],
                            rpar=[],
                        )
                    )
                ]
            )
        )
    out: list[cst.BaseStatement] = [local_declaration(name) for name in plan.declare]
    # Indent as the statement's own block does: a tab-indented function stays tab-indented.
    indent = stmt.body.indent if isinstance(stmt.body, cst.IndentedBlock) else None
    out.append(
        cst.FunctionDef(name=cst.Name(helper), params=cst.Parameters(), body=cst.IndentedBlock(body, indent=indent))
    )
    call = cst.Call(func=cst.Name(helper))
    if plan.returns:
        suffix = helper.rsplit("_", 1)[1]
        done, value = f"_gbfix_returned_{suffix}", f"_gbfix_value_{suffix}"
        out.append(
            cst.SimpleStatementLine(
                [
                    cst.Assign(
                        [
                            cst.AssignTarget(
                                cst.Tuple([cst.Element(cst.Name(done)), cst.Element(cst.Name(value))], lpar=[], rpar=[])
                            )
                        ],
                        call,
                    )
                ]
            )
        )
        out.append(
            cst.If(
                test=cst.Name(done),
                body=cst.IndentedBlock([cst.SimpleStatementLine([cst.Return(cst.Name(value))])], indent=indent),
            )
        )
    else:
        out.append(_expr_line(call))
    out[0] = out[0].with_changes(leading_lines=leading)
    return out
