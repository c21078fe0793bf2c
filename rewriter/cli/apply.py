"""`gbfix apply`: rewrite files, or show the rewrite as a patch."""

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
    summary,
    with_recorded_breaks,
)
from rewriter.cli.progress import Progress
from rewriter.cli.verify import verify_before_write
from rewriter.engine.batch import run_batch
from rewriter.engine.diffs import display_path, unified_diff
from rewriter.engine.fileio import FileChanged, atomic_write
from rewriter.engine.results import (
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    Changed,
    Failed,
    FileResult,
    Totals,
)
from rewriter.runtime.recorded import ALL_LOGS_HELP, LOG_HELP, TRACE_HELP


def _notes(result: FileResult, dry_run: bool) -> None:
    if isinstance(result, Failed):
        return
    name = display_path(result.path)
    for f in result.findings:
        if f.unsafe_alternative:
            err(f"{name}:{f.line}:{f.col}: {f.code} with --unsafe-fixes: {f.unsafe_alternative}")
        if f.applied:
            continue
        if f.fix == "unsafe":
            err(f"{name}:{f.line}:{f.col}: {f.code} unsafe fix not applied (use --unsafe-fixes): {f.note or f.message}")
        elif f.fix == "none" and f.note:
            err(f"{name}:{f.line}:{f.col}: {f.code} {f.message}; {f.note}")


def _write_patch(patch: bytes) -> None:
    """A patch is bytes in each file's own encoding: they go to stdout unchanged."""
    sys.stdout.flush()
    stream = getattr(sys.stdout, "buffer", None)
    if stream is None:  # a text-only stdout (an embedding tool's): the closest text
        sys.stdout.write(patch.decode("utf-8", "replace"))
        sys.stdout.flush()
        return
    stream.write(patch)
    stream.flush()


def apply(
    paths: List[str] = typer.Argument(..., help="Files or directories (searched for *.py)."),
    dry_run: bool = typer.Option(
        False, "--dry-run", "--diff", help="Print one unified diff (git apply / patch -p1) and write nothing."
    ),
    check: bool = typer.Option(
        False, "--check", help="Write nothing, print only the summary; exit 1 if anything would change."
    ),
    unsafe_fixes: bool = typer.Option(
        False, "--unsafe-fixes", help="Also apply fixes that can change behaviour (see `gbfix rules`)."
    ),
    select: Optional[str] = typer.Option(
        None, "--select", help="Only these rule codes (comma-separated, prefixes allowed)."
    ),
    ignore: Optional[str] = typer.Option(None, "--ignore", help="Skip these rule codes."),
    exclude: Optional[List[str]] = typer.Option(
        None, "--exclude", help="Glob (gitignore syntax) of paths to skip; repeatable."
    ),
    jobs: int = typer.Option(
        0, "-j", "--jobs", help="Parallel worker processes (0 = one per CPU).", callback=check_jobs
    ),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="Print errors only: no notes, progress bar or summary."),
    config: Optional[str] = typer.Option(None, "--config", help="pyproject.toml to read instead of the nearest one."),
    force_exclude: bool = typer.Option(False, "--force-exclude", help=FORCE_EXCLUDE_HELP),
    verify: bool = typer.Option(
        False,
        "--verify",
        help="Compile each changed file before and after (see `gbfix verify`) and write "
        "only rewrites that pass; entries from [[tool.gbfix.verify]] or --entry/--inputs.",
    ),
    entry: Optional[str] = typer.Option(
        None, "--entry", help="With --verify: MODULE:ATTR to call for every changed file."
    ),
    inputs: Optional[str] = typer.Option(None, "--inputs", help="With --verify: MODULE:FN returning the arguments."),
    trace: Optional[str] = typer.Option(None, "--trace", help=TRACE_HELP),
    all_logs: bool = typer.Option(False, "--all-logs", help=ALL_LOGS_HELP),
    log: Optional[str] = typer.Option(None, "--log", help=LOG_HELP),
) -> None:
    """Rewrite files so their graph breaks stop Dynamo from skipping whole functions."""
    start = time.perf_counter()
    if (entry is None) != (inputs is None):
        err("gbfix: error: --entry and --inputs go together")
        raise typer.Exit(EXIT_ERROR)
    settings = resolve_settings(paths, select, ignore, exclude, unsafe_fixes, config=config)
    totals = Totals()
    files = collect(paths, settings, totals, force_exclude)
    settings = with_recorded_breaks(settings, files, trace, all_logs, log, quiet)
    write = not (dry_run or check)
    verify = verify or entry is not None
    progress = Progress(len(files), enabled=not quiet)
    for result in progress.track(run_batch(files, settings, jobs)):
        if isinstance(result, Changed) and verify:
            result = verify_before_write(result, settings, entry, inputs, quiet)
        if isinstance(result, Changed) and write:
            try:
                atomic_write(result.path, result.new, expected=result.stamp)
            except FileChanged as exc:
                result = Failed(result.path, str(exc))
            except OSError as exc:
                result = Failed(result.path, f"cannot write: {exc.strerror or exc}")
        totals.add(result)
        if isinstance(result, Failed):
            err(result.describe())
            continue
        if not quiet and not check:
            _notes(result, dry_run)
        if isinstance(result, Changed) and dry_run:
            _write_patch(unified_diff(result.old, result.new, result.path))
    if not quiet:
        err(summary(totals, time.perf_counter() - start, "changed" if write else "would change"))
    if totals.errors:
        raise typer.Exit(EXIT_ERROR)
    if totals.changed and not write:
        raise typer.Exit(EXIT_FINDINGS)
    raise typer.Exit(EXIT_CLEAN)
