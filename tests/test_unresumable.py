"""GBF012: breaks Dynamo cannot resume after, measured, found and rewritten."""

from __future__ import annotations

import logging

import pytest

from codemods.rules.base import RecordedSkip
from rewriter.engine.config import Settings
from rewriter.engine.pipeline import transform_source

ONLY = Settings(select=("GBF012",), reach="all")

VALUES = """import torch


def process(scores: torch.Tensor, ids: torch.Tensor, other):
    scores = scores.softmax(-1)
    a = ids is not None and not (ids < 0).any()
    b = not ids.all()
    c = not other.any()
    if not ids.any() and not (ids > 2).all():
        scores = scores + 1
    d = [v for v in (1, 2) if not (ids < v).any()]
    e = scores * 2 if not ids.all() else scores
    assert not (ids > 9).any()
    for _ in range(2):
        f = not ids.any()
    with torch.no_grad():
        g = not ids.any()
    try:
        h = not ids.any()
    except ValueError:
        k = not ids.any()
    return scores, a, b, c, d, e
"""


def test_only_not_used_as_a_value_is_found():
    outcome = transform_source(VALUES, "m.py", ONLY)
    # in a loop, `with` or `try` too (not in an except clause: Dynamo traces none)
    assert [(f.line, f.fix) for f in outcome.findings] == [
        (6, "safe"),
        (7, "safe"),
        (15, "safe"),
        (17, "safe"),
        (19, "safe"),
    ]
    assert "`not` of a tensor used as a value" in outcome.findings[0].message
    assert "skips `process` (or the rest of it) and its" in outcome.findings[0].message
    new = outcome.new_text
    assert new is not None
    assert "a = ids is not None and not bool((ids < 0).any())\n" in new
    assert "b = not bool(ids.all())\n" in new
    assert "        f = not bool(ids.any())\n" in new
    # an unknown receiver, the tests and the except clause keep their text
    changed = [line for line in new.splitlines() if line not in VALUES.splitlines()]
    assert len(changed) == 5
    # idempotent
    assert transform_source(new, "m.py", ONLY).new_text is None


def test_not_written_against_its_operand_gets_a_space():
    source = "import torch\n\n\ndef f(x: torch.Tensor):\n    y = x * 2\n    return y, not(x.any())\n"
    assert transform_source(source, "m.py", ONLY).new_text.endswith("return y, not bool(x.any())\n")


def test_a_file_that_binds_bool_is_reported_not_rewritten():
    source = "import torch\n\nfrom flags import bool\n\n\ndef f(x: torch.Tensor):\n    return not x.any()\n"
    outcome = transform_source(source, "m.py", ONLY)
    (finding,) = outcome.findings
    assert finding.fix == "none" and "binds the name `bool`" in finding.note
    assert outcome.new_text is None


STAR = "import torch\nfrom torch import *\n\n\ndef f(x: torch.Tensor):\n    y = x * 2\n    return y, not x.any()\n"


def test_a_file_with_a_star_import_is_reported_not_rewritten():
    outcome = transform_source(STAR, "m.py", ONLY)
    (finding,) = outcome.findings
    assert finding.fix == "none" and "a star import in this file may bind the name `bool`" in finding.note
    assert outcome.new_text is None


def test_from_torch_import_star_binds_bool_to_a_dtype_that_cannot_be_called():
    """Why a star import refuses the rewrite: it would raise where the original ran."""
    import pytest
    import torch

    rewritten = STAR.replace("not x.any()", "not bool(x.any())")
    for source, works in ((STAR, True), (rewritten, False)):
        namespace: dict = {}
        exec(compile(source, "<star>", "exec"), namespace)
        assert namespace["bool"] is torch.bool
        if works:
            assert namespace["f"](torch.zeros(2))[1] is True
        else:
            with pytest.raises(TypeError, match="not callable"):
                namespace["f"](torch.zeros(2))


RNN = """import torch
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 4)
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        x = x.permute(1, 0, 2)
        y = self.lstm(x)[0] + self.lstm(x)[0]
        return self.proj(y) * 2

    def other(self, x):
        return self.proj(x)
"""


def test_a_call_of_a_recurrent_module_is_reported_once_per_frame():
    outcome = transform_source(RNN, "m.py", ONLY)
    (finding,) = outcome.findings
    assert (finding.line, finding.fix) == (13, "none")
    assert finding.message.startswith("calling `self.lstm`, a recurrent module, makes Dynamo skip `forward`")
    assert outcome.new_text is None


def test_gbf011_leaves_a_recorded_skip_to_gbf012_when_it_is_active():
    skip = RecordedSkip(11, "forward", "Attempted to wrap RNN, GRU, or LSTM at m.py:13")
    settings = Settings(recorded_skips={"m.py": frozenset({skip})}, recorded_breaks={"m.py": frozenset({13})})
    assert [f.code for f in transform_source(RNN, "m.py", settings).findings] == ["GBF012"]
    alone = Settings(
        select=("GBF011",), recorded_skips={"m.py": frozenset({skip})}, recorded_breaks={"m.py": frozenset({13})}
    )
    assert [f.code for f in transform_source(RNN, "m.py", alone).findings] == ["GBF011"]


MULTILINE = """import torch


def f(x: torch.Tensor, m: torch.Tensor):
    y = x * 2
    a = not (  # the call on the lines below
        (m > 0).any()
    )
    b = not (
        m
    ).all()
    if not (
        m.any()
    ):
        y = y + 1
    return y, a, b
"""


def test_a_not_whose_line_opens_its_operands_parentheses_is_found():
    from rewriter.prefilter.screen import text_could_match

    assert text_could_match(MULTILINE, "GBF012")
    outcome = transform_source(MULTILINE, "m.py", ONLY)
    # the call's own parentheses open on the `not`'s line; a receiver's do not, and a test resumes
    assert [(f.line, f.fix) for f in outcome.findings] == [(6, "safe")]
    new = outcome.new_text
    assert new is not None and "    a = not bool((m > 0).any())\n    b = not (\n" in new
    assert transform_source(new, "m.py", ONLY).new_text is None


def test_the_prefilter_passes_what_the_rule_finds():
    from rewriter.prefilter.screen import text_could_match

    assert text_could_match(VALUES, "GBF012") and text_could_match(RNN, "GBF012")
    head = "import torch\n\n\ndef f(x: torch.Tensor):\n"
    for body in (
        "    return not x\n",
        "    return x is not None and x.any()\n",  # `not` belongs to `is not`
        "    if not x.any():\n        x = x + 1\n",  # a test
        "    if str(not x.any()):\n        x = x + 1\n",  # a value, on a line the rule does not read either
        "    if not (\n        x.any()\n    ):\n        x = x + 1\n",  # a test, its operand below
    ):
        assert not text_could_match(head + body, "GBF012"), body
        assert not transform_source(head + body, "m.py", ONLY).findings


# -- measured on torch (the facts the rule rests on) ------------------------------------------


def _skips(fn, *args):
    torch = pytest.importorskip("torch")
    from rewriter.runtime.measure import measure

    logging.getLogger("torch._dynamo").setLevel(logging.ERROR)
    del torch
    _, stats = measure(fn, args)
    return stats


def _not_as_value(x, y):
    a = x * 2
    has = not (y < 0).any()
    return a + 1 if has else a - 1


def _not_bool_as_value(x, y):
    a = x * 2
    has = not bool((y < 0).any())
    return a + 1 if has else a - 1


def _not_of_the_lines_below(x, y):
    a = x * 2
    has = not ((y < 0).any())
    return a + 1 if has else a - 1


def _not_in_a_test(x, y):
    a = x * 2
    if not (y < 0).any():
        return a + 1
    return a - 1


@pytest.mark.torch_run
def test_not_of_a_tensor_as_a_value_skips_the_frame_and_bool_resumes():
    import torch

    x, y = torch.ones(3), torch.tensor([1.0, -1.0, 2.0])
    skipped = _skips(_not_as_value, x, y)
    assert skipped.frames_skipped == 1 and skipped.ops == 0
    below = _skips(_not_of_the_lines_below, x, y)
    assert below.frames_skipped == 1 and below.ops == 0
    for resumable in (_not_bool_as_value, _not_in_a_test):
        stats = _skips(resumable, x, y)
        assert stats.frames_skipped == 0 and stats.graphs == 2, resumable.__name__
        assert stats.coverage > skipped.coverage


@pytest.mark.torch_run
def test_a_recurrent_module_skips_the_frame_that_calls_it_not_its_caller():
    import torch

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = torch.nn.LSTM(4, 4, 2)

        def forward(self, x):
            y = x * 2
            y, _ = self.lstm(y)
            return y + 1

    class Outer(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.block = Block()

        def forward(self, x):
            return self.block(x - 1) * 3

    stats = _skips(Outer(), torch.ones(3, 2, 4))
    assert stats.skipped_functions == ["forward"]
    assert stats.graphs == 2  # the caller, before and after the call


def test_the_screen_reads_the_lines_that_hold_the_words():
    from rewriter.prefilter.screen import text_could_match

    head = "import torch\n\n\ndef f(x: torch.Tensor):\n"
    # one line holds the words and the pattern; line ends written as \r\n or \r count as \n
    for end in ("\n", "\r\n", "\r"):
        text = (head + "    y = x * 2\n    return not x.any()\n").replace("\n", end)
        assert text_could_match(text, "GBF012")
    # the words on one line, the `not` on another: no line matches
    assert not text_could_match(head + "    y = not x\n    return y, x.any()\n", "GBF012")


def test_a_function_compiled_code_does_not_reach_is_left_alone():
    source = (
        "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return x * 2\n\n"
        "    def unused(self, x: torch.Tensor):\n        y = x * 2\n        return y, not x.any()\n"
    )
    compiled = Settings(select=("GBF012",), reach="compiled")
    assert not transform_source(source, "m.py", compiled).findings
    reached = source.replace("return x * 2", "return self.unused(x)")
    outcome = transform_source(reached, "m.py", compiled)
    assert [f.line for f in outcome.findings] == [10] and "not bool(x.any())" in outcome.new_text
