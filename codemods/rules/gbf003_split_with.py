"""GBF003: a graph break inside a ``with`` block Dynamo cannot resume in.

What it finds
    A ``with`` statement inside a function whose body makes a break-inducing
    call (directly or through a same-module function), when at least one of
    its context managers is not one Dynamo resumes in. Dynamo resumes in
    ``torch.no_grad``, ``enable_grad``, ``set_grad_enabled``,
    ``inference_mode``, ``autocast``, ``contextlib.nullcontext``,
    ``record_function``, ``torch.profiler.profile`` and ``sdpa_kernel``
    (matched by qualified name, aliases included): those are never touched.
    A same-module manager whose ``__enter__``/``__exit__`` itself breaks (a
    timer reading ``time.perf_counter()``) counts too.

Why it skips the frame
    Dynamo cannot resume after a graph break inside a user context manager
    (gb0066): the whole function is skipped, or compiled only up to an
    earlier resumable point with the rest run eagerly.

Example
    def f(x):
        with Tracker():
            x = x + 1
            print("inside", x.shape)
            x = x * 2
        return x

Rewritten
    Safe fix (default), outline the block so only a helper is skipped:

    def f(x):
        def _gbfix_with_1():
            nonlocal x
            with Tracker():
                x = x + 1
                print("inside", x.shape)
                x = x * 2
        _gbfix_with_1()
        return x

    Unsafe fix (``--unsafe-fixes``), split around the break, so nothing is
    skipped:

    def f(x):
        with Tracker():
            x = x + 1
        print("inside", x.shape)
        with Tracker():
            x = x * 2
        return x

Fix safety
    Splitting enters and exits the manager twice and runs the break outside
    it: a manager that counts, times, locks or owns a resource behaves
    differently, and re-entering creates a new manager object. It is
    therefore unsafe, unless the manager's qualified name is listed in
    ``[tool.gbfix] reentrant_context_managers``, or the manager is a class of
    the file whose ``__init__``, ``__enter__`` and ``__exit__`` only store
    constants, their parameters and their own attributes in the object's
    attributes and let every exception through (the guide's
    ``CustomCtxManager``; :mod:`codemods.analysis.managers` says what
    counts): nothing but the discarded object sees it entered twice, or the
    break run outside it. Splitting is only offered
    when the break is one statement of the block's own body but not its
    only one (else no ``with`` would be left and the manager would not be
    entered at all; for a manager of no effect that does not matter, and
    the break leaves the block), every manager is constructed in the ``with`` line, and
    no ``as`` target would have to live across the break (Dynamo cannot
    carry the manager object over it). Otherwise the block is outlined,
    which is safe.

    An outlined block runs eagerly in its helper. Where every tensor op of
    the function is in the block and nothing else of it (no op, no
    comprehension) would come into a graph, the finding has no fix: the
    outline would move the skip, not remove it. It names the split that
    ``--unsafe-fixes`` makes, which does capture the block's ops.
"""

from __future__ import annotations

from typing import Optional, Sequence, Union

import libcst as cst

from codemods.analysis.fix_safety import Safety
from codemods.analysis.frame_skip import resumes_in
from codemods.analysis.frame_use import coroutine_refusal
from codemods.analysis.managers import effect_free_manager
from codemods.analysis.names.scopes import manager_names
from codemods.analysis.nodes import body_statements
from codemods.fastcst import walk
from codemods.rules.base import Example, Prefilter
from codemods.rules.block_rule import BlockRule, split_index, with_body

Replacement = Union[cst.BaseStatement, cst.FlattenSentinel[cst.BaseStatement]]


class SplitWith(BlockRule):
    CODE = "GBF003"
    NAME = "split-with"
    SUMMARY = "graph break inside a with block of a non-resumable context manager"
    PREFILTER = Prefilter(words=("with ",), holders=("with",))
    #: a `with` inside a breaking `try` body goes with the `try`; output calls whose cause
    #: GBF010 removes are its
    DEFERS_TO = ("GBF004", "GBF010")
    KIND = "with"
    EXAMPLES = (
        Example(
            before=(
                "import torch\n"
                "\n"
                "class Tracker:\n"
                "    def __enter__(self):\n"
                "        return self\n"
                "    def __exit__(self, *exc):\n"
                "        return False\n"
                "\n"
                "def f(x):\n"
                "    with Tracker():\n"
                "        x = x + 1\n"
                "        print(x)\n"
                "        x = x * 2\n"
                "    return x\n"
            ),
            after=(
                "import torch\n"
                "\n"
                "class Tracker:\n"
                "    def __enter__(self):\n"
                "        return self\n"
                "    def __exit__(self, *exc):\n"
                "        return False\n"
                "\n"
                "def f(x):\n"
                "    with Tracker():\n"
                "        x = x + 1\n"
                "    print(x)\n"
                "    with Tracker():\n"
                "        x = x * 2\n"
                "    return x\n"
            ),
        ),
        Example(
            before=("import torch\n\ndef f(x):\n    with torch.no_grad():\n        print(x)\n    return x\n"),
            after=None,
        ),
    )

    def visit_Module(self, node: cst.Module) -> None:
        super().visit_Module(node)
        #: per enclosing function: how many ``try`` bodies we are inside
        self.try_bodies: list[int] = []
        self.classes = {stmt.name.value: stmt for stmt in node.body if isinstance(stmt, cst.ClassDef)}

    # -- which managers ---------------------------------------------------------
    def resumable(self, item: cst.WithItem) -> bool:
        return resumes_in(self, item)

    def reentrant(self, item: cst.WithItem) -> bool:
        listed = self.options.reentrant_context_managers
        for name in manager_names(self, item):
            if any(entry == name or entry.endswith("." + name) for entry in listed):
                return True
        return False

    def effect_free(self, item: cst.WithItem) -> bool:
        """A manager made in the ``with`` line of a class of the file whose entry and exit act
        on nothing but the object (:mod:`codemods.analysis.managers`)."""
        expr = item.item
        if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name)) or item.asname is not None:
            return False
        cls = self.classes.get(expr.func.value)
        return cls is not None and effect_free_manager(cls) is None

    def breaking_dunder(self, item: cst.WithItem) -> Optional[str]:
        """``Timer.__enter__`` when a same-module manager breaks on entry or exit."""
        expr = item.item
        if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name)):
            return None
        cls = self.classes.get(expr.func.value)
        if cls is None or not isinstance(cls.body, cst.IndentedBlock):
            return None
        for stmt in cls.body.body:
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value in ("__enter__", "__exit__"):
                if self.lookup(stmt) is not None:
                    return f"{cls.name.value}.{stmt.name.value}"
        return None

    # -- traversal ----------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        super().visit_FunctionDef(node)
        self.try_bodies.append(0)

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        self.try_bodies.pop()
        return super().leave_FunctionDef(original_node, updated_node)

    def visit_Try_body(self, node: cst.Try) -> None:
        if self.try_bodies:
            self.try_bodies[-1] += 1

    def leave_Try_body(self, node: cst.Try) -> None:
        if self.try_bodies:
            self.try_bodies[-1] -= 1

    def _deferred(self) -> bool:
        """Inside a ``try`` body, the ``try`` holds the break too: GBF004 fixes the outer block."""
        return bool(self.try_bodies and self.try_bodies[-1]) and self.defers_to("GBF004")

    def _holds_break(self, node: cst.With) -> bool:
        if node.asynchronous is not None or all(self.resumable(i) for i in node.items):
            return False
        return bool(self.breaks_in([node.body])) or any(self.breaking_dunder(i) for i in node.items)

    def visit_With(self, node: cst.With) -> None:
        self.enter_block(self.in_scope() is not None and self._holds_break(node))

    def leave_With(self, original_node: cst.With, updated_node: cst.With) -> Replacement:
        func = self.in_scope()
        holds = func is not None and self._holds_break(original_node)
        outermost = self.leave_block(holds)
        if func is None or not holds or not outermost or self._deferred():
            return updated_node
        sites = self.breaks_in([original_node.body])
        dunder = next(filter(None, (self.breaking_dunder(i) for i in original_node.items)), None)
        message = self.describe_break(func, sites, "" if sites else f"`{dunder}` itself breaks")
        if self.report_nothing_to_capture(original_node, func, message):
            return updated_node
        reason = self.split_refusal(original_node, sites, dunder) or coroutine_refusal(func) or None
        if reason is None:
            safe = all(self.reentrant(i) or self.resumable(i) or self.effect_free(i) for i in original_node.items)
            if safe or self.options.fix_mode == "unsafe":
                fix: Safety = "safe" if safe else "unsafe"
                note = "" if safe else _UNSAFE_WHY
                if self.report(original_node, message, fix, note=note):
                    return cst.FlattenSentinel(self.split(original_node, updated_node, sites))
                return updated_node
            return self.outline(
                original_node,
                updated_node,
                func,
                message,
                unsafe_alternative=f"split the block around the break ({_UNSAFE_WHY})",
            )
        return self.outline(original_node, updated_node, func, message)

    # -- splitting ----------------------------------------------------------------
    def split_refusal(self, node: cst.With, sites: Sequence, dunder: Optional[str]) -> Optional[str]:
        if dunder:
            return f"`{dunder}` breaks, so no split can help"
        if any(item.asname is not None for item in node.items):
            return "an `as` target would have to live across the break"
        if not all(isinstance(item.item, cst.Call) for item in node.items):
            return "a manager object made before the `with` would be entered twice"
        if any(_calls_in_arguments(item.item) for item in node.items):
            return "a manager's arguments make a call, which would run again"
        body = body_statements(node.body)
        if split_index(body, sites) is None:
            return "the break is not a statement of the block's own body"
        if len(body) == 1 and not all(self.resumable(i) or self.effect_free(i) for i in node.items):
            # Splitting would leave no `with` at all: the manager would no
            # longer be entered. Keeping an empty `with M(): pass` next to the
            # break would enter it, but no longer around the one statement it
            # was written to wrap (a lock, a timer, a redirect). The block
            # holds no other code to compile, so the outline loses at most the
            # break's own argument expressions: the parent still compiles
            # around the helper call, only the helper (manager and break) is
            # skipped, and behaviour stays exact.
            return "the break is the block's only statement: the manager would wrap nothing"
        return None

    def split(self, original: cst.With, updated: cst.With, sites: Sequence) -> list[cst.BaseStatement]:
        index = split_index(body_statements(original.body), sites)
        assert index is not None
        body = body_statements(updated.body)
        before, breaking, after = body[:index], body[index], body[index + 1 :]
        out: list[cst.BaseStatement] = []
        if before:
            out.append(updated.with_changes(body=with_body(updated.body, before)))
        # managers Dynamo resumes in (`no_grad`, `autocast`) keep wrapping the break: they change what it computes
        kept = [new for old, new in zip(original.items, updated.items, strict=True) if self.resumable(old)]
        if kept:
            items = [*kept[:-1], kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
            breaking = updated.with_changes(items=items, body=with_body(updated.body, [breaking]), leading_lines=())
        out.append(breaking)
        if after:
            out.append(updated.with_changes(body=with_body(updated.body, after), leading_lines=()))
        out[0] = out[0].with_changes(leading_lines=updated.leading_lines)
        return out


def _calls_in_arguments(manager: cst.BaseExpression) -> bool:
    """Whether the arguments of ``manager`` (a call, as `split_refusal` has checked) make a call."""
    assert isinstance(manager, cst.Call)
    return any(type(node) is cst.Call for arg in manager.args for node in walk.descendants(arg))


_UNSAFE_WHY = (
    "the manager is exited before the break and entered again after it; "
    "list it in reentrant_context_managers if that is harmless"
)
