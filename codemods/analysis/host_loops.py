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
"""

from __future__ import annotations

from typing import Optional, Union

import libcst as cst

from codemods.analysis.names.bindings import function_scope_use
from codemods.analysis.nodes import ITEM_BUILTINS, NESTED_SCOPES, dotted_name
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
