"""What the expressions of a function are (tensors, plain Python values, or unknown), and how
many tensor ops its own code runs.

A skipped frame loses only the tensor ops written in it: a submodule it
calls, or a function, still compiles as a frame of its own. So what a fix
can move into graphs is the inline tensor work of the frame, and that is
what :func:`inline_tensor_ops` counts, to tell a rewrite worth reading from
one that captures nothing.

Each expression gets one of three kinds, from evidence in the function:

* ``TENSOR``: ``torch.*`` calls that make tensors; parameters of
  ``forward`` (``self`` aside) and parameters annotated ``Tensor``;
  parameters a caller in the file hands a tensor (or a tuple holding one,
  whatever the annotation says); ``self.m(...)`` of a method annotated to
  return a ``Tensor``; methods and arithmetic of tensors; a name some
  binding gives a tensor; a name or dotted name (``self.mask``) a recorded
  run read as a tensor in the function (:mod:`codemods.analysis.tensors.recorded`).
* ``OTHER``: literals and displays, ``len()``/``int()``/``range()``…,
  values read out of a tensor (``.item()``, ``.tolist()``, ``.shape``,
  ``.size()``…), parameters annotated as something else, loop variables
  over ``range``; a name every binding gives such a value.
* ``UNKNOWN``: everything else (a call of a submodule or a function, an
  attribute of ``self``…).

Among tensors, :meth:`TensorFacts.is_bool_tensor` knows bool tensors (what
indexing with a mask needs), on the narrowest evidence: a comparison with a
tensor, ``~``/``&``/``|``/``^`` of bool tensors, a bool method of a tensor or
bool function of ``torch`` (:data:`~codemods.analysis.catalogue.BOOL_METHODS`,
:data:`~codemods.analysis.catalogue.BOOL_FUNCTIONS`), and a name bound once
in the function, by an assignment on one line, to one of these.

Counting ops leans towards the tensor side where it cannot know (an
unknown ``x * 2`` counts), but only on evidence for what is plainly not
tensor work (``i + 1`` over a ``range`` loop variable does not count, a call
of a submodule is its own frame).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Optional, Union

import libcst as cst
from libcst.metadata import BaseMetadataProvider

from codemods.analysis.catalogue import BOOL_FUNCTIONS, BOOL_METHODS, ZERO_DIM_FUNCTIONS, ZERO_DIM_METHODS
from codemods.analysis.names import class_like
from codemods.analysis.names.bindings import target_names
from codemods.analysis.nodes import NESTED_SCOPES, dotted_name, self_attribute
from codemods.fastcst import walk

#: what holds none of a function's own code: nested scopes, whitespace and punctuation
_NOT_OWN_CODE = NESTED_SCOPES | walk.TRIVIA

TENSOR, OTHER, UNKNOWN = "tensor", "other", "unknown"

#: ``torch.*`` callables whose result is not a tensor (``torch.equal`` answers a Python bool: the
#: call breaks, as the catalogue says, not a truth read of it)
_TORCH_NON_TENSOR = frozenset(
    (
        "is_tensor is_floating_point is_complex is_nonzero numel is_grad_enabled "
        "is_inference_mode_enabled get_default_dtype device dtype Size Generator no_grad enable_grad "
        "set_grad_enabled inference_mode autocast compile manual_seed seed initial_seed get_rng_state "
        "set_rng_state is_autocast_enabled finfo iinfo typename set_printoptions "
        "use_deterministic_algorithms graph_break is_compiling disable equal allclose"
    ).split()
)
#: tensor methods whose result is a Python value or a fact, not a tensor
_METHOD_NON_TENSOR = frozenset(
    (
        "item tolist size dim ndimension numel nelement element_size is_contiguous is_floating_point "
        "is_complex data_ptr stride storage_offset get_device untyped_storage equal numpy dim_order "
        "is_pinned is_shared allclose"
    ).split()
)
#: methods that are tensor ops whatever the receiver is known to be (``x.view(...)``)
_TENSOR_METHODS = frozenset(
    (
        "view reshape transpose permute contiguous matmul softmax log_softmax sum mean std var max min "
        "argmax argmin masked_fill masked_fill_ float half bfloat16 to type_as expand expand_as repeat "
        "repeat_interleave unsqueeze squeeze flatten unflatten chunk split narrow gather scatter scatter_ "
        "index_select clamp clamp_ clone detach add add_ sub sub_ mul mul_ div div_ pow sqrt rsqrt exp "
        "log abs neg sigmoid tanh relu norm cumsum flip roll topk sort where new_zeros new_ones new_full "
        "new_empty zero_ fill_ copy_ bmm mm t any all long int bool cpu cuda sin cos tan log1p expm1 "
        "floor ceil round sign reciprocal square silu gelu softplus erf prod amax amin logsumexp "
        "masked_select nonzero unique triu tril diag outer dot baddbmm addmm"
    ).split()
)
#: attributes of a tensor that are plain values
_TENSOR_FACTS = frozenset({"shape", "dtype", "device", "ndim", "is_cuda", "requires_grad", "layout", "is_sparse"})
#: attributes of a tensor that are tensors themselves
_TENSOR_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "real", "imag", "data", "grad"})
#: builtins whose result is a plain value
_PLAIN_BUILTINS = frozenset(
    (
        "len int float bool str range isinstance hasattr enumerate zip type id repr print list tuple dict "
        "set sorted reversed format callable issubclass"
    ).split()
)
_LITERALS = (
    cst.Integer,
    cst.Float,
    cst.Imaginary,
    cst.SimpleString,
    cst.ConcatenatedString,
    cst.FormattedString,
    cst.Ellipsis,
    cst.Tuple,
    cst.List,
    cst.Dict,
    cst.Set,
    cst.ListComp,
    cst.SetComp,
    cst.DictComp,
    cst.GeneratorExp,
    cst.Lambda,
)
_LITERAL_TYPES = walk.node_types(*_LITERALS)
_NAME_TYPES = walk.node_types(cst.Name)
#: lists and tuples made in place, whose elements a loop over them binds
_DISPLAYS = (cst.List, cst.Tuple, cst.ListComp)
_ATTRIBUTE_TYPES = walk.node_types(cst.Attribute)
#: the nodes that bind names in a function's own code
_BINDERS = walk.node_types(
    cst.Assign,
    cst.AnnAssign,
    cst.AugAssign,
    cst.For,
    cst.CompFor,
    cst.NamedExpr,
    cst.WithItem,
    cst.ExceptHandler,
    cst.Import,
    cst.ImportFrom,
)
#: displays that make a mapping
_MAPPINGS = (cst.Dict, cst.DictComp)
#: the nodes :meth:`TensorFacts.is_tensor_op` may count
_OPS = walk.node_types(cst.Call, cst.BinaryOperation, cst.Comparison, cst.UnaryOperation, cst.AugAssign, cst.Subscript)
#: comparisons whose result is a bool tensor when a side is a tensor (``is``/``in`` are Python's)
_BOOL_COMPARISONS = (cst.LessThan, cst.GreaterThan, cst.LessThanEqual, cst.GreaterThanEqual, cst.Equal, cst.NotEqual)
#: operators whose result is a bool tensor when both sides are
_BOOL_OPERATORS = (cst.BitAnd, cst.BitOr, cst.BitXor)

#: the tables above that readers of Python's ``ast`` share (codemods/analysis/tensors/ast.py)
TORCH_NON_TENSOR = _TORCH_NON_TENSOR
METHOD_NON_TENSOR = _METHOD_NON_TENSOR
TENSOR_ATTRIBUTES = _TENSOR_ATTRIBUTES
TENSOR_METHODS = _TENSOR_METHODS


#: names an annotation of a plain Python value is made of
_PLAIN_TYPES = frozenset(
    "int float bool str bytes complex list dict tuple set frozenset None Optional Union List Dict Tuple Set "
    "FrozenSet Sequence Mapping Iterable Literal typing".split()
)


def function_key(name: str, cls: Optional[str]) -> str:
    """How a recorded run's evidence names a function: ``Class.method`` for a method, its own
    name otherwise (:mod:`codemods.analysis.tensors.recorded`)."""
    return f"{cls}.{name}" if cls else name


def settle_bool_names(values: Mapping[str, Any], is_bool: Callable[[Any, Iterable[str]], bool]) -> frozenset[str]:
    """The names bound once to a boolean tensor, settled to a fixed point: ``keep = ~drop`` is one when
    ``drop = x > 0`` is (``values``: each name's value; ``is_bool``: the test given the names so far),
    in either parser's nodes."""
    found: set[str] = set()
    while True:
        new = {name for name, value in values.items() if name not in found and is_bool(value, found)}
        if not new:
            return frozenset(found)
        found |= new


def names_a_tensor_type(name: str) -> bool:
    """``Tensor`` and its typed spellings (``LongTensor``, ``FloatTensor``, ``BoolTensor``)."""
    return name.endswith("Tensor")


def _annotation_kind(annotation: Optional[cst.Annotation]) -> Optional[str]:
    """TENSOR for ``Tensor``-ish annotations, OTHER for plain values (``int``, ``Optional[str]``), else UNKNOWN."""
    if annotation is None:
        return None
    names = {node.value for node in walk.descendants(annotation.annotation) if isinstance(node, cst.Name)}
    if any(names_a_tensor_type(name) for name in names):
        return TENSOR
    return OTHER if names <= _PLAIN_TYPES else UNKNOWN


def returns_a_tensor(func: cst.FunctionDef) -> bool:
    """``func`` is annotated to return a tensor (``-> torch.Tensor``)."""
    return _annotation_kind(func.returns) == TENSOR


def _plain_default(default: Optional[cst.BaseExpression]) -> bool:
    """A default that is a plain value (``False``, ``1``, ``"mean"``), not ``None`` or nothing."""
    if default is None or (isinstance(default, cst.Name) and default.value == "None"):
        return False
    return isinstance(default, (cst.Name, cst.Integer, cst.Float, cst.SimpleString, cst.UnaryOperation))


def _join(kinds: Iterable[str]) -> str:
    """The kind of a name from the kinds of its bindings: a tensor on any evidence."""
    found = set(kinds)
    if TENSOR in found:
        return TENSOR
    return OTHER if found == {OTHER} else UNKNOWN


class TensorFacts:
    """The kinds of the names and expressions of one function's own code."""

    def __init__(
        self,
        func: cst.FunctionDef,
        is_method: bool,
        submodules: Iterable[str] = (),
        torch_names: Iterable[str] = ("torch",),
        tensor_params: Iterable[str] = (),
        tensor_methods: Iterable[str] = (),
        recorded: Iterable[str] = (),
    ) -> None:
        self.func = func
        #: names and dotted names (``self.mask``) a recorded run read as tensors here
        #: (:mod:`codemods.analysis.tensors.recorded`)
        self.recorded = frozenset(recorded)
        self._recorded_attributes = frozenset(name for name in self.recorded if "." in name)
        #: ``self`` attributes holding submodules
        self.submodules = frozenset(submodules)
        #: methods of the class annotated to return a tensor (``self._padding(x)``)
        self.tensor_methods = frozenset(tensor_methods)
        # parameters a caller in the file hands a tensor, or a tuple holding one
        tensor_params = frozenset(tensor_params)
        #: names ``torch`` and its modules are imported as (``torch``, ``F``, ``nn``)
        self.torch_names = frozenset(torch_names)
        #: loop variables over a submodule list (``for layer in self.layers``)
        self.module_names: set[str] = set()
        self.kinds: dict[str, str] = {}
        #: names bound once in the function, by an assignment to that name alone
        self._single_assigns: dict[str, cst.Assign] = {}
        self._mask_assigns: dict[str, cst.Assign] = {}
        #: names holding a bool tensor, once asked
        self._bool_names: Optional[frozenset[str]] = None
        #: node id -> kind, once the names' kinds are settled (a kind is asked of every sub-expression)
        self._memo: Optional[dict[int, str]] = None
        params = func.params
        #: parameters a caller in the scanned files hands a tensor, or a recorded run read as one:
        #: tensors on evidence, not on a guess from where they are declared
        self.witnessed = frozenset(
            param.name.value
            for param in (*params.posonly_params, *params.params, *params.kwonly_params)
            if param.name.value in tensor_params or param.name.value in self.recorded
        )
        for index, param in enumerate((*params.posonly_params, *params.params, *params.kwonly_params)):
            kind = _annotation_kind(param.annotation)
            if param.name.value in self.witnessed:
                # what callers pass, or a run read, beats an annotation (``paddings: tuple[int, int]`` given tensors)
                kind = TENSOR
            elif kind is None and is_method and index == 0:
                kind = OTHER  # self
            elif kind is None and is_method and (func.name.value == "forward" or _exported(func)):
                # `use_cache=False`: a flag, not an input
                kind = OTHER if _plain_default(param.default) else TENSOR
            self.kinds[param.name.value] = kind or UNKNOWN
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                self.kinds[star.name.value] = OTHER  # a tuple, a dict
        self._settle()
        for name in self.recorded - self._recorded_attributes:
            # a global or a name of an enclosing function that a run read as a tensor here
            self.kinds.setdefault(name, TENSOR)
        self._memo = {}

    def _own_nodes(self, root: cst.CSTNode) -> Iterable[cst.CSTNode]:
        return walk.descendants(root, lambda node: type(node) not in _NOT_OWN_CODE)

    def _settle(self) -> None:
        """The kind of every name the function binds, to a fixpoint."""
        bindings: list[tuple[list[str], Optional[cst.BaseExpression]]] = []
        single: dict[str, cst.Assign] = {}
        #: in-place ``|=``, ``&=``, ``^=`` of each name: a bool tensor stays one (the left side's dtype)
        bitwise: Counter[str] = Counter()
        loops: list[Union[cst.For, cst.CompFor]] = []
        for node in self._own_nodes(self.func.body):
            node_type = type(node)  # by type: isinstance of libcst's node classes is slow on every node
            if node_type not in _BINDERS:
                continue
            if node_type is cst.Assign:
                assert isinstance(node, cst.Assign)
                for target in node.targets:
                    bindings.append((target_names(target.target), node.value))
                target_name = node.targets[0].target
                if len(node.targets) == 1 and isinstance(target_name, cst.Name):
                    single[target_name.value] = node
            elif node_type is cst.AnnAssign:
                assert isinstance(node, cst.AnnAssign)
                if node.value is not None:
                    bindings.append((target_names(node.target), node.value))
            elif node_type is cst.AugAssign:
                assert isinstance(node, cst.AugAssign)
                bindings.append((target_names(node.target), cst.BinaryOperation(node.target, cst.Add(), node.value)))
                if isinstance(node.operator, _BITWISE_UPDATES) and isinstance(node.target, cst.Name):
                    bitwise[node.target.value] += 1
            elif node_type is cst.For or node_type is cst.CompFor:
                assert isinstance(node, (cst.For, cst.CompFor))
                loops.append(node)
            elif node_type is cst.NamedExpr:
                assert isinstance(node, cst.NamedExpr)
                bindings.append((target_names(node.target), node.value))
            else:
                assert isinstance(node, (cst.WithItem, cst.ExceptHandler, cst.Import, cst.ImportFrom))
                bindings.append((_other_bindings(node), None))
        # a loop over a name bound once, to a list made here, binds that list's elements
        bound = Counter(name for names, _ in bindings for name in names)
        displays = {
            name: node.value
            for name, node in single.items()
            if bound[name] == 1 and name not in self.kinds and isinstance(node.value, _DISPLAYS)
        }
        #: name -> what it iterates the rows of: a tensor's rows are tensors, once its kind is settled
        rows: dict[str, list[cst.BaseExpression]] = {}
        for loop in loops:
            for part, source in _positions(loop.target, loop.iter):
                names = target_names(part)
                if source is None:
                    bindings.append((names, cst.Integer("0")))  # enumerate's count
                    continue
                iterable = displays.get(source.value, source) if isinstance(source, cst.Name) else source
                items = self._items_of(iterable)
                if items is None:
                    bindings.append((names, None))
                    for name in names:
                        rows.setdefault(name, []).append(iterable)
                else:
                    # each element is a binding of the loop's names, joined as the bindings of a name are
                    bindings.extend((names, item) for item in items)
        params = dict(self.kinds)
        for names, _ in bindings:
            for name in names:
                self.kinds.setdefault(name, OTHER)  # raised to what the bindings give below
        by_name: dict[str, list[Optional[cst.BaseExpression]]] = {}
        for names, value in bindings:
            for name in names:
                by_name.setdefault(name, []).append(value)
        self._single_assigns = {
            name: node for name, node in single.items() if name not in params and len(by_name[name]) == 1
        }
        #: names bound once but for in-place bitwise updates (``done |= stop``): what a mask may be
        self._mask_assigns = {
            name: node
            for name, node in single.items()
            if name not in params and len(by_name[name]) - bitwise[name] == 1
        }
        # A name some binding gives a dict holds a mapping on that path (``if not isinstance(masks :=
        # mask, dict): masks = {...}``): reading it by key is no tensor op, whatever else it holds.
        mappings = {name for name, values in by_name.items() if any(isinstance(v, _MAPPINGS) for v in values)}
        for _ in range(len(by_name) + 1):
            changed = False
            for name, values in by_name.items():
                kinds = [UNKNOWN if value is None else self.kind(value) for value in values]
                kinds.extend(TENSOR if self.kind(iterable) == TENSOR else UNKNOWN for iterable in rows.get(name, ()))
                if name in params:
                    kinds.append(params[name])
                if name in self.recorded:
                    kinds.append(TENSOR)  # what the run saw joins the bindings like any evidence
                kind = _join(kinds)
                if kind == TENSOR and name in mappings:
                    kind = UNKNOWN
                if kind != self.kinds.get(name):
                    self.kinds[name] = kind
                    changed = True
            if not changed:
                break

    def _items_of(self, iterable: cst.BaseExpression) -> Optional[list[Optional[cst.BaseExpression]]]:
        """What a loop over ``iterable`` binds: the elements of a list or tuple made in place
        (``[x * k for k in ks]``, ``[x, -x]``), an int over ``range``, nothing known of a
        submodule list (their calls are frames of their own); None for a row of ``iterable``,
        a tensor when ``iterable`` is one."""
        if isinstance(iterable, (cst.ListComp, cst.GeneratorExp)):
            return [iterable.elt]
        if isinstance(iterable, (cst.List, cst.Tuple)) and iterable.elements:
            return [None if isinstance(e, cst.StarredElement) else e.value for e in iterable.elements]
        if isinstance(iterable, cst.Call) and dotted_name(iterable.func) == "range":
            return [cst.Integer("0")]
        source = dotted_name(iterable)
        if source and source.startswith("self.") and source[5:] in self.submodules:
            return [None]
        return None

    # -- kinds -------------------------------------------------------------------------
    def kind(self, expr: cst.BaseExpression) -> str:
        memo = self._memo
        if memo is None:
            return self._kind(expr)
        found = memo.get(id(expr))
        if found is None:
            found = memo[id(expr)] = self._kind(expr)
        return found

    def _kind(self, expr: cst.BaseExpression) -> str:
        # The commonest kinds asked by type: isinstance of libcst's node classes is slow.
        node_type = type(expr)
        if node_type in _LITERAL_TYPES:
            return OTHER
        if node_type in _NAME_TYPES:
            assert isinstance(expr, cst.Name)
            if expr.value in ("True", "False", "None"):
                return OTHER
            return self.kinds.get(expr.value, UNKNOWN)
        if node_type in _ATTRIBUTE_TYPES:
            assert isinstance(expr, cst.Attribute)
            if self._recorded_attributes and dotted_name(expr) in self._recorded_attributes:
                return TENSOR
            base = self.kind(expr.value)
            if expr.attr.value in _TENSOR_FACTS and base != OTHER:
                return OTHER
            if expr.attr.value in _TENSOR_ATTRIBUTES and base == TENSOR:
                return TENSOR
            return UNKNOWN
        if isinstance(expr, cst.Subscript):
            base = self.kind(expr.value)
            return base if base != UNKNOWN else UNKNOWN
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.left, _STRINGS):
            return OTHER  # ``"%d" % n``: string formatting
        if isinstance(expr, (cst.BinaryOperation, cst.BooleanOperation)):
            return _combine(self.kind(expr.left), self.kind(expr.right))
        if isinstance(expr, cst.UnaryOperation):
            return OTHER if isinstance(expr.operator, cst.Not) else self.kind(expr.expression)
        if isinstance(expr, cst.Comparison):
            if all(isinstance(t.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for t in expr.comparisons):
                return OTHER
            operands = [expr.left, *(t.comparator for t in expr.comparisons)]
            if any(_plain_constant(operand) for operand in operands):
                return OTHER  # a tensor compared with a string or None is no tensor op
            return _combine(*(self.kind(operand) for operand in operands))
        if isinstance(expr, cst.IfExp):
            body, orelse = self.kind(expr.body), self.kind(expr.orelse)
            return body if body == orelse else (TENSOR if TENSOR in (body, orelse) else UNKNOWN)
        if isinstance(expr, cst.Call):
            return self._call_kind(expr)
        return UNKNOWN

    def _call_kind(self, call: cst.Call) -> str:
        name = dotted_name(call.func)
        if name is not None:
            head, _, last = name.rpartition(".")
            if not head and last in _PLAIN_BUILTINS:
                return OTHER
            if head and head.split(".", 1)[0] in self.torch_names:
                if names_a_tensor_type(last):
                    return TENSOR  # ``torch.IntTensor([n])``: a typed constructor
                return OTHER if last in _TORCH_NON_TENSOR or last[:1].isupper() else TENSOR
        if isinstance(call.func, cst.Attribute):
            method = call.func.attr.value
            if self._is_own_method(call):
                return TENSOR
            if method in _METHOD_NON_TENSOR:
                return OTHER if self.kind(call.func.value) != OTHER else UNKNOWN
            if self.kind(call.func.value) == TENSOR:
                return TENSOR
        return UNKNOWN

    def _is_own_method(self, call: cst.Call) -> bool:
        """``self.m(...)`` of a method of the class annotated to return a tensor."""
        func = call.func
        return (
            isinstance(func, cst.Attribute)
            and func.attr.value in self.tensor_methods
            and isinstance(func.value, cst.Name)
            and func.value.value == "self"
        )

    def holds_a_tensor(self, expr: cst.BaseExpression) -> bool:
        """On evidence: a tensor, or a tuple or list display with a tensor among its elements."""
        if isinstance(expr, (cst.Tuple, cst.List)):
            return any(self.is_tensor(element.value) for element in expr.elements)
        return self.is_tensor(expr)

    def is_tensor(self, expr: cst.BaseExpression) -> bool:
        """On evidence only: an unknown expression is not a tensor."""
        return self.kind(expr) == TENSOR

    def assigned_once(self, name: str) -> Optional[cst.BaseExpression]:
        """``value`` when ``name = value`` is the only binding of ``name`` in the function (not a parameter)."""
        node = self._single_assigns.get(name)
        return node.value if node is not None else None

    def is_zero_dim(self, expr: cst.BaseExpression, depth: int = 0) -> bool:
        """A 0-dim tensor on evidence: a tensor reduced with no argument (``x.argmax()``,
        ``mask.sum()``), ``torch.argmax(x)`` given one tensor alone, ``+ - * // %`` of one with an
        int or another, or a name bound once, on one line, to one (see
        :data:`~codemods.analysis.catalogue.INDEX_READ`)."""
        if isinstance(expr, cst.Name) and depth < 8:
            value = self.assigned_once(expr.value)
            return value is not None and "\n" not in _code(value) and self.is_zero_dim(value, depth + 1)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _INDEX_ARITHMETIC):
            left, right = self.is_zero_dim(expr.left, depth), self.is_zero_dim(expr.right, depth)
            return (left or right) and all(
                zero or isinstance(side, cst.Integer) for side, zero in ((expr.left, left), (expr.right, right))
            )
        if not isinstance(expr, cst.Call) or not isinstance(expr.func, cst.Attribute):
            return False
        last = expr.func.attr.value
        head = dotted_name(expr.func.value)
        if head is not None and head in self.torch_names:
            return (
                last in ZERO_DIM_FUNCTIONS
                and len(expr.args) == 1
                and expr.args[0].keyword is None
                and not expr.args[0].star
                and self.is_tensor(expr.args[0].value)
            )
        return last in ZERO_DIM_METHODS and not expr.args and self.is_tensor(expr.func.value)

    def index_read(self, subscript: cst.Subscript) -> str:
        """How ``subscript`` reads a tensor's value as an int: "slice" by a slice bound that is
        0-dim (:meth:`is_zero_dim`), an element of a tensor (``x[:lengths[i]]``) or a name that
        holds a tensor (a parameter the file's calls hand one: ``x[:, :channels]``), "index" by an
        index that is 0-dim; "" for neither. A tensor as a slice bound is read through
        ``__index__``, whatever its shape (only a one-element integer tensor has one)."""
        found = ""
        for element in subscript.slice:
            inner = element.slice
            if isinstance(inner, cst.Index):
                if inner.star is None and self.is_zero_dim(inner.value):
                    found = "index"
                continue
            if not isinstance(inner, cst.Slice):
                continue
            for bound in (inner.lower, inner.upper, inner.step):
                if bound is None:
                    continue
                if self.is_zero_dim(bound) or (
                    (isinstance(bound, cst.Name) or (isinstance(bound, cst.Subscript) and dotted_name(bound.value)))
                    and self.is_tensor(bound)
                ):
                    return "slice"
        return found

    def is_bool_tensor(self, expr: cst.BaseExpression) -> bool:
        """On evidence only, narrower than :meth:`is_tensor`: an unknown tensor is not a bool one."""
        if self._bool_names is None:
            self._bool_names = self._settle_bool_names()
        return self._is_bool(expr, self._bool_names)

    def _settle_bool_names(self) -> frozenset[str]:
        # One line: the prefilter finds the binding by its line (catalogue.MASK_BINDING).
        values = {
            name: node.value
            for name, node in self._mask_assigns.items()
            if "\n" not in cst.Module([]).code_for_node(node) and self.kind(node.value) == TENSOR
        }
        return settle_bool_names(values, self._is_bool)

    def _is_bool(self, expr: cst.BaseExpression, names: Iterable[str]) -> bool:
        if isinstance(expr, cst.Name):
            return expr.value in names
        if isinstance(expr, cst.Comparison):
            return (
                len(expr.comparisons) == 1  # ``a < x < b`` takes the truth of ``a < x``
                and isinstance(expr.comparisons[0].operator, _BOOL_COMPARISONS)
                and (self.is_tensor(expr.left) or self.is_tensor(expr.comparisons[0].comparator))
            )
        if isinstance(expr, cst.UnaryOperation):
            return isinstance(expr.operator, cst.BitInvert) and self._is_bool(expr.expression, names)
        if isinstance(expr, cst.BinaryOperation):
            return (
                isinstance(expr.operator, _BOOL_OPERATORS)
                and self._is_bool(expr.left, names)
                and self._is_bool(expr.right, names)
            )
        if not isinstance(expr, cst.Call) or not isinstance(expr.func, cst.Attribute):
            return False
        last = expr.func.attr.value
        head = dotted_name(expr.func.value)
        if head is not None and head in self.torch_names:
            return last in BOOL_FUNCTIONS or self._names_bool(_dtype_argument(expr, last))
        if last in _CASTS and self.is_tensor(expr.func.value):
            return self._names_bool(_dtype_argument(expr, last))
        return last in BOOL_METHODS and self.is_tensor(expr.func.value)

    def _names_bool(self, dtype: Optional[cst.BaseExpression]) -> bool:
        """``dtype`` is ``torch.bool`` (a tensor made or cast with it holds bools)."""
        name = dotted_name(dtype) if dtype is not None else None
        return name is not None and name.rpartition(".")[::2] in {(t, "bool") for t in self.torch_names}

    # -- ops ----------------------------------------------------------------------------
    def is_own_frame_call(self, call: cst.Call) -> bool:
        """A call of a submodule or a function: it compiles as a frame of its own."""
        name = dotted_name(call.func) or ""
        head, _, last = name.rpartition(".")
        return (head == "self" and last in self.submodules) or (not head and bool(last)) or self._is_own_method(call)

    def is_evidenced_op(self, node: cst.CSTNode) -> bool:
        """A tensor op on evidence: a call of ``torch``, a method of a known tensor, an expression
        whose kind is a tensor (not an unknown value's arithmetic)."""
        if isinstance(node, cst.Call):
            if isinstance(node.func, cst.Attribute) and self.kind(node.func.value) == TENSOR:
                return True
            return self._call_kind(node) == TENSOR and not self._is_own_method(node)
        return isinstance(node, cst.BaseExpression) and self.kind(node) == TENSOR

    def is_tensor_op(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` itself likely runs a tensor op in this frame."""
        if type(node) not in _OPS:
            return False  # asked of every node of a function: by type, as isinstance is slow
        if isinstance(node, cst.Call):
            if isinstance(node.func, cst.Attribute):
                method = node.func.attr.value
                receiver = self.kind(node.func.value)
                if method in _METHOD_NON_TENSOR:
                    return False  # reads a value out: that is the break, not work a graph can hold
                if receiver == TENSOR or (receiver == UNKNOWN and method in _TENSOR_METHODS):
                    return True
            return self._call_kind(node) == TENSOR and not self.is_own_frame_call(node)
        if isinstance(node, (cst.BinaryOperation, cst.Comparison)):
            return self.kind(node) != OTHER
        if isinstance(node, cst.UnaryOperation):
            return not isinstance(node.operator, cst.Not) and self.kind(node.expression) != OTHER
        if isinstance(node, cst.AugAssign):
            return _combine(self.kind(node.target), self.kind(node.value)) != OTHER
        if isinstance(node, cst.Subscript):
            return self.kind(node.value) == TENSOR
        return False


#: how ``torch.jit.export`` is written on a method: its inputs are a module's, as ``forward``'s are
EXPORT_SPELLINGS = frozenset({"torch.jit.export", "jit.export", "export"})


def _exported(func: cst.FunctionDef) -> bool:
    """``func`` is decorated ``@torch.jit.export``: an entry of its module taking inputs as ``forward`` does."""
    return any(dotted_name(d.decorator) in EXPORT_SPELLINGS for d in func.decorators)


#: in-place operators that keep a bool tensor one, whatever the right side (``done |= stop``)
_BITWISE_UPDATES = (cst.BitOrAssign, cst.BitAndAssign, cst.BitXorAssign)
#: arithmetic that keeps a 0-dim integer tensor one (``x.argmax() // 2``, ``n - 1``)
_INDEX_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


#: tensor methods that cast to the dtype they are given (``x.to(torch.bool)``)
_CASTS = frozenset({"to", "type"})


def _dtype_argument(call: cst.Call, name: str) -> Optional[cst.BaseExpression]:
    """The ``dtype=`` of a torch function's call, or a cast's dtype (its first argument)."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "dtype":
            return arg.value
    if name in _CASTS and call.args and call.args[0].keyword is None and not call.args[0].star:
        return call.args[0].value
    return None


def may_be_bool_tensor(expr: cst.BaseExpression) -> bool:
    """``expr`` is written as :meth:`TensorFacts.is_bool_tensor` may accept, whatever its
    kinds: a name, one comparison, ``~``/``&``/``|``/``^`` of such, a call of a bool method or
    function, a call given ``dtype=torch.bool`` or a cast to it. What it rejects needs no tensor
    inference to be ruled out (``x[0]``, ``d["k"]``)."""
    if isinstance(expr, cst.Name):
        return True
    if isinstance(expr, cst.Comparison):
        return len(expr.comparisons) == 1 and isinstance(expr.comparisons[0].operator, _BOOL_COMPARISONS)
    if isinstance(expr, cst.UnaryOperation):
        return isinstance(expr.operator, cst.BitInvert) and may_be_bool_tensor(expr.expression)
    if isinstance(expr, cst.BinaryOperation):
        return (
            isinstance(expr.operator, _BOOL_OPERATORS)
            and may_be_bool_tensor(expr.left)
            and may_be_bool_tensor(expr.right)
        )
    if not isinstance(expr, cst.Call) or not isinstance(expr.func, cst.Attribute):
        return False
    if expr.func.attr.value in BOOL_METHODS | BOOL_FUNCTIONS:
        return True
    dtype = _dtype_argument(expr, expr.func.attr.value)
    return dtype is not None and (dotted_name(dtype) or "").rpartition(".")[2] == "bool"


_STRINGS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def _plain_constant(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, _STRINGS) or (isinstance(expr, cst.Name) and expr.value == "None")


def _combine(*kinds: str) -> str:
    if TENSOR in kinds:
        return TENSOR
    return OTHER if all(k == OTHER for k in kinds) else UNKNOWN


def _positions(
    target: cst.BaseExpression, iterable: cst.BaseExpression
) -> list[tuple[cst.BaseExpression, Optional[cst.BaseExpression]]]:
    """A loop's target, position by position over ``zip`` and ``enumerate``, each part with what it
    runs over (None for enumerate's count): ``for scores, anchors in zip(pred_scores, image_anchors)``
    binds ``scores`` to the rows of ``pred_scores`` alone."""
    if isinstance(iterable, cst.Call) and isinstance(target, (cst.Tuple, cst.List)):
        name = dotted_name(iterable.func)
        args = iterable.args
        elements = target.elements
        plain = not any(arg.keyword or arg.star for arg in args) and not any(
            isinstance(element, cst.StarredElement) for element in elements
        )
        if plain and name == "zip" and len(args) == len(elements):
            pairs = zip(elements, args, strict=True)
            return [part for element, arg in pairs for part in _positions(element.value, arg.value)]
        if plain and name == "enumerate" and len(args) == 1 and len(elements) == 2:
            return [(elements[0].value, None), *_positions(elements[1].value, args[0].value)]
    return [(target, iterable)]


def _other_bindings(node: cst.CSTNode) -> list[str]:
    """Names a ``with … as``, ``except … as`` or import binds (their kinds are not known here)."""
    if isinstance(node, cst.WithItem):
        return target_names(node.asname.name) if node.asname is not None else []
    if isinstance(node, cst.ExceptHandler):
        return target_names(node.name.name) if node.name is not None else []
    if isinstance(node, cst.Import):
        return [_bound_by(alias).split(".")[0] for alias in node.names]
    if isinstance(node, cst.ImportFrom) and not isinstance(node.names, cst.ImportStar):
        return [_bound_by(alias) for alias in node.names]
    return []


def _bound_by(alias: cst.ImportAlias) -> str:
    """What an import alias binds: its ``as`` name, else the name itself (dotted for ``import a.b``)."""
    name = alias.asname.name if alias.asname is not None else alias.name
    return dotted_name(name) or "" if isinstance(name, (cst.Name, cst.Attribute)) else ""


def inline_tensor_ops(facts: TensorFacts, roots: Sequence[cst.CSTNode]) -> int:
    """Tensor ops written in ``roots`` themselves: nested functions, lambdas and classes aside.

    A function that passes ``*args``/``**kwargs`` on (a decorator's wrapper)
    counts its unknown arithmetic and comparisons only when something in it
    is a tensor on evidence: its own code is bookkeeping around the call.
    """
    ops = [node for root in roots for node in facts._own_nodes(root) if facts.is_tensor_op(node)]
    params = facts.func.params
    forwards = isinstance(params.star_arg, cst.Param) or params.star_kwarg is not None
    if forwards and not any(facts.is_evidenced_op(node) for node in ops):
        return 0
    return len(ops)


def torch_aliases(module: cst.Module) -> frozenset[str]:
    """Names the module's top-level imports bind to ``torch`` or one of its modules."""
    found = {"torch"}
    for stmt in module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Import):
                for alias in small.names:
                    if (dotted_name(alias.name) or "").split(".")[0] == "torch":
                        found.add(_bound_by(alias).split(".")[0] or "torch")
            elif isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                module_path = dotted_name(small.module) if small.module is not None else ""
                if (module_path or "").split(".")[0] != "torch" or small.relative:
                    continue
                for alias in small.names:
                    name = _bound_by(alias)
                    if name and not name[:1].isupper():
                        found.add(name)
    return frozenset(found)


def submodule_attributes(cls: cst.ClassDef) -> frozenset[str]:
    """``self`` attributes a method of ``cls`` assigns a class instance (``self.attn = Attention(...)``)."""
    found = set()
    for node in walk.descendants(cls.body):
        if not isinstance(node, cst.Assign):
            continue
        called = [dotted_name(c.func) or "" for c in walk.descendants(node.value) if isinstance(c, cst.Call)]
        if not any(class_like(name.rpartition(".")[2]) for name in called):
            continue
        for target in node.targets:
            attribute = self_attribute(target.target)
            if attribute is not None:
                found.add(attribute)
    return frozenset(found)


class FunctionTensors:
    """Each function's :class:`TensorFacts` and inline tensor op count as the rules read them,
    built on the first question and kept for the tree."""

    def __init__(self, module: cst.Module, recorded: Optional[Mapping[str, frozenset[str]]] = None) -> None:
        self.module = module
        #: function key -> names a recorded run read as tensors (:func:`~.recorded.recorded_tensors`)
        self.recorded: Mapping[str, frozenset[str]] = recorded or {}
        self._facts: dict[int, TensorFacts] = {}
        self._ops: dict[int, int] = {}
        self._submodules: dict[int, frozenset[str]] = {}
        self._torch: Optional[frozenset[str]] = None

    def facts(self, func: cst.FunctionDef, cls: Optional[cst.ClassDef]) -> TensorFacts:
        """What ``func``'s expressions are; ``cls``: the class ``func`` is a method of, if it is one."""
        found = self._facts.get(id(func))
        if found is None:
            submodules: frozenset[str] = frozenset()
            if cls is not None:
                if id(cls) not in self._submodules:
                    self._submodules[id(cls)] = submodule_attributes(cls)
                submodules = self._submodules[id(cls)]
            recorded = self.recorded.get(function_key(func.name.value, cls.name.value if cls else None), ())
            found = self._facts[id(func)] = TensorFacts(
                func, cls is not None, submodules, self.torch_names(), recorded=recorded
            )
        return found

    def torch_names(self) -> frozenset[str]:
        """Names the module's imports bind to ``torch`` or one of its modules (:func:`torch_aliases`)."""
        if self._torch is None:
            self._torch = torch_aliases(self.module)
        return self._torch

    def inline_ops(self, func: cst.FunctionDef, cls: Optional[cst.ClassDef]) -> int:
        """Tensor ops written in ``func`` itself (see :func:`inline_tensor_ops`)."""
        if id(func) not in self._ops:
            self._ops[id(func)] = inline_tensor_ops(self.facts(func, cls), [func.body])
        return self._ops[id(func)]


class FunctionTensorsProvider(BaseMetadataProvider[FunctionTensors]):
    """The module's :class:`FunctionTensors`, set on the module node: the rules that share a
    metadata wrapper (every rule of a file until one changes the tree) infer each function once."""

    def __init__(self, cache: object = None) -> None:
        # Without evidence (static mode, a file on its own) every name is read from the code alone.
        super().__init__(cache if cache is not None else {})

    @classmethod
    def gen_cache(
        cls, root_path: Any, paths: list[str], timeout: Optional[int] = None, **kwargs: Any
    ) -> Mapping[str, object]:
        """libcst's hook for providers that take a cache: the engine hands each file its evidence itself."""
        return {path: {} for path in paths}

    def _gen_impl(self, module: cst.Module) -> None:
        # the cache (``MetadataWrapper(..., cache={FunctionTensorsProvider: evidence})``): what a
        # recorded run read as tensors in this file, by function
        self.set_metadata(module, FunctionTensors(module, self.cache))  # type: ignore[arg-type]
