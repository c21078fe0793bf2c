"""What a file's callers hand a function: which parameter each argument lands in, and the
padding entry that reads it (``F.pad`` breaks only when an amount is a tensor)."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper

from codemods.analysis.breaks.cst import BreakProvider
from codemods.analysis.tensors.arguments import bound_arguments


def _call_and_def(source: str) -> tuple[cst.Call, cst.FunctionDef]:
    module = cst.parse_module(textwrap.dedent(source))
    func = next(s for s in module.body if isinstance(s, cst.FunctionDef) or isinstance(s, cst.ClassDef))
    if isinstance(func, cst.ClassDef):
        func = next(s for s in func.body.body if isinstance(s, cst.FunctionDef))
    stmt = module.body[-1]
    assert isinstance(stmt, cst.SimpleStatementLine)
    expr = stmt.body[0]
    assert isinstance(expr, cst.Expr) and isinstance(expr.value, cst.Call)
    return expr.value, func


def _pairs(source: str, through_instance: bool = False) -> list[tuple[str, str]]:
    call, func = _call_and_def(source)
    return [(p, cst.Module([]).code_for_node(v)) for p, v in bound_arguments(call, func, through_instance)]


def test_positional_and_keyword_arguments() -> None:
    assert _pairs("def f(a, b, *, c=1): ...\nf(x, c=z, b=y)\n") == [("a", "x"), ("c", "z"), ("b", "y")]


def test_a_star_argument_ends_the_positional_ones() -> None:
    assert _pairs("def f(a, b, c): ...\nf(x, *rest, c=z)\n") == [("a", "x"), ("c", "z")]


def test_self_is_skipped_for_a_method_not_for_a_static_method() -> None:
    method = "class A:\n    def m(self, a, b): ...\nself.m(x, y)\n"
    static = "class A:\n    @staticmethod\n    def m(a, b): ...\nself.m(x, y)\n"
    assert _pairs(method, through_instance=True) == [("a", "x"), ("b", "y")]
    assert _pairs(static, through_instance=True) == [("a", "x"), ("b", "y")]
    assert _pairs("def m(self, a): ...\nm(x, y)\n") == [("self", "x"), ("a", "y")]


_PAD = """
import torch
from torch import nn


class Conv(nn.Module):
    def __init__(self):
        super().__init__()
        self.total = nn.Buffer(torch.tensor(2))

    def _extra(self, x: torch.Tensor) -> torch.Tensor:
        return self.total * 0

    @staticmethod
    def _pad1d(x: torch.Tensor, paddings: tuple[int, int]):
        return nn.functional.pad(x, paddings)

    def forward(self, x):
        return self._pad1d(x, {amounts})
"""


def _pad_breaks(amounts: str) -> bool:
    module = cst.parse_module(_PAD.format(amounts=amounts))
    found = MetadataWrapper(module).resolve(BreakProvider)
    return any(
        isinstance(node, cst.Call) and reason is not None and "padding" in reason.describe()
        for node, reason in found.items()
    )


@pytest.mark.parametrize(
    ("amounts", "breaks"),
    [
        ("(0, self._extra(x))", True),  # a method annotated to return a tensor
        ("(x.sum().long(), 0)", True),  # a tensor made in the caller
        ("(1, x.shape[-1] % 2)", False),  # numbers
        ("(self.total, 0)", False),  # an attribute of unknown kind: not a tensor on evidence
    ],
)
def test_padding_breaks_only_on_amounts_held_in_tensors(amounts: str, breaks: bool) -> None:
    assert _pad_breaks(amounts) is breaks
