"""Remove the cause of a graph break instead of containing it: output calls in compiled code (GBF010).

``print``, ``warnings.warn`` and logging calls break the graph, and inside a
loop the break makes Dynamo skip the whole frame. The structural rules
(GBF001-GBF004, GBF009) contain the damage; torch has ways to make these
breaks disappear. This module decides, for each such call that runs compiled
(:func:`codemods.analysis.project.compiled_code.in_compiled_code`), which fix removes
its break and how safe that is. GBF010 makes the fixes; the structural rules
ask :func:`cause_removes` and leave those breaks to it. Measured on torch
2.13 (CPU), a loop of ``x = x * 2`` and the call, compiled:

* **reorder** (``torch._dynamo.config.reorderable_logging_functions``): the
  call runs after the graph, with the values it had. One graph, all ops.
  It holds for ``print`` and ``warnings.warn`` (not for logger methods:
  Dynamo 2.13 still breaks on them) and only when Dynamo can keep the
  arguments (tensors, constants, format strings; no keywords). And only for
  a call in the frame Dynamo starts on: in a function that frame inlines,
  the reordered call is never made. Keyword arguments are dropped
  (``print(x, end="")`` prints a newline), a tensor changed in place later
  in the graph is printed with its new values, and a reordered
  ``warnings.warn`` is attributed to the function's ``def`` line.
* **drop under compile**: ``ignore_logger_methods`` (logger methods and the
  ``logging`` functions), or a guard ``if not torch.compiler.is_compiling():``
  around the call (any of them, anywhere). The call is not made when
  compiled; eager runs are unchanged.

A reorder of a ``print`` whose arguments Dynamo keeps, in the top frame of
a function the file compiles, with no argument changed in place later, is
safe: only where its line appears among other output changes. Every other
fix is unsafe: it loses or changes output under compile.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Literal, Optional

import libcst as cst

from codemods.analysis.breaks.cst import BreakReason, BreakSite, find_breaks
from codemods.analysis.fix_safety import FixMode, Safety
from codemods.analysis.names.bindings import target_names
from codemods.analysis.names.scopes import Scope, ScopeTracker, names_in
from codemods.analysis.nodes import NESTED_SCOPES, body_statements, dotted_name
from codemods.analysis.project.compiled_code import CompiledCode, CompiledCodeSurvey, Entry, in_compiled_code
from codemods.analysis.raises import TRACED_HAZARDS, Evidence, caught_by, describe, traced_hazards, unannotated_params
from codemods.analysis.tensors.cst import TENSOR, TensorFacts, submodule_attributes, torch_aliases
from codemods.fastcst import walk

Form = Literal["reorder", "ignore", "guard"]

REORDER = "reorderable_logging_functions"
#: the spelling torch has had longest (2.13 aliases it to ``ignore_logging_functions``)
IGNORE = "ignore_logger_methods"
#: the setting each family's break is removed with in the entry's own frame
SETTING_OF = {"print": REORDER, "warn": REORDER, "logging": IGNORE, "logger": IGNORE}
#: ``torch._dynamo.config`` attributes a file may already set, and ``torch._dynamo.config.patch``
_CONFIG = "torch._dynamo.config"
_SETS = frozenset({REORDER, IGNORE, "ignore_logging_functions"})
#: tensor methods whose result is a new tensor, not a view of the receiver
_FRESH = frozenset(
    "sum mean max min norm std var prod amax amin argmax argmin logsumexp clone abs count_nonzero all any".split()
)

Lookup = Callable[[cst.CSTNode], Optional[BreakReason]]


@dataclass(frozen=True)
class CauseFix:
    """How GBF010 removes the break of one output call (``form`` None: it cannot)."""

    call: cst.Call
    family: str
    form: Optional[Form]
    fix: Safety
    #: the setting's value (``print``, ``logging.Logger.info``) and its name; "" for the guard
    value: str = ""
    setting: str = ""
    entry: Optional[Entry] = None
    #: the statement a guard goes around
    statement: Optional[cst.SimpleStatementLine] = None
    note: str = ""


@dataclass
class CauseAnalysis:
    compiled: CompiledCode
    #: id(call) -> its fix, for every output call that runs compiled and is not fixed already
    fixes: dict[int, CauseFix] = field(default_factory=dict)
    #: ids of the output calls that run compiled and a setting of the file already covers
    covered: set[int] = field(default_factory=set)
    #: how the fixes spell ``torch``: the module-level import's name, "" (``import torch`` to be
    #: added), None (``torch`` is bound to something else: no fix)
    torch_name: Optional[str] = "torch"

    def fix_for(self, call: cst.CSTNode) -> Optional[CauseFix]:
        return self.fixes.get(id(call))


def setting_value(reason: BreakReason) -> str:
    """What the setting holds to cover the call: ``print``, ``warnings.warn``, ``logging.Logger.info``."""
    if reason.cause == "print":
        return "print"
    if reason.cause == "logger":
        return f"logging.Logger.{reason.entry}"
    return reason.entry  # ``warnings.warn``, ``logging.info``


def cause_removes(
    analysis: CauseAnalysis, call: cst.CSTNode, fix_mode: FixMode, suppressed: Callable[[cst.CSTNode], bool]
) -> bool:
    """Whether GBF010 removes the break of ``call`` in a run with ``fix_mode`` (or a setting already has).

    ``suppressed``: whether a ``# gbfix: ignore`` comment stops GBF010 at the call. A call a
    setting of the file already covers has no entry in ``analysis`` but no break either;
    callers ask only about calls the break analysis marks, under a setting or not.
    """
    fix = analysis.fix_for(call)
    if fix is None:
        return id(call) in analysis.covered
    if fix.form is None or suppressed(call):
        return False
    return fix.fix == "safe" or fix_mode == "unsafe"


def analyse_causes(
    module: cst.Module,
    lookup: Lookup,
    line_of: Callable[[cst.CSTNode], int],
    recorded_lines: frozenset[int],
    fix_mode: FixMode = "safe",
    suppressed: Callable[[cst.CSTNode], bool] = lambda node: False,
) -> CauseAnalysis:
    """Every output call of ``module`` that runs compiled, with its fix (one walk, plus compiled code's).

    ``fix_mode`` and ``suppressed`` (whether a comment stops GBF010 at a call) say which fixes
    a run makes: a reorder is safe only where the breaks around the call all go with it.
    """
    compiled_survey, survey = CompiledCodeSurvey(), _Survey(lookup)
    walk.visit_batched(module, [compiled_survey, survey])
    compiled = compiled_survey.result()
    analysis = CauseAnalysis(compiled, torch_name=torch_spelling(module))
    torch_names = torch_aliases(module)
    facts: dict[int, TensorFacts] = {}
    for found in survey.calls:
        if not found.holders and (found.function is None or found.function.name.value not in survey.called_in_blocks):
            # No loop, `with` or `try` holds the call, in its function or around a call of that
            # function by its name in this file: Dynamo resumes after the break and skips no frame
            # there. (A loop that calls it otherwise, a module's `forward` through `self.block(x)`
            # or from another file, is that loop's finding: the break is raised at its call.)
            continue
        line = line_of(found.call) if recorded_lines else 0  # positions cost a walk of their own
        if found.reason.recorded_only and line not in recorded_lines:
            continue
        if not in_compiled_code(compiled, found.function, line, recorded_lines):
            continue
        entry = compiled.entry_of(found.function)
        value = setting_value(found.reason)
        if survey.settings.covers(SETTING_OF[found.reason.cause], value, found.function, compiled):
            analysis.covered.add(id(found.call))
            continue
        if found.function is not None and id(found.function) not in facts:
            facts[id(found.function)] = _facts(found, torch_names)
        tensor_facts = facts.get(id(found.function)) if found.function is not None else None
        if analysis.torch_name is None:
            note = "not fixed: `torch` is bound to something else in this file"
            analysis.fixes[id(found.call)] = CauseFix(found.call, found.reason.cause, None, "none", note=note)
            continue
        fix = plan(found, entry, value, tensor_facts, lookup)
        hazard = _compiled_try_hazard(found, tensor_facts, torch_names, lookup) if fix.form is not None else ""
        if hazard:
            fix = CauseFix(found.call, found.reason.cause, None, "none", note=hazard)
        analysis.fixes[id(found.call)] = fix

    def made(fix: CauseFix) -> bool:
        applies = (fix.form == "reorder" and fix.fix == "safe") or (fix.form is not None and fix_mode == "unsafe")
        return applies and not suppressed(fix.call)

    _keep_reorders_in_place(analysis, survey.calls, lookup, line_of, recorded_lines, made)
    return analysis


def _compiled_try_hazard(
    found: _Call, facts: Optional[TensorFacts], torch_names: frozenset[str], lookup: Lookup
) -> str:
    """Why the call's break must stay, or "": with it gone, a ``try`` around it is compiled whole,
    and its body may raise in traced code what a handler catches, which Dynamo (torch 2.13) gets
    wrong (:func:`codemods.analysis.raises.traced_hazards`): the break kept the frame eager."""
    for holder in found.holders:
        if not isinstance(holder, cst.Try):
            continue
        if facts is None:
            hazards: frozenset[str] = TRACED_HAZARDS
        else:
            assert found.function is not None
            opaque = unannotated_params(found.function, facts)
            evidence = Evidence(lookup, lambda name: True, facts, opaque)
            hazards = traced_hazards(body_statements(holder.body), evidence, torch_names, lambda name: False)
        catcher = caught_by(holder.handlers, hazards, lambda name: False) if hazards else None
        if catcher is not None:
            return (
                f"not fixed: without this break the `try` around it is compiled, and its body may raise "
                f"{describe(hazards)}, which `except {catcher}` catches; Dynamo (torch 2.13) gets a handled "
                "exception of traced code wrong (a missed lookup's handler values come back on later calls)"
            )
    return ""


def _keep_reorders_in_place(
    analysis: CauseAnalysis,
    calls: list[_Call],
    lookup: Lookup,
    line_of: Callable[[cst.CSTNode], int],
    recorded_lines: frozenset[int],
    made: Callable[[CauseFix], bool],
) -> None:
    """Guard, rather than reorder, a call a structural fix will move into a helper.

    A loop, ``with`` or ``try`` around the call that holds another break no
    safe fix of this rule removes is rewritten by GBF001-GBF004, which moves
    the call into a nested helper; Dynamo inlines such helpers, and a
    reordered call in an inlined function is never made (measured). So the
    reorder is safe only when every break around it goes away in this run
    (``made``: the fixes this run makes).
    """
    changed = True
    while changed:
        changed = False
        safe = {id(f.call) for f in analysis.fixes.values() if f.form == "reorder" and f.fix == "safe"}
        fine = {id(f.call) for f in analysis.fixes.values() if made(f)} | analysis.covered
        fine_lines = {line_of(f.call) for f in analysis.fixes.values() if id(f.call) in fine}
        for found in calls:
            if id(found.call) not in safe:
                continue
            holder = next(
                (h for h in found.holders if _other_breaks(h, lookup, line_of, recorded_lines, fine, fine_lines)), None
            )
            if holder is None:
                continue
            kind = {cst.For: "loop", cst.While: "loop", cst.With: "`with`"}.get(type(holder), "`try`")
            why = (
                f"the {kind} around it (line {line_of(holder)}) holds other graph breaks: their fix moves "
                "this call into a helper function, where Dynamo drops a reordered call"
            )
            analysis.fixes[id(found.call)] = _guard(found, why)
            changed = True


def _other_breaks(
    holder: cst.CSTNode,
    lookup: Lookup,
    line_of: Callable[[cst.CSTNode], int],
    recorded_lines: frozenset[int],
    fine: set[int],
    fine_lines: set[int],
) -> bool:
    parts: list[cst.CSTNode] = [holder.body]  # type: ignore[attr-defined]
    if isinstance(holder, cst.While):
        parts.append(holder.test)
    sites: list[BreakSite] = find_breaks(parts, lookup, line_of, recorded_lines)
    return any(id(site.node) not in fine and line_of(site.node) not in fine_lines for site in sites)


# -- one call's fix -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Call:
    call: cst.Call
    reason: BreakReason
    function: Optional[cst.FunctionDef]
    #: the enclosing class of a method (for tensor facts)
    cls: Optional[cst.ClassDef]
    #: the line holding the call when the call is its one statement, else None
    statement: Optional[cst.SimpleStatementLine]
    #: the loops, ``with`` and ``try`` statements around it in its function, outermost first
    holders: tuple[cst.CSTNode, ...] = ()


def plan(found: _Call, entry: Optional[Entry], value: str, facts: Optional[TensorFacts], lookup: Lookup) -> CauseFix:
    """The fix for one output call that runs compiled and no setting covers yet."""
    breaking_args = any(lookup(node) is not None for node in _argument_calls(found.call))
    if entry is not None and (entry.kind == "decorator" or entry.statement is not None) and not breaking_args:
        setting_fix = _setting_fix(found, entry, value, facts)
        if setting_fix is not None:
            return setting_fix
    return _guard(found, _why_guard(found, entry, breaking_args, value))


def _guard(found: _Call, why: str) -> CauseFix:
    """The guard around the call's statement (none when the call is part of a larger statement)."""
    family = found.reason.cause
    if found.statement is None:
        note = f"not fixed: the call is part of a larger statement; {why}"
        return CauseFix(found.call, family, None, "none", note=note)
    note = f"the guard skips the call under torch.compile (eager runs are unchanged); {why}"
    return CauseFix(found.call, family, "guard", "unsafe", statement=found.statement, note=note)


def _setting_fix(found: _Call, entry: Entry, value: str, facts: Optional[TensorFacts]) -> Optional[CauseFix]:
    """A setting on the entry the call is in: reorder ``print``/``warnings.warn``, ignore logging calls."""
    family = found.reason.cause
    setting = SETTING_OF[family]
    if setting == IGNORE:
        note = f"the setting skips the call under torch.compile, and every other `{value}` call the compiled entry runs"
        return CauseFix(found.call, family, "ignore", "unsafe", value, setting, entry, found.statement, note)
    if _reorder_refusal(found.call, facts):
        return None
    if family == "warn":
        note = (
            "the warning is issued after the graph, attributed to the function's `def` line rather "
            "than the call's, so it prints another location and the default filter may show fewer"
        )
        return CauseFix(found.call, family, "reorder", "unsafe", value, setting, entry, found.statement, note)
    mutated = _mutated_arguments(found.call, found.function)
    if mutated:
        note = (
            f"`{mutated}` is changed in place later in the function: Dynamo prints it after the graph, "
            "with its new values"
        )
        return CauseFix(found.call, family, "reorder", "unsafe", value, setting, entry, found.statement, note)
    return CauseFix(found.call, family, "reorder", "safe", value, setting, entry, found.statement)


def _why_guard(found: _Call, entry: Optional[Entry], breaking_args: bool, value: str) -> str:
    """Why no setting can remove this call's break (said in the finding's note)."""
    if breaking_args:
        return "its arguments break the graph themselves, so only skipping the whole call under compile helps"
    if entry is None:
        setting = SETTING_OF[found.reason.cause]
        return (
            "the function is not compiled by this file, so no setting is placed here; "
            f"`torch._dynamo.config.{setting}.add({value})` next to your torch.compile call is the alternative"
            + (" (it keeps the output only for calls in the compiled function itself)" if setting == REORDER else "")
        )
    return "Dynamo can reorder only calls of tensors, constants and format strings, without keyword arguments"


def _reorder_refusal(call: cst.Call, facts: Optional[TensorFacts]) -> str:
    """Why Dynamo 2.13 would not reorder ``call`` (keywords, arguments it cannot keep), or ""."""
    for arg in call.args:
        if arg.keyword is not None or arg.star:
            return "keyword or starred arguments"
        if not _keepable(arg.value, facts):
            return "an argument Dynamo cannot keep"
    return ""


def _keepable(expr: cst.BaseExpression, facts: Optional[TensorFacts]) -> bool:
    """An argument Dynamo keeps for a reordered call: a tensor, a constant, a format string."""
    if isinstance(expr, (cst.SimpleString, cst.Integer, cst.Float, cst.Imaginary, cst.FormattedString)):
        return True
    if isinstance(expr, cst.ConcatenatedString):
        return True
    if isinstance(expr, cst.Name) and expr.value in ("True", "False", "None"):
        return True
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        receiver = expr.func.value
        if expr.func.attr.value == "format" and isinstance(receiver, (cst.SimpleString, cst.ConcatenatedString)):
            return True
        if expr.func.attr.value in _FRESH and not _is_plain_value(receiver, facts):
            return True  # a reduction: a tensor
    if facts is None:
        return False
    if isinstance(expr, cst.Name) and expr.value in _range_targets(facts.func):
        return True
    return facts.kind(expr) == TENSOR


def _is_plain_value(expr: cst.BaseExpression, facts: Optional[TensorFacts]) -> bool:
    return facts is not None and facts.kind(expr) == "other"


def _range_targets(func: cst.FunctionDef) -> set[str]:
    """Names a ``for name in range(...)`` of ``func`` binds: ints."""
    found: set[str] = set()
    for node in walk.descendants(func.body, lambda n: not isinstance(n, (cst.FunctionDef, cst.ClassDef))):
        if (
            isinstance(node, cst.For)
            and isinstance(node.target, cst.Name)
            and isinstance(node.iter, cst.Call)
            and dotted_name(node.iter.func) == "range"
        ):
            found.add(node.target.value)
    return found


def _argument_calls(call: cst.Call) -> list[cst.Call]:
    """Calls inside ``call``'s arguments (lambdas aside: they do not run here)."""
    return [
        node
        for arg in call.args
        for node in walk.descendants(arg.value, lambda n: not isinstance(n, cst.Lambda))
        if isinstance(node, cst.Call)
    ]


def _mutated_arguments(call: cst.Call, func: Optional[cst.FunctionDef]) -> str:
    """A name the arguments may alias that ``func`` changes in place (``x.add_(1)``, ``x += 1``,
    ``x[0] = 0``, ``out=x``), or ""."""
    if func is None:
        return ""
    mutated = _mutated_names(func)
    for arg in call.args:
        for name in _aliased_names(arg.value):
            if name in mutated:
                return name
    return ""


def _aliased_names(expr: cst.BaseExpression) -> list[str]:
    """Names whose tensor ``expr`` may be or view (a reduction's receiver makes a new tensor)."""
    names: list[str] = []
    stack: list[cst.CSTNode] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            names.append(node.value)
            continue
        if isinstance(node, cst.Lambda):
            continue
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in _FRESH:
            stack.extend(arg.value for arg in node.args)
            continue
        if isinstance(node, cst.Attribute):
            stack.append(node.value)
            continue
        stack.extend(walk.children(node))
    return names


def _mutated_names(func: cst.FunctionDef) -> set[str]:
    found: set[str] = set()
    for node in walk.descendants(func.body, lambda n: type(n) not in NESTED_SCOPES):
        if isinstance(node, cst.Call):
            method = node.func.attr.value if isinstance(node.func, cst.Attribute) else ""
            if method.endswith("_") and not method.startswith("_") and isinstance(node.func, cst.Attribute):
                found.update(_base_names(node.func.value))
            for arg in node.args:
                if arg.keyword is not None and arg.keyword.value == "out":
                    found.update(_base_names(arg.value))
                if arg.keyword is not None and arg.keyword.value == "inplace" and node.args[0].keyword is None:
                    found.update(_base_names(node.args[0].value))
        elif isinstance(node, cst.AugAssign):
            found.update(_base_names(node.target))
        elif isinstance(node, cst.AssignTarget) and isinstance(node.target, (cst.Subscript, cst.Attribute)):
            found.update(_base_names(node.target))
    return found


def _base_names(expr: cst.BaseExpression) -> list[str]:
    """``x`` of ``x``, ``x[0]``, ``x.data``, ``x[:, 1].T``."""
    while isinstance(expr, (cst.Subscript, cst.Attribute)):
        expr = expr.value
    return [expr.value] if isinstance(expr, cst.Name) else []


def _facts(found: _Call, torch_names: frozenset[str]) -> TensorFacts:
    assert found.function is not None
    is_method = found.cls is not None
    submodules = submodule_attributes(found.cls) if found.cls is not None else frozenset()
    return TensorFacts(found.function, is_method, submodules, torch_names)


def torch_spelling(module: cst.Module) -> Optional[str]:
    """The name a module-level import binds ``torch`` to; "" when none does and ``torch`` is free; else None."""
    bound_otherwise = False
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            bound_otherwise = bound_otherwise or _defines(statement, "torch")
            continue
        for small in statement.body:
            if isinstance(small, cst.Import):
                for alias in small.names:
                    name = dotted_name(alias.name) or ""
                    if alias.asname is not None and name == "torch":
                        return dotted_name(alias.asname.name)
                    if alias.asname is None and name.split(".")[0] == "torch":
                        return "torch"
            elif isinstance(small, (cst.Assign, cst.AnnAssign, cst.ImportFrom)):
                bound_otherwise = bound_otherwise or _defines(small, "torch")
    return None if bound_otherwise else ""


def _defines(node: cst.CSTNode, name: str) -> bool:
    """Whether a module-level statement binds ``name`` (a def, a class, an assignment, a from-import)."""
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        return node.name.value == name
    if isinstance(node, cst.ImportFrom) and not isinstance(node.names, cst.ImportStar):
        return any((dotted_name(a.asname.name) if a.asname else dotted_name(a.name)) == name for a in node.names)
    if isinstance(node, cst.Assign):
        return any(name in target_names(target.target) for target in node.targets)
    if isinstance(node, cst.AnnAssign):
        return name in target_names(node.target)
    return False


# -- the walk ----------------------------------------------------------------------------


@dataclass
class _Settings:
    """The output settings a file already makes: for every entry, and per compiled function."""

    everywhere: set[tuple[str, str]] = field(default_factory=set)
    #: id(def) -> (setting, value) its decorator patches or a wrapped compile call of it patches
    per_function: dict[int, set[tuple[str, str]]] = field(default_factory=dict)
    #: id(compile call) -> what a patch wrapped around it sets
    per_call: dict[int, set[tuple[str, str]]] = field(default_factory=dict)

    def covers(self, setting: str, value: str, function: Optional[cst.FunctionDef], compiled: CompiledCode) -> bool:
        """Whether the file already sets ``setting`` to hold ``value`` where a call in ``function`` runs.

        A patch on an entry holds while its compiled calls run: an ignored
        call is ignored in whatever they reach, a reordered one is made only
        in the entry's own frame (Dynamo drops it in an inlined function).
        """
        if (setting, value) in self.everywhere:
            return True
        if function is None:
            return False
        for key, entry in compiled.entries.items():
            scoped = self.per_function.get(key, set()) | self.per_call.get(id(entry.site), set())
            if (setting, value) not in scoped:
                continue
            if entry.function is function or (setting == IGNORE and id(function) in compiled.entry_reach.get(key, ())):
                return True
        return False


class _Survey(ScopeTracker, cst.BatchableCSTVisitor):
    """Output calls (with their function and statement) and the output settings of the file."""

    def __init__(self, lookup: Lookup) -> None:
        ScopeTracker.__init__(self)
        cst.BatchableCSTVisitor.__init__(self)
        self.lookup = lookup
        self.calls: list[_Call] = []
        self.settings = _Settings()
        self._functions: list[cst.FunctionDef] = []
        self._classes: list[Optional[cst.ClassDef]] = []
        self._lines: list[cst.SimpleStatementLine] = []
        #: per function (the module first): the loops, `with` and `try` statements open there
        self._holders: list[list[cst.CSTNode]] = [[]]
        #: last names of the callees called inside a loop, `with` or `try` (``report`` of
        #: ``self.report(x)``): a break in them is raised inside that block
        self.called_in_blocks: set[str] = set()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        super().visit_ClassDef(node)
        self._classes.append(node)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        super().leave_ClassDef(original_node)
        self._classes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        for decorator in node.decorators:
            pairs = self._patched(decorator.decorator, self._scope)
            if pairs:
                self.settings.per_function.setdefault(id(node), set()).update(pairs)
        super().visit_FunctionDef(node)
        self._functions.append(node)
        self._classes.append(None)
        self._holders.append([])

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        super().leave_FunctionDef(original_node)
        self._functions.pop()
        self._classes.pop()
        self._holders.pop()

    # the statements around a call that the structural rules rewrite
    def visit_For(self, node: cst.For) -> None:
        super().visit_For(node)
        self._holders[-1].append(node)

    def leave_For(self, original_node: cst.For) -> None:
        self._holders[-1].pop()

    def visit_While(self, node: cst.While) -> None:
        self._holders[-1].append(node)

    def leave_While(self, original_node: cst.While) -> None:
        self._holders[-1].pop()

    def visit_With(self, node: cst.With) -> None:
        self._holders[-1].append(node)

    def leave_With(self, original_node: cst.With) -> None:
        self._holders[-1].pop()

    def visit_Try(self, node: cst.Try) -> None:
        self._holders[-1].append(node)

    def leave_Try(self, original_node: cst.Try) -> None:
        self._holders[-1].pop()

    def visit_TryStar(self, node: cst.TryStar) -> None:
        self._holders[-1].append(node)

    def leave_TryStar(self, original_node: cst.TryStar) -> None:
        self._holders[-1].pop()

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self._lines.append(node)

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine) -> None:
        self._lines.pop()

    def visit_Call(self, node: cst.Call) -> None:
        self._setting_call(node)
        if self._holders[-1]:
            self.called_in_blocks.add((dotted_name(node.func) or "").rpartition(".")[2])
        reason = self.lookup(node)
        if reason is None or not reason.cause or reason.via:
            return
        function = self._functions[-1] if self._functions else None
        cls = self._classes[-2] if function is not None and len(self._classes) >= 2 else None
        line = self._lines[-1] if self._lines else None
        whole = line is not None and len(line.body) == 1 and isinstance(line.body[0], cst.Expr)
        statement = line if whole and line.body[0].value is node else None  # type: ignore[union-attr]
        self.calls.append(_Call(node, reason, function, cls, statement, tuple(self._holders[-1])))

    # -- settings ------------------------------------------------------------------------
    def _setting_call(self, node: cst.Call) -> None:
        """``config.<set>.add(x)`` / ``.update({...})``, and ``config.patch(...)(compile call)``."""
        func = node.func
        if isinstance(func, cst.Call):
            pairs = self._patched(func, self._scope)
            inner = node.args[0].value if len(node.args) == 1 else None
            if pairs and isinstance(inner, cst.Call):
                self.settings.per_call.setdefault(id(inner), set()).update(pairs)
            return
        if not isinstance(func, cst.Attribute) or func.attr.value not in ("add", "update"):
            return
        names = names_in(self._scope, func.value)
        setting = next((n.rpartition(".")[2] for n in names if n.rpartition(".")[0] == _CONFIG), "")
        if setting in _SETS and node.args:
            values = _set_values(node.args[0].value) if func.attr.value == "update" else _values([node.args[0].value])
            self.settings.everywhere.update((_canonical(setting), value) for value in values)

    def _patched(self, expr: cst.BaseExpression, scope: Scope) -> set[tuple[str, str]]:
        """What ``torch._dynamo.config.patch(name={...}, ...)`` sets, when ``expr`` is such a call."""
        if not isinstance(expr, cst.Call) or not names_in(scope, expr.func) & {f"{_CONFIG}.patch"}:
            return set()
        pairs: set[tuple[str, str]] = set()
        for arg in expr.args:
            if arg.keyword is not None and arg.keyword.value in _SETS:
                pairs.update((_canonical(arg.keyword.value), value) for value in _set_values(arg.value))
        return pairs


def _canonical(setting: str) -> str:
    return IGNORE if setting == "ignore_logging_functions" else setting


def _set_values(expr: cst.BaseExpression) -> set[str]:
    """The dotted names of a set display (``{print, warnings.warn}``) or of a ``set([...])``-like literal."""
    if isinstance(expr, (cst.Set, cst.List, cst.Tuple)):
        return _values([element.value for element in expr.elements])
    return set()


def _values(exprs: list[cst.BaseExpression]) -> set[str]:
    return {name for name in map(dotted_name, exprs) if name}


def branch_holding(block: cst.CSTNode, node: cst.CSTNode) -> Optional[cst.If]:
    """The outermost ``if`` inside ``block`` (not in a function it defines) whose branches, not
    its test, hold ``node``: the path ``node`` is on runs only when that test says so."""

    def enter(inner: cst.CSTNode) -> bool:
        return type(inner) not in NESTED_SCOPES

    for inner in walk.descendants(block, enter=enter):
        if not isinstance(inner, cst.If):
            continue
        branches = [inner.body, *([inner.orelse] if inner.orelse is not None else [])]
        if any(found is node for branch in branches for found in walk.descendants(branch, enter=enter)):
            return inner
    return None
