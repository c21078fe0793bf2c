"""What the loop rules (GBF001 unroll, GBF002 outline) share: which loops skip.

A loop needs a fix when a graph break inside it makes Dynamo skip the frame:
a break-inducing call in the body (or in a ``while`` condition, evaluated on
every trip), not followed by a ``return`` that would stop Dynamo's search
for the loop's backward jump.
"""

from __future__ import annotations

from typing import Optional, Union

import libcst as cst

from codemods.analysis.breaks import (
    BreakProvider,
    BreakSite,
    find_breaks,
    sites_that_skip,
)
from codemods.analysis.unroll import ModuleConstants
from codemods.fastcst.positions import LazyPositionProvider
from codemods.rules.base import FunctionScopedRule

Loop = Union[cst.For, cst.While]


class LoopRule(FunctionScopedRule):
    METADATA_DEPENDENCIES = (LazyPositionProvider, BreakProvider)

    def visit_Module(self, node: cst.Module) -> None:
        super().visit_Module(node)
        self.constants = ModuleConstants(node)

    def constant(self, expr: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        """The literal a name read in the current function always stands for (a module constant)."""
        return self.constants.value(expr, [f for f in self.functions if f is not None])

    def _start(self, node: cst.CSTNode) -> tuple[int, int]:
        pos = self.get_metadata(LazyPositionProvider, node).start
        return (pos.line, pos.column)

    def skipping_breaks(self, loop: Loop) -> list[BreakSite]:
        """Break sites in ``loop`` (an original node) that make the frame skip."""
        parts: list[cst.CSTNode] = [loop.body]
        if isinstance(loop, cst.While):
            parts.append(loop.test)
        sites = find_breaks(
            parts,
            self.lookup,
            self.line_of,
            self.options.recorded_break_lines,
        )
        return sites_that_skip([loop.body], sites, self._start)

    def describe_break(self, func: cst.FunctionDef, sites: list[BreakSite]) -> str:
        where = f"{sites[0].reason.describe()}, line {self.line_of(sites[0].node)}"
        return f"graph break inside a loop ({where}) makes Dynamo skip `{func.name.value}`"
