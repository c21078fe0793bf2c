"""`gbfix scan`: report the sites that make Dynamo skip a frame, like a linter.

The same engine as `gbfix apply` runs in report mode: every rule records
its findings and changes nothing. Findings go to stdout (or ``--output``),
errors and the summary line to stderr. Exit 1 when there are findings, 0
when there are none, 2 when a file could not be processed.
"""

from __future__ import annotations

import sys
import time
from typing import List, Optional

import typer

from rewriter.cli.app import (
    FORCE_EXCLUDE_HELP,
    check_jobs,
    collect,
    err,
    resolve_settings,
    with_recorded_breaks,
)
from rewriter.engine.batch import run_batch
from rewriter.engine.report import FORMATS, ScanReport, render, render_statistics
from rewriter.engine.results import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, Totals
from rewriter.runtime.recorded import ALL_LOGS_HELP, LOG_HELP, TRACE_HELP


def _write(text: str, output: Optional[str]) -> None:
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        err(f"{output}: error: cannot write report: {exc.strerror or exc}")
        raise typer.Exit(EXIT_ERROR) from None


def scan(
    paths: List[str] = typer.Argument(..., help="Files or directories (searched for *.py)."),
    output_format: str = typer.Option(
        "text",
        "--format",
        help="text (path:line:col: CODE message, then the fix safety), json, or sarif (SARIF 2.1.0).",
    ),
    output: Optional[str] = typer.Option(None, "-o", "--output", help="Write the report to this file, not stdout."),
    statistics: bool = typer.Option(
        False, "--statistics", help="Print how many findings each rule has instead of the findings (text or json)."
    ),
    report_unused_ignores: bool = typer.Option(
        False, "--report-unused-ignores", help="Also report `# gbfix: ignore` comments that suppress nothing."
    ),
    exit_zero: bool = typer.Option(
        False, "--exit-zero", help="Exit 0 even when there are findings (errors still exit 2)."
    ),
    select: Optional[str] = typer.Option(
        None, "--select", help="Only these rule codes (comma-separated, prefixes allowed)."
    ),
    ignore: Optional[str] = typer.Option(None, "--ignore", help="Skip these rule codes."),
    exclude: Optional[List[str]] = typer.Option(
        None, "--exclude", help="Glob (gitignore syntax) of paths to skip; repeatable."
    ),
    force_exclude: bool = typer.Option(False, "--force-exclude", help=FORCE_EXCLUDE_HELP),
    jobs: int = typer.Option(
        0, "-j", "--jobs", help="Parallel worker processes (0 = one per CPU).", callback=check_jobs
    ),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="Print errors only, no summary."),
    config: Optional[str] = typer.Option(None, "--config", help="pyproject.toml to read instead of the nearest one."),
    trace: Optional[str] = typer.Option(None, "--trace", help=TRACE_HELP),
    all_logs: bool = typer.Option(False, "--all-logs", help=ALL_LOGS_HELP),
    log: Optional[str] = typer.Option(None, "--log", help=LOG_HELP),
) -> None:
    """Report graph breaks that make Dynamo skip whole functions; change nothing."""
    start = time.perf_counter()
    if output_format not in FORMATS:
        err(f"gbfix: error: --format must be one of {', '.join(FORMATS)}, not {output_format!r}")
        raise typer.Exit(EXIT_ERROR)
    if statistics and output_format == "sarif":
        err("gbfix: error: --statistics prints text or json, not sarif")
        raise typer.Exit(EXIT_ERROR)
    settings = resolve_settings(paths, select, ignore, exclude, report_only=True, config=config)
    totals = Totals()
    report = ScanReport()
    files = collect(paths, settings, totals, force_exclude)
    settings = with_recorded_breaks(settings, files, trace, all_logs, log, quiet)
    for result in run_batch(files, settings, jobs):
        totals.add(result)
        report.add(result, unused_ignores=report_unused_ignores)
    for error in report.errors:
        err(error.text())
    if statistics:
        _write(render_statistics(report, output_format), output)
    else:
        _write(render(report, output_format), output)
    found = len(report.diagnostics)
    if not quiet:
        seconds = time.perf_counter() - start
        err(
            f"gbfix: {totals.scanned} files scanned ({totals.screened_out} screened out, "
            f"{totals.parsed} parsed), {found} findings, {totals.errors} errors in {seconds:.2f}s"
        )
    if totals.errors:
        raise typer.Exit(EXIT_ERROR)
    if found and not exit_zero:
        raise typer.Exit(EXIT_FINDINGS)
    raise typer.Exit(EXIT_CLEAN)
