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
    wrapper = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
    expected = wrapper.resolve(PositionProvider)
    got = wrapper.resolve(LazyPositionProvider)
    assert set(got) == set(expected)
    for node, position in expected.items():
        assert got[node] == position, (type(node).__name__, position, got[node])
        assert got.get(node) == position
    assert dict(got.items()) == dict(expected)
    assert list(got.values()) == [got[node] for node in got]
    return len(expected)


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
