"""What a statement may raise, and whether a ``try``'s handlers may catch it.

A fix that moves a statement out of a ``try`` (GBF004 hoists a breaking
first statement before it, moves a breaking last one to ``else:``, or splits
the body around it) keeps behaviour only if no handler could have caught what
the statement raises. This module answers from what the statement is, on
evidence, and says "anything" where it cannot tell:

* an assignment to plain names raises what its value raises;
* a catalogue call that cannot raise (``print``, logger methods, time reads,
  ``torch._dynamo.graph_break()``) raises what its arguments raise, and what
  turning an argument into text raises (nothing for a tensor or a plain
  value; anything for another object, whose ``__str__`` is unknown);
  ``warnings.warn`` raises a ``Warning`` (a filter may make it an error) or
  a ``TypeError`` (a category that is not a warning class);
* a read of a tensor's own facts (``h.dtype``, ``h.shape``, ``h.device``…)
  of a name the tensor inference knows to be a tensor raises nothing; an
  index into ``h.shape`` an ``IndexError``;
* ``.item()`` / ``.tolist()`` and an argument-free reduction or conversion
  of a tensor (``mask.sum()``) raise a ``RuntimeError`` (an element count,
  a dtype or a device error);
* ``int()`` / ``float()`` of a tensor of several elements raise a
  ``ValueError``; of a 0-dim reduction (``int(mask.sum())``) they cannot:
  ``float()`` then raises only a ``RuntimeError`` (a complex value), and
  ``int()`` as well when the reduction is integral (a sum, max or min of a
  bool tensor, a count, an ``argmax``, ``any``/``all``), but a float
  reduction may be NaN (``ValueError``) or infinite (``OverflowError``);
  ``bool()`` raises a ``RuntimeError`` (several elements);
* reading a name that may be unbound raises a ``NameError``
  (``UnboundLocalError`` is one).

The exceptions are builtin classes, by name. A handler catches one when
either class derives from the other (``except Exception`` catches a
``RuntimeError``; ``except NotImplementedError`` may catch one torch raises
as its subclass); a handler naming a class that is not a builtin (a
library's, or a builtin's name rebound in the file) may catch anything.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Callable, Iterable, Optional, Sequence

import libcst as cst

from codemods.analysis.breaks.cst import BreakReason
from codemods.analysis.nodes import dotted_name
from codemods.analysis.tensors.cst import OTHER, TENSOR, TensorFacts

#: the builtin exception classes an expression may raise, by name; None: it may raise anything
Raised = Optional[frozenset[str]]

NOTHING: frozenset[str] = frozenset()

#: attributes of a tensor that are plain facts and never raise on a tensor
TENSOR_FACTS = frozenset({"shape", "dtype", "device", "ndim", "is_cuda", "requires_grad", "layout", "is_sparse"})
#: argument-free tensor methods that reduce it to one element (a 0-dim tensor)
REDUCTIONS = frozenset({"sum", "mean", "max", "min", "amax", "amin", "prod", "norm", "any", "all"})
#: reductions whose result is integral whatever the tensor holds
INTEGRAL_REDUCTIONS = frozenset({"count_nonzero", "argmax", "argmin", "any", "all"})
#: reductions whose result is integral when the tensor is a bool one (sum counts it)
BOOL_INTEGRAL_REDUCTIONS = frozenset({"sum", "max", "min", "amax", "amin", "prod"})
#: argument-free tensor methods that raise at most a ``RuntimeError`` (dtype or device errors)
PLAIN_TENSOR_METHODS = REDUCTIONS | INTEGRAL_REDUCTIONS | {"float", "long", "int", "bool", "double", "detach", "clone"}
#: what each catalogue entry that may raise raises, where it is known (its arguments aside)
RAISED_BY_ENTRY: dict[str, frozenset[str]] = {
    "warnings.warn": frozenset({"Warning", "TypeError"}),
    "item": frozenset({"RuntimeError"}),
    "tolist": frozenset({"RuntimeError"}),
}

_RUNTIME = frozenset({"RuntimeError"})


@dataclass(frozen=True)
class Evidence:
    """What the statement's function says about the names it reads."""

    #: why a call breaks (the break analysis), or None: not a catalogue call
    lookup: Callable[[cst.Call], Optional[BreakReason]]
    #: whether a name is surely bound where the statement runs
    bound: Callable[[str], bool]
    facts: TensorFacts
    #: names that may hold any object whatever the inference guesses (a parameter without an annotation)
    opaque: frozenset[str] = frozenset()

    def is_tensor_name(self, expr: cst.BaseExpression) -> bool:
        """A bound name the inference knows to hold a tensor."""
        return (
            isinstance(expr, cst.Name)
            and expr.value not in self.opaque
            and self.bound(expr.value)
            and self.facts.kind(expr) == TENSOR
        )

    def printable(self, expr: cst.BaseExpression) -> bool:
        """Whether ``str()`` of the value cannot raise: a tensor or a plain value."""
        if isinstance(expr, cst.Name) and expr.value in self.opaque:
            return False
        return self.facts.kind(expr) in (TENSOR, OTHER)


def union(parts: Iterable[Raised]) -> Raised:
    found: set[str] = set()
    for part in parts:
        if part is None:
            return None
        found |= part
    return frozenset(found)


def statement_raises(stmt: cst.BaseStatement, evidence: Evidence) -> Raised:
    """What running ``stmt`` may raise: an assignment to plain names, or expression
    statements; anything for another statement."""
    if not isinstance(stmt, cst.SimpleStatementLine):
        return None
    return union(_small_raises(small, evidence) for small in stmt.body)


def _small_raises(small: cst.BaseSmallStatement, evidence: Evidence) -> Raised:
    if isinstance(small, cst.Pass):
        return NOTHING
    if isinstance(small, cst.Expr):
        return expression_raises(small.value, evidence, output=False)
    if isinstance(small, cst.Assign) and all(isinstance(t.target, cst.Name) for t in small.targets):
        return expression_raises(small.value, evidence, output=False)
    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) and small.value is not None:
        return expression_raises(small.value, evidence, output=False)
    return None


def expression_raises(expr: cst.BaseExpression, evidence: Evidence, output: bool) -> Raised:
    """What evaluating ``expr`` may raise; with ``output``, turning its value into text too
    (an argument of ``print`` or a logger call)."""
    raised = _evaluation_raises(expr, evidence)
    if output and raised is not None and not evidence.printable(expr):
        return None
    return raised


def _evaluation_raises(expr: cst.BaseExpression, evidence: Evidence) -> Raised:
    if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)):
        return NOTHING
    if isinstance(expr, cst.Name):
        if expr.value in ("True", "False", "None") or evidence.bound(expr.value):
            return NOTHING
        return frozenset({"NameError"})
    if isinstance(expr, cst.ConcatenatedString):
        return union((_evaluation_raises(expr.left, evidence), _evaluation_raises(expr.right, evidence)))
    if isinstance(expr, cst.FormattedString):
        parts = [part for part in expr.parts if isinstance(part, cst.FormattedStringExpression)]
        if any(part.format_spec is not None for part in parts):
            return None  # ``{y:.3f}`` of a tensor of several elements raises
        return union(expression_raises(part.expression, evidence, output=True) for part in parts)
    if isinstance(expr, (cst.Tuple, cst.List)):
        if any(isinstance(element, cst.StarredElement) for element in expr.elements):
            return None
        return union(_evaluation_raises(element.value, evidence) for element in expr.elements)
    if isinstance(expr, cst.Attribute):
        # only a name's: ``x.grad.shape`` raises when ``x.grad`` is None
        if expr.attr.value in TENSOR_FACTS and evidence.is_tensor_name(expr.value):
            return NOTHING
        return None
    if isinstance(expr, cst.Subscript):
        return _shape_index_raises(expr, evidence)
    if isinstance(expr, cst.Call):
        return _call_raises(expr, evidence)
    return None


def _shape_index_raises(expr: cst.Subscript, evidence: Evidence) -> Raised:
    """``h.shape[0]``: an ``IndexError`` past the tensor's dimensions."""
    if len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Index):
        return None
    index = expr.slice[0].slice.value
    if isinstance(index, cst.UnaryOperation) and isinstance(index.operator, cst.Minus):
        index = index.expression
    if not isinstance(index, cst.Integer) or not isinstance(expr.value, cst.Attribute):
        return None
    if expr.value.attr.value != "shape":
        return None
    base = _evaluation_raises(expr.value, evidence)
    return None if base is None else base | {"IndexError"}


def _call_raises(call: cst.Call, evidence: Evidence) -> Raised:
    if any(arg.star for arg in call.args):
        return None
    reason = evidence.lookup(call)
    if reason is None:
        return _tensor_method_raises(call, evidence)
    if reason.via:
        return None  # a function of the module that breaks may do anything else too
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "log" and not reason.raises:
        return None  # ``logging.log(level, ...)``: a level that is not an int raises
    if reason.entry in ("builtins.int", "builtins.float", "builtins.bool"):
        return _scalar_read_raises(call, reason.entry.rpartition(".")[2], evidence)
    if reason.entry in ("item", "tolist") and isinstance(func, cst.Attribute):
        receiver = func.value
        if not evidence.is_tensor_name(receiver) and _reduction_of_a_tensor(receiver, evidence) is None:
            return None
        receiver_raised = _evaluation_raises(receiver, evidence)
        return None if receiver_raised is None else receiver_raised | RAISED_BY_ENTRY[reason.entry]
    own: frozenset[str]
    if not reason.raises:
        own = NOTHING
    elif reason.entry in RAISED_BY_ENTRY:
        own = RAISED_BY_ENTRY[reason.entry]
    else:
        return None
    if isinstance(func, cst.Attribute) and not _receiver_reads_safely(func.value, evidence):
        return None
    return union((own, *(expression_raises(arg.value, evidence, output=True) for arg in call.args)))


def _receiver_reads_safely(receiver: cst.BaseExpression, evidence: Evidence) -> bool:
    """The callee's own receiver (``logger`` of ``logger.info``) is read, not printed: a bound
    name, or a dotted path from a bound name other than ``self``/``cls`` (``self.log`` may be unset)."""
    if isinstance(receiver, cst.Name):
        return evidence.bound(receiver.value)
    name = dotted_name(receiver)
    head = name.split(".", 1)[0] if name else ""
    return bool(head) and head not in ("self", "cls") and evidence.bound(head)


def _tensor_method_raises(call: cst.Call, evidence: Evidence) -> Raised:
    """``mask.sum()``: an argument-free reduction or conversion of a tensor name."""
    func = call.func
    if call.args or not isinstance(func, cst.Attribute) or func.attr.value not in PLAIN_TENSOR_METHODS:
        return None
    if not evidence.is_tensor_name(func.value):
        return None
    return _RUNTIME


def _reduction_of_a_tensor(expr: cst.BaseExpression, evidence: Evidence) -> Optional[bool]:
    """For an argument-free reduction of a tensor name (a 0-dim tensor), whether its value is
    integral; None for anything else."""
    if not isinstance(expr, cst.Call) or expr.args or not isinstance(expr.func, cst.Attribute):
        return None
    method = expr.func.attr.value
    receiver = expr.func.value
    if method not in REDUCTIONS | INTEGRAL_REDUCTIONS or not evidence.is_tensor_name(receiver):
        return None
    return method in INTEGRAL_REDUCTIONS or (
        method in BOOL_INTEGRAL_REDUCTIONS and evidence.facts.is_bool_tensor(receiver)
    )


def _scalar_read_raises(call: cst.Call, builtin: str, evidence: Evidence) -> Raised:
    """``int(t)``, ``float(t)``, ``bool(t)`` of a tensor (measured on torch 2.13, CPU)."""
    if len(call.args) != 1 or call.args[0].keyword is not None or not evidence.bound(builtin):
        return None
    value = call.args[0].value
    argument = _evaluation_raises(value, evidence)
    if argument is None:
        return None
    integral = _reduction_of_a_tensor(value, evidence)
    if integral is None:
        if not evidence.is_tensor_name(value):
            return None
        # several elements: int()/float() raise ValueError, bool() RuntimeError
        own = _RUNTIME if builtin == "bool" else frozenset({"ValueError", "OverflowError", "RuntimeError"})
    elif builtin == "int" and not integral:
        own = frozenset({"ValueError", "OverflowError", "RuntimeError"})  # NaN, infinity, complex
    else:
        own = _RUNTIME  # a complex value; a device error
    return argument | own


def handler_classes(handler: cst.ExceptHandler) -> Optional[list[cst.BaseExpression]]:
    """The class expressions a handler names; None for a bare ``except:``."""
    if handler.type is None:
        return None
    if isinstance(handler.type, cst.Tuple):
        return [element.value for element in handler.type.elements]
    return [handler.type]


def caught_by(handlers: Sequence[cst.ExceptHandler], raised: Raised, rebound: Callable[[str], bool]) -> Optional[str]:
    """The first handler class (as written) that may catch something in ``raised``, or None.

    ``rebound`` says whether a builtin's name is bound to something else in the file.
    """
    for handler in handlers:
        classes = handler_classes(handler)
        if classes is None:
            return "a bare `except:`"
        for expr in classes:
            written = dotted_name(expr) or "?"
            if raised is None:
                return written
            known = _builtin_exception(expr, rebound)
            if known is None:
                if raised:
                    return written
                continue
            for name in raised:
                cls = getattr(builtins, name)
                if issubclass(cls, known) or issubclass(known, cls):
                    return written
    return None


def _builtin_exception(expr: cst.BaseExpression, rebound: Callable[[str], bool]) -> Optional[type]:
    if not isinstance(expr, cst.Name) or rebound(expr.value):
        return None
    found = getattr(builtins, expr.value, None)
    return found if isinstance(found, type) and issubclass(found, BaseException) else None


def describe(raised: Raised) -> str:
    """``RuntimeError or ValueError``; ``anything`` when it cannot be told."""
    if raised is None:
        return "anything"
    return " or ".join(sorted(raised)) or "nothing"


# -- what a compiled ``try`` body gets wrong -----------------------------------------------
#
# Measured on torch 2.13 (tests/test_compiled_try_hazard.py; every backend: the counting
# one, eager, aot_eager, inductor). When code that Dynamo traces inside a ``try`` raises,
# and a handler of that ``try`` catches it, the compiled result is wrong in two ways:
#
# * a lookup that misses (``d["k"]`` on a dict or ``ModuleDict``, ``o.k`` or ``getattr(o, "k")``
#   on an object without it, in the body or in a function it calls) is traced into the
#   handler's path without a guard on the missing key: a later call where the key is
#   present reuses that graph and returns the handler's values (max abs diff 1.0-2.0 on
#   random inputs); a later call that misses again reuses it correctly;
# * a tensor op that fails (a shape mismatch while tracing, an index out of range when the
#   graph runs) escapes the handler: the call raises where eagerly the handler ran.
#
# Not affected: an ``IndexError`` of a list index, a ``ValueError`` of ``int("x")`` or of an
# unpacking, ``StopIteration`` of ``next()``, ``dict.pop`` of a missing key, and an explicit
# ``raise`` (what it depends on is guarded), nor anything when the ``try`` is not traced.

#: what a lookup that misses raises while traced
_LOOKUP_MISSES = frozenset({"KeyError", "AttributeError"})
#: what a tensor op that fails raises (a shape or dtype error, an index out of range)
_TENSOR_FAILURES = frozenset({"RuntimeError", "IndexError"})
#: everything :func:`traced_hazards` may answer: what is assumed where the body cannot be read
TRACED_HAZARDS = _LOOKUP_MISSES | _TENSOR_FAILURES
#: builtins that run no user code of their own and cannot miss a lookup
_PLAIN_BUILTINS = frozenset(
    {
        "len", "int", "float", "bool", "str", "repr", "print", "isinstance", "issubclass",
        "range", "enumerate", "zip", "tuple", "list", "dict", "set", "frozenset", "min", "max",
        "abs", "round", "sum", "any", "all", "sorted", "reversed", "hasattr", "id", "type",
        "callable", "divmod", "pow", "format",
    }
)  # fmt: skip


def unannotated_params(func: cst.FunctionDef, facts: Optional[TensorFacts] = None) -> frozenset[str]:
    """Parameters without an annotation: a tensor to the inference on a guess (of ``forward``),
    they may hold anything (:attr:`Evidence.opaque`), unless a caller in the scanned files hands
    them a tensor or a recorded run read them as one (``facts.witnessed``)."""
    params = func.params
    witnessed = facts.witnessed if facts is not None else frozenset()
    return frozenset(
        p.name.value
        for p in (*params.posonly_params, *params.params, *params.kwonly_params)
        if p.annotation is None and p.name.value not in witnessed
    )


def traced_hazards(
    statements: Sequence[cst.BaseStatement],
    evidence: Evidence,
    modules: frozenset[str],
    rebound: Callable[[str], bool],
) -> frozenset[str]:
    """What ``statements``, traced by Dynamo inside a ``try``, may raise that a handler catching
    it gets wrong (see above): ``KeyError``/``AttributeError`` of a lookup that may miss,
    ``RuntimeError``/``IndexError`` of a tensor op. ``modules`` are the names the file binds
    by ``import`` and the function does not rebind: what is read from them exists. ``rebound``
    says whether a builtin's name is bound to something else."""
    finder = _HazardFinder(evidence, modules, rebound)
    for statement in statements:
        statement.visit(finder)
    return frozenset(finder.found)


class _HazardFinder(cst.CSTVisitor):
    def __init__(self, evidence: Evidence, modules: frozenset[str], rebound: Callable[[str], bool]) -> None:
        self.evidence = evidence
        self.modules = modules
        self.rebound = rebound
        self.found: set[str] = set()
        #: attributes not looked up: stored to (``self.k = v``), or a catalogue call's callee
        self.stored: set[int] = set()

    # a nested function or lambda runs only when called, which the finder sees as a call
    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._stores(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._stores(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._stores(node.target)

    def _stores(self, target: cst.BaseExpression) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._stores(element.value)
        elif isinstance(target, cst.Attribute):
            self.stored.add(id(target))
        elif isinstance(target, cst.Subscript) and self.evidence.is_tensor_name(target.value):
            self.found |= _TENSOR_FAILURES  # a tensor's item assignment may fail

    def _tensor_valued(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Name):
            return self.evidence.is_tensor_name(expr)
        return self.evidence.facts.kind(expr) == TENSOR

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if id(node) in self.stored:
            return
        base = node.value
        if self._tensor_valued(base):
            return  # a tensor's facts and methods exist; what a method does is its call's
        if (dotted_name(node) or "").split(".", 1)[0] in self.modules:
            return
        self.found |= _LOOKUP_MISSES

    def visit_Subscript(self, node: cst.Subscript) -> None:
        base = node.value
        if self._tensor_valued(base):
            self.found |= _TENSOR_FAILURES
        elif isinstance(base, cst.Attribute) and base.attr.value == "shape" and self._tensor_valued(base.value):
            return  # a tuple of ints the guards pin down
        else:
            self.found.add("KeyError")

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Name) and not self.rebound(func.value):
            if func.value in _PLAIN_BUILTINS or _is_builtin_exception(func.value):
                return
            if func.value == "getattr":
                if len(node.args) < 3:
                    self.found.add("AttributeError")
                return
        reason = self.evidence.lookup(node)
        if reason is not None and not reason.raises and not reason.via:
            self.stored.add(id(func))
            return  # print, logger calls, time reads: their arguments are visited
        name = dotted_name(func) or ""
        if (isinstance(func, cst.Attribute) and self._tensor_valued(func.value)) or name.split(".", 1)[0] == "torch":
            self.found |= _TENSOR_FAILURES
            return
        # code of its own, traced inline: it may miss a lookup or run a tensor op
        self.found |= _LOOKUP_MISSES | _TENSOR_FAILURES

    # arithmetic on a tensor may fail on its shapes or dtypes
    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        self.found.add("RuntimeError")

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.found.add("RuntimeError")

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if not isinstance(node.operator, cst.Not):
            self.found.add("RuntimeError")

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if not all(isinstance(t.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for t in node.comparisons):
            self.found.add("RuntimeError")


def _is_builtin_exception(name: str) -> bool:
    found = getattr(builtins, name, None)
    return isinstance(found, type) and issubclass(found, BaseException)
