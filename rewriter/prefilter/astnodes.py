"""Small questions about Python's own syntax trees that the prefilter's passes share."""

from __future__ import annotations

import ast
from typing import Optional


def dotted(node: ast.AST) -> Optional[str]:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def long_docstring(body: list[ast.stmt]) -> Optional[ast.Expr]:
    """The docstring opening ``body`` when it spans several lines (a one-line one is not worth blanking)."""
    first = body[0] if body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
        and (first.end_lineno or first.lineno) > first.lineno
    ):
        return first
    return None
