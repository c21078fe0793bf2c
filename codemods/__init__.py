"""gbfix rules: one module per rule, and the registry that maps codes to them.

Adding a rule touches its module, one line of ``REGISTRY``, its golden
files and one CHANGELOG line.
"""

from __future__ import annotations

from codemods.base import Example, Finding, Rule, RuleOptions
from codemods.compile_inner import CompileInner
from codemods.module_compile import ModuleCompile
from codemods.outline_loop import OutlineLoop
from codemods.split_try import SplitTry
from codemods.split_with import SplitWith
from codemods.third_party_forward import ThirdPartyForward
from codemods.unroll_loop import UnrollLoop

#: code -> rule class, in the order rules run on a file
REGISTRY: dict[str, type[Rule]] = {
    rule.CODE: rule
    for rule in (
        UnrollLoop,
        OutlineLoop,
        SplitWith,
        SplitTry,
        ModuleCompile,
        CompileInner,
        ThirdPartyForward,
    )
}

__all__ = ["REGISTRY", "Example", "Finding", "Rule", "RuleOptions"]
