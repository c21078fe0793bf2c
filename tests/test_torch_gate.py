"""The graph-break rules look only at files that import torch (``torch_only``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from codemods.rules.registry import REGISTRY
from rewriter.cli import app
from rewriter.engine.config import ConfigError, Settings, settings_from_table
from rewriter.engine.pipeline import torch_gate, transform_source
from rewriter.prefilter.text import imports_torch

LOOP = "def f(x):\n    for i in range(2):\n        x = x + 1\n        print(i)\n    return x\n"


def codes(text: str, **settings) -> list[str]:
    outcome = transform_source(text, "/project/case.py", Settings(fix_mode="report", **{"reach": "all", **settings}))
    return [f.code for f in outcome.findings]


@pytest.mark.parametrize(
    "header",
    [
        "import torch\n",
        "import torch.nn as nn\n",
        "import os, torch\n",
        "from torch import nn\n",
        "from torch.nn import functional as F\n",
        "try:\n    import torch\nexcept ImportError:\n    torch = None\n",
        "def lazy():\n    import torch\n",
    ],
)
def test_a_file_that_imports_torch_is_looked_at(header):
    assert imports_torch(header)
    assert codes(header + LOOP) == ["GBF001"]


@pytest.mark.parametrize("header", ["", "import torchvision\n", "import numpy as np  # like torch\n", "x = 'torch'\n"])
def test_a_file_that_never_imports_torch_is_not(header):
    assert not imports_torch(header + LOOP)
    assert codes(header + LOOP) == []


def test_the_gate_can_be_turned_off():
    assert codes(LOOP, torch_only=False) == ["GBF001"]


def test_a_recorded_break_opens_the_gate():
    # the recorded line runs compiled: GBF010 reports its print too
    assert codes(LOOP, recorded_breaks={"/project/case.py": frozenset({4})}) == ["GBF001", "GBF010"]


def test_only_the_graph_break_rules_are_gated():
    kept = torch_gate(LOOP, "/project/case.py", Settings()).active_codes
    assert kept == tuple(code for code in REGISTRY if not REGISTRY[code].PREFILTER.needs_break)
    # GBF011 acts only where a run recorded something, which opens the gate anyway; GBF012 needs
    # a tensor or a torch.nn module on evidence, which a file that never imports torch cannot show
    assert set(kept) == {"GBF005", "GBF006", "GBF007", "GBF011", "GBF012"}


def test_config_key(tmp_path, monkeypatch):
    assert settings_from_table({"torch_only": False}, "pyproject.toml").torch_only is False
    with pytest.raises(ConfigError, match="torch_only must be true or false"):
        settings_from_table({"torch_only": "no"}, "pyproject.toml")
    (tmp_path / "plain.py").write_text(LOOP)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    assert runner.invoke(app, ["scan", "plain.py"]).exit_code == 0
    (tmp_path / "pyproject.toml").write_text('[tool.gbfix]\ntorch_only = false\nreach = "all"\n')
    result = runner.invoke(app, ["scan", "plain.py"])
    assert result.exit_code == 1 and "plain.py:2:5: GBF001" in result.stdout
    assert "torch_only = false" in runner.invoke(app, ["config"]).stdout


def test_the_docs_name_every_gated_rule():
    """The README's ``torch_only`` row names exactly the rules the gate turns off."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    row = next(line for line in readme.splitlines() if line.startswith("| `torch_only` |"))
    gated = {code for code in REGISTRY if REGISTRY[code].PREFILTER.needs_break}
    assert set(re.findall(r"GBF\d{3}", row)) == gated
