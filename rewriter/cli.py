"""The command line: parses options, calls the core, prints.

Diffs and reports go to stdout; messages, notes and the summary line go to
stderr. Exit codes are defined in :mod:`rewriter.results`.
"""

from __future__ import annotations

import os
import sys
import time
from typing import List, Optional

import typer

from rewriter.batch import run_batch
from rewriter.config import ConfigError, Settings, load_settings, parse_codes, with_overrides
from rewriter.diffs import display_path, unified_diff
from rewriter.discovery import discover
from rewriter.fileio import atomic_write
from rewriter.results import (
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    Changed,
    Failed,
    FileResult,
    Totals,
)

app = typer.Typer(
    name="gbfix",
    help="Rewrite PyTorch code so torch.compile stops skipping whole functions.",
    no_args_is_help=True,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback()
def _root() -> None:
    """Rewrite PyTorch code so torch.compile stops skipping whole functions.

    `gbfix apply PATH --dry-run` shows the fixes as one patch.
    """


def err(message: str) -> None:
    typer.echo(message, err=True)


def resolve_settings(
    paths: List[str],
    select: Optional[str],
    ignore: Optional[str],
    exclude: Optional[List[str]],
    unsafe_fixes: bool = False,
    report_only: bool = False,
    config: Optional[str] = None,
) -> Settings:
    """Settings from the nearest pyproject.toml, then the flags. Exits 2 on errors."""
    try:
        settings = load_settings(paths[0] if paths else ".", pyproject=config)
        settings = with_overrides(
            settings,
            select=parse_codes([select], "--select") if select else None,
            ignore=parse_codes([ignore], "--ignore") if ignore else None,
            exclude=settings.exclude + tuple(exclude or ()),
            fix_mode="report" if report_only else ("unsafe" if unsafe_fixes else "safe"),
        )
    except ConfigError as exc:
        err(f"gbfix: error: {exc}")
        raise typer.Exit(EXIT_ERROR)
    return settings


def collect(paths: List[str], settings: Settings, totals: Totals) -> list[str]:
    found = discover(paths, settings.exclude)
    for path, reason in found.problems:
        err(f"{path}: error: {reason}")
        totals.scanned += 1
        totals.errors += 1
    return found.files


def summary(totals: Totals, seconds: float, verb: str) -> str:
    return (
        f"gbfix: {totals.scanned} files scanned ({totals.screened_out} screened out, "
        f"{totals.parsed} parsed), {totals.changed} {verb}, {totals.errors} errors "
        f"in {seconds:.2f}s"
    )


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


def main() -> None:
    # Keep torch's own warnings and thread pools out of plain rewriting runs.
    os.environ.setdefault("PYTHONWARNINGS", "ignore::DeprecationWarning")
    app()


if __name__ == "__main__":
    main()
