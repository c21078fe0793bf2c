"""The read-only walks of codemods/fastcst/walk.py meet libcst's nodes in libcst's order."""

from __future__ import annotations

import glob
import os

import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings

from codemods.analysis.breaks.cst import BreakProvider
from codemods.analysis.names.scopes import NameScopeProvider
from codemods.fastcst import walk
from codemods.fastcst.positions import LazyPositionProvider
from tests import generated

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = sorted(glob.glob(os.path.join(ROOT, "golden", "**", "*.py"), recursive=True))
SOURCES = sorted(
    glob.glob(os.path.join(ROOT, "codemods", "**", "*.py"), recursive=True)
    + glob.glob(os.path.join(ROOT, "rewriter", "**", "*.py"), recursive=True)
)


class _Record(cst.CSTVisitor):
    def __init__(self) -> None:
        self.events: list[tuple[str, int]] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.events.append(("visit", id(node)))
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.events.append(("leave", id(original_node)))


class _RecordBatched(cst.BatchableCSTVisitor):
    """Hooks on a few node kinds, as the metadata providers have them."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[tuple[str, int]] = []

    def visit_Name(self, node: cst.Name) -> None:
        self.events.append(("Name", id(node)))

    def visit_Call(self, node: cst.Call) -> None:
        self.events.append(("Call", id(node)))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.events.append(("def", id(node)))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.events.append(("end def", id(original_node)))


def _assert_same_walk(source: str) -> int:
    module = cst.parse_module(source)
    expected, got = _Record(), _Record()
    module.visit(expected)
    walk.visit(module, got)
    assert got.events == expected.events
    assert [id(n) for n in walk.descendants(module, lambda n: True)] == [
        node for kind, node in expected.events if kind == "visit"
    ]
    batched_expected, batched_got = _RecordBatched(), _RecordBatched()
    cst.visit_batched(module, [batched_expected])
    walk.visit_batched(module, [batched_got])
    assert batched_got.events == batched_expected.events
    return len(expected.events)


@pytest.mark.parametrize("path", GOLDEN + SOURCES, ids=lambda p: os.path.relpath(p, ROOT))
def test_walk_order_is_libcsts(path: str) -> None:
    with open(path, encoding="utf-8") as handle:
        assert _assert_same_walk(handle.read()) > 0


# hypothesmith writes calls of literals (`1()`), which compile with this warning
@pytest.mark.filterwarnings("ignore:.* object is not callable; perhaps you missed a comma:SyntaxWarning")
@pytest.mark.fuzz
@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(generated.from_grammar() | generated.from_node())
def test_generated_program_walk_order_is_libcsts(source: str) -> None:
    try:
        cst.parse_module(source)
    except (cst.ParserSyntaxError, RecursionError):
        return
    _assert_same_walk(source)


def test_descendants_does_not_enter_where_told_not_to() -> None:
    module = cst.parse_module("def f():\n    g(lambda: h())\n")
    seen = [n for n in walk.descendants(module, lambda n: not isinstance(n, cst.Lambda))]
    names = {n.value for n in seen if isinstance(n, cst.Name)}
    assert names == {"f", "g"}


class _Bodies(cst.CSTVisitor, cst.BatchableCSTVisitor):
    """Counts loop bodies through an attribute hook, which only libcst's own walk calls."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def visit_For_body(self, node: cst.For) -> None:
        self.count += 1


@pytest.mark.parametrize(
    "run",
    [
        lambda module, visitor: walk.visit_batched(module, [visitor]),
        lambda module, visitor: walk.visit(module, visitor),
    ],
    ids=["visit_batched", "visit"],
)
def test_attribute_hooks_fall_back_to_libcst(run) -> None:  # type: ignore[no-untyped-def]
    visitor = _Bodies()
    run(cst.parse_module("for a in b:\n    for c in d:\n        pass\n"), visitor)
    assert visitor.count == 2


@pytest.mark.corpus
@pytest.mark.parametrize("provider", [LazyPositionProvider, NameScopeProvider, BreakProvider])
def test_wrapper_gives_the_same_metadata(provider: type) -> None:
    for path in GOLDEN:
        with open(path, encoding="utf-8") as handle:
            module = cst.parse_module(handle.read())
        expected = cst.MetadataWrapper(module, unsafe_skip_copy=True).resolve(provider)
        got = walk.ReadOnlyMetadataWrapper(module, unsafe_skip_copy=True).resolve(provider)
        assert set(got) == set(expected), path
        for node, value in expected.items():
            assert got[node] == value or (provider is NameScopeProvider and got[node].prefix == value.prefix), path


def test_all_distinct_sees_a_node_in_two_places() -> None:
    module = cst.parse_module("a = b\n")
    assert walk.all_distinct(module)
    name = cst.Name("x")
    shared = module.with_changes(
        body=[cst.SimpleStatementLine([cst.Expr(name)]), cst.SimpleStatementLine([cst.Expr(name)])]
    )
    assert not walk.all_distinct(shared)
