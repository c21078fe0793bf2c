"""Indexing with a boolean mask: which subscripts the break analysis marks, and that the prefilter keeps them."""

from __future__ import annotations

import libcst as cst
import pytest

from codemods.analysis.breaks.cst import BreakProvider
from codemods.fastcst.walk import ReadOnlyMetadataWrapper
from rewriter.prefilter.facts import ScreenFacts

_HEAD = "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x, attention_mask, scores, idx, m):\n"


def _marked(body: str) -> list[str]:
    """The code of every subscript the break analysis marks in ``forward``'s loop."""
    source = _HEAD + "        for blk in self.blocks:\n" + "".join(f"            {line}\n" for line in body.split("\n"))
    wrapper = ReadOnlyMetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
    found = wrapper.resolve(BreakProvider)
    marked = [cst.Module([]).code_for_node(n) for n, r in found.items() if isinstance(n, cst.Subscript) and r]
    if marked:
        assert ("for", 6) in ScreenFacts(source).candidates()
    return marked


@pytest.mark.parametrize(
    "body",
    [
        "x = x[x > 0]",
        "x = x[x.sum(-1) != 0]",
        "mask = scores > 0.5\nx = x[mask]",
        "keep = attention_mask.bool()\nx = x[keep]",
        "keep = attention_mask.bool()\nx = x[~keep]",
        "a = x > 0\nb = torch.isfinite(x)\nx = x[a & b]",
        "x = x[torch.isfinite(x)]",
        "x = x[x.eq(scores)]",
        "x = x[torch.logical_and(x > 0, scores < 1)]",
        "x[x > 2] += 1.0",
        "y = [x[x > 0] for _ in range(2)]",
    ],
)
def test_a_read_through_a_mask_is_marked(body: str) -> None:
    assert len(_marked(body)) == 1


@pytest.mark.parametrize(
    "body",
    [
        "x = x[idx]",  # an index of integers
        "x = x[m]",  # a tensor of unknown dtype
        "x[x > 2] = 0.0",  # index_put
        "x[x > 2], y = 0.0, 1",
        "x = x[x > 0,]",  # a tuple
        "x = x[x > 0, 1]",
        "x = x[0 < x < 1]",  # a chained comparison takes a truth value
        "x = x[x is None]",
        "mask = scores > 0.5\nmask = mask & (x > 0)\nx = x[mask]",  # bound twice
        "mask = (\n    scores > 0.5\n)\nx = x[mask]",  # bound over two lines
        "x = x[\n    x > 0\n]",  # written over two lines
        "x = [1, 2][x > 0]",  # a list
        "x = x[idx & m]",
    ],
)
def test_other_subscripts_are_not(body: str) -> None:
    assert _marked(body) == []


def test_a_parameter_of_a_plain_function_is_unknown() -> None:
    source = "def f(x, mask):\n    for _ in range(3):\n        x = x[x > 0] + x[mask].sum()\n    return x\n"
    wrapper = ReadOnlyMetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
    assert not [n for n, r in wrapper.resolve(BreakProvider).items() if r is not None]
