"""Generated helper names: never one already written in the file, never one twice."""

from __future__ import annotations

import re

from codemods.analysis.helper_names import NameAllocator, first_free_number
from rewriter.engine.config import Settings
from rewriter.engine.pipeline import transform_source


def test_first_free_number_reads_whole_identifiers_only() -> None:
    assert first_free_number("def f():\n    pass\n") == 1
    assert first_free_number("_gbfix_loop_3()\nx = _gbfix_ok_7\n") == 8
    assert first_free_number("my_gbfix_loop_9 = _gbfix_loop_9x = _gbfix_Loop_9\n") == 1
    assert first_free_number("print('_gbfix_inner_12')  # _gbfix_loop_2\n") == 13
    assert first_free_number("_gbfix_layers_loop_4()\n_gbfix_block2_step_5(x)\n") == 6


def test_allocator_counts_on() -> None:
    names = NameAllocator(4)
    assert [names.fresh("loop"), names.fresh("ok")] == ["_gbfix_loop_4", "_gbfix_ok_5"]
    assert names.next == 6


SOURCE = """import torch


def f(xs, cm):
    total = 0
    for x in xs:
        print(x)
        total = total + x
    with cm:
        print(total)
        total = torch.relu(total)
    return total * 2
"""


def _helpers(text: str) -> list[str]:
    return re.findall(r"def (_gbfix_[a-z0-9_]+?_\d+)\(", text)


def test_helpers_of_different_rules_in_one_file_get_different_numbers() -> None:
    new = transform_source(SOURCE, "m.py", Settings(reach="all")).new_text
    assert new is not None
    helpers = _helpers(new)
    # the loop's driver and its per-trip function, then the `with` block's helper
    assert len(helpers) == 3 and len(set(helpers)) == 3, new
    assert sorted(int(h.rsplit("_", 1)[1]) for h in helpers) == [1, 2, 3]


def test_numbers_go_past_the_names_a_file_already_has() -> None:
    source = SOURCE.replace("    total = 0\n", "    total = 0\n    _gbfix_loop_41 = None\n")
    new = transform_source(source, "m.py", Settings(reach="all")).new_text
    assert new is not None
    assert sorted(int(h.rsplit("_", 1)[1]) for h in _helpers(new)) == [42, 43, 44], new
