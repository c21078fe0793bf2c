"""What the prefilter knows about one file from Python's own parser, computed on first use.

Statements (functions, classes, blocks, imports, assignments) come from
``ast``; calls from one regular expression over the text (an identifier
followed by ``(``, with its line): walking every expression node in Python
would cost three times the parse. "May break" over-approximates the libcst
break analysis (:mod:`codemods.analysis.breaks.cst`) on purpose, reading the
same catalogue (:mod:`codemods.analysis.catalogue`): a catalogue call is
matched by its last name and what is written just before it (a receiver
named like the catalogue's module, an import of it, a logger-like name; a
receiver it cannot read counts); a call counts in every function and block
whose lines hold it; same-module calls are followed as the break analysis
does (bare names to functions and classes, ``self.x`` to methods and
submodules, loop variables over submodules) but by name, to a fixpoint.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Optional, Union

from codemods.analysis.astnodes import (
    CALL_REST,
    classes_named,
    dotted,
    expressions_of,
    long_docstring,
    loop_submodule,
    normal,
    word_ends,
)
from codemods.analysis.breaks.ast import (
    condition_call_ends,
    index_read_starts,
    parameter_slice_starts,
    reads_a_bound_name,
    reads_a_truth,
)
from codemods.analysis.catalogue import (
    ARITY_OF_LAST,
    BOOL_MARK,
    CONDITION_CALLS,
    LOGGER_METHOD_NAMES,
    LOGGER_RECEIVER_LASTS,
    MASK_BINDING,
    MASK_LINE,
    METHOD_NAMES,
    NAME_INDEX,
    OUTPUT_NAMES,
    OUTPUT_QUALIFIED,
    PARENTS_OF_LAST,
    QUALIFIED_NAMES,
    SCREEN_WATCHED_NAMES,
    TENSOR_ARG_NAMES,
    TENSOR_ARG_OF_LAST,
    TENSOR_READ_NAMES,
    TENSOR_READ_PARENTS,
    TENSOR_READ_REST,
)
from codemods.analysis.names import class_like
from codemods.analysis.reach import ProjectFacts
from codemods.analysis.scalar_index import INDEXABLE_CLASSES
from codemods.analysis.tensors.ast import annotation_is_tensor
from rewriter.prefilter.text import (
    ALIAS_REST,
    CALL,
    INT_TUPLE,
    KEYWORD_ARGUMENT,
    before,
    call_arguments,
    has_word,
    method_receivers,
    whole_words,
)

#: statement kinds a rule may name in ``Prefilter.holders`` -> stdlib ast classes
HOLDER_KINDS: dict[str, tuple[type[ast.AST], ...]] = {
    "for": (ast.For, ast.AsyncFor),
    "while": (ast.While,),
    "with": (ast.With, ast.AsyncWith),
    "try": (ast.Try, *((ast.TryStar,) if hasattr(ast, "TryStar") else ())),
    # a simple statement whose lines write `for` (a comprehension), see `_collect`
    "comprehension": (),
}
#: the candidates of a rule about output calls in compiled code: the functions (not nested in
#: another) whose calls may reach an output call (``print``, ``warnings.warn``, a logging call)
OUTPUT_KIND = "output"
#: the word each holder kind is written with
OPENING_WORD = {"for": "for", "while": "while", "with": "with", "try": "try", "comprehension": "for"}
#: simple statements a comprehension may sit in
_COMPREHENSION_HOSTS = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return)
_HOLDER_KIND_OF = {cls: kind for kind, classes in HOLDER_KINDS.items() for cls in classes}
DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_FORS = (ast.For, ast.AsyncFor)
#: calling a class by name may run these (``with Timer():`` runs the last two)
CLASS_CALL_METHODS = frozenset({"__init__", "__enter__", "__exit__"})
#: calling a submodule attribute (``self.attr(x)``) runs one of these
SUBMODULE_METHODS = frozenset({"forward", "__call__"})
#: simple statements a skeleton may blank at module or class level
_BLANKABLE = frozenset({ast.Assign, ast.AnnAssign, ast.Expr})


def _last_name(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


#: ``m.compile()``: a module compiled in place, with no argument
_COMPILE_METHOD = re.compile(r"\.\s*compile\s*\(\s*\)")
#: methods that add elements to a list
_LIST_GROWERS = frozenset({"append", "extend", "insert"})
#: a name grown like a list, as text: ``x += ``, ``x = [``, ``x.append(`` (what :data:`_LIST_GROWERS` call)
_GROWN = re.compile(r"\b(\w+)\s*(?:\+=|=\s*\[|\.\s*(?:append|extend|insert)\s*\()")
_NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _classes_called(node: ast.AST, named: dict[str, set[str]]) -> set[str]:
    """Class-like names called anywhere in ``node``: ``Block(...)``, or through a name or a table
    ``named`` knows (``cls(config)``, ``TYPES[kind](config)``)."""
    found: set[str] = set()
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            found |= classes_named(call.func, named)
    return found


def _through(value: ast.expr, found: dict[str, list[tuple[int, set[str]]]]) -> list[tuple[int, set[str]]]:
    """The statements that made the local names ``value`` calls or reads name classes: a skeleton
    keeps them with the statement that builds the submodule (``cls = TYPES[kind]`` before
    ``layers.append(cls(config))``)."""
    return [entry for name in sorted(_names_read(value) | _callee_names(value)) for entry in found.get(name, ())]


def _callee_names(node: ast.AST) -> set[str]:
    """Bare names called, or subscripted and called, in ``node`` (``cls(...)``, ``TYPES[k](...)``)."""
    found = set()
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            func = call.func.value if isinstance(call.func, ast.Subscript) else call.func
            if isinstance(func, ast.Name):
                found.add(func.id)
    return found


#: ``self.attr(``, ``self.attr.method(``, or ``in self.attr`` (``in enumerate(self.attr``): a submodule used
_SUBMODULE_USE = re.compile(r"\bself\.(\w+)\s*(?:\(|\.\s*\w+\s*\()|\bin\s+(?:\w+\()?self\.(\w+)\b")


def _on_self_attribute(text: str, name_start: int, receiver: Optional[str]) -> bool:
    """The call whose name starts at ``name_start`` is written ``self.<receiver>.<name>(``."""
    if not receiver:
        return False
    window = text[max(0, name_start - len(receiver) - 24) : name_start]
    return "self" in window and _SELF_RECEIVER.search(window) is not None and window.rstrip(" .\t").endswith(receiver)


#: ``self.<attribute> .`` right before a method's name
_SELF_RECEIVER = re.compile(r"\bself\s*\.\s*\w+\s*\.\s*\Z")


def _parameters(func: Union[ast.FunctionDef, ast.AsyncFunctionDef]) -> set[str]:
    args = func.args
    return {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}


def _base_names(cls: ast.ClassDef) -> set[str]:
    """The last names of a class's bases, as written."""
    return {name.rpartition(".")[2] for name in (dotted(base) for base in cls.bases) if name}


def _is_super_init(call: ast.Call) -> bool:
    """``super().__init__(...)``."""
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "__init__"
        and isinstance(func.value, ast.Call)
        and isinstance(func.value.func, ast.Name)
        and func.value.func.id == "super"
    )


def _names_read(node: ast.expr) -> set[str]:
    """Bare names an expression reads, not as the callee of a call (``nn.ModuleList(model)``: ``model``)."""
    called = {id(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)}
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and id(n) not in called}


@dataclass
class _Def:
    first: int  # first line, decorators included
    last: int
    name: str
    #: defined directly in a class body outside any function (reached as ``self.name``)
    method: bool
    #: not inside a function: the unit a skeleton keeps or blanks
    unit: bool
    node: Union[ast.FunctionDef, ast.AsyncFunctionDef]
    #: the qualified name of its unit (its own for a unit): ``Block.forward``
    qualname: str = ""
    #: the qualified name of the class it is a method of
    cls: Optional[str] = None


class ScreenFacts:
    """What the structural stage knows about one file, computed on first use.

    A file Python cannot parse answers True to every question, and
    :meth:`python_error` says why: the engine reports that error with its
    line and never shows libcst the file.
    """

    def __init__(self, text: str, tree: Optional[ast.Module] = None, project: Optional[ProjectFacts] = None) -> None:
        """``tree``: Python's parse of ``text``, when the caller has it already; ``project``: what
        the scanned tree says about the file (which functions compiled code reaches, which
        calls into other files break), read as the break analysis and the rules read it."""
        # Python counts \r\n and \r as one line end; so must the call lines.
        self.text = text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text
        self._tree = tree
        self._parsed = False
        self._valid = False
        self._error: Optional[Exception] = None
        self._calls: Optional[list[tuple[int, str, int]]] = None
        self._call_lines: Optional[list[int]] = None
        self._newline_offsets: Optional[list[int]] = None
        self._analysed = False
        self._unit_spans: Optional[tuple[list[int], list[tuple[int, int, str]]]] = None
        self._may_break: Optional[bool] = None
        self._masks: Optional[list[int]] = None
        self._output_reaching: Optional[set[int]] = None
        #: (qualified name, decorators) -> the answer of :meth:`calls`
        self._calls_of: dict[tuple[str, bool], bool] = {}
        self.project = project

    # -- questions rules ask -------------------------------------------------------
    def holds_break(self, kinds: Iterable[str]) -> bool:
        """The body of a statement of one of ``kinds``, inside a function, holds a call that may break."""
        wanted = set(kinds)
        unknown = wanted - set(HOLDER_KINDS)
        if unknown:
            raise ValueError(f"unknown Prefilter.holders kind(s): {sorted(unknown)}")
        if not self.may_break_at_all():
            return False  # no call here could break: no need to parse
        if self.project is not None and self.project.nothing_reached:
            return False  # compiled code reaches no loop or block here
        if not self.parse():
            return True
        self.analyse()
        return bool(wanted & self._holder_kinds)

    def calls(self, qualified: str, decorators: bool = True) -> bool:
        """Some call with an argument may be a call of ``qualified`` (``torch.compile(model)``).

        Only the statements on lines where its last name is written are
        looked at. An attribute of that name counts unless it is read from
        a name that only imports of other top-level packages bind
        (``import regex as re``: ``re.compile`` is not ``torch.compile``);
        a bare name counts when an import binds it. With ``decorators``
        false, calls written in a decorator do not count.
        """
        key = (qualified, decorators)
        if key not in self._calls_of:
            self._calls_of[key] = self._find_calls(qualified, decorators)
        return self._calls_of[key]

    def _find_calls(self, qualified: str, decorators: bool) -> bool:
        last = qualified.rsplit(".", 1)[-1]
        top = qualified.split(".", 1)[0]
        if last not in self.text:
            return False
        newlines = self._newlines()
        lines = sorted({bisect_left(newlines, start) + 1 for start in whole_words(self.text, last)})
        if not lines:
            return False
        if not self.parse():
            return True
        imported = last in self.import_paths or "*" in self.import_paths
        for paths in self.import_paths.values():
            if any(p.rpartition(".")[2] == last and p.split(".", 1)[0] == top for p in paths):
                return True  # `from torch import compile as c`: any use of `c` may be it
        for start, end, stmt in self._statements:
            index = bisect_left(lines, start)
            if index == len(lines) or lines[index] > end:
                continue
            for part in expressions_of(stmt):
                if not decorators and any(part is d for d in getattr(stmt, "decorator_list", ())):
                    continue
                for node in ast.walk(part):
                    if not isinstance(node, ast.Call) or not (node.args or node.keywords):
                        continue
                    func = node.func
                    if isinstance(func, ast.Attribute) and func.attr == last:
                        if not self._other_module(func.value, top):
                            return True
                    elif isinstance(func, ast.Name) and func.id == last and imported:
                        return True
        return False

    def _other_module(self, node: ast.AST, top: str) -> bool:
        """``node`` is a name that imports bind only to things outside the package ``top``."""
        if not isinstance(node, ast.Name):
            return False
        paths = self.import_paths.get(node.id) or set()
        return bool(paths) and all(p.split(".", 1)[0] not in (top, "*") for p in paths)

    # -- text ------------------------------------------------------------------------
    def _newlines(self) -> list[int]:
        if self._newline_offsets is None:
            self._newline_offsets = [m.start() for m in re.finditer("\n", self.text)]
        return self._newline_offsets

    def _calls_on(self, first: int, last: Optional[int]) -> list[tuple[int, str, int]]:
        """:meth:`_raw_calls` whose name is on lines ``first`` to ``last``."""
        calls = self._raw_calls()
        if self._call_lines is None:
            self._call_lines = [line for line, _, _ in calls]
        return calls[bisect_left(self._call_lines, first) : bisect_right(self._call_lines, last or first)]

    def _raw_calls(self) -> list[tuple[int, str, int]]:
        """(line, name, offset) of every identifier followed by ``(``."""
        if self._calls is None:
            newlines = self._newlines()
            self._calls = [
                (bisect_left(newlines, m.start(1)) + 1, normal(m.group(1)), m.start(1))
                for m in CALL.finditer(self.text)
            ]
        return self._calls

    def may_break_at_all(self) -> bool:
        """A call of a catalogue name, or an import alias of one, is written somewhere
        (or the scanned tree says some call into another file breaks)."""
        if self._may_break is None and self.project is not None and self.project.external:
            self._may_break = True
        if self._may_break is None:
            text = self.text
            # One search per watched name: Python's regular expressions are slow to try
            # an alternation of words at every position of a file.
            self._may_break = (
                any(
                    CALL_REST.match(text, end) or (name in PARENTS_OF_LAST and ALIAS_REST.match(text, end))
                    for name in SCREEN_WATCHED_NAMES
                    for end in word_ends(text, name)
                )
                or any(
                    TENSOR_READ_REST.match(text, end) or reads_a_bound_name(text, end)
                    for name in TENSOR_READ_NAMES
                    for end in word_ends(text, name)
                )
                or any(True for _ in condition_call_ends(text))
                or bool(self._mask_offsets())
            )
            if not self._may_break and not text.isascii():
                # An identifier is read in its NFKC form: ``ｐrint(`` calls ``print``.
                self._may_break = any(name in SCREEN_WATCHED_NAMES for _, name, _ in self._raw_calls())
        return self._may_break

    def _mask_offsets(self) -> list[int]:
        """Where a subscript may read through a boolean mask, or read a tensor's value as an int
        (:func:`~codemods.analysis.breaks.ast.index_read_starts`), and where a name it reads may
        be bound to one (``mask = x > 0``, ``n = mask.sum()``: a skeleton keeps the binding with
        the subscript)."""
        if self._masks is not None:
            return self._masks
        text = self.text
        found: list[int] = []
        starts = sorted({text.rfind("\n", 0, m.start()) + 1 for m in MASK_LINE.finditer(text)})
        for start in starts:
            end = text.find("\n", start)
            line = text[start : len(text) if end == -1 else end]
            found.extend(start + at for at in _marked_brackets(line))
        bound: dict[str, list[int]] = {}
        for m in MASK_BINDING.finditer(text):
            bound.setdefault(m.group(1), []).append(m.start())
        if bound:
            for m in NAME_INDEX.finditer(text):
                at = bound.get(m.group(1))
                if at is not None:
                    found.append(m.start())
                    found.extend(at)
        found.extend(index_read_starts(text))
        self._masks = found
        return found

    # -- statements ---------------------------------------------------------------------
    def parse(self) -> bool:
        if not self._parsed:
            self._parsed = True
            tree, self._tree = self._tree, None
            if tree is None:
                try:
                    tree = ast.parse(self.text)
                except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
                    self._error = exc
                    return False
            self._collect(tree)
            self._valid = True
        return self._valid

    def python_error(self) -> Optional[Exception]:
        """Why Python's own parser rejects the file (a SyntaxError, or a file too deep for it); None if it does not."""
        return None if self.parse() else self._error

    def _collect(self, tree: ast.Module) -> None:
        """One walk over the statements (expressions are left to the call pattern)."""
        #: module-level names of classes (``TYPES = {"moe": MoE, "mlp": MLP}``) -> the classes
        self._tables: dict[str, set[str]] = {}
        for stmt in tree.body:
            if isinstance(stmt, ast.Assign) and not isinstance(stmt.value, ast.Constant):
                named = classes_named(stmt.value, self._tables)
                for target in stmt.targets if named else ():
                    if isinstance(target, ast.Name):
                        self._tables[target.id] = named
        self.defs: list[_Def] = []
        #: (first line, last line, name) of every class
        self.classes: list[tuple[int, int, str]] = []
        #: (qualified name, node) of every class not inside a function
        self.class_nodes: list[tuple[str, ast.ClassDef]] = []
        #: class name -> method name -> indexes in _defs
        self.members: dict[str, dict[str, list[int]]] = {}
        #: (kind, line spans of the parts that count, (first, last) of the header)
        self._holders: list[tuple[str, list[tuple[int, int]], tuple[int, int]]] = []
        #: (first line, last line, statement) of every statement
        self._statements: list[tuple[int, int, ast.stmt]] = []
        #: bound name -> dotted paths imports bind it to ("*" for a star import)
        self.import_paths: dict[str, set[str]] = {}
        #: ``self.attr = ...Block(...)...``: attr -> (line, capitalised names called there)
        self._submodules: Optional[dict[str, set[str]]] = None
        #: def node id -> its local lists of class instances (:meth:`_built_lists`), once asked
        self._lists: dict[int, dict[str, list[tuple[int, set[str]]]]] = {}
        self._grown: Optional[frozenset[str]] = None
        self.submodule_lines: dict[str, list[int]] = {}
        #: (attrs, assignment) of every ``self.attr = ...``
        self._self_assigns: list[tuple[list[str], ast.Assign]] = []
        #: ``for v in self.attr``: v -> attrs
        self.loop_aliases: dict[str, set[str]] = {}
        self.global_lines: list[int] = []
        #: (first, last line) of every ``if`` test: a condition call there may branch on a tensor
        self._test_spans: list[tuple[int, int]] = []
        assigns: list[ast.Assign] = []
        stores: list[Union[ast.AugAssign, ast.AnnAssign, ast.Delete]] = []
        #: names a class body binds on one line (what GBF001 may read as ``Class.NAME``)
        class_names: set[str] = set()
        # (node, inside a function?, directly in a class body?)
        #: statements a skeleton may blank: (first, last, statement, where: module/class/docstring)
        self.blankable: list[tuple[int, int, ast.stmt, str]] = []
        # (statement, inside a function?, the class whose body (or block in it) holds it,
        #  the qualified name of its unit inside a function, else of the classes around it + ".")
        stack: list[tuple[Any, bool, Optional[str], str]] = [(s, False, None, "") for s in tree.body]
        self._note_docstring(tree.body)
        top = {id(s) for s in tree.body}
        lines = self.text.split("\n")
        while stack:
            node, in_function, owner, prefix = stack.pop()
            cls = node.__class__
            first = node.lineno
            for decorator in getattr(node, "decorator_list", ()):
                first = min(first, decorator.lineno)
            last = node.end_lineno or node.lineno
            self._statements.append((first, last, node))
            if in_function and cls in _COMPREHENSION_HOSTS and _writes_for(lines, first, last):
                self._holders.append(("comprehension", [(first, last)], (first, first)))
            # only values over several lines are worth it, and the names bound stay: a loop may
            # read a module constant or a class's (``range(Block.STEPS)``, see GBF001)
            if (
                cls in _BLANKABLE
                and last > first
                and (id(node) in top or (owner and not in_function))
                and not (cls is ast.Assign and id(node) in top and classes_named(node.value, {}))
            ):  # a module-level table of classes stays: ``TYPES[kind](config)`` builds a submodule
                self.blankable.append((first, last, node, "module" if id(node) in top else "class"))
            if cls in DEFS:
                index = len(self.defs)
                method = owner is not None and not in_function
                qualname = prefix if in_function else prefix + node.name
                self.defs.append(
                    _Def(
                        first,
                        last,
                        node.name,
                        method,
                        not in_function,
                        node,
                        qualname,
                        prefix[:-1] if method else None,
                    )
                )
                if owner is not None:
                    self.members.setdefault(owner, {}).setdefault(node.name, []).append(index)
                stack.extend((s, True, None, qualname) for s in node.body)
                if not in_function:
                    self._note_docstring(node.body)
            elif cls is ast.ClassDef:
                self.classes.append((first, last, node.name))
                self.members.setdefault(node.name, {})
                if not in_function:
                    self.class_nodes.append((prefix + node.name, node))
                inner = prefix if in_function else f"{prefix}{node.name}."
                stack.extend((s, in_function, node.name, inner) for s in node.body)
                if not in_function:
                    self._note_docstring(node.body)
            elif cls in _HOLDER_KIND_OF:
                kind = _HOLDER_KIND_OF[cls]
                parts = [_span(node.body)]
                if cls is ast.While:
                    parts.append((node.test.lineno, node.test.end_lineno or node.test.lineno))
                self._holders.append((kind, parts, (node.lineno, parts[0][0])))
                looped = loop_submodule(node) if cls in _FORS else None
                if looped is not None:
                    self.loop_aliases.setdefault(looped[0], set()).add(looped[1])
                # a def in a block of a class body is still a method of that class
                for field in ("body", "orelse", "finalbody"):
                    stack.extend((s, in_function, owner, prefix) for s in getattr(node, field, ()))
                for handler in getattr(node, "handlers", ()):
                    stack.extend((s, in_function, owner, prefix) for s in handler.body)
            elif cls is ast.If:
                stack.extend((s, in_function, owner, prefix) for s in (*node.body, *node.orelse))
                self._test_spans.append((node.test.lineno, node.test.end_lineno or node.test.lineno))
            elif cls is ast.Match:
                for case in node.cases:
                    stack.extend((s, in_function, owner, prefix) for s in case.body)
            elif cls is ast.Import:
                for alias in node.names:
                    bound = alias.asname or alias.name.split(".", 1)[0]
                    path = alias.name if alias.asname else bound
                    self.import_paths.setdefault(bound, set()).add(path)
            elif cls is ast.ImportFrom:
                for alias in node.names:
                    bound = alias.asname or alias.name
                    path = f"{node.module}.{alias.name}" if node.module else alias.name
                    self.import_paths.setdefault(bound, set()).add(path)
            elif cls is ast.Assign:
                assigns.append(node)
                if owner and not in_function and last == first:
                    class_names.update(t.id for t in node.targets if isinstance(t, ast.Name))
            elif cls in (ast.AugAssign, ast.AnnAssign, ast.Delete):
                stores.append(node)
            elif cls is ast.Global:
                self.global_lines.append(node.lineno)
        self.global_lines.sort()
        #: lines that store to an attribute named like a one-line class constant (``Block.STEPS = 8``):
        #: a skeleton keeps them, or GBF001 would take the class constant for a constant
        self.class_constant_stores = sorted(
            node.lineno
            for node in assigns + stores
            if any(
                isinstance(t, ast.Attribute) and t.attr in class_names
                for t in (node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target])
            )
        )
        #: every assignment, at any depth
        self.assigns = assigns
        self._loggers = set(LOGGER_RECEIVER_LASTS)
        getloggers = {"getLogger"} | {
            bound
            for bound, paths in self.import_paths.items()
            if any(p.rpartition(".")[2] == "getLogger" for p in paths)
        }
        #: lines of assignments from getLogger: a skeleton keeps them
        self.logger_lines: list[int] = []
        for node in assigns:
            targets = [dotted(t) for t in node.targets]
            if isinstance(node.value, ast.Call) and _last_name(node.value.func) in getloggers:
                self._loggers.update(t.rpartition(".")[2] for t in targets if t)
                self.logger_lines.append(node.lineno)
            selfs = [t[5:] for t in targets if t and t.startswith("self.") and t.count(".") == 1]
            if selfs:
                self._self_assigns.append((selfs, node))
        self.logger_lines.sort()
        #: lines of ``self.w = nn.Parameter(...)`` (a module list, a buffer) and ``self.register_buffer(...)``:
        #: what a per-trip function may index with an int (:mod:`codemods.analysis.scalar_index`); a skeleton
        #: keeps them
        self.indexable_lines = sorted(
            [
                node.lineno
                for _, node in self._self_assigns
                if isinstance(node.value, ast.Call) and _last_name(node.value.func) in INDEXABLE_CLASSES
            ]
            + [
                first
                for first, _, node in self._statements
                if isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Call)
                and dotted(node.value.func) == "self.register_buffer"
            ]
        )

    def submodule_map(self) -> dict[str, set[str]]:
        """``self.attr = ...Block(...)...``: attr -> capitalised names called there (on first need)."""
        if self._submodules is None:
            self._submodules = {}
            for selfs, node in self._self_assigns:
                lines = [node.lineno]
                called: set[str] = set()
                if any(
                    class_like(name) and not before(self.text, offset)[0]
                    for _, name, offset in self._calls_on(node.value.lineno, node.end_lineno)
                ):  # else no capitalised bare name is called on its lines (the text's calls hold every call)
                    called = _classes_called(node.value, self._tables)
                read = _names_read(node.value) | _callee_names(node.value)
                grown = self._grown_names()
                if (read | set(selfs)) & (grown | set(self._tables)) or any(
                    not class_like(name) for name in _callee_names(node.value)
                ):
                    # ``self.layers = nn.ModuleList(model)``: the classes the local list was built
                    # from; ``self.mlp = cls(config)``: the classes ``cls`` names
                    built = self._built_lists(node.lineno)
                    named = {**self._tables, **{name: {c for _, cs in got for c in cs} for name, got in built.items()}}
                    called |= _classes_called(node.value, named)
                    for name in [*(read & set(built)), *(f"self.{attr}" for attr in selfs)]:
                        for line, classes in built.get(name, ()):
                            called |= classes
                            lines.append(line)
                if called:
                    for attr in selfs:
                        self._submodules.setdefault(attr, set()).update(called)
                        self.submodule_lines.setdefault(attr, []).extend(lines)
            self._note_handed_in()
        return self._submodules

    def _note_handed_in(self) -> None:
        """``self.layers = layers`` in ``__init__``, for an attribute the file calls: every class
        called in a def that constructs the class (``Encoder(...)``, or ``super().__init__(...)``
        in a subclass), a widening of what the break analysis reads from the call's argument
        (:meth:`codemods.analysis.breaks.cst._Collector._submodules_handed_in`); a skeleton keeps
        the assignment and those defs whole."""
        assert self._submodules is not None
        handed: list[tuple[str, str, int]] = []
        used: Optional[set[str]] = None
        for selfs, node in self._self_assigns:
            value = node.value
            if not isinstance(value, ast.Name) or all(attr in self._submodules for attr in selfs):
                continue
            if used is None:
                # attributes called (``self.attr(``, ``self.attr.infer(``) or iterated (``in self.attr``)
                used = {m.group(1) or m.group(2) for m in _SUBMODULE_USE.finditer(self.text)}
            if not used.intersection(selfs):
                continue
            d = self._def_at(node.lineno)
            if d is None or d.name != "__init__" or d.cls is None or value.id not in _parameters(d.node):
                continue
            handed.extend((d.cls.rpartition(".")[2], attr, node.lineno) for attr in selfs if attr in used)
        if not handed:
            return
        bases = {qualname.rpartition(".")[2]: _base_names(node) for qualname, node in self.class_nodes}
        constructs = self._constructions({cls for cls, _, _ in handed}, bases)
        for cls, attr, line in handed:
            for d, call in constructs.get(cls, ()):
                self._submodules.setdefault(attr, set()).update(_classes_called(d.node, self._tables))
                read = _names_read(call)
                made = [
                    node.lineno
                    for node in ast.walk(d.node)
                    if isinstance(node, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id in read for t in node.targets)
                ]
                self.submodule_lines.setdefault(attr, []).extend((line, call.lineno, *made))

    def _constructions(self, classes: set[str], bases: dict[str, set[str]]) -> dict[str, list[tuple[_Def, ast.Call]]]:
        """For each of ``classes``: the first call in each unit that builds one (``Encoder(...)``),
        or that hands a subclass's ``super().__init__(...)`` to it."""
        found: dict[str, list[tuple[_Def, ast.Call]]] = {}
        named = "|".join(sorted(re.escape(c) for c in classes))
        for d in self.defs:
            if not d.unit:
                continue
            newlines = self._newlines()
            start = newlines[d.first - 2] + 1 if d.first > 1 else 0
            end = newlines[d.last - 1] if d.last - 1 < len(newlines) else len(self.text)
            if not re.compile(rf"\b(?:{named}|super)\s*\(").search(self.text, start, end):
                continue
            owner = (d.cls or "").rpartition(".")[2]
            seen: set[str] = set()
            for call in ast.walk(d.node):
                if not isinstance(call, ast.Call):
                    continue
                if isinstance(call.func, ast.Name) and call.func.id in classes:
                    built = call.func.id
                elif _is_super_init(call):
                    built = next((c for c in classes if c in bases.get(owner, ())), "")
                else:
                    continue
                if built and built not in seen:
                    seen.add(built)
                    found.setdefault(built, []).append((d, call))
        return found

    def _def_at(self, line: int) -> Optional[_Def]:
        """The innermost def around ``line``."""
        inner: Optional[_Def] = None
        for d in self.defs:
            if d.node.lineno <= line <= d.last and (inner is None or d.node.lineno > inner.node.lineno):
                inner = d
        return inner

    def _grown_names(self) -> frozenset[str]:
        """Names the text grows like a list (``x += ``, ``x = [``, ``x.append(``): the only ones
        :meth:`_built_lists` can find classes for."""
        if self._grown is None:
            self._grown = frozenset(m.group(1) for m in _GROWN.finditer(self.text))
        return self._grown

    def _built_lists(self, line: int) -> dict[str, list[tuple[int, set[str]]]]:
        """For the innermost function around ``line``: local name -> (line, classes called) of
        each statement that assigns it a list, adds to it or appends to it (``model = [Conv(...)]``,
        ``model += [Block(...)]``, ``model.append(Block(...))``, ``self.layers.append(...)`` under
        ``self.layers``), or that makes it name classes (``cls = MoE if sparse else MLP``,
        ``cls = TYPES[kind]``), over the module's tables of classes."""
        inner = self._def_at(line)
        if inner is None:
            return {}
        found = self._lists.get(id(inner.node))
        if found is not None:
            return found
        found = self._lists[id(inner.node)] = {}
        builds: list[ast.AST] = []
        stack: list[ast.AST] = list(inner.node.body)
        while stack:
            node = stack.pop()
            if isinstance(node, _NESTED_SCOPES):
                continue
            stack.extend(ast.iter_child_nodes(node))
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.Call)):
                builds.append(node)
        named: dict[str, set[str]] = dict(self._tables)
        for node in sorted(builds, key=lambda n: (n.lineno, n.col_offset)):  # type: ignore[attr-defined]
            targets: list[ast.expr]
            value: ast.expr
            if isinstance(node, ast.Assign) and isinstance(node.value, (ast.List, ast.ListComp)):
                targets, value = node.targets, node.value
            elif isinstance(node, ast.Assign):
                classes = classes_named(node.value, named)
                for target in node.targets if classes else ():
                    if isinstance(target, ast.Name):
                        found.setdefault(target.id, []).extend([(node.lineno, classes), *_through(node.value, found)])
                        named.setdefault(target.id, set()).update(classes)
                continue
            elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add):
                targets, value = [node.target], node.value
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _LIST_GROWERS
                and dotted(node.func.value) is not None
            ):
                targets, value = [node.func.value], node
            else:
                continue
            classes = _classes_called(value, named)
            for target in targets:
                key = target.id if isinstance(target, ast.Name) else dotted(target)
                if classes and key and (isinstance(target, ast.Name) or key.startswith("self.")):
                    found.setdefault(key, []).extend([(node.lineno, classes), *_through(value, found)])
                    named.setdefault(key, set()).update(classes)
        return found

    def _note_docstring(self, body: list[ast.stmt]) -> None:
        first = long_docstring(body)
        if first is not None:
            self.blankable.append((first.lineno, first.end_lineno or first.lineno, first, "docstring"))

    # -- calls -------------------------------------------------------------------------
    def _direct(self, name: str, receiver: Optional[str], dot: bool, sure: bool) -> bool:
        """A call the break catalogue may match."""
        if not sure:
            return True
        if not dot:
            return name in PARENTS_OF_LAST and ("builtins" in PARENTS_OF_LAST[name] or "*" in self.import_paths)
        if name in METHOD_NAMES:
            return True
        if name in LOGGER_METHOD_NAMES and receiver in self._loggers:
            return True
        if name in PARENTS_OF_LAST:
            if receiver in PARENTS_OF_LAST[name]:
                return True
            return any(f"{p}.{name}" in QUALIFIED_NAMES for p in self.import_paths.get(receiver or "", ()))
        return False

    def _keyed_calls(self) -> tuple[list[int], list[str]]:
        """Call lines and keys sorted by line: "" may break by itself, "o" may also be an output
        call (``print``, a logger call…), "n:f" is ``f(...)``, "s:f" is ``self.f(...)``; calls of
        names the module does not define are dropped."""
        aliases = {  # names an import binds to a catalogue call (``from time import time as now``)
            bound for bound, paths in self.import_paths.items() if paths & QUALIFIED_NAMES
        }
        defined = {d.name for d in self.defs} | set(self.members)
        defined |= {attr for attrs, _ in self._self_assigns for attr in attrs}
        defined |= set(self.loop_aliases)
        external = self._external_names()
        text = self.text
        # A docstring's examples (``>>> print(x.item())``) are text: no call there breaks, and
        # none is an output call (:meth:`_docstring_lines` leaves out code beside the quotes).
        text_only = self._docstring_lines()
        text_starts = [a for a, _ in text_only]
        pairs = []
        tests = sorted(self._test_spans)
        test_starts = [start for start, _ in tests]
        for line, name, offset in self._raw_calls():
            watched = name in SCREEN_WATCHED_NAMES
            condition = name in CONDITION_CALLS
            read = name in TENSOR_READ_NAMES
            if not (watched or condition or read or name in aliases or name in defined or name in external):
                continue
            inside = bisect_right(text_starts, line) - 1
            if inside >= 0 and line <= text_only[inside][1]:
                continue  # a docstring's examples (``>>> x.item()``) are text
            dot, receiver, sure = before(text, offset)
            if (
                name in aliases
                or name in external
                or (watched and self._direct(name, receiver, dot, sure) and not self._written_harmless(name, offset))
                or (condition and (_within(tests, test_starts, line) or reads_a_truth(text, offset)))
                or (
                    read
                    and (not dot or receiver in TENSOR_READ_PARENTS.get(name, ()))
                    and (
                        TENSOR_READ_REST.match(text, offset + len(name)) is not None
                        or reads_a_bound_name(text, offset + len(name))
                    )
                    and not self._reads_only_modules(name, offset)
                )
            ):
                pairs.append((line, ""))
                output = name in OUTPUT_NAMES or self.import_paths.get(name, set()) & OUTPUT_QUALIFIED
                if output:
                    pairs.append((line, "o"))
            if not sure:
                pairs.extend(((line, "n:" + name), (line, "s:" + name)))
            elif not dot:
                pairs.append((line, "n:" + name))
            elif receiver == "self" or receiver in self.loop_aliases or _on_self_attribute(text, offset, receiver):
                # ``self.m(``, and a submodule's method: ``layer.infer(`` over ``self.layers``, ``self.decoder.infer(``
                pairs.append((line, "s:" + name))
        newlines = self._newlines()
        outside = self._outside_frames(text_only)
        for offset in set(self._mask_offsets()):
            line = bisect_left(newlines, offset) + 1
            if not outside(line):
                pairs.append((line, ""))
        pairs.sort()
        return [p[0] for p in pairs], [p[1] for p in pairs]

    def _docstring_lines(self) -> list[tuple[int, int]]:
        """(first, last) lines that hold nothing but a docstring's text, sorted: its first line
        when only indentation comes before it, its last when only a comment comes after."""
        lines = self.text.split("\n")
        spans = []
        for first, last, node, kind in self.blankable:
            if kind != "docstring":
                continue
            start = first if not lines[first - 1][: node.col_offset].strip() else first + 1
            rest = lines[last - 1].encode()[node.end_col_offset or 0 :].decode(errors="replace").strip()
            end = last if not rest or rest.startswith("#") else last - 1
            if start <= end:
                spans.append((start, end))
        return sorted(spans)

    def _outside_frames(self, docstrings: list[tuple[int, int]]) -> Callable[[int], bool]:
        """Whether a line holds no code a function's frame runs: a line of a docstring's text
        (:meth:`_docstring_lines`), or the decorators and signature of a function not nested in
        another (its annotations and defaults run at module or class level).
        ``tuple[Tensor, Tensor] | None`` is no mask."""
        spans = sorted(
            list(docstrings)
            + [(d.first, d.node.body[0].lineno - 1) for d in self.defs if d.unit and d.node.body[0].lineno > d.first]
        )
        starts = [a for a, _ in spans]

        def outside(line: int) -> bool:
            at = bisect_right(starts, line) - 1
            return at >= 0 and spans[at][1] >= line  # the spans do not overlap

        return outside

    def _arguments(self, name: str, offset: int) -> Optional[list[str]]:
        return call_arguments(self.text, self.text.find("(", offset + len(name)))

    def _written_harmless(self, name: str, offset: int) -> bool:
        """Whether the arguments as written show that no catalogue entry of ``name`` matches:
        ``torch.where(c, x, y)`` (the entry breaks with one argument), ``F.pad(x, (0, 1))``
        (it breaks on an amount held in a tensor)."""
        arity = ARITY_OF_LAST.get(name)
        tensor_arg = TENSOR_ARG_OF_LAST.get(name)
        if arity is None and tensor_arg is None:
            return False
        args = self._arguments(name, offset)
        if args is None:
            return False
        positional = [a for a in args if not KEYWORD_ARGUMENT.match(a)]
        if arity is not None:
            return len(positional) != arity or len(positional) != len(args)
        assert tensor_arg is not None
        position, keyword = tensor_arg
        named = (a.split("=", 1) for a in args if KEYWORD_ARGUMENT.match(a))
        keywords = {name.strip(): written.strip() for name, written in named}
        value = positional[position] if len(positional) > position else keywords.get(keyword)
        return value is not None and INT_TUPLE.fullmatch(value) is not None

    def _reads_only_modules(self, name: str, offset: int) -> bool:
        """Whether ``int(...)`` reads only calls of ``math`` or ``numpy`` functions
        (``int(math.sqrt(n))``): no tensor is converted there."""
        args = self._arguments(name, offset)
        if args is None:
            return False
        modules = {bound for bound, paths in self.import_paths.items() if paths and paths <= {"math", "numpy"}}
        receivers = method_receivers(" ".join(args))
        return bool(receivers) and all(receiver in modules for receiver in receivers)

    def _external_names(self) -> frozenset[str]:
        """Names whose call may run a callee in another file that breaks: the last names of the
        table's keys, and loop variables over a submodule attribute it names."""
        if self.project is None or not self.project.external:
            return frozenset()
        names = set(self.project.external_names())
        attrs = {key[5:].split("@", 1)[0] for key in self.project.external if key.startswith("self.")}
        names.update(var for var, found in self.loop_aliases.items() if found & attrs)
        return frozenset(names)

    def reachable(self, line: int) -> bool:
        """Whether the function (not nested in another) holding ``line`` is one compiled code reaches."""
        if self.project is None or not self.project.limits:
            return True
        if self._unit_spans is None:
            units = sorted((d.first, d.last, d.qualname) for d in self.defs if d.unit)
            self._unit_spans = ([u[0] for u in units], units)
        firsts, units = self._unit_spans
        at = bisect_right(firsts, line) - 1
        return at >= 0 and units[at][1] >= line and self.project.reach(units[at][2]) is not None

    def analyse(self) -> None:
        """Which defs may break (to a fixpoint), which keys reach them, which holders hold them."""
        if self._analysed:
            return
        self._analysed = True
        lines, keys = self._keyed_calls()

        def between(start: int, end: int) -> set[str]:
            return set(keys[bisect_left(lines, start) : bisect_right(lines, end)])

        self._called = [between(d.first, d.last) for d in self.defs]
        self.broken, self.breaking = self._defs_reaching("")
        breaking = self.breaking

        spans = sorted((d.first, d.last) for d in self.defs)
        starts = [start for start, _ in spans]
        reach: list[int] = []  # the furthest last line of the defs starting up to each start
        for _, end in spans:
            reach.append(max(end, reach[-1]) if reach else end)
        managers = {k for k in breaking if k.startswith("n:") and k[2:] in self.members}
        self._holder_kinds: set[str] = set()
        #: (kind, first line) of every holder that may hold a break, inside a function
        self._candidates: list[tuple[str, int]] = []
        for kind, parts, (head, body) in self._holders:
            index = bisect_right(starts, head) - 1
            if index < 0 or reach[index] < head:
                continue  # module or class level: no frame for Dynamo to skip
            if not self.reachable(head):
                continue  # compiled code never runs it
            if any(between(a, b) & breaking for a, b in parts) or (kind == "with" and between(head, body) & managers):
                self._holder_kinds.add(kind)
                self._candidates.append((kind, head))
        self.between = between

    def _defs_reaching(self, seed: str) -> tuple[set[int], set[str]]:
        """The defs whose calls may reach a call keyed ``seed``, to a fixpoint, and the keys that reach them."""
        breaking = {seed}
        broken: set[int] = set()
        while True:
            new = {i for i, c in enumerate(self._called) if i not in broken and c & breaking}
            if not new:
                return broken, breaking
            broken |= new
            breaking = {seed} | self._reaching(broken)

    def _reaching_output(self) -> set[int]:
        """The defs whose calls may reach an output call (asked by the screen and the skeleton)."""
        if self._output_reaching is None:
            self._output_reaching = self._defs_reaching("o")[0]
        return self._output_reaching

    def _reaching(self, broken: set[int]) -> set[str]:
        """Keys whose call may run one of the ``broken`` defs."""
        keys = set()
        for index in broken:
            d = self.defs[index]
            keys.add(("s:" if d.method else "n:") + d.name)
        for cls, members in self.members.items():
            runs = {m for m, indexes in members.items() if broken.intersection(indexes)}
            if runs & CLASS_CALL_METHODS:
                keys.add("n:" + cls)
            if runs & SUBMODULE_METHODS:
                for attr, classes in self.submodule_map().items():
                    if cls in classes:
                        keys.add("s:" + attr)
                        keys.update("n:" + v for v, attrs in self.loop_aliases.items() if attr in attrs)
        return keys

    # -- what the structural stage concludes --------------------------------------------
    def may_output_in_compiled_code(self) -> bool:
        """An output call (``print``, ``warnings.warn``, a logging call) may run in compiled code.

        Compiled code as :mod:`codemods.analysis.project.compiled_code` reads a file,
        widened: some ``forward`` may reach an output call of this file, or the
        file may compile something (then any function may be compiled here).
        """
        if not self.may_break_at_all():
            return False
        if not self.parse():
            return True
        self.analyse()
        reaching = self._reaching_output()
        if not reaching:
            return False
        return any(self.defs[i].name == "forward" for i in reaching) or self._may_compile()

    def _may_compile(self) -> bool:
        """A ``torch.compile`` call with an argument (a decorator's too), a bare ``@...compile``
        decorator, or a ``.compile()`` call: the entries :mod:`codemods.analysis.project.compiled_code` knows."""
        if "compile" not in self.text:
            return False
        bare = any(
            (dotted(decorator) or "").rpartition(".")[2] == "compile"
            for d in self.defs
            for decorator in d.node.decorator_list
        )
        return bare or _COMPILE_METHOD.search(self.text) is not None or self.calls("torch.compile")

    def argument_readers(self) -> list[int]:
        """Indexes of the defs whose code the break analysis reads to judge an entry that breaks
        only on what an argument holds (``F.pad(x, paddings)``), so a skeleton keeps them whole.

        It reads the function holding such a call (when that function may break) with what
        the file's calls of it hand it (one call deep): so every function that calls one by
        name, and, in their classes, the return annotations of the methods (a caller's
        ``self.m(...)`` of a method annotated to return a tensor) and ``__init__`` (the
        submodules it assigns). Empty when the file holds no such call in a function that
        may break, or does not parse.
        """
        if not self.parse():
            return []
        self.analyse()

        def calls_one_of(d: _Def, names: Iterable[str]) -> bool:
            return any(name in names for _, name, _ in self._calls_on(d.first, d.last))

        reading = {i for i in self.broken if calls_one_of(self.defs[i], TENSOR_ARG_NAMES)}
        # a slice by a parameter (``a[:, :width]``) reads what the calls hand it too
        for line in {bisect_left(self._newlines(), at) + 1 for at in parameter_slice_starts(self.text)}:
            d = self._def_at(line)
            if d is not None:
                reading.add(self.defs.index(d))
        if not reading:
            return []
        # what a module's forward is handed, the inference reads without its callers
        names = {self.defs[i].name for i in reading} - {"forward", "__init__"}
        calling = {i for i, d in enumerate(self.defs) if calls_one_of(d, names)}
        classes = {self.defs[i].cls for i in reading | calling} - {None}
        annotated = {
            i
            for i, d in enumerate(self.defs)
            if d.cls in classes and (annotation_is_tensor(d.node.returns) or d.name == "__init__")
        }
        return sorted(reading | calling | annotated)

    def breaking_functions(self) -> list[int]:
        """The ``def`` line of every function that may break (empty when the file does not parse)."""
        if not self.parse():
            return []
        self.analyse()
        return sorted(self.defs[index].node.lineno for index in self.broken)

    def candidates(self) -> list[tuple[str, int]]:
        """(kind, header line) of every loop, ``with`` or ``try`` inside a function that may hold a break."""
        if not self.parse():
            return []
        self.analyse()
        return sorted(self._candidates)

    def candidate_units(self, kinds: Iterable[str], focus: Optional[Sequence[tuple[int, int]]] = None) -> list[int]:
        """Indexes of the functions (not nested in another) holding a candidate of ``kinds``,
        only those overlapping ``focus`` when given."""
        if not self.parse():
            return []
        self.analyse()
        wanted = set(kinds)
        units = sorted((i for i, d in enumerate(self.defs) if d.unit), key=lambda i: self.defs[i].first)
        firsts = [self.defs[i].first for i in units]
        heads = [head for kind, head in self._candidates if kind in wanted]
        if OUTPUT_KIND in wanted:
            heads += [self.defs[i].first for i in self._reaching_output()]
        found = []
        for head in heads:
            at = bisect_right(firsts, head) - 1
            if at >= 0 and self.defs[units[at]].last >= head:
                d = self.defs[units[at]]
                if focus is None or any(a <= d.last and d.first <= b for a, b in focus):
                    found.append(units[at])
        return found

    def output_stays_in_functions(self) -> bool:
        """Whether a rule about output calls in compiled code finds and fixes them inside the
        functions that reach one (:data:`OUTPUT_KIND`): the file compiles nothing and sets no
        Dynamo option, so no fix goes to a compile site and no setting covers a call."""
        return "_dynamo" not in self.text and self.parse() and not self._may_compile()


_STORE = re.compile(r"[ \t]*=(?!=)")


def _marked_brackets(line: str) -> Iterator[int]:
    """Offsets of the ``[`` of ``line`` whose brackets hold what a bool tensor is written with:
    a subscript read through a mask is written inside its brackets (``x[x > 0]``), and ``a[0] == b``,
    ``tuple[Tensor] | None`` or ``x[~m] = 0`` is none. A ``[`` that does not close on the line, or whose
    brackets hold a quote (a ``]`` in a string), is searched to the end of the line."""
    at = line.find("[")
    while at != -1:
        depth, end = 0, len(line)
        for index in range(at, len(line)):
            char = line[index]
            if char in "([{":
                depth += 1
            elif char in ")]}":
                depth -= 1
                if depth == 0:
                    end = index if char == "]" else len(line)  # a stray closer: no telling where it ends
                    break
            elif char in "\"'":
                end = len(line)
                break
        # ``x[mask] = v`` stores through the mask, which traces (as ``index_put``)
        stored = end < len(line) and _STORE.match(line, end + 1) is not None
        if not stored and BOOL_MARK.search(line, at + 1, end):
            yield at
        at = line.find("[", at + 1)


def _span(body: list[ast.stmt]) -> tuple[int, int]:
    """First and last line of a statement list, decorators included."""
    first = body[0].lineno
    for decorator in getattr(body[0], "decorator_list", ()):
        first = min(first, decorator.lineno)
    return first, body[-1].end_lineno or body[-1].lineno


def _within(spans: list[tuple[int, int]], starts: list[int], line: int) -> bool:
    """``line`` lies in one of the sorted, non-overlapping ``spans``."""
    index = bisect_right(starts, line) - 1
    return index >= 0 and spans[index][1] >= line


def _writes_for(lines: list[str], first: int, last: int) -> bool:
    """The word ``for`` is written on lines ``first`` to ``last`` (a comprehension may be there)."""
    return any(has_word(lines[n - 1], "for") for n in range(first, min(last, len(lines)) + 1))


def first_line(stmt: ast.stmt) -> int:
    first = stmt.lineno
    for decorator in getattr(stmt, "decorator_list", ()):
        first = min(first, decorator.lineno)
    return first
