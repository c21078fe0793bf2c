"""One model, one side, one fresh process: build it, compile it, count, time, print JSON.

    python benchmarks/model_run.py discover --model llama --reference REF.pt
    python benchmarks/model_run.py measure --model llama --reference REF.pt \
        [--package-root COPY] [--pair-with-before] [--backend eager] [--calls 5]
    python benchmarks/model_run.py self-check

``realworld.py`` starts this script once per step so that every measurement
begins with a fresh Dynamo state (compiled code, counters and skip marks are
process-wide). The result is one JSON object, written to ``--out`` (or printed
as the last line of standard output).

Tasks:

* ``discover``: runs the *unmodified* package eagerly once under
  ``sys.setprofile`` to list the package files the forward pass executes (the
  files gbfix is applied to), saves every tensor of that eager output as the
  reference, and, when the process was started with ``TORCH_TRACE`` set,
  compiles and runs the model once so the trace records its graph breaks.
* ``measure``: puts ``--package-root`` (a rewritten copy of the package) first
  on ``sys.path`` or uses the installed package, then counts frames, skipped
  frames (whole and partial, each with its name), graph breaks and their
  reasons, graphs, ops in graphs and graph coverage; times the first call
  (compile) and compiled against eager calls, interleaved; and compares every
  output tensor with the reference. With ``--pair-with-before`` it then
  imports the unmodified package in the same process and times both sides'
  compiled and eager calls interleaved, so the after/before ratio is taken
  under the same machine load.
* ``self-check``: the coverage counter on a toy loop, as written and with its
  body moved into a per-iteration function (see ``coverage_self_check``).

How skipped frames are counted: a hook on Dynamo's frame converter records
each frame it is handed and whether the conversion succeeded (a failure means
the frame runs eagerly: a whole skip); a hook on the translator's graph-break
log records every graph break, and the ones logged as "cannot resume" are
partial skips (Dynamo compiled the frame up to an earlier point and runs the
rest as plain bytecode, yet counts the frame as ok). Helpers a rewrite adds
(``_gbfix_*``) and Dynamo's resume functions (``torch_dynamo_resume_in_*``)
are frames like any other and are counted when skipped.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import importlib
import json
import math
import os
import random
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import zoo  # noqa: E402  (the zoo lives beside this script)

MARKER = "compiled_graph"
PARTIAL_SKIP = "Encountered graph break that we cannot resume from"
WHOLE_SKIP = "Failed to handle graph break gracefully"
#: graph-break types (``gb_type``) of the failures counted on their own
RECOMPILE_LIMIT = "Dynamo recompile limit exceeded"
UNINITIALIZED_CELL = "Read uninitialized cell"
RECONSTRUCTION = "Reconstruction failure"
HELPER_PREFIX = "_gbfix_"
RESUME_PREFIX = "torch_dynamo_resume_in_"


def is_helper(frame: str) -> bool:
    """Whether a frame is a gbfix helper, or Dynamo's resume function of one
    (``torch_dynamo_resume_in__gbfix_loop_1_at_248``)."""
    return frame.startswith(HELPER_PREFIX) or frame.startswith(RESUME_PREFIX + HELPER_PREFIX)


# -- which copy of the package is imported -------------------------------------------

_ADDED_ROOTS: list[str] = []


def use_package_root(root: Optional[str], packages: tuple[str, ...]) -> None:
    """Import ``packages`` from ``root`` (a rewritten copy) or, with None, from the installed ones.

    Already imported modules of those packages are dropped first, so the next
    import reads the other copy; objects built from the old copy keep working.
    """
    for name in list(sys.modules):
        if name.split(".")[0] in packages:
            del sys.modules[name]
    for added in _ADDED_ROOTS:
        while added in sys.path:
            sys.path.remove(added)
    _ADDED_ROOTS.clear()
    if root:
        sys.path.insert(0, root)
        _ADDED_ROOTS.append(root)
    importlib.invalidate_caches()


def package_dirs(packages: tuple[str, ...]) -> dict[str, str]:
    """The directory each imported top-level package was loaded from."""
    dirs = {}
    for name in packages:
        module = importlib.import_module(name)
        dirs[name] = os.path.dirname(os.path.abspath(module.__file__ or ""))
    return dirs


# -- seeds, devices, outputs -----------------------------------------------------------


def seed_everything(seed: int = 0) -> None:
    """Same weights, inputs and random draws in every process."""
    import torch

    random.seed(seed)
    torch.manual_seed(seed)
    try:
        import numpy

        numpy.random.seed(seed)
    except ImportError:
        pass


def resolve_device(name: str) -> str:
    """``auto`` is CUDA when a GPU is visible, else CPU."""
    import torch

    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return name


def synchronize(device: str) -> None:
    """Wait for queued GPU work so a timed call includes it (nothing to do on CPU)."""
    import torch

    if device.startswith("cuda"):
        torch.cuda.synchronize()


def flatten_output(obj: Any, path: str = "out") -> list[tuple[str, Any]]:
    """Every leaf of a model output as (path, value): tensors detached on CPU.

    Walks mappings (``ModelOutput`` included), sequences and dataclasses;
    numpy arrays become tensors; other objects are kept by type name.
    """
    import torch

    if isinstance(obj, torch.Tensor):
        return [(path, obj.detach().cpu())]
    if type(obj).__module__ == "numpy" and hasattr(obj, "shape"):
        return [(path, torch.from_numpy(obj.copy()))]
    if isinstance(obj, dict) or hasattr(obj, "keys") and hasattr(obj, "__getitem__"):
        return [leaf for key in obj.keys() for leaf in flatten_output(obj[key], f"{path}.{key}")]
    if isinstance(obj, (tuple, list)):
        return [leaf for i, item in enumerate(obj) for leaf in flatten_output(item, f"{path}[{i}]")]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [
            leaf for f in dataclasses.fields(obj) for leaf in flatten_output(getattr(obj, f.name), f"{path}.{f.name}")
        ]
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return [(path, obj)]
    if type(obj).__name__.endswith("Cache") and hasattr(obj, "layers"):
        layers = [(getattr(layer, "keys", None), getattr(layer, "values", None)) for layer in obj.layers]
        return flatten_output(layers, f"{path}.layers")
    return [(path, f"<{type(obj).__name__}>")]


def compare_outputs(reference: list[tuple[str, Any]], actual: list[tuple[str, Any]], exact: bool) -> Optional[str]:
    """None when every leaf matches, else where the first difference is.

    Tensors go through ``torch.testing.assert_close``: exactly (rtol = atol = 0)
    for the eager backend, with its default float tolerances otherwise.
    """
    import torch

    if [p for p, _ in reference] != [p for p, _ in actual]:
        return f"output structure differs: {len(reference)} vs {len(actual)} leaves"
    tol: dict[str, float] = {"rtol": 0.0, "atol": 0.0} if exact else {}
    for (path, want), (_, got) in zip(reference, actual, strict=True):
        if isinstance(want, torch.Tensor) and isinstance(got, torch.Tensor):
            try:
                torch.testing.assert_close(got, want, equal_nan=True, **tol)
            except AssertionError as exc:
                return f"{path}: {str(exc).strip().splitlines()[0]}"
        elif not _same_scalar(want, got, exact):
            return f"{path}: {want!r} vs {got!r}"
    return None


def exact_comparison(backend: str, device: str) -> bool:
    """Exact equality is expected from the eager backend on CPU.

    Other backends fuse and reorder float math, and some GPU kernels
    (``index_add_``, used by mixture-of-experts layers) accumulate in a
    nondeterministic order, so those are compared with assert_close's
    default tolerances.
    """
    return backend == "eager" and device == "cpu"


def _same_scalar(a: Any, b: Any, exact: bool) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b or (not exact and math.isclose(a, b, rel_tol=1e-5))
    return a == b


# -- counting what Dynamo did ----------------------------------------------------------


@dataclass
class FrameEvent:
    """One frame handed to Dynamo's converter, and whether it compiled."""

    name: str
    where: str
    ok: bool
    #: the code object had compiled code already (its guards failed): a recompile
    recompile: bool = False
    #: the graph-break type of the error that made Dynamo give up on the frame ("" when it did not)
    failure: str = ""


@dataclass
class BreakEvent:
    """One graph break Dynamo logged."""

    gb_type: str
    reason: str
    where: str
    frame: str
    kind: str  # "resumed", "partial" (rest of frame skipped) or "whole" (frame skipped)


@dataclass
class Counts:
    """What one compile did: frames, skips, breaks, graphs, ops."""

    frames: list[FrameEvent] = field(default_factory=list)
    breaks: list[BreakEvent] = field(default_factory=list)
    graphs: int = 0
    ops: int = 0
    marker_active: bool = False

    def summary(self) -> dict[str, Any]:
        """The figures of the table, as plain JSON values."""
        whole = [f"{f.name} ({f.where})" for f in self.frames if not f.ok]
        partial = [f"{b.frame} ({b.where})" for b in self.breaks if b.kind == "partial"]
        names = [entry.split(" (")[0] for entry in whole + partial]
        return {
            "frames_total": len(self.frames),
            "frames_ok": sum(f.ok for f in self.frames),
            "skipped": len(whole) + len(partial),
            "skipped_whole": whole,
            "skipped_partial": partial,
            "skipped_helpers": sum(is_helper(n) for n in names),
            "skipped_resume_fns": sum(n.startswith(RESUME_PREFIX) for n in names),
            "skip_causes": [
                f"{b.frame} [{b.kind}]: {b.gb_type} @ {b.where}" for b in self.breaks if b.kind != "resumed"
            ],
            "graph_breaks": len(self.breaks),
            "break_reasons": dict(Counter(b.gb_type for b in self.breaks).most_common()),
            "break_sites": sorted({f"{b.gb_type} @ {b.where}" for b in self.breaks}),
            "graphs": self.graphs,
            "ops": self.ops,
            **self.failures(),
        }

    def failures(self) -> dict[str, Any]:
        """Recompiles, recompile-limit hits and the failures a rewrite's helpers must not bring.

        A frame whose code hit Dynamo's recompile limit runs eagerly from then
        on (it is counted among the whole skips too); "Read uninitialized cell"
        and "Reconstruction failure" are counted wherever they happen, as a
        frame Dynamo gave up on or as a graph break, each with its frame.
        """
        recompiled = Counter(f"{f.name} ({f.where})" for f in self.frames if f.recompile)
        failed = [(f"{f.name} ({f.where})", f.failure) for f in self.frames if f.failure]
        failed += [(f"{b.frame} ({b.where})", b.gb_type) for b in self.breaks]
        return {
            "recompiles": sum(recompiled.values()),
            "recompiled_frames": dict(recompiled.most_common()),
            "recompile_limit_hits": [frame for frame, kind in failed if kind == RECOMPILE_LIMIT],
            "uninitialized_cells": [frame for frame, kind in failed if kind == UNINITIALIZED_CELL],
            "reconstruction_failures": [frame for frame, kind in failed if kind.startswith(RECONSTRUCTION)],
            "frame_failures": [f"{f.name} ({f.where}): {f.failure}" for f in self.frames if f.failure],
        }


#: top-level package names a location is shortened to (the model's packages are added at start)
_ROOTS: set[str] = {"torch"}


def _where(filename: str, lineno: int) -> str:
    """A location that reads the same for the installed package and its copy: ``transformers/...py:LINE``."""
    parts = filename.replace("\\", "/").split("/")
    start = next((i for i, part in enumerate(parts) if part in _ROOTS), max(0, len(parts) - 3))
    return f"{'/'.join(parts[start:])}:{lineno}"


def counting_backend(counts: Counts, backend: str) -> Callable:
    """A Dynamo backend that counts graphs and ops, and marks every compiled-graph call.

    The marker (``record_function(MARKER)``) is entered only while
    ``counts.marker_active`` is set, so timed calls pay a flag test, not the
    profiler hook.
    """
    import torch

    def compile_graph(gm: Any, example_inputs: list) -> Callable:
        counts.graphs += 1
        counts.ops += sum(n.op in ("call_function", "call_method", "call_module") for n in gm.graph.nodes)
        inner = gm.forward if backend == "eager" else _lookup_backend(backend)(gm, example_inputs)

        def run(*args: Any) -> Any:
            if not counts.marker_active:
                return inner(*args)
            with torch.profiler.record_function(MARKER):
                return inner(*args)

        return run

    return compile_graph


def _lookup_backend(name: str) -> Callable:
    from torch._dynamo.backends.registry import lookup_backend

    return lookup_backend(name)


@contextlib.contextmanager
def recording(counts: Counts) -> Iterator[None]:
    """Record frames handed to Dynamo (ok or skipped, first compile or recompile, why it gave up)
    and every logged graph break."""
    from torch._dynamo import convert_frame, symbolic_convert
    from torch._dynamo.utils import counters

    converter, inner = convert_frame.ConvertFrame, convert_frame.ConvertFrameAssert
    translator = symbolic_convert.InstructionTranslatorBase
    original_call, original_inner = converter.__call__, inner.__call__
    original_log = translator.log_graph_break
    #: the error the frame being converted raised (ConvertFrame swallows it when it skips the frame)
    raised: list[BaseException] = []

    def call(self: Any, frame: Any, cache_entry: Any, *args: Any, **kwargs: Any) -> Any:
        ok_before = counters["frames"]["ok"]
        raised.clear()
        result = original_call(self, frame, cache_entry, *args, **kwargs)
        code = frame.f_code
        ok = counters["frames"]["ok"] > ok_before
        failure = "" if ok or not raised else str(getattr(raised[0], "gb_type", "") or type(raised[0]).__name__)
        where = _where(code.co_filename, code.co_firstlineno)
        counts.frames.append(FrameEvent(code.co_name, where, ok, cache_entry is not None, failure))
        return result

    def call_inner(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return original_inner(self, *args, **kwargs)
        except BaseException as exc:
            raised.append(exc)
            raise

    def log_graph_break(self: Any, code_options: Any, reason: str, exc: Any) -> Any:
        if not getattr(exc, "logged", False):
            counts.breaks.append(_break_event(self, reason, exc))
        return original_log(self, code_options, reason, exc)

    converter.__call__, inner.__call__, translator.log_graph_break = call, call_inner, log_graph_break
    try:
        yield
    finally:
        converter.__call__, inner.__call__, translator.log_graph_break = original_call, original_inner, original_log


def _break_event(translator: Any, reason: str, exc: Any) -> BreakEvent:
    stack = getattr(exc, "real_stack", None) or []
    last = stack[-1] if stack else None
    where = _where(last.filename, last.lineno or 0) if last else _where(translator.f_code.co_filename, 0)
    kind = "partial" if reason.startswith(PARTIAL_SKIP) else "whole" if reason.startswith(WHOLE_SKIP) else "resumed"
    text = str(exc).strip()
    return BreakEvent(
        gb_type=str(getattr(exc, "gb_type", "") or type(exc).__name__),
        reason=text.splitlines()[0] if text else reason.splitlines()[0],
        where=where,
        frame=translator.f_code.co_name,
        kind=kind,
    )


# -- graph coverage --------------------------------------------------------------------


def count_coverage(call: Callable[[], Any], counts: Counts) -> dict[str, int]:
    """Top-level aten ops of one call, inside compiled graphs vs outside.

    How it is counted: every compiled graph runs inside
    ``record_function(MARKER)`` (see ``counting_backend``). One call is
    profiled on the CPU side. An event counts when its name starts with
    ``aten::`` and none of its ancestors does (so ``aten::linear`` counts once,
    not again for the ``aten::addmm`` it calls); it is *inside* when one of its
    ancestors is a marker range. Everything else the call executes — eager
    (skipped) frames, code between graphs, the ``.item()`` that caused a
    break — is outside. Coverage = inside / (inside + outside): 100% is what
    ``fullgraph=True`` would give. Counting needs graphs that run aten ops one
    by one, so it is done with the ``eager`` backend (the FX graph as traced).
    """
    import torch

    counts.marker_active = True
    try:
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
            call()
    finally:
        counts.marker_active = False
    inside = outside = 0
    for event in prof.events():
        if not event.name.startswith("aten::"):
            continue
        ancestors = _ancestor_names(event)
        if any(name.startswith("aten::") for name in ancestors):
            continue
        if MARKER in ancestors:
            inside += 1
        else:
            outside += 1
    return {"ops_inside": inside, "ops_outside": outside}


def _ancestor_names(event: Any) -> list[str]:
    names = []
    parent = event.cpu_parent
    while parent is not None:
        names.append(parent.name)
        parent = parent.cpu_parent
    return names


def coverage_share(figures: dict[str, int]) -> Optional[float]:
    total = figures["ops_inside"] + figures["ops_outside"]
    return figures["ops_inside"] / total if total else None


# -- timing ------------------------------------------------------------------------------


def timed(call: Callable[[], Any], device: str) -> float:
    """Seconds of one call, GPU work included."""
    synchronize(device)
    start = time.perf_counter()
    call()
    synchronize(device)
    return time.perf_counter() - start


def interleaved_medians(
    calls: dict[str, Callable[[], Any]], rounds: int, device: str, min_seconds: float = 0.0
) -> dict[str, float]:
    """Median seconds per call of each callable, timed in turns (a b c, b c a, ...) so load hits all alike.

    At least ``rounds`` rounds, and more until every callable has run for
    ``min_seconds`` in total: calls of a millisecond are otherwise all taken
    within one burst of other work on a busy machine.
    """
    samples: dict[str, list[float]] = {name: [] for name in calls}
    names = list(calls)
    r = 0
    while r < rounds or (min(sum(v) for v in samples.values()) < min_seconds and r < 100 * rounds):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            samples[name].append(timed(calls[name], device))
        r += 1
    return {name: statistics.median(values) for name, values in samples.items()}


# -- one side ---------------------------------------------------------------------------


@dataclass
class Side:
    """One copy of the package: the built model, its compiled form and what compiling it did."""

    built: zoo.Built
    compiled: Callable[..., Any]
    counts: Counts
    compile_seconds: float
    output: Any
    #: ``torch._dynamo.config.patch`` keywords every compiled call of this side runs under
    patch: dict[str, Any] = field(default_factory=dict)


def build_side(
    spec: zoo.ModelSpec, size: str, device: str, backend: str, seed: int, settings: Optional[dict[str, Any]] = None
) -> Side:
    """Build the model from the imported package copy, compile it, run the first (compiling) call.

    ``settings`` (``torch._dynamo.config`` names and values, as ``gbfix
    advise`` recommends them) hold for every compiled call of this side only.
    """
    import torch

    seed_everything(seed)
    built = spec.build(size, device)
    counts = Counts()
    patch = dynamo_settings(settings or {})
    compiled = under_settings(torch.compile(built.fn, backend=counting_backend(counts, backend)), patch)
    with recording(counts), torch.no_grad():
        seed_everything(seed)
        synchronize(device)
        start = time.perf_counter()
        output = compiled(*built.args, **built.kwargs)
        synchronize(device)
        compile_seconds = time.perf_counter() - start
    return Side(built, compiled, counts, compile_seconds, output, patch)


def dynamo_settings(config: dict[str, Any]) -> dict[str, Any]:
    """``gbfix advise``'s config of a candidate as keywords of ``torch._dynamo.config.patch``.

    A flag keeps its value; a list of dotted names (``print``,
    ``logging.Logger.warning``) adds those callables to the set setting. A
    Logger method that no imported library added is left out, as ``gbfix
    advise`` does: nothing can call it.
    """
    import torch._dynamo

    patch: dict[str, Any] = {}
    for name, value in config.items():
        if isinstance(value, list):
            found = (_dotted_object(dotted) for dotted in value)
            patch[name] = set(getattr(torch._dynamo.config, name)) | {obj for obj in found if obj is not None}
        else:
            patch[name] = value
    return patch


def _dotted_object(dotted: str) -> Any:
    """The object ``dotted`` names: a builtin, or an attribute path from a top-level module; None when absent."""
    import builtins

    head, *path = dotted.split(".")
    start: Any = importlib.import_module(head) if path else builtins
    return functools.reduce(lambda obj, attr: getattr(obj, attr, None), path or [head], start)


def under_settings(fn: Callable[..., Any], patch: dict[str, Any]) -> Callable[..., Any]:
    """``fn``, each call made under ``torch._dynamo.config.patch(**patch)`` (``fn`` itself when there is none).

    Patching per call, not for the process, keeps the unmodified side that
    ``pair_timing`` compiles in the same process on torch's defaults; it costs
    about 50 microseconds a call on the rewritten side.
    """
    if not patch:
        return fn
    import torch._dynamo

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        with torch._dynamo.config.patch(**patch):
            return fn(*args, **kwargs)

    return run


def call_of(fn: Callable[..., Any], built: zoo.Built, seed: int) -> Callable[[], Any]:
    """A no-argument call of ``fn`` on the model's inputs, seeded, without autograd."""
    import torch

    def call() -> Any:
        seed_everything(seed)
        with torch.no_grad():
            return fn(*built.args, **built.kwargs)

    return call


def measure_side(spec: zoo.ModelSpec, args: argparse.Namespace, device: str) -> tuple[Side, dict[str, Any]]:
    """Every figure of one side, in this (fresh) process."""
    exact = exact_comparison(args.backend, device)
    settings = json.loads(args.dynamo_config) if args.dynamo_config else None
    side = build_side(spec, args.size, device, args.backend, args.seed, settings)
    compiled_call = call_of(side.compiled, side.built, args.seed)
    eager_call = call_of(side.built.fn, side.built, args.seed)
    with recording(side.counts):
        last = compiled_call()  # a second call: recompiles, if any, happen here
    result: dict[str, Any] = side.counts.summary()
    result["compile_s"] = side.compile_seconds
    if args.reference:
        reference = _load_reference(args.reference)
        result["compiled_vs_reference"] = compare_outputs(reference, flatten_output(last), exact)
        result["eager_vs_reference"] = compare_outputs(reference, flatten_output(eager_call()), exact)
    medians = interleaved_medians({"compiled": compiled_call, "eager": eager_call}, args.calls, device, args.min_time)
    result["compiled_s"], result["eager_s"] = medians["compiled"], medians["eager"]
    if not args.timings_only:  # last: with a non-eager backend it resets Dynamo
        result.update(_coverage(spec, args, device, side))
    return side, result


def _coverage(spec: zoo.ModelSpec, args: argparse.Namespace, device: str, side: Side) -> dict[str, Any]:
    """Coverage from this compile (eager backend) or, for other backends, an eager-backend compile after it."""
    import torch

    if args.backend == "eager":
        figures = count_coverage(call_of(side.compiled, side.built, args.seed), side.counts)
    else:
        torch._dynamo.reset()
        counts = Counts()
        compiled = under_settings(torch.compile(side.built.fn, backend=counting_backend(counts, "eager")), side.patch)
        call = call_of(compiled, side.built, args.seed)
        call(), call()
        figures = count_coverage(call, counts)
    return {**figures, "coverage": coverage_share(figures)}


def pair_timing(spec: zoo.ModelSpec, args: argparse.Namespace, device: str, after: Side) -> dict[str, Any]:
    """Import the unmodified package beside the rewritten one and time both, interleaved.

    Both compiled models stay live in this process (Dynamo's caches are keyed
    by code object and the two copies have different code objects), so the
    rounds alternate before/after and compiled/eager under the same load.
    """
    use_package_root(None, spec.packages)
    before = build_side(spec, args.size, device, args.backend, args.seed)
    calls = {
        "before_compiled": call_of(before.compiled, before.built, args.seed),
        "after_compiled": call_of(after.compiled, after.built, args.seed),
        "before_eager": call_of(before.built.fn, before.built, args.seed),
        "after_eager": call_of(after.built.fn, after.built, args.seed),
    }
    for call in calls.values():
        call()  # warm: recompiles and allocator growth happen outside the timed rounds
    medians = interleaved_medians(calls, args.calls, device, args.min_time)
    return {
        "pair_before_compile_s": before.compile_seconds,
        **{f"pair_{name}_s": value for name, value in medians.items()},
    }


def _pair_or_why(spec: zoo.ModelSpec, args: argparse.Namespace, device: str, after: Side) -> dict[str, Any]:
    """Paired timings, or why they could not be taken (the after side's own figures stand either way).

    Two copies of one package in one process are not always something Dynamo
    can tell apart (it names some guard globals after the module name), so a
    failure here is reported instead of losing the measurement.
    """
    try:
        return pair_timing(spec, args, device, after)
    except Exception as exc:  # noqa: BLE001 - any failure of the extra step is reported, not raised
        first_line = (str(exc).strip().splitlines() or [""])[0]
        return {"pair_error": f"{type(exc).__name__}: {first_line[:300]}"}


def _load_reference(path: str) -> list[tuple[str, Any]]:
    import torch

    return torch.load(path, weights_only=False)


# -- tasks ----------------------------------------------------------------------------------


def task_discover(spec: zoo.ModelSpec, args: argparse.Namespace, device: str) -> dict[str, Any]:
    """Reference output and executed files of the unmodified package; a traced compile when recording."""
    import torch

    dirs = package_dirs(spec.packages)
    seed_everything(args.seed)
    built = spec.build(args.size, device)
    call = call_of(built.fn, built, args.seed)
    call()  # warm: first-call lazy imports are not part of the forward pass
    files, output = executed_files(call, dirs)
    if args.reference:
        torch.save(flatten_output(output), args.reference)
    result: dict[str, Any] = {"files": files, "package_dirs": dirs}
    if os.environ.get("TORCH_TRACE"):
        # A model of its own, compiled on its first call as ``measure`` does: what a
        # model sets up on its first call (hooks, caches) then runs under Dynamo too.
        seed_everything(args.seed)
        fresh = spec.build(args.size, device)
        counts = Counts()
        compiled = torch.compile(fresh.fn, backend=counting_backend(counts, "eager"))
        call_of(compiled, fresh, args.seed)()
        result["recorded_graphs"] = counts.graphs
    return result


def executed_files(call: Callable[[], Any], dirs: dict[str, str]) -> tuple[list[str], Any]:
    """Package files (relative to the package's parent dir) whose code ``call`` runs, and its output."""
    seen: set[str] = set()

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            seen.add(frame.f_code.co_filename)

    sys.setprofile(profile)
    try:
        output = call()
    finally:
        sys.setprofile(None)
    files = set()
    for filename in seen:
        for directory in dirs.values():
            if filename.startswith(directory + os.sep) and filename.endswith(".py"):
                files.add(os.path.relpath(filename, os.path.dirname(directory)))
    return sorted(files), output


def task_measure(spec: zoo.ModelSpec, args: argparse.Namespace, device: str) -> dict[str, Any]:
    """Figures of the side whose package copy is first on the path, plus paired timing on request."""
    use_package_root(args.package_root, spec.packages)
    after, result = measure_side(spec, args, device)
    result["package_dirs"] = package_dirs(spec.packages)
    if args.pair_with_before:
        result.update(_pair_or_why(spec, args, device, after))
    return result


# -- the coverage counter on a toy ---------------------------------------------------------


def _toy_as_written(x: Any) -> Any:
    import torch

    for _ in range(3):
        x = x * 2
        print(x.sum().item())
        x = torch.relu(x + 1)
    return torch.softmax(x, -1)


def _toy_body(x: Any) -> Any:
    import torch

    x = x * 2
    print(x.sum().item())
    return torch.relu(x + 1)


def _toy_body_per_iteration(x: Any) -> Any:
    import torch

    def loop(x: Any) -> Any:
        for _ in range(3):
            x = _toy_body(x)
        return x

    return torch.softmax(loop(x), -1)


def coverage_self_check() -> dict[str, Any]:
    """Coverage of a toy loop (``x*2``, ``print(x.sum().item())``, ``relu(x+1)``, 3 trips, softmax).

    As written the loop's frame is skipped: 0 of 16 top-level aten ops run in
    graphs. With the body moved into a function called once per iteration,
    every body call compiles and only the three ``.item()`` reads run outside:
    13 of 16. A counter that disagrees is counting something else.
    """
    import torch

    figures = {}
    for name, fn in (("as_written", _toy_as_written), ("body_per_iteration", _toy_body_per_iteration)):
        torch._dynamo.reset()
        counts = Counts()
        compiled = torch.compile(fn, backend=counting_backend(counts, "eager"))
        call = functools.partial(compiled, torch.ones(4))
        with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull):
            call(), call()
            figures[name] = count_coverage(call, counts)
    return figures


# -- entry ----------------------------------------------------------------------------------------


def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("task", choices=("discover", "measure", "self-check"))
    parser.add_argument("--model", default="")
    parser.add_argument("--size", default="tiny", choices=("tiny", "medium"))
    parser.add_argument("--backend", default="eager")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--calls", type=int, default=5, help="timed calls per callable (median)")
    parser.add_argument(
        "--min-time", type=float, default=0.0, help="keep timing rounds until each callable ran this many seconds"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="CPU threads for torch (1 keeps timings steady on a shared machine; 0 = torch's default)",
    )
    parser.add_argument("--reference", default="", help="file of the unmodified eager output")
    parser.add_argument("--package-root", default="", help="directory holding the rewritten package copy")
    parser.add_argument("--pair-with-before", action="store_true")
    parser.add_argument(
        "--dynamo-config",
        default="",
        help="JSON: torch._dynamo.config settings for this side's compiled calls (a gbfix advise candidate's config)",
    )
    parser.add_argument("--timings-only", action="store_true", help="skip the coverage count")
    parser.add_argument("--out", default="", help="write the JSON here instead of standard output")
    return parser.parse_args(argv)


def _set_threads(threads: int) -> None:
    import torch

    if threads > 0:
        torch.set_num_threads(threads)


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    _set_threads(args.threads)
    if args.task == "self-check":
        result: dict[str, Any] = coverage_self_check()
    else:
        spec = zoo.get(args.model)
        _ROOTS.update(spec.packages)
        device = resolve_device(args.device)
        task = task_discover if args.task == "discover" else task_measure
        started = time.perf_counter()
        result = task(spec, args, device)
        result.update(model=spec.name, device=device, task_s=time.perf_counter() - started)
    text = json.dumps(result, default=str)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
