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
