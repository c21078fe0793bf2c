"""One file's part of the project index: what it defines, what its functions call, which of them break.

The engine reads every file of the scanned tree with this before any rule
runs (in parallel), then links the summaries (:mod:`codemods.analysis.project.link`)
to learn which functions compiled code reaches and which calls into other
files break. It has to cost little more than Python's own parse, so it
walks only the statements of ``ast``'s tree and finds calls with one
regular expression over the text; expressions are looked into only where
a catalogue call or ``torch.compile`` is written, or an assignment may
build a submodule.

A unit is a function or method not nested in another function (nested
definitions belong to their unit); it is named by its qualified name
(``Block.forward``), as :func:`codemods.analysis.reach.unit_names` names
it. A call is kept as ``(kind, receiver, name)``:

* ``("n", "", f)``: ``f(...)``;
* ``("s", "", f)``: ``self.f(...)``;
* ``("super", "", f)``: ``super().f(...)``;
* ``("d", "a.b", f)``: ``a.b.f(...)`` for a chain of names (``self.attn.f``).

Only calls that may reach something the scanned tree defines are kept:
bare names the module binds, anything on ``self``, chains that start at
an import, a class of the module, or a local ``x = Cls(...)``. Text in
strings and comments may add calls that are not there (more functions
reached, never fewer); a catalogue call counts only when ``ast`` shows it.
"""

from __future__ import annotations

import ast
import keyword
import os
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterator, Optional, Union

from codemods.analysis.astnodes import classes_named, dotted, expressions_of, long_docstring, loop_submodule, normal
from codemods.analysis.breaks.ast import (
    condition_call_ends,
    index_read_starts,
    index_subscripts_on,
    mask_index_starts,
    reads_a_bound_name,
    runs_only_if_distinct,
    subscripts_on,
)
from codemods.analysis.catalogue import (
    BY_QUALIFIED,
    BY_TENSOR_READ,
    CONDITION,
    INDEX_READ,
    LOGGER_METHOD_NAMES,
    LOGGER_NAMES,
    LOGGER_RECEIVER_LASTS,
    MASK_INDEX,
    METHOD_NAMES,
    SLICE_READ,
    TENSOR_READ_NAMES,
    TENSOR_READ_REST,
    BreakCall,
    counts_only_where_recorded,
    logger_entry,
    method_entry,
)
from codemods.analysis.names import class_like
from codemods.analysis.tensors.ast import (
    TensorEvidence,
    annotation_is_tensor,
    bound_arguments,
    own_nodes,
    passes,
    torch_names,
    truth_reads,
)

Call = tuple[str, str, str]
Def = Union[ast.FunctionDef, ast.AsyncFunctionDef]

#: the qualified name of ``torch.compile``
COMPILE = frozenset({"torch.compile"})
#: what ``torch._dynamo.assume_constant_result`` sets on a function: Dynamo uses its result, never traces it
CONSTANT_MARK = "_dynamo_marked_constant"
#: on the reversed text: ``(``, the called name, then the chain of names before it (``(f.b.a`` of ``a.b.f(``).
#: Python's regular expressions look for a pattern's first character fast, and in a reversed text
#: that is the ``(``; forwards, every word would have to be tried.
_REVERSED_CALL = re.compile(r"\([ \t]*(\w+)((?:\s*\.\s*\w+)*)")
_REVERSED_SUPER = re.compile(r"\s*\.\s*\)\s*\(\s*repus(?!\w)")
_REVERSED_DEFINING = re.compile(r"\s+(?:fed|ssalc)(?![\w.])")
#: the words that open a loop or block (a comprehension writes ``for``)
_BLOCK_WORDS = re.compile(r"\b(?:for|while|with|try)\b")
_SIMPLE_VALUES = (ast.Name, ast.Attribute, ast.Constant)
#: values of a local name that may name classes or hold modules (see :func:`~codemods.analysis.astnodes.classes_named`)
_CLASS_BUILDS = (ast.Name, ast.IfExp, ast.Subscript, ast.Dict, ast.List, ast.ListComp)
#: methods that add elements to a list
_LIST_GROWERS = frozenset({"append", "extend", "insert"})
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_FORS = (ast.For, ast.AsyncFor)
_BLOCK_FIELDS = ("body", "orelse", "finalbody")


@dataclass(frozen=True)
class UnitSummary:
    """One function or method not nested in another function."""

    qualname: str
    #: the qualified name of its class, for a method
    cls: Optional[str]
    first: int
    last: int
    #: what it calls, each once
    calls: tuple[Call, ...]
    #: its first call of the break catalogue: (reason, can raise, line)
    direct: Optional[tuple[str, bool, int]]
    #: why compile runs it ("decorated with torch.compile"), or ""
    compiled: str
    #: its decorators' dotted names, as written
    decorators: tuple[str, ...]
    #: it sets ``_dynamo_marked_constant`` (a decorator like ``assume_constant_result``)
    marks_constant: bool
    #: ``x = Cls(...)`` in it: (x, dotted class name)
    instances: tuple[tuple[str, str], ...]
    #: its text writes ``for``, ``while``, ``with`` or ``try``: it may hold a loop or block
    holds_blocks: bool
    #: a function that calls its first parameter (a decorator's wrapper calls the function it
    #: wraps): that parameter's name, else ""
    wraps: str = ""
    #: when not empty, ``direct`` runs only after ``a is b`` was false for a pair ``(a, b)`` of its
    #: parameters (:func:`~codemods.analysis.breaks.ast.runs_only_if_distinct`), and the unit has
    #: no other break of its own
    distinct: tuple[tuple[str, str], ...] = ()
    #: its positional parameters as a call fills them (without ``self`` for a method), with ``distinct``
    params: tuple[str, ...] = ()
    #: the output family (``logger``, ``print``…) when each break of its own is an output call in a
    #: branch of an ``if``: a path that seldom runs, whose one-line guard is the smallest fix
    rare_output: str = ""


@dataclass(frozen=True)
class ClassSummary:
    """One class not inside a function."""

    qualname: str
    line: int
    #: dotted names of its bases, as written
    bases: tuple[str, ...]
    methods: frozenset[str]
    #: ``self.attr = ...Block(...)`` in its methods: (attr, dotted class names called there)
    submodules: tuple[tuple[str, tuple[str, ...]], ...]


@dataclass(frozen=True)
class FileSummary:
    path: str
    #: dotted module name (``pkg.models.block``)
    module: str
    #: bound name -> absolute dotted path it is imported from (the first import wins)
    imports: tuple[tuple[str, str], ...]
    units: tuple[UnitSummary, ...]
    classes: tuple[ClassSummary, ...]
    #: ``torch.compile(x)``: (qualified name of the unit the call is in, or "", dotted ``x``, line)
    compiled: tuple[tuple[str, str, int], ...]
    #: ``for v in self.attr``: (v, attrs), anywhere in the file
    loop_aliases: tuple[tuple[str, tuple[str, ...]], ...]


def _first_parameter(d: "_Def") -> str:
    """The first positional parameter of a function that is not a method ("" otherwise)."""
    if d.cls is not None:
        return ""
    args = d.node.args
    names = [a.arg for a in (*args.posonlyargs, *args.args)]
    return names[0] if names else ""


# -- module names ------------------------------------------------------------------------


def module_name(path: str) -> str:
    """The dotted name Python imports ``path`` as: its directories up to the first without ``__init__.py``."""
    directory, file = os.path.split(os.path.abspath(path))
    stem = file[:-3] if file.endswith(".py") else file
    package = _package(directory)
    if stem == "__init__":
        return package or stem
    return f"{package}.{stem}" if package else stem


@lru_cache(maxsize=4096)
def _package(directory: str) -> str:
    if not os.path.isfile(os.path.join(directory, "__init__.py")):
        return ""
    parent, name = os.path.split(directory)
    above = _package(parent) if parent != directory else ""
    return f"{above}.{name}" if above else name


def absolute_module(module: str, is_package: bool, target: Optional[str], level: int) -> Optional[str]:
    """The absolute module of ``from <level dots><target> import ...`` written in ``module``."""
    if not level:
        return target
    parts = module.split(".") if module else []
    if not is_package:
        parts = parts[:-1]
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    return ".".join([*base, target] if target else base) or None


# -- the statements ------------------------------------------------------------------------


@dataclass
class _Def:
    node: Def
    first: int
    last: int
    qualname: str
    cls: Optional[str]
    unit: bool


@dataclass
class _Statements:
    """What one walk over the statements finds (expressions are left to the call pattern)."""

    defs: list[_Def] = field(default_factory=list)
    #: (qualified name, node) of every class not inside a function
    classes: list[tuple[str, ast.ClassDef]] = field(default_factory=list)
    imports: dict[str, str] = field(default_factory=dict)
    #: assignments inside functions whose value is not a plain name, attribute or constant
    assigns: list[ast.Assign] = field(default_factory=list)
    loop_aliases: dict[str, set[str]] = field(default_factory=dict)
    #: (first, last) lines of docstrings over several lines: their examples call nothing
    docstrings: list[tuple[int, int]] = field(default_factory=list)
    #: (first, last) lines of ``except`` clauses: what they call runs only after an exception
    handlers: list[tuple[int, int]] = field(default_factory=list)
    #: module-level ``NAME = {key: "method", ...}``: NAME -> the names its values spell
    dispatch: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: statements inside functions that may name classes or build lists of modules
    #: (``cls = MoE if sparse else MLP``, ``layers = []``, ``layers.append(cls(config))``)
    builds: list[ast.stmt] = field(default_factory=list)
    #: module-level ``NAME = {key: Class, ...}`` and the like: NAME -> the classes it names
    class_tables: dict[str, set[str]] = field(default_factory=dict)

    def note_docstring(self, body: list[ast.stmt]) -> None:
        first = long_docstring(body)
        if first is not None:
            self.docstrings.append((first.lineno, first.end_lineno or first.lineno))


def _walk(tree: ast.Module, module: str, is_package: bool) -> _Statements:
    found = _Statements()
    found.note_docstring(tree.body)
    # (statement, inside a function?, unit qualname inside a function / class prefix outside, class of methods)
    stack: list[tuple[Any, bool, str, Optional[str]]] = [(s, False, "", None) for s in tree.body]
    while stack:
        node, in_function, prefix, owner = stack.pop()
        kind = node.__class__
        if kind in _DEFS:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            qualname = prefix if in_function else prefix + node.name
            method = owner if not in_function else None
            found.defs.append(_Def(node, first, node.end_lineno or node.lineno, qualname, method, not in_function))
            found.note_docstring(node.body)
            stack.extend((s, True, qualname, None) for s in node.body)
        elif kind is ast.ClassDef:
            found.note_docstring(node.body)
            if in_function:
                stack.extend((s, True, prefix, None) for s in node.body)
            else:
                qualname = prefix + node.name
                found.classes.append((qualname, node))
                stack.extend((s, False, qualname + ".", qualname) for s in node.body)
        elif kind is ast.Assign:
            if in_function and not isinstance(node.value, _SIMPLE_VALUES):
                found.assigns.append(node)
            if in_function and isinstance(node.value, _CLASS_BUILDS):
                found.builds.append(node)
            elif not in_function and not prefix and isinstance(node.value, ast.Dict):
                _note_dispatch(node, found.dispatch)
            if not in_function and not prefix:
                named = classes_named(node.value, found.class_tables)
                for target in node.targets if named else ():
                    if isinstance(target, ast.Name):
                        found.class_tables[target.id] = named
        elif in_function and kind is ast.Expr and _grows_a_list(node.value):
            found.builds.append(node)
        elif kind is ast.ImportFrom:
            base = absolute_module(module, is_package, node.module, node.level)
            if base is not None:
                for alias in node.names:
                    if alias.name != "*":
                        found.imports.setdefault(alias.asname or alias.name, f"{base}.{alias.name}")
        elif kind is ast.Import:
            for alias in node.names:
                bound = alias.asname or alias.name.split(".", 1)[0]
                found.imports.setdefault(bound, alias.name if alias.asname else bound)
        else:
            looped = loop_submodule(node) if kind in _FORS else None
            if looped is not None:
                found.loop_aliases.setdefault(looped[0], set()).add(looped[1])
            for name in _BLOCK_FIELDS:
                stack.extend((s, in_function, prefix, owner) for s in getattr(node, name, ()))
            for handler in getattr(node, "handlers", ()):
                found.handlers.append((handler.lineno, handler.end_lineno or handler.lineno))
                stack.extend((s, in_function, prefix, owner) for s in handler.body)
            for case in getattr(node, "cases", ()):
                stack.extend((s, in_function, prefix, owner) for s in case.body)
    return found


def _note_dispatch(node: ast.Assign, dispatch: dict[str, tuple[str, ...]]) -> None:
    """Keep a module-level dict whose values all spell names (a table of methods to dispatch to)."""
    values = node.value.values if isinstance(node.value, ast.Dict) else []
    names = [v.value for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
    if not values or len(names) != len(values):
        return
    for target in node.targets:
        if isinstance(target, ast.Name):
            dispatch[target.id] = tuple(sorted({name for name in names if name.isidentifier()}))


def _statement_at(body: list[ast.stmt], line: int) -> Optional[ast.stmt]:
    """The innermost statement of ``body`` whose own (non-block) part is written on ``line``."""
    for stmt in body:
        first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))])
        if not first <= line <= (stmt.end_lineno or stmt.lineno):
            continue
        for block in _blocks(stmt):
            inner = _statement_at(block, line)
            if inner is not None:
                return inner
        return stmt
    return None


def _blocks(stmt: ast.stmt) -> list[list[ast.stmt]]:
    blocks = [getattr(stmt, name) for name in _BLOCK_FIELDS if isinstance(getattr(stmt, name, None), list)]
    blocks.extend(h.body for h in getattr(stmt, "handlers", ()))
    blocks.extend(c.body for c in getattr(stmt, "cases", ()))
    return blocks


# -- reading one file ---------------------------------------------------------------------------


class _Reader:
    """Reads one parsed file into a :class:`FileSummary`."""

    def __init__(self, text: str, tree: ast.Module, path: str, module: str) -> None:
        self.text = text
        self.tree = tree
        self.path = path
        self.module = module
        self.found = _walk(tree, module, os.path.basename(path) == "__init__.py")
        self.imports = self.found.imports
        self.units = sorted((d for d in self.found.defs if d.unit), key=lambda d: d.first)
        # A decorator runs when the function is defined, not when it is called: its lines are no unit's.
        self.unit_firsts = [d.node.lineno for d in self.units]
        #: names a bare call may resolve through: module-level definitions, imports, loop variables
        self.bound = set(self.imports) | set(self.found.loop_aliases)
        self.bound.update(d.node.name for d in self.units if d.cls is None)
        self.bound.update(q for q, _ in self.found.classes if "." not in q)
        #: names bound to torch and its modules, read when a data-dependent entry first asks
        self._torch: Optional[frozenset[str]] = None
        #: (id of a def, with arguments) -> its evidence, built on the first question
        self._evidences: dict[tuple[int, bool], TensorEvidence] = {}
        #: last name called -> (the def whose own code calls it, the call), built on the first question
        self._calls_by_name: Optional[dict[str, list[tuple[_Def, ast.Call]]]] = None
        #: unit qualname -> the decorated definitions in it (itself included)
        self.decorated: dict[str, list[_Def]] = {}
        for d in self.found.defs:
            if d.node.decorator_list:
                self.decorated.setdefault(d.qualname, []).append(d)
        getloggers = {b for b, p in self.imports.items() if p.rpartition(".")[2] in ("getLogger", "get_logger")}
        self.loggers = set(LOGGER_RECEIVER_LASTS) | {
            t.id
            for a in self.found.assigns
            if isinstance(a.value, ast.Call) and dotted(a.value.func) in getloggers | {"logging.getLogger"}
            for t in a.targets
            if isinstance(t, ast.Name)
        }

    def qualify(self, dotted: str) -> str:
        """``dotted`` with its first name read through the imports (``nn.Module``: ``torch.nn.Module``)."""
        head, dot, rest = dotted.partition(".")
        path = self.imports.get(head)
        return f"{path}{dot}{rest}" if path else dotted

    def unit_at(self, line: int) -> Optional[int]:
        at = bisect_right(self.unit_firsts, line) - 1
        return at if at >= 0 and self.units[at].last >= line else None

    def call_at(self, line: int, name: str) -> Optional[ast.Call]:
        """The call of ``name`` whose name is written on ``line`` (None: it is in a string or comment)."""
        stmt = _statement_at(self.tree.body, line)
        if stmt is None:
            return None
        for part in expressions_of(stmt):
            for node in ast.walk(part):
                if isinstance(node, ast.Call) and _ends_with(node.func, name, line):
                    return node
        return None

    def catalogue(self, name: str, chain: str, name_end: int) -> Optional[BreakCall]:
        """The catalogue entry a call of ``name`` after ``chain`` matches, as the break analysis reads it."""
        if not chain:
            path = self.imports.get(name)
            return BY_QUALIFIED.get(path if path is not None else f"builtins.{name}")
        entry = BY_QUALIFIED.get(f"{self.qualify(chain)}.{name}")
        if entry is None and name in METHOD_NAMES:
            # ``torch.Tensor.item(t)`` passes the tensor the method is called on, nothing more
            unbound = self.qualify(chain) == "torch.Tensor"
            entry = method_entry(name, not unbound and not _no_arguments(self.text, name_end))
        if entry is None and name in LOGGER_METHOD_NAMES:
            if chain in LOGGER_NAMES or ("." not in chain and chain in self.loggers):
                entry = logger_entry(name, chain)
        return entry

    # -- data-dependent breaks: what the file's tensor inference would say ------------------
    def _evidence(self, line: int, arguments: bool = False) -> Optional[TensorEvidence]:
        """What the innermost function around ``line`` shows to be tensors; with ``arguments``,
        also what the file's calls hand it and its class's methods annotated to return a tensor
        (what the entries that break on an argument read)."""
        inner: Optional[_Def] = None
        for d in self.found.defs:
            if d.node.lineno <= line <= d.last and (inner is None or d.node.lineno > inner.node.lineno):
                inner = d
        if inner is None:
            return None
        key = (id(inner.node), arguments)
        found = self._evidences.get(key)
        if found is None:
            if self._torch is None:
                self._torch = torch_names(self.tree)
            if not arguments:
                found = TensorEvidence(inner.node, inner.cls is not None, self._torch)
            else:
                handed, methods = self._handed(inner), self._tensor_methods(inner.cls)
                found = TensorEvidence(inner.node, inner.cls is not None, self._torch, handed, methods)
            self._evidences[key] = found
        return found

    def _tensor_methods(self, cls: Optional[str]) -> frozenset[str]:
        """Methods of the class ``cls`` annotated to return a tensor."""
        if cls is None:
            return frozenset()
        return frozenset(d.node.name for d in self.found.defs if d.cls == cls and annotation_is_tensor(d.node.returns))

    def _handed(self, fn: _Def) -> frozenset[str]:
        """Parameters of ``fn`` some call in the file hands a tensor, or a tuple holding one, as the
        caller's own code shows it (one call deep): ``self._pad1d(x, (self.padding, extra))``."""
        name = fn.node.name
        if name in ("forward", "__init__"):
            return frozenset()  # inputs of a module: the evidence reads them already
        assert self._torch is not None
        if self._calls_by_name is None:
            self._calls_by_name = {}
            for d in self.found.defs:
                for call in own_nodes(ast.iter_child_nodes(d.node)):
                    if not isinstance(call, ast.Call):
                        continue
                    last = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)
                    if last is not None:
                        self._calls_by_name.setdefault(last, []).append((d, call))
        found: set[str] = set()
        evidences: dict[int, TensorEvidence] = {}
        for caller, call in self._calls_by_name.get(name, ()):
            if fn.cls is not None and caller.cls != fn.cls:
                continue
            callee = call.func
            if isinstance(callee, ast.Attribute):
                matches = fn.cls is not None and dotted(callee.value) == "self"
            else:
                matches = fn.cls is None and fn.unit
            if not matches:
                continue
            evidence = evidences.get(id(caller.node))
            if evidence is None:
                methods = self._tensor_methods(caller.cls)
                evidence = TensorEvidence(caller.node, caller.cls is not None, self._torch, tensor_methods=methods)
                evidences[id(caller.node)] = evidence
            found.update(
                param
                for param, value in bound_arguments(call, fn.node, fn.cls is not None)
                if evidence.holds_a_tensor(value)
            )
        return frozenset(found)

    def _tensor_read(self, line: int, name: str, receiver: str, name_end: int) -> Optional[BreakCall]:
        """The entry of ``int(x.sum())`` (``operator.index(x.sum())``) when its argument is a
        tensor on strong evidence."""
        if receiver:
            entry = BY_TENSOR_READ.get(f"{self.qualify(receiver)}.{name}")
        else:
            entry = BY_TENSOR_READ.get(self.imports.get(name) or f"builtins.{name}")
        if entry is None:
            return None
        if TENSOR_READ_REST.match(self.text, name_end) is None and not reads_a_bound_name(self.text, name_end):
            return None
        node = self.call_at(line, name)
        evidence = self._evidence(line) if node is not None else None
        if node is None or evidence is None or not evidence.reads_a_tensor(node):
            return None
        return entry

    def _holds(self, entry: BreakCall, call: ast.Call) -> bool:
        """The arguments are ones the entry breaks with: none that fixes the output shape
        (``output_size=``), and a tensor where it needs one (``F.pad``'s amounts), on strong evidence."""
        if entry.unless_arg is not None and passes(call, entry.unless_arg):
            return False
        if entry.tensor_arg is None:
            return True
        evidence = self._evidence(call.lineno, arguments=True)
        return evidence is not None and evidence.passes_a_tensor(call, entry.tensor_arg)

    def _branches_on_tensor(self, line: int) -> bool:
        """A truth read on ``line`` (an ``if``, a ``while``, a ternary, ``not``…) reads a tensor's
        values, on strong evidence."""
        stmt = _statement_at(self.tree.body, line)
        if stmt is None:
            return False
        header = stmt.test if isinstance(stmt, (ast.If, ast.While)) else None
        tests = [test for test in truth_reads(expressions_of(stmt), header) if test.lineno == line]
        evidence = self._evidence(line) if tests else None
        return evidence is not None and any(evidence.branches_on_tensor(test) for test in tests)

    def _indexes_by_mask(self, line: int) -> bool:
        """A subscript on ``line`` reads through a boolean mask (``x[x > 0]``), on strong evidence."""
        stmt = _statement_at(self.tree.body, line)
        subscripts = subscripts_on(stmt, line) if stmt is not None else []
        evidence = self._evidence(line) if subscripts else None
        if evidence is None:
            return False
        if any(evidence.indexes_by_mask(s) for s in subscripts):
            return True
        # what the file's calls hand the function makes a parameter a tensor (``emb[labels == -1]``)
        if not any(evidence.reads_a_parameter(s) for s in subscripts):
            return False
        handed = self._evidence(line, arguments=True)
        return handed is not None and any(handed.indexes_by_mask(s) for s in subscripts)

    def _index_read(self, line: int) -> str:
        """How a subscript on ``line`` reads a tensor's value as an int ("slice", "index", or ""),
        on strong evidence, or on what the file's calls hand the function (``x[:lengths[i]]``)."""
        stmt = _statement_at(self.tree.body, line)
        subscripts = index_subscripts_on(stmt, line) if stmt is not None else []
        evidence = self._evidence(line) if subscripts else None
        if evidence is None:
            return ""
        reads = {evidence.index_read(s) for s in subscripts}
        if not reads - {""} and any(evidence.reads_a_parameter(s.slice) for s in subscripts):
            handed = self._evidence(line, arguments=True)
            reads = {handed.index_read(s) for s in subscripts} if handed is not None else reads
        return "slice" if "slice" in reads else "index" if "index" in reads else ""

    # -- the summary ------------------------------------------------------------------------
    def summarise(self) -> FileSummary:
        lines = _LineIndex(self.text)
        per_unit: list[set[Call]] = [set() for _ in self.units]
        direct: list[Optional[tuple[str, bool, int]]] = [None] * len(self.units)
        #: per unit, its first break behind ``a is b or`` and the parameter pairs of all such
        conditional: dict[int, tuple[tuple[str, bool, int], set[tuple[str, str]]]] = {}
        #: per unit, the output family while every break of its own is an output call under an ``if``
        rare = [""] * len(self.units)

        def note(at: int, found: tuple[str, bool, int], output: str = "") -> None:
            """Unit ``at`` breaks at ``found``; ``output``: the break is an output call on a rare path."""
            if direct[at] is None:
                direct[at], rare[at] = found, output
            elif not output:
                rare[at] = ""

        firsts = [_first_parameter(d) for d in self.units]
        wraps = [""] * len(self.units)
        compiled: list[tuple[str, str, int]] = []
        instances = self._instances()
        quiet = _Spans(self.found.docstrings)
        # Dynamo traces an ``except`` clause only after an exception: its calls break no normal run.
        cold = _Spans(_outermost(self.found.handlers))
        for start, receiver, name in _calls(self.text):
            line = lines.line_of(start)
            if quiet.holds(line) or lines.in_comment(start):
                continue  # an example in a docstring, a comment: nothing runs
            at = self.unit_at(line)
            if name == "compile" and receiver is not None:
                self._compile_call(line, receiver, name, self.units[at].qualname if at is not None else "", compiled)
            if at is None:
                continue
            if receiver == "super()":
                per_unit[at].add(("super", "", name))
                continue
            if (direct[at] is None or rare[at]) and not cold.holds(line):
                # ``(x > 0).nonzero()``: a method entry matches whatever its receiver is, as in the file's analysis
                entry = self.catalogue(name, receiver if receiver is not None else "()", start + len(name))
                node = self.call_at(line, name) if entry is not None else None
                if entry is not None and node is not None and _arity_fits(entry, node) and self._holds(entry, node):
                    pairs = self._after_identity(at, line, name)
                    if pairs:
                        conditional.setdefault(at, ((entry.reason, entry.raises, line), set()))[1].update(pairs)
                    elif not _recorded_only(entry, node):
                        output = entry.cause if entry.cause and self._under_a_branch(at, line) else ""
                        note(at, (entry.reason, entry.raises, line), output)
                reads = receiver is not None and (receiver != "" or name not in self.bound or name in self.imports)
                if (direct[at] is None or rare[at]) and reads and name in TENSOR_READ_NAMES:
                    found = self._tensor_read(line, name, receiver or "", start + len(name))
                    if found is not None:
                        note(at, (found.reason, found.raises, line))
            if name == "getattr" and receiver == "" and self.found.dispatch and name not in self.bound:
                per_unit[at].update(("s", "", method) for method in self._dispatched(line))
            call = self._kept(name, receiver, instances[at]) if receiver is not None else None
            if call is None and receiver == "" and name == firsts[at] and name not in self.bound:
                call, wraps[at] = ("n", "", name), name
            if call is not None:
                per_unit[at].add(call)
        for line in sorted({lines.line_of(end) for end in condition_call_ends(self.text)}):
            at = self.unit_at(line)
            if at is not None and (direct[at] is None or rare[at]) and not cold.holds(line):
                if self._branches_on_tensor(line):
                    note(at, (CONDITION.reason, CONDITION.raises, line))
        for line in sorted({lines.line_of(start) for start in mask_index_starts(self.text)}):
            at = self.unit_at(line)
            if at is not None and (direct[at] is None or rare[at]) and not cold.holds(line):
                if self._indexes_by_mask(line):
                    note(at, (MASK_INDEX.reason, MASK_INDEX.raises, line))
        for line in sorted({lines.line_of(start) for start in index_read_starts(self.text)}):
            at = self.unit_at(line)
            if at is not None and (direct[at] is None or rare[at]) and not cold.holds(line):
                read = self._index_read(line)
                if read:
                    entry = SLICE_READ if read == "slice" else INDEX_READ
                    note(at, (entry.reason, entry.raises, line))
        blocks = [False] * len(self.units)
        for match in _BLOCK_WORDS.finditer(self.text):
            at = self.unit_at(lines.line_of(match.start()))
            if at is not None:
                blocks[at] = True
        marks = [False] * len(self.units)
        for match in re.finditer(CONSTANT_MARK, self.text):
            at = self.unit_at(lines.line_of(match.start()))
            if at is not None:
                marks[at] = True
        units = tuple(
            self._unit(
                index,
                per_unit[index],
                direct[index],
                instances[index],
                blocks[index],
                marks[index],
                wraps[index],
                rare_output=rare[index],
            )
            if direct[index] is not None or index not in conditional
            else self._unit(
                index,
                per_unit[index],
                conditional[index][0],
                instances[index],
                blocks[index],
                marks[index],
                wraps[index],
                tuple(sorted(conditional[index][1])),
            )
            for index in range(len(self.units))
        )
        return FileSummary(
            self.path,
            self.module,
            tuple(self.imports.items()),
            units,
            tuple(self._classes()),
            tuple(compiled),
            tuple((var, tuple(sorted(attrs))) for var, attrs in self.found.loop_aliases.items()),
        )

    def _kept(self, name: str, receiver: str, instances: dict[str, str]) -> Optional[Call]:
        """The call as the index keeps it, or None when it cannot reach the scanned tree."""
        if not receiver:
            return ("n", "", name) if name in self.bound else None
        if receiver == "self":
            return ("s", "", name)
        head = receiver.partition(".")[0]
        if head == "self" or head in self.bound or head in instances:
            return ("d", receiver, name)
        return None

    def _unit(
        self,
        index: int,
        calls: set[Call],
        direct: Optional[tuple[str, bool, int]],
        instances: dict[str, str],
        holds: bool,
        marks: bool,
        wraps: str = "",
        distinct: tuple[tuple[str, str], ...] = (),
        rare_output: str = "",
    ) -> UnitSummary:
        d = self.units[index]
        decorators = tuple(name for name in (dotted(_callee(dec)) for dec in d.node.decorator_list) if name)
        return UnitSummary(
            d.qualname,
            d.cls,
            d.first,
            d.last,
            tuple(sorted(calls)),
            direct,
            self._compiled_by_decorator(d),
            decorators,
            marks,
            tuple(sorted(instances.items())),
            holds,
            wraps,
            distinct,
            _call_parameters(d) if distinct else (),
            rare_output,
        )

    def _under_a_branch(self, at: int, line: int) -> bool:
        """The statement on ``line`` runs in a branch of an ``if`` of unit ``at`` (not in its test)."""
        body = self.units[at].node.body
        while True:
            stmt = next((s for s in body if s.lineno <= line <= (s.end_lineno or s.lineno)), None)
            if stmt is None:
                return False
            block = next((b for b in _blocks(stmt) if b and b[0].lineno <= line <= (b[-1].end_lineno or 0)), None)
            if block is None:
                return False
            if isinstance(stmt, ast.If):
                return True
            body = block

    def _after_identity(self, at: int, line: int, name: str) -> set[tuple[str, str]]:
        """The pairs ``(a, b)`` of parameters of unit ``at`` such that each call of ``name`` on
        ``line`` runs only after ``a is b`` was false for one of them; empty when some call of it
        there runs otherwise (the text search cannot tell which of them it found)."""
        stmt = _statement_at(self.tree.body, line)
        if stmt is None:
            return set()
        params = {a.arg for a in _all_args(self.units[at].node)}
        pairs = set()
        for part in expressions_of(stmt):
            for node in ast.walk(part):
                if isinstance(node, ast.Call) and _ends_with(node.func, name, line):
                    pair = runs_only_if_distinct(stmt, node)
                    if pair is None or not set(pair) <= params:
                        return set()
                    pairs.add(pair)
        return pairs

    def _dispatched(self, line: int) -> tuple[str, ...]:
        """The methods ``getattr(self, TABLE[key])`` may fetch (also ``type(self)``, ``TABLE.get(key)``),
        with ``TABLE`` a module-level dict of method names: ``generate`` picks its decoding loop so."""
        call = self.call_at(line, "getattr")
        if call is None or len(call.args) < 2 or not _is_self(call.args[0]):
            return ()
        key = call.args[1]
        if isinstance(key, ast.Subscript):
            table = key.value
        elif isinstance(key, ast.Call) and isinstance(key.func, ast.Attribute) and key.func.attr == "get":
            table = key.func.value
        else:
            return ()
        return self.found.dispatch.get(table.id, ()) if isinstance(table, ast.Name) else ()

    def _compiled_by_decorator(self, unit: _Def) -> str:
        """Why compile runs the unit: it, or a function nested in it, is decorated with ``torch.compile``."""
        for d in self.decorated.get(unit.qualname, ()):
            if not unit.first <= d.first <= unit.last:
                continue
            if any(self.qualify(dotted(_callee(dec)) or "") in COMPILE for dec in d.node.decorator_list):
                return (
                    "decorated with torch.compile"
                    if d.unit
                    else f"`{d.node.name}` in it is decorated with torch.compile"
                )
        return ""

    def _compile_call(self, line: int, receiver: str, name: str, unit: str, out: list[tuple[str, str, int]]) -> None:
        """Record ``torch.compile(x)`` (any spelling the imports allow) with ``x`` a dotted name."""
        if self.qualify(f"{receiver}.{name}" if receiver else name) not in COMPILE:
            return
        call = self.call_at(line, name)
        if call is None or not call.args:
            return
        target = dotted(call.args[0])
        if target:
            out.append((unit, target, line))

    def _instances(self) -> list[dict[str, str]]:
        """Per unit: ``x = Cls(...)`` in it, x -> dotted ``Cls``."""
        found: list[dict[str, str]] = [{} for _ in self.units]
        for node in self.found.assigns:
            if not isinstance(node.value, ast.Call):
                continue
            cls = dotted(node.value.func)
            at = self.unit_at(node.lineno)
            if at is None or not cls or not class_like(cls.rpartition(".")[2]):
                continue
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found[at][target.id] = cls
        return found

    def _named_per_unit(self, submodules: dict[str, dict[str, set[str]]]) -> list[dict[str, set[str]]]:
        """Per unit: local name -> the classes it names (``cls = TYPES[kind]``) or the modules the
        list it names holds (``layers.append(cls(config))``), over the module's tables of classes;
        ``self.layers.append(Block(...))`` adds to ``submodules`` as an assignment would."""
        found: list[dict[str, set[str]]] = [dict(self.found.class_tables) for _ in self.units]
        for node in sorted(self.found.builds, key=lambda n: (n.lineno, n.col_offset)):
            at = self.unit_at(node.lineno)
            if at is None:
                continue
            local = found[at]
            if isinstance(node, ast.Assign):
                value = node.value
                classes = (
                    _classes_called(value, local)
                    if isinstance(value, (ast.List, ast.ListComp))
                    else classes_named(value, local)
                )
                for target in node.targets if classes else ():
                    if isinstance(target, ast.Name):
                        local.setdefault(target.id, set()).update(classes)
                continue
            call = node.value if isinstance(node, ast.Expr) else None
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
                continue
            classes = set().union(*(_classes_called(arg, local) for arg in call.args)) if call.args else set()
            receiver = call.func.value
            cls = self.units[at].cls
            if classes and isinstance(receiver, ast.Name):
                local.setdefault(receiver.id, set()).update(classes)
            elif classes and cls is not None and isinstance(receiver, ast.Attribute):
                submodules.setdefault(cls, {}).setdefault(receiver.attr, set()).update(classes)
        return found

    def _classes(self) -> list[ClassSummary]:
        methods: dict[str, set[str]] = {}
        for d in self.found.defs:
            if d.cls is not None:
                methods.setdefault(d.cls, set()).add(d.node.name)
        submodules: dict[str, dict[str, set[str]]] = {}
        named = self._named_per_unit(submodules)
        for assign in self.found.assigns:
            attrs = [
                t.attr
                for t in assign.targets
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
            ]
            at = self.unit_at(assign.lineno) if attrs else None
            cls = self.units[at].cls if at is not None else None
            if cls is None or at is None:
                continue
            called = _classes_called(assign.value, named[at])
            for attr in attrs if called else ():
                submodules.setdefault(cls, {}).setdefault(attr, set()).update(called)
        found = []
        for qualname, node in self.found.classes:
            bases = tuple(b for b in (dotted(_subscripted(base)) for base in node.bases) if b)
            subs = submodules.get(qualname, {})
            found.append(
                ClassSummary(
                    qualname,
                    node.lineno,
                    bases,
                    frozenset(methods.get(qualname, ())),
                    tuple((attr, tuple(sorted(names))) for attr, names in sorted(subs.items())),
                )
            )
        return found


def _arity_fits(entry: BreakCall, call: ast.Call) -> bool:
    """The call has the positional arguments the entry asks for (``torch.where(c)``, not ``torch.where(c, a, b)``)."""
    if entry.arity is None:
        return True
    if call.keywords or any(isinstance(arg, ast.Starred) for arg in call.args):
        return False
    return len(call.args) == entry.arity


class _LineIndex:
    """Line numbers of offsets in a text, and offsets of lines."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        self.starts.extend(m.end() for m in re.finditer("\n", text))

    def line_of(self, offset: int) -> int:
        return bisect_right(self.starts, offset)

    def in_comment(self, offset: int) -> bool:
        """The line of ``offset`` is a comment up to it."""
        start = self.starts[self.line_of(offset) - 1]
        return self.text[start:offset].lstrip().startswith("#")


class _Spans:
    """Whether a line is in one of some (first, last) line spans that do not overlap."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        self.spans = sorted(spans)
        self.firsts = [first for first, _ in self.spans]

    def holds(self, line: int) -> bool:
        at = bisect_right(self.firsts, line) - 1
        return at >= 0 and self.spans[at][1] >= line


def _outermost(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans not inside another (``except`` clauses nest), for :class:`_Spans`."""
    kept: list[tuple[int, int]] = []
    for first, last in sorted(spans):
        if kept and first <= kept[-1][1]:
            kept[-1] = (kept[-1][0], max(kept[-1][1], last))
        else:
            kept.append((first, last))
    return kept


def _calls(text: str) -> Iterator[tuple[int, Optional[str], str]]:
    """(offset of the name, receiver, name) of every ``name(`` written in ``text``.

    The receiver is "" for a bare call, the chain of names before it
    (``self.attn``), ``super()``, or None when something else is written
    there (``f().x(``, ``a[0].x(``). Definitions (``def f(``) and keywords
    are left out.
    """
    reversed_text = text[::-1]
    size = len(text)
    for match in _REVERSED_CALL.finditer(reversed_text):
        name = normal(match.group(1)[::-1])
        if name[0].isdigit() or keyword.iskeyword(name):
            continue
        start = size - match.end(1)
        chain = match.group(2)
        end = match.end()
        receiver: Optional[str] = ""
        if chain:
            receiver = normal(re.sub(r"[\s.]+", ".", chain[::-1]).strip("."))
            if receiver[0].isdigit():
                continue
        if _REVERSED_SUPER.match(reversed_text, end) and not chain:
            receiver = "super()"
        elif end < size and reversed_text[end] in ".)]":
            receiver = None  # ``f().x(``: the chain does not start at a name
        elif not chain and _REVERSED_DEFINING.match(reversed_text, end):
            continue
        yield start, receiver, name


def _no_arguments(text: str, name_end: int) -> bool:
    """Nothing is written between the parentheses of the call whose name ends at ``name_end``."""
    at = text.find("(", name_end) + 1
    while at < len(text) and text[at] in " \t\n\\":
        at += 1
    return text[at : at + 1] == ")"


def _ends_with(func: ast.expr, name: str, line: int) -> bool:
    if isinstance(func, ast.Name):
        return func.id == name and func.lineno == line
    if isinstance(func, ast.Attribute):
        return func.attr == name and (func.end_lineno or func.lineno) == line
    return False


def _is_self(node: ast.expr) -> bool:
    """``self``, ``type(self)`` or ``self.__class__``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type" and node.args:
        node = node.args[0]
    elif isinstance(node, ast.Attribute) and node.attr == "__class__":
        node = node.value
    return isinstance(node, ast.Name) and node.id == "self"


def _callee(node: ast.expr) -> ast.expr:
    """``torch.compile`` of ``@torch.compile(mode=...)``."""
    return node.func if isinstance(node, ast.Call) else node


def _subscripted(node: ast.expr) -> ast.expr:
    """``Generic`` of ``Generic[T]``."""
    return node.value if isinstance(node, ast.Subscript) else node


def _classes_called(value: ast.expr, named: dict[str, set[str]]) -> set[str]:
    """Dotted names of the calls whose last name is capitalised that build ``value``
    (``Block(...)``, ``nn.ModuleList([Block(...) for _ in ...])``, ``A() if c else B()``), with
    what ``named`` says local names name or hold (``cls(config)``, ``TYPES[kind](config)``,
    ``nn.ModuleList(layers)``)."""
    found = set()
    stack: list[ast.AST] = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call):
            name = dotted(node.func)
            if name and class_like(name.rpartition(".")[2]):
                found.add(name)
            elif not name or name in named:
                found |= classes_named(node.func, named)
            stack.extend(node.args)
        elif isinstance(node, ast.Name):
            found |= named.get(node.id, set())
        elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            stack.extend(node.elts)
        elif isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
            stack.append(node.elt)
        elif isinstance(node, ast.IfExp):
            stack.extend((node.body, node.orelse))
        elif isinstance(node, (ast.Starred, ast.keyword)):
            stack.append(node.value)
    return found


def _grows_a_list(value: ast.expr) -> bool:
    """``layers.append(...)``, ``self.layers.extend(...)``."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)):
        return False
    receiver = value.func.value
    return value.func.attr in _LIST_GROWERS and (
        isinstance(receiver, ast.Name)
        or (
            isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name) and receiver.value.id == "self"
        )
    )


def summarise(
    text: str, path: str, module: Optional[str] = None, tree: Optional[ast.Module] = None
) -> Optional[FileSummary]:
    """The index's summary of one file; None when Python cannot parse it."""
    if tree is None:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _Reader(text, tree, path, module if module is not None else module_name(path)).summarise()


def _all_args(func: Def) -> list[ast.arg]:
    args = func.args
    return [*args.posonlyargs, *args.args, *args.kwonlyargs]


def _call_parameters(d: _Def) -> tuple[str, ...]:
    """A unit's positional parameters as a call fills them: without ``self`` for a method
    (keywords bind by name)."""
    args = d.node.args
    positional = [a.arg for a in (*args.posonlyargs, *args.args)]
    static = any(dotted(dec) == "staticmethod" for dec in d.node.decorator_list)
    return tuple(positional[1:] if d.cls is not None and not static else positional)


def _recorded_only(entry: BreakCall, call: ast.Call) -> bool:
    """Whether the call counts only where a run recorded it, as the break analysis reads it."""
    return counts_only_where_recorded(entry, *_notice_text(call))


def _notice_text(call: ast.Call) -> tuple[str, str]:
    """The literal text of an output call's message (its first argument) and the last name of
    its warning category (a second positional argument or ``category=``)."""
    positional = [arg for arg in call.args if not isinstance(arg, ast.Starred)]
    message = " ".join(_literal_parts(positional[0])) if positional else ""
    given = next((kw.value for kw in call.keywords if kw.arg == "category"), None)
    if given is None and len(positional) > 1:
        given = positional[1]
    category = (dotted(given) or "").rpartition(".")[2] if given is not None else ""
    return message, category


def _literal_parts(expr: ast.expr) -> list[str]:
    """The literal pieces of a string expression (concatenations are one constant; f-string parts)."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return [expr.value]
    if isinstance(expr, ast.JoinedStr):
        return [part.value for part in expr.values if isinstance(part, ast.Constant) and isinstance(part.value, str)]
    return []
