"""What the placement rules (GBF005, GBF006, GBF007) share.

Each reads the whole module first, where the metadata is: it makes its
findings and plans its edits of whole statement lines (``StatementEdits``).
The edits are applied while the transformer leaves each line. A module with
nothing to edit (every finding reported only, or none) is not walked at all:
libcst rebuilds every node it walks, and that walk would change nothing.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ScopeProvider

from codemods.analysis.module_evidence import EVIDENCE_METADATA, ModuleFacts
from codemods.analysis.statement_edits import Replacement, StatementEdits
from codemods.fastcst.positions import LazyPositionProvider
from codemods.rules.base import Rule


class PlacementRule(Rule):
    #: where ``torch.compile`` goes is advice: no graph break is behind these findings
    ADVICE = True
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

    def shared_reference(
        self, obj: cst.BaseExpression, line: cst.SimpleStatementLine, shown: str, after: bool = False
    ) -> str:
        """Why another reference to the module ``obj`` may exist, which `.compile()` in place on
        ``line`` would compile too (``torch.compile`` left it alone), or why a use of it would stop
        running compiled; "" when the function shows none: ``obj`` is built right there, or a name
        it binds, used before ``line`` only as a receiver or a callee (``model.eval()``,
        ``model(x)``), never handed on (``teacher = model``), its ``forward`` never called directly.
        ``after``: a use that may run after ``line`` counts too (a later line, any use in a loop
        around it or in another scope), as the name still holds the plain module there."""
        base = obj
        while isinstance(base, cst.Call) and isinstance(base.func, cst.Attribute):
            base = base.func.value  # `Net().eval()`: the module `Net()` builds
        if isinstance(base, cst.Call):
            return ""  # built right here: nothing else holds it
        if not isinstance(obj, cst.Name):
            return f"`{shown}` is not a plain name: another one may hold the same module, which would run compiled too"
        scope = self.get_metadata(ScopeProvider, obj, None)
        if scope is None or obj not in scope.accesses:
            return f"`{shown}` may be held elsewhere too, which would run compiled too"
        here, in_loop = self.line_of(line), self.in_loop(line)
        for access in scope.accesses[obj]:
            for assignment in access.referents:
                if isinstance(getattr(assignment, "node", None), cst.Param):
                    return f"`{shown}` is a parameter: the caller's module would be compiled too"
                if not isinstance(getattr(assignment, "node", None), cst.Name):
                    return f"`{shown}` may be held elsewhere too, which would run compiled too"
                for other in assignment.references:
                    node = other.node
                    parent = self.facts.parent(node)
                    receiver = isinstance(parent, cst.Attribute) and parent.value is node
                    if receiver and parent.attr.value == "forward":  # type: ignore[union-attr]
                        return f"`{shown}.forward` is called directly, which runs compiled only through the wrapper"
                    if self.facts.statement_of(node) is line:
                        continue
                    if after and (in_loop or other.scope is not scope or self.line_of(node) >= here):
                        return f"`{shown}` is also used elsewhere and would run compiled too"
                    if self.line_of(node) > here and not in_loop:
                        continue  # after the line the name is the compiled module either way
                    if receiver or (isinstance(parent, cst.Call) and parent.func is node):
                        continue  # `model.eval()`, `model(x)`: used, not handed on
                    return f"`{shown}` is handed on elsewhere (an alias, an argument), which would run compiled too"
        return ""

    def in_loop(self, node: cst.CSTNode) -> bool:
        current = self.facts.parent(node)
        while current is not None and not isinstance(current, (cst.FunctionDef, cst.Module, cst.ClassDef)):
            if isinstance(current, (cst.For, cst.While)):
                return True
            current = self.facts.parent(current)
        return False
