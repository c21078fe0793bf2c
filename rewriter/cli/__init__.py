"""The command line entry point: the typer app with every command registered.

Each command is a plain function in a module of its own, registered here.
"""

from __future__ import annotations

import os

from rewriter.cli import apply, config, explain, rules, scan, verify
from rewriter.cli.app import app

#: the commands, in the order ``gbfix --help`` lists them
COMMANDS = (verify.verify, apply.apply, scan.scan, rules.rules, config.config, explain.explain)
for _command in COMMANDS:
    app.command()(_command)

__all__ = ["app", "main"]


def main() -> None:
    # Keep torch's own warnings and thread pools out of plain rewriting runs.
    os.environ.setdefault("PYTHONWARNINGS", "ignore::DeprecationWarning")
    app()


if __name__ == "__main__":
    main()
