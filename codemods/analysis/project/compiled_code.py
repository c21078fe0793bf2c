"""Which functions of one file run under ``torch.compile``: the one place reachability plugs in.

A cause fix (GBF010) changes what a compiled program does with a call, so
it acts only on code that runs compiled. Until a cross-file reachability
analysis answers that question, this module answers it from the file alone,
and :func:`in_compiled_code` is the single query the rules ask:

* **entries**: functions the file compiles itself, where Dynamo starts a
  trace (its *top frame*): a ``def`` decorated with ``torch.compile``; a
  function passed by name to ``torch.compile(fn, ...)``; the ``forward`` of a
  class of this file whose instance the file compiles (``torch.compile(Net())``,
  ``m = Net(); torch.compile(m)`` or ``m.compile()``);
* **roots** besides the entries: the ``forward`` of every class with a base
  class (the ``nn.Module`` convention; library code is compiled by someone
  else's ``torch.compile``), and its methods exported with
  ``@torch.jit.export`` (a speech model's ``infer``: an entry its users call);
* what those call in the same file, followed by name: a bare name to a
  function of the module (or nested in the caller), ``self.method`` to a
  method of the caller's class;
* a line a real run recorded as a graph break (``--trace``/``--log``).

Entries matter beyond "is it compiled": Dynamo runs a setting such as
``reorderable_logging_functions`` as documented only for calls in the frame
it starts on (measured on torch 2.13: a reordered ``print`` in a function
that frame inlines is not printed at all), so a fix that relies on it must
know the call is in an entry.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Optional, Union

import libcst as cst

from codemods.analysis.module_evidence import SELF_RETURNING
from codemods.analysis.names.scopes import Scope, ScopeTracker, names_in
from codemods.analysis.nodes import dotted_name
from codemods.fastcst import walk

COMPILE = frozenset({"torch.compile"})
#: decorators that make a module's method an entry of its own
EXPORTED = frozenset({"torch.jit.export"})

#: how a file hands an entry to ``torch.compile``: ``@torch.compile`` on its def, a call with the
#: function, or a call (or ``.compile()``) on an instance of its class
EntryKind = Literal["decorator", "call", "module"]


@dataclass(frozen=True)
class Entry:
    """A function the file compiles itself: Dynamo's top frame when the compiled object is called."""

    function: cst.FunctionDef
    kind: EntryKind
    #: the ``@torch.compile`` decorator, or the compile call (``torch.compile(...)``, ``m.compile()``)
    site: Union[cst.Decorator, cst.Call]
    #: the simple statement line holding a compile call (None: a decorator, or a compound statement's header)
    statement: Optional[cst.SimpleStatementLine] = None


@dataclass
class CompiledCode:
    """The answer for one module (an original tree: nodes are compared by identity)."""

    #: id(def) -> how the file compiles it
    entries: dict[int, Entry] = field(default_factory=dict)
    #: ids of the defs that run compiled (entries, roots and what they call)
    reached: set[int] = field(default_factory=set)
    #: every compile site of the file, in source order: decorators and calls
    sites: list[Union[cst.Decorator, cst.Call]] = field(default_factory=list)
    #: id(entry def) -> ids of the defs it reaches (itself included): what runs in its compiled calls
    entry_reach: dict[int, set[int]] = field(default_factory=dict)
    #: id(site) -> the statement holding it: the decorated def, or the simple line of a call
    site_statements: dict[int, cst.BaseStatement] = field(default_factory=dict)

    def entry_of(self, function: Optional[cst.FunctionDef]) -> Optional[Entry]:
        return None if function is None else self.entries.get(id(function))


def in_compiled_code(
    compiled: CompiledCode, function: Optional[cst.FunctionDef], line: int, recorded_lines: frozenset[int]
) -> bool:
    """Whether a call on ``line`` of ``function`` runs under ``torch.compile``.

    The one query of "compiled code": a reachability analysis replaces what
    stands behind it, not its callers.
    """
    if line in recorded_lines:
        return True
    return function is not None and id(function) in compiled.reached


def find_compiled_code(module: cst.Module) -> CompiledCode:
    """Entries, roots and what they reach in ``module`` (one walk, names resolved by scope)."""
    survey = CompiledCodeSurvey()
    walk.visit_batched(module, [survey])
    return survey.result()


@dataclass
class _Function:
    node: cst.FunctionDef
    #: the class it is a method of (None: a module-level or nested function)
    cls: Optional[str]
    #: the class whose method it is, or is nested in (``self`` there)
    owner: Optional[str]
    parent: Optional["_Function"]
    #: dotted names it calls, as written (``helper``, ``self.step``)
    calls: list[str] = field(default_factory=list)


class CompiledCodeSurvey(ScopeTracker, cst.BatchableCSTVisitor):
    """What one walk learns: functions, classes with bases, compile sites, simple bindings of names.

    Its hooks run in a batched walk (:func:`codemods.fastcst.walk.visit_batched`),
    alone or beside other visitors; :meth:`result` answers once the walk is done.
    """

    def __init__(self) -> None:
        ScopeTracker.__init__(self)
        cst.BatchableCSTVisitor.__init__(self)
        self.functions: list[_Function] = []
        #: class name -> method name -> function (module-level classes and nested ones alike)
        self.methods: dict[str, dict[str, _Function]] = {}
        self.based_classes: set[str] = set()
        self._class_stack: list[str] = []
        self._func_stack: list[_Function] = []
        #: (call, scope, statement line) of every call whose function may be torch.compile or `.compile`
        self._calls: list[tuple[cst.Call, Scope, Optional[cst.SimpleStatementLine]]] = []
        self._lines: list[cst.SimpleStatementLine] = []
        #: (decorator, def, scope)
        self._decorators: list[tuple[cst.Decorator, cst.FunctionDef, Scope]] = []
        #: name -> values assigned to it by `name = value` anywhere (any scope)
        self.assigned: dict[str, list[cst.BaseExpression]] = {}

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        super().visit_ClassDef(node)
        self._class_stack.append(node.name.value)
        self.methods.setdefault(node.name.value, {})
        if any(base.keyword is None for base in node.bases):
            self.based_classes.add(node.name.value)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        super().leave_ClassDef(original_node)
        self._class_stack.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        # Decorators are read in the enclosing scope, before the def's own scope opens.
        for decorator in node.decorators:
            self._decorators.append((decorator, node, self._scope))
        super().visit_FunctionDef(node)
        parent = self._func_stack[-1] if self._func_stack else None
        cls = self._class_stack[-1] if self._class_stack and parent is None else None
        owner = cls if cls is not None else (parent.owner if parent is not None else None)
        fn = _Function(node, cls, owner, parent)
        if cls is not None:
            self.methods[cls][node.name.value] = fn
        self.functions.append(fn)
        self._func_stack.append(fn)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        super().leave_FunctionDef(original_node)
        self._func_stack.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self.assigned.setdefault(target.target.value, []).append(node.value)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self._lines.append(node)

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine) -> None:
        self._lines.pop()

    def visit_Call(self, node: cst.Call) -> None:
        name = dotted_name(node.func)
        if self._func_stack and name:
            self._func_stack[-1].calls.append(name)
        if name and (name.endswith(".compile") or name == "compile"):
            self._calls.append((node, self._scope, self._lines[-1] if self._lines else None))

    # -- the answer ------------------------------------------------------------------
    def result(self) -> CompiledCode:
        compiled = CompiledCode()
        by_node = {id(fn.node): fn for fn in self.functions}
        module_level = {fn.node.name.value: fn for fn in self.functions if fn.parent is None and fn.cls is None}
        sites: list[tuple[Union[cst.Decorator, cst.Call], Optional[Entry]]] = []
        exported: list[_Function] = []
        for decorator, node, scope in self._decorators:
            if self._is_compile(decorator.decorator, scope):
                sites.append((decorator, Entry(node, "decorator", decorator)))
                compiled.site_statements[id(decorator)] = node
            fn = by_node.get(id(node))
            if fn is not None and fn.cls in self.based_classes and names_in(scope, decorator.decorator) & EXPORTED:
                exported.append(fn)
        for call, scope, line in self._calls:
            if line is not None:
                compiled.site_statements[id(call)] = line
            if self._is_compile(call.func, scope):
                sites.append((call, self._compiled_by_call(call, module_level, line)))
            elif isinstance(call.func, cst.Attribute):
                cls = self._instance_class(call.func.value)
                forward = self.methods.get(cls or "", {}).get("forward")
                if forward is not None:
                    sites.append((call, Entry(forward.node, "module", call, line)))
        for site, entry in sites:
            compiled.sites.append(site)
            if entry is not None:
                compiled.entries.setdefault(id(entry.function), entry)
        entries = [by_node[key] for key in compiled.entries if key in by_node]
        compiled.entry_reach = {id(fn.node): self._closure([fn], module_level) for fn in entries}
        forwards = [m["forward"] for c, m in self.methods.items() if c in self.based_classes and "forward" in m]
        roots = entries + forwards + exported
        compiled.reached = self._closure(roots, module_level)
        return compiled

    def _is_compile(self, expr: cst.BaseExpression, scope: Scope) -> bool:
        """``torch.compile`` or ``torch.compile(...)`` (a decorator with options)."""
        if isinstance(expr, cst.Call):
            expr = expr.func
        return bool(names_in(scope, expr) & COMPILE)

    def _compiled_by_call(
        self, call: cst.Call, module_level: dict[str, _Function], line: Optional[cst.SimpleStatementLine]
    ) -> Optional[Entry]:
        """The entry ``torch.compile(x, ...)`` makes: a function of the file, or a ``forward``."""
        target = next((arg.value for arg in call.args if arg.keyword is None or arg.keyword.value == "model"), None)
        if target is None:
            return None
        if isinstance(target, cst.Name) and target.value in module_level:
            return Entry(module_level[target.value].node, "call", call, line)
        forward = self.methods.get(self._instance_class(target) or "", {}).get("forward")
        return Entry(forward.node, "module", call, line) if forward is not None else None

    def _instance_class(self, expr: cst.BaseExpression, depth: int = 0) -> Optional[str]:
        """The class of this file that ``expr`` is an instance of, when every binding says so."""
        if depth > 8:
            return None
        if isinstance(expr, cst.Call):
            func = expr.func
            if isinstance(func, cst.Name) and func.value in self.methods:
                return func.value
            if isinstance(func, cst.Attribute) and func.attr.value in SELF_RETURNING:
                return self._instance_class(func.value, depth + 1)
            return None
        if isinstance(expr, cst.Name):
            classes = {self._instance_class(value, depth + 1) for value in self.assigned.get(expr.value, ())}
            return classes.pop() if len(classes) == 1 else None
        return None

    def _closure(self, roots: list[_Function], module_level: dict[str, _Function]) -> set[int]:
        """The defs ``roots`` reach through same-file calls (bare names, ``self.method``)."""
        reached: set[int] = set()
        stack = list(roots)
        while stack:
            fn = stack.pop()
            if id(fn.node) in reached:
                continue
            reached.add(id(fn.node))
            stack.extend(callee for name in fn.calls if (callee := self._callee(fn, name, module_level)))
        return reached

    def _callee(self, caller: _Function, name: str, module_level: dict[str, _Function]) -> Optional[_Function]:
        parts = name.split(".")
        if len(parts) == 1:
            nested = [fn for fn in self.functions if fn.parent is caller and fn.node.name.value == name]
            return nested[-1] if nested else module_level.get(name)
        if len(parts) == 2 and parts[0] == "self" and caller.owner is not None:
            return self.methods.get(caller.owner, {}).get(parts[1])
        return None
