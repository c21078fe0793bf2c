"""A per-trip function is not made where an int new on every trip indexes a store in it: Dynamo
pins the int to its value there and compiles the function again on every trip (golden
GBF002/trip_index_stored); an int it only reads through stays symbolic."""

from __future__ import annotations

import libcst as cst
import pytest

from codemods.analysis.nodes import body_statements
from codemods.analysis.per_iteration import stored_at_trip_ints


def _loop(source: str) -> cst.For:
    loop = cst.parse_module(source).body[0]
    assert isinstance(loop, cst.For)
    return loop


@pytest.mark.parametrize(
    ("source", "head", "params", "pinned"),
    [
        ("for i in range(n):\n    out[i, 0] = x[i] * 2\n", 0, ["i"], ["i"]),
        ("for i in range(n):\n    out[i] += x[i]\n", 0, ["i"], ["i"]),
        ("for i, row in enumerate(rows):\n    out[:, i] = row\n", 0, ["i", "row"], ["i"]),
        ("for i in range(n):\n    (out[i], rest) = x[i], x\n", 0, ["i"], ["i"]),
        ("for b in boxes:\n    k = len(b)\n    out[k] = b.sum()\n", 1, ["b", "k"], ["k"]),
        ("for b in boxes:\n    w = int(b.item())\n    out[w - 1] = b\n", 1, ["b", "w"], ["w"]),
        # only read through: stays symbolic
        ("for i in range(n):\n    out.append(x[i] * 2)\n", 0, ["i"], []),
        # a tensor index is no Python int
        ("for row in rows:\n    out[row] = 1\n", 0, ["row"], []),
        # the driver's own name, not a parameter: nothing is passed per trip
        ("for i in range(n):\n    out[i] = x[i]\n", 0, [], []),
        # a store inside a nested function is that function's business
        ("for i in range(n):\n    def f():\n        out[i] = 1\n    f()\n", 0, ["i"], []),
    ],
)
def test_ints_new_on_every_trip_that_index_a_store(source: str, head: int, params: list, pinned: list) -> None:
    loop = _loop(source)
    assert len(body_statements(loop.body)) > head
    assert stored_at_trip_ints(loop, head, params) == pinned


@pytest.mark.parametrize(
    ("source", "pinned"),
    [
        # a submodule picked by the int (VITS's WaveNet layers)
        ("for i in range(n):\n    h = self.layers[i](h)\n", ["i"]),
        ("for i in range(n):\n    layer = self.layers[i]\n    h = layer(h)\n", ["i"]),
        # a parameter tensor indexed by it stays symbolic (a mixture of experts' weights)
        ("for i in range(n):\n    h = h @ self.gate_up_proj[i]\n", []),
        # a list that is not the module's
        ("for i in range(n):\n    h = h + extras[i]\n", []),
    ],
)
def test_an_int_that_picks_a_submodule_is_pinned(source: str, pinned: list) -> None:
    assert stored_at_trip_ints(_loop(source), 0, ["i"], frozenset({"self.layers"})) == pinned
