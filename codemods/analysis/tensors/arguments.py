"""Which parameter of a function each argument of a call lands in.

The tensor inference (:mod:`codemods.analysis.tensors.cst`) reads one function at
a time, so a helper that pads by its ``paddings`` parameter does not know that
its caller hands it a tuple of tensors (the padding amounts of a convolution,
kept in buffers). The break analysis follows the calls of a file to their
functions and, with :func:`bound_arguments`, tells the callee which of its
parameters a caller fills with a tensor.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from codemods.analysis.nodes import dotted_name


def is_static(func: cst.FunctionDef) -> bool:
    """``func`` is decorated ``@staticmethod``: it has no ``self`` to skip."""
    return any(dotted_name(d.decorator) in ("staticmethod", "builtins.staticmethod") for d in func.decorators)


def bound_arguments(
    call: cst.Call, func: cst.FunctionDef, through_instance: bool
) -> Iterator[tuple[str, cst.BaseExpression]]:
    """(parameter, argument) pairs of ``call`` to ``func``, as far as they can be told apart.

    ``through_instance``: the call is ``self.m(...)`` of a method, whose first
    parameter is ``self`` (not for a static method). Positional arguments stop
    at the first ``*args``; keywords are matched by name; a ``**kwargs``
    argument ends the matching of nothing else, since it names nothing.
    """
    params = func.params
    positional = [*params.posonly_params, *params.params]
    if through_instance and not is_static(func):
        positional = positional[1:]
    by_name = {p.name.value: p for p in (*params.params, *params.kwonly_params)}
    at = 0
    for arg in call.args:
        if arg.star:
            if arg.star == "*":
                at = len(positional)  # the rest cannot be told apart
            continue
        if arg.keyword is not None:
            if arg.keyword.value in by_name:
                yield arg.keyword.value, arg.value
            continue
        if at < len(positional):
            yield positional[at].name.value, arg.value
            at += 1
