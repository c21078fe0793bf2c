"""A library's own wrapper of ``torch.compiler.is_compiling`` guards like the original, also in ``not f() and …``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from rewriter.engine.config import Settings
from rewriter.engine.pipeline import transform_source

GUARDED = """import logging

import torch

from .utils.import_utils import is_torchdynamo_compiling

logger = logging.getLogger(__name__)


class M(torch.nn.Module):
    def forward(self, x, first=True):
        for i in range(3):
            x = x * 2
            if not is_torchdynamo_compiling() and first:
                logger.warning("first step")
        return x
"""
HELPER = """import torch


def is_torchdynamo_compiling():
    return torch.compiler.is_compiling()
"""


def _codes(text: str) -> list[str]:
    return [f.code for f in transform_source(text, "pkg/m.py", Settings(reach="all")).findings]


def test_a_library_guard_keeps_its_suite_out_of_the_break_analysis() -> None:
    assert _codes(GUARDED) == []
    # the same call unguarded, or guarded by a test that lets the suite run under compile
    assert "GBF001" in _codes(GUARDED.replace("not is_torchdynamo_compiling() and first", "first"))
    assert "GBF001" in _codes(
        GUARDED.replace("not is_torchdynamo_compiling() and first", "first or not is_torchdynamo_compiling()")
    )
    # a function of that name the file defines itself is not known to answer for Dynamo
    local = GUARDED.replace(
        "from .utils.import_utils import is_torchdynamo_compiling\n",
        "def is_torchdynamo_compiling():\n    return False\n",
    )
    assert "GBF001" in _codes(local)


@pytest.mark.torch_run
def test_the_guarded_loop_compiles_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import torch
    from torch._dynamo.utils import counters

    (tmp_path / "pkg" / "utils").mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "utils" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "utils" / "import_utils.py").write_text(HELPER)
    (tmp_path / "pkg" / "m.py").write_text(GUARDED)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [n for n in sys.modules if n == "pkg" or n.startswith("pkg.")]:
        monkeypatch.delitem(sys.modules, name)
    from pkg.m import M  # type: ignore[import-not-found]

    torch._dynamo.reset()
    counters.clear()
    out = torch.compile(M(), backend="eager")(torch.ones(3))
    assert torch.equal(out, torch.ones(3) * 8)
    assert counters["frames"]["total"] == counters["frames"]["ok"] == 1
    assert not counters["graph_break"]
