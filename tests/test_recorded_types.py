"""Types a recorded run already knows: the names its data-dependent breaks read are tensors,
whatever the static inference can show (codemods/analysis/tensors/recorded.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from codemods.analysis.tensors.recorded import TRUTH, VALUE, recorded_tensors
from rewriter.engine.config import Settings
from rewriter.engine.pipeline import transform_source
from rewriter.runtime.recorded import place_sites, recorded_tensor_names
from rewriter.runtime.trace import Frame, RecordedBreak

READS = textwrap.dedent(
    """\
    import torch


    class Model(torch.nn.Module):
        def forward(self, x, holder):
            flag = other(x)
            if flag:
                x = x + 1
            if self.mask.any():
                x = x + 2
            n = int(holder.count)
            if n > 0 and flag:
                x = x + 3
            y = x if not self.gate else -x
            k = int(x.sum().item())
            m = int(a) + int(b)
            return x


    def step(t, limit):
        while limit > 0:
            limit = limit - 1
        return t
    """
)


def line_of(fragment: str) -> int:
    return next(n for n, line in enumerate(READS.splitlines(), 1) if fragment in line)


@pytest.mark.parametrize(
    ("fragment", "read", "names"),
    [
        ("if flag:", TRUTH, {"Model.forward": {"flag"}}),
        ("if self.mask.any():", TRUTH, {"Model.forward": {"self.mask"}}),
        ("n = int(holder.count)", VALUE, {"Model.forward": {"holder.count"}}),
        ("y = x if not self.gate", TRUTH, {"Model.forward": {"self.gate"}}),
        ("k = int(x.sum().item())", VALUE, {"Model.forward": {"x"}}),
        ("while limit > 0:", TRUTH, {"step": {"limit"}}),
        # which operand broke is not known, nor which of two reads
        ("if n > 0 and flag:", TRUTH, {}),
        ("m = int(a) + int(b)", VALUE, {}),
        # a break of the other kind reads nothing of its own on that line
        ("if flag:", VALUE, {}),
        ("n = int(holder.count)", TRUTH, {}),
    ],
)
def test_the_names_a_recorded_break_read(fragment, read, names):
    found = recorded_tensors(READS, [(line_of(fragment), read)])
    assert {key: set(value) for key, value in found.items()} == names


def test_only_the_frame_the_break_happened_in_read_anything(tmp_path):
    caller, callee = tmp_path / "caller.py", tmp_path / "callee.py"
    caller.write_text("def run(x, ok):\n    for i in range(3):\n        x = check(x)\n    return x\n")
    callee.write_text("def check(x):\n    if x:\n        return x\n    return -x\n")
    stack = (Frame(str(caller), 3, "run"), Frame(str(callee), 2, "check"))
    site = RecordedBreak(
        str(callee), 2, "check", "Data-dependent branching", "GB0170", user_stack=stack, compiled_index=0
    )
    placed = place_sites([site], [str(caller), str(callee)])
    assert placed.recorded_breaks() == {str(caller): frozenset({3}), str(callee): frozenset({2})}
    # `check(x)` on the caller's line is only the way into the break: it says nothing of `x` there
    assert recorded_tensor_names(placed) == {str(callee): {"check": frozenset({"x"})}}


TWO_LOOPS = """import torch
from masks.rules import keep_mask


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(4, 4)

    def forward(self, x):
        h = self.proj(x)
        keep = keep_mask(h)
        for i in range(3):
            if keep.any():
                h = h * 2
        h = h.relu()
        for j in range(2):
            if keep.all():
                h = h + 1
            n = int(keep.sum())
            h = h - n
        return h
"""


def test_a_recorded_read_types_the_lines_the_run_never_reached(tmp_path):
    path = str(tmp_path / "model.py")
    first = next(n for n, line in enumerate(TWO_LOOPS.splitlines(), 1) if "keep.any()" in line)
    # static: `keep` comes from another package, so no loop breaks
    assert transform_source(TWO_LOOPS, path, Settings()).findings == ()
    lines = {path: frozenset({first})}
    # the recorded line alone: the first loop only (the frame was skipped there, so the run saw no more)
    alone = transform_source(TWO_LOOPS, path, Settings(recorded_breaks=lines))
    assert [(f.code, f.line) for f in alone.findings] == [("GBF001", first - 1)]
    # with what it read there, `keep` is a tensor in the whole function: both loops
    typed = Settings(recorded_breaks=lines, recorded_tensors={path: {"Model.forward": frozenset({"keep"})}})
    outcome = transform_source(TWO_LOOPS, path, typed)
    assert [(f.code, f.line) for f in outcome.findings] == [("GBF001", first - 1), ("GBF001", first + 3)]
    assert "a branch on a tensor's values" in outcome.findings[1].message
    assert outcome.new_text is not None and outcome.new_text.count("def _gbfix_inner_") == 2
    # the same names in another function are not typed by it
    other = {path: {"Other.forward": frozenset({"keep"})}}
    assert len(transform_source(TWO_LOOPS, path, Settings(recorded_breaks=lines, recorded_tensors=other)).findings) == 1


RUN = """import sys

import torch

from model import Model

torch.manual_seed(0)
model = Model()
x = torch.randn(2, 4)
compiled = torch.compile(model, backend="eager")
print("ran", compiled(x).sum().item())
"""
CHECK = """import torch

import model
import original

torch.manual_seed(0)
fixed = model.Model()
torch.manual_seed(0)
before = original.Model()
x = torch.randn(2, 4)
expected = before(x)
got = torch.compile(fixed, backend="eager")(x)
assert torch.equal(got, expected), (got, expected)
print("equal")
"""


def gbfix(*args: str, cwd: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rewriter", *args], cwd=cwd, capture_output=True, text=True)


@pytest.mark.cli
@pytest.mark.torch_run
def test_record_then_apply_fixes_what_static_inference_cannot_type(tmp_path):
    (tmp_path / "masks").mkdir()
    (tmp_path / "masks" / "__init__.py").write_text("")
    (tmp_path / "masks" / "rules.py").write_text("def keep_mask(h):\n    return h > 0\n")
    (tmp_path / "model.py").write_text(TWO_LOOPS)
    (tmp_path / "original.py").write_text(TWO_LOOPS)
    (tmp_path / "run.py").write_text(RUN)
    cwd = str(tmp_path)
    recorded = gbfix("record", "-o", "trace", "--", sys.executable, "run.py", cwd=cwd)
    assert recorded.returncode == 0 and "ran" in recorded.stdout, recorded.stderr
    static = gbfix("scan", "model.py", cwd=cwd)
    assert static.returncode == 0 and static.stdout == "", static.stderr
    found = gbfix("scan", "model.py", "--trace", "trace", cwd=cwd)
    assert found.returncode == 1, found.stderr
    # one break recorded (the frame ran eagerly after it), two loops found
    assert "1 graph break, 1 placed" in found.stderr
    assert [line.split(": ")[1].split(" ")[0] for line in found.stdout.splitlines()] == ["GBF001", "GBF001"]
    fixed = gbfix("apply", "model.py", "--trace", "trace", cwd=cwd)
    assert fixed.returncode == 0, fixed.stderr
    assert (tmp_path / "model.py").read_text().count("def _gbfix_inner_") == 2
    check = subprocess.run([sys.executable, "-c", CHECK], cwd=cwd, capture_output=True, text=True)
    assert check.returncode == 0 and "equal" in check.stdout, check.stderr
    assert os.path.isdir(tmp_path / "trace")


ATTRIBUTES = """import torch


class Model(torch.nn.Module):
    def forward(self, x, holder):
        for i in range(2):
            x = x + int(holder.count)
        for j in range(2):
            if self.mask:
                x = x * 2
        for k in range(2):
            x = x - int(holder.count)
        return x
"""


def test_an_untyped_attribute_a_run_read_is_a_tensor_in_the_whole_function(tmp_path):
    path = str(tmp_path / "model.py")
    assert transform_source(ATTRIBUTES, path, Settings()).findings == ()
    evidence = {path: {"Model.forward": frozenset({"holder.count", "self.mask"})}}
    outcome = transform_source(ATTRIBUTES, path, Settings(recorded_tensors=evidence))
    assert [(f.code, f.line) for f in outcome.findings] == [("GBF001", 6), ("GBF001", 8), ("GBF001", 11)]
    # `holder.count` typed, `holder` itself is not: a loop over `int(holder)` is not a break
    plain = ATTRIBUTES.replace("int(holder.count)", "int(holder)")
    assert [f.line for f in transform_source(plain, path, Settings(recorded_tensors=evidence)).findings] == [8]


HOIST = """import torch


class Block(torch.nn.Module):
    def forward(self, x):
        h = x * 2
        try:
            m = float(x.mean())
            h = h + m
        except ValueError:
            h = h - 1
        return h.relu()
"""


def test_a_parameter_a_run_read_as_a_tensor_is_hoisted_out_of_a_try(tmp_path):
    # statically `x` may be any object, whose `mean()` may raise the ValueError the handler
    # catches; a run that read it as a tensor says `float(x.mean())` cannot
    path = str(tmp_path / "model.py")
    line = next(n for n, text in enumerate(HOIST.splitlines(), 1) if "float(x.mean())" in text)
    recorded = {path: frozenset({line})}
    guess = transform_source(HOIST, path, Settings(recorded_breaks=recorded))
    assert guess.new_text is not None and "def _gbfix_try_" in guess.new_text
    typed = Settings(recorded_breaks=recorded, recorded_tensors={path: {"Block.forward": frozenset({"x"})}})
    hoisted = transform_source(HOIST, path, typed)
    assert hoisted.new_text is not None and "_gbfix" not in hoisted.new_text
    assert "        m = float(x.mean())\n        try:\n            h = h + m\n" in hoisted.new_text
