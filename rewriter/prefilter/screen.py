"""The cheap stages before libcst: which files, and which functions, can hold a finding.

libcst parsing costs about ten times Python's own parser, and the scope and
qualified-name metadata the rules need several times more, while most of a
real repository holds nothing any rule acts on. So each file goes through
cheap stages first, and libcst sees only what survives them:

1. Text. Each rule names plain-text fragments (``Rule.SCREEN``: ``for ``,
   ``compile``…); a rule about graph breaks (``NEEDS_BREAK``) also needs a
   call of the break catalogue. A rule that declares ``SCREEN_HOLDERS`` is
   screened by the words of those statements (``while(x):`` has no
   ``while `` in it) and by the call pattern below.
2. Structure. A rule may declare what its findings are made of
   (``Rule.SCREEN_HOLDERS``: the body of a loop/``with``/``try`` inside a
   function holds a call that may break; ``Rule.SCREEN_CALLS``: a reference
   to, say, ``torch.compile``) or override ``Rule.screen_ast``. A rule that
   declares nothing gets every file: the screen never guesses for a rule.
   Rules that pass run; the others would find nothing here.
3. Functions. When every rule that passed declares ``SCREEN_HOLDERS``,
   libcst gets a skeleton of the file: the same lines, with what cannot
   matter blanked. Kept whole: every function or method holding a
   candidate statement, and every one holding a nested definition named
   like something called, a ``global`` or a logger assignment the break
   analysis reads. Functions a kept one may call, and that may break, keep
   only what decides whether and why they break; one that assigns a
   submodule a kept one calls (``self.block = Block()``) keeps those
   assignments. Every other function becomes ``def name(): ...``;
   docstrings, multi-line values at module level and every statement but
   a definition at class level become ``...`` (module level keeps the names
   it binds). The rewritten skeleton gets the blanked text back; if it
   cannot be found intact the file is done again in full.

Stage 2 takes statements (functions, classes, blocks, imports,
assignments) from Python's own parser and calls from one regular
expression over the text: an identifier followed by ``(`` (blanks,
backslash-newlines, comments and ``)`` allowed in between), with its line.
Walking every expression node in Python would cost three times the parse.
Text in strings and comments only adds calls, which only lets more through.

"May break" over-approximates :mod:`codemods.analysis.breaks` on purpose: a
catalogue call is matched by its last name and what is written just before
it (a receiver named like the catalogue's module, an import of it, a
logger-like name; a receiver it cannot read counts); a call counts in every
function and block whose lines hold it; same-module calls are followed as
the break analysis does (bare names to functions and classes, ``self.x`` to
methods and submodules, loop variables over submodules) but by name, to a
fixpoint. tests/test_screen.py runs the engine with and without the screen
on the golden corpus and on generated files and requires the same results.
A catalogue entry of a kind this module does not model turns it off.
"""

from __future__ import annotations

import ast
import re
import unicodedata
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import Iterable, Iterator, Optional, Sequence

from codemods.analysis.catalogue import CATALOGUE, LOGGER_NAMES, SCREEN_TOKENS
from codemods.rules.registry import REGISTRY

#: statement kinds a rule may name in ``SCREEN_HOLDERS`` -> stdlib ast classes
HOLDER_KINDS: dict[str, tuple[type[ast.AST], ...]] = {
    "for": (ast.For, ast.AsyncFor),
    "while": (ast.While,),
    "with": (ast.With, ast.AsyncWith),
    "try": (ast.Try, *((ast.TryStar,) if hasattr(ast, "TryStar") else ())),
}
_HOLDER_KIND_OF = {cls: kind for kind, classes in HOLDER_KINDS.items() for cls in classes}
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_FORS = (ast.For, ast.AsyncFor)

#: the structural stage is sound only for the catalogue kinds it models
SOUND = all(entry.kind in ("qualified", "method", "logger") for entry in CATALOGUE)
_QUALIFIED = frozenset(e.name for e in CATALOGUE if e.kind == "qualified")
#: last name -> the names written just before it in the catalogue (``sys.stdout.write``: stdout)
_PARENTS: dict[str, set[str]] = {}
for _name in _QUALIFIED:
    _parent, _, _last = _name.rpartition(".")
    _PARENTS.setdefault(_last, set()).add(_parent.rpartition(".")[2])
_METHODS = frozenset(e.name for e in CATALOGUE if e.kind == "method")
_LOGGER_METHODS = frozenset(e.name for e in CATALOGUE if e.kind == "logger")
_LOGGER_LASTS = frozenset(name.rpartition(".")[2] for name in LOGGER_NAMES)
#: names that may break when called whatever the module defines
_WATCHED = frozenset(_PARENTS) | _METHODS | _LOGGER_METHODS
#: calling a class by name may run these (``with Timer():`` runs the last two)
_CLASS_CALL_METHODS = frozenset({"__init__", "__enter__", "__exit__"})
#: calling a submodule attribute (``self.attr(x)``) runs one of these
_SUBMODULE_METHODS = frozenset({"forward", "__call__"})

#: what may come between a called name and its ``(``: blanks, backslash-newlines, comments, ``)``
_TO_PAREN = r"(?:[\s\\)]|#[^\n]*)*+\("
_WORD = re.compile(r"\w+")
#: an identifier, then ``(``
_CALL = re.compile(r"\b(\w++)" + _TO_PAREN)
#: what follows a called name up to its ``(`` (``_CALL`` without the name)
_CALL_REST = re.compile(_TO_PAREN)
#: what follows ``perf_counter`` in ``perf_counter as pc``, an import alias of a catalogue name
_ALIAS_REST = re.compile(r"(?:[\s\\]|#[^\n]*)+as\b")
_BLANK = " \t\f\\"
#: marks a blanked body in a skeleton; a file that holds it is never blanked
_STUB_MARK = "# gbfix-screen-stub-"


def _is_word_char(char: str) -> bool:
    """What ``\\w`` matches in a ``str`` pattern."""
    return char.isalnum() or char == "_"


def _word_ends(text: str, word: str) -> Iterator[int]:
    """Where each ``word`` in ``text`` that no identifier character comes before ends."""
    start = text.find(word)
    while start >= 0:
        if start == 0 or not _is_word_char(text[start - 1]):
            yield start + len(word)
        start = text.find(word, start + 1)


def _whole_words(text: str, word: str) -> Iterator[int]:
    """Where each ``word`` in ``text`` starts that is a word of its own (``\\bword\\b``)."""
    for end in _word_ends(text, word):
        if end == len(text) or not _is_word_char(text[end]):
            yield end - len(word)


def has_word(text: str, word: str) -> bool:
    """``re.search(rf"\\b{word}\\b", text)``, without trying the pattern at every position."""
    return next(_whole_words(text, word), None) is not None


def _normal(name: str) -> str:
    """Python reads identifiers in NFKC form; so does ``ast``."""
    return name if name.isascii() else unicodedata.normalize("NFKC", name)


def _dotted(node: ast.AST) -> Optional[str]:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _last_name(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _skip_back(text: str, i: int) -> tuple[int, bool]:
    """Step back over blanks and line ends; False when a line passed holds a ``#``."""
    while i > 0:
        char = text[i - 1]
        if char == "\n":
            if "#" in text[text.rfind("\n", 0, i - 1) + 1:i - 1]:
                return i, False  # a comment may hide what comes before
        elif char not in _BLANK:
            break
        i -= 1
    return i, True


def _before(text: str, end: int) -> tuple[bool, Optional[str], bool]:
    """What is written before position ``end``: (a dot?, the receiver's last identifier, sure?).

    ``sure`` is False when a comment may hide what is there, or the receiver
    is not an identifier (``f().x``, ``(a).x``).
    """
    if end and text[end - 1] not in _BLANK + "\n.":
        return False, None, True  # the common case: `(print(`, ` print(`
    i, sure = _skip_back(text, end)
    if not sure:
        return False, None, False
    if i == 0 or text[i - 1] != ".":
        return False, None, True
    i, sure = _skip_back(text, i - 1)
    j = i
    while j > 0 and _is_word_char(text[j - 1]):
        j -= 1
    if j == i or not sure:
        return True, None, False
    return True, _normal(text[j:i]), True


@dataclass
class _Def:
    first: int  # first line, decorators included
    last: int
    name: str
    #: defined directly in a class body outside any function (reached as ``self.name``)
    method: bool
    #: not inside a function: the unit a skeleton keeps or blanks
    unit: bool
    node: ast.AST


class ScreenFacts:
    """What the structural stage knows about one file, computed on first use.

    A file Python cannot parse answers True to every question: libcst then
    reports the error with its line.
    """

    def __init__(self, text: str, tree: Optional[ast.Module] = None) -> None:
        """``tree``: Python's parse of ``text``, when the caller has it already."""
        # Python counts \r\n and \r as one line end; so must the call lines.
        self.text = text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text
        self._tree = tree
        self._parsed = False
        self._valid = False
        self._calls: Optional[list[tuple[int, str, int]]] = None
        self._call_lines: Optional[list[int]] = None
        self._newline_offsets: Optional[list[int]] = None
        self._analysed = False
        self._may_break: Optional[bool] = None
        #: (qualified name, decorators) -> the answer of :meth:`calls`
        self._calls_of: dict[tuple[str, bool], bool] = {}

    # -- questions rules ask -------------------------------------------------------
    def holds_break(self, kinds: Iterable[str]) -> bool:
        """The body of a statement of one of ``kinds``, inside a function, holds a call that may break."""
        wanted = set(kinds)
        unknown = wanted - set(HOLDER_KINDS)
        if unknown:
            raise ValueError(f"unknown SCREEN_HOLDERS kind(s): {sorted(unknown)}")
        if not self._may_break_at_all():
            return False  # no call here could break: no need to parse
        if not self._parse():
            return True
        self._analyse()
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
        lines = sorted({bisect_left(newlines, start) + 1 for start in _whole_words(self.text, last)})
        if not lines:
            return False
        if not self._parse():
            return True
        imported = last in self._import_paths or "*" in self._import_paths
        for paths in self._import_paths.values():
            if any(p.rpartition(".")[2] == last and p.split(".", 1)[0] == top for p in paths):
                return True  # `from torch import compile as c`: any use of `c` may be it
        for start, end, stmt in self._statements:
            index = bisect_left(lines, start)
            if index == len(lines) or lines[index] > end:
                continue
            for part in _expressions_of(stmt):
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
        paths = self._import_paths.get(node.id)
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
        return calls[bisect_left(self._call_lines, first):bisect_right(self._call_lines, last or first)]

    def _raw_calls(self) -> list[tuple[int, str, int]]:
        """(line, name, offset) of every identifier followed by ``(``."""
        if self._calls is None:
            newlines = self._newlines()
            self._calls = [
                (bisect_left(newlines, m.start(1)) + 1, _normal(m.group(1)), m.start(1))
                for m in _CALL.finditer(self.text)
            ]
        return self._calls

    def _may_break_at_all(self) -> bool:
        """A call of a catalogue name, or an import alias of one, is written somewhere."""
        if self._may_break is None:
            text = self.text
            # One search per watched name: Python's regular expressions are slow to try
            # an alternation of words at every position of a file.
            self._may_break = any(
                _CALL_REST.match(text, end) or (name in _PARENTS and _ALIAS_REST.match(text, end))
                for name in _WATCHED
                for end in _word_ends(text, name)
            )
            if not self._may_break and not text.isascii():
                # An identifier is read in its NFKC form: ``ｐrint(`` calls ``print``.
                self._may_break = any(name in _WATCHED for _, name, _ in self._raw_calls())
        return self._may_break

    # -- statements ---------------------------------------------------------------------
    def _parse(self) -> bool:
        if not self._parsed:
            self._parsed = True
            tree, self._tree = self._tree, None
            if tree is None:
                try:
                    tree = ast.parse(self.text)
                except (SyntaxError, ValueError, RecursionError, MemoryError):
                    return False
            self._collect(tree)
            self._valid = True
        return self._valid

    def _collect(self, tree: ast.Module) -> None:
        """One walk over the statements (expressions are left to the call pattern)."""
        self._defs: list[_Def] = []
        #: (first line, last line, name) of every class
        self._classes: list[tuple[int, int, str]] = []
        #: class name -> method name -> indexes in _defs
        self._members: dict[str, dict[str, list[int]]] = {}
        #: (kind, line spans of the parts that count, (first, last) of the header)
        self._holders: list[tuple[str, list[tuple[int, int]], tuple[int, int]]] = []
        #: (first line, last line, statement) of every statement
        self._statements: list[tuple[int, int, ast.stmt]] = []
        #: bound name -> dotted paths imports bind it to ("*" for a star import)
        self._import_paths: dict[str, set[str]] = {}
        #: ``self.attr = ...Block(...)...``: attr -> (line, capitalised names called there)
        self._submodules: Optional[dict[str, set[str]]] = None
        self._submodule_lines: dict[str, list[int]] = {}
        #: (attrs, assignment) of every ``self.attr = ...``
        self._self_assigns: list[tuple[list[str], ast.Assign]] = []
        #: ``for v in self.attr``: v -> attrs
        self._loop_aliases: dict[str, set[str]] = {}
        self._global_lines: list[int] = []
        assigns: list[ast.Assign] = []
        # (node, inside a function?, directly in a class body?)
        #: statements a skeleton may blank: (first, last, statement, where: module/class/docstring)
        self._blankable: list[tuple[int, int, ast.stmt, str]] = []
        # (statement, inside a function?, the class whose body (or block in it) holds it)
        stack: list[tuple[ast.stmt, bool, Optional[str]]] = [(s, False, None) for s in tree.body]
        self._note_docstring(tree.body)
        top = {id(s) for s in tree.body}
        while stack:
            node, in_function, owner = stack.pop()
            cls = node.__class__
            first = node.lineno
            for decorator in getattr(node, "decorator_list", ()):
                first = min(first, decorator.lineno)
            last = node.end_lineno or node.lineno
            self._statements.append((first, last, node))
            # at module level only values over several lines are worth it (the names bound stay);
            # class scope is invisible to methods: every line there goes
            if cls in _BLANKABLE and ((last > first and id(node) in top) or (owner and not in_function)):
                self._blankable.append((first, last, node, "module" if id(node) in top else "class"))
            if cls in _DEFS:
                index = len(self._defs)
                self._defs.append(_Def(first, last, node.name, owner is not None and not in_function,
                                       not in_function, node))
                if owner is not None:
                    self._members.setdefault(owner, {}).setdefault(node.name, []).append(index)
                stack.extend((s, True, None) for s in node.body)
                if not in_function:
                    self._note_docstring(node.body)
            elif cls is ast.ClassDef:
                self._classes.append((first, last, node.name))
                self._members.setdefault(node.name, {})
                stack.extend((s, in_function, node.name) for s in node.body)
                if not in_function:
                    self._note_docstring(node.body)
            elif cls in _HOLDER_KIND_OF:
                kind = _HOLDER_KIND_OF[cls]
                parts = [_span(node.body)]
                if cls is ast.While:
                    parts.append((node.test.lineno, node.test.end_lineno or node.test.lineno))
                self._holders.append((kind, parts, (node.lineno, parts[0][0])))
                if cls in _FORS and isinstance(node.target, ast.Name):
                    source = _dotted(node.iter)
                    if source and source.startswith("self.") and source.count(".") == 1:
                        self._loop_aliases.setdefault(node.target.id, set()).add(source[5:])
                # a def in a block of a class body is still a method of that class
                for field in ("body", "orelse", "finalbody"):
                    stack.extend((s, in_function, owner) for s in getattr(node, field, ()))
                for handler in getattr(node, "handlers", ()):
                    stack.extend((s, in_function, owner) for s in handler.body)
            elif cls is ast.If:
                stack.extend((s, in_function, owner) for s in (*node.body, *node.orelse))
            elif cls is ast.Match:
                for case in node.cases:
                    stack.extend((s, in_function, owner) for s in case.body)
            elif cls is ast.Import:
                for alias in node.names:
                    bound = alias.asname or alias.name.split(".", 1)[0]
                    path = alias.name if alias.asname else bound
                    self._import_paths.setdefault(bound, set()).add(path)
            elif cls is ast.ImportFrom:
                for alias in node.names:
                    bound = alias.asname or alias.name
                    path = f"{node.module}.{alias.name}" if node.module else alias.name
                    self._import_paths.setdefault(bound, set()).add(path)
            elif cls is ast.Assign:
                assigns.append(node)
            elif cls is ast.Global:
                self._global_lines.append(node.lineno)
        self._global_lines.sort()
        self._loggers = set(_LOGGER_LASTS)
        getloggers = {"getLogger"} | {
            bound for bound, paths in self._import_paths.items()
            if any(p.rpartition(".")[2] == "getLogger" for p in paths)
        }
        #: lines of assignments from getLogger: a skeleton keeps them
        self._logger_lines: list[int] = []
        for node in assigns:
            targets = [_dotted(t) for t in node.targets]
            if isinstance(node.value, ast.Call) and _last_name(node.value.func) in getloggers:
                self._loggers.update(t.rpartition(".")[2] for t in targets if t)
                self._logger_lines.append(node.lineno)
            selfs = [t[5:] for t in targets if t and t.startswith("self.") and t.count(".") == 1]
            if selfs:
                self._self_assigns.append((selfs, node))
        self._logger_lines.sort()

    def _submodule_map(self) -> dict[str, set[str]]:
        """``self.attr = ...Block(...)...``: attr -> capitalised names called there (on first need)."""
        if self._submodules is None:
            self._submodules = {}
            for selfs, node in self._self_assigns:
                if not any(
                    name[:1].isupper() and not _before(self.text, offset)[0]
                    for _, name, offset in self._calls_on(node.value.lineno, node.end_lineno)
                ):
                    continue  # no capitalised bare name is called on its lines (the text's calls hold every call)
                called = {
                    n.func.id for n in ast.walk(node.value)
                    if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id[:1].isupper()
                }
                if called:
                    for attr in selfs:
                        self._submodules.setdefault(attr, set()).update(called)
                        self._submodule_lines.setdefault(attr, []).append(node.lineno)
        return self._submodules

    def _note_docstring(self, body: list[ast.stmt]) -> None:
        first = body[0] if body else None
        if (
            isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str) and (first.end_lineno or first.lineno) > first.lineno
        ):
            self._blankable.append((first.lineno, first.end_lineno or first.lineno, first, "docstring"))

    # -- calls -------------------------------------------------------------------------
    def _direct(self, name: str, receiver: Optional[str], dot: bool, sure: bool) -> bool:
        """A call the break catalogue may match."""
        if not sure:
            return True
        if not dot:
            return name in _PARENTS and ("builtins" in _PARENTS[name] or "*" in self._import_paths)
        if name in _METHODS:
            return True
        if name in _LOGGER_METHODS and receiver in self._loggers:
            return True
        if name in _PARENTS:
            if receiver in _PARENTS[name]:
                return True
            return any(f"{p}.{name}" in _QUALIFIED for p in self._import_paths.get(receiver or "", ()))
        return False

    def _keyed_calls(self) -> tuple[list[int], list[str]]:
        """Call lines and keys sorted by line: "" may break by itself, "n:f" is ``f(...)``,
        "s:f" is ``self.f(...)``; calls of names the module does not define are dropped."""
        aliases = {  # names an import binds to a catalogue call (``from time import time as now``)
            bound for bound, paths in self._import_paths.items() if paths & _QUALIFIED
        }
        defined = {d.name for d in self._defs} | set(self._members)
        defined |= {attr for attrs, _ in self._self_assigns for attr in attrs}
        defined |= set(self._loop_aliases)
        text = self.text
        pairs = []
        for line, name, offset in self._raw_calls():
            watched = name in _WATCHED
            if not (watched or name in aliases or name in defined):
                continue
            dot, receiver, sure = _before(text, offset)
            if name in aliases or (watched and self._direct(name, receiver, dot, sure)):
                pairs.append((line, ""))
            if not sure:
                pairs.extend(((line, "n:" + name), (line, "s:" + name)))
            elif not dot:
                pairs.append((line, "n:" + name))
            elif receiver == "self":
                pairs.append((line, "s:" + name))
        pairs.sort()
        return [p[0] for p in pairs], [p[1] for p in pairs]

    def _analyse(self) -> None:
        """Which defs may break (to a fixpoint), which keys reach them, which holders hold them."""
        if self._analysed:
            return
        self._analysed = True
        lines, keys = self._keyed_calls()

        def between(start: int, end: int) -> set[str]:
            return set(keys[bisect_left(lines, start):bisect_right(lines, end)])

        called = [between(d.first, d.last) for d in self._defs]
        breaking = {""}
        broken: set[int] = set()
        while True:
            new = {i for i, c in enumerate(called) if i not in broken and c & breaking}
            if not new:
                break
            broken |= new
            breaking = {""} | self._reaching(broken)
        self.broken = broken
        self.breaking = breaking

        spans = sorted((d.first, d.last) for d in self._defs)
        starts = [start for start, _ in spans]
        reach: list[int] = []  # the furthest last line of the defs starting up to each start
        for _, end in spans:
            reach.append(max(end, reach[-1]) if reach else end)
        managers = {k for k in breaking if k.startswith("n:") and k[2:] in self._members}
        self._holder_kinds: set[str] = set()
        #: (kind, first line) of every holder that may hold a break, inside a function
        self._candidates: list[tuple[str, int]] = []
        for kind, parts, (head, body) in self._holders:
            index = bisect_right(starts, head) - 1
            if index < 0 or reach[index] < head:
                continue  # module or class level: no frame for Dynamo to skip
            if any(between(a, b) & breaking for a, b in parts) or (
                kind == "with" and between(head, body) & managers
            ):
                self._holder_kinds.add(kind)
                self._candidates.append((kind, head))
        self._between = between

    def _reaching(self, broken: set[int]) -> set[str]:
        """Keys whose call may run one of the ``broken`` defs."""
        keys = set()
        for index in broken:
            d = self._defs[index]
            keys.add(("s:" if d.method else "n:") + d.name)
        for cls, members in self._members.items():
            runs = {m for m, indexes in members.items() if broken.intersection(indexes)}
            if runs & _CLASS_CALL_METHODS:
                keys.add("n:" + cls)
            if runs & _SUBMODULE_METHODS:
                for attr, classes in self._submodule_map().items():
                    if cls in classes:
                        keys.add("s:" + attr)
                        keys.update("n:" + v for v, attrs in self._loop_aliases.items() if attr in attrs)
        return keys

    # -- skeleton ------------------------------------------------------------------------
    def candidate_units(self, kinds: Iterable[str], focus: Optional[Sequence[tuple[int, int]]] = None) -> list[int]:
        """Indexes of the functions (not nested in another) holding a candidate of ``kinds``,
        only those overlapping ``focus`` when given."""
        if not self._parse():
            return []
        self._analyse()
        wanted = set(kinds)
        units = sorted((i for i, d in enumerate(self._defs) if d.unit), key=lambda i: self._defs[i].first)
        firsts = [self._defs[i].first for i in units]
        found = []
        for kind, head in self._candidates:
            at = bisect_right(firsts, head) - 1
            if kind in wanted and at >= 0 and self._defs[units[at]].last >= head:
                d = self._defs[units[at]]
                if focus is None or any(a <= d.last and d.first <= b for a, b in focus):
                    found.append(units[at])
        return found

    def skeleton(self, kinds: Iterable[str], focus: Optional[Sequence[tuple[int, int]]] = None) -> Optional["Skeleton"]:
        """The file with the bodies of the functions no finding of ``kinds`` can need blanked.

        Kept whole: every function or method (not nested in another function)
        that holds a candidate statement of ``kinds``; every one holding a
        nested definition named like something a kept one calls (the break
        analysis finds callees by name); every one holding a ``global``
        statement, a logger assignment or a gbfix helper name. Thinned
        (:meth:`_thinned`): every one whose body may break and that a kept
        one may call, to a fixpoint, and every one assigning a submodule a
        kept one may call. None when nothing can be blanked.
        """
        if _STUB_MARK in self.text or not self._parse():
            return None
        self._analyse()
        wanted_kinds = set(kinds)
        units = sorted((i for i, d in enumerate(self._defs) if d.unit), key=lambda i: self._defs[i].first)
        unit_firsts = [self._defs[i].first for i in units]
        unit_of = {}
        for index, d in enumerate(self._defs):
            at = bisect_right(unit_firsts, d.first) - 1
            if at >= 0 and self._defs[units[at]].last >= d.last:
                unit_of[index] = units[at]
        targets = self._targets()
        kept: set[int] = set()
        #: units kept whole: candidates, and those holding a nested name a kept one calls
        whole: set[int] = set()
        wanted: set[str] = set()
        stack: list[int] = []

        def keep(unit: int, entirely: bool = False) -> None:
            if entirely:
                whole.add(unit)
            if unit not in kept:
                kept.add(unit)
                stack.append(unit)

        for unit in self.candidate_units(wanted_kinds, focus):
            keep(unit, entirely=True)
        # A candidate outside the focus is blanked, or kept whole if a kept one calls it:
        # thinned, a loop could lose the `return` that makes its break harmless.
        candidates = set(self.candidate_units(wanted_kinds))
        nested = [(d.first, d.name) for d in self._defs if not d.unit]
        nested += [(first, name) for first, _, name in self._classes]
        while True:
            while stack:
                d = self._defs[stack.pop()]
                for key in self._between(d.first, d.last) - wanted:
                    wanted.add(key)
                    for target in targets.get(key, ()):
                        if target in self.broken and target in unit_of:
                            keep(unit_of[target])
            names = {key[2:] for key in wanted if key}
            for line, name in nested:
                if name in names:
                    at = bisect_right(unit_firsts, line) - 1
                    if at >= 0 and self._defs[units[at]].first < line <= self._defs[units[at]].last:
                        keep(units[at], entirely=True)
            if not stack:
                break
        attrs = {key[2:] for key in wanted if key.startswith("s:")}
        attrs |= {a for var, found in self._loop_aliases.items() if "n:" + var in wanted for a in found}
        #: lines that keep their function whole: what they bind is read module-wide
        binding = sorted(self._global_lines + self._logger_lines)
        #: ``self.attr = Block(...)`` lines (attributes a kept function calls): kept with their blocks' headers
        submodule = sorted(
            line for attr in attrs if attr in self._submodule_map() for line in self._submodule_lines[attr]
        )
        special = sorted(binding + submodule)
        lines = self.text.split("\n")
        regions: list[tuple[int, int, str]] = []
        names = {key[2:] for key in wanted if key}
        sensitive = self._sensitive()
        for index in units:
            d = self._defs[index]
            if index in whole or _any_between(binding, d.first, d.last):
                continue
            if "_gbfix_" in "\n".join(lines[d.first - 1:d.last]):
                continue  # fresh helper names are numbered past every one in the file
            if index in kept and index in candidates:
                continue
            if index in kept or _any_between(submodule, d.first, d.last):
                # Only its verdict matters (does it break, and why), and the submodules it
                # assigns (``__init__``): keep what decides them.
                regions.extend(self._thinned(d.node.body, lines, names, submodule))
                continue
            node = d.node
            if not (_starts_line(lines[d.first - 1], node) and _ends_line(lines[d.last - 1], node)):
                continue
            indent = _indent(lines[d.first - 1])
            if d.name in names or d.name in sensitive or d.name in _CLASS_CALL_METHODS | _SUBMODULE_METHODS:
                # the break analysis finds callees by name: the name stays
                asynchronous = "async " if isinstance(node, ast.AsyncFunctionDef) else ""
                regions.append((d.first, d.last, f"{indent}{asynchronous}def {d.name}(): ..."))
            else:
                regions.append((d.first, d.last, indent + "..."))
        # Docstrings, and multi-line values at module and class level, never matter
        # to a rule acting inside functions; module level keeps the names it binds.
        for first, last, node, where in self._blankable:
            if _any_between(special, first, last) or not (
                _starts_line(lines[first - 1], node) and _ends_line(lines[last - 1], node)
            ):
                continue
            head = _blank_head(node, where)
            if head is not None:
                regions.append((first, last, _indent(lines[first - 1]) + head))
        regions.sort(key=lambda region: (region[0], -region[1]))
        chosen: list[tuple[int, int, str]] = []
        for region in regions:
            if chosen and region[0] <= chosen[-1][1]:
                continue  # inside a blanked body: goes with it
            if chosen and _mergeable(chosen[-1], region, lines):
                chosen[-1] = (chosen[-1][0], region[1], chosen[-1][2])
                continue
            chosen.append(region)
        if not chosen:
            return None
        return Skeleton.build(self.text, chosen)

    def _thinned(
        self, body: list[ast.stmt], lines: list[str], names: set[str], held: Sequence[int] = ()
    ) -> list[tuple[int, int, str]]:
        """Regions of ``body`` (of a function only called by kept ones) that cannot change its verdict.

        Kept: statements holding a call that may break, an import, ``global``
        or ``nonlocal``, a binding of a name a catalogue call may be read
        through (``time = ...`` changes what ``time.time()`` is), a nested
        definition named like something called, what is on the ``held``
        lines. Compound statements that hold such a call or line keep their
        headers and are thinned inside.
        """
        needed = self.breaking
        sensitive = self._sensitive()
        regions: list[tuple[int, int, str]] = []
        run: list[ast.stmt] = []

        def flush() -> None:
            if run and _starts_line(lines[_first(run[0]) - 1], run[0]) and _ends_line(
                lines[run[-1].end_lineno - 1], run[-1]  # type: ignore[operator]
            ):
                regions.append((_first(run[0]), run[-1].end_lineno or run[-1].lineno,
                                _indent(lines[_first(run[0]) - 1]) + "..."))
            run.clear()

        for stmt in body:
            first, last = _first(stmt), stmt.end_lineno or stmt.lineno
            calls = self._between(first, last) & needed
            if isinstance(stmt, (ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal)) or (
                isinstance(stmt, (*_DEFS, ast.ClassDef)) and (calls or stmt.name in names)
            ) or _binds_any(stmt, lines[first - 1:last], sensitive):
                flush()
                continue
            if not calls and not _any_between(held, first, last):
                run.append(stmt)
                continue
            flush()
            for block in _blocks(stmt, lines):
                regions.extend(self._thinned(block, lines, names, held))
        flush()
        return regions

    def _sensitive(self) -> set[str]:
        """Names whose binding can change whether a call matches the catalogue."""
        found = set(_PARENTS) | {parent for parents in _PARENTS.values() for parent in parents}
        return found | set(self._import_paths) | {"builtins"}

    def _targets(self) -> dict[str, list[int]]:
        """Call key -> the defs such a call may run (as the break analysis resolves them)."""
        found: dict[str, list[int]] = {}
        for index, d in enumerate(self._defs):
            found.setdefault(("s:" if d.method else "n:") + d.name, []).append(index)
        for cls, members in self._members.items():
            for method in _CLASS_CALL_METHODS:
                found.setdefault("n:" + cls, []).extend(members.get(method, ()))
        for attr, classes in self._submodule_map().items():
            runs = [
                index for cls in classes for method in _SUBMODULE_METHODS
                for index in self._members.get(cls, {}).get(method, ())
            ]
            found.setdefault("s:" + attr, []).extend(runs)
            for var, sources in self._loop_aliases.items():
                if attr in sources:
                    found.setdefault("n:" + var, []).extend(runs)
        return found


def _span(body: list[ast.stmt]) -> tuple[int, int]:
    """First and last line of a statement list, decorators included."""
    first = body[0].lineno
    for decorator in getattr(body[0], "decorator_list", ()):
        first = min(first, decorator.lineno)
    return first, body[-1].end_lineno or body[-1].lineno


def _mergeable(before: tuple[int, int, str], after: tuple[int, int, str], lines: list[str]) -> bool:
    """Two blanked statements of one block, only blank or comment lines between: one ``...`` does."""
    if before[2].strip() != "..." or after[2] != before[2]:
        return False
    return all(not line.strip() or line.lstrip().startswith("#") for line in lines[before[1]:after[0] - 1])


def _first(stmt: ast.stmt) -> int:
    first = stmt.lineno
    for decorator in getattr(stmt, "decorator_list", ()):
        first = min(first, decorator.lineno)
    return first


def _binds_any(stmt: ast.stmt, lines: list[str], names: set[str]) -> bool:
    """``stmt`` (written on ``lines``) may bind one of ``names``."""
    text = "\n".join(lines)
    if text.isascii() and names.isdisjoint(_WORD.findall(text)):
        return False  # a name it binds is written in it
    return not names.isdisjoint(_binds(stmt))


def _binds(stmt: ast.stmt) -> set[str]:
    """Every name ``stmt`` may bind anywhere inside it."""
    found: set[str] = set()
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            found.add(node.id)
        elif isinstance(node, (*_DEFS, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, ast.alias):
            found.add((node.asname or node.name).split(".", 1)[0])
        elif isinstance(node, ast.arg):
            found.add(node.arg)
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            found.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            found.add(node.rest)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            found.update(node.names)
    return found


def _blocks(stmt: ast.stmt, lines: list[str]) -> list[list[ast.stmt]]:
    """The statement lists inside a compound statement (an ``elif`` is followed, never blanked)."""
    if isinstance(stmt, ast.If):
        blocks = [stmt.body]
        orelse = stmt.orelse
        if len(orelse) == 1 and isinstance(orelse[0], ast.If) and lines[orelse[0].lineno - 1].lstrip().startswith("elif"):
            return blocks + _blocks(orelse[0], lines)
        return blocks + ([orelse] if orelse else [])
    blocks = []
    for field in ("body", "orelse", "finalbody"):
        value = getattr(stmt, field, None)
        if value and isinstance(value, list) and isinstance(value[0], ast.stmt):
            blocks.append(value)
    blocks.extend(h.body for h in getattr(stmt, "handlers", ()))
    blocks.extend(c.body for c in getattr(stmt, "cases", ()))
    return blocks


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _ends_line(line: str, stmt: ast.stmt) -> bool:
    """Only blanks or a comment come after ``stmt`` on its last line."""
    rest = line.encode("utf-8")[stmt.end_col_offset or 0:].strip()
    return not rest or rest.startswith(b"#")


def _blank_head(node: ast.stmt, where: str) -> Optional[str]:
    """What a blanked statement becomes, keeping any name it binds at module level; None: keep it."""
    if where == "docstring" or isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return '""'  # still a docstring: `from __future__` may follow it
    if where == "class":
        return "..."  # class scope is invisible to methods
    if any(isinstance(n, (ast.NamedExpr, ast.Lambda)) for n in ast.walk(node)):
        return None
    if isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
        return " = ".join(t.id for t in node.targets) + " = ..."  # type: ignore[attr-defined]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
        return f"{node.target.id}: ... = ..."
    if isinstance(node, ast.Expr):
        return "..."
    return None


def _starts_line(line: str, stmt: ast.stmt) -> bool:
    """Only blanks come before ``stmt`` (or its first decorator) on its first line."""
    node = min([stmt, *getattr(stmt, "decorator_list", ())], key=lambda n: (n.lineno, n.col_offset))
    return line.encode("utf-8")[: node.col_offset].strip() in (b"", b"@")


def _any_between(sorted_lines: list[int], start: int, end: int) -> bool:
    index = bisect_left(sorted_lines, start)
    return index < len(sorted_lines) and sorted_lines[index] <= end


#: simple statements a skeleton may blank at module or class level
_BLANKABLE = frozenset({ast.Assign, ast.AnnAssign, ast.Expr})

_BODIES = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})


def _expressions_of(stmt: ast.stmt) -> Iterable[ast.AST]:
    """The parts of a statement that are not statements themselves (headers, handler types…)."""
    for field in stmt._fields:
        value = getattr(stmt, field, None)
        if field in _BODIES:
            for item in value or ():
                if isinstance(item, ast.ExceptHandler) and item.type is not None:
                    yield item.type
                elif isinstance(item, ast.match_case):
                    yield item.pattern
                    if item.guard is not None:
                        yield item.guard
        elif isinstance(value, ast.AST):
            yield value
        elif isinstance(value, list):
            yield from (v for v in value if isinstance(v, ast.AST))


@dataclass(frozen=True)
class Skeleton:
    """A file with parts blanked, line for line.

    ``text`` has the same lines as the original: a blanked region becomes
    one line (``...``, ``def name(): ...``, ``NAME = ...``) with a numbered
    marker comment, then padding to its old length, so every position libcst
    reports in it is a position in the original. Padding of more than one
    line is a single string statement of empty lines: libcst makes three
    nodes of every empty line and walks them once per rule and metadata pass.
    A docstring becomes one string of empty lines holding the marker.
    """

    text: str
    #: (the lines standing for a blanked region, the first holding its marker; the region's text)
    stubs: tuple[tuple[tuple[str, ...], str], ...]

    @classmethod
    def build(cls, text: str, regions: list[tuple[int, int, str]]) -> "Skeleton":
        """Blank each (first line, last line, what the first line becomes) of ``text``."""
        lines = text.split("\n")
        stubs = []
        for number, (first, last, head) in enumerate(sorted(regions)):
            original = lines[first - 1:last]
            if head.strip() == '""' and last > first:
                # A docstring stays one statement: what a rewrite puts after a
                # function's docstring then goes after all of its lines.
                stand_in = _padding(head, last - first + 1)
                stand_in[0] += f"{_STUB_MARK}{number}"
            else:
                stand_in = [f"{head}  {_STUB_MARK}{number}"] + _padding(head, last - first)
            lines[first - 1:last] = stand_in
            stubs.append((tuple(stand_in), "\n".join(original)))
        return cls("\n".join(lines), tuple(stubs))

    def restore(self, new_text: str) -> Optional[str]:
        """``new_text`` (the skeleton rewritten) with the blanked bodies put back, or None
        when a blanked body is not where it was left (then the file is done in full)."""
        lines = new_text.split("\n")
        where = {line: i for i, line in enumerate(lines) if _STUB_MARK in line}
        if len(where) != len(self.stubs):
            return None
        found = []
        for stand_in, original in self.stubs:
            index = where.get(stand_in[0])
            if index is None or tuple(lines[index:index + len(stand_in)]) != stand_in:
                return None
            found.append((index, len(stand_in), original))
        for index, count, original in sorted(found, reverse=True):
            lines[index:index + count] = [original]
        return "\n".join(lines)


def _padding(head: str, count: int) -> list[str]:
    """``count`` lines that follow ``head`` and mean nothing: empty lines, or one string of them."""
    if count < 2:
        return [""] * count
    indent = head[:len(head) - len(head.lstrip(" \t"))]
    return [f'{indent}"""'] + [""] * (count - 2) + ['"""']


@dataclass(frozen=True)
class Verdict:
    """What libcst must see of a file: nothing, a skeleton, or all of it."""

    parse: bool
    skeleton: Optional[Skeleton] = None
    #: the rules that may report something (the others need not run); () = all
    codes: tuple[str, ...] = ()


def text_could_match(text: str, code: str, facts: Optional[ScreenFacts] = None) -> bool:
    """Stage 1 for one rule: its own fragments, and a catalogue call if it needs a break.

    A rule that declares ``SCREEN_HOLDERS`` is screened by the words of those
    statements instead of its fragments, and its need for a break by the
    call pattern (``x.item ()`` has no ``.item(`` in it).
    """
    rule = REGISTRY[code]
    if SOUND and rule.SCREEN_HOLDERS:
        # the words that open each holder kind (``while(x):`` has no space after the word)
        if not any(has_word(text, kind) for kind in rule.SCREEN_HOLDERS):
            return False
    elif rule.SCREEN and not any(token in text for token in rule.SCREEN):
        return False
    if not rule.NEEDS_BREAK:
        return True
    if SOUND:
        return (facts or ScreenFacts(text))._may_break_at_all()
    return any(t in text for t in SCREEN_TOKENS)


#: ``import torch``, ``import numpy as np, torch.nn``, ``from torch.nn import Linear``, at any depth
_IMPORTS_TORCH = re.compile(
    r"^[ \t]*(?:from[ \t]+torch\b|import[ \t]+(?:[\w.]+(?:[ \t]+as[ \t]+\w+)?[ \t]*,[ \t]*)*torch\b)",
    re.MULTILINE,
)


def imports_torch(text: str) -> bool:
    """Whether some line of ``text`` imports torch (text in strings may say so too: that only lets more through)."""
    return "torch" in text and _IMPORTS_TORCH.search(text) is not None


def screen(
    text: str,
    codes: Iterable[str],
    focus: Optional[Sequence[tuple[int, int]]] = None,
    tree: Optional[ast.Module] = None,
) -> Verdict:
    """Whether any of ``codes`` may report something in ``text``, and on how much of it.

    ``focus`` (line ranges) limits a skeleton to the functions that overlap
    them; with none there, nothing needs parsing. ``tree``: Python's parse
    of ``text``, when the caller has it.
    """
    facts = ScreenFacts(text, tree)
    passed = [
        code for code in codes
        if text_could_match(text, code, facts) and (not SOUND or REGISTRY[code].screen_ast(facts))
    ]
    if not passed:
        return Verdict(parse=False)
    if not SOUND:
        return Verdict(parse=True)
    if "\r" in text or not all(REGISTRY[code].SCREEN_HOLDERS for code in passed):
        return Verdict(parse=True, codes=tuple(passed))
    kinds = {kind for code in passed for kind in REGISTRY[code].SCREEN_HOLDERS}
    if focus is not None and not facts.candidate_units(kinds, focus):
        return Verdict(parse=False)
    return Verdict(parse=True, skeleton=facts.skeleton(kinds, focus), codes=tuple(passed))


def could_match(text: str, codes: tuple[str, ...]) -> bool:
    """Whether any of ``codes`` might report something in ``text`` (stages 1 and 2)."""
    return screen(text, codes).parse
