"""GBF002 gives no per-trip function when each trip's work is in a call that breaks inside.

The per-trip function would break at that call too: the callee compiles as a
frame of its own either way, and the function would hold only the few ops
around the call, in graphs split there (encodec's frame loop: no faster).
The loop is outlined whole when the function around it has work to compile,
and left as written when it has none. Its neighbours keep their per-trip
function: a break of the body's own, a body with real work around the
breaking call, a breaking call kept in the loop's eager head.
"""

from __future__ import annotations

import pytest

from rewriter.engine.config import Settings
from rewriter.engine.pipeline import transform_source

HEADER = (
    "import torch\n"
    "from torch import nn\n\n"
    "class Codec(nn.Module):\n"
    "    def _frame(self, frame):\n"
    "        if frame.amax().item() > 0:\n"
    "            frame = frame * 0.5\n"
    "        return frame.relu()\n\n"
    "    def forward(self, x, chunk):\n"
    "        out = []\n"
)

#: loop bodies (inside ``for offset in range(0, x.shape[-1], chunk):``) and whether GBF002 rewrites them
BODIES = {
    "glue_around_the_call": (
        "            frame = x[..., offset : offset + chunk] * 2\n            out.append(self._frame(frame))\n",
        False,
    ),
    "call_alone": ("            out.append(self._frame(x[..., offset : offset + chunk]))\n", False),
    "glue_after_the_call": (
        "            y = self._frame(x[..., offset : offset + chunk])\n            out.append(y.tanh() + 1)\n",
        False,
    ),
    "own_break_in_the_body": (
        "            frame = x[..., offset : offset + chunk] * 2\n"
        "            print(frame.sum().item())\n"
        "            out.append(frame.relu())\n",
        True,
    ),
    "work_around_the_call": (
        "            frame = x[..., offset : offset + chunk]\n"
        "            centred = frame - frame.mean(-1, keepdim=True)\n"
        "            normed = centred / (centred.pow(2).mean(-1, keepdim=True) + 1e-5).sqrt()\n"
        "            y = self._frame(normed)\n"
        "            out.append(normed + torch.sigmoid(y) * y.tanh() * 0.5 - y.abs())\n",
        True,
    ),
    "call_in_the_eager_head": (
        "            hit = torch.nonzero(x[..., offset] > 0)\n"
        "            frame = x[..., offset : offset + chunk][..., : hit.shape[0] + 1]\n"
        "            centred = frame - frame.mean(-1, keepdim=True)\n"
        "            out.append(centred.relu() * 2 + centred.sigmoid())\n",
        True,
    ),
}


def rewrite(body: str):
    text = HEADER + "        for offset in range(0, x.shape[-1], chunk):\n" + body + "        return out\n"
    outcome = transform_source(text, "/project/codec.py", Settings(select=("GBF002",), reach="all"))
    (finding,) = [f for f in outcome.findings if f.code == "GBF002"]
    return finding, outcome.new_text


@pytest.mark.parametrize("name", sorted(BODIES))
def test_a_trip_whose_work_is_in_a_breaking_call_gets_no_function(name: str) -> None:
    body, rewritten = BODIES[name]
    finding, new_text = rewrite(body)
    if rewritten:
        assert finding.fix == "safe" and new_text is not None and "_gbfix_offset_step_" in new_text
        assert "costs more than it captures" not in finding.note
    else:
        assert finding.fix == "none" and new_text is None
        assert finding.note.startswith("too little to capture: each trip's work is in `Codec._frame`")
        assert "breaks inside and compiles as a frame of its own" in finding.note


def test_with_work_around_the_loop_it_is_outlined_whole() -> None:
    body = BODIES["glue_around_the_call"][0]
    around = HEADER.replace("        out = []\n", "        x = torch.tanh(x) * 2 + 1\n        out = []\n")
    text = around + "        for offset in range(0, x.shape[-1], chunk):\n" + body + "        return out\n"
    outcome = transform_source(text, "/project/codec.py", Settings(select=("GBF002",), reach="all"))
    (finding,) = [f for f in outcome.findings if f.code == "GBF002"]
    assert finding.fix == "safe" and outcome.new_text is not None
    assert "_gbfix_loop_" in outcome.new_text and "_step_" not in outcome.new_text
