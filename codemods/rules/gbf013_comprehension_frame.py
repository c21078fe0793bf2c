"""GBF013 comprehension-frame: a comprehension that runs as a skipped frame of its own.

What it finds
    In a function that a graph break in a loop, an unresumable ``with`` or
    a ``try`` makes Dynamo skip (the breaks GBF001-GBF004 act on), each
    comprehension of the function's own code that Dynamo then meets as a
    frame of its own and skips too: a list, set or dict comprehension whose
    first iterable is not a tuple or a ``range``, and any generator
    expression, when the comprehension's frame holds something of torch (a
    free variable that may be a tensor, a module or a container of them,
    or the name ``torch``); Dynamo passes over any other frame without
    compiling it. Only a function with nothing to capture counts: one with
    no tensor op written in it, its comprehensions included. Where the
    function has one, its own GBF001-GBF004 finding has a fix that makes it
    compile, which brings its comprehensions back inline, so a finding here
    would add nothing. A ``with`` or ``try`` then skips the whole function
    too, so a comprehension before the block counts as much as one after
    it: Dynamo compiles up to the block only once the graph before it holds
    two ops or more, which here only a call can put there (a helper that
    runs them; the rule does not look into it, and reports such a
    comprehension anyway). The finding is on the comprehension's first line;
    it names the comprehension, the function and the break that skips the
    function, and says there is nothing to capture (the comprehension runs
    no tensor op of its own). A comprehension frame a recorded run
    (``--trace``) shows skipped is left to GBF011, which says what the run
    saw.

    Only on Python before 3.12, where a comprehension is a code object of
    its own; since 3.12 (PEP 709) list, set and dict comprehensions are
    inlined into the function. A generator expression is a frame of its own
    on every version, but how Dynamo treats it on 3.12 and later has not
    been measured, so the rule reports nothing there.

Why it skips the frame
    When Dynamo skips a function, the function runs eagerly, and each
    comprehension it calls is a fresh frame that Dynamo tries to compile on
    its own. That frame receives the iterator of its first iterable as its
    argument. Measured with torch 2.13 on Python 3.11, a parent skipped by a
    break in a loop: the iterators of a tuple (a literal, ``tuple(...)``, a
    tuple held in a name, ``*args``), of a ``range`` and of a tensor's
    ``.shape`` compile; those of a list, a set, a dict, its ``.items()``,
    ``.keys()`` and ``.values()``, a string, an ``nn.ModuleList`` or
    ``nn.ModuleDict``, and of ``enumerate``, ``zip``, ``reversed`` and
    ``sorted`` (even over tuples) do not ("Dynamo does not support next()
    on dict_keyiterator"), so the comprehension frame is skipped. A list
    display (``[a, b]``) iterated by a comprehension is built as a tuple by
    Python's compiler and compiles. A comprehension that reads only plain
    values (strings, numbers, a config object) is not compiled at all, and
    is not counted as skipped. A generator expression is skipped whatever
    it iterates and reads (one that holds nothing of torch runs no tensor
    work, and is left out). When the function itself compiles, its
    comprehensions are traced inline and nothing of this happens, as long
    as its trace holds an op (one of a function it calls counts): Dynamo
    skips a frame whose trace holds none ("No ops traced"), and its
    comprehensions then run as frames of their own. A comprehension nested
    in another runs in the outer one's frame and is not reported; where
    that frame is skipped, or traces no op, the nested one runs as a frame
    of its own too.

Example
    def scale(x):
        return x * 2

    def f(x, scales):
        try:
            y = scale(x)
            print(y)
        except ValueError:
            y = x
        return {k: (y, v) for k, v in scales.items()}

Rewritten
    Never. Fix the break that skips the function by hand (its GBF001-GBF004
    finding, which has no fix where there is nothing to capture), and the
    comprehension is traced inline again once the function's trace holds
    an op (one of a function it calls counts). Where the function must stay
    skipped, a comprehension over ``tuple(...)`` of its iterable
    (``for k, v in tuple(scales.items())``) compiles as a frame of its own.

Fix safety
    None; the finding only reports.
"""

from __future__ import annotations

import sys
from typing import Iterator, Optional, Union

import libcst as cst

from codemods.analysis.breaks.cst import BreakProvider, BreakSite
from codemods.analysis.frame_skip import FrameSkip, frame_skips
from codemods.analysis.helper_names import is_outlined
from codemods.analysis.names.bindings import function_scope_use, target_names
from codemods.analysis.names.scopes import NameScopeProvider
from codemods.analysis.nodes import NESTED_SCOPES
from codemods.analysis.tensors.cst import OTHER, UNKNOWN, FunctionTensorsProvider, TensorFacts
from codemods.analysis.unroll import ModuleConstantsProvider
from codemods.fastcst import walk
from codemods.fastcst.positions import LazyPositionProvider
from codemods.rules.base import Example, FunctionScopedRule, Prefilter

#: the running Python: before 3.12 a list, set or dict comprehension is a frame of its own
PYTHON = sys.version_info[:2]

Comprehension = Union[cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp]

_NAMES = {
    cst.ListComp: "<listcomp>",
    cst.SetComp: "<setcomp>",
    cst.DictComp: "<dictcomp>",
    cst.GeneratorExp: "<genexpr>",
}
_COMPREHENSIONS = walk.node_types(*_NAMES)
#: their bodies run in frames of their own, which the rule sees as functions (or not at all)
#: calls whose result a comprehension's frame takes the iterator of, and compiles (measured)
_TUPLE_LIKE_CALLS = frozenset({"range", "tuple"})


def comprehensions_are_frames() -> bool:
    """Whether list, set and dict comprehensions run as frames of their own (before PEP 709)."""
    return PYTHON < (3, 12)


class ComprehensionFrame(FunctionScopedRule):
    CODE = "GBF013"
    NAME = "comprehension-frame"
    SUMMARY = "a comprehension of a skipped function, skipped as a frame of its own (Python < 3.12): what it cost"
    METADATA_DEPENDENCIES = (
        *FunctionScopedRule.METADATA_DEPENDENCIES,
        BreakProvider,
        NameScopeProvider,
        ModuleConstantsProvider,
    )
    PREFILTER = Prefilter(holders=("for", "while", "with", "try"))
    REPORTS_ONLY = True
    #: output calls whose cause GBF010 removes no longer skip the function; a comprehension frame
    #: a recorded run shows skipped is GBF011's, which says what the run saw
    DEFERS_TO = ("GBF010", "GBF011")
    EXAMPLES = (
        Example(
            before=(
                "import torch\n"
                "\n"
                "def scale(x):\n"
                "    return x * 2\n"
                "\n"
                "\n"
                "def f(x, scales):\n"
                "    try:\n"
                "        y = scale(x)\n"
                "        print(y)\n"
                "    except ValueError:\n"
                "        y = x\n"
                "    return {k: (y, v) for k, v in scales.items()}\n"
            ),
            after=None,
        ),
    )

    @classmethod
    def applies(cls) -> bool:
        return comprehensions_are_frames()

    def visit_Module(self, node: cst.Module) -> None:
        super().visit_Module(node)
        self.constants = self.get_metadata(ModuleConstantsProvider, node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        # A function compiled code does not reach is visited (and left) without being entered.
        if self.applies() and self.current_reach is not None and not is_outlined(original_node.name.value):
            self._report_function(original_node)
        return super().leave_FunctionDef(original_node, updated_node)

    # -- analysis -----------------------------------------------------------------
    def _counts(self, site: BreakSite) -> bool:
        return not self.removed_by_cause(site)

    def _skip(self, func: cst.FunctionDef) -> Optional[FrameSkip]:
        """What makes Dynamo skip ``func``: a loop's break if any (the whole frame), else the first block's."""
        skips = frame_skips(
            func, self, self.lookup, self.line_of, self.start_of, self.options.recorded_break_lines, self._counts
        )
        return next((s for s in skips if s.whole), skips[0] if skips else None)

    def _report_function(self, func: cst.FunctionDef) -> None:
        if self.lookup(func) is None and not self.options.recorded_break_lines:
            return  # nothing in it breaks, so nothing makes Dynamo skip it
        found = list(_comprehensions(func.body))
        if not found:
            return
        skip = self._skip(func)
        if skip is None:
            return
        if not self.nothing_to_capture(func):
            # The function's own finding has a fix, which brings its comprehensions back inline.
            return
        for comp in found:
            if self._recorded(comp, func):
                continue  # GBF011 reports what the run saw of this frame
            why = self._why_skipped(comp, func)
            if why and self._sees_a_tensor(comp, func):
                self._report(comp, func, skip, why)

    def _recorded(self, comp: Comprehension, func: cst.FunctionDef) -> bool:
        """Whether a recorded run shows ``comp``'s frame skipped and GBF011, active, reports it."""
        if not self.options.recorded_skips or not self.defers_to("GBF011"):
            return False
        span = self.get_metadata(LazyPositionProvider, comp)
        # Python starts a generator expression that is a call's only argument at the call's `(`.
        call = _called_with(func.body, comp)
        first = self.get_metadata(LazyPositionProvider, call.func).end.line if call is not None else span.start.line
        name = _NAMES[type(comp)]
        return any(s.name == name and first <= s.line <= span.end.line for s in self.options.recorded_skips)

    def _why_skipped(self, comp: Comprehension, func: cst.FunctionDef) -> str:
        """Why Dynamo skips ``comp``'s own frame, or "" when it compiles it."""
        if isinstance(comp, cst.GeneratorExp):
            return "Dynamo does not compile a generator handed to it on its own"
        iterable = comp.for_in.iter
        if self._iterates_a_tuple(iterable, func):
            return ""
        return f"it gets the iterator of `{_code(iterable)}`, which Dynamo cannot take as input"

    def _iterates_a_tuple(self, iterable: cst.BaseExpression, func: cst.FunctionDef) -> bool:
        """Whether ``iterable`` is surely a tuple, a ``range`` or a tensor (measured to compile)."""
        if isinstance(iterable, cst.Tuple):
            return True
        if isinstance(iterable, cst.List):
            # Python's compiler builds a list display iterated by a comprehension as a tuple.
            return not any(isinstance(e, cst.StarredElement) for e in iterable.elements)
        if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name):
            return iterable.func.value in _TUPLE_LIKE_CALLS
        if isinstance(iterable, cst.Attribute) and iterable.attr.value == "shape":
            return True  # a torch.Size is a tuple
        if isinstance(iterable, cst.Name):
            star = func.params.star_arg
            if isinstance(star, cst.Param) and star.name.value == iterable.value:
                return True
        constant = self.constants.value(iterable, [f for f in self.functions if f is not None])
        if isinstance(constant, cst.Tuple):
            return True
        return self._tensor_facts(func).is_tensor(iterable)

    def _sees_a_tensor(self, comp: Comprehension, func: cst.FunctionDef) -> bool:
        """Whether Dynamo would try to compile ``comp``'s frame at all: it passes over a frame none
        of whose locals (the comprehension's free variables) holds a tensor or a module, directly or
        in a list, tuple or dict, unless its code names ``torch`` (``has_tensor_in_frame``; measured:
        a comprehension reading only plain values, strings or a config object counts as compiled,
        with no graph). A generator is refused before that check, so it is skipped either way;
        one that holds nothing of torch runs no tensor work and is not worth a finding."""
        facts = self._tensor_facts(func)
        free = _free_names(comp)
        if free & facts.torch_names:
            return True
        own = function_scope_use(func).bound
        params = func.params
        containers = {p.name.value for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)}
        if self.method_class() is not None and params.params:
            containers.add(params.params[0].name.value)  # `self`: a module holds tensors
        outer: set[str] = set()
        for enclosing in self.functions[:-1]:
            if enclosing is not None:
                outer |= function_scope_use(enclosing).bound
        for name in free:
            if name in own:
                if name in containers or facts.kinds.get(name, UNKNOWN) != OTHER:
                    return True
            elif name in outer:
                return True  # a free variable of the function: unknown here
        return False

    def _tensor_facts(self, func: cst.FunctionDef) -> TensorFacts:
        assert self._module is not None
        return self.get_metadata(FunctionTensorsProvider, self._module).facts(func, self.method_class())

    # -- reporting ----------------------------------------------------------------
    def _report(self, comp: Comprehension, func: cst.FunctionDef, skip: FrameSkip, why: str) -> None:
        name = _NAMES[type(comp)]
        line = self.line_of(comp)
        where = f"{skip.site.reason.describe()}, line {self.line_of(skip.site.node)}"
        version = "" if isinstance(comp, cst.GeneratorExp) else " (Python < 3.12)"
        note = (
            "fix the break that skips the function and the comprehension is traced inline"
            if isinstance(comp, cst.GeneratorExp)
            else "fix the break that skips the function and the comprehension is traced inline; "
            "iterating `tuple(...)` of the iterable lets its own frame compile"
        )
        self.report(
            comp,
            f"`{name}` of line {line} runs as a frame of its own{version}, and Dynamo skips it: "
            f"graph break inside {skip.kind} ({where}) makes Dynamo skip `{func.name.value}`, which runs it "
            f"eagerly, and {why}; nothing to capture: it runs no tensor op of its own",
            "none",
            note=note,
        )


def _comprehensions(node: cst.CSTNode) -> Iterator[Comprehension]:
    """The comprehensions of a function's own code, outermost ones only (those nested in one run in
    its frame), in source order; a comprehension's first iterable is evaluated outside it."""
    for child in walk.children(node):
        kind = type(child)
        if kind in NESTED_SCOPES:
            continue
        if kind in _COMPREHENSIONS:
            yield child  # type: ignore[misc]
            yield from _comprehensions(child.for_in.iter)  # type: ignore[attr-defined]
            continue
        yield from _comprehensions(child)


def _called_with(root: cst.CSTNode, comp: Comprehension) -> Optional[cst.Call]:
    """The call ``comp`` is the only, unparenthesized argument of (``tuple(x for x in y)``), if any."""
    if not isinstance(comp, cst.GeneratorExp) or comp.lpar:
        return None
    for node in walk.descendants(root):
        if isinstance(node, cst.Call) and len(node.args) == 1 and node.args[0].value is comp:
            return node
    return None


def _free_names(comp: Comprehension) -> set[str]:
    """Names ``comp``'s own frame reads that it does not bind: its free variables and globals
    (its first iterable is evaluated outside it)."""
    parts: list[cst.CSTNode] = [comp.key, comp.value] if isinstance(comp, cst.DictComp) else [comp.elt]
    parts += comp.for_in.ifs
    if comp.for_in.inner_for_in is not None:
        parts.append(comp.for_in.inner_for_in)
    bound: set[str] = set()
    level: Optional[cst.CompFor] = comp.for_in
    while level is not None:
        bound.update(target_names(level.target))
        level = level.inner_for_in
    read: set[str] = set()
    for part in parts:
        _read_names(part, read)
    return read - bound


def _read_names(node: cst.CSTNode, found: set[str]) -> None:
    """Bare names ``node`` reads (an attribute's or keyword's own name is none)."""
    if isinstance(node, cst.Name):
        found.add(node.value)
    elif isinstance(node, cst.Attribute):
        _read_names(node.value, found)
    elif isinstance(node, cst.Arg):
        _read_names(node.value, found)
    elif isinstance(node, cst.Param):
        if node.default is not None:
            _read_names(node.default, found)
    elif type(node) not in walk.TRIVIA:
        for child in walk.children(node):
            _read_names(child, found)


def _code(expr: cst.BaseExpression, limit: int = 60) -> str:
    text = " ".join(cst.Module([]).code_for_node(expr).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
