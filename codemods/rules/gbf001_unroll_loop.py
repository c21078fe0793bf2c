"""GBF001: unroll a constant-trip loop that holds a graph break.

What it finds
    A ``for`` loop inside a function, over ``range(...)`` of integer
    constants, a tuple or list literal, or ``enumerate`` of one (a module
    or class constant bound once to an int or a tuple counts; one bound to
    a list does not, as code holding it may change it), whose body
    makes a break-inducing call: directly (``print``, ``.item()``, a logger
    call… see the break catalogue) or through a function, method or
    submodule defined in the same module.

Why it skips the frame
    Dynamo cannot resume after a graph break inside a loop (gb7000 "graph
    break in loop"): the whole function is skipped and runs eagerly, so none
    of its tensor work is compiled.

Example
    def f(x):
        for i in range(3):
            x = x + 1
            print(i, x)
        return x

Rewritten
    def f(x):
        def _gbfix_inner_1(i):
            nonlocal x
            x = x + 1
            print(i, x)
        _gbfix_inner_1(0)
        _gbfix_inner_1(1)
        _gbfix_inner_1(2)
        return x

    Each call is a resumable point, so Dynamo compiles the pieces between
    the breaks. Names the body rebinds become ``nonlocal``; ``continue``
    becomes ``return``; a ``for ... else`` body follows the calls; when code
    after the loop reads the loop variable, it is bound before each call
    (``i = 0``, ``_gbfix_inner_1(i)``…), as the loop binds it before each trip.
    f-strings in the body become ``str.format`` calls: the index is a
    dynamic ``SymInt`` after the second call, and an f-string that formats
    it fails to compile on torch 2.13. A self-documenting field keeps its
    text: ``f"{i=}"`` becomes ``"i={!r}".format(i)``.

Fix safety
    Safe: the calls run the same statements in the same order with the same
    values. The loop is left alone, with the reason reported, when that
    cannot be shown: ``break``, ``return``, ``yield``, ``await``, ``global``
    or ``nonlocal`` in the body, the loop variable rebound in the body or
    captured by a closure, more trips than ``unroll_max_trips`` (16),
    iterable elements that the body could change, or an f-string with no
    exact ``str.format`` spelling (a field nested in a format spec with a
    conversion of its own). Such loops are GBF002's
    (outlining). So is a loop that binds a name first, which the rest of
    the function reads or the next trip reads before binding it: the parent
    could share it only through a declaration without a value, an empty
    cell Dynamo cannot read when it calls the helper.
"""

from __future__ import annotations

from typing import Union, cast

import libcst as cst

from codemods.analysis.fstrings import FStringsToFormat
from codemods.analysis.helper_names import helper_kind
from codemods.analysis.names.bindings import ReplaceLoopControl
from codemods.analysis.nodes import body_statements
from codemods.analysis.unroll import Refusal, build_unrolled, plan_unroll
from codemods.rules.base import Example, Prefilter
from codemods.rules.loop_rule import LoopRule

# -- the rule -------------------------------------------------------------------------


class UnrollLoop(LoopRule):
    CODE = "GBF001"
    NAME = "unroll-loop"
    SUMMARY = "graph break inside a constant-trip loop: unroll it"
    PREFILTER = Prefilter(words=("for ",), holders=("for",))
    #: loops it cannot unroll are outlined by GBF002; reads GBF009 hoists and output calls
    #: whose cause GBF010 removes are theirs
    DEFERS_TO = ("GBF002", "GBF009", "GBF010")
    EXAMPLES = (
        Example(
            before=(
                "import torch\n\ndef f(x):\n    for i in range(2):\n        x = x + 1\n        print(i)\n    return x\n"
            ),
            after=(
                "import torch\n"
                "\n"
                "def f(x):\n"
                "    def _gbfix_inner_1(i):\n"
                "        nonlocal x\n"
                "        x = x + 1\n"
                "        print(i)\n"
                "\n"
                "    _gbfix_inner_1(0)\n"
                "    _gbfix_inner_1(1)\n"
                "    return x\n"
            ),
        ),
        Example(
            before=(
                "import torch\n"
                "\n"
                "def f(x):\n"
                "    for i in range(2):\n"
                "        if i:\n"
                "            break\n"
                "        print(i)\n"
                "    return x\n"
            ),
            after=None,
        ),
    )

    def leave_For(
        self, original_node: cst.For, updated_node: cst.For
    ) -> Union[cst.BaseStatement, cst.FlattenSentinel[cst.BaseStatement]]:
        func = self.enclosing
        # A loop gbfix already outlined stays in its helper: that is the fix.
        if func is None or helper_kind(func.name.value) == "loop":
            return updated_node
        sites = self.skipping_breaks(original_node)
        if not sites or self.hoisted_by_gbf009(original_node, sites):
            return updated_node
        body = body_statements(updated_node.body)
        plan = plan_unroll(original_node, func, body, self.options.unroll_max_trips, self.constant)
        if plan is None:
            return updated_node
        message = self.describe_break(func, sites)
        nothing = self.nothing_to_capture(func)
        left = (
            nothing or self.host_results_note(original_node, func, sites) or self.smaller_fix_note(original_node, sites)
        )
        if left:
            self.report(original_node, message, "none", note=left)
            return updated_node
        if isinstance(plan, Refusal):
            if not self.defers_to("GBF002"):
                self.report(original_node, message, "none", note=f"not unrolled: {plan.reason}")
            return updated_node
        # plan_unroll refused the f-strings this cannot convert.
        converter = FStringsToFormat()
        body = [
            cast(cst.BaseStatement, cast(cst.BaseStatement, stmt.visit(ReplaceLoopControl())).visit(converter))
            for stmt in body
        ]
        if not self.report(original_node, message, "safe"):
            return updated_node
        helper = self.names.fresh("inner")
        return cst.FlattenSentinel(build_unrolled(updated_node, plan, helper, body))
