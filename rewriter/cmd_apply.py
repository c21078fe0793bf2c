"""`gbfix apply`: rewrite files, or show the rewrite as a patch."""

from __future__ import annotations

import sys
import time
from typing import List, Optional

import typer

from rewriter.app import app, collect, err, resolve_settings, summary
from rewriter.batch import run_batch
from rewriter.diffs import display_path, unified_diff
from rewriter.fileio import atomic_write
from rewriter.results import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, Changed, Failed, FileResult, Totals


def _notes(result: FileResult, dry_run: bool) -> None:
    if isinstance(result, Failed):
        return
    name = display_path(result.path)
    for f in result.findings:
        if f.applied:
            continue
        if f.fix == "unsafe":
            err(f"{name}:{f.line}:{f.col}: {f.code} unsafe fix not applied "
                f"(use --unsafe-fixes): {f.note or f.message}")
        elif f.fix == "none" and f.note:
            err(f"{name}:{f.line}:{f.col}: {f.code} {f.message}; {f.note}")


@app.command()
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
    select: Optional[str] = typer.Option(None, "--select", help="Only these rule codes (comma-separated, prefixes allowed)."),
    ignore: Optional[str] = typer.Option(None, "--ignore", help="Skip these rule codes."),
    exclude: Optional[List[str]] = typer.Option(
        None, "--exclude", help="Glob (gitignore syntax) of paths to skip; repeatable."
    ),
    jobs: int = typer.Option(0, "-j", "--jobs", help="Parallel worker processes (0 = one per CPU)."),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="Print errors only, no notes or summary."),
    config: Optional[str] = typer.Option(None, "--config", help="pyproject.toml to read instead of the nearest one."),
) -> None:
    """Rewrite files so their graph breaks stop Dynamo from skipping whole functions."""
    start = time.perf_counter()
    settings = resolve_settings(paths, select, ignore, exclude, unsafe_fixes, config=config)
    totals = Totals()
    files = collect(paths, settings, totals)
    write = not (dry_run or check)
    for result in run_batch(files, settings, jobs):
        if isinstance(result, Changed) and write:
            try:
                atomic_write(result.path, result.new)
            except OSError as exc:
                result = Failed(result.path, f"cannot write: {exc.strerror or exc}")
        totals.add(result)
        if isinstance(result, Failed):
            err(result.describe())
            continue
        if not quiet and not check:
            _notes(result, dry_run)
        if isinstance(result, Changed) and dry_run:
            old = result.old.decode(result.encoding)
            new = result.new.decode(result.encoding)
            sys.stdout.write(unified_diff(old, new, result.path))
            sys.stdout.flush()
    if not quiet:
        err(summary(totals, time.perf_counter() - start, "changed" if write else "would change"))
    if totals.errors:
        raise typer.Exit(EXIT_ERROR)
    if totals.changed and not write:
        raise typer.Exit(EXIT_FINDINGS)
    raise typer.Exit(EXIT_CLEAN)
