"""Turn f-strings into equivalent ``str.format`` calls.

After a loop is unrolled into calls of a helper, Dynamo recompiles the
helper for the second index with the index as a dynamic ``SymInt``; an
f-string that formats a value derived from it then fails in the resume
function (torch 2.13: ``BUILD_STRING type error`` or ``TypeError: sequence
item 1: expected str instance, int found``). ``"{}".format(i)`` compiles.
``f"{x!r:>5}"`` and ``"{!r:>5}".format(x)`` call the same ``format`` and
``repr`` in the same order, so the change is exact. A self-documenting
field is its own source text and then the value: ``f"{x = }"`` is
``"x = {!r}".format(x)`` (``repr`` unless the field names a conversion or
a format spec, as Python does).
"""

from __future__ import annotations

from typing import Optional, Sequence

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
        conversion = part.conversion
        if part.equal is not None:
            text.append(_self_documenting_text(part, quote))
            if not conversion and not part.format_spec:
                conversion = "r"
        field = "{"
        if conversion:
            field += "!" + conversion
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


def _self_documenting_text(part: cst.FormattedStringExpression, quote: str) -> str:
    """What ``{x = }`` prints before the value: the field's source up to and with the ``=``, braces doubled."""
    assert part.equal is not None
    code = cst.Module(body=[]).code_for_node
    source = "".join(
        (
            code(part.whitespace_before_expression),
            code(part.expression),
            code(part.whitespace_after_expression),
            code(part.equal.whitespace_before),
            "=",
            code(part.equal.whitespace_after),
        )
    )
    # Since Python 3.12 a field may hold backslashes, its own quotes and line breaks:
    # none of them can be copied into a plain literal as they are.
    if "\\" in source or quote[0] in source or ("\n" in source and len(quote) == 1):
        raise Unconvertible("self-documenting f-string field (`{x=}`) whose source cannot be quoted")
    return source.replace("{", "{{").replace("}", "}}")


def unconvertible(statements: Sequence[cst.CSTNode]) -> Optional[str]:
    """Why some f-string in ``statements`` has no exact ``str.format`` spelling; None when all have one."""
    converter = FStringsToFormat()
    for statement in statements:
        statement.visit(converter)
        if converter.error:
            return converter.error
    return None


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
