"""GBF004 splits a ``try`` by default only where the breaking statement cannot raise.

The split takes the breaking statement out of the handlers. A print of an
attribute (``x.grad.shape`` with no gradient), of a parameter (any object, whose
``__str__`` may raise), with a format spec (``{y:.3f}`` of a tensor of three
elements) or with a starred argument may raise what a handler caught. Each case
is outlined by default; split anyway (``--unsafe-fixes``), it raises where the
original returned, which is what the default prevents.
"""

from __future__ import annotations

import builtins

import pytest

from rewriter.engine.config import Settings
from rewriter.engine.pipeline import transform_source

BREAKS = {
    "attribute": ('print("grad", x.grad.shape)', "AttributeError"),
    "parameter": ("print(obj)", "ValueError"),
    "format_spec": ('print(f"{y:.3f}")', "TypeError"),
    "starred": ("print(*obj)", "TypeError"),
}


class Unprintable:
    def __str__(self) -> str:
        raise ValueError("no str")


def source(statement: str, caught: str) -> str:
    return (
        "import torch\n\n"
        "def f(x: torch.Tensor, obj):\n"
        "    x = x.sin()\n"
        "    try:\n"
        "        y = x + 1\n"
        f"        {statement}\n"
        "        y = y * 2\n"
        f"    except {caught}:\n"
        "        y = x - 1\n"
        "    return y.cos()\n"
    )


def rewrite(text: str, fix_mode: str):
    return transform_source(text, "/project/case.py", Settings(select=("GBF004",), reach="all", fix_mode=fix_mode))


@pytest.mark.parametrize("case", sorted(BREAKS))
def test_a_break_that_may_raise_is_outlined_not_split(case: str) -> None:
    text = source(*BREAKS[case])
    outcome = rewrite(text, "safe")
    assert outcome.new_text is not None and "def _gbfix_try_1" in outcome.new_text
    assert "_gbfix_ok_" not in outcome.new_text
    (finding,) = outcome.findings
    assert finding.fix == "safe"


@pytest.mark.parametrize("case", sorted(BREAKS))
def test_split_anyway_the_break_escapes_the_handler(case: str) -> None:
    import torch

    text = source(*BREAKS[case])
    split = rewrite(text, "unsafe").new_text
    assert split is not None and "_gbfix_ok_" in split
    obj = Unprintable() if case == "parameter" else 3
    before: dict = {}
    after: dict = {}
    exec(compile(text, "<before>", "exec"), before)
    exec(compile(split, "<after>", "exec"), after)
    assert isinstance(before["f"](torch.ones(3), obj), torch.Tensor)
    with pytest.raises(getattr(builtins, BREAKS[case][1])):
        after["f"](torch.ones(3), obj)


def test_a_print_of_a_local_tensor_is_still_split() -> None:
    outcome = rewrite(source('print("y", y)', "ValueError"), "safe")
    assert outcome.new_text is not None and "_gbfix_ok_1 = True" in outcome.new_text
