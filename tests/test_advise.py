"""`gbfix advise`: which candidates run, what the report says, what it recommends, what --write writes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import pytest
from typer.testing import CliRunner

from codemods.analysis.compile_settings import insert_before_compile
from rewriter.cli import app
from rewriter.runtime.advise import (
    BASELINE,
    CANDIDATES,
    DYNAMIC,
    LOG,
    NESTED,
    PRINT,
    SCALAR,
    Advice,
    Run,
    Target,
    break_kinds,
    compare_printed,
    relevant,
    render,
    setting_lines,
    together,
)
from rewriter.runtime.measure import BreakRecord, CompileStats
from rewriter.runtime.trace import RecordedBreak, site_from_record

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BY_NAME = {candidate.name: candidate for candidate in CANDIDATES}
_BOTH = "capture_scalar_outputs+capture_dynamic_output_shape_ops"
_REORDER = "reorderable_logging_functions"


def _site(reason: str, source: str = "", depth: int = 1, tmp_path=None) -> RecordedBreak:
    path = ""
    if source and tmp_path is not None:
        path = str(tmp_path / "m.py")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(source + "\n")
    stack = [(path or "m.py", 1, f"f{n}") for n in range(depth)]
    record = BreakRecord(reason, reason, path or "m.py", 1, "f", False, user_stack=stack)
    return site_from_record(record)


@pytest.mark.parametrize(
    ("reason", "source", "depth", "kinds"),
    [
        ("Unsupported Tensor.item() call with capture_scalar_outputs=False", "", 1, {SCALAR}),
        ("Dynamic shape operator", "", 1, {DYNAMIC}),
        ("Attempted to call function marked as skipped", 'print("step", i)', 1, {PRINT}),
        ("Attempted to call function marked as skipped", 'warnings.warn("w")', 1, {PRINT}),
        ("logging.Logger method not supported for non-export cases", "", 1, {LOG}),
        ("Data-dependent branching", "", 3, {NESTED}),
    ],
)
def test_the_kind_of_a_break(tmp_path, reason: str, source: str, depth: int, kinds: set[str]) -> None:
    assert break_kinds(_site(reason, source, depth, tmp_path)) == kinds


def test_a_candidate_runs_only_for_breaks_it_acts_on() -> None:
    outputs = BY_NAME[f"{_REORDER}+ignore_logger_methods"]
    assert relevant(BY_NAME["capture_scalar_outputs"], {SCALAR})
    assert not relevant(BY_NAME["capture_scalar_outputs"], {DYNAMIC, PRINT})
    assert relevant(BY_NAME[_BOTH], {DYNAMIC})
    assert not relevant(outputs, {PRINT}) and relevant(outputs, {PRINT, LOG})


def test_one_more_candidate_sets_all_the_breaks_call_for() -> None:
    assert together({SCALAR, NESTED}) is None
    combined = together({SCALAR, LOG, NESTED})
    assert combined is not None and combined.name == "capture_scalar_outputs+ignore_logger_methods"
    assert combined.drops == "log" and relevant(combined, {SCALAR, LOG})
    assert set(combined.config) == {"capture_scalar_outputs", "ignore_logger_methods"}


def test_settings_joined_by_plus_name_a_candidate() -> None:
    from rewriter.runtime.advise import AdviseError, _chosen

    (chosen,) = _chosen(["ignore_logger_methods+capture_scalar_outputs"])
    assert chosen.config["capture_scalar_outputs"] is True and chosen.drops == "log"
    with pytest.raises(AdviseError, match="unknown setting"):
        _chosen(["capture_scalar_outputs+turbo"])


@pytest.mark.parametrize(
    ("eager", "compiled", "verdict"),
    [
        ([], [], ""),
        (["print: a", "print: b"], ["print: a", "print: b"], "same"),
        (["print: a", "log: INFO b"], ["log: INFO b", "print: a"], "reordered"),
        (["print: a", "print: b", "print: c"], ["print: a"], "2 lines lost"),
        (["print: a"], ["print: z"], "differs"),
    ],
)
def test_what_the_compiled_calls_printed(eager: list[str], compiled: list[str], verdict: str) -> None:
    assert compare_printed(eager, compiled) == verdict


def test_a_candidate_that_drops_logging_may_lose_log_lines_only() -> None:
    eager = ["print: a", "log: INFO b", "log: INFO c"]
    assert compare_printed(eager, ["print: a"], drops="log") == "2 log lines dropped"
    assert compare_printed(eager, ["log: INFO b"], drops="log") == "2 lines lost"
    assert compare_printed(eager, ["print: a"]) == "2 lines lost"
    ignore = BY_NAME["ignore_logger_methods"]
    advice = _advice(Run(ignore, stats=_stats(0, 1.0), printed="2 log lines dropped"), baseline=_stats(2, 0.5))
    assert advice.recommended == advice.runs
    assert "outputs equal, 2 log lines dropped under compile" in render(advice)
    lost = Run(ignore, stats=_stats(0, 1.0), printed="2 lines lost")
    assert _advice(lost, baseline=_stats(2, 0.5)).recommended == []


def _stats(breaks: int, coverage: float, skipped: int = 0, compile_seconds: float = 1.0) -> CompileStats:
    stats = CompileStats(frames_total=skipped, ops_eager=100, ops_outside_graphs=round(100 * (1 - coverage)))
    stats.breaks = [BreakRecord("Dynamic shape operator", "r", "m.py", 1, "f", False) for _ in range(breaks)]
    stats.compile_seconds = compile_seconds
    return stats


def _advice(*runs: Run, baseline: CompileStats) -> Advice:
    target = Target("m:f", "m:inputs", (ROOT,), ROOT)
    return Advice(target, Run(BASELINE, stats=baseline), list(runs), info={"device": "cpu", "torch": "2.13"})


def test_only_what_kept_every_output_and_raised_coverage_is_recommended_best_first() -> None:
    scalar, dynamic, both = (BY_NAME[n] for n in ("capture_scalar_outputs", "capture_dynamic_output_shape_ops", _BOTH))
    nested, reorder, ignore = (BY_NAME[n] for n in ("nested_graph_breaks", _REORDER, "ignore_logger_methods"))
    combo = BY_NAME[f"{_REORDER}+ignore_logger_methods"]
    advice = _advice(
        Run(scalar, stats=_stats(3, 0.60)),  # raised coverage: recommended, second
        Run(dynamic, stats=_stats(0, 0.90)),  # best
        Run(both, error="GuardOnDataDependentSymNode: Could not guard on data-dependent expression"),
        Run(nested, stats=_stats(1, 0.95), difference="output['logits']: Tensor-likes are not equal"),
        Run(reorder, stats=_stats(2, 0.70), printed="3 lines lost"),
        Run(ignore, stats=_stats(5, 0.50)),  # no gain
        Run(combo, skipped="no print, warning or logging break in any run"),
        baseline=_stats(5, 0.50, skipped=2),
    )
    assert [run.candidate.name for run in advice.recommended] == [dynamic.name, scalar.name]
    text = render(advice)
    assert "recommended (1)" in text and "recommended (2)" in text
    for verdict in ("error", "outputs differ", "output 3 lines lost", "no gain"):
        assert verdict in text
    assert f"not run: {combo.name} (no print, warning or logging break in any run)" in text
    assert "GuardOnDataDependentSymNode" in text
    assert "graph coverage 50.0% -> 90.0%, graph breaks 5 -> 0, outputs equal" in text
    data = advice.to_dict()
    assert data["recommended"] == [dynamic.name, scalar.name]
    assert data["candidates"][2]["error"].startswith("GuardOnDataDependentSymNode")


def test_a_recorded_baseline_asks_for_fewer_breaks() -> None:
    baseline = _stats(5, 0.0)
    baseline.ops_eager = 0  # a trace has no coverage
    better, same = BY_NAME["capture_scalar_outputs"], BY_NAME["capture_dynamic_output_shape_ops"]
    advice = _advice(Run(better, stats=_stats(2, 0.9)), Run(same, stats=_stats(5, 0.9)), baseline=baseline)
    assert [run.candidate.name for run in advice.recommended] == [better.name]


def test_setting_lines_and_their_imports() -> None:
    lines, imports = setting_lines(BY_NAME["capture_scalar_outputs+capture_dynamic_output_shape_ops"], "why")
    assert lines == [
        "torch._dynamo.config.capture_scalar_outputs = True  # gbfix advise: why",
        "torch._dynamo.config.capture_dynamic_output_shape_ops = True",
    ]
    assert imports == ["torch"]
    lines, imports = setting_lines(BY_NAME["reorderable_logging_functions"])
    assert lines == ["torch._dynamo.config.reorderable_logging_functions.update({print, warnings.warn})"]
    assert imports == ["torch", "warnings"]


def test_settings_go_before_the_first_compile_once() -> None:
    source = textwrap.dedent("""\
        import torch

        def main(model):
            # compile it
            model = torch.compile(model)
            return model
        """)
    new = insert_before_compile(source, ["torch._dynamo.config.nested_graph_breaks = True  # gbfix advise: why"])
    assert new is not None and new.splitlines()[3:6] == [
        "    # compile it",
        "    torch._dynamo.config.nested_graph_breaks = True  # gbfix advise: why",
        "    model = torch.compile(model)",
    ]
    assert insert_before_compile(new, ["torch._dynamo.config.nested_graph_breaks = True"]) == new
    assert insert_before_compile("import torch\n", ["x = 1"]) is None


def test_a_setting_for_a_compiled_method_goes_before_its_class() -> None:
    source = textwrap.dedent("""\
        import torch


        class Net(torch.nn.Module):
            @torch.compile
            def forward(self, x):
                return x * 2
        """)
    new = insert_before_compile(source, ["torch._dynamo.config.capture_scalar_outputs = True"])
    assert new is not None and new.splitlines()[3:5] == [
        "torch._dynamo.config.capture_scalar_outputs = True",
        "class Net(torch.nn.Module):",
    ]


def test_no_setting_is_written_into_installed_code(tmp_path) -> None:
    import logging

    import typer

    from rewriter.cli.advise import installed

    assert installed(logging.__file__) and installed(typer.__file__)
    assert not installed(str(tmp_path / "train.py")) and not installed(__file__)


def test_dry_run_goes_with_write() -> None:
    result = CliRunner().invoke(app, ["advise", "--entry", "m:f", "--inputs", "m:g", "--dry-run"])
    assert result.exit_code == 2 and "--dry-run goes with --write" in result.stderr


def test_an_unknown_candidate_is_a_usage_error() -> None:
    result = CliRunner().invoke(app, ["advise", "--entry", "m:f", "--inputs", "m:g", "--candidate", "turbo"])
    assert result.exit_code == 2 and "unknown setting(s): turbo" in result.stderr


def test_sandbox_settings_name_callables_by_dotted_name() -> None:
    import logging
    import warnings

    from rewriter.runtime.sandbox import resolve_callable

    assert resolve_callable("print") is print
    assert resolve_callable("warnings.warn") is warnings.warn
    assert resolve_callable("logging.Logger.info") is logging.Logger.info


# -- a real run -------------------------------------------------------------------------------

TOY = textwrap.dedent("""\
    import torch


    def route(x):
        out = torch.zeros_like(x)
        for e in range(3):
            idx = torch.nonzero(x[:, 0] > e - 1.5).squeeze(-1)
            out[idx] = out[idx] + x[idx] * (e + 1)
            print("expert", e)
        return out


    compiled = torch.compile(route)


    def example_inputs():
        torch.manual_seed(0)
        return (torch.randn(8, 4),)
    """)


@pytest.mark.cli
def test_advise_runs_the_candidates_and_writes_the_winner(tmp_path) -> None:
    """The print hides behind the nonzero: only the combination removes both, and it is proven and written."""
    (tmp_path / "toy.py").write_text(TOY)
    combo = f"{_BOTH}+{_REORDER}+ignore_logger_methods"
    base = [sys.executable, "-m", "rewriter", "advise", "toy.py", "--entry", "toy:route", "--inputs"]
    base += ["toy:example_inputs", "--device", "cpu", "--candidate", combo]
    command = [*base, "--candidate", "capture_dynamic_output_shape_ops", "--write", "--dry-run"]
    env = dict(os.environ, PYTHONPATH=ROOT)
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, env=env)
    assert result.returncode == 1, result.stderr
    rows = {line.split()[0]: line.split()[1:] for line in result.stdout.splitlines() if line.startswith("  ")}
    # breaks, skipped (h), coverage, graphs, compile s, outputs, printed, verdict
    assert rows["none"][:3] == ["1", "1", "(0)"] and rows["none"][3] == "0.0%"
    assert rows[combo][:4] == ["0", "0", "(0)", "100.0%"] and rows[combo][6:] == ["equal", "same", "recommended", "(1)"]
    assert rows["capture_dynamic_output_shape_ops"][-2:] == ["no", "gain"]
    assert "+torch._dynamo.config.capture_dynamic_output_shape_ops = True" in result.stdout
    assert (tmp_path / "toy.py").read_text() == TOY
    result = subprocess.run([*base, "--write"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert result.returncode == 0 and "rewrote toy.py" in result.stderr
    written = (tmp_path / "toy.py").read_text()
    assert "torch._dynamo.config.reorderable_logging_functions.update({print, warnings.warn})\n" in written
    assert "import warnings" in written


def test_a_logger_method_no_library_added_is_left_out_of_the_ignored_set() -> None:
    import logging

    import torch._dynamo

    from rewriter.runtime.sandbox import apply_dynamo_config

    with torch._dynamo.config.patch(ignore_logger_methods=set()):
        applied = apply_dynamo_config(
            {"ignore_logger_methods": ["logging.Logger.warning", "logging.Logger.warning_once", "logging.nothing"]}
        )
        assert torch._dynamo.config.ignore_logger_methods == {logging.Logger.warning}
    # what the run made is what --write writes: nothing the process lacked
    assert applied == {"ignore_logger_methods": ["logging.Logger.warning"]}


LIBRARY_LOGGER = textwrap.dedent("""\
    import functools
    import logging

    import torch

    logger = logging.getLogger("toy")


    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            # what importing a library does when the model is built (transformers' warning_once)
            if not hasattr(logging.Logger, "warning_once"):
                logging.Logger.warning_once = functools.lru_cache(None)(lambda self, *a: self.warning(*a))

        def forward(self, x):
            for _ in range(3):
                x = x * 2
                logger.warning_once("step")
            return x + 1


    def example_inputs():
        return (torch.ones(3),)
    """)


@pytest.mark.cli
def test_ignoring_logger_methods_covers_one_a_library_adds_when_the_entry_is_built(tmp_path) -> None:
    (tmp_path / "toy.py").write_text(LIBRARY_LOGGER)
    command = [sys.executable, "-m", "rewriter", "advise", "--entry", "toy:Model", "--inputs", "toy:example_inputs"]
    command += ["--device", "cpu", "--candidate", "ignore_logger_methods"]
    env = dict(os.environ, PYTHONPATH=ROOT)
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    row = next(line.split() for line in result.stdout.splitlines() if line.strip().startswith("ignore_logger_methods"))
    assert row[-2:] == ["recommended", "(1)"], result.stdout


@pytest.mark.cli
def test_the_written_sampler_imports(tmp_path) -> None:
    """The stock logging has no warning_once: the lines written name only what the run's process had."""
    shutil.copytree(os.path.join(ROOT, "examples"), tmp_path / "examples")
    command = [sys.executable, "-m", "rewriter", "advise", "examples/sampler.py", "--device", "cpu", "--write"]
    command += ["--entry", "examples.sampler:sample", "--inputs", "examples.sampler:example_inputs"]
    command += ["--candidate", "capture_scalar_outputs+ignore_logger_methods"]
    env = dict(os.environ, PYTHONPATH=ROOT)
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, env=env)
    assert result.returncode == 0 and "rewrote examples/sampler.py" in result.stderr, result.stderr
    written = (tmp_path / "examples" / "sampler.py").read_text()
    assert "logging.Logger.warning," in written and "_once" not in written
    imported = subprocess.run([sys.executable, "-c", "import examples.sampler"], cwd=tmp_path, capture_output=True)
    assert imported.returncode == 0, imported.stderr


@pytest.mark.cli
def test_lines_for_a_file_without_a_compile_call_come_with_their_imports(tmp_path) -> None:
    """Pasted as printed, the lines run: `warnings.warn` comes with `import warnings`; the file is not changed."""
    shutil.copytree(os.path.join(ROOT, "examples"), tmp_path / "examples")
    block = "examples/transformer_block.py"
    command = [sys.executable, "-m", "rewriter", "advise", block, "--device", "cpu", "--write"]
    command += ["--entry", "examples.transformer_block:ENTRY", "--inputs", "examples.transformer_block:example_inputs"]
    command += ["--candidate", "capture_scalar_outputs+reorderable_logging_functions"]
    env = dict(os.environ, PYTHONPATH=ROOT)
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, env=env)
    assert result.returncode == 2, result.stderr
    told = result.stderr.splitlines()
    start = told.index(f"gbfix: error: {block} has no torch.compile call; put these lines before yours:")
    pasted = [line.strip() for line in told[start + 1 :]]
    assert pasted[:2] == ["import torch", "import warnings"], told
    assert "torch._dynamo.config.reorderable_logging_functions.update({print, warnings.warn})" in pasted
    ran = subprocess.run([sys.executable, "-c", "\n".join(pasted)], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    with open(os.path.join(ROOT, block)) as original:
        assert (tmp_path / block).read_text() == original.read()


@pytest.mark.cli
def test_a_setting_the_file_cannot_make_where_it_goes_is_not_written(tmp_path) -> None:
    """The run built the entry (and the library's warning_once with it); the compile line comes before that."""
    source = LIBRARY_LOGGER + "\n\ndef run(x):\n    return Model()(x)\n\n\ncompiled = torch.compile(run)\n"
    (tmp_path / "toy.py").write_text(source)
    command = [sys.executable, "-m", "rewriter", "advise", "toy.py", "--entry", "toy:Model", "--write"]
    command += ["--inputs", "toy:example_inputs", "--device", "cpu", "--candidate", "ignore_logger_methods"]
    env = dict(os.environ, PYTHONPATH=ROOT)
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, env=env)
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines() == [
        "gbfix: error: toy.py: not written: with the setting it fails to import: "
        "AttributeError: type object 'Logger' has no attribute 'warning_once'"
    ]
    assert (tmp_path / "toy.py").read_text() == source


def test_a_file_that_imports_and_one_that_does_not(tmp_path) -> None:
    from rewriter.runtime.sandbox import check_import

    origin = str(tmp_path / "mod.py")
    common = {"is_package": False, "paths": (str(tmp_path),), "cwd": str(tmp_path), "timeout": 60.0}
    assert check_import("mod", origin, "import logging\n", lines=("logging.Logger.info",), **common) is None
    missing = check_import("mod", origin, "import logging\n", lines=("logging.Logger.info_once",), **common)
    assert missing == "AttributeError: type object 'Logger' has no attribute 'info_once'"
    assert check_import("mod", origin, "raise SystemExit(3)\n", **common) == "SystemExit: 3"


def _written_entries() -> list[tuple[str, str, str]]:
    """(file, entry, inputs) of every example that compiles its entry, and of every zoo model."""
    examples = [
        (f"examples/{name}", f"examples.{name[:-3]}:ENTRY", f"examples.{name[:-3]}:example_inputs")
        for name in sorted(os.listdir(os.path.join(ROOT, "examples")))
        if name.endswith(".py") and "torch.compile(" in open(os.path.join(ROOT, "examples", name)).read()
    ]
    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
    try:
        import zoo
    finally:
        sys.path.remove(os.path.join(ROOT, "benchmarks"))
    models = [(f"compile_{name}.py", f"advise_zoo:{name}", "advise_zoo:no_inputs") for name in zoo.names()]
    return examples + models


@pytest.mark.slow
@pytest.mark.parametrize(("file", "entry", "inputs"), _written_entries())
def test_advise_write_leaves_every_example_and_zoo_model_importable(tmp_path, file, entry, inputs) -> None:
    """Whatever advise recommends, the file it writes into still imports (or it writes nothing)."""
    shutil.copytree(os.path.join(ROOT, "examples"), tmp_path / "examples")
    for name in ("advise_zoo.py", "zoo.py"):
        shutil.copy(os.path.join(ROOT, "benchmarks", name), tmp_path / name)
    if file.startswith("compile_"):
        name = entry.partition(":")[2]
        (tmp_path / file).write_text(
            f"import torch\n\nimport advise_zoo\n\ncompiled = torch.compile(advise_zoo.{name})\n"
        )
    command = [sys.executable, "-m", "rewriter", "advise", file, "--entry", entry, "--inputs", inputs, "--write"]
    env = dict(os.environ, PYTHONPATH=ROOT)
    result = subprocess.run([*command, "--device", "cpu"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert result.returncode in (0, 2), result.stderr
    module = file[:-3].replace("/", ".")
    imported = subprocess.run([sys.executable, "-c", f"import {module}"], cwd=tmp_path, capture_output=True)
    assert imported.returncode == 0, imported.stderr
