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
  before it is bound, bound only on some paths, captured by a closure; not a
  name a nested loop binds and only that loop reads, see
  :func:`~codemods.analysis.names.bindings.bound_afresh`) or
  that the driver reads (a ``while`` condition, the ``else`` clause) would
  have to live in the driver without a value: the rule then has the driver
  run the trips itself (:attr:`StepPlan.driver_declare`).
* Any other name the body binds is bound afresh on every trip before it is
  read: it stays local to the body.

The body's f-strings become ``str.format`` calls where that is exact (see
:mod:`codemods.analysis.fstrings`): from the second trip on Dynamo compiles
the body with a dynamic loop index, and an f-string formatting it makes
Dynamo skip the body's frame (``BUILD_STRING type error``, torch 2.13).

Control flow: ``continue`` ends the call; ``break`` and ``return`` end it
with plain flags the driver acts on: ``True`` to stop when the body only
breaks, ``(returned, value)`` when it only returns (the outline's own
protocol, which the driver passes on), ``(stop, returned, value)`` when it
does both.

An eager head: every break the per-trip frame resumes from costs each trip
a frame of its own. When the body's breaks all come before its tensor work
(a per-expert loop: ``if idx == n: continue``, then ``torch.where``, then the
expert's matmuls), the statements up to the last break stay in the driver,
which runs them eagerly as before, and the per-trip function holds the
rest, handed what the head bound: one compiled frame per trip. Measured on
torch 2.13 on a tiny Mixtral (4 experts, 2 layers), against the whole body
per trip: steady-state compiled time after/before 1.20 -> 1.03 (eager
backend) and 1.03 -> 0.92 (inductor), interleaved in one process; coverage
80.5% -> 78.9% (54.1% as written).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence, Union, cast

import libcst as cst

from codemods.analysis.fstrings import FStringsToFormat, unconvertible
from codemods.analysis.helper_names import helper_kind
from codemods.analysis.names.bindings import (
    DropAnnotations,
    ReplaceLoopControl,
    bound_afresh,
    exits_of,
    first_unconditional_binding,
    is_generated,
    name_use,
    target_names,
)
from codemods.analysis.nodes import (
    NESTED_SCOPES,
    OwnScopeOnly,
    as_element,
    block_indent,
    body_statements,
    contains,
    dotted_name,
    self_attributes_made,
)
from codemods.analysis.outline import OutlinePlan
from codemods.fastcst import walk

Loop = Union[cst.For, cst.While]


@dataclass
class StepPlan:
    """How a loop's body becomes a function called once per trip."""

    #: loop target names passed to each call
    params: list[str] = field(default_factory=list)
    #: names the body shares with the driver or the function (declared ``nonlocal`` in the body)
    nonlocals: list[str] = field(default_factory=list)
    globals: list[str] = field(default_factory=list)
    #: names carried from trip to trip that nothing binds before the loop: the driver then runs the
    #: trips itself (sharing them would need a declaration without a value)
    driver_declare: list[str] = field(default_factory=list)
    breaks: bool = False
    returns: bool = False
    #: params handed to each call as ``int(name)`` (see :mod:`codemods.analysis.scalar_index`)
    as_ints: list[str] = field(default_factory=list)
    #: lists the body grows and also reads whole (:func:`grown_and_read`): a per-trip function would
    #: be compiled again on every trip
    grown_read: list[str] = field(default_factory=list)
    #: ints that change every trip and index a store or pick a submodule in the body
    #: (:func:`stored_at_trip_ints`): the function would be compiled again for every value
    pinned: list[str] = field(default_factory=list)


def plan_step(loop: Loop, outline: OutlinePlan, head: int = 0, module_lists: frozenset[str] = frozenset()) -> StepPlan:
    """The per-trip function for ``loop`` (an original node), given how the loop itself is outlined.

    ``head``: how many leading statements of the body stay in the driver's
    loop (see :func:`eager_head`); the function holds the rest.
    ``module_lists``: the dotted names holding submodules (``self.layers``), see
    :func:`stored_at_trip_ints`.
    """
    statements = body_statements(loop.body)
    body = statements[head:]
    use = name_use(body)
    exits = exits_of(body)
    targets = target_names(loop.target) if isinstance(loop, cst.For) else []
    # What the driver reads besides the calls: a while condition, an else clause, the head.
    driver_reads: set[str] = set()
    if isinstance(loop, cst.While):
        driver_reads |= name_use([loop.test]).read
    if loop.orelse is not None:
        orelse = name_use([loop.orelse])
        driver_reads |= orelse.read | orelse.bound | orelse.closure_read
    shared = set(outline.nonlocals)
    passed = list(targets)
    if head:
        head_use = name_use(statements[:head])
        driver_reads |= head_use.read | head_use.bound | head_use.closure_read
        mentioned = use.read | use.bound | use.closure_read
        # the function's own names reach the function as they are (the driver shares them)
        passed = [n for n in [*targets, *sorted(head_use.bound - set(targets))] if n in mentioned and n not in shared]
    plan = StepPlan(breaks=exits.breaks, returns=exits.returns)
    for name in passed:
        if name in use.closure_read or (name in use.bound and (name in shared or name in driver_reads)):
            plan.nonlocals.append(name)  # the driver's loop (or head) binds it
        else:
            plan.params.append(name)  # rebinding it in the body is the trip's own business
    for name in sorted(use.bound):
        if is_generated(name) or name in passed:
            continue
        if name in outline.globals:
            plan.globals.append(name)
        elif name in shared:
            plan.nonlocals.append(name)
        elif name in driver_reads or name in use.closure_read or not bound_afresh(body, name):
            plan.nonlocals.append(name)
            plan.driver_declare.append(name)
    plan.nonlocals.sort()
    plan.grown_read = grown_and_read(body)
    plan.pinned = stored_at_trip_ints(loop, head, plan.params, module_lists)
    return plan


_GROWERS = frozenset({"append", "extend", "insert"})


def grown_and_read(body: Sequence[cst.BaseStatement]) -> list[str]:
    """Names of lists that ``body`` grows in place (``xs.append(v)``, ``xs.extend(...)``,
    ``xs += [...]``) and also reads whole (``torch.stack(xs)``, ``len(xs)``, a loop over it), a
    list made before the loop: a function called once per trip sees it one longer on every call,
    and Dynamo guards on its length, so it compiles again each trip until its recompile limit,
    after which the function and what it calls run eagerly (measured: a decoding loop that stops
    on ``torch.stack(ids).eq(end).all()`` went from 63% to 4% of its ops in graphs)."""
    finder = _GrownAndRead()
    for statement in body:
        statement.visit(finder)
    return sorted((finder.grown & finder.read) - finder.bound)


class _GrownAndRead(cst.CSTVisitor):
    def __init__(self) -> None:
        self.grown: set[str] = set()
        self.read: set[str] = set()
        self.bound: set[str] = set()
        #: Name nodes that are a growing call's receiver or an augmented target
        self.growing: set[int] = set()

    def visit_Call(self, node: cst.Call) -> None:
        method = node.func
        if isinstance(method, cst.Attribute) and isinstance(method.value, cst.Name) and method.attr.value in _GROWERS:
            self.grown.add(method.value.value)
            self.growing.add(id(method.value))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        grows = isinstance(node.value, (cst.List, cst.Tuple, cst.ListComp))  # not a tensor's `+=`
        if isinstance(node.target, cst.Name) and isinstance(node.operator, cst.AddAssign) and grows:
            self.grown.add(node.target.value)
            self.growing.add(id(node.target))

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self.bound.update(target_names(target.target))

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self.growing:
            self.read.add(node.value)


#: calls whose result is a Python number read per trip (``int(w.item())``, ``len(boxes)``)
_NUMBER_CALLS = frozenset({"int", "round", "len"})


def stored_at_trip_ints(
    loop: Loop, head: int, params: Sequence[str], module_lists: frozenset[str] = frozenset()
) -> list[str]:
    """Parameters of the per-trip function that hold a Python int new on every trip (the
    counter of ``range`` or ``enumerate``, a number the eager head reads: ``int(t.item())``,
    ``len(x)``) and index a store in the function (``xy_preds[i, 0, :] = x``) or pick a
    submodule from one of ``module_lists`` (``self.res_skip_layers[i](acts)``).

    Dynamo keeps such an int symbolic when it only reads through it, but an
    index of a store pins it to its value: the function is compiled again on
    every trip until the recompile limit, after which it runs eagerly
    (measured on torch 2.13: torchvision's keypoint decoding, a loop over
    regions that writes ``xy_preds[i, 0, :]``, recompiled its per-trip
    function on each trip with guards ``i == 2``, ``i == 3``, ...).
    """
    statements = body_statements(loop.body)
    numbers: set[str] = set()
    if isinstance(loop, cst.For) and isinstance(loop.iter, cst.Call):
        counter = dotted_name(loop.iter.func)
        if counter == "range":
            numbers.update(target_names(loop.target))
        elif counter == "enumerate" and isinstance(loop.target, cst.Tuple) and loop.target.elements:
            numbers.update(target_names(loop.target.elements[0].value))
    for statement in statements[:head]:
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.Assign) and _reads_a_number(small.value):
                for target in small.targets:
                    numbers.update(target_names(target.target))
    candidates = numbers & set(params)
    if not candidates:
        return []
    finder = _StoreIndices(module_lists)
    for statement in statements[head:]:
        statement.visit(finder)
    return sorted(candidates & finder.names)


#: containers whose item an int picks as a module of its own, not as a tensor
_MODULE_CONTAINERS = frozenset({"ModuleList", "ModuleDict", "Sequential"})


def module_lists(cls: Optional[cst.ClassDef]) -> frozenset[str]:
    """The ``self`` attributes of ``cls`` that hold a container of submodules
    (``self.layers = nn.ModuleList(...)``), as dotted names: what an int index picks a module from."""
    if cls is None:
        return frozenset()
    made = self_attributes_made(cls, lambda name: name.rpartition(".")[2] in _MODULE_CONTAINERS)
    return frozenset(f"self.{attribute}" for attribute in made)


def _reads_a_number(value: cst.BaseExpression) -> bool:
    if not isinstance(value, cst.Call):
        return False
    name = dotted_name(value.func)
    if name in _NUMBER_CALLS:
        return True
    return isinstance(value.func, cst.Attribute) and value.func.attr.value == "item"


class _StoreIndices(OwnScopeOnly, cst.CSTVisitor):
    """The names read in the index of a subscript that is stored to, augmented or deleted, or
    that picks a submodule from one of ``module_lists``."""

    def __init__(self, module_lists: frozenset[str]) -> None:
        super().__init__()
        self.module_lists = module_lists
        self.names: set[str] = set()

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self.module_lists and dotted_name(node.value) in self.module_lists:
            for index in node.slice:
                self.names.update(_names_in(index))

    def _targets(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Subscript):
            for index in target.slice:
                self.names.update(_names_in(index))
        elif isinstance(target, (cst.Tuple, cst.List)):
            for item in target.elements:
                self._targets(item.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._targets(target.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._targets(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._targets(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._targets(node.target)


def _names_in(node: cst.CSTNode) -> set[str]:
    """The plain names anywhere in ``node``."""
    return {found.value for found in walk.descendants(node) if isinstance(found, cst.Name)}


def eager_head(
    body: Sequence[cst.BaseStatement],
    breaking: Sequence[cst.CSTNode],
    ops: Callable[[cst.CSTNode], int],
    targets: Sequence[str] = (),
    shared: Sequence[str] = (),
    unresumable: Sequence[cst.CSTNode] = (),
) -> int:
    """How many leading statements of a loop's body stay in the driver, run eagerly (0: none).

    Each graph break a per-trip frame resumes from costs that trip a frame
    of its own (guards, a graph call). When every break of the body
    (``breaking``) comes before its tensor work, the statements up to the
    last break stay in the driver, which runs them eagerly as it would, and
    the per-trip function holds the rest: one compiled frame per trip.
    Chosen only when the rest holds more inline tensor ops (``ops``) than
    the head, or any when the last break is one Dynamo cannot resume after
    (``unresumable``: a slice by a tensor, which would skip the per-trip
    function from there), and reads nothing the head binds only on some
    paths (the loop's ``targets`` are bound on every trip; names ``shared``
    with the function are the function's, bound or not as they were).
    """
    holders = [i for i, stmt in enumerate(body) if any(contains(stmt, node) for node in breaking)]
    if not holders or holders[-1] + 1 >= len(body):
        return 0
    head, rest = body[: holders[-1] + 1], body[holders[-1] + 1 :]
    rest_ops = sum(map(ops, rest))
    stops = any(contains(body[holders[-1]], node) for node in unresumable)
    if rest_ops <= sum(map(ops, head)) and not (stops and rest_ops):
        return 0
    rest_use = name_use(rest)
    always = {n for stmt in head if isinstance(stmt, cst.SimpleStatementLine) for n in name_use([stmt]).bound}
    always.update(targets, shared)
    if (name_use(head).bound - always) & (rest_use.read | rest_use.closure_read):
        return 0
    return len(head)


class _ExitsToValues(ReplaceLoopControl):
    """The body's own ``continue``, ``break`` and ``return`` as returns of the per-trip function.

    What the function returns says what the driver does next, in plain flags
    (see :func:`_outcome`). Nested loops keep their ``break``/``continue``;
    nested functions, lambdas and classes keep everything.
    """

    def __init__(self, plan: "StepPlan") -> None:
        super().__init__()
        self.plan = plan

    def leave_Continue(self, original_node: cst.Continue, updated_node: cst.Continue) -> cst.BaseSmallStatement:
        if self.depth:
            return updated_node
        return _outcome(self.plan, "next", semicolon=updated_node.semicolon)

    def leave_Break(self, original_node: cst.Break, updated_node: cst.Break) -> cst.BaseSmallStatement:
        if self.depth:
            return updated_node
        return _outcome(self.plan, "break", semicolon=updated_node.semicolon)

    def leave_Return(self, original_node: cst.Return, updated_node: cst.Return) -> cst.Return:
        value = updated_node.value if updated_node.value is not None else cst.Name("None")
        return _outcome(self.plan, "return", value).with_changes(semicolon=updated_node.semicolon)


def _outcome(
    plan: "StepPlan",
    what: str,
    value: Optional[cst.BaseExpression] = None,
    semicolon: Union[cst.Semicolon, cst.MaybeSentinel] = cst.MaybeSentinel.DEFAULT,
) -> cst.Return:
    """The per-trip function's ``return`` for ``what`` ("next", "break", "return") under ``plan``.

    A body that only breaks returns one flag, ``True`` to stop the loop; one
    that only returns gives ``(returned, value)``, as the outlined loop
    itself does; one that does both gives ``(stop, returned, value)``. A
    body that does neither returns nothing.
    """
    stop = cst.Name("True" if what != "next" else "False")
    returned = cst.Name("True" if what == "return" else "False")
    carried = value if value is not None else cst.Name("None")
    items: list[cst.BaseExpression]
    if plan.breaks and plan.returns:
        items = [stop, returned, carried]
    elif plan.returns:
        items = [returned, carried]
    elif plan.breaks:
        return cst.Return(stop, whitespace_after_return=cst.SimpleWhitespace(" "), semicolon=semicolon)
    else:
        return cst.Return(semicolon=semicolon)
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    elements = [
        cst.Element(as_element(item), comma=comma if i < len(items) - 1 else cst.MaybeSentinel.DEFAULT)
        for i, item in enumerate(items)
    ]
    return cst.Return(
        cst.Tuple(elements, lpar=[], rpar=[]),
        whitespace_after_return=cst.SimpleWhitespace(" "),
        semicolon=semicolon,
    )


def _ends_in_return(body: Sequence[cst.BaseStatement]) -> bool:
    last = body[-1] if body else None
    return isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Return)


def _declaration(kind: type, names: Sequence[str]) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([kind([cst.NameItem(cst.Name(n)) for n in names])])


def _call(step: str, params: Sequence[str], as_ints: Sequence[str] = ()) -> cst.Call:
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    args = [
        cst.Arg(
            _as_int(p) if p in as_ints else cst.Name(p),
            comma=comma if i < len(params) - 1 else cst.MaybeSentinel.DEFAULT,
        )
        for i, p in enumerate(params)
    ]
    return cst.Call(cst.Name(step), args)


def _as_int(name: str) -> cst.Call:
    return cst.Call(cst.Name("int"), [cst.Arg(cst.Name(name))])


def _line(statement: cst.BaseSmallStatement) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([statement])


def _if(test: cst.BaseExpression, body: Sequence[cst.BaseStatement], indent: Optional[str]) -> cst.If:
    return cst.If(test=test, body=cst.IndentedBlock(list(body), indent=indent))


def _collected(body: Sequence[cst.BaseStatement], plan: StepPlan) -> list[cst.Call]:
    """The ``results.append(value)`` calls that end ``body`` (one list each, mentioned nowhere
    else in the body), when the per-trip function can return the values and the driver append
    them: the body ends no trip early, and with more than one, each value is a name the body
    binds on every path (the driver binds it from the returned tuple). Empty when not so.

    A list that every trip appends to inside a compiled frame is guarded by its
    length: each trip then compiles the frame again (torch 2.13: a 6-level head
    loop recompiled its per-trip frame 5 times for ``len(outs) == k``, and
    more levels than ``recompile_limit`` run eagerly). Appended by the driver,
    which Dynamo skips, the list is out of the frame's sight.
    """
    calls: list[cst.Call] = []
    for stmt in reversed(body):
        call = _append_of(stmt)
        if call is None:
            break
        calls.insert(0, call)
    if not calls:
        return []
    rest = body[: len(body) - len(calls)]
    if _returns_early(rest):
        return []  # a `continue` became `return`: that trip appends nothing
    lists = [call.func.value.value for call in calls]  # type: ignore[attr-defined]
    values = [call.args[0].value for call in calls]
    if len(set(lists)) != len(lists):
        return []
    shared = {*plan.params, *plan.nonlocals, *plan.globals}
    use = name_use([*rest, *values])
    for name in lists:
        if name in shared or is_generated(name) or name in use.read | use.bound | use.closure_read:
            return []
    if len(calls) > 1:
        names = [value.value for value in values if isinstance(value, cst.Name)]
        if len(names) != len(values) or len(set(names)) != len(names):
            return []
        if any(name in shared or first_unconditional_binding(rest, name) is None for name in names):
            return []
    return calls


def _append_of(stmt: cst.BaseStatement) -> Optional[cst.Call]:
    """The call of ``stmt`` when it is ``name.append(value)`` alone on its line."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    expr = stmt.body[0]
    if not isinstance(expr, cst.Expr) or not isinstance(expr.value, cst.Call):
        return None
    call = expr.value
    method = call.func
    plain = len(call.args) == 1 and not call.args[0].keyword and not call.args[0].star
    if isinstance(method, cst.Attribute) and isinstance(method.value, cst.Name) and method.attr.value == "append":
        return call if plain else None
    return None


def _returns_early(body: Sequence[cst.BaseStatement]) -> bool:
    """Whether ``body`` holds a ``return`` of its own (not one of a nested function)."""
    for stmt in body:
        for node in walk.descendants(stmt, lambda node: type(node) not in NESTED_SCOPES):
            if type(node) is cst.Return:
                return True
    return False


def _tuple(items: Sequence[cst.BaseExpression]) -> cst.Tuple:
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    elements = [
        cst.Element(as_element(item), comma=comma if i < len(items) - 1 else cst.MaybeSentinel.DEFAULT)
        for i, item in enumerate(items)
    ]
    return cst.Tuple(elements, lpar=[], rpar=[])


def _unpack(names: Sequence[str], call: cst.Call) -> cst.SimpleStatementLine:
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    targets = cst.Tuple(
        [
            cst.Element(cst.Name(n), comma=comma if i < len(names) - 1 else cst.MaybeSentinel.DEFAULT)
            for i, n in enumerate(names)
        ],
        lpar=[],
        rpar=[],
    )
    return _line(cst.Assign([cst.AssignTarget(targets)], call))


def build_step(loop: Loop, plan: StepPlan, step: str, number: str, head: int = 0) -> tuple[cst.FunctionDef, Loop]:
    """The per-trip function and the loop that calls it, from ``loop`` (an updated node).

    The loop keeps its header, target, ``else`` clause and the ``head``
    leading statements of its body; the rest becomes one call (and what acts
    on the flags it returns when the body can ``break`` or ``return``; their
    names end in ``number``).
    """
    indent = block_indent(loop)
    kept = body_statements(loop.body)[:head]
    statements = [s.visit(_ExitsToValues(plan)) for s in body_statements(loop.body)[head:]]
    body = [s for s in statements if isinstance(s, cst.BaseStatement)]
    if unconvertible(body) is None:
        converter = FStringsToFormat()
        body = [s for s in (stmt.visit(converter) for stmt in body) if isinstance(s, cst.BaseStatement)]
    declared = plan.nonlocals + plan.globals
    if declared:
        drop = DropAnnotations(declared)
        body = [s for s in (stmt.visit(drop) for stmt in body) if isinstance(s, cst.BaseStatement)]
    if (plan.breaks or plan.returns) and not _ends_in_return(body):
        body.append(_line(_outcome(plan, "next")))
    collected = [] if plan.breaks or plan.returns else _collected(body, plan)
    if collected:
        # The trip's values come back out; the driver appends them.
        appended = [call.args[0].value for call in collected]
        out = appended[0] if len(appended) == 1 else _tuple(appended)
        body = [
            *body[: len(body) - len(collected)],
            _line(cst.Return(out, whitespace_after_return=cst.SimpleWhitespace(" "))),
        ]
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
    call = _call(step, plan.params, plan.as_ints)
    stop, returned, value = (f"_gbfix_{kind}_{number}" for kind in ("stop", "returned", "value"))
    # The driver's own ``return`` becomes the outline's ``return True, value`` (see build_outline).
    give_back = _if(cst.Name(returned), [_line(cst.Return(cst.Name(value)))], indent)
    calls: list[cst.BaseStatement]
    if plan.returns and plan.breaks:
        calls = [
            _unpack([stop, returned, value], call),
            give_back,
            _if(cst.Name(stop), [_line(cst.Break())], indent),
        ]
    elif plan.returns:
        calls = [_unpack([returned, value], call), give_back]
    elif plan.breaks:
        calls = [_if(call, [_line(cst.Break())], indent)]
    elif len(collected) == 1:
        calls = [_line(cst.Expr(collected[0].with_changes(args=[cst.Arg(call)])))]
    elif collected:
        names = [cast(cst.Name, c.args[0].value).value for c in collected]
        calls = [_unpack(names, call), *(_line(cst.Expr(c)) for c in collected)]
    else:
        calls = [_line(cst.Expr(call))]
    calls = [*kept, *calls]
    new_body = (
        loop.body.with_changes(body=calls) if isinstance(loop.body, cst.IndentedBlock) else (cst.IndentedBlock(calls))
    )
    return function, loop.with_changes(body=new_body)


class _InlineDrivers(OwnScopeOnly, cst.CSTTransformer):
    """Puts each inner loop's driver back as its loop, keeping the per-trip functions it defined."""

    def __init__(self) -> None:
        super().__init__()
        self.steps: list[cst.FunctionDef] = []
        self.found = 0
        self.blocked = False

    def leave_IndentedBlock(
        self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        body = list(updated_node.body)
        out: list[cst.BaseStatement] = []
        index = 0
        while index < len(body):
            stmt = body[index]
            if type(stmt) is cst.FunctionDef and helper_kind(stmt.name.value) == "loop":
                inlined = self._inline(stmt, body[index + 1] if index + 1 < len(body) else None)
                if inlined is not None:
                    out.append(inlined)
                    index += 2
                    continue
                self.blocked = True
            out.append(stmt)
            index += 1
        return updated_node.with_changes(body=out)

    def _inline(self, driver: cst.FunctionDef, call: Optional[cst.BaseStatement]) -> Optional[cst.BaseStatement]:
        """The loop ``driver`` runs, when ``call`` calls it plainly and it holds only declarations,
        per-trip functions and the loop (the steps go to ``self.steps``); None otherwise."""
        called = (
            isinstance(call, cst.SimpleStatementLine)
            and len(call.body) == 1
            and isinstance(call.body[0], cst.Expr)
            and isinstance(call.body[0].value, cst.Call)
            and isinstance(call.body[0].value.func, cst.Name)
            and call.body[0].value.func.value == driver.name.value
            and not call.body[0].value.args
        )
        if not called or not isinstance(driver.body, cst.IndentedBlock):
            return None
        loops: list[cst.BaseStatement] = []
        steps: list[cst.FunctionDef] = []
        for stmt in driver.body.body:
            if isinstance(stmt, cst.SimpleStatementLine) and all(
                isinstance(small, (cst.Nonlocal, cst.Global)) for small in stmt.body
            ):
                continue  # the driver's declarations: inline, the names are the enclosing scope's again
            if type(stmt) is cst.FunctionDef and is_generated(stmt.name.value):
                steps.append(stmt)
            elif isinstance(stmt, (cst.For, cst.While)):
                loops.append(stmt)
            else:
                return None
        if len(loops) != 1:
            return None
        self.steps.extend(steps)
        self.found += 1
        assert call is not None
        return loops[0].with_changes(leading_lines=driver.leading_lines)


def inline_inner_drivers(loop: Loop) -> Optional[tuple[Loop, list[cst.FunctionDef]]]:
    """``loop`` (an updated node) with the drivers of the loops inside it put back as their loops,
    and the per-trip functions they defined; None when it holds no driver, or one that cannot go
    back (it returns a value, or holds more than its loop).

    An outlined loop that holds another keeps one helper level: its driver runs
    both loops, and the inner loop's per-trip function is defined in it.
    """
    inliner = _InlineDrivers()
    new_body = loop.body.visit(inliner)
    if inliner.blocked or not inliner.found or not isinstance(new_body, cst.BaseSuite):
        return None
    return loop.with_changes(body=new_body), inliner.steps


def step_nonlocals(step: cst.FunctionDef) -> set[str]:
    """The names a per-trip function declares ``nonlocal``."""
    return name_use(body_statements(step.body)).nonlocal_decl
