"""What the loop rules (GBF001 unroll, GBF002 body per trip) share: which loops skip, and what a fix captures.

A loop needs a fix when a graph break inside it makes Dynamo skip the frame:
a break-inducing call in the body (or in a ``while`` condition, evaluated on
every trip), not followed by a ``return`` that would stop Dynamo's search
for the loop's backward jump.

A fix is worth making only when the skipped frame runs tensor work of its
own: the modules and functions it calls compile as frames of their own
whether it is skipped or not. A function with no inline tensor op
(:mod:`codemods.analysis.tensors.cst`) is reported as having nothing to capture
and left as it is.
"""

from __future__ import annotations

from typing import Optional, Union

import libcst as cst

from codemods.analysis.breaks.cst import (
    BreakProvider,
    BreakSite,
    sites_that_skip,
)
from codemods.analysis.hoist import HoistPlan, HoistRefusal, loop_parts, loop_runs_once_at_least, plan_hoist
from codemods.analysis.unroll import ModuleConstantsProvider
from codemods.rules.base import FunctionScopedRule

Loop = Union[cst.For, cst.While]


class LoopRule(FunctionScopedRule):
    METADATA_DEPENDENCIES = (*FunctionScopedRule.METADATA_DEPENDENCIES, BreakProvider, ModuleConstantsProvider)

    def visit_Module(self, node: cst.Module) -> None:
        super().visit_Module(node)
        self.constants = self.get_metadata(ModuleConstantsProvider, node)

    def constant(self, expr: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        """The literal a name read in the current function always stands for (a module constant)."""
        return self.constants.value(expr, [f for f in self.functions if f is not None])

    def hoist_plan(self, loop: Loop, sites: list[BreakSite]) -> Union[HoistPlan, HoistRefusal]:
        """How GBF009 reads the loop's breaks once before it (a refusal when some break is not such a read)."""
        parts, bound = loop_parts(loop)
        once = loop_runs_once_at_least(loop, self.constant)
        return plan_hoist(parts, [(s.node, s.reason) for s in sites], bound, once, self.enclosing)

    def hoisted_by_gbf009(self, loop: Loop, sites: list[BreakSite]) -> bool:
        """Whether GBF009, active in this run, removes every break of ``loop`` by reading values once."""
        if not self.defers_to("GBF009"):
            return False
        plan = self.hoist_plan(loop, sites)
        return isinstance(plan, HoistPlan) and (not plan.unsafe or self.options.fix_mode == "unsafe")

    def skipping_breaks(self, loop: Loop) -> list[BreakSite]:
        """Break sites in ``loop`` (an original node) that make the frame skip."""
        parts: list[cst.CSTNode] = [loop.body]
        if isinstance(loop, cst.While):
            parts.append(loop.test)
        return sites_that_skip([loop.body], self.breaks_in(parts), self.start_of)

    def describe_break(self, func: cst.FunctionDef, sites: list[BreakSite]) -> str:
        return self.skip_message("a loop", func, sites)
