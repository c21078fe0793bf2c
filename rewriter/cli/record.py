"""`gbfix record`: run a program with TORCH_TRACE set, for `apply --trace` to read its graph breaks."""

from __future__ import annotations

import os
import subprocess
from typing import List

import typer

from rewriter.cli.app import err
from rewriter.engine.results import EXIT_ERROR


def record(
    program: List[str] = typer.Argument(
        ..., metavar="-- PROGRAM [ARGS]", help="The command to run, after `--` (`python train.py --steps 10`)."
    ),
    output: str = typer.Option(..., "-o", "--output", metavar="DIR", help="Directory the trace logs go to."),
) -> None:
    """Run a program with trace logging on, for apply --trace.

    The program's output and exit code pass through; then the command that
    applies the fixes for the breaks it recorded is printed.
    """
    directory = os.path.abspath(output)
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as exc:
        err(f"gbfix: error: cannot create {output}: {exc.strerror}")
        raise typer.Exit(EXIT_ERROR) from None
    try:
        code = subprocess.call(program, env=dict(os.environ, TORCH_TRACE=directory))
    except OSError as exc:
        err(f"gbfix: error: cannot run {program[0]}: {exc.strerror}")
        raise typer.Exit(EXIT_ERROR) from None
    if not any(name.endswith(".log") for name in os.listdir(directory)):
        # torch writes the log when the first frame is compiled: `apply --trace` would find nothing
        nothing = "no torch.compile call ran (the exit code is the program's)"
        err(f"gbfix: the run wrote no trace log to {output}: {nothing}")
        raise typer.Exit(code)
    err(f"gbfix: recorded the run's graph breaks in {output}; next: gbfix apply PATH --trace {output} --dry-run")
    raise typer.Exit(code)
