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

    The ``else`` clause goes with the second part. When the split is not
    safe (see below) the default fix outlines the whole ``try`` into a
    helper, so only the helper is skipped.

Fix safety
    The break statement ends up outside every handler, so the split is
    exact only if that statement cannot raise what the handlers catch. It
    is safe when the statement is a call the break catalogue marks as not
    raising (``torch._dynamo.graph_break()``, ``print``, logger calls, time
    reads) with plain arguments, and unsafe otherwise. Plain: constants,
    strings, f-strings without a format spec (``{y:.3f}`` of a tensor of
    several elements raises), and names that are surely bound there (see
    below) and that the function binds to a tensor or a plain value (an
    object's ``__str__`` may raise, and a parameter without an annotation
    may be any object); not an attribute (``x.grad.shape`` raises when
    ``x.grad`` is None), a starred argument, or the level of
    ``.log(level, ...)``. When the break is reached through a call of a
    same-module function, which may do anything, the ``try`` is outlined
    instead. A ``finally`` clause, a bare ``except:``, ``except*``, a break not directly in the ``try`` body, or
    more than one breaking statement: the ``try`` is outlined (safe).
    Where every tensor op of the function is in the ``try`` and nothing
    else of it (no op, no comprehension) would come into a graph, an
    outline would move the skip, not remove it: the finding has no fix.

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

from codemods.analysis.frame_use import frame_refusal
from codemods.analysis.names.bindings import (
    ever_unbound,
    function_scope_use,
    name_use,
    surely_bound_before,
)
from codemods.analysis.nodes import body_statements
from codemods.analysis.tensors.cst import OTHER, TENSOR
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
            return self.outline(original_node, updated_node, func, message, unsafe_alternative=plan.unsafe_alternative)
        note = "" if plan.safe else _UNSAFE_WHY
        if self.report(original_node, message, "safe" if plan.safe else "unsafe", note=note):
            return cst.FlattenSentinel(self.split(updated_node, plan.split_at))
        return updated_node

    def plan(self, node: cst.Try, func: cst.FunctionDef) -> _Plan:
        """How the outermost breaking ``node`` (an original node in ``func``) is fixed."""
        sites = self.breaks_in([node.body])
        if self.split_refusal(node, sites) is not None or frame_refusal(func):
            return _Plan(None)  # the outline says why, or outlines
        index = split_index(body_statements(node.body), sites)
        assert index is not None
        facts = self.tensor_facts(func)
        # an unannotated parameter is a tensor to the inference on a guess (of `forward`): anything may come in
        params = {
            p.name.value
            for p in (*func.params.posonly_params, *func.params.params, *func.params.kwonly_params)
            if p.annotation is None
        }
        safe = _cannot_raise(
            body_statements(node.body)[index],
            self,
            self.bound_check(node, index, func),
            lambda expr: facts.kind(expr) in (TENSOR, OTHER) and getattr(expr, "value", None) not in params,
        )
        if not safe and any(site.reason.via for site in sites):
            # The breaking statement calls a function that does more than the
            # break: taking all of that out of the handlers is not a split.
            return _Plan(None)
        if safe or self.options.fix_mode == "unsafe":
            return _Plan(index, safe=safe)
        return _Plan(None, unsafe_alternative=f"split the try with a flag ({_UNSAFE_WHY})")

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


def _cannot_raise(
    stmt: cst.BaseStatement,
    rule: BlockRule,
    bound: Callable[[str], bool],
    printable: Callable[[cst.BaseExpression], bool],
) -> bool:
    """A statement made only of non-raising catalogue calls with plain arguments.

    ``bound`` says whether a name is surely bound there: reading one that
    is not may raise ``UnboundLocalError``/``NameError``. ``printable``
    whether a value is a tensor or a plain value, whose ``str()`` cannot raise.
    """
    if not isinstance(stmt, cst.SimpleStatementLine):
        return False
    return all(
        isinstance(small, cst.Expr) and _plain(small.value, rule, bound, printable, top=True) for small in stmt.body
    )


def _plain(
    expr: cst.BaseExpression,
    rule: BlockRule,
    bound: Callable[[str], bool],
    printable: Callable[[cst.BaseExpression], bool],
    top: bool = False,
) -> bool:
    def plain(node: cst.BaseExpression) -> bool:
        return _plain(node, rule, bound, printable)

    if isinstance(expr, cst.Call):
        reason = rule.lookup(expr)
        if reason is None or reason.raises or reason.via or any(arg.star for arg in expr.args):
            return False
        if isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "log":
            return False  # `logging.log(level, ...)`: a level that is not an int raises
        # the callee's own receiver (`logger` of `logger.info`) is read, not printed
        receiver = expr.func.value if isinstance(expr.func, cst.Attribute) else None
        if receiver is not None and not (
            isinstance(receiver, cst.Name)
            and bound(receiver.value)
            or isinstance(receiver, cst.Attribute)
            and _module_path(receiver)
        ):
            return False
        return all(plain(arg.value) for arg in expr.args)
    if top:
        return False
    if isinstance(expr, cst.Name):
        return bound(expr.value) and printable(expr)
    if isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(expr, cst.ConcatenatedString):
        return plain(expr.left) and plain(expr.right)
    if isinstance(expr, cst.FormattedString):
        return all(
            part.format_spec is None and plain(part.expression)
            for part in expr.parts
            if isinstance(part, cst.FormattedStringExpression)
        )
    if isinstance(expr, (cst.Tuple, cst.List)):
        return all(plain(e.value) for e in expr.elements)
    return False


def _module_path(node: cst.Attribute) -> bool:
    """``torch._dynamo`` of ``torch._dynamo.graph_break()``: attributes of a name, not of ``self``
    (``self.log`` may not be set)."""
    value: cst.BaseExpression = node
    while isinstance(value, cst.Attribute):
        value = value.value
    return isinstance(value, cst.Name) and value.value not in ("self", "cls")


_UNSAFE_WHY = "the breaking statement runs outside the handlers, so an exception it raises is no longer caught"
