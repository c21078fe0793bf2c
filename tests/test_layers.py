"""The house's wings import one way only, read from the code itself.

``rewriter.cli -> rewriter.runtime -> rewriter.engine -> rewriter.prefilter ->
codemods.rules -> codemods.analysis -> codemods.fastcst``: a module may import
its own wing or any wing below it, never one above. Every import counts,
lazy ones inside functions and ``TYPE_CHECKING`` ones included. The
analysis wing is split by question (``project/``: does compiled code reach
this; ``breaks/``; ``tensors/``; ``names/``), each folder holding the libcst
answer and the cheap ``ast`` answer side by side: the project index is read
before any rule runs, yet lives below the rules, so ``codemods`` never needs
``rewriter``.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = ("rewriter", "codemods")
WINGS = (
    "rewriter.cli",
    "rewriter.runtime",
    "rewriter.engine",
    "rewriter.prefilter",
    "codemods.rules",
    "codemods.analysis",
    "codemods.fastcst",
)


def _modules() -> dict[str, str]:
    """Dotted module name -> file, for every module of the two packages."""
    found = {}
    for package in PACKAGES:
        for directory, _, files in os.walk(os.path.join(ROOT, package)):
            for name in files:
                if not name.endswith(".py"):
                    continue
                path = os.path.join(directory, name)
                dotted = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
                found[dotted.removesuffix(".__init__")] = path
    return found


MODULES = _modules()


def _imports(path: str) -> Iterator[tuple[str, int]]:
    """(imported module, line) for every import in the file, at any depth."""
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                # `from pkg import mod` imports the module pkg.mod
                full = f"{node.module}.{alias.name}"
                yield (full if full in MODULES else node.module), node.lineno


def _own(name: str) -> str | None:
    """The module of the two packages that an imported name is (or lies in)."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def _wing(module: str) -> int | None:
    for index, wing in enumerate(WINGS):
        if module == wing or module.startswith(wing + "."):
            return index
    return None  # a package root: rewriter/__init__, __main__, codemods/__init__


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {module: set() for module in MODULES}
    for module, path in MODULES.items():
        for name, _ in _imports(path):
            target = _own(name)
            if target is not None and target != module:
                graph[module].add(target)
    return graph


def test_every_module_lives_in_a_wing():
    roots = {"rewriter", "rewriter.__main__", "codemods"}
    assert sorted(m for m in MODULES if _wing(m) is None and m not in roots) == []


def test_imports_run_down_the_wings():
    upward = []
    for module, path in MODULES.items():
        here = _wing(module)
        for name, line in _imports(path):
            target = _own(name)
            if target is None or here is None:
                continue
            there = _wing(target)
            if there is not None and there < here:
                upward.append(f"{os.path.relpath(path, ROOT)}:{line}: {module} imports {target}")
    assert upward == []


def test_codemods_never_imports_rewriter():
    found = [
        f"{module}: {name}"
        for module, path in MODULES.items()
        if module.startswith("codemods")
        for name, _ in _imports(path)
        if name == "rewriter" or name.startswith("rewriter.")
    ]
    assert found == []


def test_no_rule_imports_another_rule():
    def is_rule(module: str) -> bool:
        return module.startswith("codemods.rules.gbf")

    found = [
        f"{module} imports {target}"
        for module, targets in _graph().items()
        if is_rule(module)
        for target in targets
        if is_rule(target)
    ]
    assert found == []


def test_the_import_graph_has_no_cycle():
    graph = _graph()
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                cycles.append(path[path.index(target) :] + [target])
            elif target not in state:
                visit(target, path + [target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert cycles == []


def test_only_the_runtime_imports_torch():
    found = [
        f"{module}:{line}"
        for module, path in MODULES.items()
        if not module.startswith("rewriter.runtime")
        for name, line in _imports(path)
        if name == "torch" or name.startswith("torch.")
    ]
    assert found == []


@pytest.mark.parametrize("module", sorted(m for m in MODULES if not m.startswith("codemods.fastcst")))
def test_only_fastcst_touches_libcst_internals(module):
    tree = ast.parse(open(MODULES[module], encoding="utf-8").read())
    named = [name for name, _ in _imports(MODULES[module]) if name.startswith("libcst._")]
    dotted = [
        ast.unparse(node)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and ast.unparse(node).startswith("libcst.")
    ]
    assert named + dotted == []


def test_the_check_sees_an_upward_import(tmp_path, monkeypatch):
    """The check itself can fail: an analysis module importing a rule is caught."""
    bad = tmp_path / "bad.py"
    bad.write_text("from codemods.rules.base import Rule\n")
    monkeypatch.setitem(MODULES, "codemods.analysis.bad", str(bad))
    with pytest.raises(AssertionError):
        test_imports_run_down_the_wings()
