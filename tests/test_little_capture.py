"""GBF002 leaves a loop alone when outlining it whole would capture too little.

A loop whose body holds no tensor op of its own is outlined whole: its trips
still run eagerly, and what comes into a graph is the function's work outside
the loop. With a single op there, the compiled frame Dynamo then guards and
resumes on every call costs more than it saves, so the finding is reported
without a fix; more work outside the loop, a generator expression (a frame a
skipped caller runs eagerly) or tensor work in the body keeps the rewrite.
"""

from __future__ import annotations

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
        "    def forward(self, x):\n        for layer in self.layers:\n            x = layer(x) * 2\n        return x\n"
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
