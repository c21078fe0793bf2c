"""Turn f-strings into equivalent ``str.format`` calls.

After a loop is unrolled into calls of a helper, Dynamo recompiles the
helper for the second index with the index as a dynamic ``SymInt``; an
f-string that formats a value derived from it then fails in the resume
function (torch 2.13: ``BUILD_STRING type error`` or ``TypeError: sequence
item 1: expected str instance, int found``). ``"{}".format(i)`` compiles.
``f"{x!r:>5}"`` and ``"{!r:>5}".format(x)`` call the same ``format`` and
``repr`` in the same order, so the change is exact.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst


class Unconvertible(Exception):
    """An f-string shape with no exact ``str.format`` spelling we trust."""


def _spec_text(parts: tuple[cst.BaseFormattedStringContent, ...], args: list[cst.Arg]) -> str:
    text = []
    for part in parts:
        if isinstance(part, cst.FormattedStringText):
            text.append(part.value)
        elif isinstance(part, cst.FormattedStringExpression):
            if part.conversion or part.format_spec or part.equal:
                raise Unconvertible("nested replacement field with its own conversion")
            args.append(cst.Arg(part.expression))
            text.append("{}")
    return "".join(text)


def to_format_call(node: cst.FormattedString) -> cst.BaseExpression:
    """The ``"...".format(...)`` call equal to ``node``; raises Unconvertible."""
    prefix = node.prefix.lower().replace("f", "")
    quote = node.start[len(node.prefix) :]
    args: list[cst.Arg] = []
    text: list[str] = []
    for part in node.parts:
        if isinstance(part, cst.FormattedStringText):
            text.append(part.value)
            continue
        assert isinstance(part, cst.FormattedStringExpression)
        if part.equal is not None:
            raise Unconvertible("self-documenting f-string field (`{x=}`)")
        field = "{"
        if part.conversion:
            field += "!" + part.conversion
        args.append(cst.Arg(part.expression))
        if part.format_spec:
            field += ":" + _spec_text(tuple(part.format_spec), args)
        text.append(field + "}")
    if not args:
        return node
    literal = cst.SimpleString(f"{prefix}{quote}{''.join(text)}{quote}")
    return cst.Call(
        func=cst.Attribute(value=literal, attr=cst.Name("format")),
        args=[
            arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) if i < len(args) - 1 else arg
            for i, arg in enumerate(args)
        ],
    )


class FStringsToFormat(cst.CSTTransformer):
    """Rewrites every f-string with replacement fields in the visited code."""

    def __init__(self) -> None:
        self.error: Optional[str] = None

    def leave_ConcatenatedString(
        self, original_node: cst.ConcatenatedString, updated_node: cst.ConcatenatedString
    ) -> cst.BaseExpression:
        for side in (original_node.left, original_node.right):
            if isinstance(side, cst.FormattedString) and any(
                isinstance(p, cst.FormattedStringExpression) for p in side.parts
            ):
                self.error = "an f-string in an implicit concatenation"
        return updated_node

    def leave_FormattedString(
        self, original_node: cst.FormattedString, updated_node: cst.FormattedString
    ) -> cst.BaseExpression:
        try:
            return to_format_call(updated_node)
        except Unconvertible as exc:
            self.error = str(exc)
            return updated_node
