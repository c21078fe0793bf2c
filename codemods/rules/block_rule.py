"""What the block rules (GBF003 ``with``, GBF004 ``try``) share.

Both find a block statement inside a function that holds a graph break,
and both have two fixes: split the block around the break (fast: nothing is
skipped afterwards, but not always behaviour-preserving) or outline the
whole block into a helper (always safe: only the helper is skipped). An
outline is not offered where the function runs no tensor op and no
comprehension outside the block: it would bring nothing into a graph. Of
nested blocks that break, the outermost is handled; statements already
moved into a gbfix helper are left where they are.
"""

from __future__ import annotations

from typing import Optional, Sequence, Union

import libcst as cst

from codemods.analysis.breaks.cst import BreakProvider, BreakSite
from codemods.analysis.helper_names import is_outlined
from codemods.analysis.names.scopes import NameScopeProvider, qualified_names
from codemods.analysis.nodes import NESTED_SCOPES, contains
from codemods.analysis.outline import (
    OutlineRefusal,
    build_outline,
    plan_outline,
    too_many_shared,
)
from codemods.fastcst import walk
from codemods.rules.base import FunctionScopedRule

Block = Union[cst.With, cst.Try]

_COMPREHENSIONS = walk.node_types(cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


class BlockRule(FunctionScopedRule):
    METADATA_DEPENDENCIES = (*FunctionScopedRule.METADATA_DEPENDENCIES, BreakProvider, NameScopeProvider)
    #: the helper name kind, ``with`` or ``try``
    KIND: str = ""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        #: per enclosing function: the block statements we are inside that break
        self.open_blocks: list[int] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        super().visit_FunctionDef(node)
        self.open_blocks.append(0)

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        self.open_blocks.pop()
        return super().leave_FunctionDef(original_node, updated_node)

    # -- analysis -------------------------------------------------------------
    def qualified_names(self, node: cst.CSTNode) -> set[str]:
        return qualified_names(self, node)

    def in_scope(self) -> Optional[cst.FunctionDef]:
        """The enclosing function, unless there is none or it is a gbfix helper."""
        func = self.enclosing
        if func is None or is_outlined(func.name.value):
            return None
        return func

    def enter_block(self, holds_break: bool) -> None:
        if self.open_blocks and holds_break:
            self.open_blocks[-1] += 1

    def leave_block(self, holds_break: bool) -> bool:
        """True when this block is the outermost breaking one of its function."""
        if not self.open_blocks or not holds_break:
            return bool(self.open_blocks)
        self.open_blocks[-1] -= 1
        return self.open_blocks[-1] == 0

    def outermost_now(self) -> bool:
        """Whether a breaking block entered now would be the outermost one (call before ``enter_block``)."""
        return bool(self.open_blocks) and self.open_blocks[-1] == 0

    def shield(self) -> None:
        """Start a part of a block that its fix leaves in the function (a split ``try``'s handlers).

        "The outermost breaking block is fixed" holds because outlining the
        outer one moves the inner ones into a helper, where they stay. A part
        the split keeps in place is not moved anywhere: a breaking block in it
        would be found again on a second run, so it is fixed in this one.
        """
        self.open_blocks.append(0)

    def unshield(self) -> None:
        self.open_blocks.pop()

    def suppressed(self, node: cst.CSTNode) -> bool:
        """Whether :meth:`report` would find ``node`` suppressed, without recording anything."""
        if not self.options.suppressions:
            return False
        lines = (self.line_of(node), *self._held_break_lines(node))
        return any(
            codes is not None and (not codes or self.CODE in codes)
            for codes in map(self.options.suppressions.get, lines)
        )

    def describe_break(self, func: cst.FunctionDef, sites: Sequence[BreakSite], where: str = "") -> str:
        """The finding's message: the break, the frame it skips and the inline tensor work lost there."""
        return self.skip_message(f"a `{self.KIND}` block", func, sites, where)

    def report_nothing_to_capture(self, original: Block, func: cst.FunctionDef, message: str) -> bool:
        """Report the block without a fix when ``func`` runs no tensor op of its own; True when so."""
        nothing = self.nothing_to_capture(func)
        if nothing:
            self.report(original, message, "none", note=nothing)
        return bool(nothing)

    def _captures_nothing_outside(self, block: Block, func: cst.FunctionDef) -> bool:
        """Whether ``func``'s own code outside ``block`` runs no tensor op and no comprehension (a
        frame of its own while ``func`` is skipped, which an outline brings back inline)."""
        if self.inline_ops(func) > self.inline_ops(func, within=block):
            return False

        def enter(node: cst.CSTNode) -> bool:
            return node is not block and type(node) not in NESTED_SCOPES

        return not any(type(node) in _COMPREHENSIONS for node in walk.descendants(func.body, enter=enter))

    # -- fixes ----------------------------------------------------------------
    def outline(
        self,
        original: Block,
        updated: Block,
        func: cst.FunctionDef,
        message: str,
        unsafe_alternative: str = "",
        note: str = "",
    ) -> Union[cst.BaseStatement, cst.FlattenSentinel[cst.BaseStatement]]:
        if self._captures_nothing_outside(original, func):
            nothing = (
                "nothing to capture by an outline: every tensor op of the function is in the block, "
                "which the helper would run eagerly, so nothing would come into a graph"
            )
            self.report(
                original,
                message,
                "none",
                note=f"{note}; {nothing}" if note else nothing,
                unsafe_alternative=unsafe_alternative,
            )
            return updated
        plan = plan_outline(original, func)
        if isinstance(plan, OutlineRefusal):
            refused = f"{note}; " if note else ""
            self.report(original, message, "none", note=f"{refused}not outlined: {plan.reason}")
            return updated
        crowded = too_many_shared(plan.nonlocals, f"the `{self.KIND}` block")
        if crowded:
            self.report(original, message, "none", note=f"{note}; {crowded}" if note else crowded)
            return updated
        if not self.report(original, message, "safe", note=note, unsafe_alternative=unsafe_alternative):
            return updated
        return cst.FlattenSentinel(build_outline(updated, plan, self.names.fresh(self.KIND)))


def split_index(body: Sequence[cst.BaseStatement], breaking: Sequence[BreakSite]) -> Optional[int]:
    """Index of the one top-level body statement holding every break, if it is simple.

    A split needs the break to be a statement of the block's own body, not
    buried in an ``if`` or a loop inside it.
    """
    holders = {i for i, stmt in enumerate(body) for site in breaking if contains(stmt, site.node)}
    if len(holders) != 1:
        return None
    index = holders.pop()
    return index if isinstance(body[index], cst.SimpleStatementLine) else None


def with_body(block: cst.BaseSuite, statements: Sequence[cst.BaseStatement]) -> cst.IndentedBlock:
    """``statements`` as a block indented like ``block``."""
    if isinstance(block, cst.IndentedBlock):
        return block.with_changes(body=list(statements))
    return cst.IndentedBlock(list(statements))
