"""GBF002 leaves a loop alone when outlining it whole would capture too little; GBF003 and
GBF004 leave a block alone when outlining it would capture nothing.

A loop whose body holds no tensor op of its own is outlined whole: its trips
still run eagerly, and what comes into a graph is the function's work outside
the loop. With a single op there, the compiled frame Dynamo then guards and
resumes on every call costs more than it saves, so the finding is reported
without a fix; more work outside the loop, a generator expression (a frame a
skipped caller runs eagerly) or tensor work in the body keeps the rewrite (more
than a handful of ops, when the body's break lies inside a call it makes:
see test_trip_breaks_in_its_call.py).

An outlined ``with`` or ``try`` block runs eagerly in its helper, so where every
tensor op of the function is in the block, the outline brings nothing into a
graph: the finding is reported without a fix (and, for a ``with``, the split
that ``--unsafe-fixes`` would make is named). An op or a comprehension outside
the block keeps the outline.
"""

from __future__ import annotations

import pytest

from rewriter.engine.config import Settings
from rewriter.engine.pipeline import transform_source

HEADER = (
    "import torch\n"
    "from torch import nn\n"
    "\n"
    "class Layer(nn.Module):\n"
    "    def forward(self, x):\n"
    "        print('layer')\n"
    "        return x + 1\n"
    "\n"
    "class Block(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.layers = nn.ModuleList([Layer(), Layer()])\n"
    "\n"
)


def gbf002(forward: str):
    source = HEADER + forward
    outcome = transform_source(source, "/project/block.py", Settings(select=("GBF002",), reach="all"))
    found = [f for f in outcome.findings if f.line > HEADER.count("\n")]
    assert len(found) == 1, found
    return found[0], outcome.new_text


def test_one_op_outside_a_loop_without_ops_is_reported_without_a_fix() -> None:
    finding, new_text = gbf002(
        "    def forward(self, x):\n"
        "        residual = x\n"
        "        for layer in self.layers:\n"
        "            x = layer(x)\n"
        "        return residual + x\n"
    )
    assert new_text is None
    assert finding.fix == "none"
    assert finding.note.startswith("too little to capture: the loop holds no tensor op of its own")
    assert "1 inline tensor op into a graph" in finding.note


def test_two_ops_outside_the_loop_are_worth_the_rewrite() -> None:
    finding, new_text = gbf002(
        "    def forward(self, x):\n"
        "        residual = x.sin()\n"
        "        for layer in self.layers:\n"
        "            x = layer(x)\n"
        "        return residual + x\n"
    )
    assert finding.fix == "safe" and finding.note == ""
    assert new_text is not None and "_gbfix_layers_loop_1()" in new_text


def test_a_generator_expression_outside_the_loop_is_work_to_capture() -> None:
    finding, new_text = gbf002(
        "    def forward(self, x, extras):\n"
        "        extras = tuple(self.layers[0](e) for e in extras)\n"
        "        for layer in self.layers:\n"
        "            x = layer(x)\n"
        "        return x + extras[0]\n"
    )
    assert finding.fix == "safe"
    assert new_text is not None and "_gbfix_layers_loop_1()" in new_text


def test_a_body_with_ops_of_its_own_gets_a_function_per_trip_whatever_lies_outside() -> None:
    finding, new_text = gbf002(
        "    def forward(self, x):\n"
        "        for layer in self.layers:\n"
        "            x = layer(x)\n"
        "            x = x.sin() * 2 + x.cos() - x.tanh() * x.sigmoid() + x.relu()\n"
        "        return x\n"
    )
    assert finding.fix == "safe"
    assert new_text is not None and "_step_" in new_text


def test_ops_in_another_breaking_loop_are_not_what_outlining_this_one_captures() -> None:
    """The second loop's op comes into a graph by its own per-trip function, whether or not the
    first loop is outlined: for the first, one op is left outside both."""
    source = HEADER + (
        "    def forward(self, x, n: int):\n"
        "        for layer in self.layers:\n"
        "            x = layer(x)\n"
        "        for i in range(n):\n"
        "            x = x * 2\n"
        "            print(i)\n"
        "        return x + 1\n"
    )
    outcome = transform_source(source, "/project/block.py", Settings(select=("GBF002",), reach="all"))
    first, second = sorted((f for f in outcome.findings if f.line > HEADER.count("\n")), key=lambda f: f.line)
    assert first.fix == "none" and "1 inline tensor op into a graph" in first.note
    assert second.fix == "safe"
    assert outcome.new_text is not None and "_step_" in outcome.new_text
    assert "for layer in self.layers:\n            x = layer(x)\n" in outcome.new_text


def test_a_loop_unrolled_into_calls_captures_its_trips_whether_or_not_the_frame_compiles() -> None:
    """GBF001 unrolls the counted loop into calls of a function per trip, frames of their own:
    they compile whether or not `forward` is skipped, so outlining the layer loop would capture
    only `x + 1`."""
    source = HEADER + (
        "    def forward(self, x):\n"
        "        for layer in self.layers:\n"
        "            x = layer(x)\n"
        "        for i in range(2):\n"
        "            x = x * 2\n"
        "            print(i)\n"
        "        return x + 1\n"
    )
    outcome = transform_source(source, "/project/block.py", Settings(reach="all", select=("GBF001", "GBF002")))
    found = {f.code: f for f in outcome.findings if f.line > HEADER.count("\n")}
    assert found["GBF001"].fix == "safe"
    assert found["GBF002"].fix == "none" and "1 inline tensor op into a graph" in found["GBF002"].note
    assert outcome.new_text is not None and "_gbfix_inner_1(1)" in outcome.new_text
    assert "_loop_" not in outcome.new_text


def test_a_generator_expression_in_a_nested_function_is_that_function_s_own() -> None:
    finding, new_text = gbf002(
        "    def forward(self, x):\n"
        "        def total(parts):\n"
        "            return sum(p.sum() for p in parts)\n"
        "        residual = x\n"
        "        for layer in self.layers:\n"
        "            x = layer(x)\n"
        "        return residual + x\n"
    )
    assert new_text is None
    assert finding.fix == "none" and finding.note.startswith("too little to capture")


#: a manager with an effect (entering it twice would show): GBF003 does not split it by default
TRACKER = (
    "import torch\n"
    "\n"
    "ENTERED = []\n"
    "\n"
    "class Tracker:\n"
    "    def __enter__(self):\n"
    "        ENTERED.append(self)\n"
    "        return self\n"
    "\n"
    "    def __exit__(self, *exc):\n"
    "        return False\n"
    "\n"
)

OPS_ONLY_IN_WITH = TRACKER + (
    "def fn(x):\n    with Tracker():\n        x = x * 2\n        print('scaled')\n        x = x + 1\n    return x\n"
)

#: OPS_ONLY_IN_WITH as GBF003 outlined it before it asked what the outline captures
OUTLINED = TRACKER + (
    "def fn(x):\n"
    "    def _gbfix_with_1():\n"
    "        nonlocal x\n"
    "        with Tracker():\n"
    "            x = x * 2\n"
    "            print('scaled')\n"
    "            x = x + 1\n"
    "\n"
    "    _gbfix_with_1()\n"
    "    return x\n"
)


def block_finding(source: str, code: str, fix_mode: str = "safe"):
    settings = Settings(select=(code,), reach="all", fix_mode=fix_mode)  # type: ignore[arg-type]
    outcome = transform_source(source, "/project/case.py", settings)
    found = [f for f in outcome.findings if f.code == code]
    assert len(found) == 1, outcome.findings
    return found[0], outcome.new_text


def test_a_with_block_holding_every_op_of_the_function_is_reported_without_a_fix() -> None:
    finding, new_text = block_finding(OPS_ONLY_IN_WITH, "GBF003")
    assert new_text is None
    assert finding.fix == "none"
    assert finding.note.startswith("nothing to capture by an outline: every tensor op of the function is in the block")
    # the split captures the block's ops; it needs --unsafe-fixes, and the finding says so
    assert finding.unsafe_alternative.startswith("split the block around the break")
    assert "its 2 inline tensor ops" in finding.message


def test_with_unsafe_fixes_the_block_is_split_and_its_ops_captured() -> None:
    finding, new_text = block_finding(OPS_ONLY_IN_WITH, "GBF003", fix_mode="unsafe")
    assert finding.fix == "unsafe" and finding.applied
    assert new_text is not None and "_gbfix_" not in new_text and new_text.count("with Tracker():") == 2


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(("    return x\n", "    return x.relu()\n"), id="an-op-after-the-block"),
        pytest.param(("def fn(x):\n", "def fn(x, xs):\n    xs = [t.sum() for t in xs]\n"), id="a-comprehension"),
    ],
)
def test_work_outside_the_block_keeps_the_outline(edit) -> None:
    source = OPS_ONLY_IN_WITH.replace(*edit)
    assert source != OPS_ONLY_IN_WITH
    finding, new_text = block_finding(source, "GBF003")
    assert finding.fix == "safe" and finding.note == ""
    assert new_text is not None and "_gbfix_with_1()" in new_text


def test_a_try_holding_every_op_of_the_function_is_reported_without_a_fix() -> None:
    source = (
        "import torch\n\nLOG = []\n\n"
        "def fn(x):\n"
        "    try:\n"
        "        x = x.abs() + 1\n"
        "        print('in try')\n"
        "    finally:\n"
        "        LOG.append(x.sum())\n"
        "    return x\n"
    )
    finding, new_text = block_finding(source, "GBF004")
    assert new_text is None and finding.fix == "none"
    assert finding.note.startswith("nothing to capture by an outline")
    finding, new_text = block_finding(source.replace("    return x\n", "    return x * 2\n"), "GBF004")
    assert finding.fix == "safe" and new_text is not None and "_gbfix_try_1()" in new_text


@pytest.mark.torch_run
def test_measured_the_outline_of_a_block_holding_every_op_captures_nothing() -> None:
    """The outline gbfix no longer makes: the function compiles around the helper, but no op
    comes into a graph, and the helper is skipped in its place."""
    import torch

    from rewriter.runtime.measure import measure

    counts = {}
    for name, source in (("as written", OPS_ONLY_IN_WITH), ("outlined", OUTLINED)):
        namespace: dict = {}
        exec(compile(source, f"<{name}>", "exec"), namespace)
        _, stats = measure(namespace["fn"], (torch.ones(3),), coverage=False)
        counts[name] = (stats.ops, stats.frames_skipped)
    assert counts["as written"] == (0, 1)
    assert counts["outlined"] == (0, 1)


NESTED = (
    "import torch\n"
    "\n"
    "class Postprocess(torch.nn.Module):\n"
    "    def forward(self, class_logits, thresh: float = 0.5):\n"
    "        detections = []\n"
    "        for index in range(class_logits[0].shape[0]):\n"
    "            scores = []\n"
    "            for logits in class_logits:\n"
    "                score = logits[index].sigmoid().flatten()\n"
    "                score = score[score > thresh]\n"
    "                scores.append(score.topk(min(2, score.shape[0])).values)\n"
    "            detections.append(torch.cat(scores))\n"
    "        return detections\n"
)


def test_an_inner_loop_is_left_when_the_loop_around_it_is() -> None:
    outcome = transform_source(NESTED, "/project/post.py", Settings(select=("GBF002",), reach="all"))
    outer, inner = sorted(outcome.findings, key=lambda f: f.line)
    assert outcome.new_text is None
    assert (outer.line, outer.fix) == (6, "none") and outer.note.startswith("too little to capture")
    assert (inner.line, inner.fix, inner.applied) == (8, "none", False)
    assert inner.note == (
        "not rewritten: the loop around it at line 6 breaks too and stays as it is, "
        "so Dynamo skips `forward` either way"
    )


def test_an_inner_loop_is_outlined_with_the_loop_around_it() -> None:
    # work outside both loops: the outer loop's helper runs them, the inner loop's trips are compiled
    doubled = "        class_logits = class_logits * 2\n        detections = []\n"
    source = NESTED.replace("        detections = []\n", doubled)
    source = source.replace("        return detections\n", "        return torch.stack(detections).relu()\n")
    outcome = transform_source(source, "/project/post.py", Settings(select=("GBF002",), reach="all"))
    assert all(f.fix == "safe" for f in outcome.findings), outcome.findings
    assert outcome.new_text is not None and "_gbfix_loop_1()" in outcome.new_text
