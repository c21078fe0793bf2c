"""Where ``torch.compile`` is applied to a module, and how safely it can be moved onto the module.

GBF005 (``model.compile()``) and GBF006 (compile inside a DDP/FSDP wrapper)
both start from :func:`compile_sites` and judge a fix by :func:`safety_of`.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from codemods.analysis.fix_safety import Safety
from codemods.analysis.module_evidence import (
    SAME_OBJECT_WRAPPERS,
    WRAPPERS,
    Evidence,
    ModuleFacts,
    module_argument,
)
from codemods.fastcst import walk

ALL_WRAPPERS = WRAPPERS | SAME_OBJECT_WRAPPERS


@dataclass(frozen=True)
class CompileFix:
    fix: Safety
    note: str = ""


def relies_on_wrapper(module: cst.Module) -> bool:
    """The file touches ``_orig_mod`` or ``OptimizedModule``: it expects the wrapper."""
    return any(
        (type(node) is cst.Name and node.value in ("_orig_mod", "OptimizedModule"))
        or (type(node) is cst.SimpleString and "_orig_mod" in node.value)
        for node in walk.descendants(module)
    )


def compile_sites(module: cst.Module, facts: ModuleFacts) -> list[cst.Call]:
    """Every ``torch.compile(x, ...)`` call with an object to compile (decorators excluded)."""
    return [
        # `@torch.compile(...)` decorates a function: decorators are not entered
        node
        for node in walk.descendants(module, lambda node: type(node) is not cst.Decorator)
        if type(node) is cst.Call and facts.is_compile_call(node) and module_argument(node, "model") is not None
    ]


def nested_with_wrapper(call: cst.Call, obj: cst.BaseExpression, facts: ModuleFacts) -> bool:
    """``DDP(torch.compile(m))`` or ``torch.compile(fully_shard(m))``: GBF006's patterns."""
    arg = facts.parent(call)
    outer = facts.parent(arg) if isinstance(arg, cst.Arg) else None
    if isinstance(outer, cst.Call) and facts.qualified(outer.func) & ALL_WRAPPERS:
        return True
    return isinstance(obj, cst.Call) and bool(facts.qualified(obj.func) & ALL_WRAPPERS)


def safety_of(evidence: Evidence) -> CompileFix:
    if evidence.compiles is False:
        return CompileFix(
            "none",
            "not fixed: a built-in torch.nn module; Dynamo skips torch/nn frames, so "
            "`.compile()` on it compiles nothing (keep torch.compile)",
        )
    if evidence.compiles is None:
        return CompileFix(
            "unsafe",
            f"{evidence.why}, but its class is not known here: if it is a built-in "
            "torch.nn module, `.compile()` compiles nothing",
        )
    return CompileFix("safe", f"evidence: {evidence.why}")
