"""A helper shares at most a few names with its function by ``nonlocal`` (CONTRIBUTING.md,
"Reviewing a helper"); past that the loop, ``with`` or ``try`` is left as written and the finding
names what it would share."""

from __future__ import annotations

import pytest

from codemods.analysis.outline import MAX_SHARED
from rewriter.engine.config import Settings
from rewriter.engine.pipeline import transform_source

LOOP = """\
import torch


def decode(x: torch.Tensor, steps: int):
{init}
    finished = False
    while not finished:
{body}
        print("step")
        finished = bool(steps)
        steps -= 1
    return {names}
"""

WITH = """\
import contextlib

import torch


def decode(x: torch.Tensor, ctx):
    x = x.exp()
{init}
    with ctx:
{body}
        print("step")
    return {names}
"""


def _source(template: str, count: int) -> str:
    names = [f"carried_{i}" for i in range(count)]
    return template.format(
        init="\n".join(f"    {n} = x" for n in names),
        body="\n".join(f"        {n} = {n}.sin() * 2" for n in names),
        names=", ".join(names),
    )


@pytest.mark.parametrize("template,code", [(LOOP, "GBF002"), (WITH, "GBF003")], ids=["loop", "with"])
def test_a_helper_sharing_too_many_names_is_not_made(template: str, code: str) -> None:
    settings = Settings(select=(code,), reach="all", fix_mode="unsafe")
    crowded = transform_source(_source(template, MAX_SHARED + 3), "/project/m.py", settings)
    assert crowded.new_text is None
    (finding,) = crowded.findings
    assert finding.fix == "none"
    assert (
        "not outlined:" in finding.note
        and f"shares {MAX_SHARED + 3 + (2 if code == 'GBF002' else 0)} names" in finding.note
    )
    assert "`carried_0`" in finding.note and "`nonlocal`" in finding.note


def test_the_bound_is_the_checkers() -> None:
    import os
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "scripts"))
    import check_helpers

    assert check_helpers.MAX_NONLOCAL == MAX_SHARED
