"""`gbfix explain`: run an entry under torch.compile and explain each graph break and skipped frame."""

from __future__ import annotations

import json
import sys

import typer

from rewriter.cli.app import err, require_stdout
from rewriter.engine.results import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS
from rewriter.runtime.explain import ExplainError, explain_file, render


def explain(
    file: str = typer.Argument(..., metavar="FILE", help="The file that defines (or is imported by) the entry."),
    entry: str = typer.Option(
        ...,
        "--entry",
        metavar="MODULE:ATTR",
        help="MODULE:ATTR to call: a function, an nn.Module instance, or an nn.Module class.",
    ),
    inputs: str = typer.Option(
        ..., "--inputs", metavar="MODULE:FN", help="MODULE:FN returning the tuple of arguments (may take `device`)."
    ),
    device: str = typer.Option("auto", "--device", metavar="DEVICE", help="auto (CUDA when available), cpu or cuda."),
    backend: str = typer.Option("eager", "--backend", metavar="BACKEND", help="eager, aot_eager or inductor."),
    as_json: bool = typer.Option(False, "--json", help="Print the explanation as JSON."),
    timeout: float = typer.Option(600.0, "--timeout", metavar="SECONDS", help="Seconds the run may take."),
) -> None:
    """Run an entry under torch.compile and list its graph breaks.

    Each break and skipped frame of the real run comes with the rule that fixes it.
    Exit 0 when no frame was skipped, 1 when some were, 2 on errors.
    """
    require_stdout("the report")
    try:
        explanation = explain_file(file, entry, inputs, device=device, backend=backend, timeout=timeout)
    except ExplainError as exc:
        if as_json:
            sys.stdout.write(json.dumps({"error": str(exc), "traceback": exc.traceback or None}, indent=2) + "\n")
        err(f"gbfix: error: {exc}")
        if exc.traceback:
            err(exc.traceback.rstrip("\n"))
        elif exc.log:
            err(exc.log.rstrip("\n"))
        raise typer.Exit(EXIT_ERROR) from None
    if as_json:
        sys.stdout.write(json.dumps(explanation.to_dict(), indent=2) + "\n")
    else:
        sys.stdout.write(render(explanation))
    sys.stdout.flush()
    skipped = explanation.skipped or (explanation.stats is not None and explanation.stats.frames_skipped)
    raise typer.Exit(EXIT_FINDINGS if skipped else EXIT_CLEAN) from None
