"""`gbfix scan`: report the sites that make Dynamo skip a frame, like a linter.

The same engine as `gbfix apply` runs in report mode: every rule records
its findings and changes nothing. Findings go to stdout (or ``--output``),
errors and the summary line to stderr. Exit 1 when there are findings, 0
when there are none, 2 when a file could not be processed.

``gbfix scan -`` reads the source from stdin, for editors.
"""

from __future__ import annotations

import os
import sys
import time
from typing import List, Optional

import typer

from rewriter.cli.app import (
    CACHE_DIR_HELP,
    COMPILED_HELP,
    FORCE_EXCLUDE_HELP,
    NO_CACHE_HELP,
    REACH_HELP,
    STDIN,
    STDIN_FILENAME_HELP,
    check_jobs,
    choose_format,
    collect,
    err,
    read_stdin,
    require_stdout,
    resolve_settings,
    stdin_name,
    summary,
    with_recorded_breaks,
)
from rewriter.cli.progress import Progress
from rewriter.engine.batch import build_project, process_file, run_batch
from rewriter.engine.config import Settings
from rewriter.engine.project import explain_reach
from rewriter.engine.report import FORMATS, ScanReport, plural, render, render_statistics
from rewriter.engine.results import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, FileResult, Totals
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


def stdin_files(name: str, settings: Settings, force_exclude: bool) -> list[str]:
    """The one file stdin stands for; none when ``--force-exclude`` excludes its ``--stdin-filename``."""
    if force_exclude and name != STDIN and settings.exclusion().match(name):
        return []
    return [name]


def stdin_results(files: List[str], data: bytes, settings: Settings) -> list[FileResult]:
    """The batch of a source read from stdin: one file, processed in this process."""
    return [process_file(path, settings, data) for path in files]


def _explain_reach(spec: str, files: List[str], settings: Settings, jobs: int, stdin: bool) -> None:
    """``--explain-reach FILE:LINE``: print why that code runs under compile, or why not; exit."""
    path, _, line = spec.rpartition(":")
    if not path or not line.isdigit():
        err(f"gbfix: error: --explain-reach takes FILE:LINE, not {spec!r}")
        raise typer.Exit(EXIT_ERROR)
    if stdin:
        err("gbfix: error: --explain-reach reads the scanned files on disk, not source from stdin")
        raise typer.Exit(EXIT_ERROR)
    target = os.path.abspath(path)
    if target not in {os.path.abspath(f) for f in files}:
        err(f"gbfix: error: {path} is not among the scanned files")
        raise typer.Exit(EXIT_ERROR)
    project = build_project(files, settings, jobs)
    sys.stdout.write(explain_reach(project, target, int(line)) + "\n")
    raise typer.Exit(EXIT_CLEAN)


def _counted(report: ScanReport) -> str:
    """``3 findings (2 breaks, 1 advice)``: placement advice is never counted as a break."""
    counts = report.counts()
    total = plural(len(report.diagnostics), "finding")
    parts = [plural(counts["break"], "break")]
    if counts["advice"]:
        parts.append(f"{counts['advice']} advice")
    if counts["suppression"]:
        parts.append(plural(counts["suppression"], "unused suppression"))
    return f"{total} ({', '.join(parts)})" if report.diagnostics else total


def scan(
    paths: List[str] = typer.Argument(
        None,
        metavar="PATH",
        help="Files or directories (searched for *.py; default `.`); `-` reads the source from stdin.",
    ),
    output_format: str = typer.Option(
        "text",
        "--format",
        metavar="FORMAT",
        help="text (path:line:col: CODE message [fix: ...]), json, sarif (SARIF 2.1.0) "
        "or github (GitHub Actions annotations); any case.",
    ),
    output: Optional[str] = typer.Option(
        None, "-o", "--output", metavar="FILE", help="Write the report to this file, not stdout."
    ),
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
        None, "--select", metavar="CODES", help="Only these rule codes (comma-separated, prefixes allowed)."
    ),
    ignore: Optional[str] = typer.Option(None, "--ignore", metavar="CODES", help="Skip these rule codes."),
    exclude: Optional[List[str]] = typer.Option(
        None, "--exclude", metavar="GLOB", help="Glob (gitignore syntax) of paths to skip; repeatable."
    ),
    force_exclude: bool = typer.Option(False, "--force-exclude", help=FORCE_EXCLUDE_HELP),
    stdin_filename: Optional[str] = typer.Option(None, "--stdin-filename", metavar="PATH", help=STDIN_FILENAME_HELP),
    jobs: int = typer.Option(
        0, "-j", "--jobs", metavar="N", help="Parallel worker processes (0 = one per CPU).", callback=check_jobs
    ),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="Print errors only, no summary."),
    config: Optional[str] = typer.Option(
        None, "--config", metavar="FILE", help="pyproject.toml to read instead of the nearest one."
    ),
    trace: Optional[str] = typer.Option(None, "--trace", metavar="DIR", help=TRACE_HELP),
    all_logs: bool = typer.Option(False, "--all-logs", help=ALL_LOGS_HELP),
    log: Optional[str] = typer.Option(None, "--log", metavar="FILE", help=LOG_HELP),
    reach: Optional[str] = typer.Option(None, "--reach", metavar="MODE", help=REACH_HELP),
    compiled: Optional[List[str]] = typer.Option(None, "--compiled", metavar="NAME", help=COMPILED_HELP),
    cache_dir: Optional[str] = typer.Option(None, "--cache-dir", metavar="DIR", help=CACHE_DIR_HELP),
    no_cache: bool = typer.Option(False, "--no-cache", help=NO_CACHE_HELP),
    explain_reach: Optional[str] = typer.Option(
        None,
        "--explain-reach",
        metavar="FILE:LINE",
        help="Say why the code at FILE:LINE runs under compile (the chain of calls from an entry) "
        "or why it does not, and report nothing else.",
    ),
) -> None:
    """Report what `apply` would fix, like a linter; change nothing.

    Each finding is a site that makes Dynamo skip a whole function.
    """
    start = time.perf_counter()
    paths = paths or ["."]
    output_format = choose_format(output_format, FORMATS)
    if statistics and output_format not in ("text", "json"):
        err(f"gbfix: error: --statistics prints text or json, not {output_format}")
        raise typer.Exit(EXIT_ERROR)
    name = stdin_name(paths, stdin_filename)
    if output is None:
        require_stdout("the report (use --output FILE)")
    where = [name if name != STDIN else "."] if name else paths
    settings = resolve_settings(
        where,
        select,
        ignore,
        exclude,
        report_only=True,
        config=config,
        reach=reach,
        compiled=compiled,
        cache_dir=cache_dir,
        no_cache=no_cache,
    )
    totals = Totals()
    report = ScanReport()
    if name is None:
        files = collect(paths, settings, totals, force_exclude)
    else:
        data, files = read_stdin(name), stdin_files(name, settings, force_exclude)
    if explain_reach is not None:
        _explain_reach(explain_reach, files, settings, jobs, name is not None)
    settings = with_recorded_breaks(settings, files, trace, all_logs, log, quiet)
    results = run_batch(files, settings, jobs) if name is None else stdin_results(files, data, settings)
    # The report comes after the batch: the bar is all a terminal shows meanwhile (as for apply).
    with Progress(len(files), enabled=not quiet and name is None) as progress:
        for result in progress.track(results):
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
        err(summary(totals, time.perf_counter() - start, _counted(report)))
    if totals.errors:
        raise typer.Exit(EXIT_ERROR)
    if found and not exit_zero:
        raise typer.Exit(EXIT_FINDINGS)
    raise typer.Exit(EXIT_CLEAN)
