"""The typer application and what every command shares.

Diffs and reports go to stdout; messages, notes and the summary line go to
stderr. Exit codes are defined in :mod:`rewriter.engine.results`.
"""

from __future__ import annotations

from typing import List, Optional

import typer

from rewriter.engine.config import (
    ConfigError,
    Settings,
    check_exclude,
    load_settings,
    parse_codes,
    with_overrides,
)
from rewriter.engine.diffs import display_path
from rewriter.engine.discovery import discover, gitignore_spec
from rewriter.engine.results import EXIT_ERROR, Totals

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
        check_exclude(exclude or (), "--exclude")
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
        raise typer.Exit(EXIT_ERROR) from None
    return settings


def collect(paths: List[str], settings: Settings, totals: Totals, force_exclude: bool = False) -> list[str]:
    """The files to process. ``force_exclude`` applies ``exclude`` to files named
    explicitly too (pre-commit names every file it passes)."""
    found = discover(paths, settings.exclude)
    for path, reason in found.problems:
        err(f"{path}: error: {reason}")
        totals.scanned += 1
        totals.errors += 1
    if force_exclude and settings.exclude:
        spec = gitignore_spec(settings.exclude)
        return [f for f in found.files if not spec.match_file(display_path(f))]
    return found.files


def check_jobs(jobs: int) -> int:
    """The ``-j`` callback: a negative count is a one-line usage error, not a traceback from the pool."""
    if jobs < 0:
        err(f"gbfix: error: -j/--jobs must be 0 (one per CPU) or more, not {jobs}")
        raise typer.Exit(EXIT_ERROR)
    return jobs


FORCE_EXCLUDE_HELP = "Apply exclude globs to files named on the command line too (for pre-commit)."


def summary(totals: Totals, seconds: float, verb: str) -> str:
    return (
        f"gbfix: {totals.scanned} files scanned ({totals.screened_out} screened out, "
        f"{totals.parsed} parsed), {totals.changed} {verb}, {totals.errors} errors "
        f"in {seconds:.2f}s"
    )


def with_recorded_breaks(
    settings: Settings,
    files: List[str],
    trace: Optional[str],
    all_logs: bool,
    log: Optional[str],
    quiet: bool = False,
) -> Settings:
    """``--trace``/``--log``: the breaks a real run recorded, placed in ``files``. Exits 2 on errors."""
    from rewriter.runtime.recorded import (
        describe_placements,
        describe_unmatched,
        load_sites,
        place_sites,
        third_party_callables,
    )
    from rewriter.runtime.trace import TraceError

    if not (trace or log or all_logs):
        return settings
    try:
        sites = load_sites(trace, all_logs, log)
    except TraceError as exc:
        err(f"gbfix: error: {exc}")
        raise typer.Exit(EXIT_ERROR) from None
    placements = place_sites(sites, files)
    if not quiet:
        for site, why in placements.unmatched:
            err(f"gbfix: {describe_unmatched(site, why)}")
        err(describe_placements(placements, len(sites)))
    recorded = dict(settings.recorded_breaks)
    for path, lines in placements.recorded_breaks().items():
        recorded[path] = recorded.get(path, frozenset()) | lines
    return with_overrides(
        settings,
        recorded_breaks=recorded,
        recorded_third_party=settings.recorded_third_party | third_party_callables(sites),
    )
