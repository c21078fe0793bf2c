"""GBF007: let a breaking third-party forward through a strict region.

What it finds
    Inside a region made strict by ``torch._dynamo.error_on_graph_break(True)``
    (a decorated function's body or a ``with`` block), a call to a module
    built from a third-party class (``enc = Encoder()``, ``self.enc =
    Encoder()``), or to a function imported from a third-party package,
    when there is evidence that it graph-breaks: the class or function is
    listed in ``[tool.gbfix] breaking_third_party``, a run recorded it, or its
    source (found through the import system, never imported) breaks in
    ``forward`` or in what ``forward`` calls, by the same break analysis as
    every other rule. A package is third-party when it is listed in
    ``third_party``, or it is not in ``first_party`` and lives outside the
    project (or in ``site-packages``).

Why it skips the frame
    It does not skip a frame; it stops the program. Under
    ``error_on_graph_break(True)`` any graph break raises instead of
    breaking, so a library module that logs or calls ``.item()`` in its
    forward makes the strict code fail to compile, and that code is not
    yours to change. The PyTorch guide's recipe is to relax strictness for
    that module only.

Example
    encoder = Encoder()            # from a third-party package

    @torch._dynamo.error_on_graph_break(True)
    def infer(x):
        return encoder(x) + 1

Rewritten
    encoder = Encoder()            # from a third-party package
    encoder.forward = torch._dynamo.error_on_graph_break(False)(encoder.forward)

    A function imported with ``from pkg import fn`` is wrapped after the
    import: ``fn = torch._dynamo.error_on_graph_break(False)(fn)``. The
    switch is spelled as in the strict region, with the file's own alias of
    ``torch``; ``import torch`` is added when the file has none.

Fix safety
    Safe for a module bound to a name or a function: in eager mode the
    wrapper only sets and restores a flag. Unsafe for a submodule
    (``self.enc``): the wrapped ``forward`` holds a reference to the object,
    so ``copy.deepcopy`` of the owning model shares the original's forward and
    ``torch.save`` of the whole model cannot pickle it; the same holds for a
    name the file passes to ``copy``, ``pickle`` or ``torch.save``. Not
    fixed: objects built inside the strict region, bound more than one way,
    or reached through a module attribute (``pkg.fn(x)``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Optional

import libcst as cst
from libcst.codemod.visitors import AddImportsVisitor, ImportItem
from libcst.metadata import ScopeProvider

from codemods.analysis.fix_safety import Safety
from codemods.analysis.module_evidence import Binding, ModuleFacts
from codemods.analysis.nodes import dotted_name
from codemods.analysis.third_party import callable_kind, package_kind, source_break
from codemods.fastcst import walk
from codemods.rules.base import Example, Prefilter
from codemods.rules.placement_rule import PlacementRule

STRICT_SWITCHES = frozenset(
    {
        "torch._dynamo.error_on_graph_break",
        "torch.compiler.error_on_graph_break",
    }
)
#: calls whose arguments must not be a wrapped module (they copy or pickle it)
_COPIERS = frozenset(
    {
        "copy.deepcopy",
        "copy.copy",
        "pickle.dump",
        "pickle.dumps",
        "torch.save",
        "torch.jit.script",
        "torch.jit.trace",
    }
)


@dataclass
class Target:
    """One third-party object called in a strict region, and how to fix it."""

    key: str
    qualname: str
    evidence: str
    #: statements to insert the wrap after (constructions, or the import)
    anchors: list[cst.SimpleStatementLine] = field(default_factory=list)
    is_function: bool = False
    refusal: str = ""
    already: bool = False


class ThirdPartyForward(PlacementRule):
    CODE = "GBF007"
    NAME = "third-party-forward"
    SUMMARY = "breaking third-party forward in an error_on_graph_break(True) region: relax it there"
    PREFILTER = Prefilter(
        words=("error_on_graph_break",),
        needs_break=False,
        calls=("torch._dynamo.error_on_graph_break", "torch.compiler.error_on_graph_break"),
    )
    EXAMPLES = (
        Example(
            before=(
                "import torch\n"
                "from somelib import Encoder\n"
                "\n"
                "encoder = Encoder()\n"
                "\n"
                "\n"
                "@torch._dynamo.error_on_graph_break(True)\n"
                "def infer(x):\n"
                "    return encoder(x) + 1\n"
            ),
            after=(
                "import torch\n"
                "from somelib import Encoder\n"
                "\n"
                "encoder = Encoder()\n"
                "encoder.forward = torch._dynamo.error_on_graph_break(False)(encoder.forward)\n"
                "\n"
                "\n"
                "@torch._dynamo.error_on_graph_break(True)\n"
                "def infer(x):\n"
                "    return encoder(x) + 1\n"
            ),
            config={"breaking_third_party": ("somelib.Encoder",)},
        ),
        Example(
            # Nothing shows that somelib.Encoder breaks: left alone.
            before=(
                "import torch\n"
                "from somelib import Encoder\n"
                "\n"
                "encoder = Encoder()\n"
                "\n"
                "\n"
                "@torch._dynamo.error_on_graph_break(True)\n"
                "def infer(x):\n"
                "    return encoder(x) + 1\n"
            ),
            after=None,
        ),
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.add_torch = False

    def transform(self, tree: cst.Module) -> cst.Module:
        new = super().transform(tree)
        if self.add_torch:
            new = AddImportsVisitor(self.context, [ImportItem("torch")]).transform_module(new)
        return new

    def plan_module(self, module: cst.Module) -> None:
        regions = _Regions(self.facts)
        walk.visit(module, regions)
        self.strict_lines = regions.strict_lines
        self.alias = _torch_alias(module, self.line_of)
        self.copied = _copied_names(module, self.facts)
        seen: set[tuple[str, tuple[int, ...]]] = set()
        for call, switch in regions.calls:
            target = self.target_of(call)
            if target is None:
                continue
            token = (target.key, tuple(sorted(id(a) for a in target.anchors)))
            if token in seen or (target.already and not target.anchors):
                continue
            seen.add(token)
            self.plan(call, switch, target)

    # -- what the call reaches ---------------------------------------------------------
    def breaking(self, qualname: str) -> Optional[str]:
        """Why the third-party callable ``qualname`` breaks, or None."""
        options = self.options
        top = qualname.split(".")[0]
        if top in options.first_party or qualname.startswith("."):
            return None
        # Listing a callable says it is third-party and breaks, found or not.
        for entry in options.breaking_third_party:
            if qualname == entry or qualname.startswith(entry + "."):
                return "listed in breaking_third_party"
        if qualname in options.recorded_third_party:
            return "recorded as a graph break by a run"
        kind = package_kind(top, options.first_party, options.third_party, options.project_root)
        if kind != "third":
            return None
        found = source_break(qualname)
        if found is None:
            return None
        where = f"{_short(found.path, top)}:{found.line}"
        part = "forward" if found.kind == "class" else "body"
        return f"its {part} breaks: {found.reason} at {where}"

    def target_of(self, call: cst.Call) -> Optional[Target]:
        func = call.func
        key = dotted_name(func)
        if key is None:
            return None
        bindings = self.facts.bindings(func)
        if bindings is None:
            return self.through_module(call, key)
        return self.from_bindings(key, bindings, func)

    def through_module(self, call: cst.Call, key: str) -> Optional[Target]:
        """``pkg.fn(x)``: a third-party function reached through its module."""
        for qualname in sorted(self.facts.imported(call.func)):
            why = self.breaking(qualname)
            if why is not None and callable_kind(qualname) != "class":
                return Target(
                    key, qualname, why, refusal="it is reached through its module; import it by name to wrap it"
                )
        return None

    def from_bindings(self, key: str, bindings: list[Binding], func: cst.BaseExpression) -> Optional[Target]:
        target: Optional[Target] = None
        other = ""
        for binding in bindings:
            if _is_none(binding.value):
                continue
            if (
                binding.value is None
                and isinstance(binding.statement, cst.SimpleStatementLine)
                and all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in binding.statement.body)
            ):
                found = self.imported_function(key, func, binding)
            elif isinstance(binding.value, cst.Call):
                if self.is_wrap(binding.value):
                    return None  # `fn = error_on_graph_break(False)(fn)`: already fixed
                found = self.construction(key, binding)
            else:
                found = None
            if found is None:
                other = other or "it is also bound to something gbfix cannot follow"
                continue
            if target is None:
                target = found
            elif target.is_function != found.is_function:
                other = "it is bound both to a module and to a function"
            else:
                target.anchors.extend(found.anchors)
                target.refusal = target.refusal or found.refusal
                target.already = target.already and found.already
        if target is not None and other:
            target.refusal = target.refusal or other
        return target

    def imported_function(self, key: str, func: cst.BaseExpression, binding: Binding) -> Optional[Target]:
        for qualname in sorted(self.facts.imported(func)):
            if callable_kind(qualname) == "class" or qualname.rsplit(".", 1)[-1][:1].isupper():
                continue  # calling a class builds an object: not a forward call
            why = self.breaking(qualname)
            if why is None:
                continue
            line = binding.statement
            assert isinstance(line, cst.SimpleStatementLine)
            target = Target(key, qualname, why, [line], is_function=True)
            if self.facts.parent(line) is not self.facts.module:
                target.refusal = "it is imported inside a block; import it at module level to wrap it"
            return target
        return None

    def construction(self, key: str, binding: Binding) -> Optional[Target]:
        call = binding.value
        assert isinstance(call, cst.Call)
        for qualname in sorted(self.facts.imported(call.func)):
            if qualname.rsplit(".", 1)[-1][:1].islower() and callable_kind(qualname) != "class":
                continue
            why = self.breaking(qualname)
            if why is None:
                continue
            line = binding.statement
            target = Target(key, qualname, why)
            if (
                not isinstance(line, cst.SimpleStatementLine)
                or len(line.body) != 1
                or not isinstance(self.facts.parent(line), (cst.IndentedBlock, cst.Module))
            ):
                target.refusal = "it is built in a statement gbfix cannot add a line after"
                return target
            if id(line) in self.strict_lines:
                target.refusal = "it is built inside the strict region itself"
            if self.wrapped_after(line, key):
                target.already = True  # fixed before: nothing to add here
            else:
                target.anchors.append(line)
            return target
        return None

    def is_wrap(self, call: cst.Call) -> bool:
        inner = call.func
        return isinstance(inner, cst.Call) and bool(self.facts.qualified(inner.func) & STRICT_SWITCHES)

    def wrapped_after(self, line: cst.SimpleStatementLine, key: str) -> bool:
        """Is ``key.forward`` assigned in the block that builds ``key``?"""
        block = self.facts.parent(line)
        wanted = f"{key}.forward"
        for statement in getattr(block, "body", ()):
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, cst.Assign) and any(dotted_name(t.target) == wanted for t in small.targets):
                        return True
        return False

    # -- the fix ----------------------------------------------------------------------------
    def plan(self, call: cst.Call, switch: str, target: Target) -> None:
        shown = target.key
        message = (
            f"`{shown}` ({target.qualname}) is called in a region made strict by "
            f"error_on_graph_break(True) and graph-breaks ({target.evidence}): the strict code raises"
        )
        fix: Safety = "safe"
        note = ""
        alias = self.usable_alias(target)
        if target.refusal:
            fix, note = "none", f"not fixed: {target.refusal}"
        elif alias is None:
            fix, note = "none", "not fixed: `torch` is bound to something else in this file"
        elif not target.is_function and "." in target.key:
            fix, note = (
                "unsafe",
                (
                    "the wrapped forward refers to this object: copy.deepcopy of the owning model shares "
                    "the original's forward, and torch.save of the whole model cannot pickle it"
                ),
            )
        elif not target.is_function and target.key in self.copied:
            fix, note = (
                "unsafe",
                f"`{target.key}` is copied or pickled in this file; the wrapped forward would not follow",
            )
        lines = tuple(self.line_of(a) for a in target.anchors)
        if not self.report(call, message, fix, note=note, also_lines=lines):
            return
        assert alias is not None
        if alias == "":
            self.add_torch = True
            alias = "torch"
        spelled = alias + switch[len("torch") :]
        for anchor in target.anchors:
            self.edits.insert_after(anchor, [_wrap_statement(target, spelled)])

    def usable_alias(self, target: Target) -> Optional[str]:
        """The name to spell ``torch`` with at the anchors; "" to add ``import torch``; None: cannot."""
        name, line = self.alias
        if name is not None:
            module_level = [a for a in target.anchors if self.facts.parent(a) is self.facts.module]
            if all(self.line_of(a) > (line or 0) for a in module_level):
                return name
            return None
        scope = self.get_metadata(ScopeProvider, self.facts.module, None)
        if scope is not None and "torch" in scope:
            return None
        return ""


def _wrap_statement(target: Target, switch: str) -> cst.SimpleStatementLine:
    key = target.key
    text = (
        f"{key} = {switch}(False)({key})\n"
        if target.is_function
        else f"{key}.forward = {switch}(False)({key}.forward)\n"
    )
    statement = cst.parse_statement(text)
    assert isinstance(statement, cst.SimpleStatementLine)
    return statement


def _short(path: str, top: str) -> str:
    """``pkg/mod.py`` for a file of package ``pkg``: stable across machines."""
    parts = os.path.normpath(path).split(os.sep)
    return "/".join(parts[parts.index(top) :]) if top in parts else os.path.basename(path)


def _is_none(value: Optional[cst.BaseExpression]) -> bool:
    return isinstance(value, cst.Name) and value.value == "None"


def _torch_alias(module: cst.Module, line_of) -> tuple[Optional[str], Optional[int]]:
    """The module-level name ``torch`` is imported as, and the line, if any."""
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not isinstance(small, cst.Import):
                continue
            for alias in small.names:
                name = dotted_name(alias.name)
                if name == "torch" and alias.asname is not None:
                    return alias.asname.name.value, line_of(statement)  # type: ignore[union-attr]
                if name is not None and (name == "torch" or name.startswith("torch.")) and alias.asname is None:
                    return "torch", line_of(statement)
    return None, None


def _copied_names(module: cst.Module, facts: ModuleFacts) -> set[str]:
    """Names passed to ``copy.deepcopy``, ``pickle.dump``, ``torch.save``… anywhere in the file."""
    names: set[str] = set()
    for node in walk.descendants(module):
        if isinstance(node, cst.Call) and facts.qualified(node.func) & _COPIERS:
            names.update(shown for shown in map(dotted_name, (arg.value for arg in node.args)) if shown)
    return names


class _Regions(cst.CSTVisitor):
    """Calls made inside ``error_on_graph_break(True)`` regions, and the lines there."""

    def __init__(self, facts: ModuleFacts) -> None:
        self.facts = facts
        #: (call, qualified name of the switch that made it strict)
        self.calls: list[tuple[cst.Call, str]] = []
        self.strict_lines: set[int] = set()
        self._bodies: dict[int, Optional[str]] = {}
        #: the switch in force ("" = not strict)
        self._stack: list[str] = [""]

    def switch(self, node: cst.BaseExpression) -> Optional[tuple[str, bool]]:
        if not isinstance(node, cst.Call) or len(node.args) != 1 or node.args[0].keyword is not None:
            return None
        names = self.facts.qualified(node.func) & STRICT_SWITCHES
        value = node.args[0].value
        if not names or not isinstance(value, cst.Name) or value.value not in ("True", "False"):
            return None
        return sorted(names)[0], value.value == "True"

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        # A nested function runs when called, not where it is defined: not
        # strict unless decorated so.
        state = ""
        for decorator in node.decorators:
            found = self.switch(decorator.decorator)
            if found is not None:
                state = found[0] if found[1] else ""
        self._bodies[id(node.body)] = state

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._bodies[id(node.body)] = ""

    def visit_With(self, node: cst.With) -> None:
        for item in node.items:
            found = self.switch(item.item)
            if found is not None:
                self._bodies[id(node.body)] = found[0] if found[1] else ""

    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self._bodies:
            self._stack.append(self._bodies[id(node)] or "")
        if self._stack[-1]:
            if isinstance(node, cst.SimpleStatementLine):
                self.strict_lines.add(id(node))
            elif isinstance(node, cst.Call):
                self.calls.append((node, self._stack[-1]))
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        if id(original_node) in self._bodies:
            self._stack.pop()
