"""The typer application and what every command shares.

Diffs and reports go to stdout; messages, notes and the summary line go to
stderr. Exit codes are defined in :mod:`rewriter.engine.results`.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any, List, Optional

import typer
from typer.core import TyperCommand

from rewriter import __version__
from rewriter.engine.diffs import display_path
from rewriter.engine.discovery import discover
from rewriter.engine.fileio import SourceError, read_stream
from rewriter.engine.results import EXIT_CLEAN, EXIT_ERROR, Totals

if TYPE_CHECKING:
    from rewriter.engine.config import Settings

# The rules and their analysis (libcst) are imported by the functions that need them:
# `gbfix --version` and `gbfix rules` start without them.

#: the path that means "read the source from stdin, write the result to stdout"
STDIN = "-"


class Command(TyperCommand):
    """Help that reads like other command-line tools': ``PATH...`` and ``[CODE]``.

    Typer labels arguments with their Python names and types (``{paths}...``,
    ``<list[str]>``), which tell a user nothing about what to type. Options
    keep Typer's records and name their values with a ``metavar``. Only
    click's documented command API is used: Typer ships click inside itself
    in some versions and depends on it in others.
    """

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        return pieces + [argument_label(p) for p in self.get_params(ctx) if p.param_type_name == "argument"]

    def format_options(self, ctx: Any, formatter: Any) -> None:
        params = self.get_params(ctx)
        arguments = [
            (argument_label(p), getattr(p, "help", None) or "") for p in params if p.param_type_name == "argument"
        ]
        options = [p.get_help_record(ctx) for p in params if p.param_type_name == "option"]
        if arguments:
            with formatter.section("Arguments"):
                formatter.write_dl(arguments)
        with formatter.section("Options"):
            formatter.write_dl([record for record in options if record is not None])


def argument_label(param: Any) -> str:
    """``PATH...`` for one or more, ``[CODE]`` for an optional one."""
    label = param.metavar or (param.name or "").upper()
    if param.nargs != 1:
        label += "..."
    return label if param.required else f"[{label}]"


def new_app() -> typer.Typer:
    """The root of the command line, with no command registered yet."""
    app = typer.Typer(
        name="gbfix",
        help="Rewrite PyTorch code so torch.compile stops skipping whole functions.",
        no_args_is_help=True,
        add_completion=False,
        # Plain help: rich markup would eat `[[tool.gbfix.verify]]` and other brackets.
        rich_markup_mode=None,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    app.callback()(_root)
    return app


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"gbfix {__version__}")
        raise typer.Exit(EXIT_CLEAN)


def _root(
    version: bool = typer.Option(
        False, "--version", "-V", callback=_show_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Rewrite PyTorch code so torch.compile stops skipping whole functions.

    `gbfix apply PATH --dry-run` shows the fixes as one patch.
    """


def err(message: str) -> None:
    typer.echo(message, err=True)


def require_stdout(what: str) -> None:
    """Exits 2 when the process was started with stdout closed (``>&-``) and ``what`` must go there."""
    if sys.stdout is None:
        err(f"gbfix: error: stdout is closed: nowhere to write {what}")
        raise typer.Exit(EXIT_ERROR)


def write_patch(patch: bytes) -> None:
    """A patch is bytes in each file's own encoding: they go to stdout unchanged."""
    sys.stdout.flush()
    stream = getattr(sys.stdout, "buffer", None)
    if stream is None:  # a text-only stdout (an embedding tool's): the closest text
        sys.stdout.write(patch.decode("utf-8", "replace"))
        sys.stdout.flush()
        return
    stream.write(patch)
    stream.flush()


def choose_format(value: str, choices: tuple[str, ...], option: str = "--format") -> str:
    """``--format`` (or another choice) in any case (``JSON`` is ``json``); exits 2 on an unknown one."""
    chosen = value.lower()
    if chosen not in choices:
        err(f"gbfix: error: {option} must be one of {', '.join(choices)}, not {value!r}")
        raise typer.Exit(EXIT_ERROR)
    return chosen


def stdin_name(paths: List[str], stdin_filename: Optional[str]) -> Optional[str]:
    """The name source read from stdin goes by, or None when the paths are files.

    ``-`` stands alone (as for black and ruff); ``--stdin-filename`` names the
    file an editor holds, so its pyproject.toml, excludes and messages apply.
    """
    if STDIN not in paths:
        if stdin_filename is not None:
            err("gbfix: error: --stdin-filename goes with `-` (source from stdin)")
            raise typer.Exit(EXIT_ERROR)
        return None
    if len(paths) > 1:
        err("gbfix: error: `-` (source from stdin) cannot be combined with other paths")
        raise typer.Exit(EXIT_ERROR)
    return stdin_filename or STDIN


def read_stdin(name: str) -> bytes:
    """The source on stdin, which ``name`` stands for; exits 2 when there is none or it is too large."""
    from rewriter.engine.report import error_line

    stream = getattr(sys.stdin, "buffer", None)
    where = display_path(name) if name != STDIN else STDIN
    if stream is None:  # started with stdin closed
        err(error_line(where, 0, "stdin is closed: no source to read"))
        raise typer.Exit(EXIT_ERROR)
    try:
        return read_stream(stream)
    except SourceError as exc:
        err(error_line(where, 0, str(exc)))
    except OSError as exc:
        err(error_line(where, 0, f"cannot read stdin: {exc.strerror or exc}"))
    raise typer.Exit(EXIT_ERROR)


STDIN_FILENAME_HELP = "With `-`: the path of the source read from stdin, for configuration, excludes and messages."


CACHE_DIR_HELP = (
    "Keep results between runs here (default: cache_dir of [tool.gbfix], else $XDG_CACHE_HOME/gbfix "
    "or the platform's cache directory)."
)
NO_CACHE_HELP = "Neither read nor write the cache of earlier runs' results."
COMPILED_HELP = (
    "A function your code compiles from outside the scanned files (Class.method, or FILE:Class.method, "
    "e.g. GenerationMixin.generate): what it calls runs under compile too. Repeatable."
)
EVIDENCE_HELP = (
    "The weakest evidence a fix is applied on: recorded (a --trace/--log run saw the frame break), "
    "entry (a torch.compile call or --compiled name of the scanned files reaches it), forward "
    "(reached only as a module's forward; the default), none (everything reported; the default "
    "with --reach all). Weaker findings are reported, not rewritten."
)
REACH_HELP = (
    "compiled (default): report and fix only code torch.compile runs: module forwards, functions passed "
    "to or decorated with torch.compile, and what they call, across the scanned files; all: everywhere."
)


def resolve_settings(
    paths: List[str],
    select: Optional[str],
    ignore: Optional[str],
    exclude: Optional[List[str]],
    unsafe_fixes: bool = False,
    report_only: bool = False,
    config: Optional[str] = None,
    reach: Optional[str] = None,
    compiled: Optional[List[str]] = None,
    cache_dir: Optional[str] = None,
    no_cache: bool = False,
    evidence: Optional[str] = None,
) -> Settings:
    """Settings from the nearest pyproject.toml, then the flags. Exits 2 on errors."""
    from codemods.analysis.reach import EVIDENCE_LEVELS, REACH_MODES
    from rewriter.engine.config import (
        ConfigError,
        check_compiled,
        check_exclude,
        load_settings,
        parse_codes,
        with_overrides,
    )

    try:
        check_exclude(exclude or (), "--exclude")
        check_compiled(compiled or (), "--compiled")
        settings = load_settings(paths[0] if paths else ".", pyproject=config)
        settings = with_overrides(
            settings,
            select=parse_codes([select], "--select") if select else None,
            ignore=parse_codes([ignore], "--ignore") if ignore else None,
            flag_exclude=tuple(exclude or ()),
            fix_mode="report" if report_only else ("unsafe" if unsafe_fixes else "safe"),
            reach=choose_format(reach, REACH_MODES, "--reach") if reach is not None else None,
            evidence=choose_format(evidence, EVIDENCE_LEVELS, "--evidence") if evidence is not None else None,
            compiled=settings.compiled + tuple(compiled or ()),
            cache_dir=os.path.abspath(cache_dir) if cache_dir else None,
            cache=False if no_cache else None,
        )
    except ConfigError as exc:
        err(f"gbfix: error: {exc}")
        raise typer.Exit(EXIT_ERROR) from None
    return settings


def collect(paths: List[str], settings: Settings, totals: Totals, force_exclude: bool = False) -> list[str]:
    """The files to process. ``force_exclude`` applies ``exclude`` to files named
    explicitly too (pre-commit names every file it passes)."""
    from rewriter.engine.report import error_line

    found = discover(paths, settings.exclusion())
    for path, reason in found.problems:
        err(error_line(display_path(path), 0, reason))
        totals.scanned += 1
        totals.errors += 1
    if force_exclude:
        excluded = settings.exclusion()
        return [f for f in found.files if not excluded.match(f)]
    return found.files


def check_jobs(jobs: int) -> int:
    """The ``-j`` callback: a negative count is a one-line usage error, not a traceback from the pool."""
    if jobs < 0:
        err(f"gbfix: error: -j/--jobs must be 0 (one per CPU) or more, not {jobs}")
        raise typer.Exit(EXIT_ERROR)
    return jobs


FORCE_EXCLUDE_HELP = "Apply exclude globs to files named on the command line too (for pre-commit)."


def summary(totals: Totals, seconds: float, outcome: str) -> str:
    """The last line of a run; ``outcome`` is what was found or done (``2 would change``)."""
    from rewriter.engine.report import plural

    return (
        f"gbfix: {plural(totals.scanned, 'file')} scanned ({totals.screened_out} screened out, "
        f"{totals.parsed} parsed), {outcome}, {plural(totals.errors, 'error')} in {seconds:.2f}s"
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
    from rewriter.engine.config import with_overrides
    from rewriter.runtime.recorded import (
        describe_placements,
        describe_unmatched,
        load_sites,
        load_skipped_frames,
        place_sites,
        place_skipped_frames,
        recorded_tensor_names,
        third_party_callables,
    )
    from rewriter.runtime.trace import TraceError

    if not (trace or log or all_logs):
        return settings
    try:
        sites = load_sites(trace, all_logs, log)
        skipped = load_skipped_frames(trace, all_logs)
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
    skips = dict(settings.recorded_skips)
    for path, frames in place_skipped_frames(skipped, files).items():
        skips[path] = skips.get(path, frozenset()) | frames
    tensors = dict(settings.recorded_tensors)
    for path, names in recorded_tensor_names(placements).items():
        merged = dict(tensors.get(path, {}))
        for key, found in names.items():
            merged[key] = merged.get(key, frozenset()) | found
        tensors[path] = merged
    return with_overrides(
        settings,
        recorded_breaks=recorded,
        recorded_skips=skips,
        recorded_tensors=tensors,
        recorded_third_party=settings.recorded_third_party | third_party_callables(sites),
    )
