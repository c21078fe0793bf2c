"""GBF011 recorded-skip: a frame a real run ran eagerly that no other rule explains.

What it finds
    With ``--trace``, every frame of the scanned files that the recorded run
    shows Dynamo gave up on (a failed compilation, or a break it could not
    resume after) and in which no recorded break sits inside a loop,
    ``with`` or ``try`` of that frame: the skips the structural rules
    (GBF001-GBF004) cannot see. Typical ones are a decorator's wrapper whose
    ``try`` holds the call of the wrapped function (the run records the
    break deep inside the callee, not the wrapper's line), a module built
    inside compiled code, an LSTM, a comprehension that iterates something
    Dynamo cannot (a frame of its own on Python 3.11), or a resume function
    past the recompile limit. The finding names the frame, the break that
    made Dynamo give up and where it was, and how many tensor ops are
    written in the frame itself: what the skip costs.

Why it skips the frame
    Dynamo resumes after a graph break only in straight-line code of the
    frame it compiles; a break that reaches it through a call made inside a
    loop, ``with`` or ``try``, or a construct it cannot trace at all, makes
    it run the whole frame (or the rest of it) eagerly. Only the ops written
    in the frame are lost: the functions and modules it calls are compiled
    as frames of their own. A frame with no inline tensor op is reported as
    having nothing to capture, so it can be ranked last.

Example
    def traced(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            try:
                return func(*args, **kwargs)
            finally:
                CALLS.append(func.__name__)

        return wrapper

Rewritten
    Never: a run recorded that ``wrapper`` was skipped because the function
    it wraps broke, and the finding says so. Fix the break it names (often
    in the callee, where the other rules act), or accept the skip when there
    is nothing to capture.

Fix safety
    None; the finding only reports.
"""

from __future__ import annotations

import re
from typing import Iterator, Optional

import libcst as cst

from codemods.analysis.tensors.cst import FunctionTensorsProvider
from codemods.analysis.unresumable import unresumable_sites
from codemods.fastcst import walk
from codemods.fastcst.positions import LazyPositionProvider
from codemods.rules.base import Example, Prefilter, RecordedSkip, Rule

_RESUME = re.compile(r"^torch_dynamo_resume_in_(?P<name>.+)_at_(?P<line>\d+)$")
#: statements whose recorded break another rule reports (the structural rules' holders)
_HOLDERS = walk.node_types(cst.For, cst.While, cst.With, cst.Try, cst.TryStar)
_SCOPES = walk.node_types(cst.FunctionDef, cst.ClassDef)
#: what holds statements: a comprehension's statement may sit in an ``else``, ``except`` or ``finally``
_STATEMENT_HOLDERS = (
    cst.Module,
    cst.BaseSuite,
    cst.BaseStatement,
    cst.Else,
    cst.ExceptHandler,
    cst.ExceptStarHandler,
    cst.Finally,
)

Method = tuple[cst.FunctionDef, Optional[cst.ClassDef]]


def _definitions(node: cst.CSTNode, cls: Optional[cst.ClassDef]) -> Iterator[Method]:
    """Every ``def`` under ``node`` in walk order, with the class it is a method of."""
    for child in walk.children(node):
        if type(child) is cst.FunctionDef:
            yield child, cls
            yield from _definitions(child, None)
        elif type(child) is cst.ClassDef:
            yield from _definitions(child, child)
        elif type(child) in walk.STATEMENT_HOLDERS:
            yield from _definitions(child, cls)


class RecordedSkipRule(Rule):
    CODE = "GBF011"
    NAME = "recorded-skip"
    SUMMARY = "a frame a recorded run ran eagerly that no loop, with or try explains: what it was and what it cost"
    METADATA_DEPENDENCIES = (LazyPositionProvider, FunctionTensorsProvider)
    PREFILTER = Prefilter(needs_break=False, recorded_only=True)
    REPORTS_ONLY = True
    #: a frame whose recorded break is a `not` or an RNN module GBF012 reports is GBF012's
    DEFERS_TO = ("GBF012",)
    EXAMPLES = (
        Example(
            before=(
                "import functools\n"
                "\n"
                "\n"
                "def traced(func):\n"
                "    @functools.wraps(func)\n"
                "    def wrapper(*args, **kwargs):\n"
                "        try:\n"
                "            return func(*args, **kwargs)\n"
                "        finally:\n"
                "            pass\n"
                "\n"
                "    return wrapper\n"
            ),
            after=None,
            config={
                "recorded_skips": {
                    "example.py": frozenset({RecordedSkip(5, "wrapper", "Data-dependent branching at model.py:12")})
                }
            },
        ),
    )

    def transform(self, tree: cst.Module) -> cst.Module:
        if not self.options.recorded_skips:
            return tree
        self._defs = list(_definitions(tree, None))
        for skip in sorted(self.options.recorded_skips, key=lambda s: (s.line, s.name)):
            self._report_skip(tree, skip)
        return tree

    # -- finding the frame --------------------------------------------------------
    def _report_skip(self, tree: cst.Module, skip: RecordedSkip) -> None:
        resumed = _RESUME.match(skip.name)
        if skip.name.startswith("<"):
            statement = self._statement_at(tree, skip.line)
            if statement is not None:
                self._report_comprehension(statement, skip)
            return
        name = resumed.group("name") if resumed else skip.name
        found = self._function(name, skip.line, inside=resumed is not None)
        if found is None:
            return
        func, cls = found
        if self._explained(func) or self._unresumable_here(tree, func, cls):
            return
        ops = self.get_metadata(FunctionTensorsProvider, tree).inline_ops(func, cls)
        cost = (
            f"its {ops} inline tensor op{'s' if ops != 1 else ''} ran eagerly"
            if ops
            else "nothing to capture: it runs no tensor op of its own"
        )
        part = "the rest of " if skip.partial or resumed else ""
        self.report(
            func,
            f"a recorded run ran {part}`{func.name.value}` eagerly ({skip.reason}); {cost}",
            "none",
            note="no loop, `with` or `try` of this frame holds what broke: fix the break it names, or accept the skip",
            evidence="recorded",
        )

    def _report_comprehension(self, statement: cst.CSTNode, skip: RecordedSkip) -> None:
        self.report(
            statement,
            f"a recorded run ran the `{skip.name}` of line {skip.line} eagerly ({skip.reason}), "
            "a frame of its own on Python 3.11",
            "none",
            note="Dynamo could not trace the comprehension; build the value outside compiled code",
            evidence="recorded",
        )

    def _function(self, name: str, line: int, inside: bool) -> Optional[Method]:
        """The ``def`` Dynamo named: first line ``line`` (decorators included), or, for a
        resume function, the innermost one holding ``line``."""
        best: Optional[Method] = None
        for func, cls in self._defs:
            if func.name.value != name:
                continue
            span = self.get_metadata(LazyPositionProvider, func)
            first = min([span.start.line, *(self.line_of(d) for d in func.decorators)])
            if not inside and line in (first, self.line_of(func.name)):
                return func, cls
            if inside and span.start.line <= line <= span.end.line:
                best = (func, cls)  # walk order: a nested def comes after the one holding it
        return best

    def _statement_at(self, tree: cst.Module, line: int) -> Optional[cst.CSTNode]:
        """The innermost statement whose first line is ``line`` or whose span holds it."""
        best: Optional[cst.CSTNode] = None
        for node in walk.descendants(tree, lambda n: isinstance(n, _STATEMENT_HOLDERS)):
            if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                span = self.get_metadata(LazyPositionProvider, node)
                if span.start.line <= line <= span.end.line:
                    best = node
        return best

    def _held_from(self, holder: cst.CSTNode, first: int) -> int:
        """The first line of what a holder's rule acts on: the body of a ``with`` or ``for``
        (a break entering the context manager, or making the iterable, runs once, outside
        what GBF003 splits or the loop rules repeat); all of a ``while`` or ``try``."""
        if isinstance(holder, (cst.With, cst.For)) and isinstance(holder.body, cst.IndentedBlock):
            return self.line_of(holder.body.body[0])
        return first

    def _unresumable_here(self, tree: cst.Module, func: cst.FunctionDef, cls: Optional[cst.ClassDef]) -> bool:
        """Whether a recorded break of ``func`` is a break GBF012, active in this run, reports
        (a run records a break at the first line of the statement that holds it)."""
        recorded = self.options.recorded_break_lines
        if not recorded or not self.defers_to("GBF012"):
            return False
        tensors = self.get_metadata(FunctionTensorsProvider, tree)
        lines = {
            self.line_of(site.node)
            for site in unresumable_sites(func, cls, tensors, self.start_of, self.source_lines())
            if site.kind == "rnn" or not site.held
        }
        if not lines:
            return False
        for statement in walk.descendants(func.body, lambda node: type(node) not in _SCOPES):
            if type(statement) is cst.SimpleStatementLine:
                span = self.get_metadata(LazyPositionProvider, statement)
                if span.start.line in recorded and any(span.start.line <= line <= span.end.line for line in lines):
                    return True
        return False

    def _explained(self, func: cst.FunctionDef) -> bool:
        """Whether a recorded break of ``func``'s own code sits in a loop, ``with`` or ``try``:
        the structural rules report that skip."""
        recorded = self.options.recorded_break_lines
        if not recorded:
            return False
        stack: list[cst.CSTNode] = [func.body]
        while stack:
            node = stack.pop()
            for child in walk.children(node):
                if type(child) in _SCOPES:
                    continue
                if type(child) in _HOLDERS:
                    span = self.get_metadata(LazyPositionProvider, child)
                    start = self._held_from(child, span.start.line)
                    if any(start <= line <= span.end.line for line in recorded):
                        return True
                if type(child) in walk.STATEMENT_HOLDERS:
                    stack.append(child)
        return False
