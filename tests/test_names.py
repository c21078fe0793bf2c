"""codemods.analysis.names.scopes answers what libcst's QualifiedNameProvider answers, for the calls that matter."""

from __future__ import annotations

import glob
import os
import textwrap

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, QualifiedNameProvider

from codemods.analysis.catalogue import BY_QUALIFIED
from codemods.analysis.names.scopes import NameScopeProvider, qualified_names

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCOPES = textwrap.dedent("""\
    import torch as t
    import torch._dynamo
    import os.path
    from time import perf_counter as pc
    from . import sibling
    from .pkg import thing as other

    def shadowed(print, x):
        print(x)
        open(x)

    def uses_globals():
        global pc
        pc = lambda: 0
        pc()

    def outer():
        repr = str
        def inner():
            nonlocal repr
            repr(1)
        inner()
        print(t.compile, torch._dynamo.graph_break(), os.path.join("a"), sibling.f(), other())

    class Box:
        input = None
        def method(self):
            input("?")
            [print(v) for v in range(2)]
            (lambda print: print(1))(len)

    def late():
        from torch._dynamo import graph_break as gb
        gb()
    """)


class _Both(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (QualifiedNameProvider, NameScopeProvider)

    def __init__(self) -> None:
        super().__init__()
        self.pairs: list[tuple[str, set[str], set[str]]] = []

    def visit_Call(self, node: cst.Call) -> None:
        theirs = {q.name for q in self.get_metadata(QualifiedNameProvider, node.func, set())}
        ours = qualified_names(self, node)
        self.pairs.append((cst.Module([]).code_for_node(node.func), ours, theirs))


def pairs(source: str) -> list[tuple[str, set[str], set[str]]]:
    both = _Both()
    MetadataWrapper(cst.parse_module(source)).visit(both)
    return both.pairs


def test_scopes_resolve_as_python_does():
    found: dict[str, set[str]] = {}
    for code, ours, _ in pairs(SCOPES):
        found.setdefault(code, ours)  # the first call written so
    assert found["print"] == {"shadowed.<locals>.print"}
    assert found["open"] == {"builtins.open"}
    assert found["pc"] == {"time.perf_counter", "pc"}
    assert found["repr"] == {"outer.<locals>.repr"}
    assert found["torch._dynamo.graph_break"] == {"torch._dynamo.graph_break"}
    assert found["os.path.join"] == {"os.path.join"}
    assert found["sibling.f"] == {".sibling.f"}
    assert found["other"] == {".pkg.thing"}
    assert found["input"] == {"builtins.input"}  # a class body is not seen from its methods
    assert found["gb"] == {"torch._dynamo.graph_break"}


@pytest.mark.parametrize(
    "path",
    sorted(glob.glob(os.path.join(ROOT, "golden", "*", "*.py"))) + ["<scopes>"],
    ids=lambda p: os.path.relpath(p, ROOT) if p != "<scopes>" else p,
)
def test_catalogue_calls_resolve_like_libcst(path):
    source = SCOPES if path == "<scopes>" else open(path, encoding="utf-8").read()
    catalogue = set(BY_QUALIFIED)
    for code, ours, theirs in pairs(source):
        assert ours & catalogue == theirs & catalogue, code
        # For a plain dotted name outside comprehensions (which libcst names
        # `<comprehension>`) the spelling is the same too.
        plain = all(part.isidentifier() for part in code.split("."))
        if plain and not any("<comprehension>" in name for name in theirs):
            assert ours == theirs, code
