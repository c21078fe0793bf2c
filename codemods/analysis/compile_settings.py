"""Setting lines put before a file's ``torch.compile``: where ``gbfix advise --write`` puts a winner.

A Dynamo setting such as ``torch._dynamo.config.capture_scalar_outputs =
True`` takes effect for what is compiled after it runs, and it holds for the
whole process, so it belongs in the file that compiles, right before it
does: before the statement of the file's first compile site (a
``torch.compile(...)`` call, a ``.compile()`` of a module of the file, or a
def decorated with ``@torch.compile``), at that statement's indentation.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor, ImportItem

from codemods.analysis.project.compiled_code import CompiledCodeSurvey
from codemods.fastcst import walk


def insert_before_compile(source: str, lines: Sequence[str], imports: Sequence[str] = ()) -> Optional[str]:
    """``source`` with ``lines`` before its first compile site's statement; None when it has none.

    ``lines`` are whole statements, each may end with a comment; one whose
    code the file already has as a statement is not added again, so a second
    run changes nothing. ``imports`` are modules the lines name (``torch``,
    ``warnings``), imported at the top when the file does not import them.
    """
    module = cst.parse_module(source)
    survey = CompiledCodeSurvey()
    walk.visit_batched(module, [survey])
    compiled = survey.result()
    statements = [compiled.site_statements[id(s)] for s in compiled.sites if id(s) in compiled.site_statements]
    if not statements:
        return None
    present = {_code(line) for line in source.splitlines()}
    wanted = [line for line in lines if _code(line) not in present]
    if not wanted:
        return source
    target = _outside_class_bodies(module, statements[0])
    new = module.visit(_InsertBefore(target, [_statement(line) for line in wanted]))
    if imports:
        new = AddImportsVisitor(CodemodContext(), [ImportItem(name) for name in imports]).transform_module(new)
    return new.code


def _code(line: str) -> str:
    """A line's code without its comment and spacing (``#`` in a string is not a comment here)."""
    return line.split("  #", 1)[0].strip()


def _statement(line: str) -> cst.SimpleStatementLine:
    statement = cst.parse_statement(line + "\n")
    assert isinstance(statement, cst.SimpleStatementLine)
    return statement


def _outside_class_bodies(module: cst.Module, statement: cst.BaseStatement) -> cst.BaseStatement:
    """``statement``, or the class it is a method of (the outermost of nested classes).

    A setting in a class body would run while the class is defined: before
    the class reads better, and it is the same moment.
    """
    finder = _Enclosing(statement)
    module.visit(finder)
    return finder.found or statement


class _Enclosing(cst.CSTVisitor):
    def __init__(self, target: cst.BaseStatement) -> None:
        super().__init__()
        self.target = target
        self.stack: list[cst.CSTNode] = []
        self.found: Optional[cst.BaseStatement] = None

    def on_visit(self, node: cst.CSTNode) -> bool:
        if node is self.target:
            outermost = None
            for enclosing in reversed(self.stack):
                if not isinstance(enclosing, cst.ClassDef):
                    break
                outermost = enclosing
            self.found = outermost
            return False
        if isinstance(node, (cst.ClassDef, cst.FunctionDef)):
            self.stack.append(node)
        return self.found is None

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if self.stack and self.stack[-1] is original_node:
            self.stack.pop()


class _InsertBefore(cst.CSTTransformer):
    def __init__(self, target: cst.BaseStatement, lines: list[cst.SimpleStatementLine]) -> None:
        super().__init__()
        self.target = target
        self.lines = lines

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> Any:
        if original_node is not self.target:
            return updated_node
        assert isinstance(updated_node, cst.BaseStatement)
        first = self.lines[0].with_changes(leading_lines=getattr(updated_node, "leading_lines", ()))
        rest = updated_node.with_changes(leading_lines=())
        return cst.FlattenSentinel([first, *self.lines[1:], rest])
