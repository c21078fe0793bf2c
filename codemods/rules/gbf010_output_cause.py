"""GBF010: remove the cause: let Dynamo run print, warnings and logging calls after the graph, or not at all.

What it finds
    A call of ``print``, ``warnings.warn``, a ``logging`` function or a
    ``logging.Logger`` method in code that runs compiled: a function the
    file hands to ``torch.compile`` (decorated, passed by name, or the
    ``forward`` of a class whose instance the file compiles), the
    ``forward`` of any class with a base class (an ``nn.Module``), what
    those call in the same file, and any line a real run recorded as a
    graph break (``--trace``/``--log``). One-time notices libraries add to
    loggers (``logger.warning_once``) and deprecation notices (a message
    that says "deprecated", a warning in a deprecation category) count only
    on lines a real run recorded: they run on paths that seldom do.

Why it skips the frame
    Each such call is a graph break, and inside a loop the break makes
    Dynamo skip the whole function. GBF001-GBF004 contain that damage
    (unroll, outline, split); torch 2.13 can remove the break itself, which
    keeps the function in one graph.

    Measured on torch 2.13 (CPU, eager backend), a loop of three trips of
    ``x = x * 2`` and the call: as written the function is skipped (0 ops in
    graphs). With ``print("step", i, x.sum())`` reordered: one graph, 6 ops,
    the same lines printed with the same values. With
    ``logger.warning("step %d", i)`` ignored: one graph, 3 ops, coverage
    100%, nothing logged under compile. With ``warnings.warn("w")``
    reordered: one graph, 3 ops, coverage 100%, three warnings after the
    graph. With any of them under ``if not torch.compiler.is_compiling():``:
    one graph, 3 ops, nothing printed under compile.

Example
    @torch.compile
    def step(x):
        for i in range(3):
            x = x * 2
            print("step", i, x.sum())
        return x

Rewritten
    @torch._dynamo.config.patch(reorderable_logging_functions={print})
    @torch.compile
    def step(x):
        for i in range(3):
            x = x * 2
            print("step", i, x.sum())
        return x

    The setting goes where the file compiles the function the call is in:
    a ``torch._dynamo.config.patch(...)`` decorator above ``@torch.compile``,
    or around the call, ``torch._dynamo.config.patch(...)(torch.compile(step))``;
    for a compiled module (``torch.compile(model)``, ``model.compile()``),
    one line before that statement with a comment saying what it does,
    ``torch._dynamo.config.reorderable_logging_functions.add(print)``.
    A call in code the file does not compile itself (a submodule's
    ``forward``, a helper, a library) gets no process-wide setting; its fix
    is a guard around the call:

    if not torch.compiler.is_compiling():
        print("step", i, x.sum())

    The fixes, in order of safety. Reorder (``reorderable_logging_functions``,
    for ``print`` and ``warnings.warn``): under compile the call is made
    after the graph, with the values it had, so only its place among other
    output changes; eager runs are unchanged (Dynamo alone reads the
    setting). Drop under compile (``ignore_logger_methods`` for logger
    methods and ``logging`` functions, or the guard for any of them): under
    compile the call is not made and its output is gone; eager runs are
    unchanged (``is_compiling()`` is False there).

    When GBF010 fixes a break, GBF001-GBF004 and GBF009 leave that break to
    it; ``--ignore GBF010`` gives the structural fixes back, and ``--select``
    chooses among them.

    Settings that remove other kinds of break (``capture_scalar_outputs``
    for ``.item()``, ``capture_dynamic_output_shape_ops`` for ``nonzero()``)
    are not placed by a rule: they help one model and make another fail to
    compile. ``gbfix advise`` tries them, and the logging settings above, on
    a run of the program and recommends only what kept its outputs.

Fix safety
    Safe: reordering a ``print`` in the function the file compiles itself,
    whose arguments Dynamo keeps (tensors, reductions, constants,
    f-strings, ``str.format``; no keyword arguments), none of them changed
    in place later in the function, with no other break around it that a
    structural fix would act on. The same lines are printed with the same
    values, after the graph's work instead of during it.

    Unsafe (``--unsafe-fixes``), each measured on torch 2.13. A reordered
    call in a function the compiled one calls is never made: Dynamo inlines
    the function and drops the call. That holds for a call a structural fix
    moves into a helper too, so such calls get the guard, which says in the
    code that the output is gone under compile. A reordered call loses its
    keyword arguments (``print(x, end="")`` prints a newline), so such calls
    get the guard too. A tensor changed in place after a reordered ``print``
    (``x.add_(1)``, ``x += 1``) is printed with its new values. A reordered
    ``warnings.warn`` is attributed to the function's ``def`` line, not the
    call's: the printed location changes, and the default filter, which
    shows a warning once per line, may show fewer. Logger methods cannot be
    reordered on torch 2.13 (Dynamo still breaks on them), so logging calls
    are dropped under compile: ``ignore_logger_methods`` drops every call of
    that method in the compiled entry, the guard only this one. A call whose
    arguments break the graph themselves (``print(loss.item())``) is fixed
    only by the guard, which skips the whole call under compile. A call that
    is part of a larger expression is reported without a fix.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

import libcst as cst
from libcst.codemod.visitors import AddImportsVisitor, ImportItem

from codemods.analysis.breaks.cst import BreakProvider
from codemods.analysis.causes import REORDER, CauseAnalysis, CauseFix, analyse_causes
from codemods.analysis.nodes import dotted_name
from codemods.fastcst import walk
from codemods.fastcst.positions import LazyPositionProvider
from codemods.rules.base import Example, Prefilter, Rule

Replacement = Union[cst.BaseStatement, cst.FlattenSentinel[cst.BaseStatement]]
#: what each fix form does, said in the finding
_WHAT = {
    "reorder": "Dynamo can make it after the graph instead (`reorderable_logging_functions`)",
    "ignore": "Dynamo can skip it under compile (`ignore_logger_methods`)",
    "guard": "it can be skipped under compile (`if not torch.compiler.is_compiling():`)",
}
#: the comment on a process-wide setting line
_SAYS = {
    REORDER: "runs after the compiled graph, in the frame torch.compile starts on",
    "ignore_logger_methods": "is not called under torch.compile",
}


@dataclass
class _Plan:
    """The edits of one run, keyed by the ids of original nodes."""

    #: def -> (index of its compile decorator, setting -> values)
    decorators: dict[int, tuple[int, dict[str, set[str]]]] = field(default_factory=dict)
    #: compile call -> setting -> values (a patch wrapped around it)
    wraps: dict[int, dict[str, set[str]]] = field(default_factory=dict)
    #: statement -> setting -> values (lines before it)
    lines: dict[int, dict[str, set[str]]] = field(default_factory=dict)
    guards: set[int] = field(default_factory=set)
    imports: set[str] = field(default_factory=set)

    def __bool__(self) -> bool:
        return bool(self.decorators or self.wraps or self.lines or self.guards)


class OutputCause(Rule):
    CODE = "GBF010"
    NAME = "output-cause"
    SUMMARY = (
        "print, warnings.warn or a logging call breaks compiled code: run it after the graph, or not under compile"
    )
    #: compiled code is a `forward` or what the file compiles; a run's recorded lines are read whatever the words
    PREFILTER = Prefilter(words=("forward", "compile"), compiled_output=True)
    METADATA_DEPENDENCIES = (LazyPositionProvider, BreakProvider)
    EXAMPLES = (
        Example(
            before=(
                "import torch\n"
                "\n"
                "@torch.compile\n"
                "def step(x):\n"
                "    for i in range(3):\n"
                "        x = x * 2\n"
                '        print("step", i, x.sum())\n'
                "    return x\n"
            ),
            after=(
                "import torch\n"
                "\n"
                "@torch._dynamo.config.patch(reorderable_logging_functions={print})\n"
                "@torch.compile\n"
                "def step(x):\n"
                "    for i in range(3):\n"
                "        x = x * 2\n"
                '        print("step", i, x.sum())\n'
                "    return x\n"
            ),
        ),
        Example(
            # not compiled code: a plain function of a script
            before=(
                "import torch\n"
                "\n"
                "def report(losses):\n"
                "    for loss in losses:\n"
                "        print(loss)\n"
                "\n"
                "model = torch.compile(torch.nn.Linear(2, 2))\n"
            ),
            after=None,
        ),
    )

    def transform(self, tree: cst.Module) -> cst.Module:
        options = self.options
        if not self.makes_output_calls() and not options.recorded_break_lines:
            return tree
        analysis = analyse_causes(
            tree,
            self.lookup,
            self.line_of,
            options.recorded_break_lines,
            options.fix_mode,
            lambda node: self.suppressed_for(self.CODE, node),
        )
        self.torch = analysis.torch_name or "torch"
        self.plan = self._plan(analysis)
        if not self.plan:
            return tree
        new = tree.visit(self)
        wanted = sorted(self.plan.imports | ({"torch"} if analysis.torch_name == "" else set()))
        if wanted:
            new = AddImportsVisitor(self.context, [ImportItem(name) for name in wanted]).transform_module(new)
        return new

    # -- findings and the plan ------------------------------------------------------------------
    def _plan(self, analysis: CauseAnalysis) -> _Plan:
        plan = _Plan()
        for fix in sorted(analysis.fixes.values(), key=lambda f: self.line_of(f.call)):
            reach = self.reach_at(fix.call)
            if self.report(fix.call, self._message(fix), fix.fix, note=fix.note, reach=reach) and fix.form is not None:
                self._add(plan, fix)
        return plan

    def _message(self, fix: CauseFix) -> str:
        shown = dotted_name(fix.call.func) or "the call"
        what = _WHAT.get(fix.form or "", "no setting or guard removes it here")
        return f"`{shown}()` in compiled code breaks the graph: {what}"

    def _add(self, plan: _Plan, fix: CauseFix) -> None:
        if fix.form == "guard":
            assert fix.statement is not None
            plan.guards.add(id(fix.statement))
            return
        entry = fix.entry
        assert entry is not None
        module = fix.value.split(".")[0]
        if module in ("warnings", "logging"):
            plan.imports.add(module)
        if entry.kind == "decorator":
            index = next(i for i, d in enumerate(entry.function.decorators) if d is entry.site)
            _, settings = plan.decorators.setdefault(id(entry.function), (index, {}))
        elif entry.kind == "call":
            settings = plan.wraps.setdefault(id(entry.site), {})
        else:
            assert entry.statement is not None
            settings = plan.lines.setdefault(id(entry.statement), {})
        settings.setdefault(fix.setting, set()).add(fix.value)

    # -- the edits --------------------------------------------------------------------------------
    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        planned = self.plan.decorators.get(id(original_node))
        if planned is None:
            return updated_node
        index, settings = planned
        decorators = list(updated_node.decorators)
        decorators.insert(index, cst.Decorator(decorator=self._patch(settings)))
        return updated_node.with_changes(decorators=decorators)

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> Replacement:
        result: cst.BaseStatement = updated_node
        if any(id(node) in self.plan.wraps for node in _calls_in(original_node)):
            result = updated_node.visit(_WrapCalls(self.plan.wraps, self._patch))  # type: ignore[assignment]
        if id(original_node) in self.plan.guards:
            result = self._guarded(updated_node)
        before = self.plan.lines.get(id(original_node))
        if before is None:
            return result
        lines = self._setting_lines(before)
        lines[0] = lines[0].with_changes(leading_lines=updated_node.leading_lines)
        return cst.FlattenSentinel([*lines, result.with_changes(leading_lines=())])

    def _patch(self, settings: dict[str, set[str]]) -> cst.BaseExpression:
        """``torch._dynamo.config.patch(name={values}, ...)``, names and values sorted."""
        parts = ", ".join(f"{name}={{{', '.join(sorted(values))}}}" for name, values in sorted(settings.items()))
        return cst.parse_expression(f"{self.torch}._dynamo.config.patch({parts})")

    def _setting_lines(self, settings: dict[str, set[str]]) -> list[cst.SimpleStatementLine]:
        lines = []
        for name, values in sorted(settings.items()):
            for value in sorted(values):
                text = f"{self.torch}._dynamo.config.{name}.add({value})  # gbfix GBF010: {value}() {_SAYS[name]}\n"
                line = cst.parse_statement(text)
                assert isinstance(line, cst.SimpleStatementLine)
                lines.append(line)
        return lines

    def _guarded(self, statement: cst.SimpleStatementLine) -> cst.If:
        test = cst.parse_expression(f"not {self.torch}.compiler.is_compiling()")
        body = cst.IndentedBlock([statement.with_changes(leading_lines=())])
        return cst.If(test=test, body=body, leading_lines=statement.leading_lines)


def _calls_in(statement: cst.SimpleStatementLine) -> list[cst.Call]:
    return [node for node in walk.descendants(statement) if isinstance(node, cst.Call)]


class _WrapCalls(cst.CSTTransformer):
    """Wraps the compile calls of the plan (original nodes, by id) in a ``config.patch``."""

    def __init__(self, wraps: dict[int, dict[str, set[str]]], patch) -> None:
        super().__init__()
        self.wraps = wraps
        self.patch = patch

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        settings: Optional[dict[str, set[str]]] = self.wraps.get(id(original_node))
        if settings is None:
            return updated_node
        return cst.Call(func=self.patch(settings), args=[cst.Arg(updated_node)])
