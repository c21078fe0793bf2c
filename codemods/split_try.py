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
    reads) with plain arguments (names, constants, attributes, strings),
    and unsafe otherwise (``--unsafe-fixes``); when the break is reached
    through a call of a same-module function, which may do anything, the
    ``try`` is outlined instead. A ``finally`` clause, a bare
    ``except:``, ``except*``, a break not directly in the ``try`` body, or
    more than one breaking statement: the ``try`` is outlined (safe).
"""

from __future__ import annotations

from typing import Sequence, Union

import libcst as cst

from codemods.base import Example
from codemods.block_rule import BlockRule, split_index, with_body
from codemods.unroll_loop import body_statements

Replacement = Union[cst.BaseStatement, cst.FlattenSentinel[cst.BaseStatement]]


class SplitTry(BlockRule):
    CODE = "GBF004"
    NAME = "split-try"
    SUMMARY = "graph break inside a try block: split it with a flag, or outline it"
    SCREEN = ("try:",)
    SCREEN_HOLDERS = ("try",)
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
            before=(
                "def f(x):\n"
                "    try:\n"
                "        x = x + 1\n"
                "    except ValueError:\n"
                "        print(x)\n"
                "    return x\n"
            ),
            after=None,
        ),
    )

    def _holds_break(self, node: cst.Try) -> bool:
        return bool(self.breaks_in([node.body]))

    def visit_Try(self, node: cst.Try) -> None:
        self.enter_block(self.in_scope() is not None and self._holds_break(node))

    def leave_Try(self, original_node: cst.Try, updated_node: cst.Try) -> Replacement:
        func = self.in_scope()
        holds = func is not None and self._holds_break(original_node)
        outermost = self.leave_block(holds)
        if func is None or not holds or not outermost:
            return updated_node
        sites = self.breaks_in([original_node.body])
        where = f"{sites[0].reason.describe()}, line {self.line_of(sites[0].node)}"
        message = f"graph break inside a `try` block ({where}) makes Dynamo skip `{func.name.value}`"
        refusal = self.split_refusal(original_node, sites)
        if refusal is not None:
            return self.outline(original_node, updated_node, func, message)
        index = split_index(body_statements(original_node.body), sites)
        assert index is not None
        safe = _cannot_raise(body_statements(original_node.body)[index], self)
        if not safe and any(site.reason.via for site in sites):
            # The breaking statement calls a function that does more than the
            # break: taking all of that out of the handlers is not a split.
            return self.outline(original_node, updated_node, func, message)
        if safe or self.options.fix_mode == "unsafe":
            note = "" if safe else _UNSAFE_WHY
            if self.report(original_node, message, "safe" if safe else "unsafe", note=note):
                return cst.FlattenSentinel(self.split(updated_node, index))
            return updated_node
        return self.outline(original_node, updated_node, func, message,
                            unsafe_alternative=f"split the try with a flag ({_UNSAFE_WHY})")

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
        before, breaking, after = body[:index], body[index], body[index + 1:]
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
            out.append(updated.with_changes(
                body=with_body(updated.body, [*before, _assign(flag, "True")]),
                orelse=None,
                leading_lines=(),
            ))
            out.append(cst.If(test=cst.Name(flag), body=cst.IndentedBlock(guarded)))
        out[0] = out[0].with_changes(leading_lines=updated.leading_lines)
        return out


def _assign(name: str, value: str) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], cst.Name(value))])


def _cannot_raise(stmt: cst.BaseStatement, rule: BlockRule) -> bool:
    """A statement made only of non-raising catalogue calls with plain arguments."""
    if not isinstance(stmt, cst.SimpleStatementLine):
        return False
    return all(
        isinstance(small, cst.Expr) and _plain(small.value, rule, top=True) for small in stmt.body
    )


def _plain(expr: cst.BaseExpression, rule: BlockRule, top: bool = False) -> bool:
    if isinstance(expr, cst.Call):
        reason = rule.lookup(expr)
        if reason is None or reason.raises or reason.via:
            return False
        return all(_plain(arg.value, rule) for arg in expr.args) and (
            not isinstance(expr.func, cst.Attribute) or _plain(expr.func.value, rule)
        )
    if top:
        return False
    if isinstance(expr, (cst.Name, cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(expr, cst.Attribute):
        return _plain(expr.value, rule)
    if isinstance(expr, cst.ConcatenatedString):
        return _plain(expr.left, rule) and _plain(expr.right, rule)
    if isinstance(expr, cst.FormattedString):
        return all(
            _plain(part.expression, rule)
            for part in expr.parts if isinstance(part, cst.FormattedStringExpression)
        )
    if isinstance(expr, (cst.Tuple, cst.List)):
        return all(_plain(e.value, rule) for e in expr.elements)
    return False


_UNSAFE_WHY = (
    "the breaking statement runs outside the handlers, so an exception it "
    "raises is no longer caught"
)
