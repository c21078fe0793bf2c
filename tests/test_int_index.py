"""A per-trip function handed its expert index as an int compiles with backends that trace the graph.

Measured on torch 2.13 (golden ``GBF002/expert_weights``): selecting an
expert's weights by a 0-d integer tensor (``self.gate_up[expert_idx]``)
inside the per-trip function makes ``aot_eager`` (and ``inductor``) fail on
its graph, so Dynamo runs that function eagerly on every trip; handed
``int(expert_idx)``, it compiles, and only the loop helper runs eagerly.
The eager backend, which the golden runs use, compiles both.
"""

from __future__ import annotations

import pytest

from rewriter.runtime.measure import first_difference, measure, resolve_entry, run_eager, seed_everything
from tests.golden import GOLDEN, load

pytestmark = pytest.mark.torch_run

CASE = f"{GOLDEN}/GBF002/expert_weights"


def _measured(source: str, tag: str, backend: str):
    module = load(f"{CASE}.out.py", source, tag)
    fn = resolve_entry(module.ENTRY)
    seed_everything(1)
    args = module.example_inputs()
    reference = run_eager(fn, args)
    output, stats = measure(fn, args, backend=backend, coverage=False)
    assert first_difference(reference, output) is None
    return stats


def _rewritten() -> str:
    with open(f"{CASE}.out.py", encoding="utf-8") as handle:
        return handle.read()


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_the_per_trip_function_compiles_when_handed_an_int(backend: str) -> None:
    source = _rewritten()
    assert "int(expert_idx)" in source
    stats = _measured(source, f"int_{backend}", backend)
    assert stats.skipped_functions == ["_gbfix_expert_hit_loop_1"], stats.skip_reasons


def test_handed_the_tensor_a_tracing_backend_runs_it_eagerly() -> None:
    source = _rewritten().replace("int(expert_idx)", "expert_idx")
    stats = _measured(source, "tensor_aot_eager", "aot_eager")
    assert "_gbfix_expert_idx_step_2" in stats.skipped_functions, stats.skipped_functions
    eager = _measured(source, "tensor_eager", "eager")
    assert eager.skipped_functions == ["_gbfix_expert_hit_loop_1"], eager.skip_reasons
