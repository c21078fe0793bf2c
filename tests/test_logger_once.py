"""``logger.warning_once``: the cached logger method libraries add to ``logging.Logger``.

transformers binds ``logging.Logger.warning_once`` to an ``lru_cache`` of
``warning``. Measured here on torch 2.13: in a loop it makes Dynamo skip the
frame on every call, as ``logger.warning`` does; GBF010's guard removes the
break, and dropping the method under compile (``ignore_logger_methods``) does
too.
"""

from __future__ import annotations

import contextlib
import functools
import io
import logging

import pytest
import torch

from rewriter.engine.config import Settings
from rewriter.engine.pipeline import transform_source
from rewriter.runtime.measure import measure

pytestmark = pytest.mark.torch_run

logger = logging.getLogger("gbfix.tests.once")


@functools.lru_cache(None)
def _warning_once(self, *args):
    self.warning(*args)


@pytest.fixture(autouse=True)
def warning_once_on_loggers():
    logging.Logger.warning_once = _warning_once  # type: ignore[attr-defined]
    yield
    del logging.Logger.warning_once  # type: ignore[attr-defined]


def loop_with_warning_once(x):
    for _ in range(3):
        x = x * 2
        logger.warning_once("step")  # type: ignore[attr-defined]
    return x + 1


def _stats(fn):
    with contextlib.redirect_stdout(io.StringIO()):
        _, stats = measure(fn, (torch.ones(3),), calls=2, coverage=False)
    return stats


def test_warning_once_in_a_loop_skips_the_frame_on_every_call():
    assert _stats(loop_with_warning_once).frames_skipped == 1


def test_ignoring_the_method_removes_the_break():
    with torch._dynamo.config.patch(ignore_logger_methods={logging.Logger.warning_once}):  # type: ignore[attr-defined]
        stats = _stats(loop_with_warning_once)
    assert stats.frames_skipped == 0
    assert stats.breaks == []


SOURCE = """import logging
import torch
from torch import nn

logger = logging.getLogger(__name__)


class Block(nn.Module):
    def forward(self, x):
        for i in range(3):
            x = x * 2
            logger.warning_once("step")
        return x + 1
"""


def _transform(source: str, path: str, recorded: frozenset[int] = frozenset(), select=("GBF002", "GBF010")):
    settings = Settings(select=select, fix_mode="unsafe", recorded_breaks={path: recorded} if recorded else {})
    return transform_source(source, path, settings)


def test_static_mode_leaves_a_warning_once_alone():
    # One-time notices sit in configuration checks that seldom run: only a recorded run counts them.
    outcome = _transform(SOURCE, "/project/block.py")
    assert not outcome.findings and outcome.new_text is None


def test_gbf010_guards_a_warning_once_a_run_recorded():
    outcome = _transform(SOURCE, "/project/block.py", frozenset({12}), select=("GBF010",))
    assert [(f.code, f.line) for f in outcome.findings] == [("GBF010", 12)]
    assert outcome.new_text is not None
    assert 'if not torch.compiler.is_compiling():\n                logger.warning_once("step")' in outcome.new_text


CALLER = """import logging
import torch
from torch import nn

logger = logging.getLogger(__name__)


def pick_loss(kind):
    if kind is None:
        logger.warning_once("unknown loss type")
    return kind


class Head(nn.Module):
    def forward(self, x, kinds):
        for kind in kinds:
            x = x * 2
            pick_loss(kind)
        return x
"""


def test_a_recorded_warning_once_does_not_flag_the_callers_of_its_function():
    # The notice itself is GBF010's; the loop that calls its function is not flagged for it
    # (a recorded run places the break on the caller's line too, when the caller's frame broke).
    outcome = _transform(CALLER, "/project/head.py", frozenset({10}))
    assert [(f.code, f.line) for f in outcome.findings] == [("GBF010", 10)]
