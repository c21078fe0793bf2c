"""Is this expression an ``nn.Module``? Evidence from the file alone.

The placement rules (GBF005, GBF006, GBF007) rewrite ``torch.compile(m)`` into
``m.compile()`` or wrap ``m.forward``; both are wrong on an object that is
not a module. gbfix never imports the code it rewrites, so it decides from
what the file shows, and declines when the file shows nothing:

* a constructor of a class defined in this file that subclasses
  ``torch.nn.Module``, directly or through bases defined in this file;
* a ``torch.nn.*`` constructor (``nn.Linear(...)``, ``nn.Sequential(...)``);
* ``SomeModel.from_pretrained(...)`` (not a tokenizer, config, processor,
  scheduler or pipeline);
* ``.to(...)``, ``.cuda()``, ``.eval()``, ``.train()``… of a module (they
  return the module itself), ``fully_shard(m)`` (the same object), and
  ``torch.compile(m)`` (an ``OptimizedModule``);
* a parameter annotated with ``nn.Module`` or one of the classes above;
* ``DistributedDataParallel(m)`` / ``FullyShardedDataParallel(m)``: a module
  that wraps ``m`` (its evidence is kept as ``inner``).

Names are resolved with libcst's ``ScopeProvider`` and callees with
``QualifiedNameProvider`` (``import torch as t; t.nn.Linear`` counts; a local
class that happens to be called ``Linear`` does not). A name's value is
taken from the binding that reaches the use in straight-line code; where
branches or loops make that unclear, every binding of the name in its scope
must carry evidence, and they must agree.

Evidence also says whether ``Module.compile()`` compiles the module's
``forward`` (``compiles``): on torch 2.13 Dynamo skips frames in
``torch/nn``, so ``nn.Linear(...).compile()`` compiles nothing, while
``torch.compile(nn.Linear(...))`` does. Only a class whose ``forward`` is
defined outside torch is known to compile.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional, Union

import libcst as cst
from libcst.metadata import QualifiedNameSource, ScopeProvider

from codemods.analysis.names import class_like
from codemods.analysis.nodes import dotted_name
from codemods.fastcst import walk

#: metadata a rule must declare to use :class:`ModuleFacts`
EVIDENCE_METADATA = (walk.QualifiedNames, ScopeProvider, walk.ParentProvider)

MODULE_BASES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})
COMPILE = frozenset({"torch.compile"})

#: wrappers that hold the module as ``.module`` (a different object)
WRAPPERS = frozenset(
    {
        "torch.nn.parallel.DistributedDataParallel",
        "torch.nn.parallel.distributed.DistributedDataParallel",
        "torch.distributed.fsdp.FullyShardedDataParallel",
        "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel",
    }
)
#: FSDP2: shards the module in place and returns the same object
SAME_OBJECT_WRAPPERS = frozenset(
    {
        "torch.distributed.fsdp.fully_shard",
        "torch.distributed.fsdp._fully_shard.fully_shard",
        "torch.distributed.fsdp._fully_shard._fully_shard.fully_shard",
        "torch.distributed._composable.fsdp.fully_shard",
        "torch.distributed._composable.fsdp.fully_shard.fully_shard",
    }
)

#: ``nn.Module`` methods that return the module itself
SELF_RETURNING = frozenset(
    {
        "to",
        "cuda",
        "cpu",
        "xpu",
        "eval",
        "train",
        "half",
        "float",
        "double",
        "bfloat16",
        "requires_grad_",
        "to_empty",
        "apply",
        "share_memory",
    }
)

#: capitalised names under ``torch.nn`` that are not modules
_NOT_MODULES = frozenset(
    {
        "Parameter",
        "Buffer",
        "UninitializedParameter",
        "UninitializedBuffer",
        "LinearCrossEntropyOptions",
    }
)
#: ``X.from_pretrained`` builds something other than a model when X ends so
_NOT_MODELS = (
    "Tokenizer",
    "TokenizerFast",
    "Processor",
    "FeatureExtractor",
    "Config",
    "Pipeline",
    "Scheduler",
    "ImageProcessor",
)


@dataclass(frozen=True)
class Evidence:
    """What the file proves about an object."""

    #: the file shows it is an ``nn.Module``
    is_module: bool
    #: whether ``Module.compile()`` compiles its forward; None: unknown class
    compiles: Optional[bool]
    #: one phrase for messages: "`Net()` builds `Net`, an nn.Module subclass defined here"
    why: str
    #: qualified name of the DDP/FSDP wrapper when the object is one
    wrapper: str = ""
    #: for a wrapper: what is known about the module it wraps
    inner: Optional["Evidence"] = None


@dataclass(frozen=True)
class Binding:
    """One place a name (or ``self.attr``) gets its value."""

    #: the bound value, or None when bound by anything but ``target = value``
    value: Optional[cst.BaseExpression]
    #: the statement that binds it (a ``SimpleStatementLine`` for assignments)
    statement: cst.CSTNode
    #: the binding node: a Name, an Attribute target, a Param, an import…
    node: cst.CSTNode


class _Cycle:
    """A value that depends on itself: neutral when combining bindings."""


CYCLE = _Cycle()
Result = Union[Evidence, None, _Cycle]
MetadataGetter = Callable[..., Any]


def is_torch_nn_class(qualified: str) -> bool:
    """``torch.nn.Linear``, ``torch.nn.modules.linear.Linear``: built-in module classes."""
    parts = qualified.split(".")
    if parts[:2] != ["torch", "nn"] or len(parts) < 3 or not parts[-1][:1].isupper():
        return False
    if parts[-1] in _NOT_MODULES or parts[-1].endswith("Mixin"):
        return False
    return len(parts) == 3 or parts[2] == "modules"


def _is_wrapper(names: set[str]) -> str:
    return next(iter(sorted(names & WRAPPERS)), "")


def module_argument(call: cst.Call, keyword: str) -> Optional[cst.Arg]:
    """The module argument of ``torch.compile``/``DDP``: first positional or ``keyword=``."""
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is None:
            return arg
        if arg.keyword.value == keyword:
            return arg
    return None


class ModuleFacts:
    """Answers "is this a module?" for expressions of one (original) tree.

    ``metadata`` is a rule's ``get_metadata``; the rule must declare
    :data:`EVIDENCE_METADATA`.
    """

    def __init__(self, module: cst.Module, metadata: MetadataGetter) -> None:
        self.module = module
        self._meta = metadata
        self._visiting: set[tuple[Any, ...]] = set()
        self._classes: dict[str, cst.ClassDef] = {}
        #: class qualified name -> whether its forward is defined outside torch
        self._class_facts: dict[str, bool] = {}
        #: names some function rebinds with `global`/`nonlocal`: not straight-line
        self._declared: set[str] = set()
        walk.visit(module, _ClassCollector(self))

    # -- metadata helpers ---------------------------------------------------
    def qualified(self, node: cst.CSTNode) -> set[str]:
        try:
            return {q.name for q in self._meta(walk.QualifiedNames, node, set())}
        except KeyError:
            return set()

    def imported(self, node: cst.CSTNode) -> set[str]:
        """Qualified names of ``node`` that come from an import (not local names)."""
        try:
            names = self._meta(walk.QualifiedNames, node, set())
        except KeyError:
            return set()
        return {q.name for q in names if q.source == QualifiedNameSource.IMPORT}

    def parent(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        return self._meta(walk.ParentProvider, node, None)

    def statement_of(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The statement holding ``node`` (a SimpleStatementLine or compound statement)."""
        current: Optional[cst.CSTNode] = node
        while current is not None and not isinstance(current, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            current = self.parent(current)
        return current

    def is_compile_call(self, node: cst.CSTNode) -> bool:
        return isinstance(node, cst.Call) and bool(self.qualified(node.func) & COMPILE)

    # -- same-module classes ------------------------------------------------
    def _classify_classes(self) -> None:
        # Fixpoint over same-module bases: a class is a module if a base is.
        changed = True
        while changed:
            changed = False
            for name, node in self._classes.items():
                if name in self._class_facts:
                    continue
                verdict = self._class_verdict(node)
                if verdict is not None:
                    self._class_facts[name] = verdict
                    changed = True

    def _class_verdict(self, node: cst.ClassDef) -> Optional[bool]:
        """None: not (yet) known to be a module; else whether its forward is ours."""
        body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
        own_forward = any(isinstance(s, cst.FunctionDef) and s.name.value == "forward" for s in body)
        for base in node.bases:
            if base.keyword is not None:
                continue
            names = self.qualified(base.value)
            if names & MODULE_BASES or any(is_torch_nn_class(n) for n in names):
                return own_forward
            for n in names:
                if n in self._class_facts:
                    return True if own_forward else self._class_facts[n]
        return None

    # -- bindings -------------------------------------------------------------
    def bindings(self, expr: cst.BaseExpression) -> Optional[list[Binding]]:
        """Every binding of a Name or ``self.attr`` in its scope, or None if unknown."""
        if isinstance(expr, cst.Name):
            return self._name_bindings(expr)
        owner = self._self_attribute(expr)
        if owner is not None:
            return self._attribute_bindings(owner[0], owner[1])
        return None

    def _key(self, expr: cst.BaseExpression) -> Optional[str]:
        if isinstance(expr, cst.Name):
            return expr.value
        if self._self_attribute(expr) is not None:
            return dotted_name(expr)
        return None

    def _name_bindings(self, name: cst.Name) -> Optional[list[Binding]]:
        scope = self._meta(ScopeProvider, name, None)
        if scope is None:
            return None
        try:
            accesses = scope.accesses[name]
        except Exception:
            return None
        # `accesses[node]` holds every read of the name in the scope: keep ours.
        accesses = [a for a in accesses if a.node is name] or list(accesses)
        referents = list({id(r): r for access in accesses for r in access.referents}.values())
        if not accesses or not referents:
            return None
        out: list[Binding] = []
        for assignment in referents:
            node = getattr(assignment, "node", None)
            if node is None:
                return None
            out.append(self._binding_of(node))
        return out

    def _binding_of(self, node: cst.CSTNode) -> Binding:
        statement = self.statement_of(node) or node
        if isinstance(node, cst.Name):
            parent = self.parent(node)
            if isinstance(parent, cst.AssignTarget):
                assign = self.parent(parent)
                if isinstance(assign, cst.Assign):
                    return Binding(assign.value, statement, node)
            if isinstance(parent, cst.AnnAssign) and parent.target is node and parent.value is not None:
                return Binding(parent.value, statement, node)
            if isinstance(parent, cst.NamedExpr) and parent.target is node:
                return Binding(parent.value, statement, node)
        return Binding(None, statement, node)

    def _self_attribute(self, expr: cst.BaseExpression) -> Optional[tuple[cst.ClassDef, str]]:
        """(class, attr) for ``self.attr`` read inside a method of a class."""
        if not (isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name)):
            return None
        func = self._enclosing(expr, cst.FunctionDef)
        if func is None or not func.params.params:
            return None
        if func.params.params[0].name.value != expr.value.value:
            return None
        cls = self.parent(func)
        cls = self.parent(cls) if isinstance(cls, cst.IndentedBlock) else None
        if not isinstance(cls, cst.ClassDef):
            return None
        return cls, expr.attr.value

    def _enclosing(self, node: cst.CSTNode, kind: type) -> Any:
        current = self.parent(node)
        while current is not None and not isinstance(current, kind):
            if isinstance(current, (cst.Lambda,)):
                return None
            current = self.parent(current)
        return current

    def _attribute_bindings(self, cls: cst.ClassDef, attr: str) -> Optional[list[Binding]]:
        collector = _AttributeBindings(self, cls, attr)
        walk.visit(cls.body, collector)
        return collector.found or None

    # -- flow: the binding that reaches a read in straight-line code ----------
    def _walk_back(self, expr: cst.BaseExpression, key: str) -> Optional[Binding]:
        statement = self.statement_of(expr)
        if key.split(".")[0] in self._declared or statement is None:
            return None
        # A comprehension or lambda variable is not the statement's name.
        if self._meta(ScopeProvider, expr, None) is not self._meta(ScopeProvider, statement, None):
            return None
        while statement is not None:
            block = self.parent(statement)
            body = getattr(block, "body", None)
            if not isinstance(block, (cst.IndentedBlock, cst.Module)) or not isinstance(body, (list, tuple)):
                return None
            index = next((i for i, s in enumerate(body) if s is statement), None)
            if index is None:
                return None
            for previous in reversed(body[:index]):
                verdict = self._binds(previous, key)
                if verdict is None:
                    continue
                return verdict if isinstance(verdict, Binding) else None
            statement = self._resume_from(block)
        return None

    def _resume_from(self, block: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The statement to keep walking back from after reaching the top of ``block``."""
        holder = self.parent(block)
        if isinstance(holder, (cst.If, cst.With)):
            return holder
        if isinstance(holder, cst.Else) and isinstance(self.parent(holder), cst.If):
            return self.parent(holder)
        if isinstance(holder, cst.Try) and holder.body is block:
            return holder
        return None

    def _binds(self, statement: cst.CSTNode, key: str) -> Union[Binding, bool, None]:
        """A Binding if ``statement`` is a simple assignment of ``key``; True if it
        binds ``key`` in a way we do not follow; None if it does not bind it."""
        finder = _StoreFinder(key)
        walk.visit(statement, finder)
        if not finder.found:
            return None
        if not isinstance(statement, cst.SimpleStatementLine):
            return True
        for small in reversed(statement.body):
            if isinstance(small, cst.Assign) and any(dotted_name(t.target) == key for t in small.targets):
                target = next(t.target for t in small.targets if dotted_name(t.target) == key)
                return Binding(small.value, statement, target)
            if isinstance(small, cst.AnnAssign) and dotted_name(small.target) == key and small.value is not None:
                return Binding(small.value, statement, small.target)
            if _StoreFinder.stores(small, key):
                return True
        return True

    # -- evidence -------------------------------------------------------------
    def evidence(self, expr: cst.BaseExpression) -> Optional[Evidence]:
        """What the file proves about ``expr``; None when it proves nothing."""
        result = self._evidence(expr)
        return result if isinstance(result, Evidence) else None

    def is_function(self, expr: cst.BaseExpression) -> bool:
        """``expr`` names a function or lambda defined here, or a method of the class
        ``self`` is (``self._step``): never a module."""
        if isinstance(expr, cst.Lambda):
            return True
        owner = self._self_attribute(expr)
        if owner is not None:
            cls, attr = owner
            return (
                any(isinstance(stmt, cst.FunctionDef) and stmt.name.value == attr for stmt in cls.body.body)
                and self._attribute_bindings(cls, attr) is None
            )
        bindings = self.bindings(expr) if isinstance(expr, cst.Name) else None
        return bool(bindings) and all(
            isinstance(b.node, cst.FunctionDef) or isinstance(b.value, cst.Lambda)
            for b in bindings  # type: ignore[union-attr]
        )

    def _evidence(self, expr: cst.BaseExpression) -> Result:
        if isinstance(expr, cst.Call):
            return self._call_evidence(expr)
        key = self._key(expr)
        if key is None:
            return None
        walked = self._walk_back(expr, key)
        if walked is not None:
            token: tuple[Any, ...] = (key, id(walked.statement))
            return self._guarded(token, lambda: self._binding_evidence(walked))
        scope_token = self._scope_token(expr)
        bindings = self.bindings(expr)
        if bindings is None:
            return None
        return self._guarded((key, scope_token), lambda: self._combine(bindings))

    def _scope_token(self, expr: cst.BaseExpression) -> Any:
        owner = self._self_attribute(expr)
        if owner is not None:
            return id(owner[0])
        scope = self._meta(ScopeProvider, expr, None)
        return id(scope) if scope is not None else None

    def _guarded(self, token: tuple[Any, ...], compute: Callable[[], Result]) -> Result:
        if token in self._visiting:
            return CYCLE
        self._visiting.add(token)
        try:
            return compute()
        finally:
            self._visiting.discard(token)

    def _combine(self, bindings: list[Binding]) -> Result:
        results = [self._binding_evidence(b) for b in bindings]
        if any(r is None for r in results):
            return None
        known = [r for r in results if isinstance(r, Evidence)]
        if not known:
            return CYCLE
        first = known[0]
        if all(r == first for r in known):
            return first
        if any(r.wrapper for r in known) or not all(r.is_module for r in known):
            return None
        compiles = first.compiles if all(r.compiles == first.compiles for r in known) else None
        return Evidence(True, compiles, f"every assignment of it builds a module ({first.why}, …)")

    def _binding_evidence(self, binding: Binding) -> Result:
        if isinstance(binding.node, cst.Param):
            return self._annotation_evidence(binding.node)
        if binding.value is None:
            return None
        return self._evidence(binding.value)

    def _annotation_evidence(self, param: cst.Param) -> Optional[Evidence]:
        if param.annotation is None:
            return None
        names = self.qualified(param.annotation.annotation)
        shown = dotted_name(param.annotation.annotation) or "its annotation"
        if names & MODULE_BASES:
            return Evidence(True, None, f"a parameter annotated `{shown}`")
        for name in sorted(names):
            if name in self._class_facts:
                return Evidence(True, self._class_facts[name], f"a parameter annotated `{shown}`, defined here")
            if is_torch_nn_class(name):
                return Evidence(True, False, f"a parameter annotated `{shown}`, a built-in torch.nn module")
        return None

    def _call_evidence(self, call: cst.Call) -> Result:
        names = self.qualified(call.func)
        shown = dotted_name(call.func) or "the call"
        if names & COMPILE:
            arg = module_argument(call, "model")
            return self._evidence(arg.value) if arg is not None else None
        if names & SAME_OBJECT_WRAPPERS:
            arg = module_argument(call, "module")
            return self._evidence(arg.value) if arg is not None else None
        wrapper = _is_wrapper(names)
        if wrapper:
            arg = module_argument(call, "module")
            inner = self._evidence(arg.value) if arg is not None else None
            inner_ev = inner if isinstance(inner, Evidence) else None
            if inner is CYCLE:
                return CYCLE
            return Evidence(True, None, f"`{shown}(...)` wraps a module", wrapper, inner_ev)
        for name in sorted(names):
            if name in self._class_facts:
                return Evidence(
                    True,
                    self._class_facts[name],
                    f"`{shown}(...)` builds `{name}`, an nn.Module subclass defined in this file",
                )
            if is_torch_nn_class(name):
                return Evidence(True, False, f"`{shown}(...)` builds a built-in torch.nn module")
        func = call.func
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in SELF_RETURNING:
                inner = self._evidence(func.value)
                if isinstance(inner, Evidence) and inner.is_module:
                    return inner
                return inner if inner is CYCLE else None
            if method == "from_pretrained":
                owner = dotted_name(func.value) or ""
                if owner and not owner.endswith(_NOT_MODELS) and not self._is_torch(func.value):
                    return Evidence(True, True, f"`{owner}.from_pretrained(...)` loads a model")
                return None
        imported = self.imported(call.func)
        if imported and all(self._outside_torch_class(n) for n in imported):
            # A class from elsewhere: not proven a module, but if it is one
            # its forward lives outside torch, so Module.compile() compiles it.
            return Evidence(False, True, f"`{shown}(...)` builds a class defined outside torch")
        return None

    def _is_torch(self, expr: cst.BaseExpression) -> bool:
        return any(n == "torch" or n.startswith("torch.") for n in self.qualified(expr))

    def _outside_torch_class(self, qualified: str) -> bool:
        last = qualified.rsplit(".", 1)[-1]
        if not class_like(last) or qualified.startswith(("torch.", "builtins.")):
            return False
        # Defined here but not a module subclass: not evidence of anything.
        return qualified not in self._classes


class _ClassCollector(cst.CSTVisitor):
    def __init__(self, facts: ModuleFacts) -> None:
        self.facts = facts

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        for name in self.facts.qualified(node):
            self.facts._classes[name] = node

    def visit_Global(self, node: cst.Global) -> None:
        self.facts._declared.update(n.name.value for n in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.facts._declared.update(n.name.value for n in node.names)

    def leave_Module(self, original_node: cst.Module) -> None:
        self.facts._classify_classes()


class _StoreFinder(cst.CSTVisitor):
    """Does a statement store to ``key`` (a name or ``self.attr``) anywhere?"""

    def __init__(self, key: str) -> None:
        self.key = key
        self.found = False

    @staticmethod
    def stores(node: cst.CSTNode, key: str) -> bool:
        finder = _StoreFinder(key)
        walk.visit(node, finder)
        return finder.found

    def _target(self, target: cst.CSTNode) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._target(element.value)
        elif isinstance(target, cst.StarredElement):
            self._target(target.value)
        elif isinstance(target, (cst.Name, cst.Attribute)) and dotted_name(target) == self.key:
            self.found = True

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._target(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._target(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._target(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._target(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._target(node.name)

    def visit_Del(self, node: cst.Del) -> None:
        self._target(node.target)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        bound = node.asname.name if node.asname else node.name
        if isinstance(bound, cst.Attribute):
            bound = cst.Name(dotted_name(bound).split(".")[0])  # type: ignore[union-attr]
        self._target(bound)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self._target(node.name)
        return True

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self._target(node.name)
        return True

    def visit_Global(self, node: cst.Global) -> None:
        self.found = self.found or any(n.name.value == self.key for n in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.found = self.found or any(n.name.value == self.key for n in node.names)


class _AttributeBindings(cst.CSTVisitor):
    """Every ``self.attr = ...`` in the methods of one class (not nested classes)."""

    def __init__(self, facts: ModuleFacts, cls: cst.ClassDef, attr: str) -> None:
        self.facts = facts
        self.attr = attr
        self.found: list[Binding] = []
        self.selves: list[Optional[str]] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        params = node.params.params
        if self.selves:
            self.selves.append(None)  # a nested function: its `self` is not ours
        else:
            self.selves.append(params[0].name.value if params else None)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.selves.pop()

    def _is_ours(self, target: cst.BaseExpression) -> bool:
        me = self.selves[-1] if self.selves else None
        return (
            me is not None
            and isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value == me
            and target.attr.value == self.attr
        )

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        # Returns False: a line holds no statement this visitor needs to enter.
        me = self.selves[-1] if self.selves else None
        if me is None:
            return False
        key = f"{me}.{self.attr}"
        for small in node.body:
            if isinstance(small, cst.Assign):
                hits = [t.target for t in small.targets if self._is_ours(t.target)]
                if hits:
                    self.found.append(Binding(small.value, node, hits[0]))
                    continue
            if isinstance(small, cst.AnnAssign) and self._is_ours(small.target) and small.value is not None:
                self.found.append(Binding(small.value, node, small.target))
                continue
            if _StoreFinder.stores(small, key):
                self.found.append(Binding(None, node, small))
        return False

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.BaseCompoundStatement):
            self._compound(node)
        return super().on_visit(node)

    def _compound(self, node: cst.BaseCompoundStatement) -> None:
        me = self.selves[-1] if self.selves else None
        if me is None or isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            return
        # Loop targets, with-as and except-as bind outside plain assignments.
        key = f"{me}.{self.attr}"
        finder = _HeaderStores(key)
        walk.visit(node, finder)
        if finder.found:
            self.found.append(Binding(None, node, node))


class _HeaderStores(_StoreFinder):
    """Stores in compound-statement headers only (bodies are seen line by line)."""

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        return None

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        return None

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        return None
