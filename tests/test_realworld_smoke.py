"""The real-model benchmark's own checks: the coverage counter on a toy loop, and one real model."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "benchmarks")

pytestmark = pytest.mark.torch_run


def _bench_module(name):
    spec = importlib.util.spec_from_file_location(f"{name}_under_test", os.path.join(BENCH, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_coverage_counter_sees_the_loop_body_move_into_graphs():
    run = subprocess.run(
        [sys.executable, os.path.join(BENCH, "model_run.py"), "self-check"], capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr[-2000:]
    figures = json.loads(run.stdout.splitlines()[-1])
    assert figures["as_written"] == {"ops_inside": 0, "ops_outside": 16}
    assert figures["body_per_iteration"]["ops_inside"] > figures["body_per_iteration"]["ops_outside"]


@pytest.mark.skipif(importlib.util.find_spec("transformers") is None, reason="needs the bench extra (transformers)")
def test_one_real_model_before_and_after_a_static_rewrite():
    run = subprocess.run(
        [sys.executable, os.path.join(BENCH, "realworld.py"), "--smoke"], capture_output=True, text=True, timeout=900
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]


def test_precision_tells_generator_frames_from_others(tmp_path):
    precision = _bench_module("precision")
    (tmp_path / "m.py").write_text(
        "import contextlib\n"
        "@contextlib.contextmanager\n"  # line 2: Dynamo names a decorated frame by its first decorator
        "def ctx():\n"
        "    yield\n"
        "def plain(xs):\n"  # line 5
        "    def inner():\n"
        "        yield 1\n"
        "    return next(x for x in xs)\n"  # line 8: the generator expression
    )
    root = str(tmp_path)
    assert precision.is_generator(root, ("m.py", 2))
    assert precision.is_generator(root, ("m.py", 8))
    assert precision.is_generator(root, ("m.py", 6))
    assert not precision.is_generator(root, ("m.py", 5))  # its nested generator is not its own yield


def test_advised_settings_hold_for_the_rewritten_side_only():
    import logging

    import torch

    model_run = _bench_module("model_run")
    log = logging.getLogger("gbfix.test.advised")

    def step(x):
        for i in range(3):
            log.warning("step %d", i)
            x = x * 2
        return x

    patch = model_run.dynamo_settings({"ignore_logger_methods": ["logging.Logger.warning", "logging.Logger.no_such"]})
    assert patch == {"ignore_logger_methods": {logging.Logger.warning}}
    counts = model_run.Counts()
    compiled = model_run.under_settings(torch.compile(step, backend=model_run.counting_backend(counts, "eager")), patch)
    torch._dynamo.reset()
    with model_run.recording(counts):
        assert torch.equal(compiled(torch.ones(2)), step(torch.ones(2)))
    assert counts.summary()["skipped"] == 0 and counts.summary()["graph_breaks"] == 0
    assert logging.Logger.warning not in torch._dynamo.config.ignore_logger_methods  # the process keeps its defaults

    plain_counts = model_run.Counts()
    plain = torch.compile(step, backend=model_run.counting_backend(plain_counts, "eager"))
    torch._dynamo.reset()
    with model_run.recording(plain_counts):
        plain(torch.ones(2))
    assert plain_counts.summary()["skipped"] >= 1  # without the setting the loop's frame runs eagerly


def test_the_benchmark_takes_the_advisers_first_recommendation():
    realworld = _bench_module("realworld")
    advice = {
        "baseline": {"candidate": "none", "coverage": 0.5, "outputs_equal": True},
        "candidates": [
            {"candidate": "nested_graph_breaks", "config": {"nested_graph_breaks": True}, "coverage": 0.5},
            {"candidate": "capture_scalar_outputs", "config": {"capture_scalar_outputs": True}, "coverage": 0.9},
            {"candidate": "a+b", "config": {"a": True, "b": True}, "coverage": 0.8},
        ],
        "recommended": ["capture_scalar_outputs", "a+b"],
    }
    chosen = realworld.advised_of(advice)
    assert (chosen["candidate"], chosen["config"]) == ("capture_scalar_outputs", {"capture_scalar_outputs": True})
    assert [run["candidate"] for run in chosen["runs"]] == [
        "none",
        "nested_graph_breaks",
        "capture_scalar_outputs",
        "a+b",
    ]
    assert realworld.advised_of({**advice, "recommended": []})["config"] == {}


def test_an_advised_run_alone_gets_its_report(tmp_path):
    report = _bench_module("realworld_report")
    shutil.copy(os.path.join(BENCH, "results", "realworld-advised.json"), tmp_path)
    assert report.render_files(str(tmp_path))
    text = (tmp_path / "realworld-advised.md").read_text(encoding="utf-8")
    assert "`python benchmarks/realworld.py --advise`" in text
    assert "| qwen2_vl | vlm | static + setting |" in text
    assert "Rewrites alone" not in text  # no realworld.json beside it to compare with
    assert not (tmp_path / "realworld.md").exists()


def test_a_report_says_the_command_of_its_own_run():
    realworld = _bench_module("realworld")
    report = _bench_module("realworld_report")
    default = realworld.settings_from(realworld.parse_args([]))
    assert realworld.command_of(default) == report.DEFAULT_COMMAND
    argv = ["--backend", "inductor", "--models", "mixtral", "encodec", "--results", os.path.join(BENCH, "results", "x")]
    part = realworld.settings_from(realworld.parse_args(argv))
    command = (
        "python benchmarks/realworld.py --backend inductor --models mixtral encodec --results benchmarks/results/x"
    )
    assert realworld.command_of(part) == command
    assert realworld.command_of(realworld.settings_from(realworld.parse_args(["--medium"]))) == (
        "python benchmarks/realworld.py --medium"
    )
    with open(os.path.join(BENCH, "results", "realworld.json"), encoding="utf-8") as handle:
        document = json.load(handle)
    assert "Reproduce: `pip install -e '.[bench]'` then `python benchmarks/realworld.py` (and" in report.render(
        document
    )
    document["meta"]["command"] = command
    assert f"Reproduce: `pip install -e '.[bench]'` then `{command}`." in report.render(document)


def test_counts_recompiles_the_recompile_limit_and_uninitialized_cells():
    import torch

    model_run = _bench_module("model_run")

    def per_trip_shapes(x):
        def step(n):
            return x[:n].sum() * 2

        out = []
        for n in range(1, 12):  # a new shape on every trip: a compile each until the limit
            out.append(step(n))
            torch._dynamo.graph_break()
        return out

    def declared_without_value(x):
        best: object

        def loop():
            nonlocal best

            def body(i):
                nonlocal best
                best = x * i

            for i in range(3):
                body(i)
                torch._dynamo.graph_break()

        loop()
        return best

    figures = {}
    for fn in (per_trip_shapes, declared_without_value):
        torch._dynamo.reset()
        counts = model_run.Counts()
        compiled = torch.compile(fn, backend=model_run.counting_backend(counts, "eager"), dynamic=False)
        with model_run.recording(counts):
            compiled(torch.arange(20.0))
        figures[fn.__name__] = counts.summary()
    shapes, cell = figures["per_trip_shapes"], figures["declared_without_value"]
    limit = torch._dynamo.config.recompile_limit
    assert shapes["recompiles"] == limit and list(shapes["recompiled_frames"].values()) == [limit]
    (hit,) = shapes["recompile_limit_hits"]
    assert hit.startswith("step (") and hit in shapes["skipped_whole"]
    assert f"{hit}: {model_run.RECOMPILE_LIMIT}" in shapes["frame_failures"]
    assert shapes["uninitialized_cells"] == [] and cell["recompile_limit_hits"] == []
    (where,) = cell["uninitialized_cells"]
    assert where.startswith("declared_without_value (")
    assert cell["reconstruction_failures"] == []


def test_timing_table_gives_a_withheld_rewrite_its_row_and_reason():
    table = _bench_module("timing_table")
    meta = {"gbfix": "abc", "date": "today", "settings": {"backend": "inductor", "size": "medium", "device": "cpu"}}
    note = "costs more than it captures: each trip's work is in `M._frame`, which breaks inside"
    withheld = [f"pkg/m.py:5: GBF002 {note}", "pkg/m.py:9: GBF002 nothing to capture: `f` runs no tensor op"]
    sides = {
        "kept": {
            "changed_files": [],
            "withheld": withheld,
            "pair_before_compiled_s": 1.0,
            "pair_after_compiled_s": 1.05,
        },
        "slower": {"changed_files": ["pkg/m.py"], "pair_before_compiled_s": 1.0, "pair_after_compiled_s": 1.05},
        "untouched": {"changed_files": []},
    }
    document = {"meta": meta, "models": [{"name": name, "after": {"static": side}} for name, side in sides.items()]}
    found = {row["model"]: row for row in table.rows([document])}
    assert set(found) == {"kept", "slower"}  # a model nothing touched nor withheld has no row
    assert not found["kept"]["costs"] and found["slower"]["costs"]  # the same code on both sides: noise
    text = table.markdown(list(found.values()))
    assert "| kept | static | 1000.0 | 1050.0 | 1.05 (nothing rewritten) | costs more than it captures (1), " in text
    assert "nothing to capture (1) |" in text
    assert "| slower | static | 1000.0 | 1050.0 | 1.05 (costs) |  |" in text
    earlier = [{**found["slower"], "ratio": 0.9}, {**found["slower"], "model": "other", "ratio": 0.8}]
    updated = table.merged(earlier, [found["slower"]])
    assert [(row["model"], row["ratio"]) for row in updated] == [("other", 0.8), ("slower", 1.05)]
