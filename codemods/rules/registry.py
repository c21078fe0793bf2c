"""gbfix rules: one module per rule, and the registry that maps codes to them.

Adding a rule touches its module, one line of ``REGISTRY``, its golden
files and one CHANGELOG line.
"""

from __future__ import annotations

from codemods.rules.base import Example, Finding, Rule, RuleOptions
from codemods.rules.gbf001_unroll_loop import UnrollLoop
from codemods.rules.gbf002_outline_loop import OutlineLoop
from codemods.rules.gbf003_split_with import SplitWith
from codemods.rules.gbf004_split_try import SplitTry
from codemods.rules.gbf005_module_compile import ModuleCompile
from codemods.rules.gbf006_compile_inner import CompileInner
from codemods.rules.gbf007_third_party_forward import ThirdPartyForward

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
