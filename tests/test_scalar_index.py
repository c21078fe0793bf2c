"""Which indices a per-trip function is handed as ints (codemods.analysis.scalar_index).

Only a 0-d integer tensor on evidence, used by the function only as the
whole index of a tensor, a Parameter or a module list, is handed as
``int(...)``: anywhere else an int and the tensor may behave apart.
"""

from __future__ import annotations

import pytest

from rewriter.engine.config import Settings
from rewriter.engine.pipeline import transform_source

SETTINGS = Settings(select=("GBF002",), reach="all")

TEMPLATE = """\
import torch
from torch import nn


class Experts(nn.Module):
    def __init__(self):
        super().__init__()
        self.n = 4
        self.w = {weights}
        self.table = {{0: 1.0}}

    def forward(self, x, top):
        out = torch.zeros_like(x)
        mask = nn.functional.one_hot(top, num_classes=self.n).permute(1, 0)
        hit = {hit}
        for idx in hit:
            idx = {element}
            if idx == self.n:
                continue
            (rows,) = torch.where(mask[idx])
            picked = x[rows]
            picked = picked * 2 + picked.sin()
            out.index_add_(0, rows, {use})
        return out
"""

BASE = {
    "weights": "nn.Parameter(torch.ones(4, 3))",
    "hit": "(mask.sum(dim=-1) > 0).nonzero()",
    "element": "idx[0]",
    "use": "picked * self.w[idx]",
}


def _call_of(**changes: str) -> str:
    source = TEMPLATE.format(**{**BASE, **changes})
    outcome = transform_source(source, "experts.py", SETTINGS)
    assert outcome.new_text is not None, "the loop should be rewritten"
    calls = [line.strip() for line in outcome.new_text.splitlines() if line.strip().startswith("_gbfix_idx_step_")]
    assert len(calls) == 1, outcome.new_text
    return calls[0]


def test_a_row_element_of_nonzero_indexing_a_parameter_is_handed_as_int() -> None:
    assert _call_of().startswith("_gbfix_idx_step_2(int(idx), ")


@pytest.mark.parametrize(
    "changes",
    [
        pytest.param({"hit": "torch.nonzero(mask.sum(dim=-1) > 0)"}, id="torch.nonzero"),
        pytest.param({"hit": "torch.argwhere(mask.sum(dim=-1) > 0)"}, id="torch.argwhere"),
        pytest.param({"weights": "nn.ParameterList([nn.Parameter(torch.ones(3)) for _ in range(4)])"}, id="list"),
        pytest.param({"use": "picked * torch.ones(4, 3)[idx]"}, id="a tensor made here"),
    ],
)
def test_other_evidence_hands_it_as_int(changes: dict[str, str]) -> None:
    assert _call_of(**changes).startswith("_gbfix_idx_step_2(int(idx), ")


@pytest.mark.parametrize(
    "changes",
    [
        pytest.param({"use": "picked * (idx + 1)"}, id="arithmetic: an int would make a Python value"),
        pytest.param({"use": "picked * self.w[idx] * idx"}, id="also used outside an index"),
        pytest.param({"use": "picked * self.table[idx]"}, id="a dict looks the int up, not the tensor"),
        pytest.param({"weights": "make_weights()"}, id="a receiver of unknown kind"),
        pytest.param({"element": "idx"}, id="a 1-d row keeps its dimension as an index"),
        pytest.param({"hit": "(mask.sum(dim=-1) > 0).nonzero(as_tuple=False)"}, id="a keyword: not read"),
        pytest.param({"hit": "mask.sum(dim=-1) > 0"}, id="a bool tensor is a mask"),
        pytest.param({"use": "picked * self.w[idx, 0]"}, id="part of a tuple index"),
    ],
)
def test_anything_less_keeps_the_tensor(changes: dict[str, str]) -> None:
    call = _call_of(**changes)
    assert "int(" not in call, call


def test_a_file_that_may_rebind_int_keeps_the_tensor() -> None:
    source = TEMPLATE.format(**BASE).replace("import torch\n", "import torch\nfrom numpy import *\n", 1)
    outcome = transform_source(source, "experts.py", SETTINGS)
    assert outcome.new_text is not None and "_gbfix_idx_step_2(idx, " in outcome.new_text
    assert "int(idx)" not in outcome.new_text


def test_a_registered_buffer_is_indexed_by_int_screened_or_not() -> None:
    # The screen shows libcst a skeleton: it must keep the `register_buffer` line the evidence is read from.
    source = TEMPLATE.format(**{**BASE, "weights": "None"}).replace(
        "        self.table = {0: 1.0}\n",
        '        self.table = {0: 1.0}\n        self.register_buffer("w", torch.ones(4, 3))\n',
    )
    assert 'self.register_buffer("w"' in source
    outcome = transform_source(source, "experts.py", SETTINGS)
    assert outcome.new_text is not None and "_gbfix_idx_step_2(int(idx), " in outcome.new_text
