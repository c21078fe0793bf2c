"""Small helpers on libcst nodes that rules and analyses share."""

from __future__ import annotations

from typing import Callable, Optional

import libcst as cst

from codemods.fastcst import walk

#: nodes whose body is a scope of its own: code under them is not the enclosing function's
NESTED_SCOPES = walk.node_types(cst.FunctionDef, cst.Lambda, cst.ClassDef)


class OwnScopeOnly:
    """A libcst visitor or transformer mixin that stays in the scope it starts in: a nested
    function, lambda or class has its own names, returns and loop control, so it is not entered."""

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False


#: builtins whose result runs over (some of) the items of their first argument (``zip``: of each)
ITEM_BUILTINS = frozenset({"enumerate", "zip", "reversed", "sorted", "list", "tuple", "iter"})


def dotted_name(node: cst.BaseExpression) -> Optional[str]:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = dotted_name(node.value)
        return f"{head}.{node.attr.value}" if head else None
    return None


def self_attribute(node: cst.BaseExpression) -> Optional[str]:
    """``attr`` of ``self.attr``; None for any other expression."""
    name = dotted_name(node) or ""
    return name[5:] if name.startswith("self.") and name.count(".") == 1 else None


def self_attributes_made(cls: cst.ClassDef, made: Callable[[str], bool]) -> set[str]:
    """``self`` attributes a method of ``cls`` assigns the result of a call whose dotted callee
    ``made`` accepts (``self.lstm = nn.LSTM(...)`` for ``made("nn.LSTM")``)."""
    found: set[str] = set()
    for node in walk.descendants(cls.body):
        if type(node) is not cst.Assign or type(node.value) is not cst.Call:
            continue
        if not made(dotted_name(node.value.func) or ""):
            continue
        for target in node.targets:
            attribute = self_attribute(target.target)
            if attribute is not None:
                found.add(attribute)
    return found


def single_assignment(stmt: cst.BaseStatement) -> Optional[tuple[str, cst.BaseExpression]]:
    """(name, value) of ``name = value`` alone on its line."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
        return None
    small = stmt.body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        return small.targets[0].target.value, small.value
    return None


def body_statements(block: cst.BaseSuite) -> list[cst.BaseStatement]:
    if isinstance(block, cst.IndentedBlock):
        return list(block.body)
    assert isinstance(block, cst.SimpleStatementSuite)
    return [cst.SimpleStatementLine(body=list(block.body))]


def block_indent(node: cst.CSTNode) -> Optional[str]:
    """The indentation ``node``'s block uses, relative to ``node``; None: the module's default."""
    body = getattr(node, "body", None)
    return body.indent if isinstance(body, cst.IndentedBlock) else None


def contains(outer: cst.CSTNode, inner: cst.CSTNode) -> bool:
    """Whether ``inner`` is ``outer`` or lies below it (by identity)."""
    return outer is inner or any(node is inner for node in walk.descendants(outer))


def as_element(value: cst.BaseExpression) -> cst.BaseExpression:
    """``value`` ready to be one element of a new tuple: a bare ``a, b`` (``return a, b``) gets
    parentheses, or it would spread into the tuple around it."""
    if isinstance(value, cst.Tuple) and not value.lpar:
        return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return value
