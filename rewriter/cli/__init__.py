"""The command line entry point: the typer app with every command registered.

Each command is a plain function in a module of its own, registered here.
"""

from __future__ import annotations

import os

from rewriter.cli import advise, apply, config, explain, record, rules, scan, verify
from rewriter.cli.app import Command, app

#: the commands, in the order ``gbfix --help`` lists them: the order a user meets them
COMMANDS = (
    apply.apply,
    scan.scan,
    verify.verify,
    explain.explain,
    advise.advise,
    record.record,
    rules.rules,
    config.config,
)
for _command in COMMANDS:
    app.command(cls=Command)(_command)

__all__ = ["app", "main"]


def main() -> None:
    # Keep torch's own warnings and thread pools out of plain rewriting runs.
    os.environ.setdefault("PYTHONWARNINGS", "ignore::DeprecationWarning")
    app(prog_name="gbfix")


if __name__ == "__main__":
    main()
