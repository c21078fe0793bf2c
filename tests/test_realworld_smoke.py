"""The real-model benchmark's own checks: the coverage counter on a toy loop, and one real model."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "benchmarks")

pytestmark = pytest.mark.torch_run


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
    spec = importlib.util.spec_from_file_location("precision_under_test", os.path.join(BENCH, "precision.py"))
    precision = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = precision  # its dataclasses look their module up
    spec.loader.exec_module(precision)
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
