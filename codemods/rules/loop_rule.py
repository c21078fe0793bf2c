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
from codemods.analysis.causes import branch_holding
from codemods.analysis.hoist import HoistPlan, HoistRefusal, loop_parts, loop_runs_once_at_least, plan_hoist
from codemods.analysis.host_loops import host_results
from codemods.analysis.nodes import body_statements, dotted_name
from codemods.analysis.unroll import ModuleConstantsProvider
from codemods.rules.base import FunctionScopedRule

Loop = Union[cst.For, cst.While]


#: how a note names the catalogue's output families
_OUTPUT_KIND = {"print": "`print`", "warn": "`warnings.warn`", "logging": "logging", "logger": "logging"}


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

    def host_results_note(self, loop: Loop, func: cst.FunctionDef, sites: list[BreakSite]) -> str:
        """Why ``loop`` is left eager as host work, judged by what it computes
        (:func:`codemods.analysis.host_loops.host_results`), or "": a loop that reads the device
        (some break is no output call) and whose results are all Python values."""
        if all(site.reason.cause for site in sites):
            # It only prints or logs: no bookkeeping of device values, and what a fix brings into
            # graphs is the work around it.
            return ""
        results = host_results(loop, func, self.tensor_facts(func))
        if not results:
            return ""
        return (
            f"host work: the loop computes {results}, bookkeeping on the host; a frame per trip "
            "would capture only ops whose results leave the graph at once: leave it eager "
            f"(`@torch.compiler.disable` on `{func.name.value}` says so and saves its compile)"
        )

    def smaller_fix_note(self, loop: Loop, sites: list[BreakSite]) -> str:
        """Why the loop is not restructured when its only breaks are output calls on rare paths
        (each under an ``if`` of the body) that GBF010 removes with its one-line guard, or calls of
        functions whose only breaks are such calls (:meth:`_callee_output_note`), or ""."""
        if not sites or not self.defers_to("GBF010"):
            return ""
        if all(site.reason.via for site in sites):
            return self._callee_output_note(loop, sites)
        branches: list[cst.If] = []
        for site in sites:
            if not site.reason.cause or site.reason.via or self.suppressed_for("GBF010", site.node):
                return ""
            fix = self.cause_analysis().fix_for(site.node)
            branch = branch_holding(loop.body, site.node)
            if fix is None or fix.form is None or branch is None:
                return ""
            branches.append(branch)
        calls = sorted({f"`{dotted_name(site.node.func)}()`" for site in sites if isinstance(site.node, cst.Call)})
        lines = ", ".join(str(self.line_of(branch)) for branch in branches)
        statements = len(body_statements(loop.body))
        return (
            f"not restructured: the only break is {' and '.join(calls)} on a rare path (under the `if` "
            f"at line {lines}); GBF010's one-line fix there removes it (`--unsafe-fixes` for a guard), "
            f"where restructuring would move the loop's {statements} statement"
            f"{'s' if statements != 1 else ''} into helpers for a call that seldom runs"
        )

    def _callee_output_note(self, loop: Loop, sites: list[BreakSite]) -> str:
        """The note for a loop whose breaks are all calls of functions in other files whose only
        breaks are output calls in branches of their ``if`` statements
        (:attr:`~codemods.analysis.reach.ExternalBreak.rare_output`), or "": a one-line guard at
        that output call is the fix, made in the callee's file."""
        if not all(site.reason.cause and site.reason.at for site in sites):
            return ""
        callees = sorted({f"`{site.reason.via.split(' → ')[0].rpartition(':')[2]}`" for site in sites})
        places = sorted({site.reason.at for site in sites})
        kinds = sorted({_OUTPUT_KIND.get(site.reason.cause, site.reason.cause) for site in sites})
        statements = len(body_statements(loop.body))
        return (
            f"not restructured: the only break is a {' or '.join(kinds)} call on a rare path of "
            f"{' and '.join(callees)} (under an `if` at {', '.join(places)}); a one-line guard there, "
            "`if not torch.compiler.is_compiling():` as GBF010 writes it, removes it, where restructuring would "
            f"move the loop's {statements} statement{'s' if statements != 1 else ''} into helpers for a call "
            "that seldom runs"
        )
