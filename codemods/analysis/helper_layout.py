"""Blank lines around the helpers a rewrite defines, as a formatter would put them.

A nested ``def`` reads as a unit of its own when a blank line sets it off
from what comes before and after (pycodestyle's E306 asks for the first).
Only the helpers gbfix defines and the statement right after each one are
touched; a helper that opens its block gets no blank line above it.
"""

from __future__ import annotations

import libcst as cst

from codemods.analysis.names.bindings import is_generated
from codemods.fastcst import walk


def _is_helper(stmt: cst.BaseStatement) -> bool:
    return type(stmt) is cst.FunctionDef and is_generated(stmt.name.value)


def _spaced(stmt: cst.BaseStatement) -> cst.BaseStatement:
    """``stmt`` with one empty line above it, unless it has one (or a comment line) already."""
    lines = getattr(stmt, "leading_lines", ())
    if lines:
        return stmt
    return stmt.with_changes(leading_lines=[cst.EmptyLine(indent=False)])


def space_helpers(body: list[cst.BaseStatement]) -> list[cst.BaseStatement]:
    """``body`` (a block's statements) with generated helper definitions set off by blank lines."""
    out = list(body)
    for index, stmt in enumerate(body):
        if not _is_helper(stmt):
            continue
        if index > 0:
            out[index] = _spaced(out[index])
        if index + 1 < len(out) and not _is_helper(body[index + 1]):
            out[index + 1] = _spaced(out[index + 1])
    return out


class SpaceHelpers(cst.CSTTransformer):
    """Applies :func:`space_helpers` to every block that defines a generated helper."""

    def __init__(self) -> None:
        super().__init__()
        self._holders: set[int] = set()

    def visit_Module(self, node: cst.Module) -> None:
        _blocks_with_helpers(node, self._holders)

    def on_visit(self, node: cst.CSTNode) -> bool:
        # Only what leads to a helper is entered (and rebuilt by libcst).
        return super().on_visit(node) and id(node) in self._holders

    def leave_IndentedBlock(
        self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        if id(original_node) not in self._holders:
            return updated_node
        body = space_helpers(list(updated_node.body))
        if all(a is b for a, b in zip(body, updated_node.body, strict=True)):
            return updated_node
        return updated_node.with_changes(body=body)


def _blocks_with_helpers(node: cst.CSTNode, found: set[int]) -> bool:
    """Whether a generated helper is defined somewhere under ``node``; the ids of ``node`` and of
    the statement holders under it for which that is so go into ``found``."""
    holds = False
    for child in walk.children(node):
        if type(child) is cst.FunctionDef and is_generated(child.name.value):
            holds = True
            _blocks_with_helpers(child, found)
        elif type(child) in walk.STATEMENT_HOLDERS and _blocks_with_helpers(child, found):
            holds = True
    if holds:
        found.add(id(node))
    return holds
