"""`gbfix verify` fails a rewrite that costs: more recompiles, a recompile-limit hit, more graph
breaks without more coverage, or a compiled call slower than the stated threshold, timed with
the calls of both sides interleaved in one process. Each figure is printed."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import torch

from rewriter.runtime.measure import CompileStats, Timing, interleaved_times
from rewriter.runtime.verify import MAX_SLOWDOWN, judge

#: a loop skipped for its logging call: the whole loop runs eagerly, compiled once
BEFORE = """\
import logging

import torch

logger = logging.getLogger(__name__)


def step(x):
    out = []
    for n in range(1, 13):
        h = x[:n] * (n / 4)
        if n % 2:
            h = h + 1
        logger.debug("trip %d", n)
        out.append(h.sum())
    return torch.stack(out)


def inputs(device="cpu"):
    return (torch.randn(16, device=device),)
"""

#: a per-trip helper called with a string that changes on every trip: Dynamo compiles it once
#: per trip, hits its recompile limit (8) and runs the last trips eagerly
AFTER_PER_TRIP = """\
import logging

import torch

logger = logging.getLogger(__name__)


def _trip(x, n, tag):
    h = x[:n] * (n / 4)
    if tag.endswith(("1", "3", "5", "7", "9")):
        h = h + 1
    logger.debug("trip %d", n)
    return h.sum()


def step(x):
    out = []
    for n in range(1, 13):
        out.append(_trip(x, n, str(n)))
    return torch.stack(out)


def inputs(device="cpu"):
    return (torch.randn(16, device=device),)
"""


def _stats(**fields) -> CompileStats:
    stats = CompileStats(frames_total=2, frames_ok=2, ops=4, ops_eager=10, ops_outside_graphs=5)
    for name, value in fields.items():
        setattr(stats, name, value)
    return stats


def test_judge_names_each_cost_with_its_figures() -> None:
    before = _stats()
    after = _stats(
        recompiles=3,
        recompiles_by_frame={"'_trip' (m.py:3)": 2, "'step' (m.py:9)": 1},
        recompile_limit_hits={"'_trip' (m.py:3)": 1},
        breaks=[object()],  # type: ignore[list-item]
    )
    slower = Timing(before=[0.001] * 5, after=[0.002] * 5)
    reasons = judge(before, after, [], timing=slower)
    assert reasons == [
        "after recompiles more (0 -> 3: '_trip' (m.py:3) 2, 'step' (m.py:9) 1)",
        "after hits the recompile limit (0 -> 1: '_trip' (m.py:3) 1); the frame then runs eagerly",
        "after adds graph breaks without adding coverage (0 -> 1 breaks,"
        " coverage 50% (5 of 10 ops run eagerly) -> 50% (5 of 10 ops run eagerly))",
        "after is slower: compiled call 1.000 -> 2.000 ms (x2.00, above the x1.10 allowed;"
        " medians of 5 interleaved calls)",
    ]
    # breaks that bought coverage, a call within the threshold, the same recompiles: nothing
    covered = _stats(breaks=[object()], ops_outside_graphs=1)  # type: ignore[list-item]
    within = Timing(before=[0.001] * 5, after=[0.001 * MAX_SLOWDOWN * 0.99] * 5)
    assert judge(before, covered, [], timing=within) == []
    assert judge(before, after, [], recompiles=False)[0].startswith("after hits the recompile limit")


#: measures one program in a fresh interpreter: Dynamo's caches and its logging settings are
#: process-wide, and another test in the same worker may have changed them
_MEASURE = """\
import json, sys
from rewriter.runtime.measure import measure
namespace = {}
exec(compile(sys.stdin.read(), "per_trip.py", "exec"), namespace)
_, stats = measure(namespace["step"], namespace["inputs"](), coverage=False)
print(json.dumps([stats.recompiles, stats.recompiles_by_frame, stats.recompile_limit_hits]))
"""


def _measured(source: str) -> tuple[int, dict, dict]:
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE], input=source, capture_output=True, text=True, timeout=300, check=True
    )
    recompiles, by_frame, limit_hits = json.loads(done.stdout.strip().splitlines()[-1])
    return recompiles, by_frame, limit_hits


@pytest.mark.torch_run
def test_measure_counts_recompiles_per_frame_and_limit_hits() -> None:
    recompiles, by_frame, limit_hits = _measured(AFTER_PER_TRIP)
    frames = {label.split(" ")[0]: count for label, count in by_frame.items()}
    assert frames.get("'_trip'", 0) >= 7
    assert sum(by_frame.values()) == recompiles
    assert [label.split(" ")[0] for label in limit_hits] == ["'_trip'"]
    recompiles, _, limit_hits = _measured(BEFORE)
    assert recompiles == 0 and limit_hits == {}


def test_interleaved_timing_sees_a_slower_side() -> None:
    # large enough that the matmuls, not the compiled call's own overhead, make the time
    x = torch.randn(256, 256)

    def once(x):
        return x @ x

    def ten_times(x):
        for _ in range(10):
            x = x @ x / 256
        return x

    timing = interleaved_times((once, (x,)), (ten_times, (x,)), rounds=6, warmup=1)
    assert len(timing.before) == len(timing.after) == 6
    assert timing.ratio is not None and timing.ratio > 1
    # ten matmuls against one: the fastest round of each side, which other processes on a shared
    # machine slow the least, tells them apart by far more than noise
    assert min(timing.after) > 3 * min(timing.before)


@pytest.mark.torch_run
def test_verify_fails_a_per_trip_rewrite_that_costs(tmp_path) -> None:
    (tmp_path / "before.py").write_text(BEFORE)
    (tmp_path / "model.py").write_text(AFTER_PER_TRIP)
    result = subprocess.run(
        [sys.executable, "-m", "rewriter", "verify", "model.py", "--entry", "model:step", "--inputs", "model:inputs"]
        + ["--before", "before.py", "--device", "cpu"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    out = result.stdout
    # every figure is printed, before and after
    for row in ("recompiles", "recompile-limit hits", "graph breaks", "compiled call (ms, median of 20 interleaved)"):
        assert any(line.strip().startswith(row) for line in out.splitlines()), row
    assert "after recompiled '_trip' (model.py:" in out
    assert "after hit the recompile limit in '_trip' (model.py:" in out
    assert "- after recompiles more (0 -> " in out
    assert "- after hits the recompile limit (0 -> 1: '_trip' (model.py:" in out
    assert "- after is slower: compiled call " in out
    assert sum(line.endswith(" equal") for line in out.splitlines()) == 3
