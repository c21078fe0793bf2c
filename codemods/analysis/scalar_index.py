"""Indices a per-trip function is handed as Python ints instead of 0-d integer tensors.

A per-expert loop holds each expert's number as a 0-d integer tensor
(``for expert_idx in expert_hit: expert_idx = expert_idx[0]`` over the rows
of a ``nonzero()`` result) and selects that expert's weights with it
(``self.gate_up_proj[expert_idx]``). In a per-trip function that index is a
graph input, and selecting by it needs its value while the graph is traced
(``aten._local_scalar_dense``): measured on torch 2.13 on a tiny Mixtral,
the eager backend runs such a graph, but ``inductor`` and ``aot_eager``
fail on it ("Backend compiler exception"), so the per-trip function runs
eagerly after all, every trip. Handed ``int(expert_idx)``, the function is
compiled for the first value and again, once, with the int dynamic; the
graph selects by a symbolic int, which every backend compiles. Measured
(interleaved in one process, after/before the rewrite): inductor, medium
size, 0.97-1.02 -> 0.93-0.96; eager backend, tiny size, 1.03-1.07 ->
0.98-1.00.

Exact only where an int and the tensor behave alike: a 0-d *integer* tensor
(a bool one would be a mask, a 1-element 1-d one keeps its dimension), on
evidence (``Tensor.nonzero()``, ``torch.nonzero``/``torch.argwhere``, a row
of one by a loop, an element by a constant subscript); used by the function
only as the whole index of a subscript of a tensor, a ``Parameter`` or buffer,
or a module list (a dict would look the int up, not the tensor). Outside the
function the loop keeps the tensor. ``int()`` of it reads the value, which
indexing with it reads anyway.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Optional

import libcst as cst

from codemods.analysis.names.bindings import name_use, rebinding
from codemods.analysis.nodes import (
    body_statements,
    dotted_name,
    self_attribute,
    self_attributes_made,
    single_assignment,
)
from codemods.analysis.tensors.cst import TENSOR, TensorFacts
from codemods.fastcst import walk

#: calls that make a 2-d integer tensor of indices (with no ``as_tuple``)
_INDEX_FUNCTIONS = frozenset({"nonzero", "argwhere"})
#: constructors whose instance an int indexes as the 0-d tensor would
INDEXABLE_CLASSES = frozenset({"Parameter", "Buffer", "ModuleList", "Sequential", "ParameterList"})


def int_indices(
    loop: cst.BaseCompoundStatement,
    head: int,
    params: Sequence[str],
    facts: TensorFacts,
    cls: Optional[cst.ClassDef],
    module: cst.Module,
) -> list[str]:
    """Which of ``params`` (names the per-trip function of ``loop`` takes) to hand it as ints.

    ``head``: the leading statements of the body that stay in the loop;
    the function holds the rest (see :mod:`codemods.analysis.per_iteration`).
    ``module``: the file, which must leave ``int`` the builtin.
    """
    if not isinstance(loop, cst.For) or not isinstance(loop.target, cst.Name):
        return []
    statements = body_statements(loop.body)
    ranks: dict[str, int] = {}
    rank = _rank(loop.iter, ranks, facts)
    if rank is None or rank < 1:
        return []
    ranks[loop.target.value] = rank - 1
    for stmt in statements[:head]:
        assigned = single_assignment(stmt)
        element = _rank(assigned[1], ranks, facts) if assigned is not None else None
        for name in name_use([stmt]).bound:
            ranks.pop(name, None)
        if assigned is not None and element is not None:
            ranks[assigned[0]] = element
    body = statements[head:]
    indexable = _indexable_attributes(cls)
    rebound = name_use(body).bound
    found = [
        name
        for name in params
        if ranks.get(name) == 0 and name not in rebound and _only_indexes(body, name, facts, indexable)
    ]
    return found if found and not rebinding(module, "int") else []


def _rank(expr: cst.BaseExpression, ranks: dict[str, int], facts: TensorFacts, follow: bool = True) -> Optional[int]:
    """The number of dimensions of ``expr``, known to be an integer tensor; None if not known.

    ``ranks``: names bound so far in the loop; another name is followed, one step (``follow``),
    to its value when one ``name = value`` in the function is its only binding.
    """
    if isinstance(expr, cst.Name):
        if expr.value in ranks:
            return ranks[expr.value]
        value = facts.assigned_once(expr.value) if follow else None
        return _rank(value, {}, facts, follow=False) if value is not None else None
    if isinstance(expr, cst.Subscript) and len(expr.slice) == 1:
        index = expr.slice[0].slice
        if isinstance(index, cst.Index) and isinstance(index.value, cst.Integer) and index.star is None:
            base = _rank(expr.value, ranks, facts, follow)
            return base - 1 if base else None
        return None
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        if any(arg.keyword is not None for arg in expr.args) or expr.func.attr.value not in _INDEX_FUNCTIONS:
            return None
        if dotted_name(expr.func.value) in facts.torch_names and len(expr.args) == 1 and expr.args[0].star == "":
            return 2  # torch.nonzero(x), torch.argwhere(x)
        if expr.func.attr.value == "nonzero" and not expr.args:
            return 2 if facts.kind(expr.func.value) == TENSOR else None  # x.nonzero()
    return None


def _indexable_attributes(cls: Optional[cst.ClassDef]) -> frozenset[str]:
    """``self`` attributes the class assigns a ``Parameter``, buffer or module list
    (``self.w = nn.Parameter(...)``, ``self.register_buffer("w", ...)``)."""
    if cls is None:
        return frozenset()
    found = self_attributes_made(cls, lambda name: name.rpartition(".")[2] in INDEXABLE_CLASSES)
    for node in walk.descendants(cls.body):
        if isinstance(node, cst.Call) and (dotted_name(node.func) or "") == "self.register_buffer" and node.args:
            first = node.args[0].value
            if isinstance(first, cst.SimpleString):
                found.add(first.evaluated_value if isinstance(first.evaluated_value, str) else "")
    return frozenset(found)


def _only_indexes(body: Iterable[cst.BaseStatement], name: str, facts: TensorFacts, indexable: frozenset[str]) -> bool:
    """Whether every mention of ``name`` in ``body`` is the whole index of a subscript of
    something an int indexes as a 0-d integer tensor does (at least one)."""
    mentions = 0
    indexes = 0
    for stmt in body:
        for node in walk.descendants(stmt):
            if isinstance(node, cst.Name) and node.value == name:
                mentions += 1
            elif isinstance(node, cst.Subscript) and _is_index_of(node, name, facts, indexable):
                indexes += 1
    return indexes > 0 and mentions == indexes


def _is_index_of(node: cst.Subscript, name: str, facts: TensorFacts, indexable: frozenset[str]) -> bool:
    if len(node.slice) != 1:
        return False
    index = node.slice[0].slice
    if not (isinstance(index, cst.Index) and index.star is None and isinstance(index.value, cst.Name)):
        return False
    if index.value.value != name:
        return False
    if self_attribute(node.value) in indexable:
        return True
    return facts.kind(node.value) == TENSOR
