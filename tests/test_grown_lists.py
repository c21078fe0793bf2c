"""Lists a loop's trip grows and reads whole make a per-trip function recompile on every trip."""

from __future__ import annotations

import libcst as cst
import pytest

from codemods.analysis.nodes import body_statements
from codemods.analysis.per_iteration import grown_and_read


def _grown(body: str) -> list[str]:
    loop = cst.parse_module(f"for i in range(3):\n{body}").body[0]
    assert isinstance(loop, cst.For)
    return grown_and_read(body_statements(loop.body))


@pytest.mark.parametrize(
    ("body", "names"),
    [
        ("    ids.append(x)\n    if torch.stack(ids).all():\n        break\n", ["ids"]),
        ("    ids.extend([x])\n    n = len(ids)\n", ["ids"]),
        ("    ids += [x]\n    y = ids[-1] * 2\n", ["ids"]),
        ("    ids.insert(0, x)\n    for t in ids:\n        pass\n", ["ids"]),
        # grown but only appended: the per-trip function returns the value and the loop appends it
        ("    ids.append(x)\n", []),
        # a tensor's `+=` grows nothing
        ("    total += x\n    y = total * 2\n", []),
        # a list made afresh on each trip
        ("    ids = []\n    ids.append(x)\n    y = torch.stack(ids)\n", []),
    ],
)
def test_lists_grown_and_read_whole(body: str, names: list[str]) -> None:
    assert _grown(body) == names
