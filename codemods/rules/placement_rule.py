"""What the placement rules (GBF005, GBF006, GBF007) share.

Each reads the whole module first, where the metadata is: it makes its
findings and plans its edits of whole statement lines (``StatementEdits``).
The edits are applied while the transformer leaves each line. A module with
nothing to edit (every finding reported only, or none) is not walked at all:
libcst rebuilds every node it walks, and that walk would change nothing.
"""

from __future__ import annotations

import libcst as cst

from codemods.analysis.module_evidence import EVIDENCE_METADATA, ModuleFacts
from codemods.analysis.statement_edits import Replacement, StatementEdits
from codemods.fastcst.positions import LazyPositionProvider
from codemods.rules.base import Rule


class PlacementRule(Rule):
    METADATA_DEPENDENCIES = (LazyPositionProvider, *EVIDENCE_METADATA)

    def plan_module(self, module: cst.Module) -> None:
        """Report this rule's findings in ``module`` and plan the fixes in ``self.edits``."""
        raise NotImplementedError

    def transform(self, tree: cst.Module) -> cst.Module:
        self.edits = StatementEdits()
        self.facts = ModuleFacts(tree, self.get_metadata)
        self.plan_module(tree)
        return tree.visit(self) if self.edits else tree

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> Replacement:
        return self.edits.apply(original_node, updated_node)
