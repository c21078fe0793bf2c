"""GBF002: run a breaking loop's body as a function called once per trip.

What it finds
    A ``for`` or ``while`` loop inside a function whose body (or ``while``
    condition) makes a break-inducing call, directly or through a function,
    method or submodule defined in the same module, when GBF001 cannot unroll
    it: ``for layer in self.layers``, ``while t > 0``, ``range(n)`` with a
    runtime ``n``, a loop with ``break`` or ``return``.

Why it skips the frame
    Dynamo cannot resume after a graph break inside a loop (gb7000 "graph
    break in loop"): the whole function is skipped and runs eagerly, the
    work before, in and after the loop included.

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
            def _gbfix_i_step_2(i):
                nonlocal x
                x = x + i
                print(i)
            for i in range(n):
                _gbfix_i_step_2(i)
        _gbfix_loop_1()
        return x.cos()

    Dynamo breaks at the call of the loop helper in ``f``, resumes after
    it, and compiles the code before and after. The loop helper only drives
    the loop: its frame is skipped and runs eagerly, but each call it makes
    of the body's function is a frame of its own, which Dynamo compiles,
    resuming after the break inside it. So the work of every trip runs in
    graphs too. Nested loops that break share the outer loop's helper,
    which runs them all and defines each inner loop's per-trip function: one
    helper level, whatever the depth. When every
    break of the body comes before its tensor work (``if idx == n: continue``
    and ``torch.where(mask[idx])`` before an expert's matmuls), the statements
    up to the last break stay in the loop helper, which runs them eagerly,
    and the per-trip function holds the rest: one compiled frame per trip
    instead of one per break it resumes from. An expert's index that the
    function only selects weights with (``self.gate_up_proj[expert_idx]``,
    the index a 0-d integer tensor from ``nonzero()``) is handed as
    ``int(expert_idx)``: selecting by the tensor fails to compile in
    inductor, which then runs the function eagerly on every trip
    (:mod:`codemods.analysis.scalar_index`).

    A loop whose body holds no tensor op of its own (it only calls layers)
    is outlined whole, without a per-trip function: what comes into a graph
    is then the function's work outside the loop. Where that is a single op
    (``return self.shortcut(residual) + x`` after a stack of convolutions)
    and no generator expression (a frame a skipped caller runs eagerly), the
    finding has no fix: the frame Dynamo guards and resumes on every call
    costs more than the op saves (measured on torch 2.13, CPU: 1.01-1.08x
    slower, eager and inductor backends).

    A per-trip function must hold the trip's work in one graph. When the
    breaks left in it lie inside functions its body calls
    (``code, scale = self._encode_frame(frame)``, whose padding reads a
    tensor), the trip's work is in those callees, which compile as frames of
    their own either way, and the per-trip frame would break at the call as
    well, holding the ops around it in graphs split there, with a resume
    frame per trip. With at most a handful of such ops (slices, a cast, a
    mask product) there is no per-trip function: encodec's frame loop so
    rewritten was no faster (measured on torch 2.13, CPU: 1.00-1.11x before
    with inductor at medium size, 1.03x with the eager backend). The loop is
    outlined whole instead, so the function around it compiles, unless that
    brings too little into a graph (below). A break of the body's own
    (``.item()``, a branch on a tensor) or real work around the call keeps
    the per-trip function.

    A loop that runs over values read from the device (``for t, h, w in
    grid.tolist()``, ``itertools.groupby(enumerate(types.tolist()), ...)``,
    or a name the function binds to such values and nothing else),
    a loop holding one, or a loop inside one, is host work: index tensors
    sized by those numbers (position ids, window indices). The finding has
    no fix and suggests ``@torch.compiler.disable``: a frame per trip runs a
    few small ops and costs more than it saves (measured on torch 2.13,
    CPU: qwen2-vl's ``get_rope_index`` so rewritten ran 1.05-1.06x slower,
    eager backend; qwen2.5-vl's window index 1.01-1.04x, eager and inductor).

Fix safety
    Safe: the body runs unchanged, once per trip, in closures that share the
    function's names (``nonlocal``). A name the body binds anew on every
    trip before reading it stays the body's own. No helper declares a name
    without a value (Dynamo cannot read that empty cell when it calls the
    helper): a name first bound in the loop and read after it leaves the
    loop alone, with the reason; one the body carries from trip to trip that
    nothing binds before the loop makes the loop helper run the trips itself.
    The loop target is passed to each call, unless the body rebinds it or a
    closure captures it. ``continue`` ends the call; ``break`` and
    ``return`` end it with plain flags the loop helper acts on (``True`` to
    stop; ``(returned, value)``); ``return`` then propagates through the
    helper's call; ``for ... else`` stays on the loop. A body that ends by
    appending to a list it does not otherwise touch returns the value, and
    the loop helper appends it (a list grown in the compiled frame is
    guarded by its length: a compile per trip). The loop is left alone, with
    the reason, when it contains ``yield``/``await``, ``break``/``continue``
    of an outer loop, ``global``/``nonlocal`` statements, zero-argument
    ``super()``, ``__class__`` or ``locals()``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional, Sequence

import libcst as cst

from codemods.analysis.breaks.cst import RECORDED_BREAK
from codemods.analysis.catalogue import SLICE_READ
from codemods.analysis.helper_names import hint_of, is_outlined
from codemods.analysis.host_loops import device_value_names, host_loop
from codemods.analysis.names.bindings import name_use, target_names
from codemods.analysis.nodes import ITEM_BUILTINS, NESTED_SCOPES, body_statements, dotted_name
from codemods.analysis.outline import (
    OutlinePlan,
    OutlineRefusal,
    build_outline,
    plan_outline,
    too_many_shared,
)
from codemods.analysis.per_iteration import (
    StepPlan,
    build_step,
    eager_head,
    inline_inner_drivers,
    module_lists,
    plan_step,
    step_nonlocals,
)
from codemods.analysis.scalar_index import int_indices
from codemods.analysis.unroll import UnrollPlan, plan_unroll
from codemods.fastcst import walk
from codemods.fastcst.positions import LazyPositionProvider
from codemods.rules.base import Example, Prefilter
from codemods.rules.loop_rule import Loop, LoopRule


class OutlineLoop(LoopRule):
    CODE = "GBF002"
    NAME = "outline-loop"
    SUMMARY = "graph break inside a loop that cannot be unrolled: run its body as a function per trip"
    PREFILTER = Prefilter(words=("for ", "while "), holders=("for", "while"))
    #: loops GBF001 can unroll are GBF001's: unrolling captures more; reads GBF009 hoists and
    #: output calls whose cause GBF010 removes are theirs
    DEFERS_TO = ("GBF001", "GBF009", "GBF010")
    EXAMPLES = (
        Example(
            before=(
                "import torch\n"
                "\n"
                "def f(x, n):\n"
                "    for i in range(n):\n"
                "        x = x * 2 + i\n"
                "        print(i)\n"
                "    return x\n"
            ),
            after=(
                "import torch\n"
                "\n"
                "def f(x, n):\n"
                "    def _gbfix_loop_1():\n"
                "        nonlocal x\n"
                "\n"
                "        def _gbfix_i_step_2(i):\n"
                "            nonlocal x\n"
                "            x = x * 2 + i\n"
                "            print(i)\n"
                "\n"
                "        for i in range(n):\n"
                "            _gbfix_i_step_2(i)\n"
                "\n"
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

    def visit_Module(self, node: cst.Module) -> None:
        super().visit_Module(node)
        #: the loops around the node being visited, each with the depth of ``self.functions`` it lies at
        self._open_loops: list[tuple[Loop, int]] = []
        #: the loops given a fix so far: the depth of ``self.functions`` each lies at, and its finding's index
        self._rewritten: list[tuple[int, int]] = []

    def visit_For(self, node: cst.For) -> None:
        self._open_loops.append((node, len(self.functions)))

    def visit_While(self, node: cst.While) -> None:
        self._open_loops.append((node, len(self.functions)))

    def leave_For(self, original_node: cst.For, updated_node: cst.For):
        self._open_loops.pop()
        return self._leave_loop(original_node, updated_node)

    def leave_While(self, original_node: cst.While, updated_node: cst.While):
        self._open_loops.pop()
        return self._leave_loop(original_node, updated_node)

    def _unrollable(self, loop: Loop, func: cst.FunctionDef) -> bool:
        if not self.defers_to("GBF001") or not isinstance(loop, cst.For):
            return False
        plan = plan_unroll(loop, func, body_statements(loop.body), self.options.unroll_max_trips, self.constant)
        return isinstance(plan, UnrollPlan)

    def _leave_loop(self, original: Loop, updated: Loop):
        func = self.enclosing
        if func is None or is_outlined(func.name.value):
            return updated
        sites = self.skipping_breaks(original)
        if not sites or self.hoisted_by_gbf009(original, sites):
            return updated
        if self._unrollable(original, func):
            return updated  # GBF001's: unrolling captures more
        plan = plan_outline(original, func, declare=False)
        message = self.describe_break(func, sites)
        nothing = self.nothing_to_capture(func)
        if nothing:
            return self._left_as_is(original, updated, message, nothing)
        host = self._host_work(original, func) or self.host_results_note(original, func, sites)
        smaller = "" if host else self.smaller_fix_note(original, sites)
        if smaller:
            return self._left_as_is(original, updated, message, smaller)
        if host:
            return self._left_as_is(original, updated, message, host)
        whole = not self._body_ops(original, func)
        little = self._little_to_capture(original, func, "the loop holds no tensor op of its own") if whole else ""
        if little:
            return self._left_as_is(original, updated, message, little)
        if isinstance(plan, OutlineRefusal):
            return self._left_as_is(original, updated, message, f"not outlined: {plan.reason}")
        inner_steps: list[cst.FunctionDef] = []
        moved = updated
        inlined = inline_inner_drivers(updated)
        if inlined is not None and self._steps_fit(inlined, plan):
            # Loops inside this one were given drivers of their own: this driver runs them, and
            # defines their per-trip functions, so every loop has one helper level.
            moved, inner_steps = inlined
        step_plan: Optional[StepPlan] = None
        head = kept = 0
        if not whole:
            head, kept = self._eager_head(original, moved, func, plan.nonlocals)
            step_plan = plan_step(original, plan, head, module_lists(self.method_class()))
            if step_plan.grown_read:
                # The loop helper would recompile too: its resume function after the break sees the
                # list one longer on every trip (measured in golden GBF002/grown_list_read_per_trip).
                grown = step_plan.grown_read[0]
                note = (
                    f"not outlined: each trip reads `{grown}` whole as it grows, so a helper's frame would "
                    "be compiled again on every trip until Dynamo's recompile limit, after which it and what it "
                    "calls run eagerly"
                )
                return self._left_as_is(original, updated, message, note)
            if step_plan.pinned:
                # Outlined whole, the trips run eagerly in the loop helper, compiled once per call;
                # a per-trip function would be compiled once per trip, then run eagerly anyway.
                pinned = step_plan.pinned[0]
                why = f"each trip's `{pinned}` picks a submodule or indexes a store, pinning a per-trip function"
                step_plan = None
                little = self._little_to_capture(original, func, why)
                if little:
                    return self._left_as_is(original, updated, message, little)
            elif step_plan.driver_declare or (inner_steps and not head):
                # A name carried from trip to trip that nothing binds before the loop could cross
                # from one call to the next only through a declaration without a value; a body that
                # runs an inner loop's trips would break in a loop again: the loop helper runs the
                # trips itself.
                carried = step_plan.driver_declare
                step_plan = None
                why = (
                    f"`{carried[0]}` carries a value from trip to trip and nothing binds it before the loop"
                    if carried
                    else "its body runs an inner loop that breaks"
                )
                little = self._little_to_capture(original, func, why)
                if little:
                    return self._left_as_is(original, updated, message, little)
        split = self._breaks_at_its_call(original, func, head) if step_plan is not None else ""
        if split:
            # the loop helper alone still lets the function around the loop compile
            step_plan = None
            little = self._little_to_capture(original, func, split)
            if little:
                return self._left_as_is(original, updated, message, little)
        crowded = too_many_shared(plan.nonlocals, "the loop") or (
            too_many_shared(step_plan.nonlocals, "each trip") if step_plan is not None else ""
        )
        if crowded:
            return self._left_as_is(original, updated, message, crowded)
        lone = self._one_op(func)
        if lone:
            return self._left_as_is(original, updated, message, lone)
        reported = len(self.findings)
        applied = self.report(original, message, "safe")
        if len(self.findings) > reported:
            # what scan says must be what apply does: a fix undone later is undone in both
            self._rewritten.append((len(self.functions), reported))
        if not applied:
            return updated
        driver = self.names.fresh("loop", _loop_hint(original))
        if step_plan is None:
            # Nothing of the body's own would run in a graph (or it cannot run per trip): the calls
            # it makes compile as frames of their own from the skipped loop helper, and a per-trip
            # frame around them would only add guards and graph calls.
            return cst.FlattenSentinel(build_outline(moved, plan, driver, inner_steps))
        step_plan.as_ints = int_indices(
            original, head, step_plan.params, self.tensor_facts(func), self.method_class(), self.module
        )
        step = self.names.fresh("step", _step_hint(original))
        function, loop = build_step(moved, step_plan, step, step.rsplit("_", 1)[1], kept)
        prelude = [function, *inner_steps]
        return cst.FlattenSentinel(build_outline(loop, plan, driver, prelude))

    def _one_op(self, func: cst.FunctionDef) -> str:
        """Why a function with a single tensor op of its own is not worth a rewrite, or "".

        The most any rewrite brings into a graph is that op, for a loop helper
        and a frame per trip or per call that Dynamo guards and resumes (a beam
        search's per-hypothesis loop of Python floats and ints, torchaudio's
        ``_gen_a_hypos``, hit the recompile limit once its trips were a function).
        """
        if self.inline_ops(func) != 1:
            return ""
        return (
            f"too little to capture: `{func.name.value}` runs 1 inline tensor op of its own, "
            "not worth a loop helper and the frames Dynamo guards and resumes"
        )

    def _left_as_is(self, original: Loop, updated: Loop, message: str, note: str) -> Loop:
        """Report ``original`` with no fix, and undo the rewrite of the loops inside it.

        A loop left as it is still holds the call of an inner loop's helper,
        which breaks: Dynamo skips the function whatever became of the inner
        loop, and the helper's frames only add guards and recompiles (measured
        on torch 2.13: torchvision's RetinaNet ``postprocess_detections``, whose
        loop over levels sits in a loop over images, went from 1 skipped frame
        to 3 and from 89% to 83% coverage, its per-level frame hitting the
        recompile limit).
        """
        self.report(original, message, "none", note=note)
        span = self.get_metadata(LazyPositionProvider, original)
        func = self.enclosing
        depth = len(self.functions)
        inside = [
            index
            for at, index in self._rewritten
            if at == depth and span.start.line < self.findings[index].line <= span.end.line
        ]
        if not inside or func is None:
            return updated
        why = (
            f"not rewritten: the loop around it at line {span.start.line} breaks too and stays as it is, "
            f"so Dynamo skips `{func.name.value}` either way"
        )
        for index in inside:
            self.findings[index] = replace(self.findings[index], fix="none", applied=False, note=why)
        self._rewritten = [entry for entry in self._rewritten if entry[1] not in inside]
        return original

    def _steps_fit(self, inlined: tuple[Loop, list[cst.FunctionDef]], plan: OutlinePlan) -> bool:
        """Whether every name the inner per-trip functions share is bound by this loop's driver (its
        own code, or the function's through it), so they can be defined there."""
        loop, steps = inlined
        own = name_use([loop])
        bound = own.bound | set(plan.nonlocals) | set(plan.globals)
        return all(step_nonlocals(step) <= bound for step in steps)

    def _eager_head(
        self, original: Loop, updated: Loop, func: cst.FunctionDef, shared: Sequence[str]
    ) -> tuple[int, int]:
        """How many leading statements of the body the loop helper keeps and runs eagerly: of the
        original body, and of the updated one, where a rewrite of a breaking statement inside (a
        nested loop outlined, a read hoisted) may have made one statement several."""
        body = body_statements(original.body)
        sites = self.breaks_in([original.body])
        breaking = [site.node for site in sites]
        unresumable = [site.node for site in sites if site.reason.entry == SLICE_READ.name]
        targets = target_names(original.target) if isinstance(original, cst.For) else []
        head = eager_head(body, breaking, lambda node: self.inline_ops(func, within=node), targets, shared, unresumable)
        # The statements after the last break hold none, so no rewrite touched their number.
        kept = len(body_statements(updated.body)) - (len(body) - head)
        return (head, kept) if head and kept >= head else (0, 0)

    def _breaks_at_its_call(self, loop: Loop, func: cst.FunctionDef, head: int) -> str:
        """Why a per-trip function for ``loop`` would cost more than it captures, or "".

        The per-trip function holds the body's statements after the eager
        head. When the breaks among them lie inside functions the body calls
        (``self._encode_frame(frame)``, whose padding reads a tensor), the
        trip's work is in those callees, which compile as frames of their own
        whether the loop is rewritten or not; the per-trip frame would break
        at the call too, and hold only the few ops around it, in graphs split
        there, with a resume frame per trip, while the function around the
        loop is split into two graphs of its own (measured on torch 2.13,
        CPU: encodec's frame loop, 7 inline ops of slicing and masking around
        its encoder call, ran 1.00-1.11x before with inductor at medium size,
        1.03x with the eager backend, for 6 more ops in graphs of 489). A
        break of the body's own (``.item()``, a branch on a tensor) leaves the
        per-trip function as it is: there the ops on both sides are the
        body's.
        """
        trip = body_statements(loop.body)[head:]
        sites = self.breaks_in(trip)
        at_calls = [site for site in sites if site.reason.via]
        if not at_calls or any(not site.reason.via and site.reason.reason != RECORDED_BREAK for site in sites):
            return ""
        ops = sum(self.inline_ops(func, within=statement) for statement in trip)
        if ops > _SPLIT_TRIP_CAPTURE:
            return ""
        callee = at_calls[0].reason.via.split(" → ")[0]
        return (
            f"each trip's work is in `{callee}`, which breaks inside and compiles as a frame of its own "
            f"either way, with only {ops} inline tensor op{'s' if ops != 1 else ''} around the call"
        )

    def _little_to_capture(self, loop: Loop, func: cst.FunctionDef, why: str) -> str:
        """Why outlining ``loop`` whole would cost more than it captures, or "" when it is worth it.

        Outlined whole, the loop's own trips still run eagerly; what comes into
        a graph is the function's work outside the loop. A single op there does
        not pay for the frame Dynamo then guards and resumes on every call
        (measured on torch 2.13, CPU: a residual block whose loop of
        convolutions is outlined to capture ``residual + hidden_states`` runs
        1.01-1.08x slower, eager and inductor backends). A generator expression
        outside the loop is work too: skipped, its caller runs it eagerly, with
        everything it calls.
        """
        outside = self.inline_ops(func) - sum(self.inline_ops(func, within=other) for other in self._apart(loop, func))
        if outside > _LITTLE_CAPTURE or _generator_outside(func, loop):
            return ""
        ops = f"{outside} inline tensor op{'s' if outside != 1 else ''}" if outside else "nothing"
        return (
            f"too little to capture: {why}, so outlining it whole would bring "
            f"{ops} into a graph, not worth a frame Dynamo guards and resumes on every call"
        )

    def _host_work(self, loop: Loop, func: cst.FunctionDef) -> str:
        """Why ``loop`` is host work not worth a frame per trip (:mod:`codemods.analysis.host_loops`),
        or "": it, a loop in its body or a loop around it runs over values read from the device."""
        names = device_value_names(func)
        for candidate in (loop, *self._around()):
            found = host_loop(candidate, names)
            if found is not None:
                return (
                    f"host work: the loop at line {self.line_of(found)} runs over values read from the device, "
                    f"and the work around it is bookkeeping sized by them; a frame per trip would cost more "
                    f"than it captures: leave it eager (`@torch.compiler.disable` on `{func.name.value}` "
                    f"says so and saves its compile)"
                )
        return ""

    def _around(self) -> list[Loop]:
        """The loops of the enclosing function's own code that hold the loop being left."""
        depth = len(self.functions)
        return [loop for loop, at in self._open_loops if at == depth]

    def _apart(self, loop: Loop, func: cst.FunctionDef) -> list[Loop]:
        """``loop`` and the outermost other loops of ``func`` that skip the frame on their own and
        neither hold nor lie in ``loop``: their ops come into graphs by a function per trip, or stay
        out, whatever becomes of ``loop``. (This rule sees a loop GBF001 unrolled, or one GBF009 took a
        read out of, as they left it: per-trip calls of a function, or a loop with no break.)"""
        inside = {id(node) for node in walk.descendants(loop)}
        around = {id(node) for node in self._around()}
        found: list[Loop] = [loop]

        def enter(node: cst.CSTNode) -> bool:
            if node is loop or type(node) in NESTED_SCOPES:
                return False
            if isinstance(node, (cst.For, cst.While)) and id(node) not in inside:
                if id(node) not in around and self.skipping_breaks(node):
                    found.append(node)
                    return False
            return True

        for _ in walk.descendants(func.body, enter=enter):
            pass
        return found

    def _body_ops(self, loop: Loop, func: cst.FunctionDef) -> int:
        """Tensor ops written in the loop's body (and a ``while`` condition): what a per-trip frame captures."""
        ops = self.inline_ops(func, within=loop.body)
        if isinstance(loop, cst.While):
            ops += self.inline_ops(func, within=loop.test)
        return ops


def _loop_hint(loop: Loop) -> str:
    """What the loop runs over: ``layers`` for ``self.layers``, ``enumerate(self.layers)``, ``zip(blocks, ...)``."""
    if not isinstance(loop, cst.For):
        return ""
    iterable = loop.iter
    if isinstance(iterable, cst.Call):
        wraps = dotted_name(iterable.func) in ITEM_BUILTINS and iterable.args and not iterable.args[0].keyword
        if not wraps:
            return ""  # `range(n)`: a count, not a collection
        iterable = iterable.args[0].value
    if isinstance(iterable, cst.Subscript):
        iterable = iterable.value  # `self.layers[: n]` runs over (some of) the layers
    return hint_of(dotted_name(iterable))


#: the most inline tensor ops outside a loop outlined whole for which the rewrite is not worth it
_LITTLE_CAPTURE = 1
#: the most inline tensor ops of a per-trip function that breaks at a call of its body for which it
#: is not worth its frames (a handful of slices, casts and masks around the call)
_SPLIT_TRIP_CAPTURE = 8


def _generator_outside(func: cst.FunctionDef, loop: Loop) -> bool:
    """Whether ``func``'s own code holds a generator expression outside ``loop`` (a frame of its
    own that a skipped caller runs eagerly)."""

    def enter(node: cst.CSTNode) -> bool:
        return node is not loop and type(node) not in NESTED_SCOPES

    return any(isinstance(node, cst.GeneratorExp) for node in walk.descendants(func.body, enter=enter))


def _step_hint(loop: Loop) -> str:
    """What one trip handles: the loop variable, when it is one name."""
    if isinstance(loop, cst.For) and isinstance(loop.target, cst.Name):
        return hint_of(loop.target.value)
    return ""
