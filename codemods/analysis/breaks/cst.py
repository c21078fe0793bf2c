"""Which calls break the graph: the shared break analysis every rule uses.

A break inside a nested call is raised at the call site in the top-level
frame (``nested_graph_breaks`` is off by default), so a loop that calls a
same-module helper which breaks is a loop with a break. This module marks:

* every ``Call`` that breaks, directly (an entry of the catalogue, matched by
  qualified name) or through a function, method or submodule defined in the
  same module whose body breaks;
* every ``if`` test that branches on a tensor's values, and every
  ``Subscript`` read through a boolean mask (``x[x > 0]``);
* every ``FunctionDef`` whose body breaks.

A call under a guard that is false while Dynamo traces
(``if not torch.compiler.is_compiling():``, or the ``else`` of
``if torch.compiler.is_compiling():``) is not a break: Dynamo never traces
that branch (measured on torch 2.13: a loop whose ``print`` is so guarded
compiles into one graph).

Calls into other files of the scanned tree (or into installed packages)
are looked up in the table the engine builds for the file
(:class:`codemods.analysis.reach.ProjectFacts` ``external``, passed as this
provider's cache): a call the module itself cannot resolve breaks when the
table says its callee breaks, and says through which chain.

It is a batchable libcst metadata provider, so rules ask for it like any
other metadata, it is computed once per tree, and its walk is shared with
the other providers of its round.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Callable, Collection, Mapping, Optional, Sequence, Union

import libcst as cst
from libcst.metadata import BatchableMetadataProvider

from codemods.analysis.catalogue import (
    BY_QUALIFIED,
    BY_TENSOR_READ,
    CONDITION,
    CONDITION_CALLS,
    INDEX_READ,
    LOGGER_NAMES,
    MASK_INDEX,
    SHAPE_LEFT_TO_DATA,
    SLICE_READ,
    TRACING_GUARDS,
    TRUTH_BUILTINS,
    ZERO_DIM_FUNCTIONS,
    ZERO_DIM_METHODS,
    BreakCall,
    counts_only_where_recorded,
    logger_entry,
    method_entry,
)
from codemods.analysis.names import class_like
from codemods.analysis.names.scopes import Scope, ScopeTracker, names_in
from codemods.analysis.nodes import NESTED_SCOPES, dotted_name
from codemods.analysis.reach import ExternalBreak, call_key
from codemods.analysis.tensors.arguments import bound_arguments, is_static
from codemods.analysis.tensors.cst import (
    OTHER,
    FunctionTensorsProvider,
    TensorFacts,
    may_be_bool_tensor,
    returns_a_tensor,
    torch_aliases,
)
from codemods.fastcst import walk


@dataclass(frozen=True)
class BreakReason:
    """Why a call breaks; ``via`` names the same-module function in between, or the chain of
    calls into another file, and ``at`` where that file's break is."""

    reason: str
    raises: bool = True
    via: str = ""
    #: the catalogue's output family of a direct call (``print``, ``warn``, ``logging``, ``logger``);
    #: with ``via``, of a callee's output calls on rare paths, its only breaks; else ""
    cause: str = ""
    #: the catalogue entry a direct call matched (``builtins.print``; a logger method's name)
    entry: str = ""
    at: str = ""
    #: the catalogue entry counts only on a line a real run recorded (its function does not break for callers)
    recorded_only: bool = False

    def describe(self) -> str:
        if self.at:
            return f"{self.via}: {self.reason} at {self.at}"
        return f"{self.reason} (via {self.via})" if self.via else self.reason

    @classmethod
    def external(cls, found: ExternalBreak) -> "BreakReason":
        """The reason of a call whose callee, in another file, breaks; its ``cause`` only where the
        callee's only breaks are output calls on rare paths (a one-line guard there fixes them)."""
        return cls(found.reason, found.raises, " → ".join(found.via), cause=found.rare_output, at=found.at)


@dataclass
class _Function:
    node: cst.FunctionDef
    qualname: str
    cls: Optional[str]
    #: the class whose method this function is, or is nested in (``self`` there)
    owner: Optional[str] = None
    #: the qualified name of that class (``Outer.Inner``), when it is not inside a function
    owner_qualname: Optional[str] = None
    #: the qualified name of the function not nested in another that holds it (its own for one)
    unit: str = ""
    direct: Optional[BreakReason] = None
    callees: list[tuple[cst.Call, str]] = field(default_factory=list)
    #: its first break that runs only after ``a is b`` was false, ``a`` and ``b`` its parameters
    #: (:func:`_identity_before`): a call handing one object for both does not take it
    conditional: Optional[BreakReason] = None
    #: the parameter pairs of such breaks
    distinct: list[tuple[str, str]] = field(default_factory=list)


#: the nodes :meth:`_Collector._built_lists` reads
_LIST_BUILDERS = walk.node_types(cst.Assign, cst.AugAssign, cst.Call)


class _Collector(ScopeTracker):
    """What one pass over the module learns: functions, classes, submodules, call edges.

    Its ``visit_``/``leave_`` methods are run by the batched walk of
    :class:`BreakProvider`. It tracks scopes itself, so the names a call may
    refer to need no walk of their own: each call is recorded with its scope
    and read by :meth:`replay` once the walk has seen every binding.
    """

    def __init__(self) -> None:
        ScopeTracker.__init__(self)
        self.functions: list[_Function] = []
        self.class_methods: dict[str, dict[str, _Function]] = {}
        self.module_functions: dict[str, _Function] = {}
        self.nested_functions: dict[str, list[_Function]] = {}
        #: class name -> attribute -> classes mentioned in what it was assigned
        self.submodules: dict[str, dict[str, set[str]]] = {}
        #: class name -> the last names of its bases, as written
        self._bases: dict[str, set[str]] = {}
        #: ``self.attr = param`` in a class's ``__init__``: (class, attribute, parameter), read once
        #: every constructor call is known (:meth:`_submodules_handed_in`)
        self._handed_in: list[tuple[str, str, str]] = []
        #: class name -> attribute iterated by a loop variable, per function
        self.loop_aliases: dict[int, dict[str, str]] = {}
        self.logger_names: set[str] = set(LOGGER_NAMES)
        self._class_stack: list[str] = []
        self._func_stack: list[_Function] = []
        #: breaking calls, and ``if`` tests that branch on a tensor's values
        self.direct_calls: dict[cst.CSTNode, BreakReason] = {}
        #: truth reads that call a condition name (``if mask.any():``), with the node a break there
        #: is keyed on and their function
        self._conditions: list[tuple[cst.BaseExpression, cst.CSTNode, _Function, tuple[_Guard, ...]]] = []
        #: ids of the ``not``/``and``/``or`` read as part of a truth read around them
        self._chained: set[int] = set()
        #: operands read only after ``a is b`` was false, with ``(a, b)`` (:func:`_identity_before`)
        self._after_identity: list[tuple[cst.BaseExpression, tuple[str, str]]] = []
        #: subscripts by one index on one line, with their function (``x[mask]``)
        self._subscripts: list[tuple[cst.Subscript, _Function, tuple[_Guard, ...]]] = []
        #: ids of subscripts assigned to or deleted (``x[mask] = v`` is ``index_put``: no break)
        self._stored: set[int] = set()
        #: subscripts with an index or a slice bound written as a tensor's value may be (``x[:n]``,
        #: ``x[x.argmax()]``), with their function
        self._index_reads: list[tuple[cst.Subscript, _Function, tuple[_Guard, ...]]] = []
        #: function node id -> name -> whether some assignment of the name alone holds a 0-dim
        #: reduction (``n = mask.sum()``): only such a name may be a 0-dim index (``TensorFacts.is_zero_dim``)
        self._zero_dim_names: dict[int, dict[str, bool]] = {}
        #: function node id -> what its expressions are (for the data-dependent entries)
        self._tensor_facts: dict[int, TensorFacts] = {}
        #: the same, with what callers hand the function (for the entries that read an argument)
        self._argument_facts: dict[int, TensorFacts] = {}
        #: the same, with the class's methods that return tensors (to read a caller's arguments)
        self._caller_facts: dict[int, TensorFacts] = {}
        #: function node id -> (call, calling function, made through ``self.``), once asked
        self._callers: Optional[dict[int, list[tuple[cst.Call, _Function, bool]]]] = None
        self._module: Optional[cst.Module] = None
        #: function node id -> local lists it builds of class instances, once asked
        self._lists: dict[int, dict[str, set[str]]] = {}
        #: module-level name -> the classes it names (``TYPES = {"moe": MoE, "mlp": MLP}``)
        self._class_tables: dict[str, set[str]] = {}
        self._torch_names: Optional[frozenset[str]] = None
        #: in walk order: calls (with the function they are in) and assignments, with their scope
        #: and the ``if`` tests that may keep them from running while Dynamo traces
        self._events: list[tuple[Union[cst.Call, cst.Assign], Optional[_Function], Scope, tuple[_Guard, ...]]] = []
        #: id of a suite (an ``if`` body, an ``else``, an ``elif``) -> the guard that runs it only in eager
        self._guarded_suites: dict[int, _Guard] = {}
        self._guards: list[_Guard] = []
        #: function node id -> names it assigns, alone, a value written as a mask can be
        #: (:func:`may_be_bool_tensor`): only those may index by a mask (see ``TensorFacts.is_bool_tensor``)
        self._mask_names: dict[int, set[str]] = {}
        #: function key -> names a recorded run read as tensors (:mod:`codemods.analysis.tensors.recorded`)
        self.recorded: Mapping[str, frozenset[str]] = {}

    # -- scopes -------------------------------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        super().visit_ClassDef(node)
        self._class_stack.append(node.name.value)
        self.class_methods.setdefault(node.name.value, {})
        bases = (dotted_name(base.value) for base in node.bases if base.keyword is None)
        self._bases[node.name.value] = {name.rpartition(".")[2] for name in bases if name}

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        super().leave_ClassDef(original_node)
        self._class_stack.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        super().visit_FunctionDef(node)
        cls = self._class_stack[-1] if self._class_stack and not self._func_stack else None
        fn = _Function(node=node, qualname=node.name.value, cls=cls)
        fn.owner = cls if cls is not None else (self._func_stack[-1].owner if self._func_stack else None)
        if self._func_stack:
            fn.owner_qualname, fn.unit = self._func_stack[-1].owner_qualname, self._func_stack[-1].unit
        else:
            fn.owner_qualname = ".".join(self._class_stack) or None
            fn.unit = ".".join([*self._class_stack, node.name.value])
        if cls is not None:
            fn.qualname = f"{cls}.{node.name.value}"
            self.class_methods[cls][node.name.value] = fn
        elif not self._func_stack:
            self.module_functions[node.name.value] = fn
        else:
            self.nested_functions.setdefault(node.name.value, []).append(fn)
        self.functions.append(fn)
        self._func_stack.append(fn)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        super().leave_FunctionDef(original_node)
        self._func_stack.pop()

    # -- truth reads: where Python asks a value for its truth ------------------
    def _truth_read(self, test: cst.BaseExpression, holder: cst.CSTNode) -> None:
        """Python reads the truth of ``test`` (an ``if``/``while``/ternary/comprehension test, the
        operand of ``not``, the left operand of ``and``/``or``); a break there is keyed on
        ``holder``. The ``not``/``and``/``or`` inside it are read with it, not again."""
        self._chained.update(_truth_chain(test))
        if not self._func_stack:
            return
        fn = self._func_stack[-1]
        recorded = self.recorded.get(fn.qualname)
        if _calls_a_condition(test) or (recorded and _reads_one_of(test, recorded)):
            self._conditions.append((test, holder, fn, tuple(self._guards)))

    def visit_While(self, node: cst.While) -> None:
        # keyed on the loop, so that it counts for the loops around it: a ``while`` on a tensor with
        # no loop around it does not skip its frame (measured on torch 2.13)
        self._truth_read(node.test, node)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._truth_read(node.test, node)

    def visit_CompIf(self, node: cst.CompIf) -> None:
        self._truth_read(node.test, node)

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if isinstance(node.operator, cst.Not) and id(node) not in self._chained:
            self._truth_read(node.expression, node)

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        pair = _identity_before(node)
        if pair is not None:
            self._after_identity.append((node.right, pair))
        if id(node) not in self._chained:
            # as a value, ``a and b`` reads the truth of ``a`` only (``b`` is the value)
            self._truth_read(node.left, node)
            # past ``not is_tracing(m) and`` (``is_tracing(m) or``), Dynamo reads nothing
            if _decided_while_tracing(node):
                self._chained.update(_truth_chain(node.right))

    def visit_Assert(self, node: cst.Assert) -> None:
        # Dynamo traces the jump an assert makes on its last operand without a break, but not
        # the reads before it or under ``not`` (``assert not m.any()``, ``assert m.all() and ok``
        # skip a 3-trip loop's frame; ``assert m.all()``, ``assert ok and m.all()`` do not:
        # measured on torch 2.13)
        self._chained.update(_truth_chain(node.test))
        for operand in _assert_reads(node.test):
            self._truth_read(operand, node)

    # -- guards: branches that never run under Dynamo ------------------------
    def visit_If(self, node: cst.If) -> None:
        self._enter_suite(node)  # an ``elif`` is the suite of the ``if`` before it
        self._truth_read(node.test, node.test)
        test = compiling_test(node.test)
        if test is None:
            return
        call, negated = test
        guard = _Guard(call, self._scope)
        if negated:
            self._guarded_suites[id(node.body)] = guard
        elif node.orelse is not None:
            self._guarded_suites[id(node.orelse)] = guard

    def leave_If(self, original_node: cst.If) -> None:
        self._leave_suite(original_node)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._guarded_suites[id(node.body)] = _Guard(None, self._scope)

    def visit_ExceptStarHandler(self, node: cst.ExceptStarHandler) -> None:
        self._guarded_suites[id(node.body)] = _Guard(None, self._scope)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._enter_suite(node)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        self._leave_suite(original_node)

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._enter_suite(node)

    def leave_SimpleStatementSuite(self, original_node: cst.SimpleStatementSuite) -> None:
        self._leave_suite(original_node)

    def visit_Else(self, node: cst.Else) -> None:
        self._enter_suite(node)

    def leave_Else(self, original_node: cst.Else) -> None:
        self._leave_suite(original_node)

    def _enter_suite(self, node: cst.CSTNode) -> None:
        guard = self._guarded_suites.get(id(node))
        if guard is not None:
            self._guards.append(guard)

    def _leave_suite(self, node: cst.CSTNode) -> None:
        if id(node) in self._guarded_suites:
            self._guards.pop()

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self._func_stack and _one_index(node) is not None:
            self._subscripts.append((node, self._func_stack[-1], tuple(self._guards)))
        if self._func_stack and any(_may_read_an_index(element.slice) for element in node.slice):
            self._index_reads.append((node, self._func_stack[-1], tuple(self._guards)))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._stored.update(_stored_subscripts(node.target))

    def visit_Del(self, node: cst.Del) -> None:
        self._stored.update(_stored_subscripts(node.target))

    def visit_Assign(self, node: cst.Assign) -> None:
        value = node.value
        self._events.append((node, None, self._scope, ()))
        if self._func_stack and len(node.targets) == 1 and may_be_bool_tensor(value):
            bound = node.targets[0].target
            if isinstance(bound, cst.Name):
                self._mask_names.setdefault(id(self._func_stack[-1].node), set()).add(bound.value)
        for target in node.targets:
            self._stored.update(_stored_subscripts(target.target))
        if self._class_stack and self._func_stack:
            names = [dotted_name(target.target) for target in node.targets]
            attrs_set = [n[5:] for n in names if n and n.startswith("self.") and n.count(".") == 1]
            mentioned = set()
            if attrs_set:
                # ``self.layers = nn.ModuleList(model)``: the classes the local list was built from
                built = self._built_lists(self._func_stack[-1])
                mentioned = _class_names_called(value, {**self._class_tables, **built})
                if built:
                    mentioned.update(c for name in _names_read(value) for c in built.get(name, ()))
            if mentioned:
                attrs = self.submodules.setdefault(self._class_stack[-1], {})
                for attr in attrs_set:
                    attrs.setdefault(attr, set()).update(mentioned)
            elif isinstance(value, cst.Name) and self._func_stack[-1].qualname.endswith(".__init__"):
                if value.value in _parameters(self._func_stack[-1].node):
                    self._handed_in.extend((self._class_stack[-1], attr, value.value) for attr in attrs_set)

    def _built_lists(self, fn: _Function) -> dict[str, set[str]]:
        """Local name -> classes called in the lists the function assigns it, adds to it or appends
        to it (``model = [Conv(...)]``, ``model += [Block(...)]``, ``model.append(Block(...))``), or
        the classes it names (``cls = MoE if sparse else MLP``, ``cls = TYPES[kind]``), so that
        ``cls(config)`` builds one of them."""
        found = self._lists.get(id(fn.node))
        if found is None:
            found = self._lists[id(fn.node)] = {}
            for node in walk.descendants(fn.node.body, lambda n: type(n) not in NESTED_SCOPES):
                kind = type(node)
                if kind not in _LIST_BUILDERS:
                    continue  # by type: isinstance of libcst's node classes is slow on every node
                if isinstance(node, cst.Assign) and isinstance(node.value, (cst.List, cst.ListComp)):
                    targets: list[cst.BaseExpression] = [t.target for t in node.targets]
                    value: cst.CSTNode = node.value
                elif isinstance(node, cst.Assign):
                    named = _classes_named(node.value, {**self._class_tables, **found})
                    for assigned in node.targets:
                        if named and isinstance(assigned.target, cst.Name):
                            found.setdefault(assigned.target.value, set()).update(named)
                    continue
                elif isinstance(node, cst.AugAssign) and isinstance(node.operator, cst.AddAssign):
                    targets, value = [node.target], node.value
                elif (
                    isinstance(node, cst.Call)
                    and isinstance(node.func, cst.Attribute)
                    and node.func.attr.value in _LIST_GROWERS
                    and isinstance(node.func.value, (cst.Name, cst.Attribute))
                ):
                    targets, value = [node.func.value], node
                else:
                    continue
                classes = _class_names_called(value, {**self._class_tables, **found})
                for target in targets:
                    if classes and isinstance(target, cst.Name):
                        found.setdefault(target.value, set()).update(classes)
                    elif classes and fn.cls is not None and _self_attribute(target):
                        # ``self.layers.append(Block(...))`` on a ``self.layers = nn.ModuleList()``
                        attrs = self.submodules.setdefault(fn.cls, {})
                        attrs.setdefault(_self_attribute(target), set()).update(classes)
        return found

    def visit_For(self, node: cst.For) -> None:
        super().visit_For(node)
        target: cst.BaseExpression = node.target
        iterable = node.iter
        if (
            isinstance(target, cst.Tuple)
            and len(target.elements) == 2
            and isinstance(iterable, cst.Call)
            and isinstance(iterable.func, cst.Name)
            and iterable.func.value == "enumerate"
            and len(iterable.args) == 1
            and iterable.args[0].keyword is None
            and not iterable.args[0].star
        ):
            # ``for i, layer in enumerate(self.layers)``: ``layer`` takes the submodules
            target, iterable = target.elements[1].value, iterable.args[0].value
        if not self._func_stack or not isinstance(target, cst.Name):
            return
        source = dotted_name(_unsliced(iterable))
        if source and source.startswith("self.") and source.count(".") == 1:
            aliases = self.loop_aliases.setdefault(id(self._func_stack[-1].node), {})
            aliases[target.value] = source[5:]

    def visit_Module(self, node: cst.Module) -> None:
        self._module = node
        for statement in node.body:
            if type(statement) is cst.SimpleStatementLine:
                for small in statement.body:
                    if type(small) is cst.Assign:
                        named = _classes_named(small.value, self._class_tables)
                        for target in small.targets if named else ():
                            if isinstance(target.target, cst.Name):
                                self._class_tables[target.target.value] = named

    def visit_Call(self, node: cst.Call) -> None:
        fn = self._func_stack[-1] if self._func_stack else None
        self._events.append((node, fn, self._scope, tuple(self._guards)))
        if _reads_each_truth(node) is not None:
            self._truth_read(node, node)

    def _reduced(self, fn: _Function, name: str) -> bool:
        """Some assignment of ``name`` alone in ``fn`` holds a 0-dim reduction (``n = mask.sum()``)."""
        names = self._zero_dim_names.get(id(fn.node))
        if names is None:
            names = self._zero_dim_names[id(fn.node)] = {}
            for node in walk.descendants(fn.node.body, lambda n: type(n) not in NESTED_SCOPES):
                if type(node) is cst.Assign and len(node.targets) == 1 and type(node.targets[0].target) is cst.Name:
                    bound = node.targets[0].target.value
                    names[bound] = names.get(bound, False) or _holds_a_reduction(node.value)
        return names.get(name, False)

    def _submodules_handed_in(self) -> None:
        """``self.layers = layers`` in ``__init__``: the classes of what the file's calls of the class
        hand it (``Encoder(nn.ModuleList([Layer(...)]))``, or a subclass's ``super().__init__(layers)``
        after ``layers = nn.ModuleList(...)``), one call deep."""
        for cls, attr, param in self._handed_in:
            init = self.class_methods[cls]["__init__"]
            for node, caller, _, _ in self._events:
                if not isinstance(node, cst.Call) or caller is None:
                    continue
                name = _callee_name(node)
                if name != cls and not (name == "super().__init__" and cls in self._bases.get(caller.owner or "", ())):
                    continue
                for bound, value in bound_arguments(node, init.node, through_instance=True):
                    if bound == param:
                        classes = self._classes_of(value, caller)
                        if classes:
                            self.submodules.setdefault(cls, {}).setdefault(attr, set()).update(classes)

    def _classes_of(self, value: cst.BaseExpression, fn: _Function) -> set[str]:
        """The classes ``value`` builds in ``fn``: called in it, or in what a name it reads was
        assigned there (``layers = nn.ModuleList([Layer(...) ...])``)."""
        tables = {**self._class_tables, **self._built_lists(fn)}
        found = _class_names_called(value, tables)
        for name in _names_read(value):
            found.update(tables.get(name, ()))
            for node in walk.descendants(fn.node.body, lambda n: type(n) not in NESTED_SCOPES):
                if type(node) is cst.Assign and any(
                    isinstance(t.target, cst.Name) and t.target.value == name for t in node.targets
                ):
                    found |= _class_names_called(node.value, tables)
        return found

    def replay(self) -> None:
        """Read the recorded calls and assignments in walk order, every binding known."""
        self._submodules_handed_in()
        after_identity = {
            id(inner): pair for operand, pair in self._after_identity for inner in walk.descendants(operand)
        }
        for node, fn, scope, guards in self._events:
            if isinstance(node, cst.Assign):
                # An assigned call is read in the assignment's scope.
                value = node.value
                if isinstance(value, cst.Call) and "logging.getLogger" in names_in(scope, value):
                    for target in node.targets:
                        name = dotted_name(target.target)
                        if name:
                            self.logger_names.add(name)
                continue
            if any(guard.holds() for guard in guards):
                continue  # a branch Dynamo never traces
            reason = self._catalogue_reason(node, scope, fn)
            if reason is not None:
                self.direct_calls[node] = reason
                pair = after_identity.get(id(node))
                if fn is not None and pair is not None and set(pair) <= _parameters(fn.node):
                    # taken only where a caller hands two objects: each call says (see ``_call_breaks``)
                    fn.conditional = fn.conditional or reason
                    fn.distinct.append(pair)
                elif fn is not None and fn.direct is None and not reason.recorded_only:
                    fn.direct = reason
                continue
            if fn is not None:
                name = _callee_name(node)
                if name:
                    fn.callees.append((node, name))
        for test, holder, fn, guards in self._conditions:
            if not any(guard.holds() for guard in guards) and _branches_on_tensor(test, self.tensor_facts(fn)):
                reason = _reason(CONDITION)
                self.direct_calls[holder] = reason
                if fn.direct is None:
                    fn.direct = reason
        for subscript, fn, guards in self._subscripts:
            if id(subscript) in self._stored or any(guard.holds() for guard in guards):
                continue
            index = _one_index(subscript)
            if index is None or not may_be_bool_tensor(index):
                continue  # ``x[0]``, ``d["key"]``: no tensor inference needed to say so
            if isinstance(index, cst.Name) and index.value not in self._mask_names.get(id(fn.node), ()):
                continue  # a name is a mask only when the function binds it to one (``x[idx]``)
            if _indexes_by_mask(subscript, self.argument_facts(fn)):
                reason = _reason(MASK_INDEX)
                self.direct_calls[subscript] = reason
                if fn.direct is None:
                    fn.direct = reason
        for subscript, fn, guards in self._index_reads:
            if any(guard.holds() for guard in guards) or subscript in self.direct_calls:
                continue
            if not _written_as_an_index_read(subscript, functools.partial(self._reduced, fn), _parameters(fn.node)):
                continue  # no tensor inference needed to say so (most slices are by ints)
            # one line: the prefilter finds such a subscript by its line (INDEX_READ_LINE)
            read = self.argument_facts(fn).index_read(subscript) if "\n" not in _code(subscript) else ""
            if read:
                reason = _reason(SLICE_READ if read == "slice" else INDEX_READ)
                self.direct_calls[subscript] = reason
                if fn.direct is None:
                    fn.direct = reason

    def tensor_facts(self, fn: _Function) -> TensorFacts:
        """What ``fn``'s expressions are, computed when a data-dependent entry first asks."""
        facts = self._tensor_facts.get(id(fn.node))
        if facts is None:
            facts = self._tensor_facts[id(fn.node)] = self._facts(fn)
        return facts

    def argument_facts(self, fn: _Function) -> TensorFacts:
        """Also what the file's calls hand ``fn``, and its class's methods annotated to return a
        tensor: a helper ``_pad1d(x, paddings)`` called with ``(self.padding_total, extra)``
        knows ``paddings`` holds tensors.

        Only the entries that break on what an argument holds (``F.pad``) read these facts:
        they need the callers' code, which the prefilter then keeps whole
        (:meth:`rewriter.prefilter.facts.ScreenFacts.reads_arguments_across`).
        """
        facts = self._argument_facts.get(id(fn.node))
        if facts is None:
            facts = self._argument_facts[id(fn.node)] = self._facts(fn, self._tensor_params(fn), methods=True)
        return facts

    def _facts(self, fn: _Function, tensor_params: frozenset[str] = frozenset(), methods: bool = False) -> TensorFacts:
        if self._torch_names is None:
            self._torch_names = torch_aliases(self._module) if self._module is not None else frozenset({"torch"})
        submodules = self.submodules.get(fn.cls, {}) if fn.cls is not None else {}
        returning: list[str] = []
        if methods and fn.cls is not None:
            returning = [n for n, m in self.class_methods.get(fn.cls, {}).items() if returns_a_tensor(m.node)]
        recorded = self.recorded.get(fn.qualname, ())
        return TensorFacts(
            fn.node, fn.cls is not None, submodules, self._torch_names, tensor_params, returning, recorded
        )

    def _tensor_params(self, fn: _Function) -> frozenset[str]:
        """Parameters of ``fn`` some call in the file hands a tensor, or a tuple holding one,
        as the caller's own code shows it (one call deep)."""
        if fn.node.name.value in ("forward", "__init__"):
            return frozenset()  # inputs of a module: the inference reads them already
        if self._callers is None:
            self._callers = {}
            for node, caller, _, _ in self._events:
                if not isinstance(node, cst.Call) or caller is None:
                    continue
                name = _callee_name(node)
                if name is None:
                    continue
                for callee in _lookup(self, caller, name):
                    self._callers.setdefault(id(callee.node), []).append((node, caller, name.startswith("self.")))
        found: set[str] = set()
        for call, caller, through_instance in self._callers.get(id(fn.node), ()):
            facts = self._caller_facts.get(id(caller.node))
            if facts is None:
                facts = self._caller_facts[id(caller.node)] = self._facts(caller, methods=True)
            found.update(
                param
                for param, value in bound_arguments(call, fn.node, through_instance)
                if facts.holds_a_tensor(value)
            )
        return frozenset(found)

    def _catalogue_reason(self, node: cst.Call, scope: Scope, fn: Optional[_Function]) -> Optional[BreakReason]:
        """The catalogue's reason for the call ``node``, read in ``scope`` (in ``fn``), if it breaks."""
        qualified = unbound = False
        for qname in names_in(scope, node):
            unbound = unbound or qname.rpartition(".")[0] == "torch.Tensor"
            entry = BY_QUALIFIED.get(qname)
            qualified = qualified or entry is not None
            if entry is not None and (entry.arity is None or _positional(node) == entry.arity):
                if not self._arguments_break(entry, node, fn):
                    continue
                return _reason(entry, node)
            entry = BY_TENSOR_READ.get(qname)
            if entry is not None and fn is not None and _reads_a_tensor(node, self.tensor_facts(fn)):
                return _reason(entry)
        func = node.func
        if qualified or not isinstance(func, cst.Attribute):
            return None  # ``torch.repeat_interleave(x, 2)``: the function's entry has spoken, not the method's
        method = func.attr.value
        # ``torch.Tensor.item(t)``: the tensor is the first argument, not an argument of the method
        entry = method_entry(method, len(node.args) > (1 if unbound else 0))
        if entry is not None and not self._arguments_break(entry, node, fn):
            return None
        if entry is None:
            receiver = dotted_name(func.value)
            entry = logger_entry(method, receiver if receiver in self.logger_names else None)
        return _reason(entry, node) if entry is not None else None

    def _arguments_break(self, entry: BreakCall, node: cst.Call, fn: Optional[_Function]) -> bool:
        """The arguments of ``node`` are ones ``entry`` breaks with: no argument that fixes the
        output shape (``output_size=``), and a tensor where it needs one (``F.pad``'s amounts)."""
        if entry.unless_arg is not None and _given(node, entry.unless_arg):
            return False
        if entry.tensor_arg is None:
            return True
        return fn is not None and _passes_a_tensor(node, entry.tensor_arg, self.argument_facts(fn))


def _reason(entry: BreakCall, call: Optional[cst.Call] = None) -> BreakReason:
    """The reason of a catalogue entry; an output call that tells of deprecated use counts only
    where a run recorded it (see :func:`~codemods.analysis.catalogue.counts_only_where_recorded`)."""
    recorded_only = counts_only_where_recorded(entry, *_notice_text(call)) if call is not None else entry.recorded_only
    return BreakReason(entry.reason, entry.raises, cause=entry.cause, entry=entry.name, recorded_only=recorded_only)


def _notice_text(call: cst.Call) -> tuple[str, str]:
    """The literal text of an output call's message (its first argument) and the last name of
    its warning category (a second positional argument or ``category=``)."""
    message, category = "", ""
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    if positional:
        message = " ".join(_literal_parts(positional[0].value))
    given = next((arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value == "category"), None)
    if given is None and len(positional) > 1:
        given = positional[1].value
    if given is not None:
        category = (dotted_name(given) or "").rpartition(".")[2]
    return message, category


def _literal_parts(expr: cst.BaseExpression) -> list[str]:
    """The literal pieces of a string expression (plain, concatenated, f-string parts)."""
    if isinstance(expr, cst.SimpleString):
        return [expr.value]
    if isinstance(expr, cst.ConcatenatedString):
        return _literal_parts(expr.left) + _literal_parts(expr.right)
    if isinstance(expr, cst.FormattedString):
        return [part.value for part in expr.parts if isinstance(part, cst.FormattedStringText)]
    return []


#: functions that answer True while Dynamo traces (and False in eager)
IS_COMPILING = frozenset(
    {
        "torch.compiler.is_compiling",
        "torch.compiler.is_dynamo_compiling",
        "torch._dynamo.is_compiling",
        "torch._dynamo.external_utils.is_compiling",
        "torch._utils.is_compiling",
    }
)


#: the same guards as libraries name their own wrappers of them (``transformers.utils.is_torchdynamo_compiling``),
#: matched by last name on an imported function
LIBRARY_IS_COMPILING = frozenset({"is_torchdynamo_compiling", "is_dynamo_compiling", "is_compiling"})


def compiling_test(test: cst.BaseExpression) -> Optional[tuple[cst.Call, bool]]:
    """``(call, negated)`` when ``test`` is ``f()`` or ``not f()`` with no arguments, else None;
    ``not f() and …`` is ``not f()`` for the suite (it never runs while ``f()`` answers True).

    Whether ``f`` is one of :data:`IS_COMPILING` is decided by name later, in the test's scope.
    """
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        for part in (test.left, test.right):
            found = compiling_test(part)
            if found is not None and found[1]:
                return found
        return None
    negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
    call = test.expression if isinstance(test, cst.UnaryOperation) and negated else test
    if isinstance(call, cst.Call) and not call.args:
        return call, negated
    return None


@dataclass(frozen=True)
class _Guard:
    """An ``if`` test that may keep a suite from running under Dynamo, read in its scope; without
    a test, an ``except`` clause: Dynamo traces it only after an exception, which the normal path
    does not raise (a handler that logs does not skip the loop around its ``try``)."""

    call: Optional[cst.Call]
    scope: Scope

    def holds(self) -> bool:
        if self.call is None:
            return True
        names = names_in(self.scope, self.call.func)
        return bool(names & IS_COMPILING) or any(
            "." in name and name.rpartition(".")[2] in LIBRARY_IS_COMPILING for name in names
        )


def _unsliced(iterable: cst.BaseExpression) -> cst.BaseExpression:
    """``self.layers`` for ``self.layers[: n]``: a slice of a module list holds the same modules."""
    if (
        isinstance(iterable, cst.Subscript)
        and len(iterable.slice) == 1
        and isinstance(iterable.slice[0].slice, cst.Slice)
    ):
        return iterable.value
    return iterable


def _callee_name(node: cst.Call) -> Optional[str]:
    """The dotted name a call is made through; ``super().f`` for ``super().f(...)``."""
    name = dotted_name(node.func)
    if name is not None:
        return name
    func = node.func
    if (
        isinstance(func, cst.Attribute)
        and isinstance(func.value, cst.Call)
        and isinstance(func.value.func, cst.Name)
        and func.value.func.value == "super"
        and not func.value.args
    ):
        return f"super().{func.attr.value}"
    return None


def _positional(call: cst.Call) -> Optional[int]:
    """How many positional arguments ``call`` has; None with a keyword or a star."""
    if any(arg.keyword is not None or arg.star for arg in call.args):
        return None
    return len(call.args)


def _passes_a_tensor(call: cst.Call, where: tuple[int, str], facts: TensorFacts) -> bool:
    """The argument at ``where`` (position, keyword) is a tensor, or a tuple holding one; or it
    is not given (``torch.repeat_interleave(r)``: the input is the repeats)."""
    position, keyword = where
    positional = 0
    for arg in call.args:
        if arg.star:
            return False  # cannot tell which argument is which
        if arg.keyword is not None:
            if arg.keyword.value == keyword:
                return facts.holds_a_tensor(arg.value)
            continue
        if positional == position:
            return facts.holds_a_tensor(arg.value)
        positional += 1
    return True


def _given(call: cst.Call, where: tuple[int, str]) -> bool:
    """The argument at ``where`` (position, -1 for keyword-only, and keyword) is passed, and not
    as a value that leaves the shape to the data (:data:`SHAPE_LEFT_TO_DATA`); a star argument
    may pass it."""
    position, keyword = where
    positional = 0
    for arg in call.args:
        if arg.star:
            return True
        if arg.keyword is not None:
            if arg.keyword.value == keyword:
                return _code(arg.value) not in SHAPE_LEFT_TO_DATA
            continue
        if positional == position:
            return _code(arg.value) not in SHAPE_LEFT_TO_DATA
        positional += 1
    return False


_NOT_IN_TEST = walk.node_types(cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


def _reads_a_tensor(call: cst.Call, facts: TensorFacts) -> bool:
    """``int(x.sum())``, ``bool(x.sum() > 0)``: one argument on one line, a tensor that a method
    call is written in.

    Only this shape counts (the prefilter finds it by its text,
    :data:`~codemods.analysis.catalogue.TENSOR_READ_REST`), or a bare name the
    function binds once to such a value (``int(total)`` after ``total =
    x.sum()``, :data:`~codemods.analysis.catalogue.TENSOR_READ_NAME`); another
    ``int(t)`` of a bare name is left to a recorded run.
    """
    if _positional(call) != 1:
        return False
    arg = call.args[0].value
    if facts.recorded and dotted_name(arg) in facts.recorded:
        return True  # a run read this very name as a tensor (:mod:`codemods.analysis.tensors.recorded`)
    if isinstance(arg, cst.Name):
        bound = facts.assigned_once(arg.value)
        if bound is None:
            return False
        arg = bound
    if "\n" in _code(arg):
        return False
    if not any(type(node) is cst.Call and isinstance(node.func, cst.Attribute) for node in walk.descendants(arg)):
        return False
    return facts.is_tensor(arg)


def _reads_one_of(test: cst.BaseExpression, names: frozenset[str]) -> bool:
    """``test`` reads one of ``names`` (bare or dotted), outside a nested scope."""
    for node in walk.descendants(test, lambda node: type(node) not in _NOT_IN_TEST):
        if type(node) is cst.Name or type(node) is cst.Attribute:
            if dotted_name(node) in names:
                return True
    return False


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def _calls_a_condition(test: cst.BaseExpression) -> bool:
    """``test``, on one line, calls a name of :data:`CONDITION_CALLS` (``mask.any()``).

    One line: the prefilter finds such an ``if`` by its line
    (:data:`~codemods.analysis.catalogue.CONDITION_LINE`).
    """
    for node in walk.descendants(test, lambda node: type(node) not in _NOT_IN_TEST):
        if type(node) is cst.Call and _last_name(node.func) in CONDITION_CALLS:
            # printing the test costs more than the walk: only where the walk found a call
            return "\n" not in _code(test)
    return False


def _last_name(func: cst.BaseExpression) -> str:
    """The name a call is made by: ``any`` for ``(y > c).any()`` as for ``mask.any()``."""
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return func.value if isinstance(func, cst.Name) else ""


def _decided_while_tracing(test: cst.BooleanOperation) -> bool:
    """``not is_tracing(m) and …``, ``is_tracing(m) or …``
    (:data:`~codemods.analysis.catalogue.TRACING_GUARDS`), also after more of the same operator:
    while Dynamo traces, the left operand decides and the right is never read."""
    left = test.left
    if isinstance(left, cst.BooleanOperation) and type(left.operator) is type(test.operator):
        return _decided_while_tracing(left)
    want_not = isinstance(test.operator, cst.And)
    negated = isinstance(left, cst.UnaryOperation) and isinstance(left.operator, cst.Not)
    call = left.expression if isinstance(left, cst.UnaryOperation) and negated else left
    return negated == want_not and isinstance(call, cst.Call) and _last_name(call.func) in TRACING_GUARDS


def _truth_chain(test: cst.BaseExpression) -> list[int]:
    """Ids of the ``not``/``and``/``or`` whose truth is read with ``test``'s."""
    found = []
    stack = [test]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            found.append(id(node))
            stack.append(node.expression)
        elif isinstance(node, cst.BooleanOperation):
            found.append(id(node))
            stack.extend((node.left, node.right))
    return found


def _reads_each_truth(call: cst.Call) -> Optional[cst.BaseExpression]:
    """``any(p.max() > 2 for p in parts)``: the element whose truth the builtin ``any``/``all``
    reads for each item of the comprehension it is handed, or None."""
    func = call.func
    if not (isinstance(func, cst.Name) and func.value in TRUTH_BUILTINS) or _positional(call) != 1:
        return None
    arg = call.args[0].value
    return arg.elt if isinstance(arg, (cst.GeneratorExp, cst.ListComp)) else None


def _assert_reads(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands of an ``assert``'s test whose truth Python reads with a jump of their own:
    all but the last of ``and``/``or``, and what ``not`` negates."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return [test.expression]
    if isinstance(test, cst.BooleanOperation):
        return [test.left, *_assert_reads(test.right)]
    return []


def _branches_on_tensor(test: cst.BaseExpression, facts: TensorFacts) -> bool:
    """The truth of ``test`` is the truth of a tensor (``not``, ``and`` and ``or`` looked through)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _branches_on_tensor(test.expression, facts)
    if isinstance(test, cst.BooleanOperation):
        if _decided_while_tracing(test):
            return False  # Dynamo never reads the right operand
        return _branches_on_tensor(test.left, facts) or _branches_on_tensor(test.right, facts)
    each = _reads_each_truth(test) if isinstance(test, cst.Call) else None
    if each is not None:
        return _branches_on_tensor(each, facts)
    return facts.is_tensor(test)


def _one_index(node: cst.Subscript) -> Optional[cst.BaseExpression]:
    """The index of ``x[i]``: one element, no slice, no comma (``x[i,]`` indexes by a tuple)."""
    if len(node.slice) != 1:
        return None
    element = node.slice[0]
    if not isinstance(element.slice, cst.Index) or element.slice.star is not None:
        return None
    if isinstance(element.comma, cst.Comma):
        return None
    return element.slice.value


def _may_read_an_index(inner: cst.BaseSlice) -> bool:
    """An index or slice bound written as a 0-dim tensor or a tensor's element may be: a call,
    a name, arithmetic, a subscript (``x[j]``, ``x[:n + 1]``, ``x[:lengths[i]]``); not a literal
    or an attribute (``x[:, : self.size]``), which no evidence makes a 0-dim tensor."""
    if isinstance(inner, cst.Index):
        return inner.star is None and isinstance(inner.value, _INDEX_SHAPES)
    return isinstance(inner, cst.Slice) and any(
        isinstance(bound, _INDEX_SHAPES) for bound in (inner.lower, inner.upper, inner.step)
    )


_INDEX_SHAPES = (cst.Call, cst.Name, cst.BinaryOperation, cst.Subscript)


def _written_as_an_index_read(
    subscript: cst.Subscript, reduced: Callable[[str], bool], parameters: Collection[str] = ()
) -> bool:
    """Some index or slice bound of ``subscript`` is written as :meth:`TensorFacts.index_read`
    may read it: holding a 0-dim reduction or a name ``reduced`` says is bound to one, or, as a
    slice bound, a subscript of a dotted name that is not a shape (``lengths[i]``) or one of the
    function's ``parameters`` (which a call may hand a tensor)."""
    for element in subscript.slice:
        inner = element.slice
        if isinstance(inner, cst.Index):
            parts: list[Optional[cst.BaseExpression]] = [inner.value]
        elif isinstance(inner, cst.Slice):
            parts = [inner.lower, inner.upper, inner.step]
        else:
            continue
        for part in parts:
            if part is None:
                continue
            if _holds_a_reduction(part) or any(
                type(node) is cst.Name and reduced(node.value) for node in walk.descendants(part)
            ):
                return True
            if isinstance(inner, cst.Slice) and isinstance(part, cst.Subscript):
                name = dotted_name(part.value)
                if name and name.rpartition(".")[2] != "shape":
                    return True
            if isinstance(inner, cst.Slice) and isinstance(part, cst.Name) and part.value in parameters:
                return True
    return False


def _holds_a_reduction(expr: cst.BaseExpression) -> bool:
    """``expr`` calls a method or function that may make a 0-dim tensor (``.argmax()``, ``.sum()``)."""
    return any(
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in ZERO_DIM_METHODS | ZERO_DIM_FUNCTIONS
        for node in walk.descendants(expr)
    )


def _stored_subscripts(target: cst.BaseExpression) -> list[int]:
    """Ids of the subscripts a target stores to: itself, or elements of a tuple or list target."""
    if isinstance(target, cst.Subscript):
        return [id(target)]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [found for element in target.elements for found in _stored_subscripts(element.value)]
    if isinstance(target, cst.StarredElement):
        return _stored_subscripts(target.value)
    return []


def _indexes_by_mask(node: cst.Subscript, facts: TensorFacts) -> bool:
    """``x[mask]`` on one line, ``mask`` a bool tensor and ``x`` not a plain Python value.

    One line: the prefilter finds such a subscript by its line
    (:data:`~codemods.analysis.catalogue.MASK_LINE`,
    :data:`~codemods.analysis.catalogue.NAME_INDEX`).
    """
    index = _one_index(node)
    if index is None or facts.kind(node.value) == OTHER or "\n" in _code(node):
        return False
    return facts.is_bool_tensor(index)


#: methods that add elements to a list
_LIST_GROWERS = frozenset({"append", "extend", "insert"})


def _names_read(node: cst.BaseExpression) -> set[str]:
    """Bare names an expression reads, not as the callee of a call (``nn.ModuleList(model)``: ``model``)."""
    called: set[int] = set()
    found: set[str] = set()
    # A call comes before its callee in the walk: one walk knows which names are callees.
    for inner in walk.descendants(node):
        if isinstance(inner, cst.Call):
            called.add(id(inner.func))
        elif isinstance(inner, cst.Name) and id(inner) not in called:
            found.add(inner.value)
    return found


def _class_names_called(node: cst.CSTNode, named: Mapping[str, set[str]]) -> set[str]:
    """Class-like names called anywhere in an expression: ``Block(...)``, or through a name or a
    table of classes (``named``: ``cls(...)`` after ``cls = MoE if sparse else MLP``,
    ``TYPES[kind](...)``)."""
    found: set[str] = set()
    for call in walk.descendants(node):
        if isinstance(call, cst.Call):
            found |= _classes_named(call.func, named)
    return found


def _classes_named(node: cst.CSTNode, named: Mapping[str, set[str]]) -> set[str]:
    """The classes an expression names: a class-like name, a name ``named`` knows, either branch
    of a ternary, the values of a dict display, an item of a table of classes."""
    if isinstance(node, cst.Name):
        if node.value in _CONSTANT_NAMES:
            return set()
        return set(named.get(node.value, ())) or ({node.value} if class_like(node.value) else set())
    if isinstance(node, cst.IfExp):
        return _classes_named(node.body, named) | _classes_named(node.orelse, named)
    if isinstance(node, cst.Dict):
        values = [_classes_named(e.value, named) for e in node.elements if isinstance(e, cst.DictElement)]
        return set().union(*values) if values and all(values) else set()
    if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name):
        return set(named.get(node.value.value, ()))
    return set()


#: capitalised names that are no class
_CONSTANT_NAMES = frozenset({"None", "True", "False"})


def _self_attribute(node: cst.BaseExpression) -> str:
    """``attr`` of ``self.attr``, else ``""``."""
    name = dotted_name(node)
    return name[5:] if name and name.startswith("self.") and name.count(".") == 1 else ""


class BreakProvider(_Collector, BatchableMetadataProvider[Optional[BreakReason]]):
    """Marks each breaking ``Call``, ``if`` test, ``Subscript`` and ``FunctionDef`` with a :class:`BreakReason`.

    Its cache (``MetadataWrapper(..., cache={BreakProvider: table})``) is the
    file's ``external`` table: call key -> :class:`ExternalBreak`.
    """

    # _Collector comes first: its visit_ methods must win over the no-op stubs.

    #: it reads the recorded run's tensor evidence that the wrapper gave that provider
    METADATA_DEPENDENCIES = (FunctionTensorsProvider,)

    def __init__(self, cache: object = None) -> None:
        # Without a table (a file on its own) nothing outside the module is known.
        BatchableMetadataProvider.__init__(self, cache if cache is not None else {})
        _Collector.__init__(self)
        self.external: Mapping[str, ExternalBreak] = self.cache  # type: ignore[assignment]

    @classmethod
    def gen_cache(
        cls, root_path: Any, paths: list[str], timeout: Optional[int] = None, **kwargs: Any
    ) -> Mapping[str, object]:
        """libcst's hook for providers that take a cache: the engine fills the table itself."""
        return {path: {} for path in paths}

    def visit_Module(self, node: cst.Module) -> None:
        super().visit_Module(node)
        self.recorded = self.get_metadata(FunctionTensorsProvider, node).recorded

    def leave_Module(self, original_node: cst.Module) -> None:
        self.replay()
        resolved = _resolve(self)
        for call, reason in self.direct_calls.items():
            self.set_metadata(call, reason)
        for fn in self.functions:
            for call, callee in fn.callees:
                targets = _lookup(self, fn, callee)
                through = next((r for t in targets if (r := _call_breaks(call, t, resolved)) is not None), None)
                if through is not None:
                    self.set_metadata(call, through)
                elif not targets:
                    found = _external(self, fn, callee)
                    if found is not None and _takes(call, found.params, found.distinct):
                        self.set_metadata(call, BreakReason.external(found))
            if resolved.get(id(fn.node)) is not None:
                self.set_metadata(fn.node, resolved[id(fn.node)])


def _external(collector: _Collector, caller: _Function, callee: str) -> Optional[ExternalBreak]:
    """The break behind a call the module cannot resolve, from the file's ``external`` table."""
    table: Mapping[str, ExternalBreak] = getattr(collector, "external", {})
    if not table:
        return None
    parts = callee.split(".")
    if len(parts) == 1 and caller.owner_qualname is not None:
        # ``for layer in self.layers: layer(x)`` runs the forward of what ``self.layers`` holds
        attr = collector.loop_aliases.get(id(caller.node), {}).get(callee)
        if attr is not None:
            found = table.get(f"self.{attr}@{caller.owner_qualname}")
            if found is not None:
                return found
    instance = table.get(f"{callee}@{caller.unit}")
    if instance is not None:
        return instance
    key = call_key(callee, caller.owner_qualname)
    return table.get(key) if key is not None else None


def _lookup(collector: _Collector, caller: _Function, callee: str) -> list[_Function]:
    """The same-module functions a dotted call name may run (a submodule assigned one of
    several classes may run the ``forward`` of each); empty when none is known."""
    parts = callee.split(".")
    cls = caller.cls or caller.owner
    if len(parts) == 1:
        name = parts[0]
        if name in collector.nested_functions:
            return [collector.nested_functions[name][-1]]
        if name in collector.module_functions:
            return [collector.module_functions[name]]
        if cls is not None:
            attr = collector.loop_aliases.get(id(caller.node), {}).get(name)
            if attr is not None:
                return _submodule_forwards(collector, cls, attr)
        if name in collector.class_methods:
            init = collector.class_methods[name].get("__init__")
            return [init] if init is not None else []
        return []
    if parts[0] == "self" and len(parts) == 2 and cls is not None:
        method = collector.class_methods.get(cls, {}).get(parts[1])
        if method is not None:
            return [method]
        return _submodule_forwards(collector, cls, parts[1])
    if cls is None or len(parts) != (3 if parts[0] == "self" else 2):
        return []
    # ``self.decoder.infer(...)``, or ``layer.infer(...)`` for a loop's ``layer`` of ``self.layers``
    attr = parts[1] if parts[0] == "self" else collector.loop_aliases.get(id(caller.node), {}).get(parts[0])
    return _submodule_forwards(collector, cls, attr, parts[-1]) if attr else []


def _submodule_forwards(collector: _Collector, cls: str, attr: str, method: str = "") -> list[_Function]:
    """What a call of the submodule ``self.attr`` runs: each of its classes' ``forward`` (or
    ``__call__``), or their ``method`` when one is named."""
    found = []
    for sub_cls in sorted(collector.submodules.get(cls, {}).get(attr, ())):
        methods = collector.class_methods.get(sub_cls, {})
        called = methods.get(method) if method else methods.get("forward") or methods.get("__call__")
        if called is not None:
            found.append(called)
    return found


def _call_breaks(
    call: cst.Call, target: _Function, breaks: Mapping[int, Optional[BreakReason]]
) -> Optional[BreakReason]:
    """Why ``call`` of ``target`` breaks: ``target`` breaks, or holds a break behind ``a is b or``
    and the call does not hand one object for both (:func:`_takes`)."""
    inner = breaks.get(id(target.node))
    if inner is None and target.conditional is not None:
        params = target.node.params
        positional = [p.name.value for p in (*params.posonly_params, *params.params)]
        if target.cls is not None and not is_static(target.node):
            positional = positional[1:]  # called through an instance: ``self`` is not in the call
        if _takes(call, tuple(positional), target.distinct):
            inner = target.conditional
    if inner is None:
        return None
    return BreakReason(inner.reason, inner.raises, via=target.qualname)


def _takes(call: cst.Call, positional: Sequence[str], distinct: Sequence[tuple[str, str]]) -> bool:
    """Whether ``call`` may take a break that runs only when the parameters of some pair of
    ``distinct`` hold two objects: not when it hands the same plain name for both of every pair.
    ``positional``: the callee's positional parameters as a call fills them (keywords bind by name)."""
    if not distinct:
        return True
    bound: dict[str, str] = {}
    at = 0
    for arg in call.args:
        if arg.star:
            return True  # cannot tell which argument is which
        if arg.keyword is not None:
            name = arg.keyword.value
        elif at < len(positional):
            name, at = positional[at], at + 1
        else:
            continue
        # one plain name read twice is one object; an attribute may be a property that makes a new one
        bound[name] = arg.value.value if isinstance(arg.value, cst.Name) else ""
    return any(not bound.get(a) or bound.get(a) != bound.get(b) for a, b in distinct)


def _parameters(func: cst.FunctionDef) -> set[str]:
    params = func.params
    return {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}


def _identity_before(node: cst.BooleanOperation) -> Optional[tuple[str, str]]:
    """``(a, b)`` when the left operand of ``node`` is ``a is b`` for ``or``, ``a is not b`` for
    ``and`` (plain names, also after more of the same operator): its right operand is read only
    when ``a`` and ``b`` are two objects. The ``ast`` twin is
    :func:`codemods.analysis.breaks.ast.runs_only_if_distinct`, which the project index reads."""
    wanted = cst.Is if isinstance(node.operator, cst.Or) else cst.IsNot
    left = node.left
    while True:
        if (
            isinstance(left, cst.Comparison)
            and len(left.comparisons) == 1
            and isinstance(left.comparisons[0].operator, wanted)
            and isinstance(left.left, cst.Name)
            and isinstance(left.comparisons[0].comparator, cst.Name)
        ):
            return left.left.value, left.comparisons[0].comparator.value
        if not (isinstance(left, cst.BooleanOperation) and type(left.operator) is type(node.operator)):
            return None
        found = _identity_before(left)
        if found is not None:
            return found
        left = left.right


def _resolve(collector: _Collector) -> dict[int, Optional[BreakReason]]:
    """Fixpoint: a function breaks if it calls the catalogue or a breaking function."""
    result: dict[int, Optional[BreakReason]] = {id(fn.node): fn.direct for fn in collector.functions}
    changed = True
    while changed:
        changed = False
        for fn in collector.functions:
            if result[id(fn.node)] is not None:
                continue
            for call, callee in fn.callees:
                targets = _lookup(collector, fn, callee)
                reason = next((r for t in targets if t is not fn and (r := _call_breaks(call, t, result))), None)
                if reason is not None:
                    result[id(fn.node)] = reason
                    changed = True
                    break
                found = _external(collector, fn, callee) if not targets else None
                if found is not None and _takes(call, found.params, found.distinct):
                    result[id(fn.node)] = BreakReason.external(found)
                    changed = True
                    break
    return result


# -- queries used by the rules ------------------------------------------------


@dataclass(frozen=True)
class BreakSite:
    """The first breaking call found in a piece of code."""

    node: cst.CSTNode
    reason: BreakReason


Lookup = Callable[[cst.CSTNode], Optional[BreakReason]]
#: the reason of a site only a real run's record names (a line, not a cause)
RECORDED_BREAK = "recorded as a graph break by a run"


def find_breaks(
    nodes: Sequence[cst.CSTNode] | cst.CSTNode,
    lookup: Lookup,
    line_of: Optional[Callable[[cst.CSTNode], int]] = None,
    extra_lines: frozenset[int] = frozenset(),
) -> list[BreakSite]:
    """Every breaking call, every truth read of a tensor's values (an ``if``, a ``while`` inside
    ``nodes``, a ternary, a comprehension filter, ``not``, ``and``/``or``) and every subscript
    through a boolean mask, in ``nodes``, in source order.

    Bodies of nested functions, lambdas and classes are not entered: defining
    a function does not run it (calling it is seen at the call site).
    ``extra_lines`` are lines a real run recorded as breaking; any statement
    on such a line counts.
    """
    if isinstance(nodes, cst.CSTNode):
        nodes = [nodes]
    sites: list[BreakSite] = []
    recorded = bool(extra_lines) and line_of is not None
    for root in nodes:
        # A loop's own condition is passed in as an expression (``while x.item() > 0:``).
        if recorded and isinstance(root, cst.BaseExpression):
            if line_of(root) in extra_lines:  # type: ignore[misc]
                sites.append(BreakSite(root, BreakReason(RECORDED_BREAK)))
        for node in walk.descendants(root, _runs_here):
            if type(node) is cst.Call:
                reason = lookup(node)
                if reason is not None and (not reason.recorded_only or (recorded and line_of(node) in extra_lines)):  # type: ignore[misc]
                    sites.append(BreakSite(node, reason))
                continue
            if type(node) is cst.Subscript:
                mask = lookup(node)
                if mask is not None:
                    sites.append(BreakSite(node, mask))
                continue
            tested = _TRUTH_READERS.get(type(node))
            if tested is not None:
                branch = lookup(node)
                if branch is not None:
                    sites.append(BreakSite(getattr(node, tested), branch))
            if type(node) is cst.If:
                branch = lookup(node.test)
                if branch is not None:
                    sites.append(BreakSite(node.test, branch))
                    continue
            if recorded and isinstance(node, cst.BaseSmallStatement):
                if line_of(node) in extra_lines:  # type: ignore[misc]
                    sites.append(BreakSite(node, BreakReason(RECORDED_BREAK)))
            elif recorded and isinstance(node, (cst.If, cst.While)):
                # A break recorded on the header is in the condition: a data-dependent branch.
                if line_of(node) in extra_lines:  # type: ignore[misc]
                    sites.append(BreakSite(node.test, BreakReason(RECORDED_BREAK)))
    return sites


#: the nodes a truth read is keyed on (see :meth:`_Collector._truth_read`) -> the part read
_TRUTH_READERS: dict[type, str] = {
    cst.While: "test",
    cst.Assert: "test",
    cst.IfExp: "test",
    cst.CompIf: "test",
    cst.UnaryOperation: "expression",
    cst.BooleanOperation: "left",
}


def _runs_here(node: cst.CSTNode) -> bool:
    """What is below ``node`` runs when it runs (not so for a definition's body), and may
    hold a call (not so below whitespace and punctuation)."""
    return type(node) not in _NOT_ENTERED


_NOT_ENTERED = walk.node_types(cst.FunctionDef, cst.Lambda, cst.ClassDef) | walk.TRIVIA
_NO_RETURN_BELOW = walk.node_types(cst.FunctionDef, cst.ClassDef, cst.BaseExpression)


def _returns_in(nodes: Sequence[cst.CSTNode]) -> list[cst.Return]:
    return [node for root in nodes for node in walk.descendants(root, _may_hold_return) if isinstance(node, cst.Return)]


def _may_hold_return(node: cst.CSTNode) -> bool:
    # A return is a statement: expressions never hold one, and a nested definition's is its own.
    return type(node) not in _NO_RETURN_BELOW


def sites_that_skip(
    loop_parts: Sequence[cst.CSTNode],
    sites: Sequence[BreakSite],
    start_of: Callable[[cst.CSTNode], tuple[int, int]],
) -> list[BreakSite]:
    """The break sites in a loop that make Dynamo skip the frame.

    Dynamo (torch 2.13, ``maybe_has_backedge``) calls a break "in a loop" by
    scanning forward from it for a backward jump, and stops at the first
    return. A break with a ``return`` after it in the loop body is therefore
    resumed, not skipped, and needs no fix.
    """
    if not sites:
        return []
    returns = [start_of(r) for r in _returns_in(loop_parts)]
    return [s for s in sites if not any(r > start_of(s.node) for r in returns)]
