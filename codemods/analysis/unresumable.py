"""Graph breaks Dynamo cannot resume after, wherever they sit in a frame.

Dynamo resumes after a graph break only at a call or a conditional jump of
the frame it compiles. A break raised by any other bytecode instruction
makes it give up on the frame: on the whole of it, or, when an earlier
point to resume from exists, on the rest of it. Measured on torch 2.13 and
Python 3.11 (CPU, eager backend), in straight-line code with no loop,
``with`` or ``try``:

* ``not`` of a tensor used as a value (``has = ok and not mask.any()``,
  ``return not x.all()``) is the ``UNARY_NOT`` instruction: the frame is
  skipped. Written ``not bool(mask.any())`` it breaks at the call of
  ``bool``, Dynamo resumes, and the frame compiles. In a test (``if not
  mask.any():``, ``assert``, a ternary, a comprehension's ``if``) Python
  compiles ``not`` into the jump, and Dynamo resumes there already.
* calling an ``nn.LSTM``, ``nn.GRU`` or ``nn.RNN`` module: Dynamo refuses to
  trace it ("Attempted to wrap RNN, GRU, or LSTM") and skips the frame that
  makes the call. Its callers compile: for them the break is at a call.

:func:`unresumable_sites` finds both in a function's own code (nested
functions, lambdas and comprehensions are frames of their own).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Optional

import libcst as cst

from codemods.analysis.nodes import dotted_name, self_attributes_made
from codemods.analysis.tensors.cst import FunctionTensors, TensorFacts
from codemods.fastcst import walk

#: the recurrent modules Dynamo will not trace (``torch.nn`` class names)
RNN_MODULES = frozenset({"LSTM", "GRU", "RNN"})
#: a line whose ``not`` :func:`unresumable_sites` may read: not the test of an ``if``, ``elif``,
#: ``while`` or ``assert`` written on it
_TEST_LINE = r"\s*(?:if|elif|while|assert)\b"
#: from a ``not`` to the ``.any(``/``.all(`` of its operand on its line, with no ``and``/``or`` between
_NOT_ANY = r"not\b(?:(?!\b(?:and|or)\b)[^\n])*?\.(?:any|all)\s*\("
#: a ``not`` whose line ends with the parenthesis that opens its operand (``ok = not (``)
_NOT_OPEN = r"not\s*\(\s*(?:#[^\n]*)?$"
#: what a line of a file must hold for :func:`unresumable_sites` to find anything in the file
SCREEN_PATTERN = rf"^(?!{_TEST_LINE})[^\n]*?\b(?:{_NOT_ANY}|{_NOT_OPEN})|\b(?:LSTM|GRU|RNN)\s*\("
#: text one of which a line :data:`SCREEN_PATTERN` matches holds
SCREEN_WORDS = (".any", ".all", "not (", "not(", "LSTM", "GRU", "RNN")
_TEST_LINE_RE = re.compile(_TEST_LINE)
_NOT_ANY_RE = re.compile(_NOT_ANY)
_NOT_OPEN_RE = re.compile(_NOT_OPEN)
#: methods whose result's truth :func:`unresumable_sites` reads under ``not``
_TRUTH_METHODS = frozenset({"any", "all"})

_OWN_FRAMES = walk.node_types(
    cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp
)


@dataclass(frozen=True)
class Unresumable:
    """A break Dynamo cannot resume after."""

    #: the ``not`` operation, or the call of the recurrent module
    node: cst.CSTNode
    #: "not" or "rnn"
    kind: str
    #: inside a loop, ``with`` or ``try`` of the frame (the frame is skipped there anyway)
    held: bool


def rnn_attributes(cls: cst.ClassDef, torch_names: frozenset[str]) -> frozenset[str]:
    """``self`` attributes a method of ``cls`` assigns a recurrent module (``self.lstm = nn.LSTM(...)``)."""

    def recurrent(name: str) -> bool:
        head, _, last = name.rpartition(".")
        return last in RNN_MODULES and head.split(".", 1)[0] in torch_names

    return frozenset(self_attributes_made(cls, recurrent))


def unresumable_sites(
    func: cst.FunctionDef,
    cls: Optional[cst.ClassDef],
    tensors: FunctionTensors,
    start: Callable[[cst.CSTNode], tuple[int, int]],
    lines: Sequence[str],
) -> list[Unresumable]:
    """The breaks of ``func``'s own code Dynamo cannot resume after, in source order.

    A ``not`` counts when its operand is a call of ``.any()`` or ``.all()``
    of a tensor on evidence, written as :data:`SCREEN_PATTERN` finds it: on
    the line of the ``not``, with no ``and``/``or`` between, or in
    parentheses the ``not``'s line ends by opening (``ok = not (``, the call
    on the lines below), on a line that is not an ``if``, ``elif``,
    ``while`` or ``assert``. ``start`` gives a node's first (line, column);
    ``lines`` are the module's source lines.
    """
    facts = tensors.facts(func, cls)
    rnn = rnn_attributes(cls, tensors.torch_names()) if cls is not None else frozenset()
    finder = _Finder(facts, rnn, start, lines)
    finder.block(func.body, held=False)
    return finder.found


class _Finder:
    def __init__(
        self,
        facts: TensorFacts,
        rnn: frozenset[str],
        start: Callable[[cst.CSTNode], tuple[int, int]],
        lines: Sequence[str],
    ) -> None:
        self.facts = facts
        self.rnn = rnn
        self.start = start
        self.lines = lines
        self.found: list[Unresumable] = []

    def block(self, node: cst.CSTNode, held: bool) -> None:
        for child in walk.children(node):
            self.statement(child, held)

    def statement(self, node: cst.CSTNode, held: bool) -> None:
        if type(node) in _OWN_FRAMES:
            return
        if isinstance(node, cst.If):
            self.expression(node.test, test=True, held=held)
            self.block(node.body, held)
            if node.orelse is not None:
                self.statement(node.orelse, held)
        elif isinstance(node, (cst.Else, cst.IndentedBlock, cst.SimpleStatementSuite)):
            self.block(node, held)
        elif isinstance(node, cst.For):
            self.expression(node.iter, test=False, held=held)
            self._held_body(node.body, node.orelse)
        elif isinstance(node, cst.While):
            self.expression(node.test, test=True, held=True)
            self._held_body(node.body, node.orelse)
        elif isinstance(node, cst.With):
            for item in node.items:
                self.expression(item.item, test=False, held=held)
            self._held_body(node.body)
        elif isinstance(node, (cst.Try, cst.TryStar)):
            # except clauses run only after an exception: Dynamo never traces them
            self._held_body(node.body, node.orelse, node.finalbody)
        elif isinstance(node, cst.SimpleStatementLine):
            for small in node.body:
                if isinstance(small, cst.Assert):
                    self.expression(small.test, test=True, held=held)
                    if small.msg is not None:
                        self.expression(small.msg, test=False, held=held)
                else:
                    for part in walk.children(small):
                        self.expression(part, test=False, held=held)

    def _held_body(self, *parts: Optional[cst.CSTNode]) -> None:
        for part in parts:
            if part is not None:
                self.statement(part, True)

    def expression(self, node: cst.CSTNode, test: bool, held: bool) -> None:
        self.found.extend(self._sites(node, test, held))

    def _sites(self, node: cst.CSTNode, test: bool, held: bool) -> Iterator[Unresumable]:
        if type(node) in _OWN_FRAMES:
            return
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            if not test and self._truth_of_tensor(node):
                yield Unresumable(node, "not", held)
            yield from self._sites(node.expression, test, held)
            return
        if isinstance(node, cst.BooleanOperation):
            yield from self._sites(node.left, test, held)
            yield from self._sites(node.right, test, held)
            return
        if isinstance(node, cst.IfExp):
            yield from self._sites(node.test, True, held)
            yield from self._sites(node.body, test, held)
            yield from self._sites(node.orelse, test, held)
            return
        if isinstance(node, cst.Call):
            name = dotted_name(node.func) or ""
            if name.startswith("self.") and name[5:] in self.rnn:
                yield Unresumable(node, "rnn", held)
        for child in walk.children(node):
            yield from self._sites(child, False, held)

    def _truth_of_tensor(self, node: cst.UnaryOperation) -> bool:
        """``not x.any()`` / ``not (a < b).all()`` of a tensor, written as :data:`SCREEN_PATTERN` finds it."""
        operand = node.expression
        if type(operand) is not cst.Call or type(operand.func) is not cst.Attribute:
            return False
        if operand.func.attr.value not in _TRUTH_METHODS or not self.facts.is_tensor(operand.func.value):
            return False
        line, column = self.start(node)
        if not 0 < line <= len(self.lines):
            return False
        text = self.lines[line - 1]
        if _TEST_LINE_RE.match(text) is not None:
            return False
        if self.start(operand.func.attr)[0] == line:
            return _NOT_ANY_RE.match(text, column) is not None
        # `not (` ending its line opens the operand's own parentheses: the operand is the call
        return bool(operand.lpar) and _NOT_OPEN_RE.match(text, column) is not None
