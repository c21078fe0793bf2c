"""Prove a rewrite: compile the code before and after it, compare counts and outputs.

Each side runs in its own subprocess (:mod:`rewriter.runtime.sandbox`), both at
once, so Dynamo, the RNGs and the module cache start fresh. The parent then
compares, with :func:`rewriter.runtime.measure.first_difference`:

* eager(before) vs compiled(after): the rewrite, compiled, still computes
  what the original computed;
* compiled(before) vs compiled(after);
* eager(before) vs eager(after): names a rewrite that changed plain Python
  behaviour, whatever the compiler does.

Comparisons are exact for the ``eager`` and ``aot_eager`` backends (the same
kernels run), within ``assert_close``'s dtype tolerances for ``inductor``,
or within ``--rtol``/``--atol`` when given. The verdict passes when every
comparison matches, the rewritten code compiles, skips no more frames than
the original and captures no fewer ops, and costs nothing it did not cost
before:

* no more recompiles (counted per frame) and no more recompile-limit hits
  (after one, the frame runs eagerly for good);
* no more graph breaks unless graph coverage rose with them;
* not slower: a third process serves both texts of the module, compiles
  both entries and times their steady-state calls in turn
  (:func:`rewriter.runtime.measure.interleaved_times`); the median after
  over the median before must not exceed ``max_slowdown``
  (:data:`MAX_SLOWDOWN` unless given; ``rounds=0`` skips the timing).

The "before" text is the file at git ``HEAD`` unless another file or git
revision is named.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

from codemods.rules.registry import REGISTRY
from rewriter.engine.config import Settings
from rewriter.engine.diffs import display_path
from rewriter.engine.fileio import SourceError, decode_source, read_source
from rewriter.engine.pipeline import transform_source
from rewriter.runtime.measure import CompileStats, Timing, first_difference
from rewriter.runtime.sandbox import (
    EXIT_SIDE_ERROR,
    Request,
    SetupError,
    split_spec,
    start,
    stop,
)

BACKENDS = ("eager", "aot_eager", "inductor")
EXACT_BACKENDS = ("eager", "aot_eager")
#: (left, right) outputs compared, in report order
COMPARISONS = (
    ("eager(before)", "compiled(after)"),
    ("compiled(before)", "compiled(after)"),
    ("eager(before)", "eager(after)"),
)
_LOG_TAIL = 4000
#: the largest steady-state slowdown (median compiled call after / before) a rewrite may cause
MAX_SLOWDOWN = 1.10
#: timed calls of each side, interleaved
ROUNDS = 20


class VerifyError(Exception):
    """Verification could not run; ``traceback`` is the user's code's, when it raised."""

    def __init__(self, message: str, traceback: str = "", log: str = "") -> None:
        super().__init__(message)
        self.traceback = traceback
        self.log = log


@dataclass
class Side:
    label: str
    stats: Optional[CompileStats]
    #: "TypeError: ..." when the compiled call raised (the eager call did not)
    compile_error: str = ""
    compile_traceback: str = ""
    info: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "stats": self.stats.to_dict() if self.stats else None,
            "compile_error": self.compile_error or None,
            "compile_traceback": self.compile_traceback or None,
            "seconds": self.info.get("side_seconds"),
        }


@dataclass(frozen=True)
class Comparison:
    left: str
    right: str
    #: None when the outputs match
    difference: Optional[str]

    @property
    def name(self) -> str:
        return f"{self.left} vs {self.right}"


@dataclass
class VerifyReport:
    file: str
    module: str
    entry: str
    inputs: str
    before_label: str
    device: str
    backend: str
    before: Side
    after: Side
    comparisons: list[Comparison]
    reasons: list[str]
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    #: the interleaved steady-state timing, when it ran
    timing: Optional[Timing] = None
    max_slowdown: float = MAX_SLOWDOWN

    @property
    def passed(self) -> bool:
        return not self.reasons

    def to_dict(self) -> dict[str, Any]:
        info = self.after.info or self.before.info
        return {
            "file": self.file,
            "module": self.module,
            "entry": self.entry,
            "inputs": self.inputs,
            "before_source": self.before_label,
            "device": self.device,
            "device_name": info.get("device_name"),
            "backend": self.backend,
            "torch": info.get("torch"),
            "cuda": info.get("cuda"),
            "passed": self.passed,
            "reasons": self.reasons,
            "notes": self.notes,
            "before": self.before.to_dict(),
            "after": self.after.to_dict(),
            "comparisons": [
                {"name": c.name, "equal": c.difference is None, "difference": c.difference} for c in self.comparisons
            ],
            "timing": self.timing.to_dict() if self.timing else None,
            "max_slowdown": self.max_slowdown,
            "seconds": round(self.seconds, 3),
        }


# --- what the parent decides before starting the sides ------------------------------


def check_device(spec: str) -> str:
    """The spelling only: each side resolves ``auto`` itself (see ``sandbox.resolve_device``)."""
    spec = spec.strip().lower()
    if spec in ("auto", "cpu", "cuda") or (spec.startswith("cuda:") and spec[5:].isdigit()):
        return spec
    raise VerifyError(f"--device {spec!r}: expected auto, cpu or cuda")


def check_backend(backend: str) -> str:
    if backend not in BACKENDS:
        raise VerifyError(f"--backend {backend!r}: expected one of {', '.join(BACKENDS)}")
    return backend


def module_for(file: str, specs: Sequence[str], cwd: str) -> tuple[str, str, bool]:
    """(dotted name, import root, is package) of ``file``.

    The module named by ``--entry`` or ``--inputs`` when it is this file;
    else its package chain (``__init__.py`` files); else its path below ``cwd``.
    """
    path = os.path.abspath(file)
    stem, _ = os.path.splitext(path)
    is_package = os.path.basename(stem) == "__init__"
    parts = os.path.dirname(stem).split(os.sep) if is_package else stem.split(os.sep)
    for spec in specs:
        name = spec.partition(":")[0]
        wanted = name.split(".")
        if name and parts[-len(wanted) :] == wanted:
            return name, os.sep.join(parts[: -len(wanted)]) or os.sep, is_package
    names = [parts[-1]]
    directory = os.sep.join(parts[:-1])
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        names.insert(0, os.path.basename(directory))
        directory = os.path.dirname(directory)
    if len(names) == 1:
        rel = os.path.relpath(path if not is_package else os.path.dirname(path), os.path.abspath(cwd))
        rel_parts = os.path.splitext(rel)[0].split(os.sep) if not is_package else rel.split(os.sep)
        if rel_parts[0] != ".." and all(p.isidentifier() for p in rel_parts):
            return ".".join(rel_parts), os.path.abspath(cwd), is_package
    if not all(n.isidentifier() for n in names):
        raise VerifyError(f"{file}: not importable as a module; name it in --entry MODULE:ATTR")
    return ".".join(names), directory, is_package


def read_before(file: str, before: Optional[str]) -> tuple[str, str]:
    """(text, label) of the "before" side: a file, a git revision, or ``HEAD``."""
    if before is not None and os.path.isfile(before):
        try:
            return read_source(before).text, before
        except SourceError as exc:
            raise VerifyError(f"{before}: error: {exc}") from None
    rev = before or "HEAD"
    directory = os.path.dirname(os.path.abspath(file))
    try:
        top = _git(["rev-parse", "--show-toplevel"], directory).decode().strip()
        rel = os.path.relpath(os.path.realpath(file), os.path.realpath(top)).replace(os.sep, "/")
        data = _git(["show", f"{rev}:{rel}"], top)
    except VerifyError as exc:
        hint = "" if before else " (name the original with --before FILE_OR_GITREV)"
        raise VerifyError(f"{file}: cannot read the version at {rev}: {exc}{hint}") from None
    try:
        return decode_source(data).text, rev
    except SourceError as exc:
        raise VerifyError(f"{file}: the version at {rev}: {exc}") from None


def _git(args: list[str], cwd: str) -> bytes:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise VerifyError(f"git failed: {exc}") from None
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip().splitlines()
        raise VerifyError(message[-1] if message else f"git {args[0]} failed")
    return done.stdout


# --- running and judging -------------------------------------------------------------


def compare_outputs(
    outputs: dict[str, Any], backend: str, rtol: Optional[float] = None, atol: Optional[float] = None
) -> list[Comparison]:
    """Every pair of :data:`COMPARISONS` whose outputs both exist (a compile error has none)."""
    exact = backend in EXACT_BACKENDS and rtol is None and atol is None
    found = []
    for left, right in COMPARISONS:
        if left in outputs and right in outputs:
            diff = first_difference(outputs[left], outputs[right], "output", exact, rtol, atol)
            found.append(Comparison(left, right, diff))
    return found


def judge(
    before: Optional[CompileStats],
    after: Optional[CompileStats],
    comparisons: Sequence[Comparison],
    after_compile_error: str = "",
    must_capture: bool = False,
    timing: Optional[Timing] = None,
    max_slowdown: float = MAX_SLOWDOWN,
    recompiles: bool = True,
) -> list[str]:
    """Why the rewrite is not proven; empty when it is.

    ``must_capture``: the rewrite was made for a graph break, so it must also
    raise graph coverage: moving a skip somewhere else proves nothing.
    ``timing``: the interleaved steady-state calls; after over before above
    ``max_slowdown`` fails. ``recompiles``: more recompiles fail (a
    recompile-limit hit fails whatever it says).
    """
    grouped: dict[str, list[str]] = {}
    for c in comparisons:
        if c.difference:
            grouped.setdefault(c.difference, []).append(c.name)
    reasons = [f"outputs differ ({'; '.join(names)}): {diff}" for diff, names in grouped.items()]
    if after_compile_error:
        reasons.append(f"after fails under torch.compile: {after_compile_error}")
    if before is not None and after is not None:
        captured_more = before.coverage is not None and after.coverage is not None and after.coverage > before.coverage
        # A loop's eager driver is a frame of its own: skipping it is fine when more work runs in graphs.
        if after.frames_skipped > before.frames_skipped and not captured_more:
            reasons.append(f"after skips more frames ({before.frames_skipped} -> {after.frames_skipped})")
        if after.ops < before.ops:
            reasons.append(f"after captures fewer ops ({before.ops} -> {after.ops})")
        reasons.extend(_cost_reasons(before, after, captured_more, recompiles))
        if must_capture and before.coverage is not None and after.coverage is not None:
            if after.coverage <= before.coverage:
                reasons.append(
                    f"after captures nothing more: graph coverage {before.coverage:.0%} -> {after.coverage:.0%}"
                    f" ({before.ops_outside_graphs} -> {after.ops_outside_graphs} ops run eagerly)"
                )
    ratio = timing.ratio if timing is not None else None
    if timing is not None and ratio is not None and ratio > max_slowdown:
        reasons.append(
            f"after is slower: compiled call {timing.before_median * 1e3:.3f} -> {timing.after_median * 1e3:.3f} ms"
            f" (x{ratio:.2f}, above the x{max_slowdown:.2f} allowed; medians of {len(timing.after)} interleaved calls)"
        )
    return reasons


def _cost_reasons(before: CompileStats, after: CompileStats, captured_more: bool, recompiles: bool) -> list[str]:
    """What the rewrite costs that the original did not: recompiles, recompile-limit hits, and
    graph breaks that bought no coverage."""
    reasons = []
    if recompiles and after.recompiles > before.recompiles:
        frames = _per_frame(after.recompiles_by_frame)
        reasons.append(f"after recompiles more ({before.recompiles} -> {after.recompiles}: {frames})")
    hits_before, hits_after = sum(before.recompile_limit_hits.values()), sum(after.recompile_limit_hits.values())
    if hits_after > hits_before:
        reasons.append(
            f"after hits the recompile limit ({hits_before} -> {hits_after}: {_per_frame(after.recompile_limit_hits)});"
            " the frame then runs eagerly"
        )
    if len(after.breaks) > len(before.breaks) and not captured_more:
        reasons.append(
            f"after adds graph breaks without adding coverage ({len(before.breaks)} -> {len(after.breaks)} breaks,"
            f" coverage {before.describe_coverage()} -> {after.describe_coverage()})"
        )
    return reasons


def _per_frame(counts: dict[str, int]) -> str:
    """``'body' (f.py:3) 8, 'step' (f.py:9) 1``: most first."""
    if not counts:
        return "frames not named"
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ", ".join(f"{_short_frame(frame)} {count}" for frame, count in ranked)


def _short_frame(frame: str) -> str:
    """A frame label with its file relative to the working directory where that is shorter."""
    name, _, where = frame.partition(" (")
    path, _, line = where.rstrip(")").rpartition(":")
    if os.path.isabs(path):
        relative = os.path.relpath(path)
        path = relative if len(relative) < len(path) else path
    return f"{name} ({path}:{line})" if where else frame


#: the rules whose rewrites are made for a graph break, and so must capture more
GRAPH_BREAK_CODES = frozenset(code for code, rule in REGISTRY.items() if rule.PREFILTER.needs_break)


def rewritten_by(before: str, after: str, path: str) -> frozenset[str]:
    """Codes of the rules whose findings in ``before`` lie on the lines the rewrite changed.

    The rules run in report mode on ``before``; a hand-made change that no
    finding explains gives an empty set.
    """
    if before == after:
        return frozenset()
    changed: set[int] = set()
    matcher = difflib.SequenceMatcher(None, before.split("\n"), after.split("\n"), autojunk=False)
    for tag, i1, i2, _, _ in matcher.get_opcodes():
        if tag != "equal":
            changed.update(range(i1 + 1, max(i1 + 1, i2) + 1))
    try:
        # every function: a change is explained by a finding wherever it lies, compiled or not
        settings = Settings(fix_mode="report", torch_only=False, reach="all")
        outcome = transform_source(before, os.path.abspath(path), settings)
    except Exception:  # an unparsable "before" explains nothing
        return frozenset()
    return frozenset(f.code for f in outcome.findings if f.line in changed)


def verify_sources(
    *,
    module: str,
    origin: str,
    before: str,
    after: str,
    entry: str,
    inputs: str,
    before_label: str = "before",
    device: str = "auto",
    backend: str = "eager",
    rtol: Optional[float] = None,
    atol: Optional[float] = None,
    cwd: Optional[str] = None,
    paths: Sequence[str] = (),
    is_package: bool = False,
    seed: int = 0,
    calls: int = 3,
    timeout: float = 600.0,
    must_capture: Optional[bool] = None,
    rounds: int = ROUNDS,
    max_slowdown: float = MAX_SLOWDOWN,
) -> VerifyReport:
    """Run both sides of ``module`` (served from ``before`` / ``after``) and judge. Raises VerifyError.

    ``must_capture`` (see :func:`judge`): None decides it from the rules
    whose findings the rewrite touched (:func:`rewritten_by`).
    """
    started = time.perf_counter()
    check_backend(backend)
    device = check_device(device)
    try:
        split_spec(entry, "--entry")
        split_spec(inputs, "--inputs")
    except SetupError as exc:
        raise VerifyError(str(exc)) from None
    cwd = os.path.abspath(cwd or os.getcwd())
    with tempfile.TemporaryDirectory(prefix="gbfix-verify-") as work:
        requests = {
            label: Request(
                module=module,
                origin=os.path.abspath(origin),
                source=text,
                entry=entry,
                inputs=inputs,
                result=os.path.join(work, f"{label}.result.json"),
                outputs=os.path.join(work, f"{label}.pt"),
                device=device,
                backend=backend,
                is_package=is_package,
                paths=tuple(dict.fromkeys([*map(os.path.abspath, paths), cwd])),
                seed=seed,
                calls=calls,
            )
            for label, text in (("before", before), ("after", after))
        }
        procs: dict[str, Any] = {}
        try:
            for label, req in requests.items():
                procs[label] = start(req, work, label, cwd)
            deadline = time.monotonic() + timeout
            results = {
                label: finish_side(label, procs[label], req, work, deadline, procs) for label, req in requests.items()
            }
            timing: Optional[Timing] = None
            if rounds > 0 and all(result["stats"] is not None for result, _ in results.values()):
                # alone on the machine, after both sides: the two sides ran at once
                timed = dataclasses.replace(
                    requests["before"],
                    other_source=after,
                    rounds=rounds,
                    result=os.path.join(work, "timing.result.json"),
                )
                procs["timing"] = start(timed, work, "timing", cwd)
                result, _ = finish_side("timing", procs["timing"], timed, work, deadline, procs)
                timing = Timing.from_dict(result["timing"])
        finally:
            _stop_all(procs)  # only what still runs: after an error, or an interrupt
        outputs: dict[str, Any] = {}
        sides = {}
        for label, (result, saved) in results.items():
            keys = ("torch", "cuda", "device", "device_name", "side_seconds")
            side = Side(label, None, info={k: result.get(k) for k in keys})
            if result["stats"] is not None:
                side.stats = CompileStats.from_dict(result["stats"])
                outputs[f"compiled({label})"] = saved["compiled"]
            if result["compile_error"]:
                side.compile_error = result["compile_error"]["message"]
                side.compile_traceback = result["compile_error"]["traceback"]
            outputs[f"eager({label})"] = saved["eager"]
            sides[label] = side
    comparisons = compare_outputs(outputs, backend, rtol, atol)
    if must_capture is None:
        must_capture = bool(rewritten_by(before, after, origin) & GRAPH_BREAK_CODES)
    reasons = judge(
        sides["before"].stats,
        sides["after"].stats,
        comparisons,
        sides["after"].compile_error,
        must_capture,
        timing,
        max_slowdown,
    )
    notes = []
    if before == after:
        notes.append("before and after are the same text")
    if sides["before"].compile_error:
        notes.append(f"before fails under torch.compile: {sides['before'].compile_error}")
    return VerifyReport(
        file=origin,
        module=module,
        entry=entry,
        inputs=inputs,
        before_label=before_label,
        device=str(sides["after"].info.get("device") or device),
        backend=backend,
        before=sides["before"],
        after=sides["after"],
        comparisons=comparisons,
        reasons=reasons,
        seconds=time.perf_counter() - started,
        notes=notes,
        timing=timing,
        max_slowdown=max_slowdown,
    )


def finish_side(
    label: str, proc: Any, request: Request, work: str, deadline: float, others: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Wait for one side; its result and saved outputs, or VerifyError (the other side is stopped)."""
    import json
    import warnings

    with warnings.catch_warnings():
        # torch warns on import when numpy is missing; outputs here are plain tensors.
        warnings.filterwarnings("ignore", message="Failed to initialize NumPy")
        import torch

    try:
        code = proc.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        _stop_all(others)
        raise VerifyError(
            f"{label}: {display_path(request.origin) if request.origin else request.entry}: timed out, "
            "ended with every process it started (see --timeout)",
            log=_log_tail(work, label),
        ) from None
    except BaseException:
        # Ctrl-C: each side leads a session of its own, so the terminal's signal does not reach it.
        _stop_all(others)
        raise
    stop(proc)  # what the side started and left running
    try:
        with open(request.result, encoding="utf-8") as handle:
            result = json.load(handle)
    except (OSError, ValueError):
        _stop_all(others)
        raise VerifyError(
            f"{label}: the verification process ended without a result (exit {code})", log=_log_tail(work, label)
        ) from None
    if not result.get("ok"):
        _stop_all(others)
        error = result["error"]
        where = f"{label}: " if error["kind"] != "setup" else ""
        raise VerifyError(
            f"{where}{error['message']}",
            traceback=error.get("traceback", ""),
            log=_log_tail(work, label) if error["kind"] == "internal" else "",
        )
    if code not in (0, EXIT_SIDE_ERROR):
        _stop_all(others)
        raise VerifyError(f"{label}: the verification process exited {code}", log=_log_tail(work, label))
    saved = {} if "timing" in result else torch.load(request.outputs, weights_only=True)
    return result, saved


def _stop_all(procs: dict[str, Any]) -> None:
    """End each side's process group: a side still running, and what any side started and left running."""
    for proc in procs.values():
        stop(proc)


def _log_tail(work: str, label: str) -> str:
    try:
        with open(os.path.join(work, f"{label}.log"), "rb") as handle:
            data = handle.read()
    except OSError:
        return ""
    return data[-_LOG_TAIL:].decode(errors="replace")


def verify_file(
    file: str,
    entry: str,
    inputs: str,
    before: Optional[str] = None,
    *,
    after_text: Optional[str] = None,
    before_text: Optional[str] = None,
    cwd: Optional[str] = None,
    **options: Any,
) -> VerifyReport:
    """Verify ``file`` (or ``after_text`` standing for it) against its "before" version."""
    cwd = os.path.abspath(cwd or os.getcwd())
    if after_text is None:
        try:
            after_text = read_source(file).text
        except SourceError as exc:
            raise VerifyError(f"{file}: error: {exc}") from None
    if before_text is None:
        before_text, label = read_before(file, before)
    else:
        label = before or "the file on disk"
    module, root, is_package = module_for(file, (entry, inputs), cwd)
    return verify_sources(
        module=module,
        origin=file,
        before=before_text,
        after=after_text,
        entry=entry,
        inputs=inputs,
        before_label=label,
        cwd=cwd,
        paths=(root,),
        is_package=is_package,
        **options,
    )


@dataclass(frozen=True)
class Target:
    """What to call to verify one file, and the directory its module names are relative to."""

    entry: str
    inputs: str
    cwd: str


def targets_for(path: str, settings: Any, entry: Optional[str] = None, inputs: Optional[str] = None) -> list[Target]:
    """The flags' entry when given, else every ``[[tool.gbfix.verify]]`` entry for ``path``."""
    if entry and inputs:
        return [Target(entry, inputs, os.getcwd())]
    real = os.path.realpath(path)
    base = os.path.dirname(settings.source) if settings.source else os.getcwd()
    return [Target(v.entry, v.inputs, base) for v in settings.verify if os.path.realpath(v.file) == real]


def verify_rewrite(path: str, old: str, new: str, targets: Sequence[Target], **options: Any) -> list[VerifyReport]:
    """One report per target for the rewrite ``old`` -> ``new`` of ``path``; raises VerifyError."""
    return [
        verify_file(path, t.entry, t.inputs, "the file on disk", after_text=new, before_text=old, cwd=t.cwd, **options)
        for t in targets
    ]


# --- reporting ---------------------------------------------------------------------

_ROWS = (
    ("frames skipped", lambda s: s.frames_skipped, "lower"),
    ("frames compiled (graphs)", lambda s: s.graphs, "higher"),
    ("ops captured", lambda s: s.ops, "higher"),
    ("graph breaks", lambda s: len(s.breaks), ""),
    ("frames seen by Dynamo", lambda s: s.frames_total, ""),
    ("recompiles", lambda s: s.recompiles, ""),
    ("recompile-limit hits", lambda s: sum(s.recompile_limit_hits.values()), ""),
)


def render_table(report: VerifyReport) -> str:
    """The human-readable report: counts before | after | change, outputs, verdict."""
    info = report.after.info or report.before.info
    device = report.device if report.device == "cpu" else f"{report.device} ({info.get('device_name')})"
    lines = [
        f"gbfix verify {report.file}",
        f"  entry {report.entry}   inputs {report.inputs}",
        f"  before: {report.before_label}   device: {device}   backend: {report.backend}   torch {info.get('torch')}",
        "",
    ]
    rows = [("", "before", "after", "change")]
    b, a = report.before.stats, report.after.stats
    for title, get, _ in _ROWS:
        left = get(b) if b else None
        right = get(a) if a else None
        rows.append((title, _cell(left), _cell(right), _change(left, right)))
    rows.append(("graph coverage", _percent(b), _percent(a), _points(b, a)))
    timing = report.timing
    if timing is not None and timing.ratio is not None:
        title = f"compiled call (ms, median of {len(timing.after)} interleaved)"
        change = f"x{timing.ratio:.2f} (max x{report.max_slowdown:.2f})"
        rows.append((title, _ms(timing.before_median * 1e3), _ms(timing.after_median * 1e3), change))
    else:
        bt = b.call_seconds * 1e3 if b else None
        at = a.call_seconds * 1e3 if a else None
        rows.append(("compiled call (ms)", _ms(bt), _ms(at), f"x{at / bt:.2f}" if bt and at else ""))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for row in rows:
        lines.append(
            "  "
            + row[0].ljust(widths[0])
            + "  "
            + "  ".join(c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=False))
        )
    for side in (report.before, report.after):
        for text in _skip_details(side):
            lines.append(f"  {side.label} skipped {text}")
        if side.stats is not None and side.stats.recompiles_by_frame:
            lines.append(f"  {side.label} recompiled {_per_frame(side.stats.recompiles_by_frame)}")
        if side.stats is not None and side.stats.recompile_limit_hits:
            lines.append(f"  {side.label} hit the recompile limit in {_per_frame(side.stats.recompile_limit_hits)}")
    lines.append("")
    lines.append("  outputs")
    width = max((len(c.name) for c in report.comparisons), default=0)
    for c in report.comparisons:
        lines.append(f"    {c.name.ljust(width)}  {'equal' if c.difference is None else 'DIFFER: ' + c.difference}")
    for side in (report.before, report.after):
        if side.compile_error:
            lines.append(f"    compiled({side.label}) raised {side.compile_error}")
    for note in report.notes:
        lines.append(f"  note: {note}")
    lines.append("")
    if report.passed:
        lines.append(f"  PASS: {summarize(report)} ({report.seconds:.1f}s)")
    else:
        lines.append("  FAIL:")
        lines.extend(f"    - {reason}" for reason in report.reasons)
    return "\n".join(lines) + "\n"


def _cell(value: Optional[int]) -> str:
    return "-" if value is None else str(value)


def _change(left: Optional[int], right: Optional[int]) -> str:
    if left is None or right is None:
        return ""
    return f"{right - left:+d}" if right != left else "0"


def _percent(stats: Optional[CompileStats]) -> str:
    return "-" if stats is None or stats.coverage is None else f"{stats.coverage:.0%}"


def _points(before: Optional[CompileStats], after: Optional[CompileStats]) -> str:
    if before is None or after is None or before.coverage is None or after.coverage is None:
        return ""
    return f"{(after.coverage - before.coverage) * 100:+.0f} pts"


def _ms(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.2f}"


def _skip_details(side: Side) -> list[str]:
    """One line per distinct break that skipped a frame: where, what, gb code."""
    if side.stats is None:
        return []
    seen: dict[str, None] = {}
    for b in side.stats.breaks:
        if not (b.whole_skip or b.partial_skip):
            continue
        where = f"{os.path.relpath(b.filename) if os.path.isabs(b.filename) else b.filename}:{b.lineno}"
        code = f" [{b.gb_code}]" if b.gb_code else ""
        how = "the rest of " if b.partial_skip else ""
        seen.setdefault(f"{how}{b.frame_function} at {where}: {b.reason}{code}", None)
    return list(seen)


def summarize(report: VerifyReport) -> str:
    b, a = report.before.stats, report.after.stats
    parts = ["outputs equal"]
    if b and a:
        parts.append(f"skipped frames {b.frames_skipped} -> {a.frames_skipped}")
        parts.append(f"ops captured {b.ops} -> {a.ops}")
        if b.coverage is not None and a.coverage is not None:
            parts.append(f"graph coverage {b.coverage:.0%} -> {a.coverage:.0%}")
    return "; ".join(parts)
