"""Which Dynamo settings help this program: run it once per candidate, recommend only what the runs proved.

Settings such as ``capture_scalar_outputs`` turn a whole class of graph
breaks into traced code, and they are model-dependent: measured on torch
2.13, ``capture_dynamic_output_shape_ops`` takes a mixture-of-experts model
from 10 graph breaks to none with equal outputs, and makes a
vision-language model fail to compile (``GuardOnDataDependentSymNode``).
Only a run of the user's own program can tell, so ``gbfix advise`` makes
those runs:

* the entry runs once with no change (the baseline), then once per
  candidate setting, each in a fresh process
  (:mod:`rewriter.runtime.sandbox`, counted by :mod:`rewriter.runtime.measure`);
* a candidate runs only when the baseline has a break of the kind it acts
  on (a read of a tensor's value, an op with a data-dependent output shape,
  an output call, a break inside a called function);
* each run reports graph breaks, skipped frames (gbfix helpers among them),
  graph coverage, graphs, the first call's time (compiling included), whether
  the outputs equal the baseline's eager outputs, whether the compiled calls
  printed, warned and logged what the eager calls did, or the error;
* a candidate is recommended only when it kept every output equal, printed
  every line (in any order: a reorder moves lines after the graph; a
  candidate that drops logging under compile may lose log lines, and the
  table says how many), and raised graph coverage; best first.

``--trace DIR`` takes the baseline's breaks from a recorded run instead of
running it; coverage is then unknown, and a candidate must lower the number
of graph breaks or skipped frames instead.
"""

from __future__ import annotations

import dataclasses
import linecache
import os
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

from codemods.analysis.catalogue import CATALOGUE
from rewriter.runtime.measure import CompileStats, first_difference
from rewriter.runtime.sandbox import Request, SetupError, check_import, split_spec, start
from rewriter.runtime.trace import RecordedBreak, TraceError, read_trace, site_from_record
from rewriter.runtime.verify import EXACT_BACKENDS, VerifyError, check_backend, check_device, finish_side, module_for

#: logging calls ``ignore_logger_methods`` makes no-ops: Logger methods and the logging module's functions
_LOGGING = tuple(
    f"logging.Logger.{entry.name}" if entry.kind == "logger" else entry.name
    for entry in CATALOGUE
    if entry.cause in ("logger", "logging")
)


@dataclass(frozen=True)
class Candidate:
    """A combination of Dynamo settings to try, and the kinds of break it acts on."""

    name: str
    #: ``torch._dynamo.config`` name -> value, or -> the dotted names a set setting gets
    config: dict[str, Any]
    about: str
    #: each group must meet the baseline's break kinds for the candidate to run
    needs: tuple[frozenset[str], ...]
    #: the kind of line it stops under compile by design ("log"): those lost are said, not held against it
    drops: str = ""


SCALAR, DYNAMIC, PRINT, LOG, NESTED = "scalar", "dynamic", "print", "log", "nested"
#: one setting each: (its config, what it does, the kind of break it acts on, the lines it drops)
SETTINGS: dict[str, tuple[dict[str, Any], str, str, str]] = {
    "capture_scalar_outputs": (
        {"capture_scalar_outputs": True},
        "reads of a tensor's values (.item(), .tolist()) are traced as symbolic numbers",
        SCALAR,
        "",
    ),
    "capture_dynamic_output_shape_ops": (
        {"capture_dynamic_output_shape_ops": True},
        "ops whose output shape depends on the data (nonzero, unique) are traced",
        DYNAMIC,
        "",
    ),
    "reorderable_logging_functions": (
        {"reorderable_logging_functions": ["print", "warnings.warn"]},
        "print and warnings.warn run after the graph",
        PRINT,
        "",
    ),
    "ignore_logger_methods": (
        {"ignore_logger_methods": list(_LOGGING)},
        "logging calls are not made under compile",
        LOG,
        "log",
    ),
    "nested_graph_breaks": (
        {"nested_graph_breaks": True},
        "a break inside a called function resumes there instead of at the call",
        NESTED,
        "",
    ),
}
#: the setting for each kind of break, for the candidate that sets all the runs call for
_FOR_KIND = {kind: name for name, (_, _, kind, _) in SETTINGS.items() if kind != NESTED}


def combine(names: Sequence[str], needs: Optional[tuple[frozenset[str], ...]] = None) -> Candidate:
    """The candidate making the settings ``names`` together; it runs when the breaks seen meet ``needs``.

    By default each setting needs its own kind of break; raises KeyError on an unknown name.
    """
    config: dict[str, Any] = {}
    for name in names:
        config.update(SETTINGS[name][0])
    return Candidate(
        "+".join(names),
        config,
        "; ".join(SETTINGS[name][1] for name in names),
        needs if needs is not None else tuple(frozenset({SETTINGS[name][2]}) for name in names),
        drops=next((SETTINGS[name][3] for name in names if SETTINGS[name][3]), ""),
    )


#: tried in this order, each when a run showed a break it acts on; :func:`together` adds one more
CANDIDATES: tuple[Candidate, ...] = (
    *(combine([name]) for name in SETTINGS),
    # a nonzero() often comes with a read of its size: either kind calls for both
    combine(["capture_scalar_outputs", "capture_dynamic_output_shape_ops"], (frozenset({SCALAR, DYNAMIC}),)),
    combine(["reorderable_logging_functions", "ignore_logger_methods"]),
)


def together(kinds: set[str]) -> Optional[Candidate]:
    """The candidate making every setting the breaks seen call for (nested breaks aside); None for fewer than two."""
    names = [name for kind, name in _FOR_KIND.items() if kind in kinds]
    return combine(names) if len(names) > 1 else None


BASELINE = Candidate("none", {}, "no change", ())


class AdviseError(Exception):
    """The advice could not be made; ``traceback`` is the user's code's, when it raised."""

    def __init__(self, message: str, traceback: str = "", log: str = "") -> None:
        super().__init__(message)
        self.traceback = traceback
        self.log = log


def break_kinds(site: RecordedBreak) -> set[str]:
    """What kind of break ``site`` is, as the candidates name them (several may apply)."""
    text = f"{site.reason} {site.explanation} {site.skip_reason}".lower()
    source = linecache.getline(site.file, site.line) if site.file and site.line else ""
    kinds = set()
    if any(word in text for word in ("item()", "tolist", "capture_scalar_outputs", "data dependent operator")):
        kinds.add(SCALAR)
    if any(word in text for word in ("dynamic shape operator", "capture_dynamic_output_shape_ops", "nonzero")):
        kinds.add(DYNAMIC)
    if "logger" in text or "logging" in text or any(word in source for word in ("logger.", "logging.", "log.")):
        kinds.add(LOG)
    if "print" in text or "warnings.warn" in text or any(word in source for word in ("print(", "warnings.warn(")):
        kinds.add(PRINT)
    if len(site.traced_stack) > 1:
        kinds.add(NESTED)
    return kinds


def relevant(candidate: Candidate, kinds: set[str]) -> bool:
    return all(group & kinds for group in candidate.needs)


# -- one run ---------------------------------------------------------------------------------


@dataclass
class Run:
    """One candidate's run: its counts, or why it did not run or failed."""

    candidate: Candidate
    stats: Optional[CompileStats] = None
    #: the compiled call raised: "GuardOnDataDependentSymNode: ..."
    error: str = ""
    #: None when the outputs equal the baseline's eager outputs
    difference: Optional[str] = None
    #: "same", "reordered", "3 log lines dropped", "3 lines lost", "differs", or "" when nothing was printed
    printed: str = ""
    #: why it was not run ("" when it ran)
    skipped: str = ""
    seconds: float = 0.0

    @property
    def ran(self) -> bool:
        return not self.skipped

    @property
    def kept_outputs(self) -> bool:
        return self.ran and not self.error and self.difference is None and _printed_kept(self.printed)

    def to_dict(self) -> dict[str, Any]:
        stats = self.stats
        return {
            "candidate": self.candidate.name,
            "config": self.candidate.config,
            "about": self.candidate.about,
            "ran": self.ran,
            "skipped": self.skipped or None,
            "error": self.error or None,
            "graph_breaks": len(stats.breaks) if stats else None,
            "frames_skipped": stats.frames_skipped if stats else None,
            "helpers_skipped": helpers_skipped(stats) if stats else None,
            "coverage": stats.coverage if stats else None,
            "graphs": stats.graphs if stats else None,
            "compile_seconds": round(stats.compile_seconds, 3) if stats else None,
            "outputs_equal": None if not self.ran or self.error else self.difference is None,
            "difference": self.difference,
            "printed": self.printed or None,
            "seconds": round(self.seconds, 3),
        }


def helpers_skipped(stats: CompileStats) -> int:
    return sum(1 for name in stats.skipped_functions if "_gbfix_" in name)


def compare_printed(eager: Sequence[str], compiled: Sequence[str], drops: str = "") -> str:
    """How what the compiled calls printed relates to what the eager calls printed.

    A reorder moves lines after the graph: the same lines in another order.
    A candidate that ``drops`` a kind of line ("log") loses those by design;
    that is said ("2 log lines dropped"), any other line lost is a loss.
    """
    if not eager and not compiled:
        return ""
    if list(eager) == list(compiled):
        return "same"
    missing, extra = Counter(eager) - Counter(compiled), Counter(compiled) - Counter(eager)
    if not missing and not extra:
        return "reordered"
    if extra:
        return "differs"
    lost = sum(missing.values())
    if drops and all(line.startswith(f"{drops}: ") for line in missing):
        return f"{lost} {drops} line{'s' if lost != 1 else ''} dropped"
    return f"{lost} line{'s' if lost != 1 else ''} lost"


def _printed_kept(printed: str) -> bool:
    """Every line printed, in any order, or only the lines the candidate drops by design."""
    return printed in ("", "same", "reordered") or printed.endswith(" dropped")


@dataclass(frozen=True)
class Target:
    """What ``gbfix advise`` runs: the entry, its inputs, where to import them from, how."""

    entry: str
    inputs: str
    paths: tuple[str, ...]
    cwd: str
    device: str = "auto"
    backend: str = "eager"
    timeout: float = 900.0
    calls: int = 2


def run_candidate(target: Target, candidate: Candidate, work: str) -> tuple[Run, dict[str, Any], dict[str, Any]]:
    """Run ``target`` with ``candidate``'s settings in a fresh process: the run, the side's result, its outputs."""
    label = candidate.name.replace("+", "_")
    request = Request(
        module="",
        origin="",
        source="",
        entry=target.entry,
        inputs=target.inputs,
        result=os.path.join(work, f"{label}.result.json"),
        outputs=os.path.join(work, f"{label}.pt"),
        device=target.device,
        backend=target.backend,
        paths=target.paths,
        calls=target.calls,
        dynamo_config=candidate.config,
        capture_output=True,
    )
    started = time.perf_counter()
    proc = start(request, work, label, target.cwd)
    try:
        result, saved = finish_side(label, proc, request, work, time.monotonic() + target.timeout, {label: proc})
    except VerifyError as exc:
        if candidate is BASELINE:
            raise AdviseError(str(exc).removeprefix(f"{label}: "), exc.traceback, exc.log) from None
        return Run(candidate, error=str(exc).removeprefix(f"{label}: "), seconds=time.perf_counter() - started), {}, {}
    applied = result.get("dynamo_config")
    if applied is not None:
        # What the process had: a set names only the callables that resolved there (no warning_once
        # where no library added it), so the lines written from it name nothing the user's code lacks.
        candidate = dataclasses.replace(candidate, config=applied)
    run = Run(candidate, seconds=time.perf_counter() - started)
    if result.get("stats"):
        run.stats = CompileStats.from_dict(result["stats"])
    if result.get("compile_error"):
        run.error = result["compile_error"]["message"]
    printed = result.get("printed") or {}
    if not run.error:
        run.printed = compare_printed(printed.get("eager", ()), printed.get("compiled", ()), candidate.drops)
    return run, result, saved


# -- the advice ------------------------------------------------------------------------------


@dataclass
class Advice:
    target: Target
    baseline: Run
    runs: list[Run]
    #: where the baseline's breaks came from: "run", or the trace read
    baseline_from: str = "run"
    info: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def recommended(self) -> list[Run]:
        """The candidates a run proved: outputs kept, coverage raised (breaks cut, from a trace); best first."""
        base = self.baseline.stats
        proven = [run for run in self.runs if run.kept_outputs and run.stats is not None and _better(run.stats, base)]
        return sorted(proven, key=_rank)

    def to_dict(self) -> dict[str, Any]:
        return {
            "entry": self.target.entry,
            "inputs": self.target.inputs,
            "device": self.info.get("device") or self.target.device,
            "backend": self.target.backend,
            "torch": self.info.get("torch"),
            "baseline_from": self.baseline_from,
            "baseline": self.baseline.to_dict(),
            "candidates": [run.to_dict() for run in self.runs],
            "recommended": [run.candidate.name for run in self.recommended],
            "seconds": round(self.seconds, 3),
        }


def _better(stats: CompileStats, base: Optional[CompileStats]) -> bool:
    if base is None:
        return False
    if base.coverage is not None and stats.coverage is not None:
        return stats.coverage > base.coverage
    # a recorded baseline has no coverage: fewer breaks or skipped frames, and none more
    fewer = (len(stats.breaks), stats.frames_skipped) < (len(base.breaks), base.frames_skipped)
    return fewer and len(stats.breaks) <= len(base.breaks) and stats.frames_skipped <= base.frames_skipped


def _rank(run: Run) -> tuple[float, int, int, int, float]:
    """Coverage first, then fewer breaks and skips; among equals the fewer settings, then the faster compile."""
    stats = run.stats
    assert stats is not None
    breaks, skipped = len(stats.breaks), stats.frames_skipped
    return (-(stats.coverage or 0.0), breaks, skipped, len(run.candidate.config), stats.compile_seconds)


def baseline_from_trace(path: str) -> CompileStats:
    """The baseline's breaks and skipped frames as a recorded run saw them."""
    try:
        sites = read_trace(path)
    except TraceError as exc:
        raise AdviseError(str(exc)) from None
    stats = CompileStats()
    for site in sites:
        stats.breaks.append(_record_of(site))
    # frames skipped, each once; frames compiled are not in a trace's break records
    stats.frames_total = len({(s.frame, s.resumed_at) for s in sites if s.skipped})
    return stats


def _record_of(site: RecordedBreak) -> Any:
    from rewriter.runtime.measure import BreakRecord

    stack = [(f.file, f.line, f.function) for f in site.traced_stack]
    return BreakRecord(
        gb_type=site.reason,
        reason=site.reason,
        filename=site.file,
        lineno=site.line,
        function=site.function,
        partial_skip=site.partial,
        gb_code=site.gb_code,
        user_stack=stack,
        frame_function=site.frame,
        whole_skip=site.skipped and not site.partial,
    )


def advise(
    entry: str,
    inputs: str,
    *,
    file: Optional[str] = None,
    device: str = "auto",
    backend: str = "eager",
    cwd: Optional[str] = None,
    timeout: float = 900.0,
    trace: Optional[str] = None,
    candidates: Optional[Sequence[str]] = None,
    every: bool = False,
) -> Advice:
    """Run the baseline and every relevant candidate; raises AdviseError.

    ``candidates`` names the ones to try (default: all), and they run whatever
    the baseline shows; ``every`` runs all of them so.
    """
    started = time.perf_counter()
    target = _target(entry, inputs, file, device, backend, cwd, timeout)
    chosen = _chosen(candidates)
    with tempfile.TemporaryDirectory(prefix="gbfix-advise-") as work:
        if trace:
            baseline = Run(BASELINE, stats=baseline_from_trace(trace))
            reference: Any = None
            info: dict[str, Any] = {}
        else:
            baseline, result, saved = run_candidate(target, BASELINE, work)
            if baseline.error:
                raise AdviseError(f"the entry does not compile as it is: {baseline.error}")
            reference, info = saved.get("eager"), {k: result.get(k) for k in ("torch", "device")}
        assert baseline.stats is not None
        named = bool(candidates)
        runs = _rounds(target, chosen, baseline, reference, work, every or named, info, named)
    return Advice(target, baseline, runs, "trace " + trace if trace else "run", info, time.perf_counter() - started)


def _rounds(
    target: Target,
    chosen: list[Candidate],
    baseline: Run,
    reference: Any,
    work: str,
    every: bool,
    info: dict[str, Any],
    named: bool = False,
) -> list[Run]:
    """Run the candidates the breaks seen so far call for, until no run shows a new kind of break.

    A break inside a loop makes Dynamo skip the frame at the first one: the
    breaks after it show only once a setting removes it (a ``print`` behind
    a ``nonzero``), and then the candidates for them run too, with one that
    makes every setting the breaks seen call for (unless the candidates
    were ``named``).
    """
    done: dict[str, Run] = {}
    kinds = _kinds(baseline)
    chosen = list(chosen)
    while True:
        combined = None if named else together(kinds)
        if combined is not None and all(c.name != combined.name for c in chosen):
            chosen.append(combined)
        due = [c for c in chosen if c.name not in done and (every or relevant(c, kinds))]
        if not due:
            break
        for candidate in due:
            run, result, saved = run_candidate(target, candidate, work)
            if saved:
                run.difference = _difference(reference, saved, target.backend)
            info.update({k: result.get(k) for k in ("torch", "device") if not info.get(k)})
            done[candidate.name] = run
            kinds |= _kinds(run)
    return [done.get(c.name) or Run(c, skipped=_why_not(c, kinds)) for c in chosen]


def _kinds(run: Run) -> set[str]:
    breaks = run.stats.breaks if run.stats is not None else []
    return set().union(*(break_kinds(site_from_record(b)) for b in breaks))


def _target(
    entry: str, inputs: str, file: Optional[str], device: str, backend: str, cwd: Optional[str], timeout: float
) -> Target:
    cwd = os.path.abspath(cwd or os.getcwd())
    try:
        check_backend(backend)
        device = check_device(device)
        split_spec(entry, "--entry")
        split_spec(inputs, "--inputs")
        if file and not os.path.isfile(file):
            raise AdviseError(f"{file}: no such file")
        roots = [module_for(file, (entry, inputs), cwd)[1]] if file else []
    except (VerifyError, SetupError) as exc:
        raise AdviseError(str(exc)) from None
    return Target(entry, inputs, tuple(dict.fromkeys([*roots, cwd])), cwd, device, backend, timeout)


def _chosen(names: Optional[Sequence[str]]) -> list[Candidate]:
    """The candidates named (a setting, or settings joined by ``+``), or all of them."""
    if not names:
        return list(CANDIDATES)
    unknown = sorted({part for name in names for part in name.split("+") if part not in SETTINGS})
    if unknown:
        raise AdviseError(
            f"unknown setting(s): {', '.join(unknown)}; known: {', '.join(SETTINGS)} (join several with +)"
        )
    return [combine(list(dict.fromkeys(name.split("+")))) for name in dict.fromkeys(names)]


_WORDS = {
    SCALAR: "read of a tensor's value",
    DYNAMIC: "data-dependent shape",
    PRINT: "print or warning",
    LOG: "logging",
    NESTED: "nested",
}


def _why_not(candidate: Candidate, kinds: set[str]) -> str:
    missing = next(group for group in candidate.needs if not group & kinds)
    return f"no {' or '.join(_WORDS[k] for k in sorted(missing))} break in any run"


def _difference(reference: Any, saved: dict[str, Any], backend: str) -> Optional[str]:
    """Where the candidate's outputs (compiled, and eager) differ from the baseline's eager ones."""
    exact = backend in EXACT_BACKENDS
    if reference is None:  # a recorded baseline: the candidate's own eager outputs are the reference
        reference = saved.get("eager")
    for label in ("compiled", "eager"):
        if label == "compiled" and saved.get("compiled") is None:
            continue
        diff = first_difference(reference, saved.get(label), f"{label} output", exact)
        if diff is not None:
            return diff
    return None


# -- the report ----------------------------------------------------------------------------------

_HEAD = ("candidate", "breaks", "skipped (h)", "coverage", "graphs", "compile s", "outputs", "printed", "verdict")


def setting_lines(candidate: Candidate, why: str = "") -> tuple[list[str], list[str]]:
    """(the lines that make ``candidate``'s settings, the modules they name) for a file that compiles."""
    lines, imports = [], {"torch"}
    for name, value in candidate.config.items():
        if isinstance(value, list):
            lines.append(f"torch._dynamo.config.{name}.update({{{', '.join(value)}}})")
            imports.update(v.split(".")[0] for v in value if "." in v)
        else:
            lines.append(f"torch._dynamo.config.{name} = {value!r}")
    if why and lines:
        lines[0] += f"  # gbfix advise: {why}"
    return lines, sorted(imports)


def check_written(target: Target, file: str, text: str, lines: Sequence[str]) -> Optional[str]:
    """Why ``text`` written to ``file`` would break it: it must import in a fresh process, then run ``lines``.

    None when it does; else the error's one line.
    """
    try:
        module, root, is_package = module_for(file, (target.entry, target.inputs), target.cwd)
    except VerifyError as exc:
        return str(exc)
    paths = tuple(dict.fromkeys([root, *target.paths]))
    origin = os.path.abspath(file)
    return check_import(
        module,
        origin,
        text,
        is_package=is_package,
        paths=paths,
        cwd=target.cwd,
        lines=tuple(lines),
        timeout=target.timeout,
    )


def gain(run: Run, baseline: Run) -> str:
    """``graph coverage 54% -> 100%, graph breaks 10 -> 0, outputs equal``."""
    stats, base = run.stats, baseline.stats
    assert stats is not None and base is not None
    parts = []
    if base.coverage is not None and stats.coverage is not None:
        parts.append(f"graph coverage {base.coverage:.1%} -> {stats.coverage:.1%}")
    parts.append(f"graph breaks {len(base.breaks)} -> {len(stats.breaks)}")
    parts.append("outputs equal")
    if run.printed.endswith(" dropped"):
        parts.append(f"{run.printed} under compile")
    return ", ".join(parts)


def render(advice: Advice) -> str:
    t = advice.target
    lines = [
        "gbfix advise",
        f"  entry {t.entry}   inputs {t.inputs}   device {advice.info.get('device') or t.device}   "
        f"backend {t.backend}   torch {advice.info.get('torch')}",
    ]
    if advice.baseline_from != "run":
        lines.append(f"  baseline: breaks from {advice.baseline_from[6:]} (coverage unknown)")
    lines.append("")
    rows = [_HEAD, _row(advice.baseline, "baseline", recorded=advice.baseline_from != "run")]
    recommended = {id(run): n for n, run in enumerate(advice.recommended, start=1)}
    for run in advice.runs:
        if run.ran:
            rows.append(_row(run, _verdict(run, recommended.get(id(run)))))
    widths = [max(len(row[i]) for row in rows) for i in range(len(_HEAD))]
    for row in rows:
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:-1], widths[1:-1], strict=False)]
        lines.append("  " + "  ".join([*cells, row[-1]]).rstrip())
    for run in advice.runs:
        if not run.ran:
            lines.append(f"  not run: {run.candidate.name} ({run.skipped})")
    for run in advice.runs:
        if run.error:
            lines.append(f"  {run.candidate.name}: {run.error}")
    lines.append("")
    if not advice.recommended:
        lines.append("  no setting to recommend: none kept every output and raised graph coverage")
    else:
        lines.append("  recommended, best first:")
        for n, run in enumerate(advice.recommended, start=1):
            lines.append(f"    {n}. {run.candidate.name}: {gain(run, advice.baseline)}")
            lines.extend(f"       {line}" for line in setting_lines(run.candidate)[0])
    return "\n".join(lines) + "\n"


def _row(run: Run, verdict: str, recorded: bool = False) -> tuple[str, ...]:
    stats = run.stats
    if stats is None:
        return (run.candidate.name, "-", "-", "-", "-", "-", "-", "-", verdict)
    coverage = "-" if stats.coverage is None else f"{stats.coverage:.1%}"
    compile_s = f"{stats.compile_seconds:.1f}" if stats.compile_seconds else "-"
    outputs = "-" if run.error or recorded else ("equal" if run.difference is None else "DIFFER")
    return (
        run.candidate.name,
        str(len(stats.breaks)),
        f"{stats.frames_skipped} ({helpers_skipped(stats)})",
        coverage,
        "-" if recorded else str(stats.graphs),
        compile_s,
        outputs,
        run.printed or "-",
        verdict,
    )


def _verdict(run: Run, rank: Optional[int]) -> str:
    if rank is not None:
        return f"recommended ({rank})"
    if run.error:
        return "error"
    if run.difference is not None:
        return "outputs differ"
    if not run.kept_outputs:
        return f"output {run.printed}"
    return "no gain"
