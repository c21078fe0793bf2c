"""GBF009: read a tensor's values once, before the loop, when they cannot change in it.

What it finds
    A loop, or a list, set or dict comprehension, inside a function, whose
    only graph breaks are reads of a tensor's values (``.tolist()``,
    ``.item()``) that are the same on every trip: the tensor is not rebound,
    assigned to in part, changed in place or handed to a call inside it.

Why it skips the frame
    Dynamo cannot resume after a graph break inside a loop: the function
    (or, on Python 3.11, the comprehension's own frame) is skipped and runs
    eagerly. Read once before the loop, the value breaks the graph once,
    outside any loop, where Dynamo resumes and compiles on.

Example
    def attention(q, k, v, lengths):
        parts = [torch.split(t, lengths.tolist(), dim=1) for t in (q, k, v)]
        return parts

Rewritten
    def attention(q, k, v, lengths):
        _gbfix_lengths_tolist_1 = lengths.tolist()
        parts = [torch.split(t, _gbfix_lengths_tolist_1, dim=1) for t in (q, k, v)]
        return parts

Fix safety
    Safe when the loop surely runs at least once (a non-empty literal, a
    constant ``range``, a comprehension with one ``for`` and no ``if``) and
    a list from ``.tolist()`` is only read (handed to ``torch`` functions,
    read-only builtins, subscripts, operators): the read then happens once
    instead of on every trip, with the same value. Otherwise unsafe
    (``--unsafe-fixes``): a loop that may run no trip would now read the
    tensor once where it never did (a read can raise, or wait for the GPU),
    and a list changed on one trip would be seen changed on the next. Loops
    with other breaks are left to GBF001/GBF002.
"""

from __future__ import annotations

import sys
from typing import Union

import libcst as cst

from codemods.analysis.breaks.cst import find_breaks
from codemods.analysis.fix_safety import Safety
from codemods.analysis.helper_names import hint_of, is_outlined
from codemods.analysis.hoist import (
    COMPREHENSIONS,
    HoistPlan,
    HoistRefusal,
    Loop,
    ReplaceReads,
    comprehension_parts,
    iterable_runs_once_at_least,
    plan_hoist,
    read_statement,
)
from codemods.fastcst import walk
from codemods.rules.base import Example, Prefilter
from codemods.rules.loop_rule import LoopRule

Replacement = Union[cst.BaseStatement, cst.FlattenSentinel[cst.BaseStatement]]
#: what the search for comprehensions does not go below (whitespace and punctuation hold none)
_NOT_ENTERED = walk.node_types(cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.GeneratorExp) | walk.TRIVIA


class HoistInvariant(LoopRule):
    CODE = "GBF009"
    NAME = "hoist-invariant-read"
    SUMMARY = "a tensor's values read on every trip of a loop, though they cannot change: read them once before it"
    PREFILTER = Prefilter(words=(".tolist", ".item"), holders=("for", "while", "comprehension"))
    #: output calls whose cause GBF010 removes are its: a loop whose other breaks are reads is hoisted
    DEFERS_TO = ("GBF010",)
    #: a statement-level walk: comprehensions are found inside each simple statement
    STATEMENTS_ONLY = True
    EXAMPLES = (
        Example(
            before=(
                "import torch\n"
                "\n"
                "def attention(q, k, v, lengths):\n"
                "    parts = [torch.split(t, lengths.tolist(), dim=1) for t in (q, k, v)]\n"
                "    return parts\n"
            ),
            after=(
                "import torch\n"
                "\n"
                "def attention(q, k, v, lengths):\n"
                "    _gbfix_lengths_tolist_1 = lengths.tolist()\n"
                "    parts = [torch.split(t, _gbfix_lengths_tolist_1, dim=1) for t in (q, k, v)]\n"
                "    return parts\n"
            ),
        ),
        Example(
            before=(
                "import torch\n"
                "\n"
                "def f(x, t):\n"
                "    for i in range(3):\n"
                "        t = t + 1\n"
                "        x = x * t.item()\n"
                "    return x\n"
            ),
            after=None,
        ),
    )

    def visit_Module(self, node: cst.Module) -> None:
        super().visit_Module(node)
        #: per loop being visited: whether this rule reads its breaks once before it
        self.hoisting: list[bool] = []
        #: loop node id -> its plan (original nodes: ids stay valid for the walk)
        self._plans: dict[int, Union[HoistPlan, HoistRefusal, None]] = {}

    # -- loops --------------------------------------------------------------------
    def visit_For(self, node: cst.For) -> None:
        self.hoisting.append(isinstance(self._loop_plan(node), HoistPlan))

    def visit_While(self, node: cst.While) -> None:
        self.hoisting.append(isinstance(self._loop_plan(node), HoistPlan))

    def leave_For(self, original_node: cst.For, updated_node: cst.For) -> Replacement:
        return self._leave_loop(original_node, updated_node)

    def leave_While(self, original_node: cst.While, updated_node: cst.While) -> Replacement:
        return self._leave_loop(original_node, updated_node)

    def _loop_plan(self, loop: Loop) -> Union[HoistPlan, HoistRefusal, None]:
        """How this rule reads the loop's breaks once (None: not its loop); asked on the way in
        and on the way out, answered once."""
        if id(loop) not in self._plans:
            self._plans[id(loop)] = self._plan_of(loop)
        return self._plans[id(loop)]

    def _plan_of(self, loop: Loop) -> Union[HoistPlan, HoistRefusal, None]:
        func = self.enclosing
        if func is None or is_outlined(func.name.value):
            return None
        # Most loops break nowhere: look for breaks before counting the function's tensor ops.
        sites = self.skipping_breaks(loop)
        if not sites or self.nothing_to_capture(func):
            return None
        return self.hoist_plan(loop, sites)

    def _leave_loop(self, original: Loop, updated: Loop) -> Replacement:
        self.hoisting.pop()
        plan = self._loop_plan(original)
        if isinstance(plan, HoistPlan):
            return self._hoist(original, updated, plan, "loop")
        if isinstance(plan, HoistRefusal) and plan.reads_only:
            # every break reads values, but they may change: say why GBF001/GBF002 fix it instead
            func = self.enclosing
            assert func is not None
            self.report(original, self._message(func, "a loop"), "none", note=f"not hoisted: {plan.reason}")
        return updated

    # -- comprehensions -----------------------------------------------------------
    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> Replacement:
        func = self.enclosing
        if func is None or is_outlined(func.name.value) or any(self.hoisting):
            return updated_node  # a loop around it reads its values once, before the loop
        for comp in _comprehensions(original_node):
            parts, bound, plain = comprehension_parts(comp)
            breaking = [(s.node, s.reason) for s in find_breaks(parts, self.lookup)]
            if not breaking:
                continue
            if self.nothing_to_capture(func):
                return updated_node
            once = plain and iterable_runs_once_at_least(comp.for_in.iter, self.constant)
            plan = plan_hoist(parts, breaking, bound, once, func)
            if isinstance(plan, HoistRefusal):
                message = self._message(func, "a comprehension", plan.reads_only)
                self.report(original_node, message, "none", note=f"not hoisted: {plan.reason}")
                continue
            # One comprehension per statement is rewritten per run: the others follow on the next.
            return self._hoist(original_node, updated_node, plan, "comprehension")
        return updated_node

    # -- the fix --------------------------------------------------------------------
    def _message(self, func: cst.FunctionDef, what: str, reads: bool = True) -> str:
        """``reads``: every break there is a read of a tensor's values (else the message says less)."""
        # Python 3.11 runs a comprehension in a frame of its own; 3.12 inlines it (PEP 709)
        skipped = (
            "the comprehension's own frame"
            if what.startswith("a comprehension") and sys.version_info < (3, 12)
            else f"`{func.name.value}`"
        )
        read = " reads a tensor's values" if reads else ""
        return f"graph break on every trip of {what}{read}; Dynamo skips {skipped}"

    def _hoist(
        self, original: cst.BaseStatement, updated: cst.BaseStatement, plan: HoistPlan, what: str
    ) -> Replacement:
        func = self.enclosing
        assert func is not None
        reads = ", ".join(f"`{r.receiver}.{r.method}()`" for r in plan.reads)
        message = self._message(func, f"a {what} ({reads})")
        fix: Safety = "unsafe" if plan.unsafe else "safe"
        if not self.report(original, message, fix, note=plan.unsafe):
            return updated
        names: dict[int, str] = {}
        hoisted: list[cst.BaseStatement] = []
        for read in plan.reads:
            name = self.names.fresh(read.method, hint_of(read.receiver))
            names.update((id(call), name) for call in read.calls)
            hoisted.append(read_statement(name, read))
        rewritten = updated.visit(ReplaceReads(names))
        assert isinstance(rewritten, cst.BaseStatement)
        hoisted[0] = hoisted[0].with_changes(leading_lines=getattr(updated, "leading_lines", ()))
        return cst.FlattenSentinel([*hoisted, rewritten.with_changes(leading_lines=())])


def _comprehensions(stmt: cst.SimpleStatementLine) -> list[Union[cst.ListComp, cst.SetComp, cst.DictComp]]:
    """The list, set and dict comprehensions of a statement, outermost first (lambdas aside)."""
    return [
        node
        for node in walk.descendants(stmt, lambda node: type(node) not in _NOT_ENTERED)
        if isinstance(node, COMPREHENSIONS)
    ]
