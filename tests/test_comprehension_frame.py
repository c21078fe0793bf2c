"""GBF013: a comprehension of a skipped function is a skipped frame of its own (Python < 3.12).

The static tests pin which comprehensions the rule reports; the measured
ones (``torch_run``) compile the same shapes and check that Dynamo skips
exactly the comprehension frames the rule reports. The rule reports only in
a function with no tensor op of its own (one with an op has a fix of its
own), so the shapes hold none: a comprehension without tensor ops compiles
to no graph, and the measured tests count skipped frames.
"""

from __future__ import annotations

import os
import sys

import pytest

from codemods.rules import gbf013_comprehension_frame as rule_module
from rewriter.engine.config import Settings
from rewriter.engine.pipeline import transform_source
from tests.golden import GOLDEN, load

needs_frames = pytest.mark.skipif(sys.version_info >= (3, 12), reason="comprehensions are inlined since 3.12")


def findings(source: str, **settings):
    options = {"select": ("GBF013",), "reach": "all", **settings}
    return transform_source(source, "/project/case.py", Settings(**options)).findings  # type: ignore[arg-type]


def lines(source: str, **settings) -> list[int]:
    return [f.line for f in findings(source, **settings)]


def break_findings(source: str):
    """The findings of the break that skips the function (GBF001-GBF004)."""
    return findings(source, select=("GBF001", "GBF002", "GBF003", "GBF004"))


def captures_nothing(source: str) -> bool:
    """Whether the break's own finding says there is nothing to capture: the one case GBF013
    reports in, so a shape it leaves out is left out for the reason its test names."""
    found = break_findings(source)
    return bool(found) and all(f.note.startswith("nothing to capture") for f in found)


def skipped_parent(comprehension: str, header: str = "def fn(x: torch.Tensor, *args):") -> str:
    """A function a loop's break skips, returning ``comprehension`` (on line 12)."""
    return (
        "import torch\n"
        "from torch import nn\n"
        "\n"
        "D = {'a': 1, 'b': 2}\n"
        "L = [1, 2]\n"
        "T = (1, 2)\n"
        "LAYERS = nn.ModuleList([nn.Identity(), nn.Identity()])\n"
        "\n"
        f"{header}\n"
        "    for i in range(2):\n"
        "        print(i)\n"
        f"    return {comprehension}\n"
    )


#: comprehensions of a skipped function whose own frame Dynamo skips (measured below)
SKIPPED = [
    "{k: (x, v) for k, v in D.items()}",
    "{k: x for k in D}",
    "[(x, v) for v in D.values()]",
    "[(x, v) for v in L]",
    "[(x, v) for i, v in enumerate((1, 2))]",
    "[(x, v) for v, w in zip(T, T)]",
    "[(x, v) for v in reversed(T)]",
    "[(x, v) for v in sorted(L)]",
    # a module's call is a frame of its own, not an op of the comprehension
    "[layer(x) for layer in LAYERS]",
    "[layer(x) for i, layer in enumerate(LAYERS)]",
    "list((x, v) for v in (1, 2))",
    "{(x, v) for v in {1, 2}}",
]
#: comprehensions of the same function whose own frame compiles (measured below)
COMPILED = [
    "[(x, v) for v in (1, 2)]",
    "[(x, v) for v in [1, 2]]",
    "[(x, v) for v in range(2)]",
    "[(x, v) for v in range(len(L))]",
    "[(x, v) for v in T]",
    "[(x, v) for v in tuple(L)]",
    "[(x, v) for v in args]",
    "[(x, s) for s in x.shape]",
]


@needs_frames
@pytest.mark.parametrize("comprehension", SKIPPED)
def test_a_comprehension_over_what_dynamo_cannot_iterate_is_reported(comprehension):
    found = findings(skipped_parent(comprehension))
    assert [f.line for f in found] == [12]
    assert found[0].code == "GBF013" and found[0].fix == "none"
    assert "makes Dynamo skip `fn`" in found[0].message and "graph break inside a loop" in found[0].message


@needs_frames
@pytest.mark.parametrize("comprehension", COMPILED)
def test_a_comprehension_over_a_tuple_or_range_is_not(comprehension):
    assert captures_nothing(skipped_parent(comprehension))
    assert lines(skipped_parent(comprehension)) == []


#: a `try` skips `fn`; the dict comprehension reads a tensor, the list one only keys
MESSAGE_SHAPE = (
    "import torch\n"
    "\n"
    "def fn(x, scales):\n"
    "    try:\n"
    "        torch._dynamo.graph_break()\n"
    "    except ValueError:\n"
    "        pass\n"
    "    out = {\n"
    "        k: (x, v)\n"
    "        for k, v in scales.items()\n"
    "    }\n"
    "    names = [k for k in out]\n"
    "    return out\n"
)


@needs_frames
def test_the_message_names_comprehension_function_break_and_cost():
    found = findings(MESSAGE_SHAPE)
    # the comprehension's own first line; the one reading no tensor is not compiled by Dynamo at all
    assert [f.line for f in found] == [8]
    message = found[0].message
    assert message.startswith("`<dictcomp>` of line 8 runs as a frame of its own")
    assert "graph break inside a `try` block (explicit graph break, line 5)" in message
    assert "skip `fn`" in message and "`scales.items()`" in message
    assert message.endswith("nothing to capture: it runs no tensor op of its own")


@needs_frames
def test_nothing_to_capture_when_the_comprehension_runs_no_tensor_op():
    source = skipped_parent('{f"output_{k}": kwargs.get(k, False) for k in D}', "def fn(x, **kwargs):")
    found = findings(source)
    assert [f.line for f in found] == [12]
    assert found[0].message.endswith("nothing to capture: it runs no tensor op of its own")


#: (comprehension, reported, its frame skipped): whether the frame holds something of torch decides
FRAME_HOLDS_TORCH = [
    ("[v + 1 for v in L]", False, False),  # reads no tensor: Dynamo does not compile the frame at all
    ("[v + n for v in L]", False, False),  # an int
    ("[(v, n) for v in L]", False, False),
    ("[torch.float32 for v in L]", True, True),  # names torch
    ("[v for v in L if x is not None]", True, True),  # x may be a tensor
    ("tuple((v, x) for v in L)", True, True),
    # a generator is refused whatever it reads, but one reading nothing of torch costs nothing
    ("tuple(v - n for v in L)", False, True),
    ("max(v for v in L)", False, True),
    # a tensor is iterated through a tuple of its rows
    ("[(r, n) for r in x]", False, False),
]


def _with_n(comprehension: str) -> str:
    return skipped_parent(comprehension).replace("    for i in range(2):", "    n = 1\n    for i in range(2):")


@needs_frames
@pytest.mark.parametrize("comprehension,reported,skipped", FRAME_HOLDS_TORCH)
def test_a_frame_without_torch_in_it_is_not_reported(comprehension, reported, skipped):
    assert captures_nothing(_with_n(comprehension))
    assert lines(_with_n(comprehension)) == ([13] if reported else [])


#: measured: with GBF010's `is_compiling()` guard in, Dynamo keeps `forward`'s frame, and its
#: comprehension inline, though the trace holds no op
GBF010_SHAPE = (
    "import torch\n"
    "\n"
    "class Block(torch.nn.Module):\n"
    "    def forward(self, x):\n"
    "        for i in range(2):\n"
    "            print(i)\n"
    "        return [(x, v) for v in self.scales]\n"
)


@needs_frames
def test_a_break_gbf010_removes_skips_nothing():
    source = GBF010_SHAPE
    assert lines(source, select=("GBF013",), fix_mode="unsafe") == [7]
    # GBF010 guards the `print` under compile (unsafe): `forward` compiles, and so does its comprehension
    codes = [f.code for f in findings(source, select=("GBF010", "GBF013"), fix_mode="unsafe")]
    assert codes == ["GBF010"]
    # in safe mode GBF010 leaves the `print` (a loop rule contains it): the skip stays
    assert sorted(f.code for f in findings(source, select=("GBF010", "GBF013"))) == ["GBF010", "GBF013"]


@needs_frames
@pytest.mark.parametrize(
    "comprehension,name,line",
    [
        ("{k: (x, v) for k, v in D.items()}", "<dictcomp>", 12),
        ("tuple(\n        (x, v) for v in L\n    )", "<genexpr>", 12),
    ],
)
def test_a_frame_a_recorded_run_shows_skipped_is_left_to_gbf011(comprehension, name, line):
    from codemods.rules.base import RecordedSkip

    source = skipped_parent(comprehension)
    # Python starts a generator expression that is a call's only argument at the call's `(`
    recorded = {"/project/case.py": frozenset({RecordedSkip(line, name, "Missing tp_iternext")})}
    alone = findings(source, recorded_skips=recorded)
    assert [f.code for f in alone] == ["GBF013"]
    both = findings(source, select=("GBF011", "GBF013"), recorded_skips=recorded)
    assert [f.code for f in both] == ["GBF011"]
    # a recording of some other frame leaves the finding to GBF013
    other = {"/project/case.py": frozenset({RecordedSkip(line + 5, name, "Missing tp_iternext")})}
    assert [f.code for f in findings(source, select=("GBF011", "GBF013"), recorded_skips=other)] == ["GBF013"]


#: a helper whose call gives a trace an op without writing one in the caller
DOUBLE = "import torch\n\ndef double(y):\n    return y * 2\n\n"

#: `fn` compiles: its break is in straight-line code, its loop does not break, and Dynamo resumes
#: in `no_grad`; `double` gives the trace an op (Dynamo skips a frame whose trace holds none, and
#: its comprehensions then run as frames of their own)
COMPILES_SHAPE = (
    DOUBLE + "def fn(x, scales):\n"
    "    torch._dynamo.graph_break()\n"
    "    for i in range(2):\n"
    "        y = (x, i)\n"
    "    with torch.no_grad():\n"
    "        print(x)\n"
    "    return {k: (double(x), v) for k, v in scales.items()}\n"
)
#: the same with a break in the loop, which skips `fn`
COMPILES_CONTROL = COMPILES_SHAPE.replace("        y = (x, i)\n", "        print(i)\n")

#: comprehensions in nested frames (their ops are not `fn`'s), and one nested in a comprehension
#: over a tuple; Dynamo skips a frame whose trace holds no op, so `double` gives the outer one's
#: an op, and the nested frames have ops of their own
OWN_SHAPE = (
    DOUBLE + "def fn(x, scales):\n"
    "    def inner(y):\n"
    "        return {k: y * v for k, v in scales.items()}\n"
    "    scale = lambda y: [y * v for v in scales.values()]\n"
    "    for i in range(2):\n"
    "        print(i)\n"
    "    return inner(x), scale(x), [(double(x), [(x, v) for v in scales]) for k in (1, 2)]\n"
)
#: the same with the outer comprehension iterating the dict, the one nested in it a tuple
OWN_CONTROL = OWN_SHAPE.replace(
    "[(double(x), [(x, v) for v in scales]) for k in (1, 2)]", "[(double(x), [(x, v) for v in (1, 2)]) for k in scales]"
)

#: a `try` with no tensor op before it, comprehensions before and after it
BLOCK_SHAPE = (
    "import torch\n"
    "\n"
    "def fn(x, kwargs):\n"
    "    a = [(x, v) for v in kwargs.values()]\n"
    "    b = [kwargs[k] for k in kwargs]\n"
    "    try:\n"
    "        torch._dynamo.graph_break()\n"
    "    finally:\n"
    "        pass\n"
    "    return a, b, [(x, v) for v in kwargs.values()]\n"
)

LOOP_SHAPE = (
    "import torch\n"
    "\n"
    "def fn(x, scales):\n"
    "    a = [(x, v) for v in scales]\n"
    "    for i in range(2):\n"
    "        print(i)\n"
    "    return a\n"
)

WITH_SHAPE = (
    "import torch\n"
    "\n"
    "class Tracker:\n"
    "    def __enter__(self):\n"
    "        return self\n"
    "\n"
    "    def __exit__(self, *exc):\n"
    "        return False\n"
    "\n"
    "def fn(x, scales):\n"
    "    with Tracker():\n"
    "        print(x)\n"
    "    return [(x, v) for v in scales]\n"
)
RESUMABLE_WITH_SHAPE = WITH_SHAPE.replace("Tracker():", "torch.no_grad():")

#: shapes of the tests below -> lines of their findings, each the comprehension frames Dynamo
#: skips calling `fn(x, scales)` with a dict of tensors (measured below)
SHAPES = {
    "message": (MESSAGE_SHAPE, [8]),
    "compiles": (COMPILES_SHAPE, []),
    "compiles_control": (COMPILES_CONTROL, [12]),
    "own": (OWN_SHAPE, []),
    "own_control": (OWN_CONTROL, [12]),
    "block": (BLOCK_SHAPE, [4, 5, 10]),
    "loop": (LOOP_SHAPE, [4]),
    "with": (WITH_SHAPE, [13]),
    "resumable_with": (RESUMABLE_WITH_SHAPE, []),
}


@needs_frames
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_shapes(name):
    source, expected = SHAPES[name]
    assert lines(source) == expected


@needs_frames
def test_a_function_dynamo_compiles_has_no_finding():
    assert lines(COMPILES_SHAPE) == []
    assert captures_nothing(COMPILES_CONTROL) and lines(COMPILES_CONTROL) == [12]


@needs_frames
def test_only_the_functions_own_comprehensions_count():
    # `inner` and the lambda are frames of their own that compile; the nested list comprehension
    # runs in the outer one's frame, which compiles (it iterates a tuple, and traces `double`)
    assert captures_nothing(OWN_SHAPE)
    assert lines(OWN_SHAPE) == []
    # the outer one over the dict is skipped
    assert lines(OWN_CONTROL) == [12]


@needs_frames
def test_a_block_skips_a_function_with_nothing_to_capture_whole():
    # no tensor op before the `try`: Dynamo finds no state to compile up to, and skips all of `fn`
    assert lines(BLOCK_SHAPE) == [4, 5, 10]


#: (shape, edit) adding an inline tensor op to a function GBF013 reports in
WITH_A_TENSOR_OP = [
    pytest.param(BLOCK_SHAPE, ("    a = [", "    x = x + 1\n    a = ["), id="in-the-function"),
    pytest.param(BLOCK_SHAPE, ("a = [(x, v)", "a = [x * v"), id="in-a-comprehension-before-the-block"),
    pytest.param(BLOCK_SHAPE, ("b, [(x, v)", "b, [x * v"), id="in-a-comprehension-after-the-block"),
    pytest.param(LOOP_SHAPE, ("[(x, v)", "[x * v"), id="in-the-comprehension-of-a-loops-function"),
    pytest.param(LOOP_SHAPE, ("    return a", "    return a, x.relu()"), id="in-a-loops-function"),
    pytest.param(WITH_SHAPE, ("        print(x)", "        print(x + 1)"), id="in-the-with-block"),
]


@needs_frames
@pytest.mark.parametrize("shape,edit", WITH_A_TENSOR_OP)
def test_a_function_with_a_tensor_op_of_its_own_is_left_to_its_own_finding(shape, edit):
    assert captures_nothing(shape) and lines(shape) != []
    source = shape.replace(*edit)
    assert source != shape
    # the break's own finding now has a fix, which brings the comprehensions back inline
    own = break_findings(source)
    assert own and all(f.fix == "safe" for f in own)
    assert lines(source) == []


@needs_frames
def test_a_loop_skips_the_whole_function():
    assert lines(LOOP_SHAPE) == [4]


@needs_frames
def test_a_with_dynamo_cannot_resume_in_skips_it():
    assert lines(WITH_SHAPE) == [13]
    assert lines(RESUMABLE_WITH_SHAPE) == []


@needs_frames
def test_suppression_and_reach():
    source = skipped_parent("[(x, v) for v in L]")
    assert lines(source.replace("for v in L]", "for v in L]  # gbfix: ignore[GBF013]")) == []
    # nothing compiled reaches `fn` ...
    assert lines(source, reach="compiled") == []
    # ... until something compiles it
    assert lines(source + "\ncompiled = torch.compile(fn)\n", reach="compiled") == [12]


def test_nothing_is_reported_where_comprehensions_are_inlined(monkeypatch):
    source = skipped_parent("[(x, v) for v in L]")
    monkeypatch.setattr(rule_module, "PYTHON", (3, 11))
    assert lines(source) == [12]
    assert rule_module.ComprehensionFrame.applies()
    monkeypatch.setattr(rule_module, "PYTHON", (3, 12))
    assert lines(source) == []
    assert not rule_module.ComprehensionFrame.applies()


#: golden/GBF013 cases -> lines of their expected findings
GOLDEN_FINDINGS = {"try_dict_items": [22], "try_tuple_control": [], "not_skipped": []}


def _golden(name: str) -> tuple[str, str]:
    path = os.path.join(GOLDEN, "GBF013", f"{name}.in.py")
    with open(path, encoding="utf-8") as handle:
        return path, handle.read()


@needs_frames
@pytest.mark.parametrize("name", sorted(GOLDEN_FINDINGS))
def test_golden_findings(name):
    assert sorted(GOLDEN_FINDINGS) == sorted(f[: -len(".in.py")] for f in os.listdir(os.path.join(GOLDEN, "GBF013")))
    path, source = _golden(name)
    assert lines(source) == GOLDEN_FINDINGS[name]
    # the skipped `fn` calls helpers for its tensor work: a finding of its own has no fix there
    assert captures_nothing(source) == (name != "not_skipped")


# -- measured -------------------------------------------------------------------------


def _skipped_frames(source: str) -> int:
    """How many frames Dynamo skipped running ``fn`` of ``source``, called with a tensor; the shapes
    run no tensor op in ``fn`` or its comprehensions, so there is no graph to count."""
    import torch
    import torch._dynamo
    from torch._dynamo.utils import counters

    namespace: dict = {}
    exec(compile(source, "<gbf013-measured>", "exec"), namespace)
    torch._dynamo.reset()
    counters.clear()
    torch.compile(namespace["fn"], backend="eager")(torch.ones(2), 1, 2)
    frames = counters["frames"]
    return frames["total"] - frames["ok"]


@needs_frames
@pytest.mark.torch_run
@pytest.mark.parametrize("comprehension", SKIPPED)
def test_measured_the_comprehension_frame_is_skipped(comprehension, capsys):
    # `fn` itself, then the comprehension's own frame
    assert _skipped_frames(skipped_parent(comprehension)) == 2


@needs_frames
@pytest.mark.torch_run
@pytest.mark.parametrize("comprehension", COMPILED)
def test_measured_the_comprehension_frame_compiles(comprehension, capsys):
    assert _skipped_frames(skipped_parent(comprehension)) == 1


@needs_frames
@pytest.mark.torch_run
@pytest.mark.parametrize("comprehension,reported,skipped", FRAME_HOLDS_TORCH)
def test_measured_a_frame_without_torch_in_it_is_not_skipped(comprehension, reported, skipped, capsys):
    assert _skipped_frames(_with_n(comprehension)) == (2 if skipped else 1)


@needs_frames
@pytest.mark.torch_run
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_measured_the_shapes_skip_the_frames_reported(name, capsys):
    import torch

    from rewriter.runtime.measure import measure

    source, reported = SHAPES[name]
    namespace: dict = {}
    exec(compile(source, "<gbf013-measured>", "exec"), namespace)
    # tensors in the dict: a comprehension reading only its keys or values holds one too
    scales = {"a": torch.ones(2), "b": torch.full((2,), 2.0)}
    _, stats = measure(namespace["fn"], (torch.ones(2), scales), coverage=False)
    skipped = [b.lineno for b in stats.breaks if b.whole_skip and b.frame_function.startswith("<")]
    assert skipped == reported, stats.skipped_functions


@needs_frames
@pytest.mark.torch_run
@pytest.mark.parametrize("fix_mode,reported", [("safe", [7]), ("unsafe", [])])
def test_measured_a_break_gbf010_removes_skips_nothing(fix_mode, reported, capsys):
    import torch

    from rewriter.runtime.measure import measure

    settings = Settings(select=("GBF010",), fix_mode=fix_mode, reach="all")  # type: ignore[arg-type]
    outcome = transform_source(GBF010_SHAPE, "/project/case.py", settings)
    assert (outcome.new_text is not None) == (fix_mode == "unsafe")
    namespace: dict = {}
    exec(compile(outcome.new_text or GBF010_SHAPE, "<gbf013-measured>", "exec"), namespace)
    block = namespace["Block"]()
    block.scales = [1.0, 2.0]
    _, stats = measure(block, (torch.ones(2),), coverage=False)
    skipped = [b.lineno for b in stats.breaks if b.whole_skip and b.frame_function.startswith("<")]
    assert skipped == reported, stats.skipped_functions


@needs_frames
@pytest.mark.torch_run
@pytest.mark.parametrize("name", sorted(GOLDEN_FINDINGS))
def test_measured_golden_cases_skip_the_frames_reported(name):
    from rewriter.runtime.measure import measure, resolve_entry

    path, source = _golden(name)
    module = load(path, source, "gbf013")
    _, stats = measure(resolve_entry(module.ENTRY), module.example_inputs(), coverage=False)
    comprehensions = [f for f in stats.skipped_functions if f.startswith("<")]
    assert len(comprehensions) == len(GOLDEN_FINDINGS[name]), stats.skipped_functions
    if name == "not_skipped":
        assert stats.skipped_functions == []
    else:
        assert "fn" in stats.skipped_functions
