"""Submodules a class is handed, exported entries, masks made with ``dtype=torch.bool``, and
slices by a parameter that a call hands a tensor's element.

Each case is read twice, screened as a batch screens it and whole, and both
readings must agree with what the case says: the screen lets through what
the libcst analysis finds, and the analysis finds the break Dynamo skips on.
"""

from __future__ import annotations

import pytest

from codemods.analysis.names import class_like
from rewriter.engine import pipeline as engine
from rewriter.engine.config import Settings
from rewriter.prefilter.screen import Screening

LAYER = """\
import torch
from torch import nn


class _Layer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.proj = nn.Linear(width, width)

    def forward(self, h):
        if h.sum() > 0:
            h = -h
        return self.proj(h)

    def step(self, h):
        return h * h.argmax().item()


class Plain(nn.Module):
    def forward(self, h):
        return h.relu()
"""

GATE = """\
import torch
from torch import nn


def gate(acts, width):
    return torch.tanh(acts[:, :width]) * torch.sigmoid(acts[:, width:])
"""

#: each case's source; the loops gbfix must find end their header line with ``# found``
CASES = {
    # the loop's call hands the slice bound an element of a tensor
    "slice_by_handed_element": GATE
    + """

class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv1d(4, 8, 1) for _ in range(3)])

    def forward(self, x):
        widths = torch.IntTensor([4])
        for conv in self.convs:  # found
            x = gate(conv(x), widths[0]) + x
        return x
""",
    # a call outside the loop hands the tensor: the function the loop calls breaks
    "slice_by_element_from_another_caller": GATE
    + """

def warm(acts, sizes):
    return gate(acts, sizes[0])


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv1d(4, 8, 1) for _ in range(3)])

    def forward(self, x, width):
        for conv in self.convs:  # found
            x = gate(conv(x), width) + x
        return x
""",
    # handed ints only (a shape's element, an attribute): no break
    "slice_by_handed_int": GATE
    + """

class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.width = 4
        self.convs = nn.ModuleList([nn.Conv1d(4, 8, 1) for _ in range(3)])

    def forward(self, x):
        for conv in self.convs:
            h = conv(x)
            x = gate(h, h.shape[1] // 2) + gate(h, self.width) + x
        return x
""",
    # a method, the tensor handed by keyword
    "slice_by_handed_keyword_to_method": """\
import torch
from torch import nn


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv1d(4, 8, 1) for _ in range(3)])

    def _split(self, acts, *, width):
        return acts[:, width:] * 2

    def forward(self, x, lengths):
        for conv in self.convs:  # found
            x = x + self._split(conv(x), width=lengths.max())
        return x
""",
    # the subclass builds the layers and hands them to its base's ``__init__``
    "handed_to_super": LAYER
    + """

class _Stack(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.layers = layers

    def forward(self, h):
        for layer in self.layers:  # found
            h = layer(h).tanh() + h
        return h


class Encoder(_Stack):
    def __init__(self):
        layers = nn.ModuleList([_Layer(4) for _ in range(3)])
        super().__init__(layers)
""",
    # another class's ``__init__`` builds the stack with the layers as its argument
    "handed_to_constructor": LAYER
    + """

class Stack(nn.Module):
    def __init__(self, blocks, scale=1.0):
        super().__init__()
        self.blocks = blocks
        self.scale = scale

    def forward(self, h):
        for block in self.blocks:  # found
            h = block(h) * self.scale
        return h


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.stack = Stack(nn.ModuleList([_Layer(4), _Layer(4)]), scale=0.5)

    def forward(self, h):
        return self.stack(h)
""",
    # handed a module that does not break: nothing to report
    "handed_plain": LAYER
    + """

class Stack(nn.Module):
    def __init__(self, blocks):
        super().__init__()
        self.blocks = blocks

    def forward(self, h):
        for block in self.blocks:
            h = block(h) + h
        return h


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.stack = Stack(nn.ModuleList([Plain(), Plain()]))

    def forward(self, h):
        return self.stack(h)
""",
    # a method of a loop's submodule, and of a submodule attribute, from an exported entry
    "exported_method_calls": LAYER
    + """

class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([_Layer(4) for _ in range(2)])
        self.last = _Layer(4)

    def forward(self, h):
        return h

    @torch.jit.export
    def infer(self, h):
        for layer in self.layers:  # found
            h = layer.step(h) + 1
        return h

    @torch.jit.export
    def refine(self, h):
        for _ in range(3):  # found
            h = self.last.step(h) * 2
        return h
""",
    # the same loop in a method nothing exports or calls: not compiled code
    "unexported_method": LAYER
    + """

class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([_Layer(4) for _ in range(2)])

    def forward(self, h):
        return h

    def infer(self, h):
        for layer in self.layers:
            h = layer.step(h) + 1
        return h
""",
    # an exported method's parameters are its module's inputs, as ``forward``'s are, however imported
    "exported_inputs": """\
import torch
from torch import nn
from torch.jit import export


class Decoder(nn.Module):
    def forward(self, x):
        return x

    @export
    def infer(self, x, steps=3):
        for _ in range(steps):  # found
            if x.sum() > 0:
                x = x - 1
        return x
""",
    # a mask made with ``dtype=torch.bool``, or cast to it, indexes inside the loop
    "bool_dtype_mask": """\
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        done = torch.zeros(4, dtype=torch.bool)
        keep = (x * 0).to(torch.bool)
        lengths = torch.zeros(4, dtype=torch.long)
        for i in range(3):  # found
            x = x * 2
            lengths[~done] += 1
            x = x + x[keep].sum()
        return x, lengths
""",
    # the same with an integer dtype: indexing by it is no mask
    "long_dtype_index": """\
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        picked = torch.zeros(2, dtype=torch.long)
        for i in range(3):
            x = x * 2 + x[picked].sum()
        return x
""",
}


def _lines(source: str, screened: bool) -> set[int]:
    if screened:
        outcome = engine.transform_source(source, "model.py", Settings())
    else:
        real = engine._screen
        engine._screen = lambda *args, **kwargs: Screening(parse=True, python_error=None)
        try:
            outcome = engine.transform_source(source, "model.py", Settings())
        finally:
            engine._screen = real
    return {f.line for f in outcome.findings if f.code in ("GBF001", "GBF002")}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("screened", [True, False], ids=["screened", "whole"])
def test_loops_found(name: str, screened: bool) -> None:
    source = CASES[name]
    found = {number for number, line in enumerate(source.split("\n"), 1) if line.endswith("# found")}
    assert _lines(source, screened) == found


def test_class_like_names() -> None:
    assert class_like("Block") and class_like("_EmformerLayer") and class_like("__Private")
    assert not class_like("block") and not class_like("_helper") and not class_like("_") and not class_like("")
