"""Which expressions of a function Python's ``ast`` shows to be tensors, for the project index.

The index (:mod:`codemods.analysis.project.index`) reads the functions of other
files without libcst, yet a loop that calls one of them must learn that it
breaks on data-dependent code (``int(x.abs().max())``, ``if not
torch.isfinite(x).all():``). The file's own analysis decides those with its
tensor inference (:class:`codemods.analysis.tensors.TensorFacts`); this
module answers yes only on that inference's strongest evidence:

* a parameter of ``forward`` (``self`` aside, no plain default, no plain
  annotation) or a parameter annotated ``Tensor``;
* a ``torch.*`` call that makes a tensor;
* a method of a tensor that does not read a value out (``x.abs()``), an
  attribute that is a tensor (``x.T``), indexing, arithmetic and
  comparisons with a tensor;
* a name some plain assignment of the function gives one of these;
* for the entries that break on what an argument holds (``F.pad``), as
  the file's analysis reads them: ``self.m(...)`` of a method of the class
  annotated to return a tensor, and a parameter some call in the file hands
  a tensor or a tuple holding one (read by the project index).

The inference joins the kinds of a name's bindings with a tensor on any
evidence, so a parameter stays a tensor whatever it is rebound to. So
everything called a tensor here is a tensor there too: the index never
reports a break that the file's own analysis would not.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Optional, Union

from codemods.analysis.astnodes import dotted
from codemods.analysis.catalogue import (
    BOOL_FUNCTIONS,
    BOOL_METHODS,
    CONDITION_CALLS,
    SHAPE_LEFT_TO_DATA,
    TRACING_GUARDS,
    TRUTH_BUILTINS,
    ZERO_DIM_FUNCTIONS,
    ZERO_DIM_METHODS,
)
from codemods.analysis.tensors.cst import (
    EXPORT_SPELLINGS,
    METHOD_NON_TENSOR,
    TENSOR_ATTRIBUTES,
    TORCH_NON_TENSOR,
    names_a_tensor_type,
    settle_bool_names,
)

Def = Union[ast.FunctionDef, ast.AsyncFunctionDef]
#: nodes whose insides are another scope, or not evaluated as the test itself
_OTHER_SCOPES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def torch_names(tree: ast.Module) -> frozenset[str]:
    """Names the module's top-level imports bind to ``torch`` or one of its modules.

    The same names :func:`codemods.analysis.tensors.torch_aliases` finds in
    the libcst tree.
    """
    found = {"torch"}
    for stmt in tree.body:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.name.split(".")[0] == "torch":
                    found.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(stmt, ast.ImportFrom) and not stmt.level and (stmt.module or "").split(".")[0] == "torch":
            for alias in stmt.names:
                name = alias.asname or alias.name
                if name != "*" and not name[:1].isupper():
                    found.add(name)
    return frozenset(found)


def own_nodes(roots: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """``roots`` and the nodes under them, but not inside a nested function, class or lambda
    (a function's own code: what runs in its frame)."""
    stack = list(roots)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


class TensorEvidence:
    """The tensors among one function's expressions, on strong evidence only."""

    def __init__(
        self,
        func: Def,
        is_method: bool,
        torch: frozenset[str],
        flows: frozenset[str] = frozenset(),
        tensor_methods: frozenset[str] = frozenset(),
    ) -> None:
        """``flows``: parameters some call in the file hands a tensor, or a tuple holding one;
        ``tensor_methods``: methods of the class annotated to return a tensor."""
        self.torch = torch
        self.tensor_methods = tensor_methods
        self.func = func
        #: names bound once, on one line, to a bool tensor (once asked)
        self._masks: Optional[frozenset[str]] = None
        #: parameters and local names that hold a tensor
        self.params: set[str] = set(flows)
        args = func.args
        for index, arg in enumerate((*args.posonlyargs, *args.args, *args.kwonlyargs)):
            annotated = annotation_is_tensor(arg.annotation)
            if annotated is not None:
                if annotated:
                    self.params.add(arg.arg)
            elif is_method and index > 0 and _takes_inputs(func) and not _plain_default(func, arg):
                self.params.add(arg.arg)
        self._bind_locals(func)

    def _bind_locals(self, func: Def) -> None:
        """Names some plain assignment of the function's own code gives a tensor, to a fixpoint
        (the inference joins a name's bindings with a tensor on any evidence)."""
        bindings: list[tuple[list[str], ast.expr]] = []
        stores: Counter[str] = Counter()
        single: dict[str, ast.expr] = {}
        loops: list[Union[ast.For, ast.comprehension]] = []
        for node in own_nodes(func.body):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                stores[node.id] += 1
            elif isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.target, ast.Name):
                loops.append(node)
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
                if names:
                    bindings.append((names, node.value))
                if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                    single[node.targets[0].id] = node.value
            elif isinstance(node, ast.AnnAssign) and node.value is not None and isinstance(node.target, ast.Name):
                bindings.append(([node.target.id], node.value))
        arguments = {arg.arg for arg in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)}
        #: names bound once, by an assignment to that name alone (not parameters)
        self.assigned_once = {
            name: value for name, value in single.items() if stores[name] == 1 and name not in arguments
        }
        # a loop over a name bound once, to a list made here, binds that list's elements
        displays = {name: value for name, value in self.assigned_once.items() if isinstance(value, _DISPLAYS)}
        for loop in loops:
            assert isinstance(loop.target, ast.Name)
            iterable = displays.get(loop.iter.id, loop.iter) if isinstance(loop.iter, ast.Name) else loop.iter
            bindings.extend(([loop.target.id], item) for item in _items_of(iterable))
        changed = True
        while changed:
            changed = False
            for names, value in bindings:
                if not set(names) <= self.params and self.is_tensor(value):
                    self.params.update(names)
                    changed = True

    def holds_a_tensor(self, expr: ast.expr) -> bool:
        """A tensor, or a tuple or list display with a tensor among its elements."""
        if isinstance(expr, (ast.Tuple, ast.List)):
            return any(self.is_tensor(element) for element in expr.elts)
        return self.is_tensor(expr)

    def is_tensor(self, expr: ast.expr) -> bool:
        if isinstance(expr, ast.Name):
            return expr.id in self.params
        if isinstance(expr, ast.Attribute):
            return expr.attr in TENSOR_ATTRIBUTES and self.is_tensor(expr.value)
        if isinstance(expr, ast.Subscript):
            return self.is_tensor(expr.value)
        if isinstance(expr, ast.BinOp):
            return self.is_tensor(expr.left) or self.is_tensor(expr.right)
        if isinstance(expr, ast.UnaryOp):
            return not isinstance(expr.op, ast.Not) and self.is_tensor(expr.operand)
        if isinstance(expr, ast.Compare):
            if all(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in expr.ops):
                return False
            return any(self.is_tensor(part) for part in (expr.left, *expr.comparators))
        if isinstance(expr, ast.Call):
            return self._call_is_tensor(expr)
        return False

    def _call_is_tensor(self, call: ast.Call) -> bool:
        func = call.func
        if not isinstance(func, ast.Attribute):
            return False
        if isinstance(func.value, ast.Name) and func.value.id == "self" and func.attr in self.tensor_methods:
            return True
        head = dotted(func.value)
        if head is not None and head.split(".")[0] in self.torch:
            if names_a_tensor_type(func.attr):
                return True  # ``torch.IntTensor([n])``: a typed constructor
            return func.attr not in TORCH_NON_TENSOR and not func.attr[:1].isupper()
        return func.attr not in METHOD_NON_TENSOR and self.is_tensor(func.value)

    # -- the data-dependent entries of the catalogue -------------------------------------
    def reads_a_tensor(self, call: ast.Call) -> bool:
        """``int(x.sum())``, ``bool(x.sum() > 0)``: one positional argument on one line, a tensor
        that a method call is written in."""
        if call.keywords or len(call.args) != 1 or isinstance(call.args[0], ast.Starred):
            return False
        arg = call.args[0]
        if isinstance(arg, ast.Name):
            # ``int(total)`` after ``total = x.sum()``, as the break analysis reads it
            bound = self.assigned_once.get(arg.id)
            if bound is None:
                return False
            arg = bound
        if arg.lineno != arg.end_lineno:
            return False
        if not any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) for node in ast.walk(arg)):
            return False
        return self.is_tensor(arg)

    def passes_a_tensor(self, call: ast.Call, where: tuple[int, str]) -> bool:
        """The argument at ``where`` (position, keyword) is a tensor, or a tuple or list holding one;
        or it is not given (``torch.repeat_interleave(r)``: the input is the repeats)."""
        position, keyword = where
        if any(isinstance(arg, ast.Starred) for arg in call.args[: position + 1]):
            return False
        if any(k.arg is None for k in call.keywords):
            return False  # ``**kwargs`` may pass it
        found = [k.value for k in call.keywords if k.arg == keyword]
        arg = found[0] if found else call.args[position] if position < len(call.args) else None
        return arg is None or self.holds_a_tensor(arg)

    def branches_on_tensor(self, test: ast.expr) -> bool:
        """An ``if`` test on one line that calls a condition name and whose truth is a tensor's."""
        return test.lineno == test.end_lineno and _calls_a_condition(test) and self._truth_of_tensor(test)

    def _truth_of_tensor(self, test: ast.expr) -> bool:
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self._truth_of_tensor(test.operand)
        if isinstance(test, ast.BoolOp):
            return any(self._truth_of_tensor(value) for value in _read_values(test))
        each = reads_each_truth(test) if isinstance(test, ast.Call) else None
        if each is not None:
            return self._truth_of_tensor(each)
        return self.is_tensor(test)

    # -- boolean masks (``x[mask]``) ----------------------------------------------------------
    def indexes_by_mask(self, subscript: ast.Subscript) -> bool:
        """``x[mask]``: ``x`` a tensor and ``mask`` a bool tensor, on strong evidence (see
        :meth:`is_bool_tensor`)."""
        return self.is_tensor(subscript.value) and self.is_bool_tensor(subscript.slice)

    # -- indices read as ints (``x[:n]``, ``x[x.argmax()]``) ----------------------------------
    def is_zero_dim(self, expr: ast.expr, depth: int = 0) -> bool:
        """A 0-dim tensor on evidence, as the file's analysis reads one
        (:meth:`codemods.analysis.tensors.cst.TensorFacts.is_zero_dim`)."""
        if isinstance(expr, ast.Name) and depth < 8:
            value = self.assigned_once.get(expr.id)
            return value is not None and value.lineno == value.end_lineno and self.is_zero_dim(value, depth + 1)
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, _INDEX_ARITHMETIC):
            left, right = self.is_zero_dim(expr.left, depth), self.is_zero_dim(expr.right, depth)
            return (left or right) and all(
                zero or (isinstance(side, ast.Constant) and type(side.value) is int)
                for side, zero in ((expr.left, left), (expr.right, right))
            )
        if not isinstance(expr, ast.Call) or not isinstance(expr.func, ast.Attribute):
            return False
        last = expr.func.attr
        head = dotted(expr.func.value)
        if head is not None and head in self.torch:
            return (
                last in ZERO_DIM_FUNCTIONS
                and len(expr.args) == 1
                and not expr.keywords
                and not isinstance(expr.args[0], ast.Starred)
                and self.is_tensor(expr.args[0])
            )
        return last in ZERO_DIM_METHODS and not expr.args and not expr.keywords and self.is_tensor(expr.func.value)

    def index_read(self, subscript: ast.Subscript) -> str:
        """How ``subscript`` reads a tensor's value as an int: "slice", "index" or "" (see
        :meth:`codemods.analysis.tensors.cst.TensorFacts.index_read`)."""
        index = subscript.slice
        found = ""
        for element in index.elts if isinstance(index, ast.Tuple) else [index]:
            if not isinstance(element, ast.Slice):
                if not isinstance(element, ast.Starred) and self.is_zero_dim(element):
                    found = "index"
                continue
            for bound in (element.lower, element.upper, element.step):
                if bound is None:
                    continue
                if self.is_zero_dim(bound) or (
                    (isinstance(bound, ast.Name) or (isinstance(bound, ast.Subscript) and dotted(bound.value)))
                    and self.is_tensor(bound)
                ):
                    return "slice"
        return found

    def reads_a_parameter(self, expr: ast.expr) -> bool:
        """``expr`` reads a parameter of the function by name."""
        args = self.func.args
        params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
        return any(isinstance(node, ast.Name) and node.id in params for node in ast.walk(expr))

    def is_bool_tensor(self, expr: ast.expr) -> bool:
        """A comparison with a tensor, ``~``/``&``/``|``/``^`` of bool tensors, a bool method of a
        tensor or bool function of ``torch``, or a name bound once in the function, by a plain
        assignment on one line, to one of these (what the file's analysis calls a bool tensor)."""
        if self._masks is None:
            self._masks = self._settle_masks()
        return self._is_bool(expr, self._masks)

    def _settle_masks(self) -> frozenset[str]:
        args = self.func.args
        params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg) if a}
        bindings: dict[str, int] = {}
        single: dict[str, ast.expr] = {}
        # an in-place ``|=``, ``&=``, ``^=`` keeps a bool tensor one (the left side's dtype)
        updated: set[int] = set()
        for node in own_nodes(self.func.body):
            if isinstance(node, ast.AugAssign) and isinstance(node.op, _BOOL_OPERATORS):
                updated.add(id(node.target))
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) and id(node) not in updated:
                bindings[node.id] = bindings.get(node.id, 0) + 1
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    name = (alias.asname or alias.name).split(".")[0]
                    bindings[name] = bindings.get(name, 0) + 1
            elif isinstance(node, ast.ExceptHandler) and node.name:
                bindings[node.name] = bindings.get(node.name, 0) + 1
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.lineno == node.end_lineno
            ):
                single[node.targets[0].id] = node.value
        values = {
            name: value
            for name, value in single.items()
            if bindings.get(name) == 1 and name not in params and self.is_tensor(value)
        }
        return settle_bool_names(values, self._is_bool)

    def _is_bool(self, expr: ast.expr, names: Iterable[str]) -> bool:
        if isinstance(expr, ast.Name):
            return expr.id in names
        if isinstance(expr, ast.Compare):
            return (
                len(expr.ops) == 1  # ``a < x < b`` takes the truth of ``a < x``
                and isinstance(expr.ops[0], _BOOL_COMPARISONS)
                and (self.is_tensor(expr.left) or self.is_tensor(expr.comparators[0]))
            )
        if isinstance(expr, ast.UnaryOp):
            return isinstance(expr.op, ast.Invert) and self._is_bool(expr.operand, names)
        if isinstance(expr, ast.BinOp):
            return (
                isinstance(expr.op, _BOOL_OPERATORS)
                and self._is_bool(expr.left, names)
                and self._is_bool(expr.right, names)
            )
        if not isinstance(expr, ast.Call) or not isinstance(expr.func, ast.Attribute):
            return False
        last = expr.func.attr
        head = dotted(expr.func.value)
        if head is not None and head in self.torch:
            return last in BOOL_FUNCTIONS or self._names_bool(dtype_argument(expr, last))
        if last in _CASTS and self.is_tensor(expr.func.value):
            return self._names_bool(dtype_argument(expr, last))
        return last in BOOL_METHODS and self.is_tensor(expr.func.value)

    def _names_bool(self, dtype: Optional[ast.expr]) -> bool:
        """``dtype`` is ``torch.bool`` (a tensor made or cast with it holds bools)."""
        name = dotted(dtype) if dtype is not None else None
        return name is not None and name.rpartition(".")[::2] in {(t, "bool") for t in self.torch}


#: tensor methods that cast to the dtype they are given (``x.to(torch.bool)``)
_CASTS = frozenset({"to", "type"})


def dtype_argument(call: ast.Call, name: str) -> Optional[ast.expr]:
    """The ``dtype=`` of a torch function's call, or a cast's dtype (its first argument)."""
    for keyword in call.keywords:
        if keyword.arg == "dtype":
            return keyword.value
    if name in _CASTS and call.args and not isinstance(call.args[0], ast.Starred):
        return call.args[0]
    return None


def _takes_inputs(func: Def) -> bool:
    """A module's ``forward``, or a method exported with ``@torch.jit.export``: its parameters are
    the module's inputs (as :func:`codemods.analysis.tensors.cst._exported` reads it)."""
    return func.name == "forward" or any(dotted(d) in EXPORT_SPELLINGS for d in func.decorator_list)


#: arithmetic that keeps a 0-dim integer tensor one (``x.argmax() // 2``, ``n - 1``)
_INDEX_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)
#: comparisons whose result is a bool tensor when a side is a tensor (``is``/``in`` are Python's)
_BOOL_COMPARISONS = (ast.Lt, ast.Gt, ast.LtE, ast.GtE, ast.Eq, ast.NotEq)
#: operators whose result is a bool tensor when both sides are
_BOOL_OPERATORS = (ast.BitAnd, ast.BitOr, ast.BitXor)


def _calls_a_condition(test: ast.expr) -> bool:
    """``test`` calls a name of :data:`CONDITION_CALLS` outside lambdas and comprehensions."""
    stack: list[ast.AST] = [test]
    while stack:
        node = stack.pop()
        if isinstance(node, _OTHER_SCOPES):
            continue
        if isinstance(node, ast.Call):
            # ``(y > c).any()`` as ``mask.any()``: the name the call is made by
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in CONDITION_CALLS:
                return True
        stack.extend(ast.iter_child_nodes(node))
    return False


def annotation_is_tensor(annotation: Optional[ast.expr]) -> Optional[bool]:
    """Whether an annotation names ``Tensor`` (``torch.Tensor``, ``Optional[Tensor]``, ``torch.LongTensor``);
    None without one."""
    if annotation is None:
        return None
    names = {node.id for node in ast.walk(annotation) if isinstance(node, ast.Name)}
    names |= {node.attr for node in ast.walk(annotation) if isinstance(node, ast.Attribute)}
    return any(names_a_tensor_type(name) for name in names)


def _plain_default(func: Def, arg: ast.arg) -> bool:
    """``arg`` has a plain default (``False``, ``1``, ``"mean"``), not ``None`` or none at all."""
    args = func.args
    positional = [*args.posonlyargs, *args.args]
    default: Optional[ast.expr] = None
    if arg in positional:
        offset = len(positional) - len(args.defaults)
        at = positional.index(arg)
        default = args.defaults[at - offset] if at >= offset else None
    elif arg in args.kwonlyargs:
        default = args.kw_defaults[args.kwonlyargs.index(arg)]
    if default is None or (isinstance(default, ast.Constant) and default.value is None):
        return False
    return isinstance(default, (ast.Name, ast.Constant, ast.UnaryOp))


def bound_arguments(call: ast.Call, func: Def, through_instance: bool) -> list[tuple[str, ast.expr]]:
    """(parameter, argument) pairs of ``call`` to ``func``, as far as they can be told apart
    (:func:`codemods.analysis.tensors.arguments.bound_arguments` on Python's tree)."""
    args = func.args
    positional = [*args.posonlyargs, *args.args]
    static = any(dotted(d) == "staticmethod" for d in func.decorator_list)
    if through_instance and not static:
        positional = positional[1:]
    by_name = {a.arg for a in (*args.args, *args.kwonlyargs)}
    pairs: list[tuple[str, ast.expr]] = []
    for at, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break  # the rest cannot be told apart
        if at < len(positional):
            pairs.append((positional[at].arg, arg))
    pairs.extend((k.arg, k.value) for k in call.keywords if k.arg is not None and k.arg in by_name)
    return pairs


def passes(call: ast.Call, where: tuple[int, str]) -> bool:
    """The argument at ``where`` (position, -1 for keyword-only, and keyword) is passed, and not
    as a value that leaves the shape to the data (:data:`SHAPE_LEFT_TO_DATA`); a star argument
    may pass it."""
    position, keyword = where
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(k.arg is None for k in call.keywords):
        return True
    found = [k.value for k in call.keywords if k.arg == keyword]
    if not found and 0 <= position < len(call.args):
        found = [call.args[position]]
    return bool(found) and ast.unparse(found[0]) not in SHAPE_LEFT_TO_DATA


def truth_reads(roots: Iterable[ast.AST], header: Optional[ast.expr] = None) -> list[ast.expr]:
    """The expressions in ``roots`` whose truth Python reads, as the break analysis reads them
    (:meth:`codemods.analysis.breaks._Collector._truth_read`): ``if``/``while``/ternary/comprehension
    tests, the operand of ``not`` and the operands but the last of ``and``/``or`` used as values;
    the ``not``/``and``/``or`` inside such a test are read with it, an ``assert``'s only before its
    last operand or under ``not``.
    ``header``: the test of the ``if`` or ``while`` statement ``roots`` are the parts of."""
    found: list[ast.expr] = []
    chained: set[int] = set()

    def read(test: ast.expr) -> None:
        chained.update(_truth_chain(test))
        found.append(test)

    if header is not None:
        read(header)

    stack = list(roots)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.If, ast.While, ast.IfExp)):
            read(node.test)
        elif isinstance(node, ast.comprehension):
            for test in node.ifs:
                read(test)
        elif isinstance(node, ast.Call) and reads_each_truth(node) is not None:
            read(node)
        elif isinstance(node, ast.Assert):
            chained.update(_truth_chain(node.test))
            for operand in _assert_reads(node.test):
                read(operand)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and id(node) not in chained:
            read(node.operand)
        elif isinstance(node, ast.BoolOp) and id(node) not in chained:
            chained.add(id(node))
            values = _read_values(node)
            for value in values[: len(node.values) - 1]:
                read(value)
            for value in node.values[len(values) :]:
                chained.update(_truth_chain(value))  # never read while Dynamo traces
        stack.extend(reversed(list(ast.iter_child_nodes(node))))
    return found


#: lists and tuples made in place, whose elements a loop over them binds
_DISPLAYS = (ast.List, ast.Tuple, ast.ListComp)


def _items_of(iterable: ast.expr) -> list[ast.expr]:
    """What a loop over ``iterable`` binds, as :meth:`codemods.analysis.tensors.cst.TensorFacts._items_of`
    finds it: the elements of a list or tuple made in place, else a row of ``iterable`` (a tensor
    when it is one)."""
    if isinstance(iterable, (ast.ListComp, ast.GeneratorExp)):
        return [iterable.elt]
    if isinstance(iterable, (ast.List, ast.Tuple)):
        return [element for element in iterable.elts if not isinstance(element, ast.Starred)]
    return [iterable]


def reads_each_truth(call: ast.Call) -> Optional[ast.expr]:
    """``any(p.max() > 2 for p in parts)``: the element whose truth the builtin ``any``/``all``
    reads for each item of the comprehension it is handed, or None."""
    if not (isinstance(call.func, ast.Name) and call.func.id in TRUTH_BUILTINS):
        return None
    if call.keywords or len(call.args) != 1 or not isinstance(call.args[0], (ast.GeneratorExp, ast.ListComp)):
        return None
    return call.args[0].elt


def _assert_reads(test: ast.expr) -> list[ast.expr]:
    """The operands of an ``assert``'s test whose truth Python reads with a jump of their own,
    as :func:`codemods.analysis.breaks.cst._assert_reads` finds them."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return [test.operand]
    if isinstance(test, ast.BoolOp):
        return [*test.values[:-1], *_assert_reads(test.values[-1])]
    return []


def _read_values(test: ast.BoolOp) -> list[ast.expr]:
    """The operands of ``and``/``or`` Dynamo may read: none after ``not is_tracing(m) and``
    or ``is_tracing(m) or`` (:data:`~codemods.analysis.catalogue.TRACING_GUARDS`)."""
    want_not = isinstance(test.op, ast.And)
    for at, value in enumerate(test.values):
        negated = isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not)
        call = value.operand if isinstance(value, ast.UnaryOp) and negated else value
        if negated == want_not and isinstance(call, ast.Call):
            func = call.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in TRACING_GUARDS:
                return test.values[: at + 1]
    return test.values


def _truth_chain(test: ast.expr) -> list[int]:
    """Ids of the ``not``/``and``/``or`` whose truth is read with ``test``'s."""
    found = []
    stack = [test]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            found.append(id(node))
            stack.append(node.operand)
        elif isinstance(node, ast.BoolOp):
            found.append(id(node))
            stack.extend(node.values)
    return found
