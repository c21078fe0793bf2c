"""`gbfix advise`: run an entry once per candidate Dynamo setting and recommend only what the runs proved."""

from __future__ import annotations

import json
import os
import sys
from typing import List, Optional

import typer

from rewriter.cli.app import err, require_stdout, write_patch
from rewriter.engine.diffs import display_path, unified_diff
from rewriter.engine.fileio import FileChanged, SourceError, atomic_write, encode_source, read_source
from rewriter.engine.results import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS
from rewriter.runtime.advise import SETTINGS, Advice, AdviseError, check_written, gain, render, setting_lines
from rewriter.runtime.advise import advise as run_advice

#: the candidates' names, for --help
_NAMES = ", ".join(SETTINGS)


def advise(
    file: Optional[str] = typer.Argument(
        None,
        metavar="[FILE]",
        help="The file that compiles the entry: --write puts the winning setting before its torch.compile.",
    ),
    entry: str = typer.Option(
        ...,
        "--entry",
        metavar="MODULE:ATTR",
        help="MODULE:ATTR to call: a function, an nn.Module instance, or an nn.Module class.",
    ),
    inputs: str = typer.Option(
        ..., "--inputs", metavar="MODULE:FN", help="MODULE:FN returning the tuple of arguments (may take `device`)."
    ),
    candidates: Optional[List[str]] = typer.Option(
        None,
        "--candidate",
        metavar="NAME",
        help=f"Only this candidate (repeatable): a setting or settings joined by + ({_NAMES}).",
    ),
    every: bool = typer.Option(
        False, "--all", help="Run every candidate, even when the baseline has no break it acts on."
    ),
    trace: Optional[str] = typer.Option(
        None, "--trace", metavar="DIR", help="Take the baseline's breaks from a TORCH_TRACE run instead of running it."
    ),
    write: bool = typer.Option(False, "--write", help="Put the best recommended setting before FILE's torch.compile."),
    dry_run: bool = typer.Option(False, "--dry-run", help="With --write: print the change as a diff, write nothing."),
    device: str = typer.Option("auto", "--device", metavar="DEVICE", help="auto (CUDA when available), cpu or cuda."),
    backend: str = typer.Option("eager", "--backend", metavar="BACKEND", help="eager, aot_eager or inductor."),
    as_json: bool = typer.Option(False, "--json", help="Print the runs and the recommendation as JSON."),
    timeout: float = typer.Option(900.0, "--timeout", metavar="SECONDS", help="Seconds each run may take."),
) -> None:
    """Try Dynamo settings on an entry; recommend what runs proved.

    The entry runs as it is, then once per candidate setting (capture_scalar_outputs,
    capture_dynamic_output_shape_ops, the logging settings, nested_graph_breaks and
    combinations), each in a fresh process. A candidate is recommended only when it kept
    every output equal and raised graph coverage. Exit 0 when done (with --write --dry-run:
    1 when FILE would change), 2 on errors.
    """
    require_stdout("the report")
    if dry_run and not write:
        err("gbfix: error: --dry-run goes with --write")
        raise typer.Exit(EXIT_ERROR)
    try:
        advice = run_advice(
            entry,
            inputs,
            file=file,
            device=device,
            backend=backend,
            timeout=timeout,
            trace=trace,
            candidates=candidates,
            every=every,
        )
    except AdviseError as exc:
        err(f"gbfix: error: {exc}")
        if exc.traceback:
            err(exc.traceback.rstrip("\n"))
        elif exc.log:
            err(exc.log.rstrip("\n"))
        raise typer.Exit(EXIT_ERROR) from None
    sys.stdout.write(json.dumps(advice.to_dict(), indent=2) + "\n" if as_json else render(advice))
    sys.stdout.flush()
    if not write:
        raise typer.Exit(EXIT_CLEAN)
    raise typer.Exit(_write(advice, file or _entry_file(entry), dry_run))


def _write(advice: Advice, file: Optional[str], dry_run: bool) -> int:
    """Put the best recommendation before ``file``'s torch.compile; the exit code."""
    from codemods.analysis.compile_settings import insert_before_compile

    if not advice.recommended:
        err("gbfix: nothing to write: no setting was recommended")
        return EXIT_CLEAN
    best = advice.recommended[0]
    lines, imports = setting_lines(best.candidate, gain(best, advice.baseline))
    if file is None:
        err("gbfix: error: name the FILE that compiles the entry, to --write the setting into")
        return EXIT_ERROR
    if installed(file):
        # A process-wide setting in a library would change every program that imports it.
        err(f"gbfix: error: {display_path(file)} is installed library code; name your FILE that compiles the entry")
        return EXIT_ERROR
    try:
        source = read_source(file)
    except SourceError as exc:
        err(f"gbfix: error: {display_path(file)}: {exc}")
        return EXIT_ERROR
    new = insert_before_compile(source.text, lines, imports)
    if new is None:
        err(f"gbfix: error: {display_path(file)} has no torch.compile call; put these lines before yours:")
        # the names the lines use must resolve where the user puts them
        err("\n".join(f"    {line}" for line in [*(f"import {name}" for name in imports), *lines]))
        return EXIT_ERROR
    if new == source.text:
        err(f"gbfix: {display_path(file)} already makes the setting")
        return EXIT_CLEAN
    # The lines name what the runs' processes had; the file must have it too where they go.
    broken = check_written(advice.target, file, new, lines)
    if broken is not None:
        err(f"gbfix: error: {display_path(file)}: not written: with the setting it fails to import: {broken}")
        return EXIT_ERROR
    data = encode_source(new, source.encoding)
    if dry_run:
        write_patch(unified_diff(source.data, data, file))
        return EXIT_FINDINGS
    try:
        atomic_write(file, data, expected=source.stamp)
    except FileChanged as exc:
        err(f"gbfix: error: {display_path(file)}: {exc}")
        return EXIT_ERROR
    except OSError as exc:
        err(f"gbfix: error: {display_path(file)}: {exc.strerror or exc}")
        return EXIT_ERROR
    err(f"rewrote {display_path(file)}")
    return EXIT_CLEAN


def installed(path: str) -> bool:
    """Whether ``path`` is in an installed package or the standard library, not the user's own code."""
    import sysconfig

    real = os.path.realpath(path)
    if any(part in ("site-packages", "dist-packages") for part in real.split(os.sep)):
        return True
    paths = sysconfig.get_paths()
    roots = {os.path.realpath(paths[key]) for key in ("purelib", "platlib", "stdlib") if key in paths}
    return any(real.startswith(root + os.sep) for root in roots)


def _entry_file(entry: str) -> Optional[str]:
    """The file of the entry's module, found without importing it (None when it cannot be)."""
    import importlib.util

    module = entry.partition(":")[0]
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    origin = spec.origin if spec is not None else None
    return origin if origin and origin.endswith(".py") else None
