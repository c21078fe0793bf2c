"""Deprecation notices, and notices of ignored arguments: output calls that run only when a
caller uses something deprecated or passes what is not used.

Static mode leaves them to a recorded run, as it does one-time notices: on the
real-model benchmark none of the 11 that static mode flagged ran (diffusers'
`scale` in `cross_attention_kwargs`, transformers' `mm_encoder_outputs` as a
tensor). With a recording that shows one breaking, GBF010 fixes it as any
other logging call.
"""

from __future__ import annotations

import textwrap

from codemods.analysis.catalogue import is_deprecation_notice, is_ignored_input_notice
from codemods.analysis.project.index import summarise
from rewriter.engine.config import Settings
from rewriter.engine.pipeline import transform_source

SOURCE = textwrap.dedent("""\
    import logging
    import warnings

    import torch
    from torch import nn

    logger = logging.getLogger(__name__)


    class Block(nn.Module):
        def forward(self, x, scale=None):
            for i in range(3):
                x = x * 2
                if scale is not None:
                    logger.warning("Passing `scale` is deprecated and will be ignored.")
            return x


    class Old(nn.Module):
        def forward(self, x):
            for i in range(3):
                x = x * 2
                warnings.warn(f"step {i} uses the old path", FutureWarning)
            return x


    class Live(nn.Module):
        def forward(self, x):
            for i in range(3):
                x = x * 2
                logger.warning("step %d", i)
            return x


    class Picky(nn.Module):
        def forward(self, x, **kwargs):
            for i in range(3):
                x = x * 2
                if kwargs:
                    logger.warning(f"{list(kwargs)} are not expected by {type(self).__name__} and will be ignored.")
            return x
    """)


def _findings(recorded: frozenset[int] = frozenset()) -> list[tuple[str, int]]:
    settings = Settings(select=("GBF002", "GBF010"), fix_mode="unsafe", recorded_breaks={"m.py": recorded})
    return [(f.code, f.line) for f in transform_source(SOURCE, "m.py", settings).findings]


def test_static_mode_reports_the_live_notice_only():
    found = _findings()
    assert ("GBF010", 31) in found
    assert not [f for f in found if f[1] < 28 or f[1] > 32], found


def test_a_recorded_ignored_argument_notice_is_fixed_like_any_logging_call():
    assert ("GBF010", 40) in _findings(frozenset({40}))


def test_a_recorded_deprecation_notice_is_fixed_like_any_logging_call():
    assert ("GBF010", 15) in _findings(frozenset({15}))


def test_the_notice_is_told_by_its_text_or_its_category():
    assert is_deprecation_notice("Passing `scale` is Deprecated")
    assert is_deprecation_notice("use new_api", "FutureWarning")
    assert is_deprecation_notice("", "DeprecationWarning")
    assert not is_deprecation_notice("step %d", "UserWarning")
    assert is_ignored_input_notice("`foo` is not expected by Attn and will be ignored.")
    assert is_ignored_input_notice("kwargs ['a'] are not expected by AttnProcessor")
    assert not is_ignored_input_notice("attention mask is ignored by sdpa")


def test_a_function_whose_only_break_is_a_deprecation_notice_does_not_break_for_callers():
    helper = textwrap.dedent("""\
        import warnings


        def resize(x, old=None):
            if old is not None:
                warnings.warn("`old` is deprecated", FutureWarning)
            return x


        def shout(x):
            print("x")
            return x
        """)
    summary = summarise(helper, "helpers.py")
    assert summary is not None
    breaking = {unit.qualname for unit in summary.units if unit.direct is not None}
    assert breaking == {"shout"}
