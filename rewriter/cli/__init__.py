"""The command line entry point: the typer app with every command registered.

Each command is a plain function in a module of its own, registered here.
A run imports only the module of the command it runs (as click's lazy
groups do), so `gbfix --version` and `gbfix rules` start without the
rules' analysis, libcst or torch; ``app`` (every command) is built on first use.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any, Optional, Sequence

import rewriter.cli.app  # noqa: F401 (see below)

# Importing the submodule of shared helpers bound its name on this package, and `app` here is
# the command line, built on first use by __getattr__.
del globals()["app"]

#: the commands, in the order ``gbfix --help`` lists them (the order a user meets them): name -> module
COMMANDS = ("apply", "scan", "verify", "explain", "advise", "record", "rules", "config")

__all__ = ["app", "build_app", "main"]


def build_app(names: Optional[Sequence[str]] = None) -> Any:
    """The typer app with the commands ``names`` (default: all) registered."""
    from rewriter.cli.app import Command, new_app

    app = new_app()
    for name in names or COMMANDS:
        module = importlib.import_module(f"rewriter.cli.{name}")
        app.command(cls=Command)(getattr(module, name))
    return app


_APP: Any = None


def __getattr__(name: str) -> Any:
    global _APP
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if _APP is None:
        _APP = build_app()
    return _APP


def main() -> None:
    argv = sys.argv[1:]
    if argv in (["--version"], ["-V"]):
        from rewriter import __version__

        print(f"gbfix {__version__}")
        return
    # Keep torch's own warnings and thread pools out of plain rewriting runs.
    os.environ.setdefault("PYTHONWARNINGS", "ignore::DeprecationWarning")
    command = argv[0] if argv and argv[0] in COMMANDS else None
    build_app([command] if command else None)(prog_name="gbfix")


if __name__ == "__main__":
    main()
