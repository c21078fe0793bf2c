"""The command line entry point: the typer app with every command registered.

Each command lives in its own ``cmd_*`` module; importing it registers it.
"""

from __future__ import annotations

import os

from rewriter import cmd_apply  # noqa: F401  (registers `gbfix apply`)
from rewriter import cmd_scan  # noqa: F401  (registers `gbfix scan`)
from rewriter import cmd_rules  # noqa: F401  (registers `gbfix rules`)
from rewriter import cmd_config  # noqa: F401  (registers `gbfix config`)
from rewriter import cmd_verify  # noqa: F401  (registers `gbfix verify`)
from rewriter import cmd_explain  # noqa: F401  (registers `gbfix explain`)
from rewriter.app import app

__all__ = ["app", "main"]


def main() -> None:
    # Keep torch's own warnings and thread pools out of plain rewriting runs.
    os.environ.setdefault("PYTHONWARNINGS", "ignore::DeprecationWarning")
    app()


if __name__ == "__main__":
    main()
