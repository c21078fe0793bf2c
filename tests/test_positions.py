"""LazyPositionProvider gives every node the range libcst's PositionProvider gives it."""

from __future__ import annotations

import glob
import inspect
import os
import sys

import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings
from libcst.metadata import MetadataWrapper, PositionProvider

from codemods.fastcst import walk
from codemods.fastcst.positions import LazyPositionProvider
from tests import generated

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = sorted(glob.glob(os.path.join(ROOT, "golden", "**", "*.py"), recursive=True))

TRICKY = {
    "crlf": "def f(x):\r\n    for i in x:\r\n        print(i)\r\n",
    "lone cr": "a = 1\rb = (2,\r 3)\r",
    "continuation": "x = 1 + \\\n    2\nif x \\\n  and y:\n    pass\n",
    "triple-quoted": 'def f():\n    """doc\n\n    more"""\n    s = f"""{1}\n{2}"""\n    return s\n',
    "decorators and comments": "# top\n\n@a.b(1)\n# between\n@c\ndef f(  # c\n    x,\n):\n    return x  # t\n",
    "tabs and semicolons": "if x:\n\ta = 1; b = 2\n\tc = 3\n",
    "no trailing newline": "with a as b, c:\n    pass",
    "empty": "",
    "unicode": "def größe(ä):\n    return 'ß' + ä  # ünïcode\n",
    "class and try": (
        "class A(B, metaclass=M):\n    x: int = 1\n\n    def m(self):\n        try:\n            pass\n"
        "        except* (E, F) as e:\n            raise\n        else:\n            pass\n        finally:\n"
        "            del x\n"
    ),
    "match": "match p:\n    case [1, *rest] | {'k': v} if v:\n        pass\n    case _:\n        pass\n",
}


def _assert_same(source: str) -> int:
    module = cst.parse_module(source)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    expected = wrapper.resolve(PositionProvider)
    got = wrapper.resolve(LazyPositionProvider)
    assert set(got) == set(expected)
    for node, position in expected.items():
        assert got[node] == position, (type(node).__name__, position, got[node])
        assert got.get(node) == position
    assert dict(got.items()) == dict(expected)
    assert list(got.values()) == [got[node] for node in got]
    _assert_same_by_statement(module, source, expected)
    return len(expected)


def _assert_same_by_statement(module: cst.Module, source: str, expected) -> None:
    """With the text, each question generates only the top-level statement that holds the node:
    asked from the last node back, no question about a node in a statement generates the whole
    module, unless the text holds a statement's code twice."""
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True, cache={LazyPositionProvider: source})
    whole = []
    original = LazyPositionProvider._gen_impl

    def counted(self, tree):
        whole.append(tree)
        original(self, tree)

    LazyPositionProvider._gen_impl = counted
    try:
        got = wrapper.resolve(LazyPositionProvider)
        in_statements = [
            node
            for statement in module.body
            for node in walk.descendants(statement, enter=lambda n: type(n) not in walk.TRIVIA)
            if node in expected
        ]
        for node in reversed(in_statements):
            assert got[node] == expected[node], (type(node).__name__, expected[node], got[node])
        codes = [module.code_for_node(statement) for statement in module.body]
        if "\r" not in source and all(source.count(code) == 1 for code in codes):
            assert not whole, "a node of a statement generated the whole module"
        for node, position in expected.items():
            assert got.get(node) == position, (type(node).__name__, position, got.get(node))
    finally:
        LazyPositionProvider._gen_impl = original


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: os.path.relpath(p, ROOT))
def test_golden_file_positions_are_equal(path: str) -> None:
    with open(path, encoding="utf-8") as handle:
        assert _assert_same(handle.read()) > 0


@pytest.mark.parametrize("name", sorted(TRICKY))
def test_tricky_source_positions_are_equal(name: str) -> None:
    assert _assert_same(TRICKY[name]) > 0


def test_a_node_not_in_the_tree_has_no_position() -> None:
    wrapper = MetadataWrapper(cst.parse_module("x = 1\n"), unsafe_skip_copy=True)
    positions = wrapper.resolve(LazyPositionProvider)
    stranger = cst.Name("y")
    assert positions.get(stranger) is None
    assert positions.get(stranger, "none") == "none"
    with pytest.raises(KeyError):
        positions[stranger]


# hypothesmith writes calls of literals (`1()`), which compile with this warning
@pytest.mark.filterwarnings("ignore:.* object is not callable; perhaps you missed a comma:SyntaxWarning")
@pytest.mark.fuzz
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(generated.from_grammar())
def test_generated_source_positions_are_equal(source: str) -> None:
    try:
        cst.parse_module(source)
    except (cst.ParserSyntaxError, RecursionError):
        return
    _assert_same(source)


def test_a_walk_too_deep_for_the_recursion_limit_raises_recursion_error() -> None:
    # Not a KeyError from a range whose inner nodes were never recorded: the
    # engine reports a RecursionError as "too deeply nested".
    depth = 95
    source = "".join(" " * i + "if x:\n" for i in range(depth)) + " " * depth + "pass\n"
    wrapper = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
    positions = wrapper.resolve(LazyPositionProvider)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 100)
    try:
        with pytest.raises(RecursionError):
            positions.get(wrapper.module.body[0])
    finally:
        sys.setrecursionlimit(limit)
