"""GBF002: outline a loop that holds a graph break and cannot be unrolled.

What it finds
    A ``for`` or ``while`` loop inside a function whose body (or ``while``
    condition) makes a break-inducing call, directly or through a function,
    method or submodule defined in the same module, when GBF001 cannot unroll
    it: ``for layer in self.layers``, ``while t > 0``, ``range(n)`` with a
    runtime ``n``, a loop with ``break`` or ``return``.

Why it skips the frame
    Dynamo cannot resume after a graph break inside a loop (gb7000 "graph
    break in loop"): the whole function is skipped and runs eagerly, the
    work before and after the loop included.

Example
    def f(x, n):
        x = x.sin()
        for i in range(n):
            x = x + i
            print(i)
        return x.cos()

Rewritten
    def f(x, n):
        x = x.sin()
        def _gbfix_loop_1():
            nonlocal x
            for i in range(n):
                x = x + i
                print(i)
        _gbfix_loop_1()
        return x.cos()

    Dynamo breaks at the helper's call in ``f``, resumes after it, and
    compiles the code before and after; only the helper's frame is skipped
    (user modules it calls are still compiled as frames of their own). Of
    nested loops, the outermost one that breaks is outlined.

Fix safety
    Safe: the loop runs unchanged inside a closure that shares the parent's
    names (``nonlocal``; a bare ``name: object`` annotation declares a name
    the loop alone binds, without assigning it). ``return`` inside the loop
    propagates through the call. The loop is left alone, with the reason,
    when it contains ``yield``/``await``, ``break``/``continue`` of an outer
    loop, ``global``/``nonlocal`` statements, zero-argument ``super()``,
    ``__class__`` or ``locals()``.
"""

from __future__ import annotations

import libcst as cst

from codemods.analysis.nodes import body_statements
from codemods.analysis.outline import (
    OUTLINED_PREFIXES,
    OutlineRefusal,
    build_outline,
    plan_outline,
)
from codemods.analysis.unroll import UnrollPlan, plan_unroll
from codemods.rules.base import Example, Prefilter
from codemods.rules.loop_rule import Loop, LoopRule


class OutlineLoop(LoopRule):
    CODE = "GBF002"
    NAME = "outline-loop"
    SUMMARY = "graph break inside a loop that cannot be unrolled: outline it"
    PREFILTER = Prefilter(words=("for ", "while "), holders=("for", "while"))
    #: loops GBF001 can unroll are GBF001's: unrolling captures more
    DEFERS_TO = ("GBF001",)
    EXAMPLES = (
        Example(
            before=(
                "import torch\n"
                "\n"
                "def f(x, n):\n"
                "    for i in range(n):\n"
                "        x = x + i\n"
                "        print(i)\n"
                "    return x\n"
            ),
            after=(
                "import torch\n"
                "\n"
                "def f(x, n):\n"
                "    def _gbfix_loop_1():\n"
                "        nonlocal x\n"
                "        for i in range(n):\n"
                "            x = x + i\n"
                "            print(i)\n"
                "    _gbfix_loop_1()\n"
                "    return x\n"
            ),
        ),
        Example(
            before=(
                "import torch\n"
                "\n"
                "def f(x, n):\n"
                "    for i in range(n):\n"
                "        x = x + i\n"
                "        yield x\n"
                "        print(i)\n"
            ),
            after=None,
        ),
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        #: per enclosing function, how many loops we are inside
        self.loop_depth: list[int] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        super().visit_FunctionDef(node)
        self.loop_depth.append(0)

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        self.loop_depth.pop()
        return super().leave_FunctionDef(original_node, updated_node)

    def _enter(self) -> None:
        if self.loop_depth:
            self.loop_depth[-1] += 1

    def visit_For(self, node: cst.For) -> None:
        self._enter()

    def visit_While(self, node: cst.While) -> None:
        self._enter()

    def leave_For(self, original_node: cst.For, updated_node: cst.For):
        return self._leave_loop(original_node, updated_node)

    def leave_While(self, original_node: cst.While, updated_node: cst.While):
        return self._leave_loop(original_node, updated_node)

    def _unrollable(self, loop: Loop, func: cst.FunctionDef) -> bool:
        if not self.defers_to("GBF001") or not isinstance(loop, cst.For):
            return False
        plan = plan_unroll(loop, func, body_statements(loop.body), self.options.unroll_max_trips)
        return isinstance(plan, UnrollPlan)

    def _leave_loop(self, original: Loop, updated: Loop):
        if self.loop_depth:
            self.loop_depth[-1] -= 1
        func = self.enclosing
        if func is None or func.name.value.startswith(OUTLINED_PREFIXES):
            return updated
        # Of nested loops that break, the outermost is outlined: it holds the others.
        if self.loop_depth and self.loop_depth[-1] > 0:
            return updated
        sites = self.skipping_breaks(original)
        if not sites:
            return updated
        if self._unrollable(original, func):
            return updated  # GBF001's: unrolling captures more
        plan = plan_outline(original, func)
        message = self.describe_break(func, sites)
        if isinstance(plan, OutlineRefusal):
            self.report(original, message, "none", note=f"not outlined: {plan.reason}")
            return updated
        if not self.report(original, message, "safe"):
            return updated
        return cst.FlattenSentinel(build_outline(updated, plan, self.names.fresh("loop")))
