"""GBF009 hoists a read safely only where each trip makes it and nothing can change what it reads.

A read under a condition, after a ``break``, on the right of ``and``, or of an
attribute (which may be a property) is hoisted only with ``--unsafe-fixes``: a
trip may not make it, and hoisted it runs once anyway (``.item()`` of a tensor
of two elements raises), or the property runs once instead of on every trip.
A receiver that is not a name of the function's own (a global) may be changed
by any call in the loop; one held by a list (``s = ts[0]``) by a change to
the list's item; a ``self`` attribute by assigning it. Those are refused.
Each case is also run: the hoisted code differs from the loop as written,
which is what the rule prevents.
"""

from __future__ import annotations

import pytest

from rewriter.engine.config import Settings
from rewriter.engine.pipeline import transform_source

PRELUDE = (
    "import torch\n\n"
    "class Counting:\n"
    "    calls = 0\n\n"
    "    @property\n"
    "    def scale(self):\n"
    "        self.calls += 1\n"
    "        return torch.tensor(float(self.calls))\n\n"
)

#: name -> (source of f(x, s), what the note says, the arguments after x)
UNSAFE = {
    "under_if": (
        "def f(x, s):\n"
        "    for i in range(3):\n"
        "        if s.numel() == 1:\n"
        "            x = x * s.item()\n"
        "    return x\n",
        "the read is under a condition",
        "two",
    ),
    "after_break": (
        "def f(x, s):\n"
        "    for i in range(3):\n"
        "        if i == 0:\n"
        "            break\n"
        "        x = x * s.item()\n"
        "    return x\n",
        "the read is after a `break`",
        "two",
    ),
    "right_of_and": (
        "def f(x, s, flag=False):\n    for i in range(3):\n        x = x + (flag and s.item())\n    return x\n",
        "the read is under a condition",
        "two",
    ),
    "property": (
        "def f(x, p):\n    for i in range(3):\n        x = x * p.scale.item()\n    return x\n",
        "`p.scale` may be a property",
        "counting",
    ),
}

REFUSED = {
    "global_changed_by_call": (
        "G = torch.tensor(1.0)\n\n"
        "def bump():\n"
        "    global G\n"
        "    G = G + 1\n\n"
        "def f(x, s):\n"
        "    for i in range(3):\n"
        "        x = x * G.item()\n"
        "        bump()\n"
        "    return x\n",
        "`G` is not a name of the function's own, and `bump()`, which could change it, is called",
        "G.item()",
    ),
    "item_of_a_list": (
        "def f(x, ts):\n"
        "    s = ts[0]\n"
        "    for i in range(3):\n"
        "        x = x * s.item()\n"
        "        ts[0].add_(1)\n"
        "    return x\n",
        "may share its values with `ts`, which `.add_()` changes",
        "s.item()",
    ),
    "part_changed_in_place": (
        "def f(x, s):\n    for i in range(3):\n        x = x * s.item()\n        s[0].add_(1)\n    return x\n",
        "is changed in place by `.add_()`",
        "s.item()",
    ),
    "view_by_a_torch_function": (
        "def f(x, s):\n"
        "    v = torch.narrow(s, 0, 0, 1)\n"
        "    for i in range(3):\n"
        "        x = x * s.item()\n"
        "        v.add_(1)\n"
        "    return x\n",
        "may share its values with `v`, which `.add_()` changes",
        "s.item()",
    ),
    "self_attribute_assigned": (
        "class M(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.scale = torch.tensor(1.0)\n\n"
        "    def forward(self, x):\n"
        "        for i in range(3):\n"
        "            x = x * self.scale.item()\n"
        "            self.scale = self.scale + 1\n"
        "        return x\n\n"
        "def f(x, s):\n"
        "    return M()(x)\n",
        "is assigned to in part",
        "self.scale.item()",
    ),
}


def _arguments(kind: str):
    import torch

    if kind == "two":
        return (torch.tensor([2.0, 3.0]),)
    if kind == "list":
        return ([torch.tensor(2.0)],)
    return (torch.tensor([2.0]),)


def gbf009(source: str, fix_mode: str):
    settings = Settings(select=("GBF009",), reach="all", fix_mode=fix_mode)
    return transform_source(PRELUDE + source, "/project/case.py", settings)


def run(source: str, kind: str):
    """What ``f`` returns, or the exception it raises."""
    import torch

    namespace: dict = {}
    exec(compile(source, "<case>", "exec"), namespace)
    second = namespace["Counting"]() if kind == "counting" else _arguments(kind)[0]
    try:
        return namespace["f"](torch.ones(1), second)
    except RuntimeError as exc:
        return exc


def same(a, b) -> bool:
    if isinstance(a, Exception) or isinstance(b, Exception):
        return type(a) is type(b) and str(a) == str(b)
    return bool(a.equal(b))


@pytest.mark.parametrize("case", sorted(UNSAFE))
def test_a_read_a_trip_may_not_make_is_hoisted_only_as_unsafe(case: str) -> None:
    source, why, kind = UNSAFE[case]
    safe = gbf009(source, "safe")
    assert safe.new_text is None
    (finding,) = safe.findings
    assert finding.fix == "unsafe" and why in finding.note, finding.note
    hoisted = gbf009(source, "unsafe").new_text
    assert hoisted is not None and "_gbfix_" in hoisted
    assert not same(run(PRELUDE + source, kind), run(hoisted, kind))


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_receiver_the_loop_may_change_keeps_its_read(case: str) -> None:
    source, why, read = REFUSED[case]
    outcome = gbf009(source, "unsafe")
    assert outcome.new_text is None
    (finding,) = outcome.findings
    assert finding.fix == "none" and why in finding.note, finding.note
    # hoisted by hand, the read misses the changes
    loop = next(line for line in source.splitlines(keepends=True) if line.lstrip().startswith("for "))
    indent = loop[: len(loop) - len(loop.lstrip())]
    hoisted = source.replace(loop, f"{indent}once = {read}\n{loop}", 1).replace(f"x * {read}", "x * once")
    assert hoisted != source
    kind = "list" if case == "item_of_a_list" else "one"
    assert not same(run(PRELUDE + source, kind), run(PRELUDE + hoisted, kind))
