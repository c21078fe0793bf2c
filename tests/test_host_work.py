"""GBF002 leaves host work eager: loops over values read from the device, and loops around or in them.

A loop that walks the Python numbers ``.tolist()`` copied off a tensor is
bookkeeping on the host; a frame per trip around it, or around the loop
that holds it, costs more than the few index ops it would capture. Other
breaking loops of the same function keep their rewrite.
"""

from __future__ import annotations

import libcst as cst
import pytest

from codemods.analysis.host_loops import device_value_names, host_loop, reads_device_values
from rewriter.engine.config import Settings
from rewriter.engine.pipeline import transform_source


def expression(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)


@pytest.mark.parametrize(
    "iterable",
    [
        "grid.tolist()",
        "enumerate(types.tolist())",
        "itertools.groupby(enumerate(types.tolist()), lambda pair: pair[1])",
        "zip(names, lengths.tolist())",
        "reversed(sorted(x.tolist()))",
    ],
)
def test_iterables_that_walk_values_read_from_the_device(iterable: str) -> None:
    assert reads_device_values(expression(iterable))


@pytest.mark.parametrize(
    "iterable",
    [
        "grid",
        "range(n)",
        "enumerate(self.layers)",
        "grid.tolist",
        "sorted(items, key=x.tolist())",
        "torch.split(x, lengths.tolist())",
    ],
)
def test_iterables_that_do_not(iterable: str) -> None:
    assert not reads_device_values(expression(iterable))


def function_of(code: str) -> cst.FunctionDef:
    statement = cst.parse_module(code).body[0]
    assert isinstance(statement, cst.FunctionDef)
    return statement


@pytest.mark.parametrize(
    ("body", "names"),
    [
        ("    sizes = grid.tolist()\n", {"sizes"}),
        ("    sizes = enumerate(grid.tolist())\n    if c:\n        sizes = zip(a.tolist(), b.tolist())\n", {"sizes"}),
        ("    sizes = grid.tolist()\n    sizes = [1, 2]\n", set()),
        ("    sizes = grid.tolist()\n    sizes += [3]\n", set()),
        ("    sizes = grid.tolist()\n    for sizes in rows:\n        pass\n", set()),
        ("    grid = grid.tolist()\n", set()),
        ("    a = b = grid.tolist()\n", set()),
        ("    def g():\n        sizes = grid.tolist()\n", set()),
        ("    sizes = grid.tolist\n", set()),
    ],
)
def test_names_bound_only_to_values_read_from_the_device(body: str, names: set[str]) -> None:
    """A parameter, another binding or a nested function's own name may hold anything."""
    assert device_value_names(function_of("def f(x, grid, a, b, c, rows):\n" + body)) == names


def test_a_loop_over_such_a_name_is_host_work() -> None:
    loop = loop_of("for t, h in sizes:\n    print(t)\n")
    assert host_loop(loop, frozenset({"sizes"})) is loop
    assert host_loop(loop) is None


def loop_of(code: str) -> cst.For:
    statement = cst.parse_module(code).body[0]
    assert isinstance(statement, cst.For)
    return statement


def test_a_loop_holding_one_in_its_body_is_host_work() -> None:
    outer = loop_of("for row in x:\n    for a in row.tolist():\n        print(a)\n")
    found = host_loop(outer)
    assert found is not None and found is not outer


def test_a_function_the_body_defines_is_not_the_loop_s_own_code() -> None:
    outer = loop_of("for row in x:\n    def f():\n        for a in row.tolist():\n            print(a)\n    f()\n")
    assert host_loop(outer) is None


HEADER = "import itertools\nimport torch\n\n"


def gbf002(code: str):
    source = HEADER + code
    outcome = transform_source(source, "/project/positions.py", Settings(select=("GBF002",), reach="all"))
    return {f.line - HEADER.count("\n"): f for f in outcome.findings}, outcome.new_text


@pytest.mark.parametrize(
    ("before", "header"),
    [("", "for t, h in grid.tolist():"), ("    sizes = grid.tolist()\n", "for t, h in sizes:")],
    ids=["iterable", "name"],
)
def test_a_breaking_loop_over_values_read_from_the_device_has_no_fix(before: str, header: str) -> None:
    found, new_text = gbf002(
        "def f(x, grid):\n"
        + before
        + "    out = []\n"
        + f"    {header}\n"
        + "        idx = torch.arange(t * h).reshape(t, h)\n"
        + "        out.append(idx[idx > 1])\n"
        + "    return torch.cat(out) + x\n"
    )
    line = 3 + before.count("\n")
    assert new_text is None
    assert found[line].fix == "none"
    assert found[line].note.startswith(f"host work: the loop at line {line + 3} runs over values read from the device")
    assert "`@torch.compiler.disable` on `f`" in found[line].note


def test_a_breaking_loop_over_a_name_bound_to_something_else_too_keeps_its_rewrite() -> None:
    found, new_text = gbf002(
        "def f(x, grid):\n"
        "    sizes = grid.tolist()\n"
        "    if x.dim() > 1:\n"
        "        sizes = [(1, 2)]\n"
        "    out = []\n"
        "    for t, h in sizes:\n"
        "        idx = torch.arange(t * h).reshape(t, h)\n"
        "        out.append(idx[idx > 1])\n"
        "    return torch.cat(out) + x\n"
    )
    assert found[6].fix == "safe"
    assert new_text is not None


def test_the_loop_around_a_host_loop_and_a_loop_in_it_have_no_fix() -> None:
    found, new_text = gbf002(
        "def f(ids, types):\n"
        "    out = []\n"
        "    for row in range(ids.shape[0]):\n"
        "        kinds = types[row][types[row] >= 0]\n"
        "        runs = [k for k, _ in itertools.groupby(kinds.tolist())]\n"
        "        for key, group in itertools.groupby(enumerate(kinds.tolist()), lambda p: p[1]):\n"
        "            runs.append(key)\n"
        "        for kind in runs:\n"
        "            out.append(torch.arange(kind) + int(ids[row].sum().item()))\n"
        "    return torch.cat(out)\n"
    )
    assert new_text is None
    assert sorted(found) == [3, 8]
    assert all(f.fix == "none" and f.note.startswith("host work: the loop at line 9") for f in found.values())


def test_another_breaking_loop_of_the_function_keeps_its_rewrite() -> None:
    found, new_text = gbf002(
        "def f(x, grid, layers):\n"
        "    sizes = [t * h for t, h in grid.tolist()]\n"
        "    for t, h in grid.tolist():\n"
        "        sizes.append(t + h)\n"
        "    for layer in layers:\n"
        "        x = layer(x) * 2\n"
        "        print(x.sum().item())\n"
        "    return x + len(sizes)\n"
    )
    assert found[5].fix == "safe"
    assert new_text is not None and "def _gbfix_" in new_text


# -- host work judged by what a loop computes ---------------------------------------------------

RESULTS = """\
import torch
from torch import nn


class M(nn.Module):
    def forward(self, x, backpointers, n: int):
        x = x * 2
{body}
        return x
"""


@pytest.mark.parametrize(
    "body",
    [
        # an alignment's backtrace: lists of ints
        "        path = [0]\n        for t in range(n):\n            path.insert(0, backpointers[t, path[0]].item())",
        # strings
        "        names = []\n        for t in range(n):\n            names.append(str(backpointers[t, 0].item()))",
        # scores in a dict of lists, as a safety checker keeps them
        "        found = {'bad': [], 'scores': {}}\n        for t in range(n):\n"
        "            found['scores'][t] = round(backpointers[t].sum().item() - 0.5, 3)\n"
        "            found['bad'].append(t)",
        # a count read off the device
        "        total = 0\n        for t in range(n):\n            total += int(backpointers[t].sum())\n"
        "        x = x + total",
    ],
)
def test_loops_whose_results_are_python_values_are_host_work(body: str, tmp_path) -> None:
    path = str(tmp_path / "m.py")
    outcome = transform_source(RESULTS.format(body=body), path, Settings(select=("GBF002",)))
    (finding,) = outcome.findings
    assert finding.fix == "none" and "host work: the loop computes Python values" in finding.note
    assert outcome.new_text is None


@pytest.mark.parametrize(
    "body",
    [
        # tensors stored in a list
        "        rows = []\n        for t in range(n):\n            rows.append(x[t] * int(backpointers[t].sum()))\n"
        "        x = torch.stack(rows)",
        # a tuple of tensors grown trip by trip (a layer loop's hidden states)
        "        states = ()\n        for t in range(n):\n"
        "            states = states + (x * backpointers[t].sum().item(),)\n"
        "        x = states[0]",
        # round() of a tensor is a tensor
        "        rows = []\n        for t in range(n):\n"
        "            rows.append(round(x[t] * backpointers[t].sum().item()))\n"
        "        x = torch.stack(rows)",
        # a tensor written in place
        "        for t in range(n):\n            x[t] = x[t] * backpointers[t].sum().item()",
        # a call made for its effect
        "        for t in range(n):\n            self.update(x, backpointers[t].sum().item())",
    ],
)
def test_loops_with_tensor_results_are_not(body: str, tmp_path) -> None:
    path = str(tmp_path / "m.py")
    outcome = transform_source(RESULTS.format(body=body), path, Settings(select=("GBF002",)))
    (finding,) = outcome.findings
    assert "host work" not in finding.note
