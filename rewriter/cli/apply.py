"""`gbfix apply`: rewrite files, or show the rewrite as a patch.

Each file written is named on stderr (``rewrote PATH``; with ``--check``,
``would rewrite PATH``), so a run says what it changed. ``gbfix apply -``
reads the source from stdin and writes the rewritten source to stdout, as
black and ruff do, so an editor can run it on a buffer.
"""

from __future__ import annotations

import sys
import time
from typing import Iterable, List, Optional

import typer

from rewriter.cli.app import (
    CACHE_DIR_HELP,
    COMPILED_HELP,
    EVIDENCE_HELP,
    FORCE_EXCLUDE_HELP,
    NO_CACHE_HELP,
    REACH_HELP,
    STDIN,
    STDIN_FILENAME_HELP,
    check_jobs,
    collect,
    err,
    read_stdin,
    require_stdout,
    resolve_settings,
    stdin_name,
    summary,
    with_recorded_breaks,
    write_patch,
)
from rewriter.cli.progress import Progress
from rewriter.cli.scan import stdin_files, stdin_results
from rewriter.cli.verify import verify_before_write
from rewriter.engine.batch import run_batch
from rewriter.engine.diffs import display_path, unified_diff
from rewriter.engine.fileio import FileChanged, atomic_write
from rewriter.engine.report import error_line
from rewriter.engine.results import (
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    Changed,
    Failed,
    FileResult,
    Totals,
    Unchanged,
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
        elif f.fix == "safe" and f.note:
            # a safe fix left out for its evidence (``--evidence``), or a suppression
            err(f"{name}:{f.line}:{f.col}: {f.code} {f.note}")


def _write(result: Changed, to_stdout: bool) -> FileResult:
    """The rewrite written in place (atomically), or to stdout for source read from stdin."""
    if to_stdout:
        sys.stdout.buffer.write(result.new)
        sys.stdout.flush()
        return result
    try:
        atomic_write(result.path, result.new, expected=result.stamp)
    except FileChanged as exc:
        return Failed(result.path, str(exc))
    except OSError as exc:
        return Failed(result.path, f"cannot write: {exc.strerror or exc}")
    return result


def _echo_unchanged(data: bytes) -> None:
    """Source from stdin that needs no change goes back as it came: the editor's buffer stays whole."""
    sys.stdout.buffer.write(data)
    sys.stdout.flush()


def apply(
    paths: List[str] = typer.Argument(
        None,
        metavar="PATH",
        help="Files or directories (searched for *.py; default `.`); `-` reads the source from stdin, writes stdout.",
    ),
    dry_run: bool = typer.Option(
        False, "--dry-run", "--diff", help="Print one unified diff (git apply / patch -p1) and write nothing."
    ),
    check: bool = typer.Option(
        False, "--check", help="Write nothing, name the files that would change; exit 1 if any would."
    ),
    exit_zero: bool = typer.Option(
        False,
        "--exit-zero",
        help="With --dry-run or --check: exit 0 even when files would change (errors still exit 2).",
    ),
    unsafe_fixes: bool = typer.Option(
        False, "--unsafe-fixes", help="Also apply fixes that can change behaviour (see `gbfix rules`)."
    ),
    select: Optional[str] = typer.Option(
        None, "--select", metavar="CODES", help="Only these rule codes (comma-separated, prefixes allowed)."
    ),
    ignore: Optional[str] = typer.Option(None, "--ignore", metavar="CODES", help="Skip these rule codes."),
    exclude: Optional[List[str]] = typer.Option(
        None, "--exclude", metavar="GLOB", help="Glob (gitignore syntax) of paths to skip; repeatable."
    ),
    jobs: int = typer.Option(
        0, "-j", "--jobs", metavar="N", help="Parallel worker processes (0 = one per CPU).", callback=check_jobs
    ),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="Print errors only: no notes, file names or summary."),
    config: Optional[str] = typer.Option(
        None, "--config", metavar="FILE", help="pyproject.toml to read instead of the nearest one."
    ),
    force_exclude: bool = typer.Option(False, "--force-exclude", help=FORCE_EXCLUDE_HELP),
    stdin_filename: Optional[str] = typer.Option(None, "--stdin-filename", metavar="PATH", help=STDIN_FILENAME_HELP),
    verify: bool = typer.Option(
        False,
        "--verify",
        help="Compile each changed file before and after (see `gbfix verify`) and write "
        "only rewrites that pass; entries from [[tool.gbfix.verify]] or --entry/--inputs.",
    ),
    entry: Optional[str] = typer.Option(
        None, "--entry", metavar="MODULE:ATTR", help="With --verify: what to call for every changed file."
    ),
    inputs: Optional[str] = typer.Option(
        None, "--inputs", metavar="MODULE:FN", help="With --verify: the function returning the arguments."
    ),
    trace: Optional[str] = typer.Option(None, "--trace", metavar="DIR", help=TRACE_HELP),
    all_logs: bool = typer.Option(False, "--all-logs", help=ALL_LOGS_HELP),
    log: Optional[str] = typer.Option(None, "--log", metavar="FILE", help=LOG_HELP),
    reach: Optional[str] = typer.Option(None, "--reach", metavar="MODE", help=REACH_HELP),
    evidence: Optional[str] = typer.Option(None, "--evidence", metavar="LEVEL", help=EVIDENCE_HELP),
    compiled: Optional[List[str]] = typer.Option(None, "--compiled", metavar="NAME", help=COMPILED_HELP),
    cache_dir: Optional[str] = typer.Option(None, "--cache-dir", metavar="DIR", help=CACHE_DIR_HELP),
    no_cache: bool = typer.Option(False, "--no-cache", help=NO_CACHE_HELP),
) -> None:
    """Rewrite files, or show the rewrite as a patch.

    The rewrite fixes the graph breaks that make Dynamo skip whole functions.
    """
    start = time.perf_counter()
    paths = paths or ["."]
    if (entry is None) != (inputs is None):
        err("gbfix: error: --entry and --inputs go together")
        raise typer.Exit(EXIT_ERROR)
    verify = verify or entry is not None
    name = stdin_name(paths, stdin_filename)
    if name is not None and verify:
        err("gbfix: error: --verify compiles files on disk; it cannot check source from stdin")
        raise typer.Exit(EXIT_ERROR)
    if dry_run:
        require_stdout("the patch")
    elif name is not None and not check:
        require_stdout("the rewritten source")
    where = [name if name != STDIN else "."] if name else paths
    settings = resolve_settings(
        where,
        select,
        ignore,
        exclude,
        unsafe_fixes,
        config=config,
        reach=reach,
        evidence=evidence,
        compiled=compiled,
        cache_dir=cache_dir,
        no_cache=no_cache,
    )
    totals = Totals()
    data = b""
    if name is None:
        files = collect(paths, settings, totals, force_exclude)
    else:
        data, files = read_stdin(name), stdin_files(name, settings, force_exclude)
    settings = with_recorded_breaks(settings, files, trace, all_logs, log, quiet)
    write = not (dry_run or check)
    results: Iterable[FileResult] = (
        run_batch(files, settings, jobs) if name is None else stdin_results(files, data, settings)
    )
    progress = Progress(len(files), enabled=not quiet and name is None)
    for result in progress.track(results):
        if isinstance(result, Changed) and verify:
            result = verify_before_write(result, settings, entry, inputs, quiet)
        if isinstance(result, Changed) and write:
            result = _write(result, to_stdout=name is not None)
        elif isinstance(result, Unchanged) and write and name is not None:
            _echo_unchanged(data)
        totals.add(result)
        if isinstance(result, Failed):
            err(error_line(display_path(result.path), result.line, result.message))
            continue
        if not quiet and not check:
            _notes(result, dry_run)
        if isinstance(result, Changed) and dry_run:
            write_patch(unified_diff(result.old, result.new, result.path))
        elif isinstance(result, Changed) and not quiet:
            err(f"{'rewrote' if write else 'would rewrite'} {display_path(result.path)}")
    if name is not None and write and not files:
        _echo_unchanged(data)  # excluded by --force-exclude: left as it is
    if not quiet:
        err(summary(totals, time.perf_counter() - start, f"{totals.changed} {'changed' if write else 'would change'}"))
    if totals.errors:
        raise typer.Exit(EXIT_ERROR)
    if totals.changed and not write and not exit_zero:
        raise typer.Exit(EXIT_FINDINGS)
    raise typer.Exit(EXIT_CLEAN)
