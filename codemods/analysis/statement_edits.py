"""Planned edits of whole statement lines, and the small nodes they are built from.

The placement rules decide everything in one pass over the original tree
(where metadata is available), then apply the plan while the transformer
leaves each ``SimpleStatementLine``: replace it with other statements, or
insert statements after it. Comments above a replaced line stay above its
first replacement; a comment at its end stays at the end of its last.
"""

from __future__ import annotations

from typing import Optional, Sequence, Union, cast

import libcst as cst

Replacement = Union[cst.SimpleStatementLine, cst.FlattenSentinel[cst.BaseStatement]]


class StatementEdits:
    def __init__(self) -> None:
        self._replace: dict[int, list[cst.BaseSmallStatement]] = {}
        self._after: dict[int, list[cst.BaseStatement]] = {}
        self._swap: dict[int, tuple[int, cst.BaseSmallStatement]] = {}

    def replace(self, line: cst.SimpleStatementLine, smalls: Sequence[cst.BaseSmallStatement]) -> None:
        """Replace the one-statement ``line`` by one line per small statement."""
        self._replace[id(line)] = list(smalls)

    def swap(self, line: cst.SimpleStatementLine, small: cst.BaseSmallStatement, new: cst.BaseSmallStatement) -> None:
        """Replace one small statement of ``line`` in place (``a = 1; m = ...``)."""
        index = next(i for i, s in enumerate(line.body) if s is small)
        self._swap[id(line)] = (index, new.with_changes(semicolon=small.semicolon))

    def insert_after(self, line: cst.SimpleStatementLine, statements: Sequence[cst.BaseStatement]) -> None:
        self._after.setdefault(id(line), []).extend(statements)

    def __bool__(self) -> bool:
        return bool(self._replace or self._after or self._swap)

    def apply(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine) -> Replacement:
        smalls = self._replace.get(id(original))
        after = self._after.get(id(original), [])
        swap = self._swap.get(id(original))
        if swap is not None:
            body = list(updated.body)
            body[swap[0]] = swap[1]
            updated = updated.with_changes(body=body)
        if smalls is None and not after:
            return updated
        lines: list[cst.BaseStatement] = [updated]
        if smalls is not None:
            lines = [cst.SimpleStatementLine([s]) for s in smalls]
            lines[0] = lines[0].with_changes(leading_lines=updated.leading_lines)
            lines[-1] = lines[-1].with_changes(trailing_whitespace=updated.trailing_whitespace)
        lines.extend(after)
        return cst.FlattenSentinel(lines) if len(lines) > 1 else lines[0]  # type: ignore[return-value]


def assign(target: cst.BaseExpression, value: cst.BaseExpression) -> cst.Assign:
    return cst.Assign([cst.AssignTarget(cast(cst.BaseAssignTargetExpression, target.deep_clone()))], value)


def method_call(
    obj: cst.BaseExpression, method: str, source: Optional[cst.Call] = None, drop: Optional[cst.Arg] = None
) -> cst.Expr:
    """``obj.method(...)`` with the arguments of ``source`` except ``drop``, formatting kept."""
    args = [a for a in (source.args if source is not None else ()) if a is not drop]
    if args and source is not None and drop is source.args[-1]:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    call = cst.Call(func=cst.Attribute(obj.deep_clone(), cst.Name(method)), args=args)
    if source is not None and args:
        call = call.with_changes(
            whitespace_before_args=source.whitespace_before_args,
            whitespace_after_func=source.whitespace_after_func,
        )
    return cst.Expr(call)
