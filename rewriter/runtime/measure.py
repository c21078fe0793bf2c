"""Run a callable under ``torch.compile`` and count what Dynamo did.

One measurement code path for the golden tests and ``gbfix verify``:

* frames compiled and ops captured, from a counting backend that wraps the
  real one (``eager`` by default);
* frames skipped: ``counters["frames"]`` total minus ok, plus *partial*
  skips, frames compiled only up to an earlier resumable point with the rest
  run as plain bytecode (Dynamo counts those frames as ok, so they are
  caught from the graph-break log step instead);
* every graph break with its type, location and reason;
* graph coverage: the share of the operations of one steady-state call that
  run inside compiled graphs (:func:`graph_coverage`).

``torch._dynamo.explain`` is not used: on a skipped frame it reports no
graphs and no reasons. torch is imported lazily, so the rewriting commands
never pay for it.
"""

from __future__ import annotations

import contextlib
import logging
import math
import random
import re
import time
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Callable, Iterator, Optional

PARTIAL_SKIP = "Encountered graph break that we cannot resume from"
WHOLE_SKIP = "Failed to handle graph break gracefully"
_GB_CODE = re.compile(r"/gb/(gb\d{4})\.html")


@dataclass
class BreakRecord:
    gb_type: str
    reason: str
    filename: str
    lineno: int
    function: str
    partial_skip: bool
    gb_code: str = ""
    user_stack: list[tuple[str, int, str]] = field(default_factory=list)
    #: the frame Dynamo was translating (the one skipped, for a skip)
    frame_function: str = ""
    whole_skip: bool = False


@dataclass
class CompileStats:
    frames_total: int = 0
    frames_ok: int = 0
    partial_skips: int = 0
    graphs: int = 0
    ops: int = 0
    recompiles: int = 0
    breaks: list[BreakRecord] = field(default_factory=list)
    #: reasons of frames Dynamo gave up on (counters["unimplemented"])
    skip_reasons: list[str] = field(default_factory=list)
    #: wall time of the last compiled call, after the warm-up calls
    call_seconds: float = 0.0
    #: wall time of the first compiled call: compiling and running it
    compile_seconds: float = 0.0
    #: top-level aten ops of one steady-state compiled call inside compiled graphs / outside them
    ops_in_graphs: int = 0
    ops_outside_graphs: int = 0
    #: top-level aten ops of one plain eager call of the same function
    ops_eager: int = 0
    #: frame (``'name' (file:line)``) -> how many times Dynamo compiled it again (a guard failed)
    recompiles_by_frame: dict[str, int] = field(default_factory=dict)
    #: frame -> how many times it hit Dynamo's recompile limit (it then runs eagerly)
    recompile_limit_hits: dict[str, int] = field(default_factory=dict)

    @property
    def coverage(self) -> Optional[float]:
        """Share of a call's operations that run inside compiled graphs (None: nothing was counted).

        Counted as what does *not* run eagerly: ``1 - outside / eager``. The
        ops left outside the graphs run exactly as they do in an eager call,
        whatever the backend, while a backend may split or fuse the ops
        inside (``aot_eager`` decomposes ``linear``, inductor fuses): so only
        the outside count is compared with the eager call's.
        """
        if self.ops_eager <= 0:
            return None
        return max(0.0, 1.0 - self.ops_outside_graphs / self.ops_eager)

    @property
    def frames_skipped(self) -> int:
        return self.frames_total - self.frames_ok + self.partial_skips

    @property
    def skipped_functions(self) -> list[str]:
        """Names of the frames skipped whole or in part, in the order seen."""
        return [b.frame_function for b in self.breaks if b.whole_skip or b.partial_skip]

    @property
    def frames_compiled(self) -> int:
        return self.graphs

    def describe_coverage(self) -> str:
        """``75% (4 of 16 ops run eagerly)``, or ``-`` when nothing was counted."""
        if self.coverage is None:
            return "-"
        return f"{self.coverage:.0%} ({self.ops_outside_graphs} of {self.ops_eager} ops run eagerly)"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "CompileStats":
        """The inverse of :meth:`to_dict` (derived keys are ignored)."""
        names = {f.name for f in fields(cls)} - {"breaks"}
        stats = cls(**{k: v for k, v in data.items() if k in names})
        for record in data.get("breaks", ()):
            record = dict(record)
            record["user_stack"] = [tuple(frame) for frame in record.get("user_stack", ())]
            stats.breaks.append(BreakRecord(**record))
        return stats

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["frames_skipped"] = self.frames_skipped
        data["frames_compiled"] = self.frames_compiled
        data["graph_breaks"] = len(self.breaks)
        data["skipped_functions"] = self.skipped_functions
        data["coverage"] = self.coverage
        return data


def seed_everything(seed: int = 0) -> None:
    import torch

    random.seed(seed)
    torch.manual_seed(seed)
    try:
        import numpy

        numpy.random.seed(seed)
    except ImportError:
        pass


#: the profiler range every compiled graph runs in while coverage is counted
GRAPH_RANGE = "gbfix::compiled_graph"
#: ranges of Dynamo's own work: set-up code before a graph (tensors made from Python
#: numbers), and compiling (a guard that fails in a steady-state call compiles again)
_DYNAMO_OWN = frozenset({"Pregraph bytecode", "dynamo"})
#: whether compiled graphs mark their runs (only during the one profiled call)
_marking = [False]


def counting_backend(stats: CompileStats, backend: str = "eager") -> Callable:
    """A Dynamo backend that counts graphs and ops, then hands on to ``backend``.

    Each compiled graph runs inside a profiler range (:data:`GRAPH_RANGE`)
    while :func:`graph_coverage` profiles a call, and directly otherwise.
    """

    def compile_fx(gm, example_inputs):
        stats.graphs += 1
        stats.ops += sum(1 for n in gm.graph.nodes if n.op in ("call_function", "call_method", "call_module"))
        if backend == "eager":
            compiled = gm.forward
        else:
            from torch._dynamo.backends.registry import lookup_backend

            compiled = lookup_backend(backend)(gm, example_inputs)
        return _marked(compiled)

    return compile_fx


def _marked(compiled: Callable) -> Callable:
    import torch

    def run(*args: Any) -> Any:
        if not _marking[0]:
            return compiled(*args)
        with torch.profiler.record_function(GRAPH_RANGE):
            return compiled(*args)

    return run


def top_level_ops(events: Any) -> tuple[int, int]:
    """(inside compiled graphs, outside) counts of the top-level aten ops among profiler ``events``.

    An op is top-level when no other aten op encloses it (``aten::linear``
    counts, the ``aten::addmm`` it calls does not); it is inside when a
    :data:`GRAPH_RANGE` range encloses it. Ops of Dynamo's own work (set-up
    code that turns Python numbers into tensors for a graph, compiling) are
    the program's work in neither place and are not counted.
    """
    inside = outside = 0
    for event in events:
        if not event.name.startswith("aten::"):
            continue
        parent, in_graph, skip = event.cpu_parent, False, False
        while parent is not None:
            if parent.name.startswith("aten::") or parent.name in _DYNAMO_OWN:
                skip = True
                break
            in_graph = in_graph or parent.name == GRAPH_RANGE
            parent = parent.cpu_parent
        if skip:
            continue
        if in_graph:
            inside += 1
        else:
            outside += 1
    return inside, outside


def graph_coverage(stats: CompileStats, compiled: Callable, eager: Callable, args: tuple, seed: int = 0) -> None:
    """Profile one steady-state call of ``compiled`` and one of ``eager``; store the op counts in ``stats``.

    ``compiled`` must have been compiled with :func:`counting_backend` and
    called before, so that no compilation happens in the profiled call.
    """
    from torch.profiler import ProfilerActivity, profile

    seed_everything(seed)
    _marking[0] = True
    try:
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            compiled(*args)
    finally:
        _marking[0] = False
    stats.ops_in_graphs, stats.ops_outside_graphs = top_level_ops(prof.events())
    seed_everything(seed)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        eager(*args)
    stats.ops_eager = sum(top_level_ops(prof.events()))


@contextlib.contextmanager
def recording_breaks(stats: CompileStats) -> Iterator[None]:
    """Record every graph break Dynamo logs, partial skips marked."""
    from torch._dynamo import symbolic_convert

    cls = symbolic_convert.InstructionTranslatorBase
    original = cls.log_graph_break

    def log_graph_break(self, code_options, reason, exc):
        if not getattr(exc, "logged", False):
            record = _break_record(reason, exc)
            record.frame_function = self.f_code.co_name
            record.whole_skip = reason.startswith(WHOLE_SKIP)
            stats.breaks.append(record)
            if reason.startswith(PARTIAL_SKIP):
                stats.partial_skips += 1
        return original(self, code_options, reason, exc)

    cls.log_graph_break = log_graph_break
    try:
        yield
    finally:
        cls.log_graph_break = original


#: the start of the warning Dynamo logs when a frame hits a recompile limit (its 3rd argument names the frame)
RECOMPILE_LIMIT_HIT = "torch._dynamo hit config."


def frame_label(code: Any) -> str:
    """A code object as Dynamo names it in its warnings: ``'name' (file:line)``."""
    return f"'{code.co_name}' ({code.co_filename}:{code.co_firstlineno})"


class _LimitHits(logging.Handler):
    """Counts, per frame, the recompile-limit warnings of Dynamo's frame converter."""

    def __init__(self, stats: CompileStats) -> None:
        super().__init__(logging.WARNING)
        self.stats = stats

    def emit(self, record: logging.LogRecord) -> None:
        if isinstance(record.msg, str) and record.msg.startswith(RECOMPILE_LIMIT_HIT):
            args = record.args if isinstance(record.args, tuple) else ()
            frame = str(args[2]) if len(args) > 2 else "?"
            self.stats.recompile_limit_hits[frame] = self.stats.recompile_limit_hits.get(frame, 0) + 1


@contextlib.contextmanager
def counting_recompiles(stats: CompileStats) -> Iterator[None]:
    """Count frames Dynamo compiles again because a guard failed (its own recompile test), in
    all and per frame, and the frames that hit the recompile limit."""
    from torch._dynamo import convert_frame

    original = getattr(convert_frame, "is_recompilation", None)
    reasons = getattr(convert_frame, "get_and_maybe_log_recompilation_reasons", None)
    if original is None or reasons is None:  # another torch: leave the counts at 0 rather than guess
        yield
        return

    def is_recompilation(cache_size):
        answer = original(cache_size)
        stats.recompiles += bool(answer)
        return answer

    def recompilation_reasons(cache_entry, frame, *args, **kwargs):
        # asked only of a frame being compiled again (convert_frame._compile)
        label = frame_label(frame.f_code)
        stats.recompiles_by_frame[label] = stats.recompiles_by_frame.get(label, 0) + 1
        return reasons(cache_entry, frame, *args, **kwargs)

    hits = _LimitHits(stats)
    logger = logging.getLogger(convert_frame.__name__)
    convert_frame.is_recompilation = is_recompilation
    convert_frame.get_and_maybe_log_recompilation_reasons = recompilation_reasons
    logger.addHandler(hits)
    try:
        yield
    finally:
        convert_frame.is_recompilation = original
        convert_frame.get_and_maybe_log_recompilation_reasons = reasons
        logger.removeHandler(hits)


def _break_record(reason: str, exc: BaseException) -> BreakRecord:
    import traceback

    stack = getattr(exc, "real_stack", None) or []
    frames = [(f.filename, f.lineno or 0, f.name) for f in stack]
    if not frames:
        frames = [(f.filename, f.lineno or 0, f.name) for f in traceback.extract_tb(exc.__traceback__)][-1:]
    last = frames[-1] if frames else ("", 0, "")
    text = str(exc)
    code = _GB_CODE.search(text)
    return BreakRecord(
        gb_type=str(getattr(exc, "gb_type", type(exc).__name__)),
        reason=text.strip().splitlines()[0] if text.strip() else reason.splitlines()[0],
        filename=last[0],
        lineno=last[1],
        function=last[2],
        partial_skip=reason.startswith(PARTIAL_SKIP),
        gb_code=code.group(1).upper() if code else "",
        user_stack=frames,
    )


def measure(
    fn: Callable,
    args: tuple,
    backend: str = "eager",
    calls: int = 2,
    seed: int = 0,
    coverage: bool = True,
) -> tuple[Any, CompileStats]:
    """Compile ``fn`` with a fresh Dynamo state, call it ``calls`` times, count.

    Returns the output of the last call and the statistics. With
    ``coverage``, one more call of each kind is profiled afterwards
    (:func:`graph_coverage`); it does not change the output returned.
    """
    compiled, output, stats = compile_and_call(fn, args, backend, calls, seed)
    if coverage:
        graph_coverage(stats, compiled, fn, args, seed)
    return output, stats


def compile_and_call(
    fn: Callable, args: tuple, backend: str = "eager", calls: int = 2, seed: int = 0
) -> tuple[Callable, Any, CompileStats]:
    """The compiling part of :func:`measure`: (the compiled callable, the last output, the counts).

    Coverage is left to the caller, who may want the calls and the profiled
    ones apart (``gbfix advise`` records what the calls print).
    """
    import torch
    import torch._dynamo
    from torch._dynamo.utils import counters

    torch._dynamo.reset()
    counters.clear()
    stats = CompileStats()
    compiled = torch.compile(fn, backend=counting_backend(stats, backend))
    output: Any = None
    with recording_breaks(stats), counting_recompiles(stats):
        for call in range(calls):
            seed_everything(seed)
            _synchronize()
            start = time.perf_counter()
            output = compiled(*args)
            _synchronize()
            stats.call_seconds = time.perf_counter() - start
            if call == 0:
                stats.compile_seconds = stats.call_seconds
    stats.frames_total = int(counters["frames"]["total"])
    stats.frames_ok = int(counters["frames"]["ok"])
    stats.skip_reasons = [k.splitlines()[0] for k in counters["unimplemented"]]
    return compiled, output, stats


@dataclass
class Timing:
    """Steady-state compiled calls of the code before and after a rewrite, interleaved in one process."""

    #: seconds of each timed call, in call order
    before: list[float] = field(default_factory=list)
    after: list[float] = field(default_factory=list)

    @property
    def before_median(self) -> float:
        return _median(self.before)

    @property
    def after_median(self) -> float:
        return _median(self.after)

    @property
    def ratio(self) -> Optional[float]:
        """after / before, of the medians; None when nothing was timed."""
        if not self.before or not self.after or self.before_median <= 0:
            return None
        return self.after_median / self.before_median

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Timing":
        return cls(list(data.get("before", ())), list(data.get("after", ())))

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = asdict(self)
        data.update(before_median=self.before_median, after_median=self.after_median, ratio=self.ratio)
        return data


def _median(values: list[float]) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def interleaved_times(
    before: tuple[Callable, tuple],
    after: tuple[Callable, tuple],
    backend: str = "eager",
    rounds: int = 20,
    warmup: int = 3,
    seed: int = 0,
) -> Timing:
    """Compile both callables (each with its arguments), warm them up, then time ``rounds`` calls
    of each, alternating which goes first, so that drift in the machine's speed falls on both."""
    import torch
    import torch._dynamo

    torch._dynamo.reset()
    sides = [(torch.compile(fn, backend=backend), args) for fn, args in (before, after)]
    for compiled, args in sides:
        for _ in range(warmup):
            seed_everything(seed)
            compiled(*args)
    timing = Timing()
    times = (timing.before, timing.after)
    for round_ in range(rounds):
        for index in (0, 1) if round_ % 2 == 0 else (1, 0):
            compiled, args = sides[index]
            seed_everything(seed)
            _synchronize()
            start = time.perf_counter()
            compiled(*args)
            _synchronize()
            times[index].append(time.perf_counter() - start)
    return timing


def run_eager(fn: Callable, args: tuple, seed: int = 0, calls: int = 1) -> Any:
    """Call ``fn`` as ``measure`` calls the compiled one: seeded, ``calls`` times, last output."""
    output: Any = None
    for _ in range(calls):
        seed_everything(seed)
        output = fn(*args)
    return output


def _synchronize() -> None:
    """Wait for queued GPU work, so a timed call includes it (no-op without CUDA)."""
    import torch

    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()


def resolve_entry(obj: Any, seed: int = 0) -> Callable:
    """A function, an ``nn.Module`` instance, or an ``nn.Module`` class (built under a seed)."""
    import torch

    if isinstance(obj, type) and issubclass(obj, torch.nn.Module):
        seed_everything(seed)
        return obj()
    if callable(obj):
        return obj
    raise TypeError(f"entry {obj!r} is not callable")


def first_difference(
    a: Any, b: Any, path: str = "output", exact: bool = True, rtol: Optional[float] = None, atol: Optional[float] = None
) -> Optional[str]:
    """None when ``a`` and ``b`` match, else a one-line description of where they differ.

    Walks tuples, lists, dicts and dataclasses; tensors are compared with
    ``torch.testing.assert_close`` (exactly when ``exact``).
    """
    import dataclasses

    import torch

    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return f"{path}: {type(a).__name__} vs {type(b).__name__}"
        kwargs: dict[str, Any] = {"rtol": 0.0, "atol": 0.0} if exact else {}
        if rtol is not None or atol is not None:
            kwargs = {"rtol": rtol or 0.0, "atol": atol or 0.0}
        try:
            torch.testing.assert_close(a, b, equal_nan=True, **kwargs)
        except AssertionError as exc:
            return f"{path}: {_assert_close_summary(str(exc))}"
        return None
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        if len(a) != len(b) or type(a) is not type(b):
            return f"{path}: {type(a).__name__} of {len(a)} vs {type(b).__name__} of {len(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            diff = first_difference(x, y, f"{path}[{i}]", exact, rtol, atol)
            if diff:
                return diff
        return None
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return f"{path}: keys {sorted(map(str, a))} vs {sorted(map(str, b))}"
        for key in a:
            diff = first_difference(a[key], b[key], f"{path}[{key!r}]", exact, rtol, atol)
            if diff:
                return diff
        return None
    if (
        dataclasses.is_dataclass(a)
        and dataclasses.is_dataclass(b)
        and not isinstance(a, type)
        and not isinstance(b, type)
    ):
        return first_difference(
            dataclasses.asdict(a),
            dataclasses.asdict(b),
            path,
            exact,
            rtol,
            atol,
        )
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) and math.isnan(b):
            return None
        if not exact:
            # Python floats (from .item()) get the tolerance of a float32 tensor.
            rel = 1.3e-6 if rtol is None else rtol
            abs_ = 1e-5 if atol is None else atol
            if math.isclose(a, b, rel_tol=rel, abs_tol=abs_):
                return None
    if a != b:
        return f"{path}: {a!r} vs {b!r}"
    return None


def _assert_close_summary(message: str) -> str:
    """assert_close's message on one line: what differs, how many elements, by how much."""
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    if not lines:
        return "differ"
    keep = [line for line in lines[1:] if line.startswith(("Mismatched elements", "Greatest absolute"))]
    return lines[0] + (f" ({'; '.join(keep)})" if keep else "")
