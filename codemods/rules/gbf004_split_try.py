"""GBF004: a graph break inside a ``try`` block.

What it finds
    A ``try`` statement inside a function whose body makes a break-inducing
    call, directly or through a same-module function.

Why it skips the frame
    Dynamo does not create resume functions inside ``try`` blocks: the frame
    is skipped, or compiled only up to an earlier resumable point and run
    eagerly from there on ("Compiling up to the previous resumable state,
    then skipping the rest of the function").

Example
    def f(x):
        try:
            x = x + 1
            torch._dynamo.graph_break()
            x = x * 2
        except ValueError:
            x = x - 1
        return x

Rewritten
    Split with a flag, so the break runs outside the ``try`` and the handlers
    keep their meaning for the code before and after it:

    def f(x):
        _gbfix_ok_1 = False
        try:
            x = x + 1
            _gbfix_ok_1 = True
        except ValueError:
            x = x - 1
        if _gbfix_ok_1:
            torch._dynamo.graph_break()
            try:
                x = x * 2
            except ValueError:
                x = x - 1
        return x

    The ``else`` clause goes with the second part. The guide's two short
    forms need no flag: a breaking first statement is hoisted before the
    ``try``, and a breaking last statement moves to ``else:``, which runs it
    exactly when the body completed, outside the handlers:

    def f(x: torch.Tensor):
        mask = x > 0
        try:
            n = int(mask.sum())        # hoisted before the try
            x = x * n
            logger.info("%s", x.dtype)  # moved to else:
        except ValueError:
            x = x - 1
        return x

    When the split is not safe (see below) the default fix outlines the
    whole ``try`` into a helper, so only the helper is skipped.

Fix safety
    The breaking statement ends up outside every handler, so the split is
    exact only if no handler can catch what that statement raises, which
    :mod:`codemods.analysis.raises` decides from what the statement is: an
    assignment to names or calls; a catalogue call that cannot raise
    (``torch._dynamo.graph_break()``, ``print``, logger calls, time reads)
    with arguments whose text cannot raise (constants, strings, f-strings
    without a format spec: ``{y:.3f}`` of a tensor of several elements
    raises; names the function binds to a tensor or a plain value: an
    object's ``__str__`` may raise, and a parameter without an annotation
    may be any object); a tensor's facts read from a name known to hold a
    tensor (``h.dtype``, ``h.shape``, not ``x.grad.shape``, which raises when
    ``x.grad`` is None), and ``h.shape[0]`` (``IndexError``); ``.item()``,
    ``.tolist()`` and argument-free reductions (``RuntimeError``);
    ``int()``/``float()`` of a reduction (``int(mask.sum())`` of a bool
    tensor raises at most a ``RuntimeError``; of a float one also the
    ``ValueError`` of a NaN sum and the ``OverflowError`` of an infinite
    one; of a tensor of several elements a ``ValueError``);
    ``warnings.warn`` (a ``Warning`` or a ``TypeError``). A handler catches
    a class when either derives from the other; one naming a class that is
    not a builtin may catch anything. Anything else may raise anything, and
    the split is unsafe: the finding says what it may raise and which
    handler may catch it. Not the level of ``.log(level, ...)``, a starred
    argument, an attribute of ``self``. When the break is reached through a
    call of a same-module function, which may do anything, the ``try`` is
    outlined instead. A ``finally`` clause, a bare ``except:``, ``except*``,
    a break not directly in the ``try`` body, or more than one breaking
    statement: the ``try`` is outlined (safe). Where every tensor op of the
    function is in the ``try`` and nothing else of it (no op, no
    comprehension) would come into a graph, an outline would move the skip,
    not remove it: the finding has no fix.

    A split also compiles the rest of the ``try`` body, which ran eagerly in
    the skipped frame, and Dynamo (torch 2.13) gets a handled exception of
    traced code wrong: a lookup that misses (``d["k"]``, ``o.k``,
    ``getattr(o, "k")``, in the body or in a function it calls) is compiled
    into the handler's path without a guard on the missing key, so later
    calls that find it get the handler's values; a failing tensor op raises
    past the handler. Where the rest may raise that (a ``KeyError`` or
    ``AttributeError`` of a subscript, an attribute read that is not a
    tensor's or an imported module's, a call of code of its own; a
    ``RuntimeError`` or ``IndexError`` of a tensor op) and a handler catches
    it, the ``try`` is outlined in every fix mode, and the finding says why.

    A name read by the breaking statement counts as surely bound when it is
    a parameter, or a local bound by a plain statement (assignment, import,
    ``def``) that comes before it in straight-line code (an enclosing ``for``
    binds its target in its body, a handler its ``as`` name), or a builtin,
    or a module-level name, and it is never deleted (``del``, or the end of
    an ``except ... as`` clause) anywhere in the function. A name bound only
    in a loop, a branch or a ``try`` before it may be unbound: reading it
    raises ``UnboundLocalError``, which the handlers caught before the split.

    A ``try`` nested in a handler or the ``else`` clause of a ``try`` that is
    split stays in the function after the split, so it is fixed in the same
    run (the copies made of a handler share its helper and flag names).
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Callable, Optional, Sequence, Union

import libcst as cst

from codemods.analysis.frame_use import coroutine_refusal, frame_refusal
from codemods.analysis.names.bindings import (
    ever_unbound,
    function_scope_use,
    name_use,
    surely_bound_before,
)
from codemods.analysis.nodes import body_statements, dotted_name
from codemods.analysis.raises import (
    Evidence,
    caught_by,
    describe,
    statement_raises,
    traced_hazards,
    unannotated_params,
)
from codemods.rules.base import Example, Prefilter
from codemods.rules.block_rule import BlockRule, split_index, with_body

Replacement = Union[cst.BaseStatement, cst.FlattenSentinel[cst.BaseStatement]]


@dataclass(frozen=True)
class _Plan:
    """The fix of one outermost breaking ``try``, decided from the original node."""

    #: the breaking statement's index in the ``try`` body when it is split; None: outline
    split_at: Optional[int]
    safe: bool = True
    unsafe_alternative: str = ""
    #: why the split is unsafe
    why: str = ""
    #: why the split is refused whatever the fix mode (the outline runs the ``try`` eagerly)
    refusal: str = ""


class SplitTry(BlockRule):
    CODE = "GBF004"
    NAME = "split-try"
    SUMMARY = "graph break inside a try block: split it with a flag, or outline it"
    PREFILTER = Prefilter(words=("try:",), holders=("try",))
    #: output calls whose cause GBF010 removes are its
    DEFERS_TO = ("GBF010",)
    KIND = "try"
    EXAMPLES = (
        Example(
            before=(
                "import torch\n"
                "\n"
                "def f(x):\n"
                "    try:\n"
                "        x = x + 1\n"
                "        torch._dynamo.graph_break()\n"
                "        x = x * 2\n"
                "    except ValueError:\n"
                "        x = x - 1\n"
                "    return x\n"
            ),
            after=(
                "import torch\n"
                "\n"
                "def f(x):\n"
                "    _gbfix_ok_1 = False\n"
                "    try:\n"
                "        x = x + 1\n"
                "        _gbfix_ok_1 = True\n"
                "    except ValueError:\n"
                "        x = x - 1\n"
                "    if _gbfix_ok_1:\n"
                "        torch._dynamo.graph_break()\n"
                "        try:\n"
                "            x = x * 2\n"
                "        except ValueError:\n"
                "            x = x - 1\n"
                "    return x\n"
            ),
        ),
        Example(
            before=("def f(x):\n    try:\n        x = x + 1\n    except ValueError:\n        print(x)\n    return x\n"),
            after=None,
        ),
    )

    def visit_Module(self, node: cst.Module) -> None:
        super().visit_Module(node)
        #: per ``try`` being visited: its plan when it is the outermost breaking one
        self.plans: list[Optional[_Plan]] = []
        #: per ``try`` being visited: whether its handlers and ``else`` stay in place
        self.shielding: list[bool] = []
        self.tree = node
        self._module_names: Optional[set[str]] = None
        self._module_imports: Optional[set[str]] = None

    def _holds_break(self, node: cst.Try) -> bool:
        return bool(self.breaks_in([node.body]))

    def visit_Try(self, node: cst.Try) -> None:
        func = self.in_scope()
        holds = func is not None and self._holds_break(node)
        # Decided here, before the handlers are visited, because whether a
        # breaking `try` inside them is fixed now depends on it (see shield()).
        plan = self.plan(node, func) if func is not None and holds and self.outermost_now() else None
        self.enter_block(holds)
        self.plans.append(plan)
        self.shielding.append(plan is not None and plan.split_at is not None and not self.suppressed(node))

    def visit_Try_handlers(self, node: cst.Try) -> None:
        if self.shielding[-1]:
            self.shield()

    def leave_Try_handlers(self, node: cst.Try) -> None:
        if self.shielding[-1]:
            self.unshield()

    def visit_Try_orelse(self, node: cst.Try) -> None:
        if self.shielding[-1]:
            self.shield()

    def leave_Try_orelse(self, node: cst.Try) -> None:
        if self.shielding[-1]:
            self.unshield()

    def leave_Try(self, original_node: cst.Try, updated_node: cst.Try) -> Replacement:
        plan = self.plans.pop()
        self.shielding.pop()
        func = self.in_scope()
        holds = func is not None and self._holds_break(original_node)
        outermost = self.leave_block(holds)
        if func is None or not holds or not outermost:
            return updated_node
        assert plan is not None
        sites = self.breaks_in([original_node.body])
        message = self.describe_break(func, sites)
        if self.report_nothing_to_capture(original_node, func, message):
            return updated_node
        if plan.split_at is None:
            return self.outline(
                original_node,
                updated_node,
                func,
                message,
                unsafe_alternative=plan.unsafe_alternative,
                note=plan.refusal,
            )
        note = "" if plan.safe else plan.why
        if self.report(original_node, message, "safe" if plan.safe else "unsafe", note=note):
            return cst.FlattenSentinel(self.split(updated_node, plan.split_at))
        return updated_node

    def plan(self, node: cst.Try, func: cst.FunctionDef) -> _Plan:
        """How the outermost breaking ``node`` (an original node in ``func``) is fixed."""
        sites = self.breaks_in([node.body])
        if self.split_refusal(node, sites) is not None or coroutine_refusal(func):
            return _Plan(None)  # the outline says why, or outlines
        index = split_index(body_statements(node.body), sites)
        assert index is not None
        if index not in (0, len(body_statements(node.body)) - 1) and frame_refusal(func):
            return _Plan(None)  # a split in the middle adds a flag to the frame
        facts = self.tensor_facts(func)
        evidence = Evidence(self.lookup, self.bound_check(node, index, func), facts, unannotated_params(func, facts))
        raised = statement_raises(body_statements(node.body)[index], evidence)
        own = function_scope_use(func).bound
        catcher = caught_by(node.handlers, raised, lambda name: name in own or name in self.module_names())
        safe = catcher is None
        if not safe and any(site.reason.via for site in sites):
            # The breaking statement calls a function that does more than the
            # break: taking all of that out of the handlers is not a split.
            return _Plan(None)
        why = f"{_UNSAFE_WHY}: it may raise {describe(raised)}, which `except {catcher}` may catch"
        hazard = self.compiled_try_hazard(node, index, evidence, func)
        if hazard:
            # wrong values, not a moved exception: no fix mode makes that acceptable
            return _Plan(None, refusal=hazard)
        if safe or self.options.fix_mode == "unsafe":
            return _Plan(index, safe=safe, why=why)
        return _Plan(None, unsafe_alternative=f"split the try with a flag ({why})")

    def compiled_try_hazard(self, node: cst.Try, index: int, evidence: Evidence, func: cst.FunctionDef) -> str:
        """Why the split must not be made, or "": the rest of the body, compiled after the split
        (it ran eagerly in the skipped frame), may raise in traced code what a handler catches,
        which Dynamo gets wrong (see :func:`codemods.analysis.raises.traced_hazards`)."""
        rest = [s for i, s in enumerate(body_statements(node.body)) if i != index]
        if not rest:
            return ""
        own = function_scope_use(func).bound
        modules = frozenset(self.module_imports() - own)
        rebound = lambda name: name in own or name in self.module_names()  # noqa: E731
        hazards = traced_hazards(rest, evidence, modules, rebound)
        catcher = caught_by(node.handlers, hazards or frozenset(), rebound) if hazards else None
        if catcher is None:
            return ""
        kinds = sorted(hazards)
        what = []
        if {"KeyError", "AttributeError"} & set(kinds):
            what.append(
                "a lookup that misses (`KeyError`, `AttributeError`) is compiled without a guard on the "
                "missing key, so later calls that find it get the handler's values"
            )
        if {"RuntimeError", "IndexError"} & set(kinds):
            what.append("a tensor op that fails raises past the handler")
        return (
            f"not split: the rest of the `try` body would be compiled, and it may raise {describe(hazards)}, "
            f"which `except {catcher}` catches; Dynamo (torch 2.13) gets a handled exception of traced code "
            f"wrong: {'; '.join(what)}"
        )

    def module_imports(self) -> set[str]:
        """Names the module binds by ``import`` (their attributes exist when the file runs)."""
        if self._module_imports is None:
            found: set[str] = set()
            for statement in self.tree.body:
                if not isinstance(statement, cst.SimpleStatementLine):
                    continue
                for small in statement.body:
                    if isinstance(small, cst.Import):
                        for alias in small.names:
                            bound = alias.asname.name if alias.asname is not None else alias.name
                            found.add((dotted_name(bound) or "").split(".", 1)[0])
                    elif isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                        for alias in small.names:
                            bound = alias.asname.name if alias.asname is not None else alias.name
                            if isinstance(bound, cst.Name):
                                found.add(bound.value)
            self._module_imports = found
        return self._module_imports

    def bound_check(self, node: cst.Try, index: int, func: cst.FunctionDef) -> Callable[[str], bool]:
        """Whether a name is surely bound when statement ``index`` of ``node``'s body starts."""
        own = function_scope_use(func)
        before = surely_bound_before(func, node, index)
        deleted = ever_unbound(func)
        outer = [f for f in self.functions[:-1] if f is not None]

        def bound(name: str) -> bool:
            if name in deleted or name in own.nonlocal_decl:
                return False
            if name in own.bound and name not in own.global_decl:
                return before is not None and name in before
            if name not in own.global_decl:
                for enclosing in reversed(outer):
                    use = function_scope_use(enclosing)
                    if name in use.nonlocal_decl or (name in use.bound and name not in use.global_decl):
                        # A free variable: the enclosing function may not have bound it yet.
                        return False
            return name in self.module_names() or hasattr(builtins, name)

        return bound

    def module_names(self) -> set[str]:
        """Names bound at module level (found when first needed: most files need none)."""
        if self._module_names is None:
            self._module_names = name_use(self.tree.body).bound
        return self._module_names

    def split_refusal(self, node: cst.Try, sites: Sequence) -> str | None:
        if node.finalbody is not None:
            return "it has a `finally` clause"
        if any(handler.type is None for handler in node.handlers):
            return "a bare `except:` catches everything"
        if split_index(body_statements(node.body), sites) is None:
            return "the break is not a statement of the `try` body itself"
        return None

    def split(self, updated: cst.Try, index: int) -> list[cst.BaseStatement]:
        body = body_statements(updated.body)
        before, breaking, after = body[:index], body[index], body[index + 1 :]
        out: list[cst.BaseStatement] = []
        guarded: list[cst.BaseStatement] = [breaking.with_changes(leading_lines=())]
        if after:
            guarded.append(updated.with_changes(body=with_body(updated.body, after), leading_lines=()))
        elif updated.orelse is not None:
            guarded.extend(body_statements(updated.orelse.body))
        if not before:
            out.extend(guarded)
        elif not after:
            # the break ends the body: `else:` runs it exactly when the body completed
            orelse = [breaking, *(body_statements(updated.orelse.body) if updated.orelse is not None else ())]
            out.append(
                updated.with_changes(
                    body=with_body(updated.body, before),
                    orelse=cst.Else(body=cst.IndentedBlock(orelse)),
                )
            )
        else:
            flag = self.names.fresh("ok")
            out.append(_assign(flag, "False"))
            out.append(
                updated.with_changes(
                    body=with_body(updated.body, [*before, _assign(flag, "True")]),
                    orelse=None,
                    leading_lines=(),
                )
            )
            out.append(cst.If(test=cst.Name(flag), body=cst.IndentedBlock(guarded)))
        out[0] = out[0].with_changes(leading_lines=updated.leading_lines)
        return out


def _assign(name: str, value: str) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], cst.Name(value))])


_UNSAFE_WHY = "the breaking statement runs outside the handlers, so an exception it raises is no longer caught"
