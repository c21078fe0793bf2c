"""GBF009 reads a value once before a loop only if nothing in the loop may change the tensor it
reads: the tensor itself, another name the function binds to it or a view of it, or the object it
is read from. Arithmetic makes a new tensor, so a result of it may be handed to calls freely.

Each refused case is also run with the read hoisted by hand: the result differs, which is what
the refusal prevents.
"""

from __future__ import annotations

import pytest

from rewriter.engine.config import Settings
from rewriter.engine.pipeline import transform_source

REFUSED = {
    "alias": (
        "def f(x, scale):\n"
        "    s = scale\n"
        "    for i in range(3):\n"
        "        x = x * scale.item() + i\n"
        "        s.add_(1)\n"
        "    return x\n",
        "may share its values with `s`, which `.add_()` changes",
    ),
    "view": (
        "def f(x, scale):\n"
        "    v = scale.view(1)\n"
        "    for i in range(3):\n"
        "        x = x * scale.item() + i\n"
        "        v[0] += 1\n"
        "    return x\n",
        "may share its values with `v`, which is assigned to",
    ),
    "loop_target": (
        "def f(x, scale):\n"
        "    for s in [scale, scale]:\n"
        "        x = x * scale.item()\n"
        "        s.add_(1)\n"
        "    return x\n",
        "may share its values with `s`, which `.add_()` changes",
    ),
    "owner_alias": (
        "def f(x, holder):\n"
        "    h = holder\n"
        "    for i in range(3):\n"
        "        x = x * holder.scale.item() + i\n"
        "        h.step()\n"
        "    return x\n",
        "is read from `h`, whose method `.step()` is called",
    ),
    "owner": (
        "def f(x, holder):\n"
        "    for i in range(3):\n"
        "        x = x * holder.scale.item() + i\n"
        "        holder.step()\n"
        "    return x\n",
        "is read from `holder`, whose method `.step()` is called",
    ),
}


class Holder:
    def __init__(self) -> None:
        import torch

        self.scale = torch.tensor(1.0)

    def step(self) -> None:
        self.scale.add_(1)


def gbf009(source: str):
    settings = Settings(select=("GBF009",), reach="all", fix_mode="unsafe")
    return transform_source("import torch\n\n" + source, "/project/case.py", settings)


def call(source: str, case: str):
    import torch

    namespace: dict = {}
    exec(compile("import torch\n\n" + source, "<case>", "exec"), namespace)
    second = Holder() if case.startswith("owner") else torch.tensor(1.0)
    return namespace["f"](torch.ones(2), second)


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_loop_that_may_change_the_tensor_keeps_its_read(case: str) -> None:
    source, why = REFUSED[case]
    outcome = gbf009(source)
    assert outcome.new_text is None
    (finding,) = outcome.findings
    assert finding.fix == "none" and why in finding.note, finding.note


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_hoisted_by_hand_the_read_misses_the_changes(case: str) -> None:
    source, _ = REFUSED[case]
    read = "holder.scale.item()" if case.startswith("owner") else "scale.item()"
    loop = next(line for line in source.splitlines(keepends=True) if line.startswith("    for "))
    hoisted = source.replace(loop, f"    once = {read}\n{loop}", 1)
    hoisted = hoisted.replace(f"x * {read}", "x * once")
    assert hoisted != source
    assert not call(source, case).equal(call(hoisted, case))


def test_a_new_tensor_computed_from_the_receiver_is_not_another_name_for_it() -> None:
    source = (
        "def f(x, scale, layer):\n"
        "    doubled = scale * 2\n"
        "    for i in range(3):\n"
        "        x = layer(x * scale.item() + i)\n"
        "        doubled.add_(1)\n"
        "    return x\n"
    )
    outcome = gbf009(source)
    assert outcome.new_text is not None and "_gbfix_scale_item_1 = scale.item()" in outcome.new_text
