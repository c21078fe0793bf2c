"""Loops over values read from the device: host work that compiling per trip does not pay for.

``for key, group in itertools.groupby(enumerate(types.tolist()), ...)``
walks Python numbers that ``.tolist()`` copied off a tensor, and so does
``for t, h, w in sizes:`` after ``sizes = grid.tolist()``. The code
around such a loop is bookkeeping on the host (the run lengths of token
types, then position ids sized by them), not model compute: its tensor ops
are small index tensors whose sizes are those numbers. A per-trip function
wrapped around it compiles a frame that Dynamo guards and calls on every
trip to run a handful of such ops, and breaks again at the next read.
Measured on torch 2.13, CPU, qwen2-vl at tiny size: its ``get_rope_index``
rewritten so runs 1.05-1.06x slower (eager backend) and 1.03-1.05x
(inductor) than as written, where Dynamo skips it once and never looks
again.

:func:`host_loop` finds such a loop in a loop's own code, for the rules
that decide whether a breaking loop is worth rewriting.

:func:`host_results` judges a loop by what it computes instead: a loop whose
results are Python values (lists of ints or strings, an alignment's
backtrace, a decoded sequence's bookkeeping) is host work whatever it runs
over.
"""

from __future__ import annotations

from typing import Optional, Union

import libcst as cst

from codemods.analysis.names.bindings import function_scope_use, name_use, target_names
from codemods.analysis.nodes import ITEM_BUILTINS, NESTED_SCOPES, dotted_name
from codemods.analysis.tensors.cst import OTHER, TensorFacts
from codemods.fastcst import walk

#: calls whose result runs over (some of) the items of their positional arguments
_PASS_ITEMS = ITEM_BUILTINS | {
    "itertools.groupby",
    "groupby",
    "itertools.islice",
    "itertools.chain",
    "itertools.pairwise",
}


def reads_device_values(iterable: cst.BaseExpression, names: frozenset[str] = frozenset()) -> bool:
    """Whether iterating ``iterable`` walks values a ``.tolist()`` copied off a tensor, directly or
    through calls that pass items on (``enumerate``, ``zip``, ``itertools.groupby``, ...); ``names``
    hold such values (:func:`device_value_names`)."""
    if isinstance(iterable, cst.Name):
        return iterable.value in names
    if not isinstance(iterable, cst.Call):
        return False
    func = iterable.func
    if isinstance(func, cst.Attribute) and func.attr.value == "tolist" and not iterable.args:
        return True
    if dotted_name(func) not in _PASS_ITEMS:
        return False
    return any(not arg.keyword and reads_device_values(arg.value, names) for arg in iterable.args)


def device_value_names(func: cst.FunctionDef) -> frozenset[str]:
    """Names ``func``'s own code binds to values read from the device and to nothing else:
    every binding of each is ``name = <iterable that walks such values>`` (``sizes = grid.tolist()``)."""

    def enter(inner: cst.CSTNode) -> bool:
        return type(inner) not in NESTED_SCOPES

    reads: dict[str, list[cst.Assign]] = {}
    for node in walk.descendants(func.body, enter=enter):
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and reads_device_values(node.value):
            target = node.targets[0].target
            if isinstance(target, cst.Name):
                reads.setdefault(target.value, []).append(node)
    if not reads:
        return frozenset()
    # A name bound any other way too (a parameter, a loop target, another assignment) may hold anything.
    elsewhere = function_scope_use(func, *(node for nodes in reads.values() for node in nodes)).bound
    return frozenset(reads) - elsewhere


def host_loop(node: Union[cst.For, cst.While], names: frozenset[str] = frozenset()) -> Optional[cst.For]:
    """``node`` itself, or the first ``for`` loop of its body (not of functions it defines), that
    runs over values read from the device; None when there is none. ``names``: as for
    :func:`reads_device_values`."""

    def enter(inner: cst.CSTNode) -> bool:
        return type(inner) not in NESTED_SCOPES

    for inner in (node, *walk.descendants(node.body, enter=enter)):
        if isinstance(inner, cst.For) and reads_device_values(inner.iter, names):
            return inner
    return None


# -- loops whose results are Python values ----------------------------------------------------

#: list, set and dict methods that store their (last) argument in the receiver
_STORES = frozenset({"append", "insert", "extend", "add", "update", "setdefault"})
#: builtins whose result holds (some of) the items of their arguments
_HOLDING = frozenset({"list", "tuple", "set", "sorted", "reversed", "zip", "enumerate", "dict", "frozenset"})
#: builtins whose result is a Python value when their arguments are (``round(t)`` of a tensor is a tensor)
_PLAIN_OF_PLAIN = frozenset({"round", "abs", "min", "max", "sum", "divmod", "pow"})
#: statement calls that only write output on the host
_OUTPUT_HEADS = ("print", "logger.", "logging.", "warnings.", "log.", "self.logger.")


def host_results(loop: Union[cst.For, cst.While], func: cst.FunctionDef, facts: TensorFacts) -> str:
    """What ``loop`` leaves behind when all of it is Python values (``"Python values
    (`as_list`)"``), or "" when it leaves nothing, some result is, or may be, a tensor, or the
    loop has an effect the analysis cannot see (a call whose result it drops, ``yield``).

    Judged from what the loop computes, on the tensor analysis' evidence
    (:mod:`codemods.analysis.tensors.cst`): what it stores into a list, set
    or dict (``xs.append(v)``, ``xs.insert(0, v)``, ``d[k] = v``), the names
    it binds that code outside it reads, and what it returns must be plain
    values (``.item()``, ``.tolist()``, ``int()``, literals, displays of
    such); an unknown value is taken for a tensor. Tensor ops used only to
    compute such values are host bookkeeping: a frame per trip around them
    captures ops whose results leave the graph at once.
    """

    def enter(node: cst.CSTNode) -> bool:
        return type(node) not in NESTED_SCOPES

    stored: set[str] = set()
    values = _assigned_values(func)

    def plain(expr: cst.BaseExpression) -> bool:
        return _plain_value(expr, facts, values, set())

    for node in walk.descendants(loop.body, enter=enter):
        if isinstance(node, (cst.Yield, cst.Await)):
            return ""
        if isinstance(node, cst.Return) and node.value is not None and not plain(node.value):
            return ""
        if isinstance(node, cst.Expr) and isinstance(node.value, cst.Call):
            call = node.value
            receiver = _stored_into(call)
            if receiver is not None:
                if not all(plain(arg.value) for arg in call.args[-1:]):
                    return ""
                stored.add(receiver)
            elif not (dotted_name(call.func) or "").startswith(_OUTPUT_HEADS):
                return ""  # a call made for its effect: it may change a tensor or a module
        elif isinstance(node, cst.Expr) and not isinstance(node.value, (cst.SimpleString, cst.ConcatenatedString)):
            return ""
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            targets = node.targets if isinstance(node, cst.Assign) else [node]
            for target in targets:
                written = target.target
                if isinstance(written, cst.Subscript):
                    # ``d[k] = v`` stores into a container; into a tensor it is tensor work
                    if facts.kind(written.value) != OTHER or node.value is None or not plain(node.value):
                        return ""
                    stored.add(dotted_name(written.value) or "")
                elif isinstance(written, cst.Attribute):
                    return ""  # ``self.cache = ...``: state outside the loop
    read_outside = function_scope_use(func, loop).read
    bound = name_use([loop.body]).bound | (set(target_names(loop.target)) if isinstance(loop, cst.For) else set())
    results = sorted(name for name in bound & read_outside if name not in stored)
    if not all(plain(cst.Name(name)) for name in results):
        return ""
    shown = ", ".join(f"`{name}`" for name in sorted(stored | set(results)) if name)
    # A loop that computes nothing for later (it only prints) is no bookkeeping: what its fix
    # brings into graphs is the work around it.
    return f"Python values ({shown})" if shown else ""


def _stored_into(call: cst.Call) -> Optional[str]:
    """``xs`` of ``xs.append(v)`` (a list, set or dict method that stores an argument), else None."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value in _STORES and call.args:
        receiver = func.value
        while isinstance(receiver, cst.Subscript):
            receiver = receiver.value  # ``result["bad"].append(i)``: a container in a container
        # a local container; ``self.update(...)`` is a method call with effects of its own
        if isinstance(receiver, cst.Name) and receiver.value != "self":
            return receiver.value
    return None


#: what a name unpacked from an unknown value stands for: no evidence of a Python value
_UNKNOWN_VALUE = cst.Name("_gbfix_unknown_value")


def _assigned_values(func: cst.FunctionDef) -> dict[str, list[cst.BaseExpression]]:
    """Name -> the values ``func``'s own code assigns it (``x = v``, ``x: T = v``, and ``v`` of ``x += v``)."""

    def enter(node: cst.CSTNode) -> bool:
        return type(node) not in NESTED_SCOPES

    found: dict[str, list[cst.BaseExpression]] = {}
    for node in walk.descendants(func.body, enter=enter):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                _bind(found, target.target, node.value)
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)) and isinstance(node.target, cst.Name):
            if node.value is not None:
                found.setdefault(node.target.value, []).append(node.value)
    return found


def _bind(found: dict[str, list[cst.BaseExpression]], target: cst.BaseExpression, value: cst.BaseExpression) -> None:
    """Record what ``target = value`` gives each name of ``target`` (a module-level function: a
    nested recursive one would hold the tree in a reference cycle)."""
    if isinstance(target, cst.Name):
        found.setdefault(target.value, []).append(value)
    elif isinstance(target, (cst.Tuple, cst.List)):
        parts = value.elements if isinstance(value, (cst.Tuple, cst.List)) else ()
        paired = len(parts) == len(target.elements) and not any(
            isinstance(e, cst.StarredElement) for e in (*parts, *target.elements)
        )
        for at, element in enumerate(target.elements):
            # ``a, b = f()``: what each name gets is not known here
            _bind(found, element.value, parts[at].value if paired else _UNKNOWN_VALUE)


def _plain_value(
    expr: cst.BaseExpression, facts: TensorFacts, values: dict[str, list[cst.BaseExpression]], seen: set[str]
) -> bool:
    """Whether ``expr`` is a Python value on evidence: a display only of such values, a name every
    assignment gives one (and the tensor analysis calls plain), or what the tensor analysis calls
    plain (an unknown is no plain value; a display of tensors is no plain value here)."""

    def plain(inner: cst.BaseExpression) -> bool:
        return _plain_value(inner, facts, values, seen)

    if isinstance(expr, (cst.List, cst.Tuple, cst.Set)):
        return all(plain(element.value) for element in expr.elements)
    if isinstance(expr, cst.Dict):
        return all(isinstance(element, cst.DictElement) and plain(element.value) for element in expr.elements)
    if isinstance(expr, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
        return plain(expr.elt)
    if isinstance(expr, cst.IfExp):
        return plain(expr.body) and plain(expr.orelse)
    if isinstance(expr, cst.BinaryOperation):
        return plain(expr.left) and plain(expr.right)
    if isinstance(expr, cst.Call) and dotted_name(expr.func) in _HOLDING | _PLAIN_OF_PLAIN:
        return all(plain(arg.value) for arg in expr.args)
    if isinstance(expr, cst.Name) and expr.value in values:
        if expr.value in seen:
            return True  # its other assignments decide
        seen.add(expr.value)
        return facts.kind(expr) == OTHER and all(plain(value) for value in values[expr.value])
    return facts.kind(expr) == OTHER
