"""Loading and running the golden corpus: golden/<rule>/<case>.in.py [+ .out.py].

A case's first line may hold options: ``# golden: --unsafe-fixes --select GBF003``
(and ``--reentrant QUALNAME`` to list a re-entrant context manager, ``--reach
compiled`` to report only in code compiled code reaches). Without options a
case runs with only its folder's rule selected, on every function of the file
(``reach = "all"``): each case's ``ENTRY`` is compiled by the test, not by the file.
"""

from __future__ import annotations

import glob
import os
import shlex
import sys
from dataclasses import dataclass
from types import ModuleType
from typing import Optional

from rewriter.engine.config import Settings, parse_codes
from rewriter.engine.pipeline import transform_source

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(ROOT, "golden")


@dataclass(frozen=True)
class Case:
    rule: str
    name: str
    input_path: str

    @property
    def output_path(self) -> str:
        return self.input_path[: -len(".in.py")] + ".out.py"

    @property
    def expected(self) -> Optional[str]:
        if not os.path.exists(self.output_path):
            return None
        with open(self.output_path, encoding="utf-8") as handle:
            return handle.read()

    @property
    def source(self) -> str:
        with open(self.input_path, encoding="utf-8") as handle:
            return handle.read()

    def settings(self) -> Settings:
        first = self.source.splitlines()[0] if self.source else ""
        args = shlex.split(first.split("golden:", 1)[1]) if first.startswith("# golden:") else []
        select = (self.rule,)
        fix_mode = "safe"
        reentrant: tuple[str, ...] = Settings().reentrant_context_managers
        reach = "all"
        for i, arg in enumerate(args):
            if arg == "--unsafe-fixes":
                fix_mode = "unsafe"
            elif arg == "--reach":
                reach = args[i + 1]
            elif arg == "--select":
                select = parse_codes([args[i + 1]], "golden options")
            elif arg == "--reentrant":
                reentrant = (*reentrant, args[i + 1])
        return Settings(  # type: ignore[arg-type]
            select=select, fix_mode=fix_mode, reentrant_context_managers=reentrant, reach=reach
        )

    def __str__(self) -> str:
        return f"{self.rule}/{self.name}"


def cases() -> list[Case]:
    found = []
    for path in sorted(glob.glob(os.path.join(GOLDEN, "*", "*.in.py"))):
        rule = os.path.basename(os.path.dirname(path))
        name = os.path.basename(path)[: -len(".in.py")]
        found.append(Case(rule, name, path))
    return found


def rewrite(case: Case, text: Optional[str] = None) -> str:
    source = case.source if text is None else text
    outcome = transform_source(source, case.input_path, case.settings())
    return source if outcome.new_text is None else outcome.new_text


def load(path: str, source: str, tag: str) -> ModuleType:
    """Import ``source`` as a fresh module whose code objects name ``path``."""
    name = f"golden_{tag}_{abs(hash((path, source)))}"
    module = ModuleType(name)
    module.__file__ = path
    sys.modules[name] = module
    exec(compile(source, path, "exec"), module.__dict__)
    return module
