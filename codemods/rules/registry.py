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
from codemods.rules.gbf009_hoist_invariant import HoistInvariant
from codemods.rules.gbf010_output_cause import OutputCause
from codemods.rules.gbf011_recorded_skip import RecordedSkipRule
from codemods.rules.gbf012_unresumable_break import UnresumableBreak
from codemods.rules.gbf013_comprehension_frame import ComprehensionFrame

#: code -> rule class, in the order rules run on a file: a rule runs on what the ones
#: before it made. GBF011 first, as it only reports: it reads the frames a run recorded
#: where the run saw them, before any fix moves them. GBF013 also only reports, on the code as written: the
#: comprehensions a skipped function runs as frames of their own. Then GBF012, whose fix
#: only spells a `not` as a call. Then GBF010: a break whose cause
#: it removes needs no structural fix (the rules below leave such breaks to it, and a
#: guarded call is no break). Then GBF009: a loop whose only breaks it reads once needs
#: nothing else; GBF001 before GBF002 (an unrolled loop is GBF002's no more); the loop
#: rules before the block rules (a block inside a loop moves with it).
REGISTRY: dict[str, type[Rule]] = {
    rule.CODE: rule
    for rule in (
        RecordedSkipRule,
        UnresumableBreak,
        ComprehensionFrame,
        OutputCause,
        HoistInvariant,
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
