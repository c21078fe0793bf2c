"""A block outlined inside a loop keeps what one trip binds for the next.

When the loop rules leave a loop (a generator's, or with them not selected),
GBF003 and GBF004 may outline a ``with`` or ``try`` in its body. A name the
block binds on one trip and reads on the next (``scale``, bound on the first)
must stay the function's: local to the helper, the next trip would not see it.
"""

from __future__ import annotations

import pytest

from rewriter.engine.config import Settings
from rewriter.engine.pipeline import transform_source

BLOCKS = {
    "GBF003": (
        "        with Ctx():\n"
        "            if i == 0:\n"
        "                scale = x.sum()\n"
        "            y = y * scale\n"
        "            print('it', y.shape)\n"
    ),
    "GBF004": (
        "        try:\n"
        "            if i == 0:\n"
        "                scale = x.sum()\n"
        "            y = y * scale\n"
        "            print('it', y.shape)\n"
        "        except ValueError:\n"
        "            pass\n"
    ),
}


def source(code: str) -> str:
    return (
        "import torch\n\n"
        "ENTERED = []\n\n"
        "class Ctx:\n"
        "    def __enter__(self):\n"
        "        ENTERED.append(self)  # an effect: GBF003 does not split the block by default\n"
        "        return self\n\n"
        "    def __exit__(self, *exc):\n"
        "        return False\n\n"
        "def steps(x):\n"
        "    y = x.sin()\n"
        "    for i in range(3):\n" + BLOCKS[code] + "        yield y\n"
    )


@pytest.mark.parametrize("code", sorted(BLOCKS))
def test_a_name_bound_on_one_trip_is_seen_on_the_next(code: str, capsys: pytest.CaptureFixture[str]) -> None:
    import torch

    text = source(code)
    outcome = transform_source(text, "/project/case.py", Settings(select=(code,), reach="all"))
    assert outcome.new_text is not None and "nonlocal scale, y" in outcome.new_text
    results = []
    for version in (text, outcome.new_text):
        namespace: dict = {}
        exec(compile(version, "<case>", "exec"), namespace)
        results.append(torch.stack(list(namespace["steps"](torch.ones(2)))))
    assert results[0].equal(results[1])
