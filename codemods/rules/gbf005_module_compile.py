"""GBF005: compile a module in place with ``model.compile()``.

What it finds
    ``model = torch.compile(model, ...)`` (or ``compiled = torch.compile(model,
    ...)``, or ``model = torch.compile(Net(...), ...)``) where the file shows
    that ``model`` is an ``nn.Module``: built by a class of this file that
    subclasses ``nn.Module``, by ``SomeModel.from_pretrained(...)``, by
    ``.to()``/``.cuda()``/``.eval()`` of such a module, or a parameter
    annotated ``nn.Module``. ``torch.compile`` on a function, as a decorator,
    or on anything the file does not show to be a module is left alone; a
    site with no evidence is reported without a fix.

Why it skips the frame
    It does not skip a frame; it breaks checkpoints. ``torch.compile(model)``
    returns an ``OptimizedModule`` that wraps the model: its type changes and
    every ``state_dict()`` key gains an ``_orig_mod.`` prefix, so a
    checkpoint saved from it does not load into the plain model (and the
    other way round). The PyTorch guide recommends ``model.compile()``, which
    compiles the module's forward in place and keeps its type and keys.

Example
    model = Net().cuda()
    model = torch.compile(model, mode="max-autotune")
    compiled = torch.compile(encoder)

Rewritten
    model = Net().cuda()
    model.compile(mode="max-autotune")
    encoder.compile()
    compiled = encoder

    Keyword arguments (``mode``, ``backend``, ``fullgraph``, ``dynamic``,
    ``options``…) carry over unchanged.

Fix safety
    Safe when the module's class is defined in this file (or loaded with
    ``from_pretrained``), so its ``forward`` lives outside torch, and
    nothing else can hold the module: it is built in the compiled
    expression (``Net().eval()``), or bound to a local name used before
    only as a receiver or a callee (``model.eval()``, ``model(x)``).
    ``.compile()`` changes the module itself, where ``torch.compile``
    wrapped it, so any other reference would run compiled too. Unsafe,
    with the reason: an alias or argument before the compile (``teacher =
    model``), a parameter (the caller's module), an attribute
    (``self.model``), a direct ``model.forward(...)`` call (compiled only
    through the wrapper), ``compiled = torch.compile(model)`` while
    ``model`` is used after it, or a module whose class is not known.
    Not fixed: built-in ``torch.nn`` modules (Dynamo skips frames inside
    ``torch/nn``, so on torch 2.13
    ``nn.Linear(...).compile()`` compiles nothing), files that use
    ``_orig_mod`` or ``OptimizedModule`` (they rely on the wrapper), DDP/FSDP
    wrappers (GBF006's), and compiled modules called or passed on in the
    same expression (``torch.compile(model)(x)``).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from codemods.analysis.compile_sites import (
    CompileFix,
    compile_sites,
    nested_with_wrapper,
    relies_on_wrapper,
    safety_of,
)
from codemods.analysis.module_evidence import Evidence, module_argument
from codemods.analysis.nodes import dotted_name
from codemods.analysis.statement_edits import assign, method_call
from codemods.rules.base import Example, Prefilter
from codemods.rules.placement_rule import PlacementRule


class ModuleCompile(PlacementRule):
    CODE = "GBF005"
    NAME = "module-compile"
    SUMMARY = "`m = torch.compile(m)` on an nn.Module: use `m.compile()`"
    # `@torch.compile` compiles a function, not a module: decorators do not count
    PREFILTER = Prefilter(words=("compile",), needs_break=False, calls=("torch.compile",), call_decorators=False)
    #: DDP/FSDP wrappers around torch.compile are GBF006's
    DEFERS_TO = ("GBF006",)
    EXAMPLES = (
        Example(
            before=(
                "import torch\n"
                "from torch import nn\n"
                "\n"
                "\n"
                "class Net(nn.Module):\n"
                "    def forward(self, x):\n"
                "        return x + 1\n"
                "\n"
                "\n"
                "model = Net()\n"
                'model = torch.compile(model, mode="max-autotune")\n'
            ),
            after=(
                "import torch\n"
                "from torch import nn\n"
                "\n"
                "\n"
                "class Net(nn.Module):\n"
                "    def forward(self, x):\n"
                "        return x + 1\n"
                "\n"
                "\n"
                "model = Net()\n"
                'model.compile(mode="max-autotune")\n'
            ),
        ),
        Example(
            before=("import torch\n\nmodel = torch.compile(load_model())\n"),
            after=None,
        ),
        Example(
            before=(
                "import torch\n"
                "\n"
                "\n"
                "@torch.compile(fullgraph=True)\n"
                "def f(x):\n"
                "    return x + 1\n"
                "\n"
                "\n"
                "g = torch.compile(f)\n"
            ),
            after=None,
        ),
    )

    def plan_module(self, module: cst.Module) -> None:
        self.wrapper_used = relies_on_wrapper(module)
        for call in compile_sites(module, self.facts):
            self.plan(call)

    # -- planning ---------------------------------------------------------------
    def plan(self, call: cst.Call) -> None:
        facts = self.facts
        arg = module_argument(call, "model")
        assert arg is not None
        obj = arg.value
        if facts.is_function(obj):
            return
        if nested_with_wrapper(call, obj, facts):
            if not self.defers_to("GBF006"):
                self.report(
                    call,
                    self.message(obj),
                    "none",
                    note="not fixed: DDP/FSDP and torch.compile are nested (GBF006 fixes that)",
                )
            return
        evidence = facts.evidence(obj)
        if evidence is not None and evidence.wrapper:
            if not self.defers_to("GBF006"):
                self.report(
                    call,
                    self.message(obj),
                    "none",
                    note="not fixed: it compiles a DDP/FSDP wrapper (GBF006 compiles the inner module)",
                )
            return
        line, small = self.assignment_of(call)
        if evidence is None or not evidence.is_module:
            if small is not None or evidence is not None:
                self.report(
                    call,
                    self.message(obj, known=False),
                    "none",
                    note=f"not fixed: nothing in this file shows that `{self.shown(obj)}` is an nn.Module",
                )
            return
        if any(a.star == "*" for a in call.args):
            self.report(call, self.message(obj), "none", note="not fixed: `*args` passed to torch.compile")
            return
        if isinstance(self.facts.parent(call), cst.AnnAssign):
            self.report(
                call,
                self.message(obj),
                "none",
                note="not fixed: an annotated assignment (the annotation would have to go)",
            )
            return
        if self.wrapper_used:
            self.report(
                call,
                self.message(obj),
                "none",
                note="not fixed: this file uses `_orig_mod`/`OptimizedModule`, so it relies on the wrapper",
            )
            return
        if small is not None and line is None:
            self.report(
                call,
                self.message(obj),
                "none",
                note="not fixed: the assignment is in a one-line block; give it its own line",
            )
            return
        if small is None or line is None:
            self.report(
                call,
                self.message(obj),
                "none",
                note="not fixed: the compiled module is used in the same expression; "
                f"call `{self.shown(obj)}.compile()` once and use `{self.shown(obj)}`",
            )
            return
        self.plan_assignment(call, arg, line, small, evidence)

    def plan_assignment(
        self,
        call: cst.Call,
        arg: cst.Arg,
        line: cst.SimpleStatementLine,
        small: cst.Assign,
        evidence: Evidence,
    ) -> None:
        obj = arg.value
        target = small.targets[0].target
        verdict = safety_of(evidence)
        compiled = method_call(obj, "compile", call, arg)
        same_name = dotted_name(target) is not None and dotted_name(target) == dotted_name(obj)
        if verdict.fix == "safe":
            # `compiled = torch.compile(model)`: `model` still names the plain module after the line
            shared = self.shared_reference(obj, line, shown=self.shown(obj), after=not same_name)
            if shared:
                verdict = CompileFix("unsafe", shared)
        if same_name:
            if self.report(call, self.message(obj), verdict.fix, note=verdict.note):
                self.edits.swap(line, small, compiled)
            return
        if len(line.body) != 1 or dotted_name(target) is None:
            self.report(
                call, self.message(obj), "none", note="not fixed: the assignment shares its line or unpacks its target"
            )
            return
        if dotted_name(obj) is not None:
            if self.report(call, self.message(obj), verdict.fix, note=verdict.note):
                self.edits.replace(line, [compiled, assign(target, obj)])
            return
        # `model = torch.compile(Net(...))`: build, bind, then compile in place.
        if self.report(call, self.message(obj), verdict.fix, note=verdict.note):
            self.edits.replace(line, [assign(target, obj), method_call(target, "compile", call, arg)])

    def assignment_of(self, call: cst.Call) -> tuple[Optional[cst.SimpleStatementLine], Optional[cst.Assign]]:
        """The line and ``x = torch.compile(...)`` statement when the call is its whole value."""
        small = self.facts.parent(call)
        if not isinstance(small, cst.Assign) or small.value is not call or len(small.targets) != 1:
            return None, None
        line = self.facts.parent(small)
        return (line if isinstance(line, cst.SimpleStatementLine) else None), small

    # -- messages -------------------------------------------------------------------
    @staticmethod
    def shown(obj: cst.BaseExpression) -> str:
        return dotted_name(obj) or cst.Module([]).code_for_node(obj)

    def message(self, obj: cst.BaseExpression, known: bool = True) -> str:
        # Name the module compiled, never the name the result is bound to: in
        # `compiled = torch.compile(Net())` the module is `Net()`, not `compiled`.
        shown = self.shown(obj)
        name = dotted_name(obj)
        use = f"`{name}.compile()`" if name else f"`.compile()` on the module `{shown}`"
        if not known:
            return (
                f"`torch.compile({shown})`: if it is an nn.Module, this wraps it in an "
                f"OptimizedModule (state_dict keys gain `_orig_mod.`); {use} would not"
            )
        return (
            f"`torch.compile({shown})` wraps the module in an OptimizedModule "
            f"(type changes, state_dict keys gain `_orig_mod.`); use {use}"
        )
