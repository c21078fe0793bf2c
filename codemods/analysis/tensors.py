"""Which expressions of a function are tensors, and how many tensor ops its own code runs.

A skipped frame loses only the tensor ops written in it: a submodule it
calls, or a function, still compiles as a frame of its own. So what a fix
can move into graphs is the inline tensor work of the frame, and that is
what :func:`inline_tensor_ops` counts, to tell a rewrite worth reading from
one that captures nothing.

The inference is small and conservative: an expression is a tensor only on
evidence, never by default.

* Parameters of ``forward`` (but ``self``) are tensors unless annotated as
  something else; parameters annotated ``Tensor`` (``torch.Tensor``,
  ``Optional[Tensor]``…) are tensors in any function.
* Calls of ``torch.*`` functions (not classes, not the few that answer a
  Python value such as ``torch.is_tensor``), of submodules (``self.attr``
  assigned a class instance in the module, and a loop variable over such an
  attribute) return tensors.
* A method of a tensor returns a tensor, but for those that read values
  or facts out of it (``.item()``, ``.tolist()``, ``.size()``, ``.dim()``…);
  an attribute of a tensor is not one, but for ``.T``, ``.mT``, ``.real``…
* Arithmetic, comparisons and subscripts with a tensor operand are tensors.
* A name is a tensor when some assignment in the function binds it to a
  tensor (flow-insensitive, to a fixpoint); a loop over a tensor binds its
  variable to one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Optional

import libcst as cst

from codemods.analysis.bindings import target_names
from codemods.analysis.nodes import dotted_name
from codemods.fastcst import walk

#: ``torch.*`` callables whose result is not a tensor
_TORCH_NON_TENSOR = frozenset(
    {
        "is_tensor",
        "is_floating_point",
        "is_complex",
        "is_nonzero",
        "numel",
        "is_grad_enabled",
        "is_inference_mode_enabled",
        "get_default_dtype",
        "device",
        "dtype",
        "Size",
        "Generator",
        "no_grad",
        "enable_grad",
        "set_grad_enabled",
        "inference_mode",
        "autocast",
        "compile",
        "manual_seed",
        "seed",
        "initial_seed",
        "get_rng_state",
        "set_rng_state",
        "is_autocast_enabled",
        "finfo",
        "iinfo",
        "typename",
        "set_printoptions",
        "use_deterministic_algorithms",
    }
)
#: tensor methods whose result is a Python value or a fact, not a tensor
_METHOD_NON_TENSOR = frozenset(
    {
        "item",
        "tolist",
        "size",
        "dim",
        "ndimension",
        "numel",
        "nelement",
        "element_size",
        "is_contiguous",
        "is_floating_point",
        "is_complex",
        "data_ptr",
        "stride",
        "storage_offset",
        "get_device",
        "untyped_storage",
        "__len__",
        "equal",
        "numpy",
        "dim_order",
        "is_pinned",
        "is_shared",
    }
)
#: tensor attributes that are tensors themselves
_TENSOR_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "real", "imag", "data", "grad"})
_ARITHMETIC = (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison)
_SCOPES = walk.node_types(cst.FunctionDef, cst.Lambda, cst.ClassDef)


def _is_tensor_annotation(annotation: Optional[cst.Annotation]) -> Optional[bool]:
    """True for ``Tensor``-ish annotations, False for other ones, None without one."""
    if annotation is None:
        return None
    text = cst.Module([]).code_for_node(annotation.annotation)
    return "Tensor" in text


class TensorFacts:
    """Which names and expressions of one function (its own code) are tensors."""

    def __init__(
        self,
        func: cst.FunctionDef,
        is_method: bool,
        submodules: Iterable[str] = (),
        torch_names: Iterable[str] = ("torch",),
    ) -> None:
        self.func = func
        #: ``self`` attributes holding submodules (their calls return tensors)
        self.submodules = frozenset(submodules)
        #: names ``torch`` and its submodules are imported as (``torch``, ``F``, ``nn``)
        self.torch_names = frozenset(torch_names)
        self.names: set[str] = set()
        #: loop variables over a submodule list (``for layer in self.layers``)
        self.module_names: set[str] = set()
        params = func.params
        for index, param in enumerate((*params.posonly_params, *params.params, *params.kwonly_params)):
            tensor = _is_tensor_annotation(param.annotation)
            is_self = is_method and index == 0
            if tensor or (tensor is None and not is_self and func.name.value == "forward" and is_method):
                self.names.add(param.name.value)
        self._settle()

    # -- which names are tensors --------------------------------------------------------
    def _statements(self) -> Iterable[cst.CSTNode]:
        return walk.descendants(self.func.body, lambda node: type(node) not in _SCOPES)

    def _settle(self) -> None:
        """Names bound to tensors somewhere in the function, to a fixpoint."""
        bindings: list[tuple[list[str], cst.BaseExpression]] = []
        for node in self._statements():
            if isinstance(node, cst.Assign):
                for target in node.targets:
                    bindings.append((target_names(target.target), node.value))
            elif isinstance(node, (cst.AnnAssign, cst.AugAssign)) and node.value is not None:
                bindings.append((target_names(node.target), node.value))
            elif isinstance(node, cst.For):
                source = dotted_name(node.iter)
                if source and source.startswith("self.") and source[5:] in self.submodules:
                    self.module_names.update(target_names(node.target))
                else:
                    bindings.append((target_names(node.target), node.iter))
            elif isinstance(node, cst.NamedExpr):
                bindings.append((target_names(node.target), node.value))
        changed = True
        while changed:
            changed = False
            for names, value in bindings:
                if names and not set(names) <= self.names and self.is_tensor(value):
                    self.names.update(names)
                    changed = True

    # -- which expressions are tensors ----------------------------------------------------
    def is_tensor(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Name):
            return expr.value in self.names
        if isinstance(expr, (cst.Tuple, cst.List)):
            return False
        if isinstance(expr, cst.Attribute):
            return expr.attr.value in _TENSOR_ATTRIBUTES and self.is_tensor(expr.value)
        if isinstance(expr, cst.Subscript):
            return self.is_tensor(expr.value)
        if isinstance(expr, cst.BinaryOperation):
            return self.is_tensor(expr.left) or self.is_tensor(expr.right)
        if isinstance(expr, cst.UnaryOperation):
            return not isinstance(expr.operator, cst.Not) and self.is_tensor(expr.expression)
        if isinstance(expr, cst.Comparison):
            operands = [expr.left, *(t.comparator for t in expr.comparisons)]
            identity = all(isinstance(t.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for t in expr.comparisons)
            return not identity and any(self.is_tensor(o) for o in operands)
        if isinstance(expr, cst.IfExp):
            return self.is_tensor(expr.body) and self.is_tensor(expr.orelse)
        if isinstance(expr, cst.Call):
            return self.call_is_tensor(expr)
        return False

    def call_is_tensor(self, call: cst.Call) -> bool:
        """Whether ``call`` returns a tensor: a torch function, a submodule, a tensor method."""
        name = dotted_name(call.func)
        if name is not None:
            head, _, last = name.rpartition(".")
            if head.split(".", 1)[0] in self.torch_names and head:
                return last not in _TORCH_NON_TENSOR and not last[:1].isupper()
            if head == "self" and last in self.submodules:
                return True
            if not head and last in self.module_names:
                return True
        if isinstance(call.func, cst.Attribute):
            method = call.func.attr.value
            return method not in _METHOD_NON_TENSOR and self.is_tensor(call.func.value)
        return False

    def is_tensor_op(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` itself runs a tensor op (a call, operator or subscript on tensors)."""
        if isinstance(node, cst.Call):
            if isinstance(node.func, cst.Attribute) and self.is_tensor(node.func.value):
                return True  # a tensor method: `.item()` reads the device, it is an op too
            name = dotted_name(node.func) or ""
            head = name.rpartition(".")[0]
            return bool(head) and head.split(".", 1)[0] in self.torch_names and self.call_is_tensor(node)
        if isinstance(node, _ARITHMETIC) or isinstance(node, cst.Subscript):
            return self.is_tensor(node)  # type: ignore[arg-type]
        if isinstance(node, cst.AugAssign):
            return self.is_tensor(node.target) or self.is_tensor(node.value)
        return False


def inline_tensor_ops(facts: TensorFacts, roots: Sequence[cst.CSTNode]) -> int:
    """Tensor ops written in ``roots`` themselves: nested functions, lambdas and classes aside."""
    return sum(
        1
        for root in roots
        for node in walk.descendants(root, lambda node: type(node) not in _SCOPES)
        if facts.is_tensor_op(node)
    )
