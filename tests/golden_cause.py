"""Golden cases of GBF010 (``GOLDEN_KIND = "cause"``): the break's cause removed, run under torch.compile.

A case's file compiles its entry itself (``COMPILES_ITSELF = True``: the fix
is a setting next to the file's ``torch.compile``, which must say
``backend="eager"``), or leaves compiling to the test (a guard in code the
file does not compile). Either way the test counts graphs, breaks, skipped
frames and graph coverage with the counting backend of
:mod:`rewriter.runtime.measure`, and records what the program printed,
warned and logged:

* the input breaks the graph under compile, and its compiled outputs equal
  its eager ones;
* the output compiles into one graph with no break and nothing skipped;
  its outputs equal the input's eager outputs; run eagerly, it prints
  exactly what the input printed;
* the graph holds the case's tensor ops, ``OPS_IN_GRAPH`` of them (a
  reorder keeps the ops of the call's arguments, ``x.sum()``, in the graph;
  a drop loses them);
* a reorder (``PRINTED = "same"``): compiled, it prints what the eager run
  printed (the reordered call formats its tensors after the graph, with
  aten ops of its own, as eager code does, so coverage stays below 100%);
* a drop (``PRINTED = "none"``): compiled, it prints nothing, and no op runs
  outside the graph (coverage 100%).

Settings the file makes process-wide (``reorderable_logging_functions.add``)
are undone after each run.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any, Callable, Iterator

from rewriter.runtime.measure import (
    CompileStats,
    counting_backend,
    first_difference,
    graph_coverage,
    recording_breaks,
    resolve_entry,
    seed_everything,
)
from rewriter.runtime.sandbox import printed
from tests.golden import Case, load

CALLS = 2
_SETS = ("reorderable_logging_functions", "ignore_logging_functions")


@contextlib.contextmanager
def own_config() -> Iterator[None]:
    """Dynamo's logging sets as they were, whatever the case adds to them."""
    import torch._dynamo

    saved = {name: set(getattr(torch._dynamo.config, name)) for name in _SETS}
    with torch._dynamo.config.patch(**saved):
        yield


@contextlib.contextmanager
def counted_eager_backend(stats: CompileStats) -> Iterator[None]:
    """``backend="eager"`` compiled by the file counts into ``stats`` (and marks its graphs for coverage)."""
    from torch._dynamo.backends import registry

    registry.lookup_backend("eager")
    original = registry._COMPILER_FNS["eager"]
    registry._COMPILER_FNS["eager"] = counting_backend(stats, "eager")
    try:
        yield
    finally:
        registry._COMPILER_FNS["eager"] = original


def _entry_and_inputs(module: Any) -> tuple[Callable, tuple]:
    """The entry (a module class built under a fixed seed) and its inputs, the same on every load."""
    entry = resolve_entry(module.ENTRY, seed=1)
    seed_everything(1)
    return entry, module.example_inputs()


def _calls(fn: Callable, args: tuple) -> tuple[Any, list[str]]:
    output: Any = None
    with printed() as lines:
        for _ in range(CALLS):
            seed_everything(0)
            output = fn(*args)
    return output, lines


def run_eagerly(path: str, source: str, tag: str) -> tuple[Any, list[str]]:
    """The case's outputs and printed lines with Dynamo forced eager."""
    import torch

    with own_config():
        module = load(path, source, tag)
        entry, args = _entry_and_inputs(module)
        with torch.compiler.set_stance("force_eager"):
            return _calls(entry, args)


def run_compiled(path: str, source: str, tag: str) -> tuple[Any, list[str], CompileStats]:
    """The case's outputs, printed lines and counts, compiled by the file or by the test."""
    import torch
    import torch._dynamo
    from torch._dynamo.utils import counters

    stats = CompileStats()
    with own_config(), counted_eager_backend(stats):
        torch._dynamo.reset()
        counters.clear()
        module = load(path, source, tag)
        entry, args = _entry_and_inputs(module)
        if getattr(module, "COMPILES_ITSELF", False):
            compiled = entry

            def eager(*call_args: Any) -> Any:
                with torch.compiler.set_stance("force_eager"):
                    return entry(*call_args)

        else:
            compiled, eager = torch.compile(entry, backend="eager"), entry
        with recording_breaks(stats):
            output, lines = _calls(compiled, args)
        stats.frames_total = int(counters["frames"]["total"])
        stats.frames_ok = int(counters["frames"]["ok"])
        with printed():
            graph_coverage(stats, compiled, eager, args)
    return output, lines, stats


def check_cause(case: Case) -> None:
    reference, reference_lines = run_eagerly(case.input_path, case.source, "cause_before_eager")
    before_output, _, before = run_compiled(case.input_path, case.source, "cause_before")
    assert first_difference(reference, before_output) is None
    expected = case.expected
    if expected is None:
        return
    assert before.breaks or before.frames_skipped, "the input should break the graph"
    eager_after, eager_after_lines = run_eagerly(case.output_path, expected, "cause_after_eager")
    assert first_difference(reference, eager_after) is None, "eager outputs changed"
    assert eager_after_lines == reference_lines, "eager output changed"
    output, lines, after = run_compiled(case.output_path, expected, "cause_after")
    assert first_difference(reference, output) is None, "compiled outputs differ from eager"
    assert [b.reason for b in after.breaks] == [] and after.frames_skipped == 0, after.skip_reasons
    assert after.graphs == 1, f"{after.graphs} graphs"
    wanted = re.search(r"^OPS_IN_GRAPH = (\d+)$", expected, re.M)
    assert wanted is not None, "a cause case says how many ops its one graph holds"
    assert after.ops == int(wanted.group(1)), f"{after.ops} ops in the graph"
    module_text = case.source
    if 'PRINTED = "same"' in module_text:
        assert lines == reference_lines, (lines, reference_lines)
    else:
        assert 'PRINTED = "none"' in module_text, "a cause case says what it prints under compile"
        assert lines == [], lines
        assert after.coverage == 1.0, after.describe_coverage()
