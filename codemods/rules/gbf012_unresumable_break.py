"""GBF012 unresumable-break: a graph break Dynamo cannot resume after, even with no loop around it.

What it finds
    In a function compiled code reaches:

    * ``not`` of a tensor's ``.any()`` or ``.all()`` used as a value
      (``has = ids is not None and not (ids < 0).any()``, ``return not
      mask.all()``), not as the test of an ``if``, ``while``, ``assert`` or
      ternary;
    * a call of a ``self`` attribute the class assigns an ``nn.LSTM``,
      ``nn.GRU`` or ``nn.RNN``.

Why it skips the frame
    Dynamo resumes after a graph break only at a call or a conditional jump.
    ``not`` used as a value is an instruction of its own (``UNARY_NOT``);
    reading a tensor's truth there is a break Dynamo cannot resume after, so
    it gives up on the frame, or on the rest of it from the last point it
    could resume at (measured on torch 2.13, Python 3.11: ``a = x * 2; has =
    not (y < 0).any(); return a + 1``: the frame skipped, 0 of 5 ops in
    graphs; as ``not bool(...)``: 2 graphs, 4 of 5 ops). A test needs no
    fix: Python folds ``not`` into the jump. Dynamo refuses to trace a
    recurrent module at all and skips the frame that calls one; its callers
    compile, as for them the break is at a call.

Example
    def keep(scores, ids):
        scores = scores.softmax(-1)
        valid = ids is not None and not (ids < 0).any()
        return scores * 2 if valid else scores

Rewritten
    def keep(scores, ids):
        scores = scores.softmax(-1)
        valid = ids is not None and not bool((ids < 0).any())
        return scores * 2 if valid else scores

Fix safety
    Safe for ``not``: Python evaluates ``not x`` as ``not bool(x)``, so the
    value and its exceptions are the same, eagerly and compiled; the rewrite
    is refused where the file binds the name ``bool`` to something else, or
    has a star import, which may bind it (``from torch import *`` binds it
    to the dtype ``torch.bool``).
    A ``not`` inside a loop, ``with`` or ``try`` is rewritten too: the frame
    is skipped there whatever the instruction, until GBF001-GBF004 move the
    block's body into a helper of its own, where the rewrite lets Dynamo
    resume (the loop rules read such a ``not`` as a break of the loop, so
    leaving it would make a second run rewrite the helper). A recurrent
    module's call is only reported: no rewrite makes Dynamo trace it.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst
from libcst.codemod import CodemodContext

from codemods.analysis.frame_use import coroutine_refusal
from codemods.analysis.names.bindings import rebinding
from codemods.analysis.nodes import dotted_name
from codemods.analysis.tensors.cst import FunctionTensorsProvider
from codemods.analysis.unresumable import SCREEN_PATTERN, SCREEN_WORDS, Unresumable, unresumable_sites
from codemods.rules.base import Example, FunctionScopedRule, Prefilter, RuleOptions


class UnresumableBreak(FunctionScopedRule):
    CODE = "GBF012"
    NAME = "unresumable-break"
    SUMMARY = (
        "a graph break Dynamo cannot resume after, even outside loops: `not` of a tensor as a value, an RNN module"
    )
    PREFILTER = Prefilter(words=SCREEN_WORDS, needs_break=False, pattern=SCREEN_PATTERN)
    EXAMPLES = (
        Example(
            before=(
                "import torch\n"
                "\n"
                "\n"
                "def keep(scores: torch.Tensor, ids: torch.Tensor):\n"
                "    scores = scores.softmax(-1)\n"
                "    valid = ids is not None and not (ids < 0).any()\n"
                "    return scores * 2 if valid else scores\n"
            ),
            after=(
                "import torch\n"
                "\n"
                "\n"
                "def keep(scores: torch.Tensor, ids: torch.Tensor):\n"
                "    scores = scores.softmax(-1)\n"
                "    valid = ids is not None and not bool((ids < 0).any())\n"
                "    return scores * 2 if valid else scores\n"
            ),
        ),
        Example(
            # a test: Python folds `not` into the jump, where Dynamo resumes
            before=(
                "import torch\n"
                "\n"
                "\n"
                "def keep(scores: torch.Tensor, ids: torch.Tensor):\n"
                "    if not (ids < 0).any():\n"
                "        scores = scores * 2\n"
                "    return scores\n"
            ),
            after=None,
        ),
    )

    def __init__(self, context: CodemodContext, options: RuleOptions) -> None:
        super().__init__(context, options)
        #: per enclosing function: ids of the ``not`` operations to rewrite
        self._rewrites: list[set[int]] = []
        self._bool_rebound: Optional[str] = None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        super().visit_FunctionDef(node)
        # A function compiled code does not reach is visited but not entered: nothing there is ours.
        self._rewrites.append(self._report_sites(node) if self.current_reach is not None else set())

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        self._rewrites.pop()
        return super().leave_FunctionDef(original_node, updated_node)

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine:
        rewrites = self._rewrites[-1] if self._rewrites and self.enclosing is not None else None
        if not rewrites:
            return updated_node
        return updated_node.visit(_TruthAsCall(rewrites))  # type: ignore[return-value]

    # -- finding ------------------------------------------------------------------------
    def _report_sites(self, func: cst.FunctionDef) -> set[int]:
        """Report the unresumable breaks of ``func``'s own code; the ``not`` operations to rewrite."""
        cls = self.method_class()
        assert self._module is not None
        tensors = self.get_metadata(FunctionTensorsProvider, self._module)
        rewrites: set[int] = set()
        reported_rnn = False
        for site in unresumable_sites(func, cls, tensors, self.start_of, self.source_lines()):
            if site.kind == "not":
                if self._report_not(func, site):
                    rewrites.add(id(site.node))
            elif site.kind == "rnn" and not reported_rnn:
                reported_rnn = True
                called = dotted_name(site.node.func)  # type: ignore[attr-defined]
                self.report(
                    site.node,
                    f"calling `{called}`, a recurrent module, makes Dynamo skip `{func.name.value}`"
                    f"{self._cost(func)}: Dynamo does not trace RNN, GRU or LSTM modules",
                    "none",
                    note="its callers still compile; no rewrite makes Dynamo trace the module",
                )
        return rewrites

    def _report_not(self, func: cst.FunctionDef, site: Unresumable) -> bool:
        message = (
            f"`not` of a tensor used as a value is a graph break Dynamo cannot resume after: it skips "
            f"`{func.name.value}` (or the rest of it){self._cost(func)}; as `not bool(...)` the break is "
            "at a call, where Dynamo resumes"
        )
        refusal = coroutine_refusal(func) or self._rebinds_bool()
        if refusal:
            self.report(site.node, message, "none", note=refusal)
            return False
        return self.report(site.node, message, "safe")

    def _cost(self, func: cst.FunctionDef) -> str:
        ops = self.inline_ops(func)
        if not ops:
            return ", which runs no tensor op of its own"
        return f" and its {ops} inline tensor op{'s' if ops != 1 else ''}"

    def _rebinds_bool(self) -> str:
        """Why the name ``bool`` may not be the builtin in this file, or ""."""
        if self._bool_rebound is None:
            assert self._module is not None
            self._bool_rebound = rebinding(self._module, "bool")
        return self._bool_rebound


class _TruthAsCall(cst.CSTTransformer):
    """``not X`` -> ``not bool(X)`` for the ``not`` operations given by id."""

    def __init__(self, rewrites: set[int]) -> None:
        super().__init__()
        self.rewrites = rewrites

    def leave_UnaryOperation(
        self, original_node: cst.UnaryOperation, updated_node: cst.UnaryOperation
    ) -> cst.BaseExpression:
        if id(original_node) not in self.rewrites:
            return updated_node
        operand = updated_node.expression.with_changes(lpar=[], rpar=[])
        operator = updated_node.operator
        space = operator.whitespace_after
        if isinstance(space, cst.SimpleWhitespace) and not space.value:
            operator = operator.with_changes(whitespace_after=cst.SimpleWhitespace(" "))
        call = cst.Call(func=cst.Name("bool"), args=[cst.Arg(value=operand)])
        return updated_node.with_changes(operator=operator, expression=call)
