"""GBF006: compile the inner module, then wrap it in DDP/FSDP.

What it finds
    ``torch.compile`` and a data-parallel wrapper in the wrong order or nested:
    ``torch.compile(DDP(model, ...))``, ``DDP(torch.compile(model), ...)``, the
    same with ``FullyShardedDataParallel`` and ``fully_shard``, and
    ``ddp = torch.compile(ddp)`` where ``ddp`` was built by ``DDP(...)`` or
    ``FullyShardedDataParallel(...)``. Wrappers are recognised by qualified
    name, so ``from torch.nn.parallel import DistributedDataParallel as DDP``
    counts.

Why it skips the frame
    It does not skip a frame; the PyTorch guide asks to compile the inner
    module before wrapping it. Compiling the wrapper makes Dynamo trace the
    wrapper's own forward (its bucketing and hooks) and returns an
    ``OptimizedModule`` whose ``state_dict`` keys gain ``_orig_mod.``;
    wrapping a compiled module puts ``_orig_mod.`` inside the wrapper's keys
    (``module._orig_mod.weight``), so checkpoints saved from it do not load
    into the plain model.

Example
    model = torch.compile(DDP(model, device_ids=[rank]), mode="max-autotune")
    ddp = DDP(torch.compile(net), device_ids=[rank])

Rewritten
    model.compile(mode="max-autotune")
    model = DDP(model, device_ids=[rank])
    net.compile()
    ddp = DDP(net, device_ids=[rank])

    ``ddp = torch.compile(ddp)`` becomes ``ddp.module.compile()``. When the
    inner module is an expression (``DDP(Net().cuda())``) and the result is
    assigned to a name, the module is bound to that name first.

Fix safety
    Safe when the inner module's class is defined in this file or loaded
    with ``from_pretrained`` (its forward lives outside torch, so
    ``Module.compile()`` compiles it); unsafe when its class is not known
    here (if it is a built-in ``torch.nn`` module, ``.compile()`` compiles
    nothing on torch 2.13), or when another name may reach the module:
    ``.compile()`` changes the module itself, where ``torch.compile``
    wrapped it, so that name would run compiled too. The inner module of
    ``DDP(torch.compile(net))`` must be built right there, or a local name
    used before only as a receiver or a callee and not after (unless the
    result takes the name); ``ddp.module.compile()`` for
    ``torch.compile(ddp)`` is always unsafe, as the wrapped module was
    handed to the wrapper by some name. Not fixed: built-in ``torch.nn``
    modules, and patterns that are not the whole value of an assignment,
    expression statement or ``return`` on a line of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

import libcst as cst

from codemods.analysis.compile_sites import ALL_WRAPPERS, compile_sites, safety_of
from codemods.analysis.fix_safety import Safety
from codemods.analysis.module_evidence import Evidence, module_argument
from codemods.analysis.nodes import dotted_name
from codemods.analysis.statement_edits import assign, method_call
from codemods.fastcst import walk
from codemods.rules.base import Example, Prefilter
from codemods.rules.placement_rule import PlacementRule

Statement = Union[cst.Assign, cst.Expr, cst.Return]


@dataclass(frozen=True)
class Site:
    """One nesting of ``torch.compile`` and a wrapper."""

    compile_call: cst.Call
    wrapper_call: cst.Call
    #: the inner module expression (the wrapper's or compile's argument)
    inner: cst.BaseExpression
    #: the outermost call of the two: the statement's whole value
    outer: cst.Call


class CompileInner(PlacementRule):
    CODE = "GBF006"
    NAME = "compile-inner"
    SUMMARY = "torch.compile around or inside DDP/FSDP: compile the inner module, then wrap"
    # `@torch.compile` compiles a function, not a module: decorators do not count
    PREFILTER = Prefilter(words=("compile",), needs_break=False, calls=("torch.compile",), call_decorators=False)
    EXAMPLES = (
        Example(
            before=(
                "import torch\n"
                "from torch import nn\n"
                "from torch.nn.parallel import DistributedDataParallel as DDP\n"
                "\n"
                "\n"
                "class Net(nn.Module):\n"
                "    def forward(self, x):\n"
                "        return x + 1\n"
                "\n"
                "\n"
                "def setup(rank):\n"
                "    model = Net().to(rank)\n"
                "    return torch.compile(DDP(model, device_ids=[rank]))\n"
            ),
            after=(
                "import torch\n"
                "from torch import nn\n"
                "from torch.nn.parallel import DistributedDataParallel as DDP\n"
                "\n"
                "\n"
                "class Net(nn.Module):\n"
                "    def forward(self, x):\n"
                "        return x + 1\n"
                "\n"
                "\n"
                "def setup(rank):\n"
                "    model = Net().to(rank)\n"
                "    model.compile()\n"
                "    return DDP(model, device_ids=[rank])\n"
            ),
        ),
        Example(
            before=(
                "import torch\n"
                "from torch import nn\n"
                "from torch.nn.parallel import DistributedDataParallel as DDP\n"
                "\n"
                "\n"
                "def setup(rank, model):\n"
                "    print(DDP(torch.compile(model)))\n"
            ),
            after=None,
        ),
    )

    def plan_module(self, module: cst.Module) -> None:
        for call in compile_sites(module, self.facts):
            self.plan_compile(call)
        for call in self.wrapper_calls(module):
            arg = module_argument(call, "module")
            if arg is not None and self.facts.is_compile_call(arg.value):
                inner = module_argument(arg.value, "model")  # type: ignore[arg-type]
                if inner is not None:
                    self.plan_nested(Site(arg.value, call, inner.value, call))  # type: ignore[arg-type]

    def wrapper_calls(self, module: cst.Module) -> list[cst.Call]:
        return [
            node
            for node in walk.descendants(module)
            if type(node) is cst.Call and self.facts.qualified(node.func) & ALL_WRAPPERS
        ]

    # -- torch.compile(DDP(m)) and ddp = torch.compile(ddp) ----------------------
    def plan_compile(self, call: cst.Call) -> None:
        arg = module_argument(call, "model")
        assert arg is not None
        value = arg.value
        if isinstance(value, cst.Call) and self.facts.qualified(value.func) & ALL_WRAPPERS:
            inner = module_argument(value, "module")
            if inner is not None:
                self.plan_nested(Site(call, value, inner.value, call))
            return
        evidence = self.facts.evidence(value)
        if evidence is None or not evidence.wrapper or dotted_name(value) is None:
            return
        self.plan_wrapped_name(call, arg, evidence)

    def plan_wrapped_name(self, call: cst.Call, arg: cst.Arg, evidence: Evidence) -> None:
        wrapped = arg.value
        name = dotted_name(wrapped)
        message = (
            f"`torch.compile({name})` compiles a {evidence.wrapper.rsplit('.', 1)[-1]} wrapper; "
            f"compile the inner module: `{name}.module.compile()`"
        )
        verdict = safety_of(evidence.inner) if evidence.inner is not None else None
        fix, note = (verdict.fix, verdict.note) if verdict else ("unsafe", "the inner module's class is not known here")
        if any(a.star == "*" for a in call.args):
            fix, note = "none", "not fixed: `*args` passed to torch.compile"
        if fix == "safe":
            # `.module.compile()` changes the module the wrapper holds, which its own name may reach too
            fix = "unsafe"
            note = f"the module `{name}` wraps is compiled in place: under any other name it runs compiled too"
        small, line = self.statement_of(call)
        if not isinstance(small, cst.Assign) or line is None or len(small.targets) != 1:
            fix, note = "none", "not fixed: the compiled wrapper is used in the same expression"
        elif dotted_name(small.targets[0].target) != name and len(line.body) != 1:
            fix, note = "none", "not fixed: the assignment shares its line with other statements"
        if not self.report(call, message, fix, note=note):
            return
        assert isinstance(small, cst.Assign) and line is not None
        compiled = method_call(cst.Attribute(wrapped, cst.Name("module")), "compile", call, arg)
        target = small.targets[0].target
        if dotted_name(target) == name:
            self.edits.swap(line, small, compiled)
        else:
            self.edits.replace(line, [compiled, assign(target, wrapped)])

    # -- the nested forms ---------------------------------------------------------
    def plan_nested(self, site: Site) -> None:
        wrapper_name = dotted_name(site.wrapper_call.func) or "the wrapper"
        inner_shown = dotted_name(site.inner) or cst.Module([]).code_for_node(site.inner)
        if site.outer is site.compile_call:
            message = (
                f"`torch.compile({wrapper_name}(...))` compiles the wrapper; compile the inner "
                f"module `{inner_shown}` first, then wrap it"
            )
        else:
            message = (
                f"`{wrapper_name}(torch.compile(...))` wraps an OptimizedModule; compile "
                f"`{inner_shown}` in place, then wrap it"
            )
        refusal = self.refusal(site)
        if refusal:
            self.report(site.outer, message, "none", note=f"not fixed: {refusal}")
            return
        evidence = self.facts.evidence(site.inner)
        fix: Safety
        if evidence is None:
            fix, note = "unsafe", "the inner module's class is not known here"
        else:
            verdict = safety_of(evidence)
            fix, note = verdict.fix, verdict.note
        small, line = self.statement_of(site.outer)
        assert small is not None and line is not None
        if fix == "safe":
            target = small.targets[0].target if isinstance(small, cst.Assign) and len(small.targets) == 1 else None
            rebound = target is not None and dotted_name(target) == dotted_name(site.inner)
            shared = self.shared_reference(site.inner, line, shown=inner_shown, after=not rebound)
            if shared:
                fix, note = "unsafe", shared
        if not self.report(site.outer, message, fix, note=note):
            return
        self.edits.replace(line, self.rewritten(site, small))

    def refusal(self, site: Site) -> str:
        if any(a.star == "*" for a in site.compile_call.args) or any(a.star == "*" for a in site.wrapper_call.args):
            return "`*args` in the call"
        small, line = self.statement_of(site.outer)
        if small is None or line is None or len(line.body) != 1:
            return "it is not the whole value of a statement on its own line"
        if dotted_name(site.inner) is None:
            target = small.targets[0].target if isinstance(small, cst.Assign) and len(small.targets) == 1 else None
            if target is None or dotted_name(target) is None:
                return "the inner module is an expression and the result is not assigned to a name"
            if _mentions(site.wrapper_call, dotted_name(target)):  # type: ignore[arg-type]
                return "the wrapper's arguments read the assigned name"
        return ""

    def rewritten(self, site: Site, small: Statement) -> list[cst.BaseSmallStatement]:
        compile_arg = module_argument(site.compile_call, "model")
        out: list[cst.BaseSmallStatement] = []
        inner: cst.BaseExpression = site.inner
        if dotted_name(inner) is None:
            assert isinstance(small, cst.Assign)
            target = small.targets[0].target
            out.append(assign(target, inner))
            inner = target
        out.append(method_call(inner, "compile", site.compile_call, compile_arg))
        if site.outer is site.compile_call:
            wrapper = site.wrapper_call.deep_replace(site.inner, inner.deep_clone())
        else:
            wrapper = site.wrapper_call.deep_replace(site.compile_call, inner.deep_clone())
        out.append(small.with_changes(value=wrapper))
        return out

    def statement_of(self, call: cst.Call) -> tuple[Optional[Statement], Optional[cst.SimpleStatementLine]]:
        small = self.facts.parent(call)
        if not isinstance(small, (cst.Assign, cst.Expr, cst.Return)) or small.value is not call:
            return None, None
        line = self.facts.parent(small)
        return small, (line if isinstance(line, cst.SimpleStatementLine) else None)


def _mentions(node: cst.CSTNode, name: str) -> bool:
    root = name.split(".")[0]
    return any(isinstance(n, cst.Name) and n.value == root for n in walk.descendants(node))
