"""`gbfix verify`: compile a file before and after its rewrite, compare counts and outputs."""

from __future__ import annotations

import json
import sys
from typing import Optional

import typer

from rewriter.cli.app import err, require_stdout
from rewriter.engine.config import Settings
from rewriter.engine.diffs import display_path
from rewriter.engine.results import (
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    Changed,
    Failed,
    FileResult,
)
from rewriter.runtime.verify import (
    GRAPH_BREAK_CODES,
    MAX_SLOWDOWN,
    ROUNDS,
    VerifyError,
    VerifyReport,
    render_table,
    summarize,
    targets_for,
    verify_file,
    verify_rewrite,
)


def report_error(exc: VerifyError, as_json: bool = False) -> None:
    """One line naming what failed, then the user's traceback (or the side's log) when there is one."""
    if as_json:
        data = {"passed": False, "error": str(exc), "traceback": exc.traceback or None}
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    err(f"gbfix: error: {exc}")
    if exc.traceback:
        err(exc.traceback.rstrip("\n"))
    elif exc.log:
        err(exc.log.rstrip("\n"))


def print_report(report: VerifyReport, as_json: bool) -> None:
    if as_json:
        sys.stdout.write(json.dumps(report.to_dict(), indent=2) + "\n")
    else:
        sys.stdout.write(render_table(report))
    sys.stdout.flush()


def verify(
    file: str = typer.Argument(..., metavar="FILE", help="The rewritten file (the 'after' side)."),
    entry: str = typer.Option(
        ...,
        "--entry",
        metavar="MODULE:ATTR",
        help="MODULE:ATTR to call: a function, an nn.Module instance, or an nn.Module class.",
    ),
    inputs: str = typer.Option(
        ..., "--inputs", metavar="MODULE:FN", help="MODULE:FN returning the tuple of arguments (may take `device`)."
    ),
    before: Optional[str] = typer.Option(
        None,
        "--before",
        metavar="FILE|REV",
        help="The original: a file or a git revision (default: the file at git HEAD).",
    ),
    device: str = typer.Option("auto", "--device", metavar="DEVICE", help="auto (CUDA when available), cpu or cuda."),
    backend: str = typer.Option("eager", "--backend", metavar="BACKEND", help="eager, aot_eager or inductor."),
    rtol: Optional[float] = typer.Option(
        None,
        "--rtol",
        metavar="FLOAT",
        help="Relative tolerance for outputs (default: exact, or dtype-based for inductor).",
    ),
    atol: Optional[float] = typer.Option(None, "--atol", metavar="FLOAT", help="Absolute tolerance for outputs."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    timeout: float = typer.Option(600.0, "--timeout", metavar="SECONDS", help="Seconds both sides may take together."),
    max_slowdown: float = typer.Option(
        MAX_SLOWDOWN,
        "--max-slowdown",
        metavar="RATIO",
        help="Largest allowed median compiled call after / before, timed interleaved in one process.",
    ),
    rounds: int = typer.Option(
        ROUNDS, "--rounds", metavar="N", help="Timed calls of each side (0: no timing, no slowdown check)."
    ),
) -> None:
    """Prove a rewrite by compiling the code before and after it.

    It holds when fewer frames are skipped, no fewer ops are captured, the
    outputs are the same, and the rewrite costs nothing new: no more
    recompiles or recompile-limit hits, no more graph breaks without more
    coverage, and a compiled call no slower than --max-slowdown. Exit 0 when
    it holds, 1 when outputs differ or the rewrite is worse, 2 on errors.
    """
    require_stdout("the report")
    if max_slowdown < 1.0 or rounds < 0:
        err("gbfix verify: error: --max-slowdown must be at least 1 and --rounds at least 0")
        raise typer.Exit(EXIT_ERROR)
    try:
        report = verify_file(
            file,
            entry,
            inputs,
            before,
            device=device,
            backend=backend,
            rtol=rtol,
            atol=atol,
            timeout=timeout,
            max_slowdown=max_slowdown,
            rounds=rounds,
        )
    except VerifyError as exc:
        report_error(exc, as_json)
        raise typer.Exit(EXIT_ERROR) from None
    print_report(report, as_json)
    raise typer.Exit(EXIT_CLEAN if report.passed else EXIT_FINDINGS) from None


def verify_before_write(
    result: Changed, settings: Settings, entry: Optional[str], inputs: Optional[str], quiet: bool
) -> FileResult:
    """For `gbfix apply --verify`: the rewrite if proven, else a Failed record (the file is not written)."""
    targets = targets_for(result.path, settings, entry, inputs)
    name = display_path(result.path)
    if not targets:
        if not quiet:
            err(f"{name}: not verified: no --entry/--inputs and no [[tool.gbfix.verify]] entry for it")
        return result
    old = result.old.decode(result.encoding)
    new = result.new.decode(result.encoding)
    try:
        applied = {finding.code for finding in result.findings if finding.applied}
        # No timing here: a third process per file and target; `gbfix verify` times a rewrite.
        must_capture = bool(applied & GRAPH_BREAK_CODES)
        reports = verify_rewrite(result.path, old, new, targets, must_capture=must_capture, rounds=0)
    except VerifyError as exc:
        detail = exc.traceback or exc.log
        if detail:  # the one-line reason follows as the file's error
            err(detail.rstrip("\n"))
        return Failed(result.path, f"rewrite not written: verification could not run: {exc}")
    for report in reports:
        if not report.passed:
            if not quiet:
                err(render_table(report).rstrip("\n"))
            return Failed(result.path, f"rewrite not written: verification failed: {report.reasons[0]}")
    if not quiet:
        for report in reports:
            err(f"{name}: verified {report.entry}: {summarize(report)}")
    return result
