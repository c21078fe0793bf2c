"""`gbfix verify` and `gbfix apply --verify`: the pieces in process, the command end to end."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections import namedtuple
from dataclasses import dataclass

import pytest
import torch

from rewriter.runtime import sandbox
from rewriter.runtime.measure import CompileStats
from rewriter.runtime.verify import (
    Comparison,
    VerifyError,
    compare_outputs,
    judge,
    module_for,
    read_before,
)
from tests.golden import ROOT

HELPERS = """\
import torch


def scale(x):
    return x * 2
"""

MODEL = """\
import torch

from .helpers import scale


def step(x):
    h = scale(x) @ x
    try:
        h = torch.tanh(h @ x)
        print("step", h.shape)
    except ValueError:
        h = h * 0
    return {"out": h, "steps": 3}


def inputs(device="cpu"):
    return (torch.randn(256, 256, device=device),)
"""

#: what gbfix's GBF004 makes of MODEL: the print moves to `else:`, no frame skipped any more, and
#: nothing costs more (no recompile; the matmuls outweigh the compiled call's overhead)
MODEL_SPLIT = MODEL.replace(
    """        print("step", h.shape)
    except ValueError:
        h = h * 0
""",
    """    except ValueError:
        h = h * 0
    else:
        print("step", h.shape)
""",
)


def gbfix(*args: str, cwd: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rewriter", *args], cwd=cwd, capture_output=True, text=True)


def git(cwd, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True, capture_output=True
    )


@pytest.fixture
def project(tmp_path):
    """A package whose model imports a sibling relatively; `before.py` holds the original model."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "helpers.py").write_text(HELPERS)
    (pkg / "model.py").write_text(MODEL_SPLIT)
    (tmp_path / "before.py").write_text(MODEL)
    return tmp_path


def verify_model(project, *extra: str, rounds: str = "0") -> subprocess.CompletedProcess:
    """``gbfix verify`` of the project's model; no timing unless ``rounds`` asks for it (slow here)."""
    return gbfix(
        "verify",
        "pkg/model.py",
        "--entry",
        "pkg.model:step",
        "--inputs",
        "pkg.model:inputs",
        "--before",
        "before.py",
        "--device",
        "cpu",
        "--rounds",
        rounds,
        *extra,
        cwd=str(project),
    )


# --- the command end to end ---------------------------------------------------------


@pytest.mark.torch_run
def test_examples_demo_against_git_head(tmp_path):
    shutil.copytree(os.path.join(ROOT, "examples"), tmp_path / "examples")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "original")
    assert gbfix("apply", "examples/stats.py", cwd=str(tmp_path)).returncode == 0
    result = gbfix(
        "verify",
        "examples/stats.py",
        "--entry",
        "examples.stats:head_stats",
        "--inputs",
        "examples.stats:example_inputs",
        "--device",
        "cpu",
        cwd=str(tmp_path),
    )
    # The demo's unrolled helper is compiled again per trip (an int that turns dynamic), and
    # verify fails what that costs; the rest of the proof holds.
    assert result.returncode == 1, result.stdout + result.stderr
    out = result.stdout
    assert "before: HEAD" in out
    skipped = next(line for line in out.splitlines() if line.strip().startswith("frames skipped"))
    assert skipped.split()[-3:] == ["1", "0", "-1"]
    assert "before skipped head_stats at examples/stats.py:" in out
    assert sum(line.endswith(" equal") for line in out.splitlines()) == 3 and "DIFFER" not in out
    assert "- after recompiles more (0 -> " in out and "PASS" not in out


@pytest.mark.torch_run
def test_a_proven_rewrite_passes_with_json(project):
    """A good rewrite passes every check (the timing is tested in test_verify_costs.py)."""
    result = verify_model(project, "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["passed"] and report["reasons"] == []
    assert report["timing"] is None and report["max_slowdown"] == 1.10
    assert report["after"]["stats"]["recompiles"] == 0 and report["after"]["stats"]["recompile_limit_hits"] == {}
    assert report["module"] == "pkg.model" and report["device"] == "cpu"
    assert report["before"]["stats"]["frames_skipped"] == 1
    assert report["after"]["stats"]["frames_skipped"] == 0
    assert report["after"]["stats"]["ops"] > report["before"]["stats"]["ops"]
    assert report["after"]["stats"]["coverage"] > report["before"]["stats"]["coverage"]
    assert [c["equal"] for c in report["comparisons"]] == [True, True, True]
    table = verify_model(project).stdout
    assert "graph coverage" in table and "pts" in table


@pytest.mark.torch_run
def test_changed_arithmetic_fails_and_names_the_output(project):
    (project / "pkg" / "model.py").write_text(MODEL_SPLIT.replace("torch.tanh(h @ x)", "torch.tanh(h @ x) + 1"))
    result = verify_model(project)
    assert result.returncode == 1, result.stderr
    assert "DIFFER: output['out']: Tensor-likes are not equal!" in result.stdout
    assert "FAIL:" in result.stdout
    assert "outputs differ (eager(before) vs compiled(after); compiled(before) vs compiled(after)" in result.stdout


@pytest.mark.torch_run
def test_an_after_that_skips_more_frames_fails(project):
    # Swapped: the original is the "after", so a skipped frame appears.
    (project / "pkg" / "model.py").write_text(MODEL)
    (project / "before.py").write_text(MODEL_SPLIT)
    result = verify_model(project, "--json")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert not report["passed"]
    assert "after skips more frames (0 -> 1)" in report["reasons"]
    assert all(c["equal"] for c in report["comparisons"])


@pytest.mark.torch_run
def test_an_entry_that_raises_reports_the_users_traceback(project):
    broken = MODEL_SPLIT.replace(
        "def step(x):\n", "def check(x):\n    raise ValueError('negative scale')\n\n\ndef step(x):\n    check(x)\n"
    )
    (project / "pkg" / "model.py").write_text(broken)
    result = verify_model(project)
    assert result.returncode == 2
    err = result.stderr
    assert "gbfix: error: after: eager run: ValueError: negative scale" in err
    assert 'pkg/model.py", line 11, in step' in err and 'pkg/model.py", line 7, in check' in err
    assert "raise ValueError('negative scale')" in err
    assert "sandbox.py" not in err and "<frozen importlib" not in err and "importlib/__init__" not in err


@pytest.mark.torch_run
def test_the_traceback_quotes_the_served_text_not_the_file_on_disk(project):
    # The "before" side raises; the file on disk holds other code at that line.
    (project / "before.py").write_text(MODEL.replace("    return {", "    1 / 0\n    return {"))
    result = verify_model(project)
    assert result.returncode == 2
    assert "gbfix: error: before: eager run: ZeroDivisionError" in result.stderr
    assert "    1 / 0" in result.stderr


@pytest.mark.torch_run
def test_entry_not_found_is_a_clear_error(project):
    result = gbfix(
        "verify",
        "pkg/model.py",
        "--entry",
        "pkg.model:stepp",
        "--inputs",
        "pkg.model:inputs",
        "--before",
        "before.py",
        "--device",
        "cpu",
        cwd=str(project),
    )
    assert result.returncode == 2
    assert (
        result.stderr.strip().splitlines()[-1]
        == "gbfix: error: --entry pkg.model:stepp: pkg.model has no attribute 'stepp'"
    )
    assert "Traceback" not in result.stderr


@pytest.mark.cli
def test_missing_git_history_names_the_way_out(project):
    result = gbfix(
        "verify", "pkg/model.py", "--entry", "pkg.model:step", "--inputs", "pkg.model:inputs", cwd=str(project)
    )
    assert result.returncode == 2
    assert "pkg/model.py: cannot read the version at HEAD" in result.stderr
    assert "--before" in result.stderr


@pytest.mark.slow
def test_inductor_backend_on_a_small_case(project):
    result = verify_model(project, "--backend", "inductor", "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["backend"] == "inductor" and report["passed"]


# --- gbfix apply --verify -----------------------------------------------------------

#: an entry whose output depends on its own source text: any rewrite changes it
INTROSPECT = """\
import inspect

import torch


def step(x):
    for i in range(2):
        x = x + i
        print("step", i)
    return x


def entry(x):
    return step(x) + len(inspect.getsource(step))


def inputs():
    return (torch.ones(2),)
"""


@pytest.mark.torch_run
def test_apply_verify_writes_only_rewrites_that_pass(project):
    (project / "pkg" / "model.py").write_text(MODEL)
    (project / "pkg" / "introspect.py").write_text(INTROSPECT)
    (project / "pyproject.toml").write_text(
        textwrap.dedent("""\
        [tool.gbfix]
        reach = "all"

        [[tool.gbfix.verify]]
        file = "pkg/model.py"
        entry = "pkg.model:step"
        inputs = "pkg.model:inputs"

        [[tool.gbfix.verify]]
        file = "pkg/introspect.py"
        entry = "pkg.introspect:entry"
        inputs = "pkg.introspect:inputs"
    """)
    )
    result = gbfix("apply", "pkg", "--verify", "-j", "1", cwd=str(project))
    assert result.returncode == 2, result.stderr
    assert "pkg/model.py: verified pkg.model:step: outputs equal; skipped frames 1 -> 0" in result.stderr
    assert "    else:\n        print(" in (project / "pkg" / "model.py").read_text()
    assert (project / "pkg" / "introspect.py").read_text() == INTROSPECT
    assert "introspect.py: error: rewrite not written: verification failed: outputs differ" in result.stderr
    assert "1 changed, 1 error" in result.stderr


@pytest.mark.cli
def test_apply_entry_and_inputs_go_together(project):
    result = gbfix("apply", "pkg", "--entry", "pkg.model:step", cwd=str(project))
    assert result.returncode == 2
    assert "--entry and --inputs go together" in result.stderr


# --- the pieces, in process -----------------------------------------------------------


def test_device_auto_picks_cuda_only_when_available(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert sandbox.resolve_device("auto") == "cpu"
    with pytest.raises(sandbox.SetupError, match="CUDA is not available"):
        sandbox.resolve_device("cuda")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert sandbox.resolve_device("auto") == "cuda"
    assert sandbox.resolve_device("cpu") == "cpu"


def test_module_for_prefers_the_entry_module(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    model = tmp_path / "pkg" / "model.py"
    model.write_text("")
    assert module_for(str(model), ["pkg.model:f"], "/") == ("pkg.model", str(tmp_path), False)
    # not named by the specs: the package chain, whatever the working directory
    assert module_for(str(model), ["other:f"], "/") == ("pkg.model", str(tmp_path), False)
    assert module_for(str(model), ["other:f"], str(tmp_path)) == ("pkg.model", str(tmp_path), False)
    init = tmp_path / "pkg" / "__init__.py"
    assert module_for(str(init), ["pkg:f"], "/") == ("pkg", str(tmp_path), True)
    with pytest.raises(VerifyError, match="not importable"):
        module_for(str(tmp_path / "a.in.py"), ["x:f"], "/")


def test_read_before_from_a_git_revision(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("x = 1\n")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "one")
    path.write_text("x = 2\n")
    git(tmp_path, "commit", "-q", "-am", "two")
    path.write_text("x = 3\n")
    assert read_before(str(path), None) == ("x = 2\n", "HEAD")
    assert read_before(str(path), "HEAD~1") == ("x = 1\n", "HEAD~1")
    with pytest.raises(VerifyError, match="HEAD~5"):
        read_before(str(path), "HEAD~5")


def _stats(skipped: int, ops: int) -> CompileStats:
    return CompileStats(frames_total=2, frames_ok=2 - skipped, ops=ops)


def test_judge_names_every_reason():
    same = [Comparison("eager(before)", "compiled(after)", None)]
    assert judge(_stats(1, 3), _stats(0, 5), same) == []
    assert judge(_stats(0, 5), _stats(1, 5), same) == ["after skips more frames (0 -> 1)"]
    assert judge(_stats(1, 5), _stats(0, 4), same) == ["after captures fewer ops (5 -> 4)"]
    differ = [Comparison("a", "b", "output[0]: x"), Comparison("c", "b", "output[0]: x")]
    assert judge(_stats(1, 3), _stats(0, 5), differ) == ["outputs differ (a vs b; c vs b): output[0]: x"]
    assert judge(_stats(1, 3), None, [], "TypeError: boom") == ["after fails under torch.compile: TypeError: boom"]


def _covered(outside: int, eager: int = 10) -> CompileStats:
    return CompileStats(frames_total=2, frames_ok=1, ops=3, ops_outside_graphs=outside, ops_eager=eager)


def test_a_graph_break_rewrite_must_capture_more():
    same = [Comparison("eager(before)", "compiled(after)", None)]
    moved = judge(_covered(6), _covered(6), same, must_capture=True)
    assert moved == ["after captures nothing more: graph coverage 40% -> 40% (6 -> 6 ops run eagerly)"]
    assert judge(_covered(6), _covered(2), same, must_capture=True) == []
    # placement rules keep their own criteria: the same coverage passes
    assert judge(_covered(6), _covered(6), same) == []
    # skipping more frames is fine when more of the work runs in graphs (a loop's eager driver)
    more_skips = CompileStats(frames_total=3, frames_ok=1, ops=3, ops_outside_graphs=2, ops_eager=10)
    assert judge(_covered(6), more_skips, same, must_capture=True) == []
    # nothing counted (an entry with no tensor op): the criterion cannot apply
    assert judge(_covered(0, 0), _covered(0, 0), same, must_capture=True) == []


def test_rewritten_by_names_the_rules_whose_findings_the_change_touched():
    from rewriter.runtime.verify import GRAPH_BREAK_CODES, rewritten_by

    loop = "def f(x):\n    for i in range(2):\n        print(i)\n        x = x + i\n    return x\n"
    unrolled = loop.replace("    for i in range(2):\n        print(i)\n", "    print(0)\n    print(1)\n")
    assert rewritten_by(loop, unrolled, "model.py") == {"GBF001"}
    assert {"GBF001", "GBF002", "GBF003", "GBF004"} <= GRAPH_BREAK_CODES and "GBF005" not in GRAPH_BREAK_CODES
    assert rewritten_by(MODEL, MODEL.replace("def inputs", "def inputs_"), "model.py") == frozenset()


def test_coverage_counts_the_ops_that_run_outside_graphs():
    from rewriter.runtime.measure import measure

    def loop(x):
        for _ in range(3):
            x = x * 2
            print(x.sum().item())
            x = torch.relu(x + 1)
        return torch.softmax(x, 0)

    def per_iteration(x):
        def step(x):
            x = x * 2
            print(x.sum().item())
            return torch.relu(x + 1)

        for _ in range(3):
            x = step(x)
        return torch.softmax(x, 0)

    def clean(x):
        return torch.softmax(torch.relu(x * 2 + 1), 0)

    skipped = measure(loop, (torch.ones(4),))[1]
    assert (skipped.ops_in_graphs, skipped.ops_outside_graphs, skipped.ops_eager) == (0, 16, 16)
    assert skipped.coverage == 0.0
    # each step's mul, sum, add and relu run in its graphs; its `.item()` runs
    # outside, and so does the softmax of the skipped frame that loops
    stepped = measure(per_iteration, (torch.ones(4),))[1]
    assert (stepped.ops_outside_graphs, stepped.ops_eager) == (4, 16), stepped
    assert stepped.coverage == pytest.approx(12 / 16)
    whole = measure(clean, (torch.ones(4),))[1]
    assert whole.coverage == 1.0 and whole.ops_in_graphs == 4


def test_compare_outputs_is_exact_for_eager_and_tolerant_for_inductor():
    a = (torch.ones(3), {"n": 1.0})
    b = (torch.ones(3) + 1e-7, {"n": 1.0 + 1e-9})
    outputs = {"eager(before)": a, "compiled(before)": a, "compiled(after)": b}
    exact = compare_outputs(outputs, "eager")
    assert [c.name for c in exact] == ["eager(before) vs compiled(after)", "compiled(before) vs compiled(after)"]
    assert exact[0].difference.startswith("output[0]: Tensor-likes are not equal! (Mismatched elements: 3 / 3")
    assert all(c.difference is None for c in compare_outputs(outputs, "inductor"))
    far = dict(outputs, **{"compiled(after)": (torch.ones(3), {"n": 1.5})})
    assert compare_outputs(far, "inductor")[0].difference == "output[1]['n']: 1.0 vs 1.5"
    assert compare_outputs(far, "eager", atol=1.0)[0].difference is None


Pair = namedtuple("Pair", "first second")


@dataclass
class Result:
    value: torch.Tensor
    label: str


class Opaque:
    pass


def test_outputs_become_plain_values_the_parent_can_load(tmp_path):
    value = {
        "pair": Pair(torch.ones(1, requires_grad=True), torch.Size([2])),
        "res": Result(torch.zeros(1), "x"),
        "obj": Opaque(),
        (1, 2): None,
    }
    plain = sandbox.to_plain(value)
    path = tmp_path / "out.pt"
    torch.save(plain, path)
    loaded = torch.load(path, weights_only=True)
    assert set(loaded["pair"]) == {"first", "second"} and loaded["pair"]["second"] == (2,)
    assert loaded["res"]["__dataclass__"] == "Result" and loaded["res"]["label"] == "x"
    assert loaded["obj"]["repr"].endswith("Opaque object>")  # no address: equal on both sides
    assert "(1, 2)" in loaded


def test_user_traceback_hides_gbfix_frames(tmp_path):
    def factory():
        return {}["missing"]

    with pytest.raises(sandbox.UserError) as info:
        sandbox.build_inputs(factory, "cpu", 0)
    text = info.value.traceback
    assert "in factory" in text and "KeyError: 'missing'" in text
    assert "sandbox.py" not in text and "frames inside gbfix" in text
    assert info.value.phase == "building the inputs"


def test_served_module_keeps_sibling_imports_and_quotes_served_lines(tmp_path, monkeypatch):
    pkg = tmp_path / "servedpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "sib.py").write_text("VALUE = 41\n")
    (pkg / "mod.py").write_text("raise RuntimeError('the file on disk must not run')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    served = sandbox.ServedModule("servedpkg.mod", str(pkg / "mod.py"), "from .sib import VALUE\nANSWER = VALUE + 1\n")
    served.install()
    try:
        assert sandbox.resolve_spec("servedpkg.mod:ANSWER", "--entry") == 42
        import servedpkg.mod as mod

        assert mod.__file__ == str(pkg / "mod.py")
        import linecache

        assert linecache.getline(str(pkg / "mod.py"), 2) == "ANSWER = VALUE + 1\n"
        with pytest.raises(sandbox.SetupError, match="no module named 'servedpkg.nope'"):
            sandbox.resolve_spec("servedpkg.nope:f", "--entry")
    finally:
        sys.meta_path.remove(served)
        linecache.cache.pop(str(pkg / "mod.py"), None)
        for name in ("servedpkg.mod", "servedpkg.sib", "servedpkg"):
            sys.modules.pop(name, None)


def test_inputs_and_modules_move_to_the_device():
    layer = torch.nn.Linear(2, 2)
    moved = sandbox.to_device((torch.ones(1), [layer], {"k": torch.zeros(1)}, 3), torch.device("meta"))
    assert moved[0].device.type == "meta" and moved[2]["k"].device.type == "meta"
    assert layer.weight.device.type == "meta" and moved[3] == 3


def test_measure_counts_recompiles():
    from rewriter.runtime.measure import measure

    state = {"scale": 1}

    def bump(x):
        state["scale"] += 1  # a guarded constant that changes every call
        return x * state["scale"]

    def steady(x):
        return x * 2

    assert measure(steady, (torch.ones(2),), calls=3)[1].recompiles == 0
    assert measure(bump, (torch.ones(2),), calls=3)[1].recompiles >= 1
